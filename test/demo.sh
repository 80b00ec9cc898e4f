#!/bin/bash
# demo.sh: radik's main job, end to end, on a fresh Debian 12 machine (run as root).
#
# Installs PostgreSQL 15 and the build packages if missing, builds and installs radik, starts a
# throwaway cluster, loads a sample table of a few million rows, and shows the same
# ORDER BY ... LIMIT query planned by PostgreSQL alone and by radik (EXPLAIN ANALYZE), checks
# that both return the same rows, then stops and removes the cluster.
#   usage: bash test/demo.sh [rows]      (default 5000000)
source "$(dirname "$0")/radik-env.sh"

rows=${1:-5000000}
radik_setup
radik_start_cluster -c shared_buffers=1GB -c max_parallel_workers_per_gather=2

say "creating the extension and a sample table events($rows rows: id, kind, score, created)"
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION radik;
CREATE TABLE events AS
  SELECT g AS id, (g % 7)::int AS kind, random() * 1000 AS score,
         now() - random() * interval '365 days' AS created
  FROM generate_series(1, $rows) g;
VACUUM ANALYZE events;
SQL

query="SELECT id, kind, score FROM events WHERE kind = 3 ORDER BY score DESC LIMIT 10"
say "the query: $query"

say "PostgreSQL's own plan (radik.enabled = off)"
psql -X -v ON_ERROR_STOP=1 -c "LOAD 'radik'" -c "SET radik.enabled = off" -c "EXPLAIN (ANALYZE) $query"

say "the same query answered by radik (first use in this connection pays the GPU start, if any)"
psql -X -v ON_ERROR_STOP=1 -c "LOAD 'radik'" -c "SET radik.force = on" \
	-c "EXPLAIN (ANALYZE) $query" -c "EXPLAIN (ANALYZE) $query"

say "do both return the same rows?"
psql -X -v ON_ERROR_STOP=1 -At <<SQL
LOAD 'radik';
SET radik.enabled = off;
CREATE TEMP TABLE pg_answer AS SELECT row_number() OVER () AS pos, * FROM ($query) q;
SET radik.enabled = on; SET radik.force = on;
CREATE TEMP TABLE radik_answer AS SELECT row_number() OVER () AS pos, * FROM ($query) q;
SELECT CASE WHEN count(*) = 0 THEN 'same rows, same order: yes'
            ELSE 'DIFFERENT: ' || count(*) || ' rows differ' END
FROM ((TABLE pg_answer EXCEPT TABLE radik_answer) UNION ALL (TABLE radik_answer EXCEPT TABLE pg_answer)) d;
SQL
say "done"
