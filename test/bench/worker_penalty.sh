#!/bin/bash
# worker_penalty.sh: how fast a parallel worker scans against the backend running the query (the
# leader).  A new worker maps shared buffers into its process page by page, which the leader of
# a long session has done already; for radik's scan that is a visible share of the work, for
# PostgreSQL's per-row costs a small one.  Runs `SELECT v FROM t ORDER BY v DESC LIMIT 10` with
# radik, and PostgreSQL's `SELECT count(*) FROM t`, with the leader alone, workers alone
# (parallel_leader_participation = off) and both (with one worker and the leader off,
# PostgreSQL's planner runs count(*) serially: that cell is not a worker).  Reuses the table t
# that orderby_bench.sh built; needs a running server with radik.
#   usage: bash test/bench/worker_penalty.sh
set -euo pipefail
psql_q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
q="SELECT v FROM t ORDER BY v DESC LIMIT 10"
printf '| workers | leader scans | radik | PostgreSQL count(*) |\n|---:|---|---:|---:|\n'
for cfg in "0 on" "1 off" "2 off" "2 on" "1 on" "8 on"; do
	set -- $cfg
	settings=(-c "SET max_parallel_workers_per_gather = $1" -c "SET parallel_leader_participation = $2")
	radik=$(psql_q -c "LOAD 'radik'" -c "SET radik.force = on" "${settings[@]}" \
		-c "SELECT bench_ms('$q', 2)" -c "SELECT round(bench_ms('$q', 7)::numeric, 1)" | tail -1)
	pg=$(psql_q "${settings[@]}" -c "SELECT bench_ms('SELECT count(*) FROM t', 1)" \
		-c "SELECT round(bench_ms('SELECT count(*) FROM t', 3)::numeric, 1)" | tail -1)
	printf '| %s | %s | %s | %s |\n' "$1" "$2" "$radik" "$pg"
done
