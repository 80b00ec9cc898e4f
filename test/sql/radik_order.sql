-- radik_order: several sort keys, expressions as keys, and WHERE clauses, each against
-- PostgreSQL's own answer (radik_compare in radik_setup.sql: 'ok' or the first difference).
LOAD 'radik';

-- Several keys: ties on the first key are broken by the next exactly as PostgreSQL does.  With
-- id last the order is fully determined, so the rows must be PostgreSQL's exactly.
SELECT ord, k, radik_check('*', 'radik_t', ord, 'LIMIT ' || k) AS result
FROM unnest(ARRAY['few, i4 DESC, id',
				  'grp DESC, f8 NULLS FIRST, id',
				  'same, nothing, d, id',
				  'few DESC NULLS LAST, f4, f8 DESC, id',
				  'ts DESC, tz, t, id',
				  'i2, i8 DESC NULLS LAST, id DESC',
				  'grp, few, same, t DESC, id',
				  'f4 NULLS FIRST, id DESC']) WITH ORDINALITY AS o(ord, n),
	 unnest(ARRAY[1, 10, 1500, 3013]) AS k
ORDER BY n, k;

-- Several keys that still tie: the keys must match position by position, and the rows must be
-- rows of radik_t.
SELECT ord, k, radik_check('id, few, grp, same, f4, i2', 'radik_t', ord, 'LIMIT ' || k,
						   keys) AS result
FROM (VALUES ('few, grp', 'few, grp'),
			 ('grp DESC, few NULLS FIRST', 'grp, few'),
			 ('same, few DESC', 'same, few'),
			 ('few, f4 DESC', 'few, f4'),
			 ('i2 NULLS FIRST, grp', 'i2, grp')) AS o(ord, keys),
	 unnest(ARRAY[1, 10, 599, 600, 601, 1200]) AS k
ORDER BY ord, k;

-- Expressions as keys.
CREATE TABLE radik_sales (
	id int4,
	price float8,
	qty int4,
	x int4,
	made date,
	shipped date,
	ts timestamp,
	pause interval
);
INSERT INTO radik_sales
SELECT i,
	   CASE WHEN i % 50 = 0 THEN NULL ELSE ((i * 37) % 1000) / 4.0 END,
	   CASE WHEN i % 71 = 0 THEN NULL ELSE (i * 13) % 20 END,
	   (i * 7) % 401 - 200,
	   date '2020-01-01' + (i * 11) % 500,
	   date '2020-01-01' + (i * 11) % 500 + (i * 3) % 40,
	   timestamp '2020-01-01' + i * interval '17 minutes',
	   ((i * 29) % 90) * interval '1 hour'
FROM generate_series(1, 2000) i;
ANALYZE radik_sales;

SELECT ord, radik_check(sel, 'radik_sales', ord, 'LIMIT 25', keys) AS result
FROM (VALUES ('price * qty DESC', 'id, price, qty', 'price * qty'),
			 ('price * qty DESC NULLS LAST', 'id, price, qty', 'price * qty'),
			 ('abs(x)', 'id, x', 'abs(x)'),
			 ('abs(x) DESC', 'id, x', 'abs(x)'),
			 ('shipped - made', 'id, made, shipped', 'shipped - made'),
			 ('shipped - made DESC', 'id, made, shipped', 'shipped - made'),
			 ('ts - pause', 'id, ts, pause', 'ts - pause'),
			 ('ts - pause DESC', 'id, ts, pause', 'ts - pause'),
			 ('-x', 'id, x', '-x'),
			 ('x::float8 / 3', 'id, x', 'x::float8 / 3'),
			 ('(x + 1)::int8 * 1000000000000', 'id, x', '(x + 1)::int8 * 1000000000000'),
			 ('x % 7 DESC', 'id, x', 'x % 7'),
			 ('(qty * 10)::int2', 'id, qty', '(qty * 10)::int2'),
			 ('price::float4 * 0', 'id, price', 'price::float4 * 0'),
			 ('made + 7 * x', 'id, made, x', 'made + 7 * x'),
			 ('date_trunc(''day'', ts)', 'id, ts', 'date_trunc(''day'', ts)'),
			 ('(ts - pause)::date', 'id, ts, pause', '(ts - pause)::date'),
			 ('ts::time DESC', 'id, ts', 'ts::time'),
			 ('CASE WHEN x > 0 THEN x END NULLS FIRST', 'id, x', 'CASE WHEN x > 0 THEN x END'),
			 ('coalesce(price, -1) * qty', 'id, price, qty', 'coalesce(price, -1) * qty'))
	 AS o(ord, sel, keys);

