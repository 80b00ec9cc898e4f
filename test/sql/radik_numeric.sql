-- radik_numeric: sort keys of type numeric.  The engine orders a 64-bit summary of each value
-- (its sign, weight and first three base-10000 digits: radik_datum_keys.c), and radik's node
-- sorts the rows tied with the k-th on that summary by numeric's own comparator.  Every answer is
-- compared with PostgreSQL's own (radik_compare in radik_setup.sql); the table holds values that
-- share their summary and differ only after the twelfth significant digit, equal values written
-- with different scales, NaN, both infinities, huge and tiny values (the stored form's long
-- header), compressed and external (TOASTed) values, and NULLs.
LOAD 'radik';
SET radik.force = on;

CREATE TABLE radik_num (id int4, n numeric, p numeric(12, 2), big numeric);
ALTER TABLE radik_num ALTER COLUMN big SET STORAGE EXTERNAL;
-- 3000 ordinary rows: n over ten orders of magnitude around zero, most values twice; p with
-- cents; big mostly small, every 50th a value of 4000+ digits (stored outside the row).
INSERT INTO radik_num
SELECT i,
	   CASE WHEN i % 23 = 1 THEN NULL
			ELSE round(((v % 1999) - 999)::numeric * power(10::numeric, (v % 21) - 10), 12) END,
	   CASE WHEN i % 29 = 2 THEN NULL ELSE ((v % 200001) - 100000)::numeric / 100 END,
	   CASE WHEN i % 50 = 0 THEN power(10::numeric, 4000 + v % 7) + v
			WHEN i % 31 = 3 THEN NULL ELSE (v % 977)::numeric / 7 END
FROM (SELECT i, (i * 7919) % 1500 * 1013 AS v FROM generate_series(1, 3000) i) s;
-- Values a summary cannot tell apart, equal values of different scales, the special values.
INSERT INTO radik_num (id, n, p, big) VALUES
	(3001, 'NaN', 'NaN', 'NaN'), (3002, 'NaN', 0, 'Infinity'),
	(3003, 'Infinity', 1, '-Infinity'), (3004, 'Infinity', -1, '-Infinity'),
	(3005, '-Infinity', 0.5, 1), (3006, '-Infinity', -0.5, 2),
	(3007, 0, 0, 0), (3008, 0.000, 0.00, 0.0), (3009, -0.0, 0, 0),
	(3010, 1.0000000000001, 1, 1), (3011, 1.0000000000002, 1, 1), (3012, 1, 1, 1),
	(3013, 1.00000000000015, 1, 1), (3014, -1.0000000000001, -1, -1), (3015, -1, -1, -1),
	(3016, 123456789012.5, 2, 2), (3017, 123456789012.6, 2, 2), (3018, 123456789012.4, 2, 2),
	(3019, -123456789012.5, -2, -2), (3020, -123456789012.6, -2, -2),
	(3021, 1e300, 3, 3), (3022, 1e300 + 1, 3, 3), (3023, -1e300, -3, -3),
	(3024, 1e-300, 4, 4), (3025, 2e-300, 4, 4), (3026, -1e-300, -4, -4),
	(3027, 9999.99999999999, 5, 5), (3028, 10000, 5, 5), (3029, -10000, 5, 5),
	(3030, 0.00009999, 6, 6), (3031, 0.0001, 6, 6), (3032, 1e-6, 6, 6),
	(3033, power(10::numeric, 3000) + 1, 7, power(10::numeric, 3000) + 1),
	(3034, power(10::numeric, 3000) + 2, 7, power(10::numeric, 3000) + 2),
	(3035, -power(10::numeric, 3000), 7, -power(10::numeric, 3000));
ANALYZE radik_num;
SELECT count(*) AS rows, count(*) FILTER (WHERE pg_column_size(big) > 1000) AS big_values
FROM radik_num;

-- radik's node over the numeric key.
EXPLAIN (COSTS OFF) SELECT id, n FROM radik_num ORDER BY n DESC LIMIT 5;

-- Each column, both directions, NULLs first and last, k from 1 to beyond the table.
SELECT ord, k, radik_check('id, n, p, big', 'radik_num', ord, 'LIMIT ' || k,
						   split_part(ord, ' ', 1)) AS result
FROM unnest(ARRAY['n', 'n DESC', 'n NULLS FIRST', 'n DESC NULLS LAST', 'p', 'p DESC',
				  'big', 'big DESC NULLS LAST']) AS ord,
	 unnest(ARRAY[1, 2, 3, 7, 40, 1000, 2900, 3035, 4000]) AS k
