-- radik_native_key: sort keys of double precision arithmetic computed from raw column values
-- (radik_native_key.c).  Every answer is compared with PostgreSQL's (radik_compare in
-- radik_setup.sql), errors included; EXPLAIN VERBOSE's "Native Key" shows which keys are
-- computed natively, so a key that silently went back to the executor would show here.
LOAD 'radik';
SET radik.force = on;

-- Which keys are native: + - * / abs() @ and unary minus on double precision, real operands
-- mixed in, integer and real columns cast to double precision, constants, floor() ceil()
-- ceiling() trunc() round() sign() sqrt() and |/; not other functions such as cbrt() or ln(),
-- not numeric, real or integer arithmetic, not a plain column (which is read, not computed).
SELECT k, line
FROM unnest(ARRAY['abs(f8 - 0.5)', 'f4 * 2.5', 'i4::float8 / 3', 'f8 + i8', '-f8', '@ f8',
				  'i2 * 0.5 + f4 * f8 - i8', 'sqrt(abs(f8))', '|/ abs(f8)', 'floor(f4 * 10)',
				  'ceil(f8)', 'ceiling(f8)', 'trunc(f8)', 'round(f8)', 'sign(f8)', 'cbrt(f8)',
				  'ln(abs(f8) + 1)', 'f4 + 1', 'abs(i4)::float8', 'f8', '(f8 + 1)::float4',
				  'round(f8::numeric, 2)']) AS k,
	 radik_plan_lines(format('SELECT id FROM radik_t ORDER BY %s LIMIT 3', k),
					  '(Native Key|Sort Key)') AS line;

-- The answers, against PostgreSQL's, in both directions, over radik_t's NULLs, NaN, -0,
-- infinities, denormals and integer extremes.  Overflows (f8 * 1e300 on the largest values),
-- divisions by zero (f8 / f4 where f4 is 0 or -0, 1 / f8), underflows (f8 * 0.5 on the smallest
-- denormal, f8 * f8 * f8, also under a sqrt()) and square roots of negative numbers (sqrt(f8),
-- |/ f4) are PostgreSQL's errors in both plans: radik leaves those rows to the executor, which
-- raises them.  The rounding functions meet halves (round() rounds them to even, as rint()
-- does), -0, NaN and the infinities, and make ties; round(f8 * 2.5) overflows before it rounds.
CREATE TEMP TABLE radik_nk_results AS
SELECT k || dir AS key, radik_compare(format('SELECT id, %s FROM radik_t ORDER BY %s%s, id LIMIT 40',
											 k, k, dir)) AS result
FROM unnest(ARRAY['abs(f8 - 0.5)', 'f4 * 2.5', 'i4::float8 / 3', 'f8 + i8', '-f8', '@ f8',
				  'i2 * 0.5 + f4 * f8 - i8', 'abs(f4 - f8)', 'f8 - f8', 'f4::float8 - 1e300',
				  'f8 * 1e300', 'f8 / f4', '1 / f8', 'f8 * 0.5', 'i8::float8 * 1e-320',
				  '(i4 + 0.5::float8) / 7', 'f8 * f8 * f8', '-(-f8 + 0.25)', 'f8 + few',
				  'abs(f8) / (abs(f4) + 1)', 'floor(f8 + 0.5)', 'ceil(f4) * ceil(f4) - f4',
				  'ceiling(-f8)', 'trunc(f4) * trunc(f4) + f4', 'round(f8 - 1.5)',
				  'round(i4::float8 / 2)', 'round(f4 + 0.5)', 'round(f8 * 2.5)', 'sign(f8 - 1)',
				  'sqrt(abs(f8))', 'sqrt(f8)', '|/ f4', '|/ abs(f8 + 2)', 'sqrt(f8 * f8 + 1)',
				  'floor(f8) + sqrt(abs(f4::float8))']) AS k,
	 unnest(ARRAY['', ' DESC NULLS LAST']) AS dir;
SELECT count(*) AS checks, count(*) FILTER (WHERE result <> 'ok') AS not_ok FROM radik_nk_results;
SELECT key, result FROM radik_nk_results WHERE result <> 'ok' ORDER BY key;
DROP TABLE radik_nk_results;

