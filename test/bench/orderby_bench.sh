#!/bin/bash
# orderby_bench.sh: whole-query ORDER BY ... LIMIT timings, PostgreSQL against radik, on a GPU host.
#
# Builds t(id int8, v float4, i8 int8) of $ROWS rows (default 50M; ROWS=10000000 for the 10M
# table) filled with random(), warms it into shared buffers, then for each query shape and k runs
# the query with radik off and on, checks both return the same key values, and prints a table with
# the ratios.  Both run with max_parallel_workers_per_gather = 0, 2 and 8 (PostgreSQL's plan and
# radik's plan each choose how many workers to launch under that limit), and each radik time is
# set against PostgreSQL's with the same setting.  Times are EXPLAIN (ANALYZE, TIMING OFF)
# execution times, median of $REPS runs ($PG_REPS for PostgreSQL); radik's runs follow one
# warm-up run in the same session, which pays the GPU start.
# Needs a running server (PGHOST/PGPORT) with radik installed and shared_buffers large enough.
#   usage: ROWS=50000000 REPS=3 PG_REPS=3 SHAPES='v i8 star where' bash test/bench/orderby_bench.sh [ks...]
#   (SHAPES may also name ties: SELECT * ... FETCH FIRST k ROWS WITH TIES, which PostgreSQL answers
#   by sorting every row, not in the default set.)
#   REUSE_TABLE=1: keep t when it already holds $ROWS rows (it is still warmed).
set -euo pipefail
ROWS=${ROWS:-50000000}
REPS=${REPS:-3}
KS=${*:-10 1000 100000 1000000}
WORKERS="0 2 8"
SHAPES=${SHAPES:-v i8 star where}	# which query shapes to run (see the case below)
PG_REPS=${PG_REPS:-$REPS}
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

psql_q -c "CREATE EXTENSION IF NOT EXISTS radik" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm"
if [ "${REUSE_TABLE:-0}" != 1 ] || [ "$(psql_q -c "SELECT count(*) FROM t" 2>/dev/null)" != "$ROWS" ]; then
	psql_q <<SQL
DROP TABLE IF EXISTS t;
CREATE TABLE t AS SELECT g::int8 AS id, random()::float4 AS v, (random() * 9e18)::int8 AS i8
  FROM generate_series(1, $ROWS) g;
VACUUM ANALYZE t;
SQL
fi
psql_q <<SQL
SELECT pg_prewarm('t');
CREATE OR REPLACE FUNCTION bench_ms(q text, reps int) RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE times float8[] := '{}'; line text; ms float8;
BEGIN
  FOR i IN 1..reps LOOP
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) ' || q LOOP
      IF line LIKE 'Execution Time:%' THEN
        ms := substring(line FROM 'Execution Time: ([0-9.]+)')::float8;
      END IF;
    END LOOP;
    times := times || ms;
  END LOOP;
  RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(times) x);
END \$\$;
SQL

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')  host: $(hostname)  gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)"
echo "rows: $ROWS  reps: radik $REPS, PostgreSQL $PG_REPS (median)  shared_buffers: $(psql_q -c 'SHOW shared_buffers')  huge_pages setting: $(psql_q -c 'SHOW huge_pages')"
printf '\n| query | k | PG 0 | radik 0 | x | PG 2 | radik 2 | x | PG 8 | radik 8 | x | same keys |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n'
for name in $SHAPES; do
	case $name in
	v) shape="SELECT v FROM t ORDER BY v DESC" ;;
	i8) shape="SELECT i8 FROM t ORDER BY i8 DESC" ;;
	star) shape="SELECT * FROM t ORDER BY v DESC" ;;
	where) shape="SELECT v FROM t WHERE id % 10 <> 0 ORDER BY v DESC" ;;
	ties) shape="SELECT * FROM t ORDER BY v DESC" ;;	# FETCH FIRST k ROWS WITH TIES
	*) echo "unknown shape $name" >&2; exit 2 ;;
	esac
	key=$(echo "$shape" | sed -E 's/.*ORDER BY ([a-z0-9]+).*/\1/')
	for k in $KS; do
		q="$shape LIMIT $k"
		shown="$shape"
		if [ "$name" = ties ]; then
			q="$shape FETCH FIRST $k ROWS WITH TIES"
			shown="$shape FETCH FIRST k ROWS WITH TIES"
		fi
		cells=""
		for w in $WORKERS; do
			pg=$(psql_q -c "LOAD 'radik'" -c "SET radik.enabled = off" -c "SET max_parallel_workers_per_gather = $w" -c "SELECT round(bench_ms('$q', $PG_REPS)::numeric, 1)")
			rk=$(psql_q -c "LOAD 'radik'" -c "SET radik.force = on" -c "SET max_parallel_workers_per_gather = $w" -c "SELECT bench_ms('$q', 1)" -c "SELECT round(bench_ms('$q', $REPS)::numeric, 1)" | tail -1)
			cells="$cells | $pg | $rk | $(python3 -c "print(f'{$pg/$rk:.1f}x')")"
		done
		same=$(psql_q -c "LOAD 'radik'" \
			-c "SET radik.enabled = off" -c "CREATE TEMP TABLE a AS SELECT md5(string_agg($key::text, ',')) h FROM ($q) s" \
			-c "SET radik.enabled = on" -c "SET radik.force = on" -c "CREATE TEMP TABLE b AS SELECT md5(string_agg($key::text, ',')) h FROM ($q) s" \
			-c "SELECT CASE WHEN a.h = b.h THEN 'yes' ELSE 'NO' END FROM a, b")
		printf '| `%s` | %s%s | %s |\n' "$shown" "$k" "$cells" "$same"
	done
done
