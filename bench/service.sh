#!/bin/bash
# service.sh: many concurrent clients selecting on one GPU, through the GPU service and with a GPU
# context per backend, against PostgreSQL, in one run.
#
# For each mode (service: radik preloaded with radik.service on; backend: preloaded with it off,
# every backend starting its own GPU; postgres: radik.enabled = off in the same server) the server
# is started by START with the mode's options added, then pgbench runs QUERY with each number of
# clients for SECONDS, without parallel workers: first with the table only in the page cache (just
# after the start; a table larger than a quarter of shared_buffers is read through PostgreSQL's
# ring every time), then after pg_prewarm.  nvidia-smi is sampled twice a second; the table gives
# the most GPU memory in use during each run.  Then the first and second query of five new
# connections, timed by EXPLAIN ANALYZE.  In the service mode, also 64 clients selecting from a
# 1M-row table at once, all of it (k = 100) and with a WHERE clause that 5,000 rows pass (k = 1000),
# through a service of 64 slots, with the service's time answering per selection and its batches.
# Creates the tables (--rows; 1M rows) when they are missing, and stops the server at the end.
#   usage: bench/service.sh --start CMD --stop CMD [--rows N] [--clients "1 32 128"]
#              [--cold-clients "32"] [--seconds S] [--modes "service backend postgres"]
#   e.g.:  bench/service.sh --start "bash .gpu/on-host start -c shared_buffers=16GB" \
#              --stop "bash .gpu/on-host stop" --rows 50000000
set -euo pipefail

start=
stop=
rows=50000000
clients="1 32 128"
cold_clients="32"
seconds=20
modes="service backend postgres"
command="bench/service.sh $*"
while [ $# -gt 0 ]; do
	case $1 in
		--start) start=$2; shift 2 ;;
		--stop) stop=$2; shift 2 ;;
		--rows) rows=$2; shift 2 ;;
		--clients) clients=$2; shift 2 ;;
		--cold-clients) cold_clients=$2; shift 2 ;;
		--seconds) seconds=$2; shift 2 ;;
		--modes) modes=$2; shift 2 ;;
		*) echo "service.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
[ -n "$start" ] && [ -n "$stop" ] || { sed -n '2,19p' "$0" >&2; exit 2; }
query="SELECT * FROM bench_service ORDER BY v DESC LIMIT 100"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "$query;" >"$work/query.sql"

gpu_memory_sampler() {
	while sleep 0.5; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; done
}

start_server() {
	$stop >/dev/null 2>&1 || true
	$start "$@" >/dev/null
	for _ in $(seq 1 100); do
		state=$(psql -X -At -c "SELECT string_agg(DISTINCT state, ',') FROM radik_service_status()" 2>/dev/null || true)
		[ "$state" = ready ] || [ "$state" = off ] && break
		sleep 0.1
	done
}

# bench MODE REGIME CLIENTS: one table row
bench() {
	local options="-c max_parallel_workers_per_gather=0"
	[ "$1" = postgres ] && options="$options -c radik.enabled=off"
	gpu_memory_sampler >"$work/memory" &
	local sampler=$!
	local tps
	tps=$(PGOPTIONS="$options" pgbench -n -c "$3" -j "$(($3 < 16 ? $3 : 16))" -T "$seconds" \
		-f "$work/query.sql" 2>&1 | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
	kill $sampler
	wait $sampler 2>/dev/null || true
	printf "| %-8s | %-10s | %7s | %10s | %13s |\n" "$1" "$2" "$3" "${tps:-failed}" \
		"$(sort -n "$work/memory" | tail -1)"
}

# small_selections LABEL QUERY: 64 clients, ten selections each of QUERY (from the 1M-row table),
# through a service with a slot for each client
small_selections() {
	local before after
	echo "$2;" >"$work/small.sql"
	start_server -c shared_preload_libraries=radik -c radik.service=on -c radik.service_slots=64
	psql -X -At -c "SELECT pg_prewarm('bench_service_small')" >/dev/null
	before=$(psql -X -At -F' ' -c "SELECT sum(selections), sum(answering_ms), sum(batches), sum(batched_selections) FROM radik_service_status()")
	PGOPTIONS="-c max_parallel_workers_per_gather=0 -c radik.gpu_min_rows=0" \
		pgbench -n -c 64 -j 16 -t 10 -f "$work/small.sql" >"$work/small.out" 2>&1
	after=$(psql -X -At -F' ' -c "SELECT sum(selections), sum(answering_ms), sum(batches), sum(batched_selections) FROM radik_service_status()")
	echo "$before $after $(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$work/small.out")" | awk -v label="$1" '{
		printf "64 clients x 10 selections, %s: %d selections in the service, %.1f ms answering, %.3f ms each, %d of them in %d batches; %.1f tps\n",
			label, $5 - $1, $6 - $2, ($6 - $2) / ($5 - $1), $8 - $4, $7 - $3, $9 }'
}

# first_queries MODE: the first and second query's time of five new connections
first_queries() {
	for i in 1 2 3 4 5; do
		psql -X -At -c "EXPLAIN (ANALYZE, FORMAT JSON) $query" -c "EXPLAIN (ANALYZE, FORMAT JSON) $query" |
			tr -d '\n ' | grep -o '"Device":"[^"]*"\|"ExecutionTime":[0-9.]*' | paste -sd' ' |
			sed "s/^/$1 connection $i: /"
	done
}

echo "# service.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
echo "# command: $command"
echo "# query: $query; $rows rows; no parallel workers; pgbench -T $seconds"

start_server -c shared_preload_libraries=radik
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION IF NOT EXISTS radik" \
	-c "CREATE EXTENSION IF NOT EXISTS pg_prewarm"
if [ "$(psql -X -At -c "SELECT count(*) FROM pg_class WHERE relname = 'bench_service'")" = 0 ]; then
	psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE bench_service AS
		SELECT i::int8 AS id, random()::float4 AS v, (random() * 1e9)::int8 AS i8,
			md5(i::text) AS note
		FROM generate_series(1, $rows) i" -c "VACUUM ANALYZE bench_service"
fi
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE IF NOT EXISTS bench_service_small AS
	SELECT * FROM bench_service WHERE id <= 1000000" -c "ANALYZE bench_service_small"
echo "# table: $(psql -X -At -c "SELECT pg_size_pretty(pg_table_size('bench_service'))"), shared_buffers $(psql -X -At -c 'SHOW shared_buffers')"
echo
echo "| mode     | table      | clients |        tps | GPU MiB, most |"
echo "|----------|------------|--------:|-----------:|--------------:|"
for mode in $modes; do
	if [ $mode = service ]; then
		start_server -c shared_preload_libraries=radik -c radik.service=on
	elif [ $mode = backend ]; then
		start_server -c shared_preload_libraries=radik -c radik.service=off
	fi
	for c in $cold_clients; do bench $mode "page cache" "$c"; done
	psql -X -At -c "SELECT pg_prewarm('bench_service')" >/dev/null
	for c in $clients; do bench $mode prewarmed "$c"; done
	[ $mode = postgres ] || first_queries $mode >>"$work/first"
	if [ $mode = service ]; then
		small_selections "1M rows (k = 100)" \
			"SELECT * FROM bench_service_small ORDER BY v DESC LIMIT 100" >>"$work/first"
		small_selections "5,000 of 1M rows pass the WHERE clause (k = 1000)" \
			"SELECT * FROM bench_service_small WHERE id % 200 = 7 ORDER BY v DESC LIMIT 1000" \
			>>"$work/first"
	fi
done
echo
cat "$work/first"
$stop >/dev/null 2>&1 || true