-- With quals (run through the executor, or natively over each page first, whose errors stay
-- PostgreSQL's), ties (WITH TIES, more keys), NULL keys first (177 of radik_t's rows), the best
-- rows of each group, and parallel workers, whose scans compute the same keys.
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT id FROM radik_t WHERE grp < 3 ORDER BY abs(f8 - 100), id LIMIT 30',
	'SELECT id FROM radik_t WHERE d > ''2000-06-01'' ORDER BY f4 * 2.0, id LIMIT 30',
	'SELECT id FROM radik_t WHERE id <= 3000 ORDER BY f8 * f8, id LIMIT 30',
	'SELECT * FROM (SELECT id, few FROM radik_t ORDER BY few * 1.5::float8 ' ||
		'FETCH FIRST 5 ROWS WITH TIES) s ORDER BY id',
	'SELECT id FROM radik_t ORDER BY abs(f8 - 0.5), i4 DESC, id LIMIT 30',
	'SELECT id FROM radik_t WHERE i4 * 1000000 > 0 ORDER BY abs(f8 - 1), id LIMIT 5',
	'SELECT id FROM radik_t WHERE id < 0 AND i4 * 1000000 > 0 ORDER BY abs(f8 - 1) LIMIT 5',
	'SELECT id FROM radik_t WHERE i8 IS NOT NULL AND f4 > 0::float4 ORDER BY f8 + 1, id LIMIT 30',
	'SELECT * FROM (SELECT id, grp, row_number() OVER (PARTITION BY grp ' ||
		'ORDER BY abs(f8 - 0.5) DESC NULLS LAST, id) AS r FROM radik_t) s WHERE r <= 2 ' ||
		'ORDER BY grp, r',
	'SELECT id, f8 FROM radik_t ORDER BY abs(f8 - 0.5) NULLS FIRST, id LIMIT 200',
	'SELECT * FROM (SELECT id, grp, row_number() OVER (PARTITION BY grp ' ||
		'ORDER BY -f8 DESC, id) AS r FROM radik_t) s WHERE r <= 3 ORDER BY grp, r',
	'SELECT * FROM (SELECT id, grp, rank() OVER (PARTITION BY grp ' ||
		'ORDER BY floor((f8 + 1000) / 100) DESC NULLS LAST) AS r FROM radik_t) s WHERE r <= 2 ' ||
		'ORDER BY grp, r, id',
	'SELECT * FROM (SELECT id, grp, dense_rank() OVER (PARTITION BY grp ' ||
		'ORDER BY round((abs(f8) + 1) / 50)) AS r FROM radik_t) s WHERE r <= 2 ORDER BY grp, r, id',
	'SELECT id, f8 FROM radik_t WHERE grp = 1 ORDER BY sqrt(abs(f8 - 3)), id LIMIT 30',
	'SELECT sign(f8) FROM radik_t WHERE id > 3000 ORDER BY sign(f8) LIMIT 5',
	'SELECT id FROM radik_t WHERE abs(f8) < 1e100 ' ||
		'ORDER BY sqrt((f8 - 1) * (f8 - 1) + (f4 - 2) * (f4 - 2)), id LIMIT 30']) AS q;
CREATE TABLE radik_nk AS SELECT t.id + 10000 * copy AS id, i4, f4, f8
FROM radik_t t, generate_series(0, 7) copy;
ALTER TABLE radik_nk SET (parallel_workers = 2);
ANALYZE radik_nk;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT radik_plan_lines('SELECT id FROM radik_nk ORDER BY abs(f8 - 0.5) LIMIT 9',
						'(Native Key|Workers Planned)');
SELECT radik_compare('SELECT id, f8 FROM radik_nk WHERE id < 50000 ' ||
					 'ORDER BY abs(f8 - 0.5) DESC NULLS LAST, id LIMIT 25') AS parallel_result;
SELECT radik_compare('SELECT id FROM radik_nk ORDER BY f8 * f8 LIMIT 9') AS parallel_error;
SELECT radik_compare('SELECT id, f8 FROM radik_nk WHERE f8 >= 0 ' ||
					 'ORDER BY floor(sqrt(f8)) DESC NULLS LAST, id LIMIT 25') AS parallel_sqrt;
SELECT radik_compare('SELECT id FROM radik_nk ORDER BY sqrt(f8) LIMIT 9') AS parallel_sqrt_error;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET min_parallel_table_scan_size;
DROP TABLE radik_nk;
RESET radik.force;