-- Expressions with a unique tie-breaker, whole rows; a key that is not in the select list; an
-- output column's name or position as the key.
SELECT radik_check('*', 'radik_sales', 'price * qty DESC, id', 'LIMIT 40') AS expression_then_id,
	   radik_check('*', 'radik_sales', 'abs(x), x, id DESC', 'LIMIT 40') AS abs_then_x_then_id,
	   radik_check('id', 'radik_sales', 'shipped - made, id', 'LIMIT 40') AS key_not_selected,
	   radik_check('id, price * qty AS total', 'radik_sales', 'total DESC NULLS LAST, id',
				   'LIMIT 40') AS output_name,
	   radik_check('id, abs(x)', 'radik_sales', '2, 1', 'LIMIT 40') AS output_position;

-- What the target list and the keys may hold: system columns (the fetched rows keep their
-- ctid), whole rows, subqueries (correlated SubPlans and InitPlans) in the keys, the WHERE
-- clause and the target list, a domain over a supported type, a SQL function inlined into the
-- query.  Types radik orders (bool, oid, money, "char", uuid) and one it leaves to PostgreSQL
-- (timetz: 'ok (declined)') must come out right.
CREATE DOMAIN radik_posint AS int4 CHECK (VALUE > 0);
CREATE TABLE radik_misc (id int4, v radik_posint, b bool, o oid, tt timetz, m money, c "char",
	u uuid);
INSERT INTO radik_misc
SELECT i, (i * 7) % 100 + 1, i % 3 = 0, (i * 13) % 50,
	   (time '10:00' + i * interval '7 minutes')::timetz - (i % 9) * interval '1 hour', i * 1.5,
	   chr(65 + i % 26)::"char", md5(i::text)::uuid
FROM generate_series(1, 500) i;
CREATE FUNCTION radik_top3(g int4) RETURNS SETOF radik_t
	LANGUAGE sql STABLE AS 'SELECT * FROM radik_t WHERE grp = g ORDER BY f8, id LIMIT 3';
SELECT q, regexp_replace(radik_compare(q), '^radik not used: .*', 'ok (declined)') AS result
FROM unnest(ARRAY[
	'SELECT ctid AS tid, id, xmin::text::int8 > 0 AS x, tableoid::regclass AS tab FROM radik_t ORDER BY f8, id LIMIT 5',
	'SELECT ctid AS tid, id FROM radik_t ORDER BY i4 DESC, id LIMIT 3013',
	'SELECT t, id FROM radik_t t ORDER BY f8 DESC, id LIMIT 5',
	'SELECT id FROM radik_t ORDER BY length(radik_t::text), id LIMIT 5',
	'SELECT id FROM radik_t ORDER BY (SELECT radik_t.i8 / 2), id LIMIT 5',
	'SELECT id FROM radik_t ORDER BY i8 / (SELECT 2), id LIMIT 5',
	'SELECT id FROM radik_t WHERE (SELECT count(*) FROM generate_series(1, radik_t.few)) > 1 ORDER BY i4, id LIMIT 5',
	'SELECT id, (SELECT radik_t.f8 + 1) AS f8_plus_1 FROM radik_t ORDER BY f8, id LIMIT 5',
	'SELECT * FROM radik_misc ORDER BY v DESC, id LIMIT 5',
	'SELECT * FROM radik_misc ORDER BY b, id LIMIT 5',
	'SELECT * FROM radik_misc ORDER BY o DESC, id LIMIT 5',
	'SELECT * FROM radik_misc ORDER BY tt, id LIMIT 5',
	'SELECT * FROM radik_misc ORDER BY m DESC, id LIMIT 5',
	'SELECT * FROM radik_misc ORDER BY c, id LIMIT 5',
	'SELECT * FROM radik_misc ORDER BY u LIMIT 5',
	'SELECT id FROM radik_t ORDER BY tableoid, f8, id LIMIT 5',
	'SELECT * FROM radik_top3(2)'
	]) WITH ORDINALITY AS a(q, n)
ORDER BY n;
DROP FUNCTION radik_top3(int4);
DROP TABLE radik_misc;
DROP DOMAIN radik_posint;

