-- radik_plan: where the planner takes radik's node and where it must leave PostgreSQL's plan
-- alone.  Plans are shown with EXPLAIN (COSTS OFF), which prints nothing device-dependent.
-- Where radik declines, the answer is still checked (radik_compare says 'radik not used', so
-- the declined case cannot silently turn into a wrong radik answer).
LOAD 'radik';
SET radik.enabled = on;
SET radik.force = on;

-- Chosen: one key, several keys, an expression, WHERE, OFFSET.
EXPLAIN (COSTS OFF) SELECT * FROM radik_t ORDER BY f8 LIMIT 10;
EXPLAIN (COSTS OFF) SELECT id, ts FROM radik_t ORDER BY ts DESC NULLS LAST, id LIMIT 10;
EXPLAIN (COSTS OFF) SELECT id FROM radik_t WHERE grp = 2 ORDER BY i4 * 2 + i2 LIMIT 5 OFFSET 3;
EXPLAIN (COSTS OFF) SELECT id FROM radik_t ORDER BY i4 LIMIT 5;
EXPLAIN (COSTS OFF, VERBOSE) SELECT id, f4 FROM radik_t ORDER BY f4 DESC LIMIT 5;
EXPLAIN (COSTS OFF) SELECT id FROM radik_t ORDER BY d LIMIT ALL;
-- The node in EXPLAIN's JSON: its own fields (a plan's other fields vary between versions).
CREATE FUNCTION radik_plan_json(stmt text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || stmt INTO plan;
	RETURN plan;
END $$;
SELECT n ->> 'Node Type' AS node, n ->> 'Custom Plan Provider' AS provider,
	   n ->> 'Relation Name' AS relation, n -> 'Sort Key' AS sort_key, n ->> 'Top K' AS top_k
FROM radik_plan_json('SELECT id FROM radik_t ORDER BY f8 DESC, id LIMIT 3 OFFSET 1') AS p,
	 LATERAL (SELECT p -> 0 -> 'Plan' -> 'Plans' -> 0 AS n) s;
DROP FUNCTION radik_plan_json(text);
-- Under LATERAL, the node is rescanned for each outer row.
EXPLAIN (COSTS OFF)
SELECT g, s.id FROM generate_series(1, 3) g,
	LATERAL (SELECT id FROM radik_t WHERE grp = g ORDER BY f8 LIMIT g) s;
-- EXPLAIN ANALYZE, with the lines that depend on the device or on time masked.
SELECT radik_explain('SELECT id FROM radik_t WHERE grp = 1 ORDER BY f8 DESC LIMIT 10', true);

-- Declined: PostgreSQL's own plan, whatever radik.force says (DISTINCT ON is radik_groups's).
EXPLAIN (COSTS OFF) SELECT a.id FROM radik_t a JOIN radik_t b USING (id) ORDER BY a.f8 LIMIT 5;
EXPLAIN (COSTS OFF) SELECT grp, max(f8) FROM radik_t GROUP BY grp ORDER BY grp LIMIT 2;
EXPLAIN (COSTS OFF) SELECT DISTINCT few FROM radik_t ORDER BY few LIMIT 2;
SELECT radik_plan_uses_radik('SELECT id, row_number() OVER (ORDER BY id) FROM radik_t ORDER BY f8 LIMIT 3')
	AS window_function_uses_radik;
