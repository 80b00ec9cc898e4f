#!/bin/bash
# queries.sh: whole queries, PostgreSQL's plan against radik's, in one run on one server.
#
# Builds t(id int8, v float4, i8 int8, ts timestamptz, grp int4, name text, n numeric, u uuid) of
# --rows rows (v, i8, n and u random, ts in insertion order as in an append-mostly table, grp one
# of 1000 groups, name a random 32-character text), as one table or --partitions range partitions of id,
# with statistics on id / 50 (the group of the 1M-group shapes, whose million groups' best rows
# fit in --set work_mem=256MB; with less they pass it and radik falls back to PostgreSQL's plan),
# then times each query shape for each k and each
# max_parallel_workers_per_gather, once with radik.enabled = off and once with radik.force = on,
# in each regime:
#   prewarmed   the table loaded into shared_buffers with pg_prewarm first
#   restarted   the server restarted first (--restart); a table larger than a quarter of
#               shared_buffers is then read through a small ring of buffers, from the operating
#               system's page cache, on every scan
# A cell is the median of --reps runs (EXPLAIN ANALYZE's execution time) after one warm-up run in
# the same session, which also starts the GPU and hashes the answer's sort key values: each cell
# checks that both plans returned the same ones.  With --clients, pgbench runs the star shape
# (k = 100, no workers) with N
# concurrent clients for --seconds, each plan in turn, and reports transactions per second.
#
# --brin adds BRIN minmax indexes on ts and v (default pages_per_range): the latest shapes can then
# skip the ranges that cannot hold their rows, v's random keys cannot (the index costs only its
# reading).  Load such a table with one job, since parallel loaders interleave their pages.
# --scatter PCT then moves PCT percent of the rows' ts to random times of the table's span (an
# UPDATE: the new versions go to the end of the table), once, before the timings.
#
# --set "name=value ..." applies settings to both plans' sessions (for instance jit=on
# jit_above_cost=0).  Needs a running server (PGHOST, PGPORT, PGUSER) with radik and pg_prewarm
# available, and shared_buffers larger than the table for the prewarmed regime.
#   usage: bench/queries.sh [--rows N] [--shapes "v star ..."] [--ks "10 100"] [--workers "0 2 8"]
#                           [--regimes "prewarmed restarted"] [--reps N] [--restart CMD]
#                           [--clients "32 128"] [--seconds N] [--partitions N]
#                           [--set "name=value ..."] [--reuse-table] [--load-jobs N]
#                           [--brin] [--scatter PCT]
#   shapes: see shape_sql below; `bench/queries.sh --list` prints them.
set -euo pipefail

rows=50000000 shapes="v star where like expr" ks=100 workers="0 2 8"
regimes="prewarmed restarted" reps=3 restart_cmd="" clients="" seconds=30 reuse=0 partitions=0
settings="" load_jobs=1 brin=0 scatter=0
command_line="$0 $*"
while [ $# -gt 0 ]; do
	case $1 in
	--rows) rows=$2; shift ;;
	--shapes) shapes=$2; shift ;;
	--ks) ks=$2; shift ;;
	--workers) workers=$2; shift ;;
	--regimes) regimes=$2; shift ;;
	--reps) reps=$2; shift ;;
	--restart) restart_cmd=$2; shift ;;
	--clients) clients=$2; shift ;;
	--seconds) seconds=$2; shift ;;
	--partitions) partitions=$2; shift ;;
	--set) settings=$2; shift ;;
	--reuse-table) reuse=1 ;;
	--load-jobs) load_jobs=$2; shift ;;
	--brin) brin=1 ;;
	--scatter) scatter=$2; shift ;;
	--list) list=1 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

