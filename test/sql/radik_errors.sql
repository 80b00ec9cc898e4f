-- radik_errors: radik raises an error where PostgreSQL's own plan raises it, and nowhere else.
-- WHERE clauses run in PostgreSQL's order (row-level security's first, then the cheapest; the
-- pseudoconstant ones once, above the scan), each row stopping at the first clause that fails
-- it, on raw column values and through the executor alike, in the backend and in parallel
-- workers; every sort key is computed for every row that passes them.  Each query is compared
-- with radik disabled inside the test (radik_compare: the same rows, or the same SQLSTATE and
-- message).
LOAD 'radik';
SET radik.force = on;
SET radik.gpu_min_rows = 0;

-- Ten rows whose a + 1 overflows (b = 1) and ten whose d + 1 is out of range (b IS NULL).
CREATE TABLE radik_err (a int4, b int4, v float8, d date, s int2, e timestamp);
INSERT INTO radik_err SELECT 2147483647, 1, g, '2020-01-01', 1, '2020-01-01' FROM generate_series(1, 10) g;
INSERT INTO radik_err SELECT 5, NULL, g, '5874897-12-31', 0, '2020-01-01' FROM generate_series(11, 20) g;
ANALYZE radik_err;

SELECT q, radik_compare(q) AS answer
FROM unnest(ARRAY[
	-- run on raw column values: PostgreSQL runs the cheaper clause first, whatever their order
	'SELECT * FROM radik_err WHERE a + 1 > 0 AND b IS NULL ORDER BY v LIMIT 3',
	'SELECT * FROM radik_err WHERE b IS NULL AND a + 1 > 0 ORDER BY v LIMIT 3',
	'SELECT * FROM radik_err WHERE 10 / (a - 2147483647) = 0 AND a = 5 ORDER BY v LIMIT 3',
	'SELECT * FROM radik_err WHERE a + 1 > 0 AND b IS NOT NULL ORDER BY v LIMIT 3',
	-- through the executor: a clause radik does not run natively in the list
	'SELECT * FROM radik_err WHERE abs(a + 1) > 0 AND b IS NULL ORDER BY v DESC LIMIT 3',
	'SELECT * FROM radik_err WHERE (d + 1)::text <> '''' AND b = 1 ORDER BY v LIMIT 3',
	'SELECT * FROM radik_err WHERE (d + 1)::text <> '''' AND b IS NULL ORDER BY v LIMIT 3',
	-- every sort key of every row that passes the quals, the first and the later ones
	'SELECT v FROM radik_err ORDER BY v, d + 1 LIMIT 1',
	'SELECT v FROM radik_err WHERE b = 1 ORDER BY v, d + 1 LIMIT 1',
	'SELECT v FROM radik_err ORDER BY v DESC, 1 / s LIMIT 2',
	'SELECT v FROM radik_err WHERE s = 1 ORDER BY v DESC, 1 / s LIMIT 2',
	'SELECT v FROM radik_err ORDER BY v, e + interval ''300000 years'' * s LIMIT 1',
	'SELECT v FROM radik_err ORDER BY v FETCH FIRST 2 ROWS WITH TIES',
	'SELECT v FROM radik_err WHERE b IS NULL ORDER BY d + 1, v LIMIT 1',
	-- two keys that fail on different rows: the first row read that fails decides, as in
	-- PostgreSQL's scan (here the first row, on the second key: integer out of range)
	'SELECT v FROM radik_err ORDER BY d + 1, a + 1 LIMIT 2',
	'SELECT v FROM radik_err ORDER BY a + 1, d + 1 LIMIT 2'
]) q;

-- The same with parallel workers: 100,000 rows, the failing ones spread over every page.
CREATE TABLE radik_err_big AS
	SELECT CASE WHEN i % 7 = 0 THEN 2147483647 ELSE i END AS a,
		   CASE WHEN i % 7 = 0 THEN 1 END AS b, (i * 7919 % 100003)::float8 AS v,
		   CASE WHEN i % 7 = 0 THEN date '5874897-12-31' ELSE date '2020-01-01' END AS d
	FROM generate_series(1, 100000) i;
