-- radik_fuzz: hundreds of generated queries, each compared with PostgreSQL's own answer
-- (radik_compare in radik_setup.sql), to reach the combinations the hand-written tests do not
-- list: sort keys of every supported type (text through the pad column, whose values tie on
-- their first 8 bytes, or are TOASTed, also under an ICU collation where PostgreSQL has ICU) and
-- expressions over them, both directions and NULL placements, a second key, OFFSET, FETCH FIRST
-- ... WITH TIES, WHERE clauses that radik runs on raw column values and others, whole rows and
-- key-only output, with and without parallel workers, a row store that fills up (work_mem 64kB),
-- the threshold seed on and off; over a table whose pages hold dead and updated rows, NULLs,
-- TOASTed values, a dropped column and columns added after rows were written (missing
-- attributes), over a plain all-visible one, and over a partitioned table (radik's node on each
-- partition, under a Merge Append).  Then the best rows of each group: row_number(), rank() and
-- dense_rank() under each form of cut, and DISTINCT ON, by group keys from a few groups to
-- thousands (which pass 64kB of work_mem: the node then returns PostgreSQL's sorted plan's
-- rows), with the same settings.
--
-- The generator is random but seeded (setseed), so every run asks the same questions; the
-- answers are never written into this file: a query passes when radik's answer is PostgreSQL's
-- (rows tied on the sort keys may differ, their keys may not; see radik_compare) or when both
-- raise the same error.  The output is the count of queries and every query that failed.
LOAD 'radik';
SET radik.force = on;
SET radik.gpu_min_rows = 0;	-- with radik.device = auto, a GPU (where there is one) selects too
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SELECT setseed(0.20261121);

-- radik_fz1: 36000 rows written in two rounds around a dropped column and five added ones (the
-- first round's rows have none of m, w, dt, tz, tm: they read as the defaults 42, NULL,
-- 2020-02-29, NULL, 12:00), then updated and deleted in part and not vacuumed, so its pages mix
-- dead, updated and missing attributes.
CREATE TABLE radik_fz1 (id int8, a int4, pad text, b float8, c float4, d int2, e timestamp,
						dropped int4, g int8) WITH (autovacuum_enabled = off);
ALTER TABLE radik_fz1 ALTER pad SET STORAGE EXTERNAL;
CREATE FUNCTION radik_fz_b(u float8) RETURNS float8 LANGUAGE sql AS $$
	SELECT CASE WHEN u < 0.03 THEN NULL WHEN u < 0.04 THEN 'NaN' WHEN u < 0.045 THEN 'Infinity'
				WHEN u < 0.05 THEN '-Infinity' WHEN u < 0.06 THEN -0.0
				ELSE round((u * 1000 - 500)::numeric, 1)::float8 END
$$;
INSERT INTO radik_fz1
SELECT i, CASE WHEN random() < 0.1 THEN NULL ELSE (random() * 200)::int4 - 100 END,
	CASE WHEN random() < 0.1 THEN NULL
		 WHEN random() < 0.005 THEN repeat(md5(i::text), 300)
		 ELSE repeat('x', (random() * 30)::int4) END,
	radik_fz_b(random()), random()::float4, (random() * 60000 - 30000)::int2,
	timestamp '2000-01-01' + date_trunc('minute', random() * interval '1000 days'),
	i, ((random() - 0.5) * 1.8e19)::int8
FROM generate_series(1, 30000) i;
ALTER TABLE radik_fz1 DROP COLUMN dropped;
ALTER TABLE radik_fz1 ADD COLUMN m int4 DEFAULT 42, ADD COLUMN w float4,
	ADD COLUMN dt date DEFAULT '2020-02-29', ADD COLUMN tz timestamptz,
	ADD COLUMN tm time DEFAULT '12:00';
INSERT INTO radik_fz1
SELECT i, (random() * 200)::int4 - 100, 'late', radik_fz_b(random()), random()::float4,
	(random() * 60000 - 30000)::int2, timestamp '2001-06-01' + i * interval '1 minute',
	((random() - 0.5) * 1.8e19)::int8, (random() * 100)::int4,
	CASE WHEN random() < 0.2 THEN NULL ELSE random()::float4 END,
	date '2020-01-01' + (random() * 120)::int4,
	CASE WHEN random() < 0.1 THEN NULL
		 ELSE timestamptz '2020-01-01 00:00+00' + random() * interval '90 days' END,
	time '00:00' + date_trunc('second', random() * interval '24 hours')
