#!/bin/bash
# gpu-host-bench.sh: run test/bench/orderby_bench.sh on a bare GPU host (PostgreSQL from .gpu/,
# see ../shared/gpu-host/README.md) with the reference settings: shared_buffers = 16GB, 16 worker
# processes.  It benchmarks each table size in $TABLES in turn (default: the 10M-row table, then
# the 50M-row one), then shows EXPLAIN ANALYZE of radik's plan on the last table, in a new
# session per k (so the first query pays the GPU start) with max_parallel_workers_per_gather = 8.
#   usage: TABLES='10000000 50000000' SHAPES='v i8' bash test/bench/gpu-host-bench.sh [ks...]
#   (output also in $OUT: bench.md, explain.txt; SERVER_OPTIONS adds postgres options;
#   HUGE_PAGES=N reserves N 2MB huge pages (sysctl vm.nr_hugepages, as root; the old count is
#   put back at exit) and starts the server with huge_pages = on: 16GB of shared_buffers need
#   about 8800 (`postgres -C shared_memory_size_in_huge_pages` says); REUSE_TABLE=1 keeps a
#   table of the right size from an earlier run, which helps with one size in TABLES: each size
#   rebuilds t)
set -euo pipefail
OUT=${OUT:-/tmp/radik-bench-out}
TABLES=${TABLES:-10000000 50000000}
mkdir -p "$OUT"
server_options=${SERVER_OPTIONS:-}
huge_pages_before=$(cat /proc/sys/vm/nr_hugepages)
trap 'bash .gpu/on-host stop >/dev/null 2>&1; [ -z "${HUGE_PAGES:-}" ] || sysctl -q -w vm.nr_hugepages="$huge_pages_before"' EXIT
if [ -n "${HUGE_PAGES:-}" ]; then
	sysctl -q -w vm.nr_hugepages="$HUGE_PAGES"
	server_options="$server_options -c huge_pages=on"	# the server fails to start if too few
fi
bash .gpu/on-host start -c shared_buffers=16GB -c max_worker_processes=16 $server_options >"$OUT/server.log" 2>&1 || { cat "$OUT/server.log"; exit 1; }
source .gpu/env
{ make -s -j16 with_llvm=no && make -s with_llvm=no install; } >"$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
: >"$OUT/bench.md"
for rows in $TABLES; do
	ROWS=$rows bash test/bench/orderby_bench.sh "$@" 2>&1 | tee -a "$OUT/bench.md"
done
# where the time goes in radik's plan (scan, copy, select), for the first and the last k
for k in ${1:-10} ${@: -1}; do
	psql -X -c "LOAD 'radik'" -c "SET radik.force = on" -c "SET max_parallel_workers_per_gather = 8" \
		-c "EXPLAIN (ANALYZE) SELECT v FROM t ORDER BY v DESC LIMIT $k" \
		-c "EXPLAIN (ANALYZE) SELECT * FROM t ORDER BY v DESC LIMIT $k" 2>&1 | tee -a "$OUT/explain.txt"
done