ALTER TABLE radik_err_big SET (parallel_workers = 2);
ANALYZE radik_err_big;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT count(*) AS workers_planned
FROM radik_explain('SELECT * FROM radik_err_big WHERE a + 1 > 0 AND b IS NULL ORDER BY v LIMIT 3') line
WHERE line ~ 'Workers Planned: 2';
SELECT q, radik_compare(q) AS answer
FROM unnest(ARRAY[
	'SELECT * FROM radik_err_big WHERE a + 1 > 0 AND b IS NULL ORDER BY v LIMIT 3',
	'SELECT * FROM radik_err_big WHERE 10 / (a - 2147483647) = 0 AND b IS NULL ORDER BY v LIMIT 3',
	'SELECT * FROM radik_err_big WHERE abs(a + 1) > 0 AND b IS NULL ORDER BY v DESC LIMIT 3',
	'SELECT * FROM radik_err_big WHERE a + 1 > 0 ORDER BY v LIMIT 3',
	'SELECT v FROM radik_err_big WHERE b IS NULL ORDER BY v, d + 1 LIMIT 5',
	'SELECT v FROM radik_err_big ORDER BY v, d + 1 LIMIT 5'
]) q;
-- A group key that fails on some rows fails the query, unless WHERE leaves them out: the groups
-- compute it for every row, in each process.
SELECT q, radik_compare(q, NULL, 'g, v') AS answer
FROM unnest(ARRAY[
	'SELECT * FROM (SELECT a + 1 AS g, v, row_number() OVER (PARTITION BY a + 1 ORDER BY v) AS r FROM radik_err_big) s WHERE r <= 1',
	'SELECT * FROM (SELECT a + 1 AS g, v, row_number() OVER (PARTITION BY a + 1 ORDER BY v) AS r FROM radik_err_big WHERE b IS NULL) s WHERE r <= 1',
	'SELECT DISTINCT ON (d + 1) d + 1 AS g, v FROM radik_err_big ORDER BY d + 1, v DESC',
	'SELECT DISTINCT ON (d + 1) d + 1 AS g, v FROM radik_err_big WHERE b IS NULL ORDER BY d + 1, v DESC'
]) q;
RESET min_parallel_table_scan_size;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET max_parallel_workers_per_gather;

-- Once k rows are known, a plain column key is compared before a WHERE clause that PostgreSQL's
-- evaluator runs, and the clause is left out for rows whose key cannot be selected: only where
-- its errors and effects cannot depend on the row (leakproof functions; LIKE against a constant
-- pattern).  So a clause that fails on a row late in the table, beyond the k-th key, still
-- fails as in PostgreSQL; a malformed LIKE pattern fails on the first row; a volatile clause is
-- called for every row, as PostgreSQL calls it; and the answers are PostgreSQL's.
CREATE SEQUENCE radik_err_calls;
CREATE FUNCTION radik_err_count_call() RETURNS boolean LANGUAGE sql VOLATILE
	AS $$ SELECT nextval('radik_err_calls') > 0 $$;
CREATE TABLE radik_err_text AS
	SELECT i AS id, md5(i::text) AS name, (i * 7919 % 100003)::float8 AS v
	FROM generate_series(1, 100000) i;
ANALYZE radik_err_text;
SELECT q, radik_compare(q) AS answer
FROM unnest(ARRAY[
	'SELECT * FROM radik_err_text WHERE name LIKE ''a%'' ORDER BY v DESC LIMIT 3',
	'SELECT * FROM radik_err_text WHERE name NOT LIKE ''%1%'' AND id > 10 ORDER BY v LIMIT 5',
	'SELECT * FROM radik_err_text WHERE name ILIKE ''%B_'' OR id IS NULL ORDER BY v LIMIT 5',
	'SELECT * FROM radik_err_text WHERE name LIKE ''%'' AND 10 / (id - 99999) > -100 ORDER BY v DESC LIMIT 3',
	'SELECT * FROM radik_err_text WHERE name LIKE ''7\'' ORDER BY v DESC LIMIT 3'
]) q;
SELECT (radik_analyzed_scan('SELECT * FROM radik_err_text WHERE name NOT LIKE ''a%'' ORDER BY v DESC LIMIT 3')
		->> 'Rows Removed by Filter')::int8 < (SELECT count(*) FROM radik_err_text WHERE name LIKE 'a%') / 2
	AS clause_left_out_for_most_rows;
SELECT setval('radik_err_calls', 1, false);
SELECT radik_compare('SELECT v FROM radik_err_text WHERE radik_err_count_call() ORDER BY v LIMIT 3')
	AS volatile_clause;
SELECT last_value = 2 * (SELECT count(*) FROM radik_err_text) AS called_for_every_row_twice
FROM radik_err_calls;
DROP FUNCTION radik_err_count_call();
DROP SEQUENCE radik_err_calls;
DROP TABLE radik_err_text;

-- Row-level security: the policy's clause runs before the query's own (a + 1 is not
-- leakproof), so the rows it hides never reach a clause that would fail on them.
CREATE ROLE regress_radik_errors;
GRANT SELECT ON radik_err TO regress_radik_errors;
ALTER TABLE radik_err ENABLE ROW LEVEL SECURITY;
CREATE POLICY radik_err_b_null ON radik_err USING (b IS NULL);
SET ROLE regress_radik_errors;
SELECT q, radik_compare(q) AS answer
FROM unnest(ARRAY[
	'SELECT * FROM radik_err WHERE a + 1 > 0 ORDER BY v LIMIT 3',
	'SELECT * FROM radik_err WHERE abs(a + 1) > 0 ORDER BY v LIMIT 3'
]) q;
RESET ROLE;
DROP POLICY radik_err_b_null ON radik_err;
ALTER TABLE radik_err DISABLE ROW LEVEL SECURITY;

