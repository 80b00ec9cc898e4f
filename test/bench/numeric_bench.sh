#!/bin/bash
# numeric_bench.sh: ORDER BY a numeric column LIMIT k, PostgreSQL against radik, on a running
# server with radik installed (PGHOST/PGPORT): t_numeric(id int8, n numeric(12,2)) of $ROWS rows
# (about ten rows a value), EXPLAIN (ANALYZE, TIMING OFF) execution times with
# max_parallel_workers_per_gather = 0 and 8, radik after a warm-up run in the same session (which
# pays the GPU start), and whether both answers have the same key values.
#   usage: ROWS=10000000 bash test/bench/numeric_bench.sh [ks...]
set -euo pipefail
ROWS=${ROWS:-10000000}
KS=${*:-10 1000 100000}
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
psql_q -c "CREATE EXTENSION IF NOT EXISTS radik" -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" \
	-c "DROP TABLE IF EXISTS t_numeric" \
	-c "CREATE TABLE t_numeric AS SELECT g::int8 AS id, round((random() * $ROWS / 1000)::numeric, 2)::numeric(12, 2) AS n FROM generate_series(1, $ROWS) g" \
	-c "VACUUM ANALYZE t_numeric" -c "SELECT pg_prewarm('t_numeric')" >/dev/null
ms() { psql_q -c "LOAD 'radik'" "${@:2}" -c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) $1" | sed -n 's/^Execution Time: \(.*\) ms$/\1/p' | tail -1; }
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')  host: $(hostname)  gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)  rows: $ROWS"
printf '\n| query | k | workers | PG ms | radik ms | x | same keys |\n|---|---:|---:|---:|---:|---:|---|\n'
for k in $KS; do
	q="SELECT * FROM t_numeric ORDER BY n DESC LIMIT $k"
	for w in 0 8; do
		pg=$(ms "$q" -c "SET radik.enabled = off" -c "SET max_parallel_workers_per_gather = $w")
		rk=$(psql_q -c "LOAD 'radik'" -c "SET radik.force = on" -c "SET max_parallel_workers_per_gather = $w" \
			-c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) $q" -c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) $q" |
			sed -n 's/^Execution Time: \(.*\) ms$/\1/p' | tail -1)
		same=$(psql_q -c "LOAD 'radik'" \
			-c "SET radik.enabled = off" -c "CREATE TEMP TABLE a AS SELECT md5(string_agg(n::text, ',')) h FROM ($q) s" \
			-c "SET radik.enabled = on" -c "SET radik.force = on" -c "CREATE TEMP TABLE b AS SELECT md5(string_agg(n::text, ',')) h FROM ($q) s" \
			-c "SELECT CASE WHEN a.h = b.h THEN 'yes' ELSE 'NO' END FROM a, b")
		printf '| `%s` | %s | %s | %s | %s | %s | %s |\n' "SELECT * FROM t_numeric ORDER BY n DESC LIMIT k" \
			"$k" "$w" "$pg" "$rk" "$(python3 -c "print(f'{$pg/$rk:.1f}x')")" "$same"
	done
done
