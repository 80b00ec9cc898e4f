#!/bin/bash
# jit_bench.sh: radik's query time under PostgreSQL's JIT settings, beside PostgreSQL's own plan,
# on tables already loaded and warmed (the fifteenth session's tables: t_one of 10M rows, t_p8 and
# t_part with the same rows in 8 and 64 range partitions; see docs/performance.md).
#   usage: TABLES='t_one t_p8 t_part' WORKERS=0 bash test/bench/jit_bench.sh LABEL
# `SELECT v FROM <table> ORDER BY v DESC LIMIT 10`, radik forced, with JIT's defaults, with
# optimization and inlining at any cost (as a 50M-row plan gets them), and with jit = off: the
# median of the last 5 of 6 runs, the JIT functions its EXPLAIN reports, PostgreSQL's median of 3.
# Run it once per build to compare (make install between).  Uses the PG* environment variables.
set -euo pipefail
label=${1:-run}
workers=${WORKERS:-0}
explain() {	# explain OPTIONS RADIK(on|off) TABLE
	PGOPTIONS="$1" psql -X -At -c "LOAD 'radik'" -c "SET max_parallel_workers_per_gather = $workers" \
		-c "SET radik.enabled = $2" -c "SET radik.force = $2" \
		-c "EXPLAIN (ANALYZE, TIMING OFF) SELECT v FROM $3 ORDER BY v DESC LIMIT 10"
}
for t in ${TABLES:-t_one t_p8 t_part}; do
	for opts in "" "-c jit_optimize_above_cost=0 -c jit_inline_above_cost=0" "-c jit=off"; do
		radik=$(for i in 1 2 3 4 5 6; do explain "$opts" on "$t" | sed -n 's/Execution Time: \(.*\) ms/\1/p'; done | tail -n 5 | sort -n | sed -n 3p)
		functions=$(explain "$opts" on "$t" | sed -n 's/ *Functions: //p')
		pg=$(for i in 1 2 3; do explain "$opts" off "$t" | sed -n 's/Execution Time: \(.*\) ms/\1/p'; done | sort -n | sed -n 2p)
		echo "| $label | $t | ${opts:-defaults} | $workers | $radik | ${functions:-0} | $pg |"
	done
done
