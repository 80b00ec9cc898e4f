#!/bin/bash
# worker_scaling.sh: how radik's whole-query time scales with the number of parallel workers
# (the table's parallel_workers option forces each count), against PostgreSQL with the same
# count.  Reuses the table t that orderby_bench.sh built; needs a running server with radik.
#   usage: REPS=3 bash test/bench/worker_scaling.sh "0 2 4 8 15" "10 1000000"
set -euo pipefail
COUNTS=${1:-0 1 2 4 6 8 12 15}
KS=${2:-10 1000000}
REPS=${REPS:-3}
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
printf '| workers | k | PG | radik | x |\n|---:|---:|---:|---:|---:|\n'
for w in $COUNTS; do
	psql_q -c "ALTER TABLE t SET (parallel_workers = $w)"
	for k in $KS; do
		q="SELECT v FROM t ORDER BY v DESC LIMIT $k"
		set_w="SET max_parallel_workers_per_gather = $w"
		pg=$(psql_q -c "LOAD 'radik'" -c "SET radik.enabled = off" -c "$set_w" -c "SELECT round(bench_ms('$q', 1)::numeric, 1)")
		rk=$(psql_q -c "LOAD 'radik'" -c "SET radik.force = on" -c "$set_w" -c "SELECT bench_ms('$q', 1)" -c "SELECT round(bench_ms('$q', $REPS)::numeric, 1)" | tail -1)
		printf '| %s | %s | %s | %s | %s |\n' "$w" "$k" "$pg" "$rk" "$(python3 -c "print(f'{$pg/$rk:.1f}x')")"
	done
done
psql_q -c "ALTER TABLE t RESET (parallel_workers)"
