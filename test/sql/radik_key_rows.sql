-- radik_key_rows: the best rows of each group made from their keys (radik_key_rows.h), where the
-- query reads nothing of a row but its group key and its sort key.  Every answer is compared with
-- PostgreSQL's own (radik_compare in radik_setup.sql).  The keys that do not tell their row's
-- value (a float zero, -0 or +0, and NaN, as sort keys and as group keys) make radik fetch those
-- rows among the others made from keys: rank() and dense_rank() give every row tied at a cut the
-- same value, so their answers are checked as rows, as text, where -0 and 0 differ.  Alone and
-- with parallel workers (which then send no rows, only keys), over several fetch batches, and in
-- a scrollable cursor.  EXPLAIN's "Rows Carried" is absent where the rows are made from keys.
LOAD 'radik';
SET radik.force = on;

-- 30000 rows in 300 groups (g, NULL for some rows); v float8 with -0, +0, NaN and NULL in some
-- groups, its other values >= 0 (so -0 and +0 come first ascending, NULL and NaN descending); d
-- of ten values (heavy ties); fg a float group key with -0, +0, NaN and NULL groups; note text.
CREATE TABLE radik_kr (id int, g int, v float8, d int, fg float4, note text);
INSERT INTO radik_kr
SELECT i, CASE WHEN i % 997 = 0 THEN NULL ELSE i % 300 END,
	CASE i % 1000 WHEN 1 THEN '-0' WHEN 2 THEN '0' WHEN 3 THEN 'NaN' WHEN 4 THEN NULL
		ELSE ((i::int8 * 7919) % 100003)::float8 / 7 END,
	(i * 31) % 10,
	CASE i % 7 WHEN 0 THEN '-0' WHEN 1 THEN '0' WHEN 2 THEN 'NaN' WHEN 3 THEN NULL
		ELSE (i % 50)::float4 END,
	'row ' || i
FROM generate_series(1, 30000) i;
ALTER TABLE radik_kr SET (parallel_workers = 2);
ANALYZE radik_kr;

-- How many rows PostgreSQL's own plan returns for q.
CREATE FUNCTION radik_pg_count(q text) RETURNS bigint
LANGUAGE plpgsql SET radik.enabled = off AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO n;
	RETURN n;
END $$;

-- The answers: keys is NULL where the order is complete, and base (the same query, run by
-- PostgreSQL) where the rows as text are the same whatever the order of ties.
CREATE FUNCTION radik_kr_answers() RETURNS TABLE (q text, result text)
LANGUAGE sql AS $$
	SELECT q, radik_compare(q, NULL, keys, CASE WHEN same_rows THEN q END)
	FROM (VALUES
		('SELECT * FROM (SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_kr) s WHERE r <= 3',
		 'g, v, r', true),
		('SELECT * FROM (SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM radik_kr) s WHERE r <= 3',
		 'g, v, r', true),
		('SELECT * FROM (SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v DESC NULLS LAST) AS r FROM radik_kr) s WHERE r < 3',
		 'g, v, r', true),
		('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_kr) s WHERE r <= 2',
		 'g, v, r', false),
		('SELECT * FROM (SELECT g, d, dense_rank() OVER (PARTITION BY g ORDER BY d DESC) AS r FROM radik_kr) s WHERE r <= 2',
		 'g, d, r', true),
		('SELECT * FROM (SELECT g, floor(v / 1000) AS b, rank() OVER (PARTITION BY g ORDER BY floor(v / 1000) DESC) AS r FROM radik_kr) s WHERE r <= 1',
		 'g, b, r', true),
		('SELECT * FROM (SELECT fg, id, rank() OVER (PARTITION BY fg ORDER BY id DESC) AS r FROM radik_kr) s WHERE r <= 2',
		 NULL, false),
		('SELECT * FROM (SELECT fg, v, rank() OVER (PARTITION BY fg ORDER BY v) AS r FROM radik_kr) s WHERE r <= 2',
		 'fg, v, r', true),
		('SELECT * FROM (SELECT id / 50 AS b, v, row_number() OVER (PARTITION BY id / 50 ORDER BY v) AS r FROM radik_kr) s WHERE r <= 1',
		 'b, v, r', false),
		('SELECT * FROM (SELECT id / 50 AS b, v, rank() OVER (PARTITION BY id / 50 ORDER BY v DESC) AS r FROM radik_kr) s WHERE r = 1',
		 'b, v, r', true),
		('SELECT DISTINCT ON (g) g, v FROM radik_kr ORDER BY g, v', 'g, v', true),
		('SELECT DISTINCT ON (g) g, v FROM radik_kr ORDER BY g DESC, v DESC', 'g, v', true),
		('SELECT DISTINCT ON (fg) fg, id FROM radik_kr ORDER BY fg DESC NULLS LAST, id', NULL, false),
		('SELECT * FROM (SELECT g, v, note, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_kr) s WHERE r <= 3',
		 'g, v, r', true),
		-- rows tied at a cut that moves: the first half of the table holds only the key 5
		('SELECT * FROM (SELECT g, CASE WHEN id <= 15000 THEN 5 ELSE id % 3 END AS m, rank() OVER (PARTITION BY g ORDER BY CASE WHEN id <= 15000 THEN 5 ELSE id % 3 END) AS r FROM radik_kr) s WHERE r <= 2',
		 'g, m, r', true),
		('SELECT * FROM (SELECT g, CASE WHEN id <= 15000 THEN 5 ELSE id % 3 END AS m, dense_rank() OVER (PARTITION BY g ORDER BY CASE WHEN id <= 15000 THEN 5 ELSE id % 3 END DESC) AS r FROM radik_kr) s WHERE r <= 2',
		 'g, m, r', true),
		-- rows tied at the cut in float groups: the -0/+0 and NaN groups' rows fetched among them
		('SELECT * FROM (SELECT fg, d, rank() OVER (PARTITION BY fg ORDER BY d DESC) AS r FROM radik_kr) s WHERE r <= 1',
		 'fg, d, r', true)) AS c(q, keys, same_rows)
