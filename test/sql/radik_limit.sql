-- radik_limit: LIMIT and OFFSET in every form, against PostgreSQL's own answer (radik_compare in
-- radik_setup.sql: 'ok', the first difference, or 'same error: ...' when both fail alike).
-- radik_t has n = 3013 rows; ORDER BY f8, id fixes the order completely.
LOAD 'radik';

SELECT count(*) AS n FROM radik_t;

-- LIMIT 0, 1, n - 1, n, n + 1, far beyond n, ALL, NULL, expressions; negative: the same error.
SELECT lim, radik_check('id, f8', 'radik_t', 'f8, id', lim) AS result
FROM unnest(ARRAY['LIMIT 0', 'LIMIT 1', 'LIMIT 2', 'LIMIT 3012', 'LIMIT 3013', 'LIMIT 3014',
				  'LIMIT 100000', 'LIMIT 2147483647', 'LIMIT 9223372036854775807',
				  'LIMIT ALL', 'LIMIT NULL', 'LIMIT 2 + 3', 'LIMIT (SELECT 7)',
				  'LIMIT (SELECT max(few) FROM radik_t)', 'LIMIT 4.6', 'LIMIT NULL::int8',
				  'FETCH FIRST 5 ROWS ONLY', 'FETCH FIRST ROW ONLY',
				  'LIMIT -1', 'LIMIT -9223372036854775808', 'LIMIT (SELECT -3)',
				  'LIMIT (SELECT 1 / min(same - 42) FROM radik_t)']) WITH ORDINALITY AS l(lim, n)
ORDER BY n;

-- OFFSET: alone, with LIMIT, up to and past the end, negative (the same error), with LIMIT ALL
-- and LIMIT NULL, and where LIMIT + OFFSET overflows a 64-bit integer.
SELECT lim, radik_check('id, f8', 'radik_t', 'f8, id', lim) AS result
FROM unnest(ARRAY['OFFSET 0', 'OFFSET 5', 'LIMIT 5 OFFSET 0', 'LIMIT 5 OFFSET 1',
				  'LIMIT 10 OFFSET 3000', 'LIMIT 10 OFFSET 3012', 'LIMIT 10 OFFSET 3013',
				  'LIMIT 10 OFFSET 5000', 'OFFSET 3013', 'OFFSET 3012', 'LIMIT 0 OFFSET 10',
				  'LIMIT ALL OFFSET 3000', 'LIMIT NULL OFFSET 2', 'LIMIT 3 OFFSET NULL',
				  'LIMIT 3 OFFSET (SELECT 4)', 'OFFSET 2 ROWS FETCH NEXT 3 ROWS ONLY',
				  'LIMIT 9223372036854775807 OFFSET 10',
				  'LIMIT 10 OFFSET 9223372036854775807',
				  'LIMIT 9223372036854775807 OFFSET 9223372036854775807',
				  'LIMIT 5 OFFSET -1', 'OFFSET -1', 'LIMIT -1 OFFSET -1',
				  'LIMIT 5 OFFSET (SELECT -2)']) WITH ORDINALITY AS l(lim, n)
ORDER BY n;

-- The same with ties on the key (several right answers) and with DESC, NULLS FIRST.
SELECT lim, radik_check('id, few', 'radik_t', 'few DESC', lim, 'few') AS few_desc,
	   radik_check('id, f4', 'radik_t', 'f4 NULLS FIRST', lim, 'f4') AS f4_nulls_first
FROM unnest(ARRAY['LIMIT 1', 'LIMIT 1004', 'LIMIT 1005', 'LIMIT 1006', 'LIMIT 10 OFFSET 1000',
				  'LIMIT 177', 'LIMIT 178', 'LIMIT 5 OFFSET 175', 'OFFSET 3010',
				  'LIMIT ALL']) WITH ORDINALITY AS l(lim, n)
ORDER BY n;

