-- radik_ties: FETCH FIRST k ROWS WITH TIES.  radik's node returns the k (+ OFFSET) best rows and
-- then every row tied with the last of them, and PostgreSQL's Limit node stops where the ties
-- end.  Every answer is compared with PostgreSQL's own (radik_compare in radik_setup.sql): with
-- ties kept there is one right set of rows (without OFFSET), so radik must return as many rows as
-- PostgreSQL, with the same keys position by position, each a row of the table.
LOAD 'radik';
SET radik.force = on;

-- The plan: PostgreSQL's Limit over radik's node, which says it keeps the ties.
EXPLAIN (COSTS OFF) SELECT id FROM radik_t ORDER BY few FETCH FIRST 3 ROWS WITH TIES;
EXPLAIN (COSTS OFF)
SELECT id, f8 FROM radik_t WHERE grp = 1 ORDER BY f8 DESC, id OFFSET 2 ROWS FETCH FIRST 5 ROWS WITH TIES;
-- EXPLAIN ANALYZE: when the cut falls inside a group of equal keys, the rest of the group comes
-- from the rows the selection pushed to its engine, kept within work_mem: one read of the table
-- (the node returns the 1005 rows with the smallest few, the Limit node all of them).
SELECT radik_explain('SELECT id FROM radik_t ORDER BY few FETCH FIRST 3 ROWS WITH TIES', true);

-- Every key type, both directions, NULLs first and last; k = 1, a few, into the NULLs (each
-- column has 176 or 177 of them), the whole table and beyond.
SELECT ord, k, radik_check('*', 'radik_t', ord, format('FETCH FIRST %s ROWS WITH TIES', k),
						   split_part(ord, ' ', 1)) AS result
FROM unnest(ARRAY['i2', 'i4 DESC', 'i8 NULLS FIRST', 'f4 DESC NULLS LAST', 'f4 DESC', 'f8',
				  'd DESC', 't', 'ts DESC NULLS FIRST', 'tz', 'few', 'same', 'nothing DESC']) AS ord,
	 unnest(ARRAY[1, 2, 7, 176, 178, 1004, 2840, 3013, 5000]) AS k
ORDER BY ord, k;

-- Ties at special values: NaN (twice, above Infinity), -Infinity, -0 and 0 (three rows, equal),
-- the smallest subnormals.
SELECT q, radik_compare(q, NULL, 'f', 'SELECT id, f FROM (SELECT id, f4 AS f FROM radik_t) s') AS result
FROM unnest(ARRAY[
	'SELECT id, f4 AS f FROM radik_t WHERE f4 IS NOT NULL ORDER BY f4 DESC FETCH FIRST 1 ROW WITH TIES',
	'SELECT id, f4 AS f FROM radik_t ORDER BY f4 FETCH FIRST 1 ROW WITH TIES',
	'SELECT id, f4 AS f FROM radik_t WHERE f4 >= 0 ORDER BY f4 FETCH FIRST 1 ROW WITH TIES',
	'SELECT id, f4 AS f FROM radik_t WHERE f4 >= 0 ORDER BY f4 FETCH FIRST 3 ROWS WITH TIES',
	'SELECT id, f4 AS f FROM radik_t WHERE f4 > -1e-30 ORDER BY f4 FETCH FIRST 2 ROWS WITH TIES'
	]) AS q;
-- The same reading only the key column: rows made from their keys (a zero's and a NaN's rows are
-- fetched, so -0 comes back as -0).
SELECT q, radik_compare(q, NULL, 'f4', 'SELECT f4 FROM radik_t') AS result
FROM unnest(ARRAY[
	'SELECT f4 FROM radik_t WHERE f4 >= 0 ORDER BY f4 FETCH FIRST 2 ROWS WITH TIES',
	'SELECT f4 FROM radik_t ORDER BY f4 DESC NULLS LAST FETCH FIRST 1 ROW WITH TIES',
	'SELECT f4 FROM radik_t ORDER BY f4 FETCH FIRST 2900 ROWS WITH TIES'
	]) AS q;

