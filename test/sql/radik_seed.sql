-- radik_seed: the first threshold judged from a sample of the table's pages (radik_seed.c).  Every
-- answer is compared with PostgreSQL's own (radik_check / radik_compare in radik_setup.sql), with
-- the sample's threshold in use, and with one made too tight on purpose
-- (radik.threshold_seed_margin < 0), which the selection must notice and undo by reading the
-- table again.  EXPLAIN shows whether a sample was taken, its threshold used, and missed.
LOAD 'radik';
SET radik.force = on;

-- 200000 rows on about 1300 pages: repeated keys (k4), distinct ones (f8), NULLs (n4), a filter
-- column (grp); the rows in no particular key order.  radik_st_sorted: the same rows stored in
-- id order, so that a sample's pages say little about the best ids.
CREATE TABLE radik_st AS
SELECT i AS id, (i * 7919) % 100003 AS k4, ((i::int8 * 104729) % 1000003)::float8 / 7 AS f8,
	CASE WHEN i % 97 = 0 THEN NULL ELSE ((i::int8 * 31337) % 65537)::int END AS n4, i % 5 AS grp
FROM generate_series(1, 200000) i;
CREATE TABLE radik_st_sorted AS SELECT * FROM radik_st ORDER BY id;
ALTER TABLE radik_st SET (parallel_workers = 2);
ANALYZE radik_st;
ANALYZE radik_st_sorted;

-- What the sample did for stmt (run with EXPLAIN ANALYZE).
CREATE FUNCTION radik_seed_outcome(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	scan json := radik_analyzed_scan(stmt);
BEGIN
	IF scan IS NULL THEN
		RETURN 'radik not used';
	ELSIF scan ->> 'Seed Pages Sampled' IS NULL THEN
		RETURN 'no sample';
	END IF;
	RETURN format('sampled, threshold %s, %s',
				  CASE WHEN (scan ->> 'Seed Thresholds Used')::int > 0 THEN 'used' ELSE 'none' END,
				  CASE WHEN (scan ->> 'Seed Thresholds Missed')::int > 0 THEN 'missed: read again'
					   ELSE 'held' END);
END $$;

-- The sample is taken for a k that it can see, and not for a small one (the engine's own
-- threshold comes soon enough there) nor on a small table.  A threshold four standard errors
-- loose holds (none missed in 6000 selections of these tables).
SELECT radik_seed_outcome('SELECT * FROM radik_st ORDER BY k4 LIMIT 5000') AS k_5000;
SELECT radik_seed_outcome('SELECT * FROM radik_st ORDER BY f8 DESC LIMIT 20000') AS k_20000;
SELECT radik_seed_outcome('SELECT * FROM radik_st ORDER BY k4 LIMIT 10') AS k_10;
SELECT radik_seed_outcome('SELECT * FROM radik_t ORDER BY i4 LIMIT 1000') AS small_table;
SET radik.threshold_seed = off;
SELECT radik_seed_outcome('SELECT * FROM radik_st ORDER BY k4 LIMIT 5000') AS seed_off;
RESET radik.threshold_seed;

-- Answers with the sample's threshold: both directions, ties at the boundary, NULLs first and
-- last, OFFSET, WHERE clauses (native and not), several keys, an expression, the table in key
-- order.
CREATE FUNCTION radik_seed_answers() RETURNS TABLE (q text, result text)
LANGUAGE sql AS $$
	SELECT q, radik_compare(q, NULL, keys, base)
	FROM (VALUES
		('SELECT * FROM radik_st ORDER BY k4 LIMIT 5000', 'k4', 'SELECT * FROM radik_st'),
		('SELECT id, f8 FROM radik_st ORDER BY f8 DESC LIMIT 1000', NULL, NULL),
		('SELECT * FROM radik_st ORDER BY n4 DESC LIMIT 20000', 'n4', 'SELECT * FROM radik_st'),
		('SELECT * FROM radik_st ORDER BY n4 NULLS FIRST LIMIT 3000', 'n4',
		 'SELECT * FROM radik_st'),
		('SELECT id, f8 FROM radik_st ORDER BY f8 LIMIT 100 OFFSET 4900', NULL, NULL),
		('SELECT id, f8 FROM radik_st WHERE grp <> 2 ORDER BY f8 LIMIT 5000', NULL, NULL),
		('SELECT id, k4 FROM radik_st WHERE id::text LIKE ''%7%'' ORDER BY k4 DESC, id LIMIT 4000',
		 NULL, NULL),
		('SELECT * FROM radik_st ORDER BY k4, id DESC LIMIT 5000', NULL, NULL),
		('SELECT id, k4 FROM radik_st ORDER BY (k4 % 1000) * 3 - id DESC, id LIMIT 3000', NULL,
		 NULL),
		('SELECT id, k4 FROM radik_st_sorted ORDER BY id DESC LIMIT 5000', NULL, NULL),
		('SELECT id, k4 FROM radik_st_sorted ORDER BY k4 LIMIT 5000', 'k4',
		 'SELECT id, k4 FROM radik_st_sorted')) AS c(q, keys, base)
$$;
SELECT * FROM radik_seed_answers();

-- The same with the table's parallel workers, which learn the threshold through shared memory.
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT radik_explain('SELECT * FROM radik_st ORDER BY k4 LIMIT 5000');
SELECT * FROM radik_seed_answers();
SELECT radik_seed_outcome('SELECT * FROM radik_st ORDER BY k4 LIMIT 5000') AS parallel_k_5000;

-- A threshold far too tight: the engine gets fewer than k rows, and the table is read again
-- without it, in parallel and alone.
SET radik.threshold_seed_margin = -1000;
SELECT radik_seed_outcome('SELECT * FROM radik_st ORDER BY k4 LIMIT 5000') AS tight_parallel;
SELECT * FROM radik_seed_answers();
RESET max_parallel_workers_per_gather;
SELECT radik_seed_outcome('SELECT * FROM radik_st ORDER BY k4 LIMIT 5000') AS tight_serial;
SELECT * FROM radik_seed_answers();

-- radik_topk() selects through the same path.
SELECT * FROM radik_topk_check('radik_st', 'f8', 5000);
SELECT * FROM radik_topk_check('radik_st', 'n4', 20000, true, 'first');
RESET radik.threshold_seed_margin;
SELECT * FROM radik_topk_check('radik_st', 'k4', 5000, true);

DROP FUNCTION radik_seed_answers();
DROP FUNCTION radik_seed_outcome(text);
DROP TABLE radik_st, radik_st_sorted;