FROM generate_series(30001, 36000) i;
UPDATE radik_fz1 SET c = c + 1, a = a + 1 WHERE id % 13 = 0;
DELETE FROM radik_fz1 WHERE id % 17 = 0;
ALTER TABLE radik_fz1 SET (parallel_workers = 2);
ANALYZE radik_fz1;

-- radik_fz2: fixed-width columns without NULLs, then two added columns (the first 20000 rows
-- have none: m reads as its default 7 there), vacuumed: all-visible pages, where radik reads
-- every column up to m at a cached offset.
CREATE TABLE radik_fz2 (id int8, c float4, a int4, b float8, d int2, g int8, e timestamp,
						w float4, dt date, tm time, tz timestamptz);
CREATE TEMP TABLE radik_fz2_rows AS
SELECT i::int8 AS id, random()::float4 AS c, (random() * 200)::int4 - 100 AS a,
	coalesce(radik_fz_b(random()), 1.5) AS b, (random() * 60000 - 30000)::int2 AS d,
	((random() - 0.5) * 1.8e19)::int8 AS g,
	timestamp '2000-01-01' + date_trunc('minute', random() * interval '1000 days') AS e,
	random()::float4 AS w, date '2020-01-01' + (random() * 120)::int4 AS dt,
	time '00:00' + date_trunc('second', random() * interval '24 hours') AS tm,
	timestamptz '2020-01-01 00:00+00' + random() * interval '90 days' AS tz
FROM generate_series(1, 30000) i;
INSERT INTO radik_fz2 SELECT * FROM radik_fz2_rows WHERE id <= 20000;
ALTER TABLE radik_fz2 ADD COLUMN m int4 DEFAULT 7, ADD COLUMN pad text;
INSERT INTO radik_fz2
SELECT r.*, (random() * 14)::int4, CASE WHEN random() < 0.3 THEN NULL ELSE 'p' || id END
FROM radik_fz2_rows r WHERE id > 20000;
ALTER TABLE radik_fz2 SET (parallel_workers = 2);
VACUUM ANALYZE radik_fz2;

-- radik_fz3: radik_fz2's rows in a table partitioned by range of id: a partition whose columns
-- lie in another order, a hash-partitioned one, and one with dead rows (not vacuumed).
CREATE TABLE radik_fz3 (LIKE radik_fz2) PARTITION BY RANGE (id);
CREATE TABLE radik_fz3_shuffled (pad text, m int4, tz timestamptz, tm time, dt date, w float4,
								 e timestamp, g int8, d int2, b float8, a int4, c float4, id int8);
ALTER TABLE radik_fz3 ATTACH PARTITION radik_fz3_shuffled FOR VALUES FROM (MINVALUE) TO (10000);
CREATE TABLE radik_fz3_hashed PARTITION OF radik_fz3 FOR VALUES FROM (10000) TO (25000)
	PARTITION BY HASH (id);
CREATE TABLE radik_fz3_hashed_0 PARTITION OF radik_fz3_hashed FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE radik_fz3_hashed_1 PARTITION OF radik_fz3_hashed FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE TABLE radik_fz3_rest PARTITION OF radik_fz3 FOR VALUES FROM (25000) TO (MAXVALUE)
	WITH (autovacuum_enabled = off);
INSERT INTO radik_fz3 SELECT * FROM radik_fz2;
DELETE FROM radik_fz3 WHERE id >= 25000 AND id % 3 = 0;
ALTER TABLE radik_fz3_shuffled SET (parallel_workers = 2);
ANALYZE radik_fz3;

-- A random element of a list.
CREATE FUNCTION radik_fz_pick(choices text[]) RETURNS text LANGUAGE sql AS $$
	SELECT choices[1 + floor(random() * array_length(choices, 1))::int4]
$$;