# shape_sql NAME K: the query; shape_keys NAME: what two right answers must agree on
shape_sql() {
	case $1 in
	v) echo "SELECT v FROM t ORDER BY v DESC LIMIT $2" ;;
	i8) echo "SELECT i8 FROM t ORDER BY i8 DESC LIMIT $2" ;;
	star) echo "SELECT * FROM t ORDER BY v DESC LIMIT $2" ;;
	where) echo "SELECT * FROM t WHERE grp < 100 ORDER BY v DESC LIMIT $2" ;;
	like) echo "SELECT * FROM t WHERE name LIKE 'a%' ORDER BY v DESC LIMIT $2" ;;
	expr) echo "SELECT id, v FROM t ORDER BY abs(v - 0.5) LIMIT $2" ;;
	likeexpr) echo "SELECT id, v FROM t WHERE name LIKE 'a%' ORDER BY abs(v - 0.5) LIMIT $2" ;;
	ties) echo "SELECT * FROM t ORDER BY v DESC FETCH FIRST $2 ROWS WITH TIES" ;;
	numeric) echo "SELECT * FROM t ORDER BY n DESC LIMIT $2" ;;
	latest) echo "SELECT * FROM t ORDER BY ts DESC LIMIT $2" ;;
	latestwhere) echo "SELECT * FROM t WHERE grp < 10 ORDER BY ts DESC LIMIT $2" ;;
	text) echo "SELECT * FROM t ORDER BY name LIMIT $2" ;;
	textc) echo "SELECT * FROM t ORDER BY name COLLATE \"C\" LIMIT $2" ;;
	texticu) echo "SELECT * FROM t ORDER BY name COLLATE \"und-x-icu\" LIMIT $2" ;;
	uuid) echo "SELECT * FROM t ORDER BY u LIMIT $2" ;;
	rownumber) echo "SELECT * FROM (SELECT grp, v, row_number() OVER (PARTITION BY grp ORDER BY v DESC) AS r FROM t) s WHERE r <= $2" ;;
	distinct) echo "SELECT DISTINCT ON (grp) * FROM t ORDER BY grp, v DESC" ;;
	rankties) echo "SELECT * FROM (SELECT grp, floor(v * 10) AS d, rank() OVER (PARTITION BY grp ORDER BY floor(v * 10) DESC) AS r FROM t) s WHERE r <= $2" ;;
	rownumberties) echo "SELECT * FROM (SELECT grp, floor(v * 10) AS d, row_number() OVER (PARTITION BY grp ORDER BY floor(v * 10) DESC) AS r FROM t) s WHERE r <= $2" ;;
	rownumber1m) echo "SELECT * FROM (SELECT id / 50 AS g, v, row_number() OVER (PARTITION BY id / 50 ORDER BY v DESC) AS r FROM t) s WHERE r <= $2" ;;
	distinct1m) echo "SELECT DISTINCT ON (id / 50) * FROM t ORDER BY id / 50, v DESC" ;;
	*) return 1 ;;
	esac
}
shape_keys() {
	case $1 in
	v|star|where|like|ties) echo "v" ;;
	i8) echo "i8" ;;
	expr|likeexpr) echo "abs(v - 0.5)" ;;
	numeric) echo "n" ;;
	latest|latestwhere) echo "ts" ;;
	text|textc|texticu) echo "name" ;;
	uuid) echo "u" ;;
	rownumber) echo "grp, v, r" ;;
	distinct) echo "grp, v" ;;
	rankties) echo "grp, d, r" ;;
	rownumberties) echo "grp, d, r" ;;
	rownumber1m) echo "g, v, r" ;;
	distinct1m) echo "id / 50, v" ;;
	esac
}
if [ "${list:-0}" = 1 ]; then
	for s in v i8 star where like expr likeexpr ties numeric latest latestwhere text textc texticu uuid rownumber distinct rankties rownumberties rownumber1m distinct1m; do
		printf '%-10s %s\n' "$s" "$(shape_sql $s k)"
	done
	exit 0
fi
for s in $shapes; do shape_sql "$s" 1 >/dev/null || { echo "unknown shape $s" >&2; exit 2; }; done
case " $regimes " in *" restarted "*) [ -n "$restart_cmd" ] || { echo "--restart CMD is needed for the restarted regime" >&2; exit 2; } ;; esac

psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
wait_for_server() { for _ in $(seq 60); do psql_q -c "SELECT 1" >/dev/null 2>&1 && return 0; sleep 1; done; return 1; }

psql_q -c "CREATE EXTENSION IF NOT EXISTS radik" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm"
if [ "$reuse" != 1 ] || [ "$(psql_q -c "SELECT count(*) FROM t" 2>/dev/null)" != "$rows" ]; then
	psql_q -c "DROP TABLE IF EXISTS t"
	psql_q -c "CREATE TABLE t (id int8, v float4, i8 int8, ts timestamptz, grp int4, name text, n numeric,
		u uuid)
		$([ "$partitions" -gt 0 ] && echo "PARTITION BY RANGE (id)")"
	for p in $(seq 0 $((partitions - 1))); do
		psql_q -c "CREATE TABLE t_$p PARTITION OF t FOR VALUES FROM ($((p * rows / partitions + 1)))
			TO ($(((p + 1) * rows / partitions + 1)))"
	done
	# --load-jobs sessions insert consecutive slices of id at once (the rows then lie in a few
	# runs of id order instead of one)
	for j in $(seq 0 $((load_jobs - 1))); do
		psql_q <<SQL &
INSERT INTO t
SELECT g, random()::float4, (random() * 9e18)::int8,
	timestamptz '2024-01-01 00:00+00' + g * interval '1 second', (random() * 999)::int4,
	md5(random()::text), round((random() * 1e8)::numeric, 2), md5(random()::text)::uuid
FROM generate_series($((j * rows / load_jobs + 1)), $(((j + 1) * rows / load_jobs))) g;
SQL
	done
	wait
	psql_q -c "CREATE STATISTICS t_id50 ON (id / 50) FROM t" -c "VACUUM ANALYZE t"
fi
if [ "$brin" = 1 ]; then
	psql_q -c "CREATE INDEX IF NOT EXISTS t_ts_brin ON t USING brin (ts)" \
		-c "CREATE INDEX IF NOT EXISTS t_v_brin ON t USING brin (v)"
fi
if [ "$scatter" != 0 ]; then
	psql_q -c "UPDATE t SET ts = timestamptz '2024-01-01 00:00+00' + random() * $rows * interval '1 second'
		WHERE random() < $scatter / 100.0" -c "VACUUM ANALYZE t"
