-- radik_native_qual: WHERE clauses run on raw column values (radik_native_qual.c).  Every answer
-- is compared with PostgreSQL's (radik_compare in radik_setup.sql), errors included, and
-- EXPLAIN VERBOSE shows which quals ran natively, so a qual that silently fell back to the
-- executor would show here.
LOAD 'radik';
SET radik.force = on;

-- Which quals are native: comparisons and integer arithmetic over numeric columns and
-- constants (mixed integer widths too), IS [NOT] NULL; not text, not functions, not OR.
SELECT q, line
FROM unnest(ARRAY['i4 > 0', 'id % 10 <> 0 AND f4 IS NOT NULL', 'f4 < f8', 'i2 < i8 - 3',
				  't > ''12:00''', 'abs(i4) > 5', 'i4 > 0 OR i2 > 0']) AS q,
	 radik_plan_lines(format('SELECT id FROM radik_t WHERE %s ORDER BY f8 LIMIT 3', q),
					  '(Native Quals|Workers Planned)') AS line;

-- The answers, against PostgreSQL's: comparisons of every supported type and mixed integer
-- widths, NULLs, NaN, -0 and infinities (radik_t has them all), arithmetic, IS [NOT] NULL.
-- (radik_t's extreme values are in rows 3001-3013: "id <= 3000 AND" keeps them from the
-- arithmetic, which would overflow there, as the next query shows.)
SELECT q, radik_compare(format('SELECT id, i2, i4, i8, f4, f8 FROM radik_t WHERE %s ' ||
							   'ORDER BY f8 DESC, id LIMIT 40', q)) AS result
FROM unnest(ARRAY[
	'i4 > 0', 'i2 <= -1', 'i8 = 0', 'i4 <> 1', 'i2 < i4', 'i8 >= i2', 'i4 = i8',
	'f4 > 0.5::float4', 'f8 <= ''1000''::float8', 'f4 = ''NaN''::float4',
	'f8 <> ''NaN''::float8', 'f4 >= ''-0''::float4', 'f8 = 0::float8', 'f4 < f8',
	'f8 = ''Infinity''::float8', 'f4 > ''-Infinity''::float4',
	'i4 % 7 = 3', 'i8 % 1000 <> 0', 'i2 % -1 = 0', 'i4 % -1 = 0', '(i4 + 5) * 2 > 100',
	'i8 / 3 > 0', 'i4 - i2 < 0', 'i2 / -1 < 0', 'id % 10 <> 0 AND grp > 1',
	'id <= 3000 AND i2 < i8 - 3', 'id <= 3000 AND i2 * i4 > 1000', 'id <= 3000 AND i8 + i2 < 0',
	'id <= 3000 AND i2 <> 0 AND i4 / i2 > 1', 'id <= 3000 AND i8 - i4 * 2 >= 0',
	'i2 < i8 - 3',
	'i8 IS NULL', 'f4 IS NOT NULL AND i2 > 0', 'nothing IS NULL AND same = 42',
	'i4 IS NOT NULL AND i4 % 2 = 0 AND f8 > 0::float8']) AS q;

-- Errors stay PostgreSQL's: the row that would overflow or divide by zero goes to the executor,
-- which raises the same error; a clause before it that is false for every row keeps it away.
SELECT q, radik_compare(format('SELECT id FROM radik_t WHERE %s ORDER BY f8, id LIMIT 5', q))
	AS result
FROM unnest(ARRAY[
	'i4 * 1000000 > 0', 'i8 + i8 > 0', 'i8 * 2 < 0', 'i4 / (few - few) > 0', 'i8 * i4 > 0',
	'i2 % (few - few) = 0', 'i2 * i2 > 0', 'i8 - 9223372036854775807 < 0 AND i8 * 3 > 0',
	'id < 0 AND i4 * 1000000 > 0']) AS q;

-- Division and remainder by a constant run as a multiplication when the dividend fits 32 bits
-- (radik_native_qual.c): every row of dividends around the edges (signs, 2^31, 2^32, the types'
-- extremes) against every kind of divisor (small, large, negative, 1, -1, past 32 bits), with a
-- LIMIT that takes every matching row, so a single wrong row shows.
CREATE TABLE radik_div AS
SELECT row_number() OVER () AS id, a::int8 AS a8, CASE WHEN abs(a) <= 2147483647 THEN a::int4 END AS a4,
	CASE WHEN abs(a) <= 32767 THEN a::int2 END AS a2
