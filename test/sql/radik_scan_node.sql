-- radik_scan_node: what the custom scan node does besides its answer: EXPLAIN ANALYZE's counts,
-- OFFSET NULL, row-level security over the candidates sorted by all keys, cursors walking
-- backward, rescans.  Each answer or figure radik gives is compared, inside the test, with
-- PostgreSQL's own for the same statement with radik.enabled = off.
LOAD 'radik';

-- EXPLAIN ANALYZE's "Rows Removed by Filter" counts the rows the quals rejected, once, even
-- when several sort keys make radik read the table a second time to gather the rows tied on the
-- first key at the boundary (radik once counted every row of that second pass as removed).
-- Here the tied rows come from the rows kept in memory (one read); radik_ties checks the count
-- where the table is read twice.
CREATE FUNCTION radik_rows_removed(stmt text, use_radik boolean) RETURNS bigint
LANGUAGE plpgsql SET radik.force = on SET radik.enabled = on AS $$
DECLARE
	line text;
BEGIN
	PERFORM set_config('radik.enabled', CASE WHEN use_radik THEN 'on' ELSE 'off' END, true);
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || stmt LOOP
		IF line ~ 'Rows Removed by Filter' THEN
			RETURN substring(line FROM '\d+$')::bigint;
		END IF;
	END LOOP;
	RETURN NULL;
END $$;

SET radik.force = on;
SELECT q, radik_plan_uses_radik(q) AS radik_used,
	   radik_rows_removed(q, true) AS radik_removed,
	   radik_rows_removed(q, true) = radik_rows_removed(q, false) AS same_as_postgres,
	   radik_compare(q) AS answer
FROM unnest(ARRAY[
	-- few has three values: the fifth row's group is tied far beyond the limit
	'SELECT id FROM radik_t WHERE grp <> 1 ORDER BY few, id LIMIT 5',
	'SELECT id FROM radik_t WHERE grp = 3 ORDER BY few DESC, f8, id LIMIT 5 OFFSET 2',
	-- one key: a single pass
	'SELECT id FROM radik_t WHERE grp <> 1 ORDER BY i8 LIMIT 5'
]) q;
SELECT radik_explain('SELECT id FROM radik_t WHERE grp <> 1 ORDER BY few, id LIMIT 5', true);
RESET radik.force;
DROP FUNCTION radik_rows_removed(text, boolean);

-- OFFSET NULL adds nothing to the rows radik selects, and EXPLAIN says so.
PREPARE radik_offset_null(int8) AS SELECT id FROM radik_t ORDER BY i4, id LIMIT $1 OFFSET NULL;
SET plan_cache_mode = force_generic_plan;
SET radik.force = on;
EXPLAIN (COSTS OFF) EXECUTE radik_offset_null(3);
RESET radik.force;
RESET plan_cache_mode;
DEALLOCATE radik_offset_null;
SELECT radik_compare('SELECT id FROM radik_t ORDER BY i4, id LIMIT 3 OFFSET NULL') AS offset_null;

-- Row-level security with a function that is not leakproof in the sort keys: with several keys
-- radik computes the keys again for the rows tied on the first one, and sorts them; those too
-- must be rows the policy lets through (the function counts in a sequence, which no rollback
-- undoes, every row outside the policy it is shown).
CREATE TABLE radik_scan_node_rls AS SELECT id, grp, few, f8 FROM radik_t;
ALTER TABLE radik_scan_node_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY radik_scan_node_grp ON radik_scan_node_rls USING (grp = 2);
CREATE ROLE regress_radik_scan_node;
GRANT SELECT ON radik_scan_node_rls TO regress_radik_scan_node;
CREATE SEQUENCE radik_scan_node_leaked;
GRANT USAGE ON SEQUENCE radik_scan_node_leaked TO regress_radik_scan_node;
CREATE FUNCTION radik_scan_node_leak(g int4, v int2) RETURNS int2
LANGUAGE plpgsql STABLE COST 0.0001 AS $$
BEGIN
	IF g <> 2 THEN
		PERFORM nextval('radik_scan_node_leaked');
	END IF;
	RETURN v;
END $$;
SET ROLE regress_radik_scan_node;
SELECT radik_compare('SELECT id FROM radik_scan_node_rls ORDER BY radik_scan_node_leak(grp, few), f8, id LIMIT 10') AS leaky_first_key,
	   radik_compare('SELECT id FROM radik_scan_node_rls ORDER BY few DESC, radik_scan_node_leak(grp, few), id LIMIT 10') AS leaky_second_key;
RESET ROLE;
SELECT is_called AS leaked FROM radik_scan_node_leaked;
DROP FUNCTION radik_scan_node_leak(int4, int2);
DROP SEQUENCE radik_scan_node_leaked;
DROP TABLE radik_scan_node_rls;
DROP OWNED BY regress_radik_scan_node;
DROP ROLE regress_radik_scan_node;

-- Cursors walk radik's rows backward as PostgreSQL's Sort lets them: FETCH BACKWARD, PRIOR,
-- ABSOLUTE and LAST, in a SCROLL cursor (no Material node needed) and in a cursor declared
-- without SCROLL, which PostgreSQL makes scrollable whenever the plan can go backward
-- (radik_setup's radik_cursor_moves).
SELECT q, scroll, radik_cursor_moves(q, true, scroll) = radik_cursor_moves(q, false, scroll) AS same
FROM unnest(ARRAY[
	'SELECT id, few FROM radik_t ORDER BY few, id LIMIT 9',
	'SELECT id FROM radik_t WHERE grp = 2 ORDER BY f8 DESC, id LIMIT 8 OFFSET 2',
	'SELECT i4 FROM radik_t ORDER BY i4 NULLS FIRST LIMIT 7',
	'SELECT few FROM radik_t ORDER BY few DESC FETCH FIRST 9 ROWS WITH TIES',
	'SELECT i4 FROM radik_t ORDER BY i4 NULLS FIRST OFFSET 170 ROWS FETCH FIRST 7 ROWS WITH TIES'
]) q, unnest(ARRAY[true, false]) scroll;
SET radik.force = on;
EXPLAIN (COSTS OFF) DECLARE c SCROLL CURSOR FOR SELECT id FROM radik_t ORDER BY f8 LIMIT 5;
RESET radik.force;

-- A rescan that changes none of the node's parameters returns the rows selected before, as a
-- Sort rewinds (one selection: Rows Scanned counts the table once for all loops); a rescan that
-- changes one selects again.
SELECT radik_compare('SELECT g, (SELECT max(x.f8) FROM (SELECT f8 FROM radik_t ORDER BY f8, id LIMIT 5) x WHERE x.f8 > g - 1000) FROM generate_series(1, 3) g') AS unchanged_parameters,
	   radik_compare('SELECT g, (SELECT max(x.f8) FROM (SELECT f8 FROM radik_t ORDER BY f8, id LIMIT g) x) FROM generate_series(1, 3) g') AS changed_limit;
SET radik.force = on;
SELECT radik_explain('SELECT g, (SELECT max(x.f8) FROM (SELECT f8 FROM radik_t ORDER BY f8, id LIMIT 5) x WHERE x.f8 > g - 1000) FROM generate_series(1, 3) g', true);
RESET radik.force;
