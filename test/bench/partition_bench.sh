#!/bin/bash
# partition_bench.sh: ORDER BY ... LIMIT k over a partitioned table, PostgreSQL against radik, on a
# running server with radik installed (PGHOST/PGPORT): t_part(id int8, v float4, pad text) of
# $ROWS rows in $PARTS range partitions of equal size, EXPLAIN (ANALYZE, TIMING OFF) execution
# times with max_parallel_workers_per_gather = 0 and 8, radik (radik.force = on) after a warm-up
# run in the same session (which pays the GPU start), and whether both answers have the same key
# values.  `planner`: the plan the planner picks itself in that session once the GPU has started
# (radik.force off): radik's nodes on the partitions, or PostgreSQL's own.
#   usage: ROWS=10000000 PARTS=8 bash test/bench/partition_bench.sh [ks...]
set -euo pipefail
ROWS=${ROWS:-10000000}
PARTS=${PARTS:-8}
KS=${*:-10 1000 100000}
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
per_part=$(( (ROWS + PARTS - 1) / PARTS ))
{
	echo "DROP TABLE IF EXISTS t_part;"
	echo "CREATE TABLE t_part (id int8, v float4, pad text) PARTITION BY RANGE (id);"
	for ((p = 0; p < PARTS; p++)); do
		echo "CREATE TABLE t_part_$p PARTITION OF t_part FOR VALUES FROM ($((p * per_part))) TO ($(((p + 1) * per_part)));"
	done
	echo "INSERT INTO t_part SELECT g, random()::float4, md5(g::text) FROM generate_series(0, $ROWS - 1) g;"
	echo "VACUUM ANALYZE t_part;"
} | psql_q >/dev/null
psql_q -c "CREATE EXTENSION IF NOT EXISTS radik" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" >/dev/null
for ((p = 0; p < PARTS; p++)); do psql_q -c "SELECT pg_prewarm('t_part_$p')" >/dev/null; done
exec_ms() { sed -n 's/^Execution Time: \(.*\) ms$/\1/p' | tail -1; }
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')  host: $(hostname)  gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)  rows: $ROWS  partitions: $PARTS"
printf '\n| query | k | workers | PG ms | radik ms | x | planner | same keys |\n|---|---:|---:|---:|---:|---:|---|---|\n'
for k in $KS; do
	for q in "SELECT * FROM t_part ORDER BY v DESC LIMIT $k" "SELECT v FROM t_part ORDER BY v DESC LIMIT $k"; do
		for w in 0 8; do
			pg=$(psql_q -c "LOAD 'radik'" -c "SET radik.enabled = off" -c "SET max_parallel_workers_per_gather = $w" \
				-c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) $q" | exec_ms)
			out=$(psql_q -c "LOAD 'radik'" -c "SET max_parallel_workers_per_gather = $w" -c "SET radik.force = on" \
				-c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) $q" -c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) $q" \
				-c "RESET radik.force" -c "EXPLAIN (COSTS OFF) $q")
			rk=$(exec_ms <<<"$out")
			# the unforced plan: what follows the second EXPLAIN ANALYZE's last line
			nodes=$(awk '/^Execution Time/ { n++; next } n == 2' <<<"$out" | grep -c 'RadiK Top-K' || true)
			same=$(psql_q -c "LOAD 'radik'" \
				-c "SET radik.enabled = off" -c "CREATE TEMP TABLE a AS SELECT md5(string_agg(v::text, ',')) h FROM ($q) s" \
				-c "SET radik.enabled = on" -c "CREATE TEMP TABLE b AS SELECT md5(string_agg(v::text, ',')) h FROM ($q) s" \
				-c "SELECT CASE WHEN a.h = b.h THEN 'yes' ELSE 'NO' END FROM a, b")
			printf '| `%s` | %s | %s | %s | %s | %s | %s | %s |\n' "${q% LIMIT *} LIMIT k" "$k" "$w" "$pg" "$rk" \
				"$(python3 -c "print(f'{$pg/$rk:.1f}x')")" "$([ "$nodes" -gt 0 ] && echo radik || echo PostgreSQL)" "$same"
		done
	done
done
