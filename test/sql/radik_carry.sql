-- radik_carry: whole rows carried with their keys by the scan (radik_carry.h), so that the rows
-- selected are not fetched again.  Every answer is compared with PostgreSQL's own (radik_compare
-- in radik_setup.sql): with every row carried, with the row store filling up part way (a small
-- work_mem) so that some rows are carried and the others fetched, alone and with parallel
-- workers (which stop carrying when the leader's store is full), with several sort keys, TOASTed
-- values, rows updated in the same transaction, a cursor walking backward, and the rows of
-- groups that parallel workers send whole.  EXPLAIN's "Rows Carried" shows which path ran.
LOAD 'radik';
SET radik.force = on;

-- 100000 rows on about 900 pages, in no key order: repeated keys (k4), distinct ones (f8), NULLs
-- (n4), a filter column (grp), a text column with some values TOASTed out of line (note).
CREATE TABLE radik_ct (id int, k4 int, f8 float8, n4 int, grp int, note text);
ALTER TABLE radik_ct ALTER note SET STORAGE EXTERNAL;
INSERT INTO radik_ct
SELECT i AS id, (i * 7919) % 50021 AS k4, ((i::int8 * 104729) % 1000003)::float8 / 7 AS f8,
	CASE WHEN i % 89 = 0 THEN NULL ELSE ((i::int8 * 31337) % 65537)::int END AS n4, i % 5 AS grp,
	CASE WHEN i % 1000 = 7
		 THEN (SELECT string_agg(md5(i::text || j::text), '') FROM generate_series(1, 200) j)
		 ELSE 'row ' || i END AS note
FROM generate_series(1, 100000) i;
ALTER TABLE radik_ct SET (parallel_workers = 2);
ANALYZE radik_ct;
SELECT pg_relation_size(reltoastrelid) > 0 AS some_notes_toasted
FROM pg_class WHERE oid = 'radik_ct'::regclass;

-- The answers: both directions, ties at the boundary, NULLs first and last, OFFSET, WHERE
-- clauses, several keys, an expression key, TOASTed values in the answer.
CREATE FUNCTION radik_carry_answers() RETURNS TABLE (q text, result text)
LANGUAGE sql AS $$
	SELECT q, radik_compare(q, NULL, keys, base)
	FROM (VALUES
		('SELECT * FROM radik_ct ORDER BY k4 LIMIT 5000', 'k4', 'SELECT * FROM radik_ct'),
		('SELECT * FROM radik_ct ORDER BY f8 DESC LIMIT 20000', NULL, NULL),
		('SELECT id, n4, note FROM radik_ct ORDER BY n4 DESC LIMIT 3000', 'n4',
		 'SELECT id, n4, note FROM radik_ct'),
		('SELECT id, n4 FROM radik_ct ORDER BY n4 NULLS FIRST LIMIT 3000', 'n4',
		 'SELECT id, n4 FROM radik_ct'),
		('SELECT * FROM radik_ct ORDER BY f8 LIMIT 100 OFFSET 4900', NULL, NULL),
		('SELECT * FROM radik_ct WHERE grp <> 2 ORDER BY f8 LIMIT 5000', NULL, NULL),
		('SELECT id, note FROM radik_ct WHERE note LIKE ''%a%'' ORDER BY f8 DESC LIMIT 2000',
		 NULL, NULL),
		('SELECT * FROM radik_ct ORDER BY k4 DESC, id LIMIT 4000', NULL, NULL),
		('SELECT id, k4, md5(note) FROM radik_ct ORDER BY (k4 % 1000) * 3 - id DESC, id LIMIT 3000',
		 NULL, NULL),
		('SELECT id, md5(note) FROM radik_ct ORDER BY f8 LIMIT 200', NULL, NULL)) AS c(q, keys, base)
$$;

-- Every row carried (default work_mem), alone and with the workers.
SELECT radik_carry_outcome('SELECT * FROM radik_ct ORDER BY f8 DESC LIMIT 20000') AS serial;
SELECT radik_carry_outcome('SELECT f8 FROM radik_ct ORDER BY f8 DESC LIMIT 20000') AS key_only;
SELECT * FROM radik_carry_answers();
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT radik_explain('SELECT * FROM radik_ct ORDER BY f8 DESC LIMIT 20000');
SELECT radik_carry_outcome('SELECT * FROM radik_ct ORDER BY f8 DESC LIMIT 20000') AS parallel;
SELECT * FROM radik_carry_answers();

-- A store of 64kB holds a few pages' rows: the rest are fetched by TID, alone and in parallel
-- (the workers are told to stop carrying).
SET work_mem = '64kB';
SELECT radik_carry_outcome('SELECT * FROM radik_ct ORDER BY f8 DESC LIMIT 20000') AS parallel_small;
SELECT * FROM radik_carry_answers();
RESET max_parallel_workers_per_gather;
SELECT radik_carry_outcome('SELECT * FROM radik_ct ORDER BY f8 DESC LIMIT 20000') AS serial_small;
SELECT * FROM radik_carry_answers();
RESET work_mem;

-- The store fills with rows handed on before the threshold settles; with the sample's threshold
-- off, or a sample's threshold too tight (the table read again, the store emptied), fewer rows
-- are carried, and the answers stay the same.
SET radik.threshold_seed = off;
SELECT * FROM radik_carry_answers();
RESET radik.threshold_seed;
SET radik.threshold_seed_margin = -1000;
SELECT * FROM radik_carry_answers();
RESET radik.threshold_seed_margin;

-- A rescan with a new parameter selects and carries again (LATERAL).
SELECT g, radik_compare(format('SELECT s.* FROM (VALUES (%s)) p(g), LATERAL (SELECT id, f8, note '
							   'FROM radik_ct WHERE grp = p.g ORDER BY f8 DESC LIMIT 700) s', g))
	AS lateral_rescan
FROM generate_series(0, 1) g;
SELECT radik_compare('SELECT p.g, s.* FROM (VALUES (1), (3), (4)) p(g), LATERAL (SELECT id, k4 '
					 'FROM radik_ct WHERE grp = p.g ORDER BY f8 LIMIT 300) s') AS lateral_three;

-- A temporary table (local buffers) carries its rows too; a system catalog's rows are fetched
-- under the page's lock instead.
CREATE TEMP TABLE radik_ct_temp AS SELECT * FROM radik_ct WHERE id % 4 = 1;
SELECT radik_carry_outcome('SELECT * FROM radik_ct_temp ORDER BY f8 LIMIT 3000') AS temp_table;
SELECT radik_compare('SELECT * FROM radik_ct_temp ORDER BY f8 LIMIT 3000') AS temp_table_answer;
DROP TABLE radik_ct_temp;
SELECT radik_carry_outcome('SELECT * FROM pg_attribute ORDER BY attnum DESC LIMIT 20')
	AS catalog;

-- Rows updated, deleted and inserted by this transaction: the carried copies are the versions
-- the query sees.
BEGIN;
UPDATE radik_ct SET f8 = -f8, note = note || ' updated' WHERE id % 3 = 0;
DELETE FROM radik_ct WHERE id % 7 = 0;
INSERT INTO radik_ct SELECT 200000 + i, i, -i * 1000.5, i, 9, 'inserted ' || i
	FROM generate_series(1, 300) i;
SELECT radik_carry_outcome('SELECT * FROM radik_ct ORDER BY f8 LIMIT 5000') AS in_transaction;
SELECT * FROM radik_carry_answers();
ROLLBACK;

-- A cursor walks the carried rows backward and forward again (back from row at, forward over
-- rows 4094-4097, back one, and to the ends).
CREATE FUNCTION radik_carry_cursor(use_radik boolean, stmt text, at int) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor := 'radik_carry_c';
	r record;
BEGIN
	PERFORM set_config('radik.enabled', use_radik::text, true);
	-- planned on every call (a static query's plan would be cached across the two calls)
	OPEN c SCROLL FOR EXECUTE stmt;
	MOVE ABSOLUTE at FROM c;
	FOR i IN 1..4 LOOP
		FETCH BACKWARD FROM c INTO r;
		RETURN NEXT r::text;
	END LOOP;
	MOVE ABSOLUTE 4093 FROM c;
	FOR i IN 1..4 LOOP
		FETCH NEXT FROM c INTO r;
		RETURN NEXT r::text;
	END LOOP;
	MOVE ABSOLUTE 4097 FROM c;
	FETCH PRIOR FROM c INTO r;
	RETURN NEXT r::text;
	MOVE LAST FROM c;
	FETCH PRIOR FROM c INTO r;
	RETURN NEXT r::text;
	FETCH FIRST FROM c INTO r;
	RETURN NEXT r::text;
	CLOSE c;
END $$;
SELECT radik_plan_uses_radik('SELECT id, f8, note FROM radik_ct ORDER BY f8 DESC LIMIT 3000')
	AS cursor_query_uses_radik;
SELECT (SELECT array_agg(x) FROM radik_carry_cursor(true,
			'SELECT id, f8, note FROM radik_ct ORDER BY f8 DESC LIMIT 3000', 2500) x) =
	   (SELECT array_agg(x) FROM radik_carry_cursor(false,
			'SELECT id, f8, note FROM radik_ct ORDER BY f8 DESC LIMIT 3000', 2500) x)
	AS cursor_same_rows;

-- Per group: parallel workers grouping by one integer key send copies of the rows their groups
-- keep (radik_groups_merge.c), within the groups' memory their groups leave unused; the backend
-- returns those as they are.  Groups in both directions, a group of NULL keys first and last,
-- NULL sorting keys, groups found by several workers, TOASTed values.
CREATE FUNCTION radik_carry_group_answers() RETURNS TABLE (q text, result text)
LANGUAGE sql AS $$
	SELECT q, radik_compare(q, NULL, keys)
	FROM (VALUES
		('SELECT DISTINCT ON (k4 % 997) * FROM radik_ct ORDER BY k4 % 997, f8 DESC',
		 'k4 % 997, f8'),
		('SELECT DISTINCT ON (k4 % 997) id, k4, f8 FROM radik_ct ORDER BY k4 % 997 DESC, f8',
		 'k4 % 997, f8'),
		('SELECT DISTINCT ON (n4 / 100) n4, f8, note FROM radik_ct ORDER BY n4 / 100, f8',
		 'n4 / 100, f8'),
		('SELECT DISTINCT ON (n4 / 100) n4, f8, md5(note) FROM radik_ct '
		 'ORDER BY n4 / 100 DESC NULLS LAST, f8 DESC', 'n4 / 100, f8'),
		('SELECT * FROM (SELECT id, grp, n4, note, row_number() OVER (PARTITION BY grp '
		 'ORDER BY n4 DESC) AS r FROM radik_ct) s WHERE r <= 400', 'grp, n4, r'),
		('SELECT * FROM (SELECT id, k4, note, rank() OVER (PARTITION BY id / 1000 '
		 'ORDER BY k4) AS r FROM radik_ct) s WHERE r <= 2', 'id / 1000, k4, r'))
		AS c(q, keys)
$$;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT radik_carry_outcome('SELECT DISTINCT ON (k4 % 997) * FROM radik_ct ORDER BY k4 % 997, f8 DESC')
	AS groups_from_workers;
SELECT * FROM radik_carry_group_answers();
RESET parallel_leader_participation;
SELECT * FROM radik_carry_group_answers();
SET parallel_leader_participation = off;
-- Rows of about 600 bytes: with work_mem 384kB (768kB of groups' memory) a worker's export has
-- room for the rows of some of its 2999 groups; the others are fetched by TID.
CREATE TABLE radik_ct_wide WITH (parallel_workers = 2) AS
SELECT id, k4, f8, repeat(md5(id::text), 16) AS pad FROM radik_ct;
ANALYZE radik_ct_wide;
SET work_mem = '384kB';
SELECT radik_carry_outcome('SELECT DISTINCT ON (k4 % 2999) * FROM radik_ct_wide ORDER BY k4 % 2999, f8 DESC')
	AS groups_some_carried;
SELECT radik_compare('SELECT DISTINCT ON (k4 % 2999) * FROM radik_ct_wide ORDER BY k4 % 2999, f8 DESC',
					 NULL, 'k4 % 2999, f8') AS groups_some_carried_answer;
SELECT radik_compare('SELECT DISTINCT ON (k4 % 2999) * FROM radik_ct_wide ORDER BY k4 % 2999 DESC, f8',
					 NULL, 'k4 % 2999, f8') AS groups_some_carried_descending;
RESET parallel_leader_participation;
RESET work_mem;
-- The backend copies the rows its own groups keep too.
SELECT radik_carry_outcome('SELECT DISTINCT ON (k4 % 997) * FROM radik_ct ORDER BY k4 % 997, f8 DESC')
	AS groups_with_backend;
SET max_parallel_workers_per_gather = 0;
SELECT radik_carry_outcome('SELECT DISTINCT ON (k4 % 997) * FROM radik_ct ORDER BY k4 % 997, f8 DESC')
	AS groups_serial;
SELECT * FROM radik_carry_group_answers();
-- Each process copies the rows its groups keep as it reads their pages (radik_group_copies.c),
-- within half the groups' memory.  With work_mem 1MB (2MB of groups' memory), the copies of the
-- rows of 2999 groups of 600-byte rows pass that half: the rest are fetched by TID, alone and
-- from workers whose exports have room for some of the copies.  With 6000 groups, the groups and
-- their copies pass the groups' memory together: the copies are given up, every row is fetched,
-- and the groups are not declined.
SET work_mem = '1MB';
SELECT radik_carry_outcome('SELECT DISTINCT ON (k4 % 2999) * FROM radik_ct_wide ORDER BY k4 % 2999, f8 DESC')
	AS groups_copies_limit;
SELECT radik_compare('SELECT DISTINCT ON (k4 % 2999) * FROM radik_ct_wide ORDER BY k4 % 2999, f8 DESC',
					 NULL, 'k4 % 2999, f8') AS groups_copies_limit_answer;
SELECT radik_carry_outcome('SELECT DISTINCT ON (k4 % 6000) * FROM radik_ct_wide ORDER BY k4 % 6000, f8 DESC')
	AS groups_copies_given_up;
SELECT radik_analyzed_scan('SELECT DISTINCT ON (k4 % 6000) * FROM radik_ct_wide ORDER BY k4 % 6000, f8 DESC')
	->> 'Selections Over Memory' AS groups_copies_given_up_over_memory;
SELECT radik_compare('SELECT DISTINCT ON (k4 % 6000) * FROM radik_ct_wide ORDER BY k4 % 6000 DESC, f8',
					 NULL, 'k4 % 6000, f8') AS groups_copies_given_up_answer;
SET max_parallel_workers_per_gather = 2;
SELECT radik_carry_outcome('SELECT DISTINCT ON (k4 % 2999) * FROM radik_ct_wide ORDER BY k4 % 2999, f8 DESC')
	AS groups_copies_limit_parallel;
SELECT radik_compare('SELECT DISTINCT ON (k4 % 2999) * FROM radik_ct_wide ORDER BY k4 % 2999, f8 DESC',
					 NULL, 'k4 % 2999, f8') AS groups_copies_limit_parallel_answer;
RESET work_mem;
DROP TABLE radik_ct_wide;
RESET max_parallel_workers_per_gather;

-- Answers of many rows are returned from copies made in the order returned, a window of rows at
-- a time (batch_row in radik_scan.c): tens of thousands of rows, carried and fetched, in several
-- fetch batches (default work_mem), rows of a group tied at the cut, wide rows (fewer rows per
-- window), and a cursor that turns back and forward again across windows.
SELECT radik_carry_outcome('SELECT * FROM radik_ct ORDER BY f8 DESC LIMIT 60000') AS many_rows;
SELECT radik_compare('SELECT * FROM radik_ct ORDER BY f8 DESC LIMIT 60000') AS many_rows_answer;
SELECT radik_compare('SELECT * FROM radik_ct ORDER BY n4 NULLS FIRST, id LIMIT 50000')
	AS many_rows_two_keys;
SET work_mem = '2MB';
SELECT radik_carry_outcome('SELECT * FROM radik_ct ORDER BY f8 LIMIT 40000') AS many_rows_some_carried;
SELECT radik_compare('SELECT * FROM radik_ct ORDER BY f8 LIMIT 40000') AS many_rows_some_carried_answer;
RESET work_mem;
SELECT w AS workers, radik_compare(format('SELECT * FROM (SELECT id, grp, k4 %% 3 AS d, note, '
	'rank() OVER (PARTITION BY grp ORDER BY k4 %% 3) AS r FROM radik_ct /* %s */) s WHERE r <= 2', w),
	NULL, 'grp, d, r') AS tied_groups
FROM (VALUES (0), (2)) v(w), LATERAL set_config('max_parallel_workers_per_gather', w::text, false);
-- text group and order keys, which the ranking node keeps copies of from the row before
SELECT w AS workers, radik_compare(format('SELECT * FROM (SELECT id, grp::text AS g, '
	'(k4 %% 3)::text COLLATE "C" AS d, rank() OVER (PARTITION BY grp::text '
	'ORDER BY (k4 %% 3)::text COLLATE "C" DESC) AS r FROM radik_ct /* %s */) s WHERE r <= 2', w),
	NULL, 'g, d, r') AS tied_text_groups
FROM (VALUES (0), (2)) v(w), LATERAL set_config('max_parallel_workers_per_gather', w::text, false);
RESET max_parallel_workers_per_gather;
CREATE TABLE radik_ct_wide AS SELECT id, f8, repeat(md5(id::text), 16) AS pad FROM radik_ct;
ALTER TABLE radik_ct_wide SET (parallel_workers = 2);
ANALYZE radik_ct_wide;
SELECT radik_compare('SELECT * FROM radik_ct_wide ORDER BY f8 DESC LIMIT 30000') AS many_wide_rows;
DROP TABLE radik_ct_wide;
SELECT radik_plan_uses_radik('SELECT id, f8, note FROM radik_ct ORDER BY f8 LIMIT 30000')
	AS window_cursor_uses_radik;
SELECT (SELECT array_agg(x) FROM radik_carry_cursor(true,
			'SELECT id, f8, note FROM radik_ct ORDER BY f8 LIMIT 30000', 9000) x) =
	   (SELECT array_agg(x) FROM radik_carry_cursor(false,
			'SELECT id, f8, note FROM radik_ct ORDER BY f8 LIMIT 30000', 9000) x)
	AS window_cursor_same_rows;

DROP FUNCTION radik_carry_group_answers();
DROP FUNCTION radik_carry_cursor(boolean, text, int);
DROP FUNCTION radik_carry_answers();
DROP TABLE radik_ct;
