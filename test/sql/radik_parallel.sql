-- radik_parallel: parallel workers extracting keys (radik_parallel.c).  Every answer is compared
-- with PostgreSQL's own (radik_compare in radik_setup.sql), and the plans show that workers were
-- planned and launched where they should be, and not planned where they must not be.
LOAD 'radik';

-- A table of many pages, so that every worker gets blocks: radik_t's rows sixteen times over
-- (ids kept unique), with parallel plans made cheap.
CREATE TABLE radik_pt AS
SELECT t.id + 10000 * copy AS id, grp, few, same, nothing, i2, i4, i8, f4, f8, d, t, ts, tz
FROM radik_t t, generate_series(0, 15) copy;
ALTER TABLE radik_pt SET (parallel_workers = 3);
ANALYZE radik_pt;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 3;
SET radik.force = on;

-- How many workers radik's node launched for stmt (run with EXPLAIN ANALYZE).
CREATE FUNCTION radik_workers_launched(stmt text) RETURNS int
LANGUAGE sql AS $$
	SELECT (radik_analyzed_scan(stmt) ->> 'Workers Launched')::int
$$;

-- The plan says how many workers it wants; under ANALYZE, how many ran.
SELECT radik_explain('SELECT * FROM radik_pt ORDER BY f8 DESC LIMIT 10');
SELECT radik_workers_launched('SELECT * FROM radik_pt ORDER BY f8 DESC LIMIT 10') > 0
	AS workers_ran;

-- EXPLAIN (ANALYZE, BUFFERS) counts the pages the workers read too: the node reads every page of
-- the table once (radik_pt is in shared buffers, just written), in whichever process, as
-- PostgreSQL's parallel plan does.
CREATE FUNCTION radik_pages_counted(stmt text, use_radik boolean) RETURNS int8
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	PERFORM set_config('radik.enabled', CASE WHEN use_radik THEN 'on' ELSE 'off' END, true);
	EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || stmt INTO plan;
	PERFORM set_config('radik.enabled', 'on', true);
	RETURN (plan -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::int8 +
		(plan -> 0 -> 'Plan' ->> 'Shared Read Blocks')::int8;
END $$;
SELECT radik_pages_counted(q, true) >= pg_relation_size('radik_pt') / current_setting('block_size')::int8
		AS all_pages_counted,
	   radik_pages_counted(q, true) >= radik_pages_counted(q, false) - 100 AS about_as_postgres
FROM (VALUES ('SELECT id FROM radik_pt ORDER BY f8 DESC LIMIT 10')) v(q);
DROP FUNCTION radik_pages_counted(text, boolean);

-- Every key type, both directions, NULLs first and last, k from 1 to more than the table has.
SELECT ord, k, radik_check('*', 'radik_pt', ord, 'LIMIT ' || k, split_part(ord, ' ', 1)) AS result
FROM unnest(ARRAY['i2', 'i4 DESC', 'i8 NULLS FIRST', 'f4 DESC NULLS LAST', 'f8',
				  'd DESC', 't', 'ts DESC NULLS FIRST', 'tz', 'same', 'nothing DESC']) AS ord,
	 unnest(ARRAY[1, 10, 1000, 50000]) AS k
ORDER BY ord, k;

-- Several keys (the rows tied on the first key are gathered again), OFFSET, WHERE clauses that
-- the workers run, and an expression as the key.
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT * FROM radik_pt ORDER BY few, i4 DESC, id LIMIT 100',
	'SELECT id, f8 FROM radik_pt ORDER BY f8 NULLS FIRST, id LIMIT 40 OFFSET 1000',
	'SELECT * FROM radik_pt WHERE grp <> 2 AND f4 > 0 ORDER BY f4, id LIMIT 500',
	'SELECT id, i4 FROM radik_pt WHERE id % 10 <> 0 ORDER BY i4 / 3 - i2 DESC, id LIMIT 77',
	'SELECT id FROM radik_pt WHERE ts > ''2000-02-01'' ORDER BY tz DESC, id LIMIT 5']) AS q;

-- The query's parameters travel to the workers (a generic plan keeps them as Params).
SET plan_cache_mode = force_generic_plan;
PREPARE radik_par_q(int, float8, int8) AS
	SELECT id, grp, f8 FROM radik_pt WHERE grp <> $1 AND f8 > $2 ORDER BY f8 DESC, id LIMIT $3;
SELECT radik_compare('EXECUTE radik_par_q(1, -10, 25)',
					 'SELECT id, grp, f8 FROM radik_pt WHERE grp <> 1 AND f8 > -10 ' ||
					 'ORDER BY f8 DESC, id LIMIT 25') AS params_result;
SELECT radik_workers_launched('EXECUTE radik_par_q(1, -10, 25)') > 0 AS workers_ran;
DEALLOCATE radik_par_q;
RESET plan_cache_mode;

-- An error in a worker reaches the query, as in PostgreSQL's own parallel plan.
SELECT radik_compare('SELECT id FROM radik_pt WHERE 100 / (id % 20000 - 1500) > -1000 ' ||
					 'ORDER BY f8 LIMIT 5') AS worker_error;

-- When no worker can be had, the backend reads the whole table alone.
SET max_parallel_workers = 0;
SELECT radik_check('*', 'radik_pt', 'i8 DESC, id', 'LIMIT 30') AS no_workers_free;
SELECT radik_workers_launched('SELECT * FROM radik_pt ORDER BY i8 DESC LIMIT 30') AS launched;
RESET max_parallel_workers;

-- No workers where they may not run: a parallel-unsafe function in the WHERE clause or the key,
-- a temporary table, max_parallel_workers_per_gather = 0.
CREATE FUNCTION radik_unsafe(x int4) RETURNS int4 LANGUAGE plpgsql IMMUTABLE PARALLEL UNSAFE
	AS 'BEGIN RETURN x; END';
SELECT radik_explain('SELECT id FROM radik_pt WHERE radik_unsafe(grp) = 1 ORDER BY f8 LIMIT 3');
SELECT radik_explain('SELECT id FROM radik_pt ORDER BY radik_unsafe(i4) LIMIT 3');
SELECT radik_compare('SELECT id, f8 FROM radik_pt WHERE radik_unsafe(grp) = 1 ' ||
					 'ORDER BY f8, id LIMIT 3') AS unsafe_result;
CREATE TEMP TABLE radik_pt_temp AS SELECT * FROM radik_pt;
ALTER TABLE radik_pt_temp SET (parallel_workers = 3);
ANALYZE radik_pt_temp;
SELECT radik_explain('SELECT id FROM radik_pt_temp ORDER BY f8 LIMIT 3');
SET max_parallel_workers_per_gather = 0;
SELECT radik_explain('SELECT id FROM radik_pt ORDER BY f8 LIMIT 3');
RESET max_parallel_workers_per_gather;

-- A cursor never runs in parallel (PostgreSQL's rule for cursors).
SELECT radik_explain('DECLARE radik_par_c CURSOR FOR SELECT id FROM radik_pt ORDER BY f4 LIMIT 4');

DROP TABLE radik_pt_temp;
DROP FUNCTION radik_unsafe(int4);
DROP FUNCTION radik_workers_launched(text);
DROP TABLE radik_pt;
RESET radik.force;
RESET max_parallel_workers_per_gather;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
RESET min_parallel_table_scan_size;