-- A pseudoconstant clause (a parameter's only) runs once, in a Result above radik's node, as
-- above PostgreSQL's scan: even over an empty table its error is raised.
CREATE TABLE radik_err_empty (v float8);
-- Each statement is prepared twice, its generic plan made once with radik and once without.
PREPARE radik_err_gated(int4) AS SELECT v FROM radik_err_empty WHERE 1 / $1 > 0 ORDER BY v LIMIT 3;
PREPARE radik_err_gated_pg(int4) AS SELECT v FROM radik_err_empty WHERE 1 / $1 > 0 ORDER BY v LIMIT 3;
PREPARE radik_err_gated_rows(int4) AS SELECT * FROM radik_err WHERE $1 > 0 ORDER BY v LIMIT 3;
PREPARE radik_err_gated_rows_pg(int4) AS SELECT * FROM radik_err WHERE $1 > 0 ORDER BY v LIMIT 3;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE radik_err_gated_rows(1);
SELECT format(q, '') AS q, radik_compare(format(q, ''), format(q, '_pg')) AS answer
FROM unnest(ARRAY[
	'EXECUTE radik_err_gated%s(0)',
	'EXECUTE radik_err_gated%s(1)',
	'EXECUTE radik_err_gated_rows%s(1)',
	'EXECUTE radik_err_gated_rows%s(0)'
]) q;
RESET plan_cache_mode;
DEALLOCATE ALL;

-- EXPLAIN names the columns of radik's output as it names a Sort's: the conditions, filters and
-- sort keys of radik's plan (here a hash join's condition above radik's node) read as in
-- PostgreSQL's own plan, as a set of lines.
CREATE FUNCTION radik_err_plan_lines(stmt text, use_radik boolean) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	lines text[] := '{}';
BEGIN
	PERFORM set_config('radik.enabled', CASE WHEN use_radik THEN 'on' ELSE 'off' END, true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || stmt LOOP
		IF line ~ '(Cond|Filter|Sort Key):' THEN
			lines := lines || btrim(line);
		END IF;
	END LOOP;
	PERFORM set_config('radik.enabled', 'on', true);
	RETURN (SELECT string_agg(l, E'\n' ORDER BY l) FROM unnest(lines) l);
END $$;
SELECT radik_err_plan_lines(q, true) AS radik_lines,
	   radik_err_plan_lines(q, true) = radik_err_plan_lines(q, false) AS same_as_postgres
FROM unnest(ARRAY[
	'SELECT * FROM (SELECT * FROM radik_err ORDER BY v LIMIT 10) s, radik_err t WHERE s.a + 1 = t.b',
	'SELECT * FROM (SELECT a, v FROM radik_err WHERE b IS NULL ORDER BY v LIMIT 10) s WHERE s.a > 1'
]) q;
DROP FUNCTION radik_err_plan_lines(text, boolean);

-- min() and max() over a partitioned table keep PostgreSQL's index plan under radik.force (the
-- planner reads them as ORDER BY ... LIMIT 1 over the partitions, where radik could answer).
CREATE TABLE radik_err_parted (x int4, v float8) PARTITION BY RANGE (x);
CREATE TABLE radik_err_parted_1 PARTITION OF radik_err_parted FOR VALUES FROM (0) TO (50000);
CREATE TABLE radik_err_parted_2 PARTITION OF radik_err_parted FOR VALUES FROM (50000) TO (100000);
INSERT INTO radik_err_parted SELECT i, i * 0.5 FROM generate_series(0, 99999) i;
CREATE INDEX ON radik_err_parted (x);
ANALYZE radik_err_parted;
SELECT count(*) FILTER (WHERE line ~ 'Index Only Scan') AS index_scans,
	   count(*) FILTER (WHERE line ~ 'RadiK') AS radik_nodes
FROM radik_explain('SELECT min(x), max(x) FROM radik_err_parted') line;
SELECT min(x) AS radik_min, max(x) AS radik_max FROM radik_err_parted \gset
SET radik.enabled = off;
SELECT min(x) = :radik_min AND max(x) = :radik_max AS same_as_postgres FROM radik_err_parted;
RESET radik.enabled;
-- radik still answers the same query's ORDER BY ... LIMIT over the partitions
SELECT radik_compare('SELECT x FROM radik_err_parted WHERE x IS NOT NULL ORDER BY x DESC LIMIT 1') AS answer;

DROP TABLE radik_err, radik_err_big, radik_err_empty, radik_err_parted;
DROP ROLE regress_radik_errors;