ORDER BY ord, k;

-- Rows whose values differ after the twelfth digit, near 1 and near 123456789012, where the
-- engine's keys tie: a WHERE clause puts the cut among them.
SELECT q, radik_compare(q, NULL, 'n', 'SELECT id, n FROM radik_num') AS result
FROM unnest(ARRAY[
	'SELECT id, n FROM radik_num WHERE n >= 1 AND n < 2 ORDER BY n LIMIT 1',
	'SELECT id, n FROM radik_num WHERE n >= 1 AND n < 2 ORDER BY n LIMIT 2',
	'SELECT id, n FROM radik_num WHERE n >= 1 AND n < 2 ORDER BY n LIMIT 3',
	'SELECT id, n FROM radik_num WHERE n > 1e11 AND n < 1e12 ORDER BY n DESC LIMIT 2',
	'SELECT id, n FROM radik_num WHERE n < -1e11 AND n > -1e12 ORDER BY n LIMIT 1',
	'SELECT id, n FROM radik_num WHERE n <= -1 AND n > -2 ORDER BY n DESC LIMIT 1',
	'SELECT id, n FROM radik_num WHERE n > 1e200 ORDER BY n LIMIT 1',
	'SELECT id, n FROM radik_num WHERE n >= 0 ORDER BY n LIMIT 4',
	'SELECT id, n FROM radik_num WHERE n > 0 ORDER BY n LIMIT 2'
	]) AS q;

-- Expressions, several keys, OFFSET, WITH TIES, only the key column read.
SELECT q, radik_compare(q, NULL, 'k', 'SELECT id, k FROM (SELECT id, p * 3 - n AS k FROM radik_num) s')
	AS result
FROM unnest(ARRAY[
	'SELECT id, p * 3 - n AS k FROM radik_num ORDER BY p * 3 - n LIMIT 25',
	'SELECT id, p * 3 - n AS k FROM radik_num ORDER BY p * 3 - n DESC NULLS LAST LIMIT 10 OFFSET 5',
	'SELECT id, p * 3 - n AS k FROM radik_num WHERE id % 3 <> 0 ORDER BY p * 3 - n FETCH FIRST 10 ROWS WITH TIES'
	]) AS q;
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT id, p, n FROM radik_num ORDER BY p, n DESC, id LIMIT 30',
	'SELECT id, p FROM radik_num ORDER BY p DESC, id LIMIT 20 OFFSET 100',
	'SELECT id, n FROM radik_num ORDER BY n NULLS FIRST, id LIMIT 150',
	'SELECT id, big FROM radik_num WHERE big > 1e100 ORDER BY big, id LIMIT 10'
	]) AS q;
SELECT q, radik_compare(q, NULL, 'p', 'SELECT p FROM radik_num') AS result
FROM unnest(ARRAY[
	'SELECT p FROM radik_num ORDER BY p DESC LIMIT 7',
	'SELECT p FROM radik_num ORDER BY p FETCH FIRST 3 ROWS WITH TIES',
	'SELECT p FROM radik_num WHERE p > 0.5 ORDER BY p FETCH FIRST 1 ROW WITH TIES'
	]) AS q;

-- Parallel workers over a larger table (radik_num eight times over).
CREATE TABLE radik_num_big AS
SELECT id + 10000 * copy AS id, n, p, big FROM radik_num, generate_series(0, 7) copy;
ALTER TABLE radik_num_big SET (parallel_workers = 2);
ANALYZE radik_num_big;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT (radik_analyzed_scan('SELECT * FROM radik_num_big ORDER BY n LIMIT 10')
		->> 'Workers Launched')::int > 0 AS workers_ran;
SELECT ord, k, radik_check('id, n, p, big', 'radik_num_big', ord, 'LIMIT ' || k,
						   split_part(ord, ' ', 1)) AS result
FROM unnest(ARRAY['n DESC', 'p NULLS FIRST', 'big DESC']) AS ord, unnest(ARRAY[5, 500, 20000]) AS k
ORDER BY ord, k;
RESET max_parallel_workers_per_gather;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
RESET min_parallel_table_scan_size;

-- radik_topk orders numeric as ORDER BY does.
SELECT * FROM radik_topk_check('radik_num', 'n', 3);
SELECT * FROM radik_topk_check('radik_num', 'n', 40, true, 'first');

DROP TABLE radik_num_big;
DROP TABLE radik_num;
RESET radik.force;
