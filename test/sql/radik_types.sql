-- radik_types: every supported key type, in every direction and NULL placement, against
-- PostgreSQL's own answer (radik_compare in radik_setup.sql: 'ok' or the first difference).
-- radik_t holds NULLs, NaN, +/-Infinity, -0.0, the types' extreme values, ties (most values
-- twice), an all-equal column (same) and an all-NULL one (nothing).
LOAD 'radik';

-- One sort key, returning the row's id and key: where keys tie, any of the tied rows is right,
-- so the keys are compared position by position and each (id, key) must be a row of radik_t.
-- k = 1, a cut through the middle, one that reaches into the NULLs from either side, and all.
SELECT c AS key_column,
	   count(*) FILTER (WHERE result = 'ok') AS ok,
	   count(*) FILTER (WHERE result <> 'ok') AS failed,
	   min(result) FILTER (WHERE result <> 'ok') AS first_failure
FROM (SELECT c, n, radik_check(format('id, %I', c), 'radik_t', format('%I %s', c, o),
								'LIMIT ' || k, quote_ident(c)) AS result
	  FROM unnest(ARRAY['i2', 'i4', 'i8', 'f4', 'f8', 'd', 't', 'ts', 'tz', 'few', 'same',
						'nothing']) WITH ORDINALITY AS cols(c, n),
		   unnest(ARRAY['ASC', 'DESC', 'ASC NULLS FIRST', 'ASC NULLS LAST', 'DESC NULLS FIRST',
						'DESC NULLS LAST']) AS o,
		   unnest(ARRAY[1, 37, 200, 2900, 3013]) AS k) s
GROUP BY c, n
ORDER BY n;

-- The same with a unique second key, so the order is fully determined and radik's rows must be
-- PostgreSQL's rows exactly, whole rows (SELECT *) included.
SELECT c AS key_column,
	   count(*) FILTER (WHERE result = 'ok') AS ok,
	   count(*) FILTER (WHERE result <> 'ok') AS failed,
	   min(result) FILTER (WHERE result <> 'ok') AS first_failure
FROM (SELECT c, n, radik_check('*', 'radik_t', format('%I %s, id', c, o), 'LIMIT ' || k) AS result
	  FROM unnest(ARRAY['i2', 'i4', 'i8', 'f4', 'f8', 'd', 't', 'ts', 'tz', 'few', 'same',
						'nothing']) WITH ORDINALITY AS cols(c, n),
		   unnest(ARRAY['ASC', 'DESC', 'ASC NULLS FIRST', 'DESC NULLS LAST']) AS o,
		   unnest(ARRAY[1, 200, 3013]) AS k) s
GROUP BY c, n
ORDER BY n;