-- One generated query: SELECT [rest,] key1 AS k1 [, key2 AS k2] FROM t [WHERE ...]
-- ORDER BY key1 [, key2] LIMIT k [OFFSET m] (or [OFFSET m ROWS] FETCH FIRST k ROWS WITH TIES),
-- with the sort keys always in the output (k1, k2) so that tied rows can be compared by their
-- keys; rest is '*', 'id' or nothing (then only the keys are read: radik makes the rows from
-- them).  Some queries get one clause or second key that fails on some rows (integer or
-- timestamp out of range, division by zero): such a query must raise PostgreSQL's error, or none
-- where a clause that runs before it (PostgreSQL runs the cheapest first) filters those rows
-- out.  One at most: with two that fail with different errors, which one a parallel plan raises
-- depends on which process meets its row first.
CREATE FUNCTION radik_fz_query(OUT stmt text, OUT keys text, OUT base text)
LANGUAGE plpgsql AS $$
DECLARE
	tbl text := radik_fz_pick(ARRAY['radik_fz1', 'radik_fz2', 'radik_fz3']);
	icu_keys text[] := CASE WHEN EXISTS (SELECT FROM pg_collation WHERE collname = 'und-x-icu')
		THEN ARRAY['pad COLLATE "und-x-icu"', '(upper(pad) || a) COLLATE "und-x-icu"']
		ELSE '{}' END;
	key1 text := radik_fz_pick(ARRAY['a', 'b', 'c', 'd', 'e', 'g', 'id', 'm', 'w', 'dt', 'tz',
									 'tm', 'b * 2 - a', 'abs(c - 0.5)', 'a % 7', 'g / 1000 + d',
									 'e - interval ''1 day'' * a', 'c::float8 + coalesce(w, 0)',
									 'dt - a', 'tm + interval ''1 minute'' * d',
									 'a / (d % 5)', 'b::numeric / 7', 'round(c::numeric, 2)',
									 'pad', 'pad COLLATE "C"', 'upper(pad) || a', 'left(pad, 9)',
									 'md5(a::text)::uuid', 'a > 0', 'interval ''1 ms'' * (a % 50)',
									 'e - timestamp ''2000-01-01''',
									 '(''10.0.'' || abs(a % 256) || ''.'' || abs(d % 256))::inet',
									 'round(b / 3)', 'sqrt(abs(b)) - c']
							   || icu_keys);
	key2 text := radik_fz_pick(ARRAY['', '', 'id', 'id DESC', 'a', 'c DESC']);
	dir text := radik_fz_pick(ARRAY['', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST']);
	rest text := radik_fz_pick(ARRAY['*, ', 'id, ', '']);
	failing text := radik_fz_pick(ARRAY['', '', '', 'clause', 'key']);
	clauses text[] := ARRAY['a % 7 <> 0', 'id % 10 <> 0', 'a > 10', 'b < 100', 'c >= 0.25',
							'd <> 0', 'a IS NOT NULL', 'pad IS NULL', 'length(pad) > 5',
							'e > ''2001-01-01''', 'g > 0', 'm > 6', 'NOT (a < 0)',
							'a BETWEEN -5 AND 50', '(c > 0.5 OR d < 0)', 'w < 0.9', 'b = b',
							'dt > ''2020-02-01''', 'tm < ''13:00''', 'tz IS NOT NULL'];
	qual text := '';
	select_list text;
	order_by text;
	lim text;
	off text;
BEGIN
	IF random() < 0.6 THEN
		qual := ' WHERE ' || radik_fz_pick(clauses);
		IF random() < 0.4 THEN
			qual := qual || ' AND ' || radik_fz_pick(clauses);
		END IF;
	END IF;
	IF key1 = 'a / (d % 5)' THEN
		failing := '';			-- the first key fails already (division by zero)
	END IF;
	IF failing = 'clause' THEN
		qual := CASE WHEN qual = '' THEN ' WHERE ' ELSE qual || ' AND ' END ||
			radik_fz_pick(ARRAY['100 / (id % 1000) <> 7', 'a * 30000000 <> 0', 'g * 2 > 0',
								'e + a * interval ''100000 years'' > e']);
	ELSIF failing = 'key' THEN
		key2 := radik_fz_pick(ARRAY['g*2', 'a*30000000 DESC', '100/(id%1000)']);
	END IF;
	select_list := rest || key1 || ' AS k1';
	order_by := key1 || dir;
	keys := 'k1';
	IF key2 <> '' THEN
		select_list := select_list || ', ' || split_part(key2, ' ', 1) || ' AS k2';
		order_by := order_by || ', ' || key2;
		keys := 'k1, k2';
	END IF;
	base := format('SELECT %s FROM %s%s', select_list, tbl, qual);
	lim := radik_fz_pick(ARRAY['1', '3', '10', '100', '1000', '5000', '40000']);
	IF random() < 0.25 THEN
		off := radik_fz_pick(ARRAY['5', '999']);
	END IF;
	IF random() < 0.2 THEN
		stmt := format('%s ORDER BY %s %sFETCH FIRST %s ROWS WITH TIES', base, order_by,
					   coalesce('OFFSET ' || off || ' ROWS ', ''), lim);
	ELSE
		stmt := format('%s ORDER BY %s LIMIT %s', base, order_by, lim)
			|| coalesce(' OFFSET ' || off, '');
	END IF;
END $$;

-- Generated settings for the rest of the transaction, as 'name=value ...': workers or none,
-- a row store that fills up (64kB) or not, and, where seed, the threshold seed on or off.
CREATE FUNCTION radik_fz_settings(seed boolean) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	settings text := format('max_parallel_workers_per_gather=%s work_mem=%s',
							radik_fz_pick(ARRAY['0', '2']), radik_fz_pick(ARRAY['64kB', '4MB']));
BEGIN
	IF seed THEN
		settings := settings || ' radik.threshold_seed=' || radik_fz_pick(ARRAY['on', 'off']);
	END IF;
	PERFORM set_config(split_part(s, '=', 1), split_part(s, '=', 2), true)
		FROM unnest(string_to_array(settings, ' ')) s;
	RETURN settings;
END $$;

-- Run n generated queries, each under generated settings and in a transaction of its own (so
-- that the locks of each comparison's temporary tables are let go), into radik_fz_results.
CREATE TEMP TABLE radik_fz_results (stmt text, settings text, result text);
CREATE PROCEDURE radik_fz_run(n int)
LANGUAGE plpgsql AS $$
DECLARE
	q record;
	settings text;
BEGIN
	FOR i IN 1..n LOOP
		settings := radik_fz_settings(true);
		q := radik_fz_query();
		INSERT INTO radik_fz_results
			VALUES (q.stmt, settings, radik_compare(q.stmt, NULL, q.keys, q.base));
		COMMIT;
	END LOOP;
END $$;

CALL radik_fz_run(400);

SELECT count(*) AS queries,
	   count(*) FILTER (WHERE result = 'ok' OR result LIKE 'same error: %') AS agreed,
	   count(*) FILTER (WHERE result LIKE 'same error: %') > 0 AS some_raised_errors,
	   count(*) FILTER (WHERE stmt LIKE '%WITH TIES') > 0 AS some_kept_ties,
	   count(*) FILTER (WHERE stmt LIKE '% FROM radik_fz3%') > 0 AS some_partitioned,
	   count(*) FILTER (WHERE stmt ~ '(30000000|g ?\* ?2|100 ?/ ?\(id|100000 years)'
						AND result = 'ok') > 0 AS some_failing_rows_filtered
FROM radik_fz_results;
SELECT stmt, settings, result
FROM radik_fz_results
WHERE result <> 'ok' AND result NOT LIKE 'same error: %';

-- One generated question of the best rows of each group: a ranking function's cut over a
-- window, or DISTINCT ON, on radik_fz1 or radik_fz2, with the group key, the sort keys and the
-- ranks in the output (g1, k1, k2, r) so that rows tied on the keys compare by them.
CREATE FUNCTION radik_fz_group_query(OUT stmt text, OUT keys text, OUT base text)
LANGUAGE plpgsql AS $$
DECLARE
	tbl text := radik_fz_pick(ARRAY['radik_fz1', 'radik_fz2']);
	grp text := radik_fz_pick(ARRAY['m', 'a % 10', 'd % 50', 'pad', 'dt', 'id % 5000',
									'a % 3, m % 4']);
	key1 text := radik_fz_pick(ARRAY['b', 'c', 'e', 'g', 'w', 'tz', 'id', 'abs(c - 0.5)',
									 'b * 2 - a', 'floor(c * 4)', 'floor(b / 25)',
									 'pad COLLATE "C"']);
	key2 text := radik_fz_pick(ARRAY['', '', 'id', 'id DESC']);
	dir text := radik_fz_pick(ARRAY['', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST']);
	fn text := radik_fz_pick(ARRAY['row_number', 'rank', 'dense_rank']);
	k text := radik_fz_pick(ARRAY['1', '2', '3', '10']);
	qual text := '';
	group_list text;
	select_list text;
	order_by text;
BEGIN
	IF random() < 0.4 THEN
		qual := ' WHERE ' || radik_fz_pick(ARRAY['a % 7 <> 0', 'c >= 0.25', 'id % 10 <> 0',
												 'b IS NOT NULL']);
	END IF;
	SELECT string_agg(format('%s AS g%s', e, n), ', '), string_agg(format('g%s', n), ', ')
		INTO group_list, keys
		FROM unnest(string_to_array(grp, ', ')) WITH ORDINALITY AS x(e, n);
	select_list := group_list || ', ' || key1 || ' AS k1';
	order_by := key1 || dir;
	keys := keys || ', k1';
	IF key2 <> '' THEN
		select_list := select_list || ', id AS k2';
		order_by := order_by || ', ' || key2;
		keys := keys || ', k2';
	END IF;
	IF random() < 0.7 THEN
		stmt := format('SELECT * FROM (SELECT %s, %s() OVER (PARTITION BY %s ORDER BY %s) AS r FROM %s%s) s WHERE %s',
					   select_list, fn, grp, order_by, tbl, qual,
					   replace(radik_fz_pick(ARRAY['r <= K', 'r < K', 'r = 1', 'r BETWEEN 1 AND K',
												   'r <= K AND k1 IS NOT NULL']), 'K', k));
		keys := keys || ', r';
		base := NULL;
	ELSE
		stmt := format('SELECT DISTINCT ON (%s) %s FROM %s%s ORDER BY %s, %s',
					   grp, select_list, tbl, qual, grp, order_by);
		base := format('SELECT %s FROM %s%s', select_list, tbl, qual);
	END IF;
END $$;

-- Whose plan answered stmt: 'postgres', 'radik', or 'radik, over memory' where its groups
-- passed their memory and the rows came from PostgreSQL's sorted plan below radik's node.
CREATE FUNCTION radik_fz_group_plan(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	plan text := 'postgres';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || stmt LOOP
		IF line ~ 'Selections Over Memory' THEN
			RETURN 'radik, over memory';
		ELSIF line ~ 'RadiK Top-K' THEN
			plan := 'radik';
		END IF;
	END LOOP;
	RETURN plan;
END $$;

CREATE TEMP TABLE radik_fz_group_results (stmt text, settings text, plan text, result text);
CREATE PROCEDURE radik_fz_group_run(n int)
LANGUAGE plpgsql AS $$
DECLARE
	q record;
	settings text;
BEGIN
	FOR i IN 1..n LOOP
		settings := radik_fz_settings(false);
		q := radik_fz_group_query();
		-- radik may decline a question by the planner's estimate of its groups (64kB of work_mem)
		INSERT INTO radik_fz_group_results
			VALUES (q.stmt, settings, radik_fz_group_plan(q.stmt),
					radik_compare(q.stmt, NULL, q.keys, q.base, false));
		COMMIT;
	END LOOP;
END $$;

CALL radik_fz_group_run(200);

SELECT count(*) AS group_queries,
	   count(*) FILTER (WHERE result = 'ok') AS agreed,
	   count(*) FILTER (WHERE plan LIKE 'radik%') > count(*) / 2 AS most_used_radik,
	   count(*) FILTER (WHERE plan LIKE 'radik%' AND stmt LIKE '%DISTINCT ON%') > 0
		   AS some_distinct_on,
	   count(*) FILTER (WHERE plan = 'radik, over memory') > 0 AS some_past_memory
FROM radik_fz_group_results;
SELECT stmt, settings, result
FROM radik_fz_group_results
WHERE result <> 'ok';

DROP TABLE radik_fz1, radik_fz2, radik_fz2_rows, radik_fz3;