-- OFFSET with ties: which tied rows the offset skips is not fixed, so the keys are compared.
SELECT lim, radik_check('id, few', 'radik_t', 'few DESC', lim, 'few') AS few_desc,
	   radik_check('id, i2', 'radik_t', 'i2 NULLS FIRST', lim, 'i2') AS i2_nulls_first,
	   radik_check('id, f8', 'radik_t', 'f8, id', lim) AS f8_id
FROM unnest(ARRAY['OFFSET 0 ROWS FETCH FIRST 1 ROW WITH TIES',
				  'OFFSET 5 ROWS FETCH FIRST 3 ROWS WITH TIES',
				  'OFFSET 1000 ROWS FETCH FIRST 10 ROWS WITH TIES',
				  'OFFSET 175 ROWS FETCH FIRST 2 ROWS WITH TIES',
				  'OFFSET 3010 ROWS FETCH FIRST 5 ROWS WITH TIES',
				  'OFFSET 4000 ROWS FETCH FIRST 5 ROWS WITH TIES',
				  'OFFSET 10 ROWS FETCH FIRST 0 ROWS WITH TIES',
				  'FETCH FIRST 0 ROWS WITH TIES',
				  'FETCH FIRST (SELECT 3) ROWS WITH TIES',
				  'FETCH FIRST 9223372036854775807 ROWS WITH TIES',
				  'OFFSET 9223372036854775807 ROWS FETCH FIRST 3 ROWS WITH TIES',
				  'FETCH FIRST (NULL::int8) ROWS WITH TIES',
				  'FETCH FIRST -1 ROWS WITH TIES']) WITH ORDINALITY AS l(lim, n)
ORDER BY n;

-- Several keys: the rows tied on all of them with the k-th come back, among the rows tied with it
-- on the first key.
SELECT q, radik_compare(q, NULL, 'few, grp') AS result
FROM unnest(ARRAY[
	'SELECT few, grp FROM radik_t ORDER BY few, grp FETCH FIRST 1 ROW WITH TIES',
	'SELECT few, grp FROM radik_t ORDER BY few DESC, grp FETCH FIRST 700 ROWS WITH TIES',
	'SELECT few, grp, same FROM radik_t ORDER BY few, same, grp DESC FETCH FIRST 1500 ROWS WITH TIES',
	'SELECT id, few, grp, i4 FROM radik_t ORDER BY few, grp, i4 DESC NULLS LAST FETCH FIRST 50 ROWS WITH TIES'
	]) AS q;
-- An expression as the key, WHERE clauses.
SELECT src, ord, radik_check('id, ' || ord || ' AS k', src, ord, 'FETCH FIRST 4 ROWS WITH TIES', 'k')
	AS result
FROM (VALUES ('radik_t WHERE grp <> 3', 'i4 % 10'),
			 ('radik_t WHERE ts > ''2000-01-20''', 'date_trunc(''day'', ts)'),
			 ('radik_t WHERE few = 1', 'd - (i2 % 3)'),
			 ('radik_t WHERE f8 < -1', 'round(f8 / 50)')) AS c(src, ord);

-- The count as a parameter (a generic plan), and the node rescanned under LATERAL with a count
-- that changes for each outer row: the rows are summed, so the answer is fully determined.
SET plan_cache_mode = force_generic_plan;
PREPARE radik_ties_q(int8, int4) AS
	SELECT id, few, grp FROM radik_t WHERE grp <> $2 ORDER BY few DESC, grp FETCH FIRST $1 ROWS WITH TIES;
SELECT radik_compare('EXECUTE radik_ties_q(5, 2)',
					 'SELECT id, few, grp FROM radik_t WHERE grp <> 2 ' ||
					 'ORDER BY few DESC, grp FETCH FIRST 5 ROWS WITH TIES', 'few, grp') AS param_count;
