-- radik_brin: block ranges read in the order a BRIN minmax index on the first sort key gives, and
-- skipped once their summaries cannot beat the k-th key (radik_brin.c).  Every answer is compared
-- with PostgreSQL's own (radik_compare in radik_setup.sql); EXPLAIN ANALYZE says how many ranges
-- were read and skipped.  Tables: in key order, in reverse order, in random order, partly
-- ordered, with unsummarized ranges, all-NULL ranges and empty ranges; float keys with NaN, -0
-- and infinities; a partitioned table with a BRIN index per partition.
LOAD 'radik';
SET radik.force = on;

-- 60000 rows, a range of 4 pages (about 740 rows): ts and id rise with the row's place; f8
-- rises too, with NaN, infinities and -0 among the latest rows; n4 is NULL in whole ranges;
-- r8 is in no order; part rises with the place but wobbles across neighbouring ranges.
CREATE TABLE radik_br AS
SELECT i AS id, timestamptz '2026-01-01 00:00+00' + i * interval '1 minute' AS ts,
	CASE WHEN i = 59000 THEN 'NaN'::float8 WHEN i = 58000 THEN 'Infinity'
		 WHEN i = 3000 THEN '-Infinity' WHEN i IN (30000, 30001) THEN -0.0::float8
		 WHEN i > 30001 THEN i::float8 / 10 ELSE (i - 30000)::float8 / 10 END AS f8,
	CASE WHEN i BETWEEN 20000 AND 29999 OR i > 57000 THEN NULL ELSE i END AS n4,
	((i::int8 * 7919) % 60013)::float8 AS r8,
	i + (i * 7) % 3001 AS part,
	i % 10 AS grp, md5(i::text) AS name
FROM generate_series(1, 60000) i;
CREATE INDEX radik_br_ts ON radik_br USING brin (ts) WITH (pages_per_range = 4);
CREATE INDEX radik_br_multi ON radik_br USING brin (n4, f8, r8, part)
	WITH (pages_per_range = 4);
CREATE INDEX radik_br_id ON radik_br USING brin (id int4_minmax_multi_ops)
	WITH (pages_per_range = 4);
ANALYZE radik_br;