-- A volatile WHERE clause runs once per row, as in PostgreSQL's scan (counted in a sequence;
-- with one key radik may take it: the tied rows are cut arbitrarily, so the keys are compared).
CREATE SEQUENCE radik_calls;
CREATE FUNCTION radik_counted(v int4) RETURNS boolean
	LANGUAGE sql VOLATILE AS 'SELECT nextval(''radik_calls'') > 0 AND v % 3 <> 0';
SELECT regexp_replace(radik_compare('SELECT id, f8 FROM radik_t WHERE radik_counted(id) ORDER BY f8 LIMIT 10',
									NULL, 'f8'), '^radik not used: .*', 'ok (declined)') AS volatile_where,
	   (SELECT last_value FROM radik_calls) IN (2 * 3013, 3013) AS once_per_row;
-- A volatile function in the target list runs for the returned rows only, in their order.
CREATE FUNCTION radik_numbered(use_radik boolean) RETURNS text
LANGUAGE plpgsql
SET radik.force = on
AS $$
DECLARE
	q text := 'SELECT nextval(''radik_calls'') AS n, id FROM radik_t ORDER BY f8 DESC, id LIMIT 5 OFFSET 2';
	result text;
BEGIN
	PERFORM set_config('radik.enabled', use_radik::text, true);
	IF radik_plan_uses_radik(q) <> use_radik THEN
		RETURN 'radik_plan_uses_radik is not ' || use_radik;
	END IF;
	PERFORM setval('radik_calls', 1, false);
	EXECUTE format('SELECT string_agg(s::text, '' '') FROM (%s) s', q) INTO result;
	RETURN result;
END $$;
SELECT radik_numbered(true) = radik_numbered(false) AS same, radik_numbered(true) AS numbered;
DROP FUNCTION radik_numbered(boolean);
DROP FUNCTION radik_counted(int4);
DROP SEQUENCE radik_calls;

-- Top-k subqueries as branches of a UNION and in IN lists.
SELECT radik_compare($$
	(SELECT id, f8 FROM radik_t ORDER BY f8, id LIMIT 3)
	UNION ALL
	(SELECT id, f8 FROM radik_t ORDER BY f8 DESC, id LIMIT 3)
	UNION ALL
	(SELECT id, i4 FROM radik_t WHERE grp = 1 ORDER BY i4 DESC NULLS LAST, id LIMIT 2 OFFSET 1)$$)
	AS union_branches,
	   radik_compare($$
	SELECT count(*), sum(id) FROM radik_t
	WHERE id IN (SELECT id FROM radik_t ORDER BY ts DESC, id LIMIT 40)
	  AND id NOT IN (SELECT id FROM radik_t ORDER BY ts DESC, id LIMIT 20)$$) AS in_lists;

-- A key expression that fails on some row fails the same way; when WHERE removes that row
-- first, the key is never computed for it.
SELECT radik_check('id', 'radik_sales', '100 / (x - 3), id', 'LIMIT 5') AS division_by_zero,
	   radik_check('id', 'radik_sales WHERE x <> 3', '100 / (x - 3), id', 'LIMIT 5')
	   AS filtered_first;

-- WHERE clauses.
SELECT src, radik_check('id, f8, i4', src, 'f8 DESC, id', 'LIMIT 30') AS result
FROM unnest(ARRAY['radik_t WHERE grp = 3',
				  'radik_t WHERE f8 > 0 AND i4 % 2 = 0',
				  'radik_t WHERE f8 IS NULL OR f8 = ''NaN''',
				  'radik_t WHERE id < 0',
				  'radik_t WHERE id IN (3001, 3002, 3003, 1, 2)',
				  'radik_t WHERE i4 > (SELECT avg(i4) FROM radik_t)',
				  'radik_t WHERE ts > now() - interval ''30 years'' OR d IS NULL',
				  'radik_t WHERE i4 BETWEEN -1000003 AND 1000003',
				  'radik_t WHERE f4 <> f4',
				  'radik_t WHERE id::text LIKE ''%7%''']) AS src;
-- WHERE with several keys whose first key ties at the cut (few: 3 values), so that the rows
-- tied at the boundary are gathered again from the table: the WHERE clause applies to them too.
SELECT src, k, radik_check('id, few, i4', src, 'few, i4 DESC, id', 'LIMIT ' || k) AS result
FROM unnest(ARRAY['radik_t WHERE grp = 1',
				  'radik_t WHERE i4 % 3 = 0',
				  'radik_t WHERE f8 > 0 OR f8 IS NULL']) AS src,
	 unnest(ARRAY[30, 400, 700]) AS k
ORDER BY src, k;

DROP TABLE radik_sales;