EXPLAIN (COSTS OFF) SELECT id, generate_series(1, 2) FROM radik_t ORDER BY f8 LIMIT 3;
EXPLAIN (COSTS OFF) SELECT id FROM radik_t ORDER BY f8 LIMIT 3 FOR UPDATE;
EXPLAIN (COSTS OFF) SELECT id FROM radik_t ORDER BY f8 LIMIT 3 FOR SHARE;
EXPLAIN (COSTS OFF) SELECT id FROM radik_t ORDER BY id::text::name LIMIT 3;
EXPLAIN (COSTS OFF) SELECT id FROM radik_t ORDER BY ARRAY[id] LIMIT 3;
-- EXPLAIN (VERBOSE) says why, under the plan.
EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM radik_t ORDER BY ARRAY[id] LIMIT 3;
EXPLAIN (COSTS OFF) SELECT id FROM radik_t ORDER BY f8, id::text::name LIMIT 3;
EXPLAIN (COSTS OFF) SELECT id FROM radik_t LIMIT 3;
-- A volatile sort key, or a volatile LIMIT (the node and the Limit above it would each compute
-- their own value).
EXPLAIN (COSTS OFF) SELECT id FROM radik_t ORDER BY f8 + random() LIMIT 3;
EXPLAIN (COSTS OFF) SELECT id FROM radik_t ORDER BY f8 LIMIT (random() * 3)::int8 + 1;
EXPLAIN (COSTS OFF) SELECT id FROM radik_t ORDER BY f8 LIMIT 3 OFFSET (random() * 3)::int8;
SET radik.enabled = off;
EXPLAIN (COSTS OFF) SELECT * FROM radik_t ORDER BY f8 LIMIT 10;
RESET radik.enabled;

-- The declined queries still answer right (radik_compare: 'radik not used' for each).
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT a.id FROM radik_t a JOIN radik_t b USING (id) ORDER BY a.f8, a.id LIMIT 5',
	'SELECT grp, max(f8) FROM radik_t GROUP BY grp ORDER BY grp LIMIT 2',
	'SELECT DISTINCT few FROM radik_t ORDER BY few LIMIT 2',
	'SELECT id, row_number() OVER (ORDER BY id) FROM radik_t ORDER BY f8, id LIMIT 3',
	'SELECT id, generate_series(1, 2) FROM radik_t ORDER BY f8, id LIMIT 3',
	'SELECT id FROM radik_t ORDER BY id::text::name LIMIT 3',
	'SELECT id FROM radik_t ORDER BY ARRAY[id], id LIMIT 3',
	'SELECT id FROM radik_t TABLESAMPLE SYSTEM (50) REPEATABLE (7) ORDER BY f8, id LIMIT 5'
	]) WITH ORDINALITY AS a(q, n)
ORDER BY n;

-- A sort operator of a non-default operator class on a supported type: radik's key order is
-- the default one, so it must decline.
CREATE FUNCTION radik_abs_cmp(int4, int4) RETURNS int4
	LANGUAGE sql IMMUTABLE STRICT AS 'SELECT btint4cmp(abs($1), abs($2))';
CREATE FUNCTION radik_abs_lt(int4, int4) RETURNS bool
	LANGUAGE sql IMMUTABLE STRICT AS 'SELECT abs($1) < abs($2)';
CREATE FUNCTION radik_abs_le(int4, int4) RETURNS bool
	LANGUAGE sql IMMUTABLE STRICT AS 'SELECT abs($1) <= abs($2)';
CREATE FUNCTION radik_abs_eq(int4, int4) RETURNS bool
	LANGUAGE sql IMMUTABLE STRICT AS 'SELECT abs($1) = abs($2)';
CREATE FUNCTION radik_abs_ge(int4, int4) RETURNS bool
	LANGUAGE sql IMMUTABLE STRICT AS 'SELECT abs($1) >= abs($2)';
CREATE FUNCTION radik_abs_gt(int4, int4) RETURNS bool
	LANGUAGE sql IMMUTABLE STRICT AS 'SELECT abs($1) > abs($2)';
CREATE OPERATOR <<< (LEFTARG = int4, RIGHTARG = int4, FUNCTION = radik_abs_lt);
CREATE OPERATOR <<<= (LEFTARG = int4, RIGHTARG = int4, FUNCTION = radik_abs_le);
CREATE OPERATOR === (LEFTARG = int4, RIGHTARG = int4, FUNCTION = radik_abs_eq);
CREATE OPERATOR >>>= (LEFTARG = int4, RIGHTARG = int4, FUNCTION = radik_abs_ge);
CREATE OPERATOR >>> (LEFTARG = int4, RIGHTARG = int4, FUNCTION = radik_abs_gt);
CREATE OPERATOR CLASS radik_abs_ops FOR TYPE int4 USING btree AS
	OPERATOR 1 <<<, OPERATOR 2 <<<=, OPERATOR 3 ===, OPERATOR 4 >>>=, OPERATOR 5 >>>,
	FUNCTION 1 radik_abs_cmp(int4, int4);