-- A table larger than the engine's first chunk, so that the selection runs over several chunks
-- and drops rows against the running k-th key: k around the sizes where the scan changes how
-- early it pushes the first chunk, heavy ties at the cut (v: ~24 rows per value, f: 100
-- values), 12000 NULLs (n), and several keys whose first key ties across chunks.
CREATE TABLE radik_big AS
SELECT i AS id, (i * 7919) % 5003 AS v, ((i % 100) / 7.0)::float8 AS f,
	   CASE WHEN i % 10 = 0 THEN NULL ELSE (i::int8 * 104729) % 1000003 END AS n
FROM generate_series(1, 120000) i;
ANALYZE radik_big;
SELECT k, radik_check('id, v', 'radik_big', 'v, id', 'LIMIT ' || k) AS v_then_id,
	   radik_check('id, v', 'radik_big', 'v DESC', 'LIMIT ' || k, 'v') AS v_ties,
	   radik_check('id, f', 'radik_big', 'f DESC', 'LIMIT ' || k, 'f') AS f_ties,
	   radik_check('id, f, v', 'radik_big', 'f, v DESC, id', 'LIMIT ' || k) AS f_v_id
FROM unnest(ARRAY[1, 10, 2049, 8193, 65537, 120001]) AS k;
SELECT k, radik_check('id, n', 'radik_big', 'n NULLS FIRST', 'LIMIT ' || k, 'n') AS nulls_first,
	   radik_check('id, n', 'radik_big', 'n DESC NULLS LAST', 'LIMIT ' || k, 'n') AS nulls_last,
	   radik_check('id, n', 'radik_big WHERE v % 3 = 0', 'n, id', 'LIMIT ' || k) AS filtered,
	   radik_check('id, f, v', 'radik_big WHERE v % 3 = 0', 'f, v DESC, id', 'LIMIT ' || k)
	   AS filtered_ties
FROM unnest(ARRAY[1, 12000, 12001, 108001]) AS k;
DROP TABLE radik_big;

-- A table that grew far past what its statistics say (the engine sizes its chunks by them), so
-- that the rows arrive in several full chunks and k can exceed a chunk.
CREATE TABLE radik_grown (id int4, v int4) WITH (autovacuum_enabled = off);
INSERT INTO radik_grown SELECT i, (i * 7919) % 20011 FROM generate_series(1, 1000) i;
ANALYZE radik_grown;
INSERT INTO radik_grown SELECT i, (i * 7919) % 20011 FROM generate_series(1001, 200000) i;
SELECT k, radik_check('id, v', 'radik_grown', 'v DESC, id', 'LIMIT ' || k) AS v_then_id,
	   radik_check('id, v', 'radik_grown', 'v', 'LIMIT ' || k, 'v') AS v_ties
FROM unnest(ARRAY[1, 1000, 70000, 150000]) AS k;
DROP TABLE radik_grown;

-- k larger than the table on a tiny table, and an empty table.
CREATE TABLE radik_tiny (id int4, v float8);
SELECT radik_check('*', 'radik_tiny', 'v', 'LIMIT 10') AS empty_table,
	   radik_check('*', 'radik_tiny', 'v DESC', 'LIMIT 0') AS empty_limit_0,
	   radik_check('*', 'radik_tiny', 'v', 'LIMIT 10 OFFSET 3') AS empty_offset,
	   radik_check('*', 'radik_tiny', 'v', 'LIMIT -1') AS empty_negative;
INSERT INTO radik_tiny VALUES (1, 2.5);
SELECT radik_check('*', 'radik_tiny', 'v', 'LIMIT 10') AS one_row,
	   radik_check('*', 'radik_tiny', 'v', 'LIMIT 10 OFFSET 1') AS one_row_offset;
INSERT INTO radik_tiny VALUES (2, NULL), (3, 'NaN'), (4, -1);
SELECT radik_check('*', 'radik_tiny', 'v NULLS FIRST', 'LIMIT 3') AS four_rows,
	   radik_check('*', 'radik_tiny', 'v DESC', 'LIMIT 1000000') AS k_much_larger;
DROP TABLE radik_tiny;