FROM (SELECT unnest(ARRAY[0, 1, -1, 2, -2, 3, -3, 6, -6, 7, -7, 9, 10, -10, 11, 99, -99, 100,
	12345, -12345, 32767, -32767, 65535, 65536, 999999, -1000003, 2147483646, 2147483647,
	-2147483647, 4294967294, 4294967295, -4294967295, 4294967296, -4294967296,
	9223372036854775805, -9223372036854775805]::int8[]) + d AS a
	  FROM generate_series(-2, 2) d) v;
ANALYZE radik_div;
SELECT q, radik_compare(format('SELECT id, a8, a4, a2 FROM radik_div WHERE %s ORDER BY a8, id LIMIT 1000', q))
	AS result
FROM unnest(ARRAY['a8 % 7 = 3', 'a8 % 7 = -3', 'a8 % 10 <> 0', 'a8 % -7 = 1', 'a8 % 2 = 0',
	'a8 / 7 > 10', 'a8 / -7 < -10', 'a8 / 3 = 715827882', 'a8 / 1000003 = 0',
	'a8 % 4294967295 = 1', 'a8 / 4294967295 = 1', 'a8 % 4294967296 = 0', 'a8 / -4294967295 < 0',
	'a8 % 2147483647 = 0', 'a8 / 1 > 0', 'a8 % 1 = 0', 'a8 / -1 < 0', 'a8 % -1 = 0',
	'a4 % 7 = 3', 'a4 / 7 < -10', 'a4 % -10 = -9', 'a4 / 65536 = 1', 'a4 / -2 > 5',
	'a2 % 7 = -2', 'a2 / 100 = 327', 'a2 / -3 = 2', 'a2 % 32767 = 0',
	'(a8 % 10) / 3 = 1', 'a4 % 3 = 2 AND a8 / 5 > 0']) AS q;
DROP TABLE radik_div;

-- Rows without NULLs take the one-loop path for clauses of the shape "column op constant" or
-- "(column arith constant) op constant" (run_simple_page); a tuple with NULLs, an overflow or a
-- wide dividend sends its page to the node-by-node path.  radik_nn has no NULL at all: every
-- integer width around its extremes, floats with NaN, infinities and -0; its last pages hold a
-- few rows with a NULL, and rows whose arithmetic overflows.
CREATE TABLE radik_nn AS
SELECT i AS id, ((i * 37) % 65535 - 32767)::int2 AS i2,
	((i::int8 * 7919) % 4294967295 - 2147483647)::int4 AS i4,
	(i::int8 * 2654435761 * CASE WHEN i % 2 = 0 THEN -1 ELSE 1 END) AS i8,
	(CASE i % 50 WHEN 0 THEN 'NaN' WHEN 1 THEN '-0' WHEN 2 THEN 'Infinity'
		ELSE ((i * 13) % 1000 - 500)::text END)::float4 AS f4,
	(CASE i % 70 WHEN 0 THEN '-Infinity' WHEN 1 THEN '0' ELSE ((i * 17) % 997)::text END)::float8 AS f8
FROM generate_series(1, 6000) i;
INSERT INTO radik_nn VALUES (6001, 32767, 2147483647, 9223372036854775807, 1, 1),
	(6002, -32768, -2147483648, -9223372036854775808, -1, -1), (6003, NULL, 5, 5, 5, 5);
ANALYZE radik_nn;
SELECT q, radik_compare(format('SELECT id, i2, i4, i8, f4, f8 FROM radik_nn WHERE %s ' ||
							   'ORDER BY id LIMIT 7000', q)) AS result
