#!/bin/bash
# page_cache.sh: radik's scan of a table read through PostgreSQL's ring of buffers, with its
# copies from the operating system's page cache (radik.page_cache_reads) off and on in turn.
#
# Restarts the server once (--restart), so that a table larger than a quarter of shared_buffers
# is not in them; radik's scans through the ring leave it so.  Then, for each query and each
# max_parallel_workers_per_gather, runs radik alone (radik.force = on) once to warm up, then
# --rounds rounds with the setting off, then on, and prints each run's execution time (EXPLAIN
# ANALYZE) and the pages copied.  Needs a running server (PGHOST, PGPORT, PGUSER) with radik, and the tables queried.
#   usage: bench/page_cache.sh --restart CMD [--workers "0 8"] [--rounds N] QUERY...
#   e.g.:  bench/page_cache.sh --restart "pg_ctl -D ... restart" \
#              "SELECT v FROM t ORDER BY v DESC LIMIT 100"
set -euo pipefail

restart=
workers="0 8"
rounds=3
command="bench/page_cache.sh $*"
while [ $# -gt 0 ]; do
	case $1 in
		--restart) restart=$2; shift 2 ;;
		--workers) workers=$2; shift 2 ;;
		--rounds) rounds=$2; shift 2 ;;
		--*) echo "page_cache.sh: unknown option $1" >&2; exit 2 ;;
		*) break ;;
	esac
done
[ -n "$restart" ] && [ $# -gt 0 ] || { sed -n '2,12p' "$0" >&2; exit 2; }

# run QUERY WORKERS SETTING: "<ms> ms, <pages> pages"
run() {
	psql -X -At -v ON_ERROR_STOP=1 -c "LOAD 'radik'" \
		-c "SET max_parallel_workers_per_gather = $2" -c "SET radik.force = on" \
		-c "SET radik.page_cache_reads = $3" \
		-c "EXPLAIN (ANALYZE, TIMING OFF) $1" |
		awk '/Pages From Page Cache:/ { pages = $NF }
			 /Execution Time:/ { ms = $3 }
			 END { printf "%s ms, %d pages", ms, pages }'
}

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')  host: $(hostname)  cores: $(nproc)"
echo "command: $command"
eval "$restart" >/dev/null
echo "server: $(psql -X -At -c 'SHOW server_version')  shared_buffers: $(psql -X -At -c 'SHOW shared_buffers')"
echo
echo "| query | workers | round | radik.page_cache_reads = off | on |"
echo "|---|---:|---:|---:|---:|"
for query in "$@"; do
	for w in $workers; do
		run "$query" "$w" off >/dev/null	# a warm-up run: catalogs, the GPU's start
		for round in $(seq "$rounds"); do
			echo "| \`$query\` | $w | $round | $(run "$query" "$w" off) | $(run "$query" "$w" on) |"
		done
	done
done