EXPLAIN (COSTS OFF) SELECT id, i4 FROM radik_t ORDER BY i4 USING <<< LIMIT 5;
SELECT radik_compare('SELECT id, i4 FROM radik_t WHERE i4 > -2147483648 ORDER BY i4 USING <<<, id LIMIT 5')
	AS abs_order;
-- (USING < and USING > name the default operator class: radik may answer them.)
SELECT radik_check('id, i4', 'radik_t', 'i4 USING >, id', 'LIMIT 5') AS using_default_gt;
DROP OPERATOR CLASS radik_abs_ops USING btree;
DROP OPERATOR FAMILY radik_abs_ops USING btree;
DROP OPERATOR <<< (int4, int4), <<<= (int4, int4), === (int4, int4), >>>= (int4, int4),
	>>> (int4, int4);
DROP FUNCTION radik_abs_cmp(int4, int4), radik_abs_lt(int4, int4), radik_abs_le(int4, int4),
	radik_abs_eq(int4, int4), radik_abs_ge(int4, int4), radik_abs_gt(int4, int4);

-- Not plain heap tables: a view over a join; a simple view and a materialized view are plain
-- tables underneath, and radik may answer them (the answers are checked).  Partitioned tables,
-- inheritance and UNION ALL: radik_partition.
CREATE VIEW radik_join_view AS
	SELECT a.id, a.f8, b.i4 FROM radik_t a JOIN radik_t b ON a.id = b.id + 1;
CREATE VIEW radik_simple_view AS SELECT id, -f8 AS neg FROM radik_t WHERE grp <> 0;
CREATE MATERIALIZED VIEW radik_matview AS SELECT id, f8 FROM radik_t;
ANALYZE radik_matview;
EXPLAIN (COSTS OFF) SELECT * FROM radik_join_view ORDER BY f8 LIMIT 5;
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT * FROM radik_join_view ORDER BY f8, id LIMIT 5',
	'SELECT * FROM radik_simple_view ORDER BY neg DESC, id LIMIT 5',
	'SELECT * FROM radik_matview ORDER BY f8, id LIMIT 5'
	]) WITH ORDINALITY AS a(q, n)
ORDER BY n;
DROP VIEW radik_join_view, radik_simple_view;
DROP MATERIALIZED VIEW radik_matview;

-- Temporary and unlogged tables are plain heap tables too.
CREATE TEMP TABLE radik_temp AS SELECT id, f8, ts FROM radik_t;
CREATE UNLOGGED TABLE radik_unlogged AS SELECT id, f8, ts FROM radik_t;
SELECT radik_check('*', 'radik_temp', 'f8 DESC, id', 'LIMIT 10') AS temp_table,
	   radik_check('*', 'radik_unlogged', 'ts, id', 'LIMIT 10') AS unlogged_table;
DROP TABLE radik_temp, radik_unlogged;

-- A foreign table (with file_fdw where the server has it; nothing to check otherwise).
DO $$
DECLARE
	q text := 'SELECT * FROM radik_foreign ORDER BY n LIMIT 3';
BEGIN
	IF NOT EXISTS (SELECT FROM pg_available_extensions WHERE name = 'file_fdw') THEN
		RAISE NOTICE 'foreign table: declined';
		RETURN;
	END IF;
	CREATE EXTENSION file_fdw;
	CREATE SERVER radik_files FOREIGN DATA WRAPPER file_fdw;
	CREATE FOREIGN TABLE radik_foreign (n int4) SERVER radik_files
		OPTIONS (program 'echo 3; echo 1; echo 2; echo 5');
	RAISE NOTICE 'foreign table: %',
		CASE WHEN radik_compare(q) LIKE 'radik not used%' THEN 'declined' ELSE radik_compare(q) END;
	PERFORM set_config('client_min_messages', 'warning', true);
	DROP EXTENSION file_fdw CASCADE;
END $$;