fi
# The --set settings as SET commands, and as -c options for pgbench.
set_commands=$(for kv in $settings; do printf "SET %s = '%s'; " "${kv%%=*}" "${kv#*=}"; done)
set_options=$(for kv in $settings; do printf -- '-c %s ' "$kv"; done)

# The tables holding t's rows: t itself, or its partitions (pg_partition_tree lists nothing for a
# table that is not partitioned).
leaves="SELECT c.oid AS relid FROM pg_class c WHERE c.relkind = 'r' AND
	(c.oid = 't'::regclass OR c.oid IN (SELECT relid FROM pg_partition_tree('t') WHERE isleaf))"

# ms PLAN WORKERS QUERY KEYS: one cell in a session of its own: "median-ms key-hash"
ms() {
	local setting="SET radik.enabled = off"
	[ "$1" = radik ] && setting="SET radik.force = on"
	psql_q -c "LOAD 'radik'" -c "$setting; $set_commands" -c "SET max_parallel_workers_per_gather = $2" \
		-f - <<SQL | tail -1
CREATE FUNCTION pg_temp.bench_ms(q text, keys text, reps int) RETURNS text LANGUAGE plpgsql AS \$\$
DECLARE times float8[] := '{}'; line text; ms float8; hash text;
BEGIN
	EXECUTE format('SELECT md5(string_agg(ROW(%s)::text, '','')) FROM (%s) s', keys, q) INTO hash;
	FOR i IN 1..reps LOOP
		FOR line IN EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) ' || q LOOP
			IF line LIKE 'Execution Time:%' THEN ms := substring(line FROM 'Execution Time: ([0-9.]+)')::float8; END IF;
		END LOOP;
		times := times || ms;
	END LOOP;
	RETURN (SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY x)::numeric, 1) FROM unnest(times) x) || ' ' || hash;
END \$\$;
SELECT pg_temp.bench_ms(\$q\$$3\$q\$, \$k\$$4\$k\$, $reps);
SQL
}

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')  host: $(hostname)  cores: $(nproc)  gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || true)"
echo "command: $command_line"
echo "server: $(psql_q -c 'SELECT version()' | cut -d, -f1)  shared_buffers: $(psql_q -c 'SHOW shared_buffers')  huge_pages: $(psql_q -c 'SHOW huge_pages')  work_mem: $(psql_q -c 'SHOW work_mem')"
echo "table t: $rows rows$([ "$partitions" -gt 0 ] && echo " in $partitions partitions"), $(psql_q -c "SELECT pg_size_pretty(sum(pg_table_size(relid))) FROM ($leaves) l")  settings: ${settings:-none}"
echo "indexes: $(psql_q -c "SELECT coalesce(string_agg(indexdef, '; '), 'none') FROM pg_indexes WHERE tablename = 't'")$([ "$scatter" != 0 ] && echo "  ts of $scatter% of the rows scattered")"
printf '\n| regime | query | workers | PostgreSQL ms | radik ms | ratio | same keys |\n|---|---|---:|---:|---:|---:|---|\n'
for regime in $regimes; do
	if [ "$regime" = restarted ]; then
		eval "$restart_cmd" >/dev/null
		wait_for_server
	else
		psql_q -c "SELECT pg_prewarm(relid) FROM ($leaves) l" >/dev/null
	fi
	for shape in $shapes; do
		for k in $ks; do
			q=$(shape_sql "$shape" "$k")
			for w in $workers; do
				read -r pg pg_hash <<<"$(ms postgres "$w" "$q" "$(shape_keys "$shape")")"
				read -r rk rk_hash <<<"$(ms radik "$w" "$q" "$(shape_keys "$shape")")"
				printf '| %s | `%s` | %s | %s | %s | %s | %s |\n' "$regime" "$q" "$w" "$pg" "$rk" \
					"$(python3 -c "print(f'{$pg/$rk:.1f}x')")" "$([ "$pg_hash" = "$rk_hash" ] && echo yes || echo NO)"
			done
		done
	done
done

if [ -n "$clients" ]; then
	q=$(shape_sql star 100)
	script=$(mktemp)
	echo "$q;" >"$script"
	printf '\n| clients | query | PostgreSQL tps | radik tps | ratio |\n|---:|---|---:|---:|---:|\n'
	for c in $clients; do
		tps() {
			PGOPTIONS="-c session_preload_libraries=radik -c max_parallel_workers_per_gather=0 -c $1 $set_options" \
				pgbench -n -c "$c" -j "$c" -T "$seconds" -f "$script" 2>/dev/null |
				sed -n 's/^tps = \([0-9.]*\).*/\1/p'
		}
		pg=$(tps "radik.enabled=off")
		rk=$(tps "radik.force=on")
		printf '| %s | `%s` | %s | %s | %s |\n' "$c" "$q" "$pg" "$rk" "$(python3 -c "print(f'{$rk/$pg:.1f}x')")"
	done
	rm -f "$script"
fi