-- k cutting exactly at the edge between the NULLs and the values, from either side (where a
-- NULL and the type's extreme value must not be confused: every int8 value is a possible key).
CREATE FUNCTION radik_null_count(c text) RETURNS int8
LANGUAGE plpgsql AS $$
DECLARE
	n int8;
BEGIN
	EXECUTE format('SELECT count(*) FROM radik_t WHERE %I IS NULL', c) INTO n;
	RETURN n;
END $$;
SELECT c AS key_column,
	   count(*) FILTER (WHERE result = 'ok') AS ok,
	   count(*) FILTER (WHERE result <> 'ok') AS failed,
	   min(result) FILTER (WHERE result <> 'ok') AS first_failure
FROM (SELECT c, n, radik_check(format('id, %I', c), 'radik_t', format('%I %s', c, o),
								'LIMIT ' || (edge + d), quote_ident(c)) AS result
	  FROM unnest(ARRAY['i2', 'i4', 'i8', 'f4', 'f8', 'd', 't', 'ts', 'tz']) WITH ORDINALITY AS cols(c, n),
		   LATERAL (VALUES ('ASC NULLS FIRST', radik_null_count(c)),
						   ('DESC', radik_null_count(c)),
						   ('ASC', 3013 - radik_null_count(c)),
						   ('DESC NULLS LAST', 3013 - radik_null_count(c))) AS e(o, edge),
		   unnest(ARRAY[-1, 0, 1]) AS d) s
GROUP BY c, n
ORDER BY n;
DROP FUNCTION radik_null_count(text);

-- The special values themselves, shown: the keys alone (ties are then indistinguishable, so
-- the comparison is exact), from both ends.
SELECT radik_check('f8', 'radik_t', 'f8', 'LIMIT 5') AS f8_lowest,
	   radik_check('f8', 'radik_t', 'f8 DESC', 'LIMIT 5') AS f8_highest_nulls,
	   radik_check('f8', 'radik_t', 'f8 DESC NULLS LAST', 'LIMIT 5') AS f8_nan_first,
	   radik_check('f4', 'radik_t', 'f4 NULLS FIRST', 'OFFSET 170 LIMIT 10') AS f4_after_nulls;
-- -0.0 and 0 are equal keys (either may come first); NaN equals NaN and sorts above Infinity.
SELECT radik_check('id, f8', 'radik_t', 'f8', 'LIMIT 3', 'f8') AS f8_zeros,
	   radik_check('id, f4', 'radik_t', 'f4 DESC NULLS LAST', 'LIMIT 3', 'f4') AS f4_nans;
SELECT radik_check('id, f8', 'radik_t WHERE f8 BETWEEN -1e-300 AND 1e-300', 'f8', 'LIMIT 6', 'f8')
	   AS f8_around_zero,
	   radik_check('id, f4', 'radik_t WHERE f4 BETWEEN -1e-30 AND 1e-30', 'f4 DESC', 'LIMIT 6', 'f4')
	   AS f4_around_zero;
SELECT radik_check('id, d, ts, tz', 'radik_t WHERE d IN (''infinity'', ''-infinity'')',
				   'ts, id', 'LIMIT 10') AS infinite_dates,
	   radik_check('id, t', 'radik_t', 't DESC, id', 'LIMIT 4') AS time_24h;

-- NaNs of both signs (Infinity - Infinity gives a NaN with the sign bit set on most CPUs),
-- which PostgreSQL holds equal to each other and above Infinity, among -0.0, 0 and infinities.
CREATE TABLE radik_nans (id int4, f4 float4, f8 float8);
INSERT INTO radik_nans VALUES
	(1, 'NaN', 'NaN'),
	(2, float4 'Infinity' - float4 'Infinity', float8 'Infinity' - float8 'Infinity'),
	(3, 'Infinity', 'Infinity'),
	(4, '-Infinity', '-Infinity'),
	(5, '-0', '-0'),
	(6, '0', '0'),
	(7, float4 'Infinity' - float4 'Infinity', float8 'Infinity' - float8 'Infinity'),
	(8, -1, -1),
	(9, NULL, NULL),
	(10, 'NaN', 'NaN');
SELECT float8send(f8) = '\xfff8000000000000' AS negative_nan_here FROM radik_nans WHERE id = 2;
SELECT o, radik_check('*', 'radik_nans', o, 'LIMIT ' || k) AS result
FROM unnest(ARRAY['f8, id', 'f8 DESC, id', 'f4, id', 'f4 DESC NULLS LAST, id', 'f8 NULLS FIRST, id DESC']) AS o,
	 unnest(ARRAY[3, 7, 10]) AS k
ORDER BY o, k;
DROP TABLE radik_nans;

-- For the reader, PostgreSQL's own order of the special values (radik off).
SET radik.enabled = off;
SELECT f8 FROM radik_t ORDER BY f8 DESC NULLS LAST LIMIT 5;
SELECT f4 FROM radik_t ORDER BY f4 LIMIT 4;
SELECT t FROM radik_t ORDER BY t DESC NULLS LAST LIMIT 3;
SELECT d, ts FROM radik_t ORDER BY ts NULLS LAST LIMIT 3;
RESET radik.enabled;
