#!/bin/bash
# ties_breakdown.sh: where the time of FETCH FIRST k ROWS WITH TIES goes when the k-th key is
# shared by rows the selection left out (radik reads the table a second time for them), against
# the same LIMIT query: EXPLAIN ANALYZE (the second run in a session, after the GPU start) of
# SELECT * / SELECT r ... ORDER BY r DESC on a table of $ROWS rows whose key r repeats about ten
# times a value, with 0 and 8 workers, on the GPU and the CPU twin.
# On a bare GPU host (PostgreSQL from .gpu/, see ../shared/gpu-host/README.md), from the
# repository root:   ROWS=10000000 K=1000 bash test/bench/ties_breakdown.sh
set -euo pipefail
ROWS=${ROWS:-10000000}
K=${K:-1000}
bash .gpu/on-host start -c shared_buffers=16GB -c max_worker_processes=16 >/dev/null
trap 'bash .gpu/on-host stop >/dev/null 2>&1' EXIT
source .gpu/env
make -s -j16 with_llvm=no >/dev/null && make -s with_llvm=no install >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION IF NOT EXISTS radik" \
	-c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" -c "DROP TABLE IF EXISTS t" \
	-c "CREATE TABLE t AS SELECT g::int8 AS id, random()::float4 AS v, (random() * 9e18)::int8 AS i8,
		(random() * $ROWS / 10)::int4 AS r FROM generate_series(1, $ROWS) g" \
	-c "VACUUM ANALYZE t" -c "SELECT pg_prewarm('t')" >/dev/null
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')  host: $(hostname)  gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo none)  rows: $ROWS  k: $K"
for workers in 0 8; do
	for device in gpu cpu; do
		for q in "SELECT * FROM t ORDER BY r DESC LIMIT $K" \
				 "SELECT * FROM t ORDER BY r DESC FETCH FIRST $K ROWS WITH TIES" \
				 "SELECT r FROM t ORDER BY r DESC FETCH FIRST $K ROWS WITH TIES"; do
			echo "== workers $workers, radik.device = $device: $q"
			psql -X -At -c "LOAD 'radik'" -c "SET radik.force = on" -c "SET radik.device = $device" \
				-c "SET max_parallel_workers_per_gather = $workers" -c "EXPLAIN (ANALYZE) $q" \
				-c "EXPLAIN (ANALYZE) $q" | sed -n '/Execution Time/,$p' | tail -n +2 |
				grep -E "Rows|Time|Workers Launched|Device"
		done
	done
done
