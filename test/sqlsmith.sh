#!/bin/bash
# sqlsmith.sh: random SQL from sqlsmith against a throwaway cluster that preloads radik with
# radik.force = on, looking for queries that crash the server or raise an internal error inside
# radik.
#
# sqlsmith's queries seldom end in a top-level ORDER BY ... LIMIT (the answers to those are
# compared with PostgreSQL's by test/sql/radik_fuzz.sql); what it exercises is everything else
# passing through radik's planner hooks (joins, subqueries, LATERAL, window functions, CTEs, DML,
# the members of partitioned and inheritance parents) and radik_topk() called with whatever
# arguments sqlsmith finds for it.  Fails when a backend died (the server log's "terminated by
# signal" or "was terminated") or when an error with SQLSTATE XX000 (internal error) was raised
# from one of radik's source files; radik's errors for bad input have their own SQLSTATEs and
# are expected.
#   usage: bash test/sqlsmith.sh [queries [seed]]   (as root; default 5000 queries, seed 1)
#   RADIK_DEVICE picks radik.device (default auto: the GPU when there is one); SERVER_OPTIONS adds
#   postgres options (e.g. "-c jit_above_cost=0", so that every plan goes through radik_jit.c).
source "$(dirname "$0")/radik-env.sh"

# radik_internal_errors LOG: the ERROR lines with SQLSTATE XX000 raised in radik's source files
radik_internal_errors() {
	awk '/ ERROR:  / { pid = $4; error[pid] = (index($0, " ERROR:  XX000: ") ? $0 : "") }
		/ LOCATION:  / { pid = $4; if (error[pid] != "" && $0 ~ /radik/) print error[pid] "\n" $0; error[pid] = "" }' "$1"
}

queries=${1:-5000}
seed=${2:-1}

radik_setup
if ! command -v sqlsmith >/dev/null; then
	say "installing sqlsmith"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q sqlsmith >/dev/null
fi
radik_start_cluster -c session_preload_libraries=radik -c radik.force=on \
	-c radik.device="${RADIK_DEVICE:-auto}" -c parallel_setup_cost=0 -c parallel_tuple_cost=0 \
	-c min_parallel_table_scan_size=0 -c statement_timeout=5s -c log_error_verbosity=verbose \
	${SERVER_OPTIONS:-}

say "tables for sqlsmith to draw on"
psql -X -q -v ON_ERROR_STOP=1 <<'EOF'
CREATE EXTENSION radik;
CREATE TABLE plain (id int, a int4, b int8, c float4, d float8, e numeric, f text, g date,
					h timestamptz);
INSERT INTO plain
SELECT i, (random() * 1000)::int, (random() * 1e12)::int8, random()::float4, random(),
	   (random() * 1000)::numeric(10, 3), md5(i::text), date '2020-01-01' + i % 1000,
	   timestamptz '2026-01-01' - i * interval '1 minute'
FROM generate_series(1, 20000) i;
UPDATE plain SET c = NULL WHERE id % 97 = 0;
UPDATE plain SET d = 'NaN' WHERE id % 991 = 0;
CREATE TABLE parted (id int, k float8, v int) PARTITION BY RANGE (id);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (10000);
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (10000) TO (20001);
INSERT INTO parted SELECT i, random(), i % 7 FROM generate_series(1, 20000) i;
CREATE TABLE inh_parent (x int, y float8);
CREATE TABLE inh_child (z int) INHERITS (inh_parent);
INSERT INTO inh_parent SELECT i, random() FROM generate_series(1, 5000) i;
INSERT INTO inh_child SELECT i, random(), i FROM generate_series(1, 5000) i;
ANALYZE;
EOF

say "sqlsmith: $queries queries, seed $seed"
out=$RADIK_CLUSTER_DIR/sqlsmith.out
set +e
sqlsmith --target="host=$PGHOST port=$PGPORT user=postgres dbname=postgres" --exclude-catalog \
	--max-queries="$queries" --seed="$seed" --verbose >"$out" 2>&1
status=$?
set -e
grep -E '^(queries|error rate)' "$out" | tail -n 2 || true

log=$RADIK_CLUSTER_DIR/postgres.log
failed=0
if [ $status != 0 ]; then
	echo "sqlsmith exited with status $status:"; tail -n 20 "$out"; failed=1
fi
if grep -E 'terminated by signal|was terminated|server process .* exited with exit code [^01]' "$log"; then
	echo "a backend died (server log above)"; failed=1
fi
# an internal error (XX000) whose LOCATION line (after its DETAIL and HINT) names a radik file
internal=$(radik_internal_errors "$log")
if [ -n "$internal" ]; then
	echo "internal errors raised by radik:"; echo "$internal"; failed=1
fi
if [ $failed = 0 ]; then
	echo "no crash and no internal error from radik in $queries queries"
fi
exit $failed