FROM unnest(ARRAY[
	'i4 > 0', '0 < i4', '100 >= i2', '-5 = i2 % 10', 'i8 % 10 <> 0', 'i4 % 10 <> 0',
	'i2 / 7 < -100', 'i4 / -1000 >= 5', 'i8 / 3 > 0', 'i8 % 4294967296 = 0', 'i4 + 1 > 0',
	'i2 - 10 < 0', 'i4 * 2 <> 0', 'i8 * 2 < 0', 'i2 * 1000 > 0', 'i4 % 0 = 0', 'i2 / 0 = 1',
	'f4 > 0.5::float4', '''NaN''::float4 = f4', 'f4 <> ''-0''::float4', 'f8 < 100::float8',
	'f8 = ''-Infinity''::float8', 'id < 6001 AND i4 * 2 <> 0', 'i4 > 0 AND i2 < 0',
	'i8 % 3 = 1 AND f4 > 0::float4 AND i2 <> 7', 'i4 % 10 <> 0 AND id <= 6002']) AS q;
DROP TABLE radik_nn;

-- LIKE and NOT LIKE against a constant pattern of literal text and % run natively on text and
-- varchar columns (radik_native_like.c) where the key is an expression; patterns with _, ILIKE
-- and other operators go to the executor, and so do LIKEs where the key is a column, which is
-- then read first: the LIKE runs only on rows the key may select.  radik_like's strings: empty,
-- short, multibyte, with %, _ and \ in them, repeated pieces, values stored compressed or
-- TOASTed (which the executor matches), NULLs.
CREATE DOMAIN radik_like_text AS text;
CREATE TABLE radik_like (id int4, s text, vc varchar(40), d radik_like_text, n int4);
INSERT INTO radik_like
SELECT i, CASE WHEN i % 23 = 0 THEN NULL ELSE w END, left(w, 40), w, i % 7
FROM generate_series(1, 3000) i,
	 LATERAL (SELECT (ARRAY['', 'a', 'ab', 'abc', 'ba', 'aXb', 'a%b', 'a_b', 'a\b', 'über',
						   'Über', 'naïve', '日本語テキスト', 'abab', 'ababab', 'xyz abc xyz',
						   'ABC'])[1 + i % 17] ||
			 CASE WHEN i % 3 = 0 THEN md5(i::text) WHEN i % 3 = 1 THEN 'ab' ELSE '' END AS w) v;
INSERT INTO radik_like
SELECT 3000 + i, repeat('ab', 3000) || i, 'x', 'x', i % 7 FROM generate_series(1, 20) i;
INSERT INTO radik_like
SELECT 3100 + i, (SELECT string_agg(md5(i::text || j), '') FROM generate_series(1, 200) j) ||
	'tail', 'y', 'y', i % 7
FROM generate_series(1, 20) i;
ANALYZE radik_like;
SELECT q, k, line
FROM unnest(ARRAY['s LIKE ''a%''', 'vc NOT LIKE ''%b''', 'd LIKE ''%ab%''',
				  's COLLATE "C" LIKE ''a%b'' AND n > 2', 's LIKE ''a_b''', 's ILIKE ''a%''',
				  's LIKE ''a\''']) AS q,
	 unnest(ARRAY['n * 2', 'n']) AS k,
	 radik_plan_lines(format('SELECT id FROM radik_like WHERE %s ORDER BY %s LIMIT 3', q, k),
					  'Native Quals') AS line;
CREATE TEMP TABLE radik_like_results AS
SELECT q, radik_compare(format('SELECT id, s FROM radik_like WHERE %s ORDER BY n * 2, id LIMIT 4000',
							   q)) AS result
FROM unnest(ARRAY['', '%', '%%', 'a', 'ab', 'a%', '%a', '%a%', 'ab%', '%ab', 'ab%ab', 'a%b',
				  '%b%a%', 'ab%b%ab', 'abab%ab', '%ab%ab%ab%', 'ab%%', '%%ab', 'a\%b', 'a\_b',
				  'a\\b', 'a\%%', '%\%%', '\a%', 'ü%', 'Ü%', '%ï%', '日本%', '%テキスト%', '%e',
				  '%tail', 'abab%', 'über', 'aXb', 'xyz abc xyz', 'x%z', '%c xyz', 'ABC%', 'a_b',
				  '%_', 'a\']) AS pattern,
	 unnest(ARRAY[format('s LIKE %L', pattern), format('s NOT LIKE %L', pattern),
				  format('vc LIKE %L AND n <> 3', pattern), format('d NOT LIKE %L', pattern)]) AS q;
SELECT count(*) AS checks, count(*) FILTER (WHERE result <> 'ok') AS not_ok FROM radik_like_results;
-- (a pattern ending in its escape character is an error, PostgreSQL's, in both plans)
SELECT q, result FROM radik_like_results WHERE result <> 'ok' ORDER BY q;
DROP TABLE radik_like_results, radik_like;
DROP DOMAIN radik_like_text;

-- In a parallel plan the workers run the native quals too.
CREATE TABLE radik_nq AS SELECT t.id + 10000 * copy AS id, i2, i4, i8, f4, f8
FROM radik_t t, generate_series(0, 7) copy;
ALTER TABLE radik_nq SET (parallel_workers = 2);
ANALYZE radik_nq;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT radik_plan_lines('SELECT id FROM radik_nq ' ||
	'WHERE i8 % 3 = 1 AND f4 > 0::float4 ORDER BY i4 DESC LIMIT 9', '(Native Quals|Workers Planned)');
SELECT radik_compare('SELECT id, i4 FROM radik_nq WHERE i8 % 3 = 1 AND f4 > 0::float4 ' ||
					 'ORDER BY i4 DESC, id LIMIT 9') AS parallel_result;
SELECT radik_compare('SELECT id FROM radik_nq WHERE i4 * 1000000 > 0 ORDER BY i4 LIMIT 9')
	AS parallel_error;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET min_parallel_table_scan_size;
DROP TABLE radik_nq;
RESET radik.force;