$$;

-- Made from keys, and not where the query reads another column (note).
SELECT radik_carry_outcome('SELECT * FROM (SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_kr) s WHERE r <= 3') AS rank_keys,
	radik_carry_outcome('SELECT DISTINCT ON (fg) fg, id FROM radik_kr ORDER BY fg, id') AS distinct_keys,
	radik_carry_outcome('SELECT * FROM (SELECT g, v, note, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_kr) s WHERE r <= 3')
		IN ('all carried', 'some carried', 'none carried') AS with_note_fetched_or_carried;
SELECT * FROM radik_kr_answers();

-- Runs of rows equal in every column (rank() over d's ten values): the numbering node returns
-- the row before again without making it where the output is the same, not where a column of
-- the output is volatile or row_number(), which differ from row to row.
SELECT radik_compare('SELECT count(*) = count(DISTINCT x) AS own_values FROM (SELECT g, d, rank() OVER (PARTITION BY g ORDER BY d DESC) AS r, random() AS x FROM radik_kr) s WHERE r <= 3') AS volatile_column_per_row,
	radik_compare('SELECT * FROM (SELECT row_number() OVER w AS n, g, d, rank() OVER w AS r FROM radik_kr WINDOW w AS (PARTITION BY g ORDER BY d DESC)) s WHERE r <= 1') AS rank_with_row_number;

-- Rows tied at a group's cut that are made from their keys are counted, not kept: a run of them
-- is one entry, returned as its rows, in a scrollable cursor (which keeps the rows it has read)
-- and in a node rescanned.  "Rows Sent" counts the rows.
SELECT radik_cursor_moves('SELECT * FROM (SELECT g, d, rank() OVER (PARTITION BY g ORDER BY d DESC) AS r FROM radik_kr) s WHERE r <= 1', true, true) =
	radik_cursor_moves('SELECT * FROM (SELECT g, d, rank() OVER (PARTITION BY g ORDER BY d DESC) AS r FROM radik_kr) s WHERE r <= 1', false, true) AS counted_cursor_walk;
SELECT (radik_analyzed_scan(q) ->> 'Rows Sent')::numeric = radik_pg_count(q) AS counted_rows_sent
FROM (VALUES ('SELECT * FROM (SELECT g, d, rank() OVER (PARTITION BY g ORDER BY d DESC) AS r FROM radik_kr) s WHERE r <= 3')) AS c(q);
SET enable_material = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT radik_compare('SELECT n, x.g, x.d, x.r FROM (VALUES (1), (2), (3)) v(n) LEFT JOIN (SELECT * FROM (SELECT g, d, rank() OVER (PARTITION BY g ORDER BY d DESC) AS r FROM radik_kr) s WHERE r <= 1) x ON x.g % 7 = n ORDER BY n, x.g') AS counted_rows_rescanned;
RESET enable_material;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- EXPLAIN ANALYZE counts every row the grouped node returns, also those the numbering node
-- takes from its keys without the executor: as many as PostgreSQL's answer has (rank() <= 3
-- cuts no row the groups keep), with rows fetched among them (v's -0, +0 and NaN).
SELECT (radik_analyzed_scan(q) ->> 'Actual Rows')::numeric = radik_pg_count(q) AS grouped_rows_counted
FROM (VALUES
	('SELECT * FROM (SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_kr) s WHERE r <= 3'),
	('SELECT * FROM (SELECT g, d, rank() OVER (PARTITION BY g ORDER BY d DESC) AS r FROM radik_kr) s WHERE r <= 3')) AS c(q);

-- The NULL group right after the group of the smallest int4, whose group bits are those of the
-- NULL group: two partitions, each numbered from 1.  Likewise NULL sort keys (o) right before
-- the smallest int4, whose key is a NULL key's: not peers.
CREATE TABLE radik_kr_edge (g int, v float8, o int);
INSERT INTO radik_kr_edge
SELECT CASE WHEN i % 2 = 0 THEN NULL ELSE -2147483648 END, i,
	CASE WHEN i % 10 < 2 THEN NULL WHEN i % 10 < 6 THEN -2147483648 ELSE i END
FROM generate_series(1, 40) i;
ANALYZE radik_kr_edge;
SELECT radik_carry_outcome('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_kr_edge) s WHERE r <= 2') AS edge_keys,
	radik_compare('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_kr_edge) s WHERE r <= 2') AS null_group_after_smallest,
	radik_compare('SELECT * FROM (SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM radik_kr_edge) s WHERE r <= 3') AS null_group_rank;
SELECT radik_carry_outcome('SELECT * FROM (SELECT g, o, rank() OVER (PARTITION BY g ORDER BY o NULLS FIRST) AS r FROM radik_kr_edge) s WHERE r <= 3') AS edge_order_keys,
	radik_compare('SELECT * FROM (SELECT g, o, rank() OVER (PARTITION BY g ORDER BY o NULLS FIRST) AS r FROM radik_kr_edge) s WHERE r <= 3', NULL, 'g, o, r') AS null_keys_before_smallest,
	radik_compare('SELECT * FROM (SELECT g, o, dense_rank() OVER (PARTITION BY g ORDER BY o NULLS FIRST) AS r FROM radik_kr_edge) s WHERE r <= 2', NULL, 'g, o, r') AS null_keys_dense_rank;
DROP TABLE radik_kr_edge;

-- Many rows, over several fetch batches (at least 1000 rows each), the float groups' rows among
-- them fetched: every row of the -0/+0 and NaN groups, and few of the others.
SET work_mem = '1MB';
SELECT radik_compare('SELECT * FROM (SELECT fg, id, rank() OVER (PARTITION BY fg ORDER BY id) AS r FROM radik_kr) s WHERE r <= 5000') AS many_rows;
SELECT radik_compare('SELECT * FROM (SELECT fg, id, rank() OVER (PARTITION BY fg ORDER BY id DESC) AS r FROM radik_kr) s WHERE r <= 5000') AS many_rows_descending;
RESET work_mem;

-- A scrollable cursor over rows made from keys and rows fetched, in both directions.
SELECT radik_cursor_moves('SELECT * FROM (SELECT fg, id, rank() OVER (PARTITION BY fg ORDER BY id) AS r FROM radik_kr) s WHERE r <= 2', true, true) =
	radik_cursor_moves('SELECT * FROM (SELECT fg, id, rank() OVER (PARTITION BY fg ORDER BY id) AS r FROM radik_kr) s WHERE r <= 2', false, true) AS cursor_walk;
-- The grouped node rescanned without a new selection (the inner side of a nested loop), over
-- groups of about ten rows tied at the cut in descending order: each row's group is counted from
-- the row asked about before, which is then the last row.
SET enable_material = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT radik_compare('SELECT n, x.g, x.d FROM (VALUES (1), (2), (3)) v(n) LEFT JOIN (SELECT DISTINCT ON (g) g, d FROM radik_kr ORDER BY g DESC, d) x ON x.g % 7 = n ORDER BY n, x.g') AS rescanned_groups;
-- (three scans of the node, one selection of the table's 30000 rows)
SELECT bool_or(line ~ 'Custom Scan \(RadiK Top-K\).*loops=3') AS scanned_three_times,
	bool_or(line ~ 'Rows Scanned: 30000$') AS selected_once
FROM radik_explain('SELECT n, x.g, x.d FROM (VALUES (1), (2), (3)) v(n) LEFT JOIN (SELECT DISTINCT ON (g) g, d FROM radik_kr ORDER BY g DESC, d) x ON x.g % 7 = n ORDER BY n, x.g', true) line;
RESET enable_material;
RESET enable_hashjoin;
RESET enable_mergejoin;

-- With parallel workers.
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT radik_carry_outcome('SELECT * FROM (SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_kr) s WHERE r <= 3') AS parallel_rank_keys;
SELECT * FROM radik_kr_answers();
SET work_mem = '1MB';
SELECT radik_compare('SELECT * FROM (SELECT fg, id, rank() OVER (PARTITION BY fg ORDER BY id) AS r FROM radik_kr) s WHERE r <= 5000') AS parallel_many_rows;
RESET work_mem;
RESET max_parallel_workers_per_gather;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
RESET min_parallel_table_scan_size;

DROP FUNCTION radik_kr_answers();
DROP FUNCTION radik_pg_count(text);
DROP TABLE radik_kr;
