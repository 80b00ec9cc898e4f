#!/bin/bash
# gpu-host-bench.sh: run test/bench/orderby_bench.sh on a bare GPU host (PostgreSQL from .gpu/,
# see ../shared/gpu-host/README.md) with the reference settings: shared_buffers = 16GB.
#   usage: SHAPES='v i8' bash test/bench/gpu-host-bench.sh [ks...]     (output also in $OUT)
set -euo pipefail
OUT=${OUT:-/tmp/radik-bench-out}
mkdir -p "$OUT"
bash .gpu/on-host start -c shared_buffers=16GB -c max_worker_processes=16 >"$OUT/server.log" 2>&1 || { cat "$OUT/server.log"; exit 1; }
source .gpu/env
trap 'bash .gpu/on-host stop >/dev/null 2>&1' EXIT
{ make -s -j16 with_llvm=no && make -s with_llvm=no install; } >"$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
bash test/bench/orderby_bench.sh "$@" 2>&1 | tee "$OUT/bench.md"
# where the time goes in radik's plan (scan, copy, select), for the first and the last k
for k in ${1:-10} ${@: -1}; do
	psql -X -c "LOAD 'radik'" -c "SET radik.force = on" -c "EXPLAIN (ANALYZE) SELECT v FROM t ORDER BY v DESC LIMIT $k" \
		-c "EXPLAIN (ANALYZE) SELECT * FROM t ORDER BY v DESC LIMIT $k" 2>&1 | tee -a "$OUT/explain.txt"
done