-- Row-level security: the policy's condition filters the rows radik selects from.
CREATE TABLE radik_rls AS SELECT id, grp, f8 FROM radik_t;
ALTER TABLE radik_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY radik_rls_grp ON radik_rls USING (grp = 2);
CREATE ROLE regress_radik_reader;
GRANT SELECT ON radik_rls, radik_t TO regress_radik_reader;
SET ROLE regress_radik_reader;
SELECT radik_check('*', 'radik_rls', 'f8 DESC, id', 'LIMIT 10') AS policy_applied,
	   radik_check('*', 'radik_rls WHERE id % 3 = 0', 'f8, id', 'LIMIT 10') AS policy_and_where;
SET radik.force = on;
SELECT count(*) AS rows_seen, count(*) FILTER (WHERE grp <> 2) AS rows_outside_policy
FROM (SELECT * FROM radik_rls ORDER BY f8 LIMIT 3000) s;
RESET radik.force;
-- A function that is not leakproof in WHERE runs only on rows the policy lets through (it
-- counts in a sequence, which no rollback undoes, every row outside the policy it is shown).
RESET ROLE;
CREATE SEQUENCE radik_leaked;
CREATE FUNCTION radik_leak(g int4) RETURNS boolean LANGUAGE plpgsql STABLE COST 0.0001 AS $$
BEGIN
	IF g <> 2 THEN
		PERFORM nextval('radik_leaked');
	END IF;
	RETURN true;
END $$;
GRANT USAGE ON SEQUENCE radik_leaked TO regress_radik_reader;
SET ROLE regress_radik_reader;
SELECT radik_check('*', 'radik_rls WHERE radik_leak(grp)', 'f8 DESC, id', 'LIMIT 10') AS leaky_where,
	   radik_check('*', 'radik_rls WHERE radik_leak(grp)', 'f8', 'LIMIT 10', 'f8') AS leaky_where_one_key;
RESET ROLE;
SELECT is_called AS leaked FROM radik_leaked;
DROP FUNCTION radik_leak(int4);
DROP SEQUENCE radik_leaked;
DROP TABLE radik_rls;
DROP OWNED BY regress_radik_reader;
DROP ROLE regress_radik_reader;

-- Without radik.force, the costs decide.  A table of a few hundred rows keeps PostgreSQL's plan.
SET radik.force = off;
CREATE TABLE radik_small AS SELECT id, f8 FROM radik_t WHERE id <= 300;
ANALYZE radik_small;
EXPLAIN (COSTS OFF) SELECT * FROM radik_small ORDER BY f8 LIMIT 10;
EXPLAIN (COSTS OFF) SELECT * FROM radik_t ORDER BY f8 LIMIT 10;
-- A table whose statistics say it holds 100 million rows (its pages hold far more than they
-- could: only the estimates matter to EXPLAIN).  This backend has already run radik (so no GPU
-- start-up cost is charged any more): radik's costing beats the top-N sort; with a very high
-- cost per key it does not.
CREATE TABLE radik_huge (id int4, v float8) WITH (autovacuum_enabled = off);
INSERT INTO radik_huge SELECT i, i FROM generate_series(1, 1000) i;
UPDATE pg_class SET reltuples = 1e8, relpages = pg_relation_size('radik_huge') / 8192
WHERE relname = 'radik_huge';
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT * FROM radik_huge ORDER BY v LIMIT 10;
SET radik.key_cost = 100;
EXPLAIN (COSTS OFF) SELECT * FROM radik_huge ORDER BY v LIMIT 10;
RESET radik.key_cost;
-- The same against PostgreSQL's parallel plans (allowed here whatever the server's settings).
SET max_parallel_workers_per_gather = 2;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT * FROM radik_huge ORDER BY v LIMIT 10;
EXPLAIN (COSTS OFF) SELECT * FROM radik_huge ORDER BY v LIMIT 1000000;
SET radik.key_cost = 100;
EXPLAIN (COSTS OFF) SELECT * FROM radik_huge ORDER BY v LIMIT 10;
RESET radik.key_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE radik_small, radik_huge;
RESET radik.force;