DEALLOCATE radik_ties_q;
RESET plan_cache_mode;
SELECT radik_compare('SELECT g, count(*), sum(s.id) FROM generate_series(0, 3) g, LATERAL ' ||
					 '(SELECT id FROM radik_t WHERE few = g % 3 ORDER BY grp DESC ' ||
					 'FETCH FIRST (g + 1) ROWS WITH TIES) s GROUP BY g ORDER BY g') AS lateral_rescan;

-- Volatile WHERE clauses: the table may be read twice for the ties, so radik declines.
EXPLAIN (COSTS OFF)
SELECT id FROM radik_t WHERE random() < 2 ORDER BY few FETCH FIRST 3 ROWS WITH TIES;

-- Parallel workers reading a larger table (radik_t eight times over: each value comes eight
-- times more often), the ties gathered after them.
CREATE TABLE radik_ties_big AS
SELECT t.id + 10000 * copy AS id, grp, few, same, i2, i4, f4, f8, ts
FROM radik_t t, generate_series(0, 7) copy;
ALTER TABLE radik_ties_big SET (parallel_workers = 2);
ANALYZE radik_ties_big;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
-- Rows pushed beyond work_mem: the table is read a second time for the group (without workers
-- here, so that Rows Scanned is fixed: both reads, 24104 + 24104); with and without workers the
-- answers stay PostgreSQL's.
SET work_mem = '64kB';
SET max_parallel_workers_per_gather = 0;
SELECT radik_explain('SELECT id FROM radik_ties_big ORDER BY few FETCH FIRST 3 ROWS WITH TIES', true);
-- The rows the WHERE clause rejects are counted once, though the table is read twice.
SELECT (s ->> 'Rows Scanned')::int = 2 * (SELECT count(*) FROM radik_ties_big) AS read_twice,
	   (s ->> 'Rows Removed by Filter')::numeric = (SELECT count(*) FROM radik_ties_big WHERE grp = 1)
	   AS removed_once
FROM radik_analyzed_scan('SELECT id FROM radik_ties_big WHERE grp <> 1 ORDER BY few ' ||
						 'FETCH FIRST 3 ROWS WITH TIES') AS s;
SELECT ord, radik_check('*', 'radik_ties_big', ord, 'FETCH FIRST 9 ROWS WITH TIES',
						split_part(ord, ' ', 1)) AS serial
FROM unnest(ARRAY['few', 'same', 'i4 DESC']) AS ord;
SET max_parallel_workers_per_gather = 2;
SELECT ord, radik_check('*', 'radik_ties_big', ord, 'FETCH FIRST 9 ROWS WITH TIES',
						split_part(ord, ' ', 1)) AS with_workers
FROM unnest(ARRAY['few', 'same', 'i4 DESC']) AS ord;
RESET work_mem;
SELECT (radik_analyzed_scan('SELECT * FROM radik_ties_big ORDER BY i4 FETCH FIRST 10 ROWS WITH TIES')
		->> 'Workers Launched')::int > 0 AS workers_ran;
SELECT ord, k, radik_check('*', 'radik_ties_big', ord, format('FETCH FIRST %s ROWS WITH TIES', k),
						   split_part(ord, ' ', 1)) AS result
FROM unnest(ARRAY['i4', 'f4 DESC NULLS LAST', 'ts NULLS FIRST', 'few DESC', 'same']) AS ord,
	 unnest(ARRAY[1, 9, 1409, 20000]) AS k
ORDER BY ord, k;
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT few, grp FROM radik_ties_big WHERE i2 > 0 ORDER BY few, grp DESC FETCH FIRST 3 ROWS WITH TIES',
	'SELECT id, f8 FROM radik_ties_big ORDER BY f8 DESC NULLS LAST, id FETCH FIRST 10 ROWS WITH TIES'
	]) AS q;
RESET max_parallel_workers_per_gather;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
RESET min_parallel_table_scan_size;
DROP TABLE radik_ties_big;
RESET radik.force;