-- How stmt read the table: 'whole table', or the share of block ranges read.
CREATE FUNCTION radik_brin_outcome(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	scan json := radik_analyzed_scan(stmt);
	ranges_read int8 := (scan ->> 'BRIN Ranges Read')::int8;
	ranges_skipped int8 := (scan ->> 'BRIN Ranges Skipped')::int8;
BEGIN
	IF scan IS NULL THEN
		RETURN 'radik not used';
	ELSIF ranges_read IS NULL THEN
		RETURN 'whole table';
	END IF;
	RETURN format('ranges read: %s', CASE WHEN ranges_skipped = 0 THEN 'all'
										  WHEN ranges_read * 4 <= ranges_read + ranges_skipped
										  THEN 'under a quarter' ELSE 'over a quarter' END);
END $$;

-- The answers: both directions, WHERE clauses, OFFSET, WITH TIES, several keys, NULLs first and
-- last (all-NULL ranges), NaN, -0 and infinities, k beyond the rows, keys in no order.
CREATE FUNCTION radik_brin_answers(tab text) RETURNS TABLE (q text, result text)
LANGUAGE sql AS $$
	SELECT q, radik_compare(q, NULL, keys, base)
	FROM (VALUES
		('SELECT * FROM %s ORDER BY ts DESC LIMIT 100', NULL, NULL),
		('SELECT * FROM %s ORDER BY ts LIMIT 10', NULL, NULL),
		('SELECT id, ts FROM %s WHERE grp = 3 ORDER BY ts DESC LIMIT 50', NULL, NULL),
		('SELECT id, ts FROM %s WHERE name LIKE ''a%%'' ORDER BY ts DESC LIMIT 20', NULL, NULL),
		('SELECT id, ts FROM %s ORDER BY ts DESC LIMIT 10 OFFSET 2000', NULL, NULL),
		('SELECT id, grp FROM %s ORDER BY grp DESC, id LIMIT 10', NULL, NULL),
		('SELECT id, ts FROM %s ORDER BY ts DESC FETCH FIRST 5 ROWS WITH TIES', NULL, NULL),
		('SELECT id, f8 FROM %s ORDER BY f8 DESC LIMIT 30', NULL, NULL),
		('SELECT id, f8 FROM %s ORDER BY f8 LIMIT 30', NULL, NULL),
		('SELECT id, f8 FROM %s WHERE f8 <= 0 ORDER BY f8 DESC LIMIT 5', 'f8',
		 'SELECT id, f8 FROM %s WHERE f8 <= 0'),
		('SELECT id, n4 FROM %s ORDER BY n4 DESC LIMIT 40', 'n4', 'SELECT id, n4 FROM %s'),
		('SELECT id, n4 FROM %s ORDER BY n4 DESC NULLS LAST LIMIT 40', NULL, NULL),
		('SELECT id, n4 FROM %s ORDER BY n4 NULLS FIRST LIMIT 40', 'n4',
		 'SELECT id, n4 FROM %s'),
		('SELECT id, n4 FROM %s ORDER BY n4 LIMIT 40', NULL, NULL),
		('SELECT id, n4 FROM %s WHERE n4 IS NULL OR n4 < 5 ORDER BY n4 LIMIT 40', 'n4',
		 'SELECT id, n4 FROM %s WHERE n4 IS NULL OR n4 < 5'),
		('SELECT id, r8 FROM %s ORDER BY r8 DESC LIMIT 25', NULL, NULL),
		('SELECT id, part FROM %s ORDER BY part DESC LIMIT 300', 'part', 'SELECT id, part FROM %s'),
		('SELECT id, part FROM %s ORDER BY part LIMIT 300', 'part', 'SELECT id, part FROM %s'),
		('SELECT id, ts FROM %s ORDER BY ts DESC LIMIT 100000', NULL, NULL),
		('SELECT id, ts FROM %s WHERE id < 0 ORDER BY ts DESC LIMIT 5', NULL, NULL)
		) AS c(q0, keys, base0),
		LATERAL (SELECT format(q0, tab) AS q, format(base0, tab) AS base) f
$$;
SELECT * FROM radik_brin_answers('radik_br');

-- Where the summaries let ranges be skipped, and where they do not (keys in no order, an
-- opclass other than minmax, a key with no BRIN index, the setting off).
SELECT radik_brin_outcome('SELECT * FROM radik_br ORDER BY ts DESC LIMIT 100') AS latest;
SELECT radik_brin_outcome('SELECT * FROM radik_br ORDER BY ts LIMIT 10') AS earliest;
SELECT radik_brin_outcome('SELECT id FROM radik_br WHERE grp = 3 ORDER BY ts DESC LIMIT 50')
	AS latest_filtered;
SELECT radik_brin_outcome('SELECT id FROM radik_br ORDER BY part LIMIT 300') AS partly_ordered;
SELECT radik_brin_outcome('SELECT id FROM radik_br ORDER BY n4 DESC NULLS LAST LIMIT 40')
	AS nulls_last;
SELECT radik_brin_outcome('SELECT id FROM radik_br ORDER BY r8 DESC LIMIT 25') AS no_order;
SELECT radik_brin_outcome('SELECT id FROM radik_br ORDER BY id DESC LIMIT 25') AS minmax_multi;
SELECT radik_brin_outcome('SELECT id FROM radik_br ORDER BY grp LIMIT 25') AS no_index;
SET radik.brin_ranges = off;
SELECT radik_brin_outcome('SELECT * FROM radik_br ORDER BY ts DESC LIMIT 100') AS setting_off;
RESET radik.brin_ranges;

-- The planner expects the skipping (from the column's correlation), without radik.force: the
-- startup cost of the latest rows is a small part of the cost of reading the whole table.
CREATE FUNCTION radik_brin_startup_cost(stmt text) RETURNS float8
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || stmt INTO plan;
	RETURN (plan -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Startup Cost')::float8;
END $$;
SET radik.force = off;
SELECT radik_plan_uses_radik('SELECT * FROM radik_br ORDER BY ts DESC LIMIT 100') AS planned,
	radik_brin_startup_cost('SELECT * FROM radik_br ORDER BY ts DESC LIMIT 100') * 10 <
	(SELECT radik_brin_startup_cost('SELECT * FROM radik_br ORDER BY r8 DESC LIMIT 100'))
	AS costed_below_a_tenth;
SET radik.force = on;
DROP FUNCTION radik_brin_startup_cost(text);

-- Rows added after the index was built: their ranges are not summarized and are read first; a
-- range desummarized in the middle is read too.  The newest rows hold the best keys of ts and
-- the worst of id's reverse (radik_br_rev is the table stored in reverse order).
INSERT INTO radik_br
SELECT i, timestamptz '2026-01-01 00:00+00' + i * interval '1 minute', i::float8 / 10, i,
	((i::int8 * 7919) % 60013)::float8, i, i % 10, md5(i::text)
FROM generate_series(60001, 62000) i;
SELECT brin_desummarize_range('radik_br_ts', 40);
UPDATE radik_br SET ts = ts + interval '10 years' WHERE id = 1234;
SELECT * FROM radik_brin_answers('radik_br');
SELECT radik_brin_outcome('SELECT * FROM radik_br ORDER BY ts DESC LIMIT 100')
	AS latest_unsummarized;

-- Empty ranges: every row of a few ranges deleted and vacuumed away, the ranges summarized again.
DELETE FROM radik_br WHERE id BETWEEN 10000 AND 14000;
VACUUM radik_br;
SELECT count(brin_desummarize_range('radik_br_ts', b)) > 0 AS desummarized
FROM generate_series(0, (pg_relation_size('radik_br') / 8192)::int, 4) b;
SELECT brin_summarize_new_values('radik_br_ts') > 0 AS summarized;
SELECT * FROM radik_brin_answers('radik_br');

CREATE TABLE radik_br_rev AS SELECT * FROM radik_br ORDER BY id DESC;
CREATE INDEX ON radik_br_rev USING brin (ts, n4, f8, r8, part) WITH (pages_per_range = 4);
ANALYZE radik_br_rev;
SELECT * FROM radik_brin_answers('radik_br_rev');
SELECT radik_brin_outcome('SELECT * FROM radik_br_rev ORDER BY ts DESC LIMIT 100') AS reversed;

-- Parallel workers planned: a selection that reads a few ranges does so in one process.
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
ALTER TABLE radik_br SET (parallel_workers = 2);
SELECT * FROM radik_brin_answers('radik_br');
SELECT radik_brin_outcome('SELECT * FROM radik_br ORDER BY ts DESC LIMIT 100') AS parallel_latest;
SELECT radik_brin_outcome('SELECT id FROM radik_br ORDER BY r8 DESC LIMIT 25')
	AS parallel_no_order;
RESET max_parallel_workers_per_gather;

-- A partitioned table: each partition's own index.
CREATE TABLE radik_br_parted (id int8, ts timestamptz, v float8) PARTITION BY RANGE (id);
CREATE TABLE radik_br_p1 PARTITION OF radik_br_parted FOR VALUES FROM (MINVALUE) TO (30000);
CREATE TABLE radik_br_p2 PARTITION OF radik_br_parted FOR VALUES FROM (30000) TO (MAXVALUE);
INSERT INTO radik_br_parted SELECT id, ts, r8 FROM radik_br;
CREATE INDEX ON radik_br_parted USING brin (ts) WITH (pages_per_range = 4);
ANALYZE radik_br_parted;
SELECT radik_compare('SELECT * FROM radik_br_parted ORDER BY ts DESC LIMIT 100') AS parted;
SELECT radik_compare('SELECT * FROM radik_br_parted WHERE v < 100 ORDER BY ts LIMIT 5')
	AS parted_filtered;

-- radik_topk() reads through the same path.
SELECT * FROM radik_topk_check('radik_br', 'ts', 100);
SELECT * FROM radik_topk_check('radik_br', 'n4', 40, true, 'first');

DROP FUNCTION radik_brin_answers(text);
DROP FUNCTION radik_brin_outcome(text);
DROP TABLE radik_br, radik_br_rev, radik_br_parted;
