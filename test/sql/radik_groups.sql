-- radik_groups: the best rows of each group (radik_group_paths.c, radik_group_set.c), under a ranking
-- window function's run condition and under DISTINCT ON, and radik_topk(..., group_by).  Every
-- answer, window function values included, is compared inside the test with PostgreSQL's own for
-- the same query with radik disabled (radik_compare: the same rows, or where ties allow several
-- right answers, the same keys); the plans show where radik declines.
LOAD 'radik';
SET radik.force = on;

-- Groups of every kind: an integer (with NULL groups), text in two spellings of each letter, and a
-- group of one row per id; keys with NULLs, NaN, -0 and +0, and a key of four values (ties).
CREATE TABLE radik_gr (id int4, g int4, tg text, v float8, few int2, ts timestamp);
INSERT INTO radik_gr
SELECT i, CASE WHEN i % 89 = 0 THEN NULL ELSE i % 23 END,
	CASE WHEN i % 97 = 0 THEN NULL ELSE chr(65 + i % 6) || CASE WHEN i % 2 = 0 THEN 'x' ELSE 'X' END END,
	CASE WHEN i % 50 = 0 THEN 'NaN' WHEN i % 51 = 0 THEN '-0' WHEN i % 52 = 0 THEN '0'
		 WHEN i % 53 = 0 THEN NULL ELSE (i * 7919 % 1009) / 7.0 END,
	i % 4, timestamp '2024-01-01' + i * interval '1 minute'
FROM generate_series(1, 20000) i;
ANALYZE radik_gr;

-- A case-insensitive collation where ICU is there (grouping 'Ax' with 'AX'); else "C" again.
DO $$
BEGIN
	CREATE COLLATION radik_gr_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
EXCEPTION WHEN OTHERS THEN
	CREATE COLLATION radik_gr_ci FROM "C";
END $$;

SELECT q, radik_compare(q, NULL, k) AS answer
FROM (VALUES
	-- row_number(), rank(), dense_rank(); <=, <, = 1, BETWEEN
	('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM radik_gr) s WHERE r <= 3', 'g, v, r'),
	('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr) s WHERE r < 3', 'g, v, r'),
	('SELECT * FROM (SELECT g, v, id, row_number() OVER (PARTITION BY g ORDER BY v NULLS FIRST, id) AS r FROM radik_gr) s WHERE r = 1', 'g, v, id, r'),
	('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC NULLS LAST) AS r FROM radik_gr) s WHERE r BETWEEN 1 AND 4', 'g, v, r'),
	('SELECT * FROM (SELECT g, few, rank() OVER (PARTITION BY g ORDER BY few) AS r FROM radik_gr) s WHERE r <= 2', 'g, few, r'),
	('SELECT * FROM (SELECT g, few, id, rank() OVER (PARTITION BY g ORDER BY few DESC, id) AS r FROM radik_gr) s WHERE r <= 5', 'g, few, id, r'),
	('SELECT * FROM (SELECT g, few, dense_rank() OVER (PARTITION BY g ORDER BY few DESC) AS r FROM radik_gr) s WHERE r <= 2', 'g, few, r'),
	('SELECT * FROM (SELECT g, v, dense_rank() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr) s WHERE r < 4', 'g, v, r'),
	-- several ranking functions of the window, other conditions ANDed, a WHERE clause below
	('SELECT * FROM (SELECT g, v, row_number() OVER w AS r, rank() OVER w AS rk, dense_rank() OVER w AS d FROM radik_gr WINDOW w AS (PARTITION BY g ORDER BY v DESC)) s WHERE r <= 3', 'g, v, r, rk, d'),
	('SELECT * FROM (SELECT g, v, id, row_number() OVER (PARTITION BY g ORDER BY v, id) AS r FROM radik_gr WHERE id % 3 <> 0) s WHERE r <= 4 AND v > 10 AND id > 100', 'g, v, id, r'),
	-- text groups in two collations, several group keys, an expression as the group
	('SELECT * FROM (SELECT tg, v, row_number() OVER (PARTITION BY tg ORDER BY v DESC) AS r FROM radik_gr) s WHERE r <= 2', 'tg, v, r'),
	('SELECT * FROM (SELECT lower(tg COLLATE radik_gr_ci) AS t, v, row_number() OVER (PARTITION BY tg COLLATE radik_gr_ci ORDER BY v DESC) AS r FROM radik_gr) s WHERE r <= 2', 't, v, r'),
	('SELECT * FROM (SELECT g, tg, ts, rank() OVER (PARTITION BY g, tg ORDER BY ts DESC) AS r FROM radik_gr) s WHERE r <= 2', 'g, tg, ts, r'),
	('SELECT * FROM (SELECT id / 3 AS grp, v, row_number() OVER (PARTITION BY id / 3 ORDER BY v) AS r FROM radik_gr) s WHERE r <= 1', 'grp, v, r'),
	-- k larger than every group, k of none, and a group per row
	('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr) s WHERE r <= 100000', 'g, v, r'),
	('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr) s WHERE r < 1', 'g, v, r'),
	('SELECT * FROM (SELECT id / 2 AS pair, v, rank() OVER (PARTITION BY id / 2 ORDER BY v) AS r FROM radik_gr) s WHERE r <= 1', 'pair, v, r'),
	-- DISTINCT ON
	('SELECT DISTINCT ON (g) g, v, id FROM radik_gr ORDER BY g, v DESC, id', 'g, v, id'),
	('SELECT DISTINCT ON (g) * FROM radik_gr ORDER BY g NULLS FIRST, v NULLS FIRST', 'g, v'),
	('SELECT DISTINCT ON (few, tg) few, tg, ts FROM radik_gr ORDER BY tg DESC, few, ts', 'few, tg, ts'),
	('SELECT DISTINCT ON (g) g, few, id FROM radik_gr WHERE v > 5 ORDER BY g, few DESC, id LIMIT 7', 'g, few, id'),
	('SELECT DISTINCT ON (tg COLLATE radik_gr_ci) tg, v FROM radik_gr ORDER BY tg COLLATE radik_gr_ci, v', 'v')
) t(q, k);

-- Random queries of the same shapes, generated from a fixed seed: group keys, sort keys and
-- directions, ranking functions and bounds, a second sort key and a WHERE clause or not.
SELECT setseed(0.25);
CREATE TEMP TABLE radik_gr_fuzz AS
SELECT format('SELECT * FROM (SELECT %1$s AS grp, %2$s AS key, %3$s() OVER (PARTITION BY %1$s ORDER BY %2$s %4$s %5$s%6$s) AS r FROM radik_gr%7$s) s WHERE r %8$s %9$s',
			  grp, key, fn, dir, nulls, second, filter, op, bound) AS q
FROM (SELECT (ARRAY['g', 'tg', 'few', 'g * 10 + few', 'id % 7'])[1 + floor(random() * 5)] AS grp,
			 (ARRAY['v', 'ts', 'few', 'id'])[1 + floor(random() * 4)] AS key,
			 (ARRAY['row_number', 'rank', 'dense_rank'])[1 + floor(random() * 3)] AS fn,
			 (ARRAY['', 'DESC'])[1 + floor(random() * 2)] AS dir,
			 (ARRAY['', 'NULLS FIRST', 'NULLS LAST'])[1 + floor(random() * 3)] AS nulls,
			 (ARRAY['', ', id', ', ts DESC'])[1 + floor(random() * 3)] AS second,
			 (ARRAY['', ' WHERE v > 50', ' WHERE id % 5 <> 0'])[1 + floor(random() * 3)] AS filter,
			 (ARRAY['<=', '<', '='])[1 + floor(random() * 3)] AS op,
			 1 + floor(random() * 6)::int AS bound
	  FROM generate_series(1, 60)) c;
SELECT count(*) AS queries, count(*) FILTER (WHERE answer <> 'ok') AS not_ok,
	   string_agg(q || ': ' || answer, E'\n') FILTER (WHERE answer <> 'ok') AS failures
FROM (SELECT q, radik_compare(q, NULL, 'grp, key, r') AS answer FROM radik_gr_fuzz) f;

-- Many small groups (the group set's records, the lookups of a page's rows together, the rows
-- returned in order by the set itself where the sort keys are one group key and one exact key):
-- groups of one to three rows, in table order and scattered over it, k at and above their size;
-- negative keys, a NULL group, float groups with -0, +0 and NaN, dates, text; rank() and
-- dense_rank() ties; group keys descending and NULLs first; a second sort key (sorted here).
CREATE TABLE radik_gr_small (id int4, g int4, gs int8, gf float8, gd date, tg text, v float8, few int2);
INSERT INTO radik_gr_small
SELECT i, CASE WHEN i % 101 = 0 THEN NULL ELSE i / 3 - 3000 END,
	i * 7919 % 10007,
	CASE WHEN i % 103 = 0 THEN NULL WHEN i % 7 = 0 THEN '-0' WHEN i % 11 = 0 THEN '0'
		 WHEN i % 13 = 0 THEN 'NaN' ELSE (i / 2) / 4.0 END,
	date '2000-01-01' + i / 2, md5((i / 2)::text),
	CASE WHEN i % 17 = 0 THEN NULL WHEN i % 19 = 0 THEN 'NaN' ELSE (i * 7907 % 10009) / 3.0 END,
	i % 3
FROM generate_series(1, 20000) i;
ANALYZE radik_gr_small;
SELECT q, radik_compare(q, NULL, k) AS answer
FROM (VALUES
	('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM radik_gr_small) s WHERE r <= 1', 'g, v, r'),
	('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v NULLS FIRST) AS r FROM radik_gr_small) s WHERE r <= 2', 'g, v, r'),
	('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr_small) s WHERE r <= 5', 'g, v, r'),
	('SELECT * FROM (SELECT gs, v, row_number() OVER (PARTITION BY gs ORDER BY v DESC NULLS LAST) AS r FROM radik_gr_small) s WHERE r <= 1', 'gs, v, r'),
	('SELECT * FROM (SELECT gs, v, row_number() OVER (PARTITION BY gs ORDER BY v) AS r FROM radik_gr_small) s WHERE r < 3', 'gs, v, r'),
	('SELECT * FROM (SELECT g, few, rank() OVER (PARTITION BY g ORDER BY few) AS r FROM radik_gr_small) s WHERE r <= 1', 'g, few, r'),
	('SELECT * FROM (SELECT gs, few, rank() OVER (PARTITION BY gs ORDER BY few DESC) AS r FROM radik_gr_small) s WHERE r <= 1', 'gs, few, r'),
	('SELECT * FROM (SELECT id / 40 AS grp, few, dense_rank() OVER (PARTITION BY id / 40 ORDER BY few) AS r FROM radik_gr_small) s WHERE r <= 2', 'grp, few, r'),
	('SELECT * FROM (SELECT gf, v, row_number() OVER (PARTITION BY gf ORDER BY v) AS r FROM radik_gr_small) s WHERE r <= 1', 'gf, v, r'),
	('SELECT * FROM (SELECT gd, v, rank() OVER (PARTITION BY gd ORDER BY v DESC) AS r FROM radik_gr_small) s WHERE r <= 1', 'gd, v, r'),
	('SELECT * FROM (SELECT tg, v, row_number() OVER (PARTITION BY tg ORDER BY v) AS r FROM radik_gr_small) s WHERE r <= 1', 'tg, v, r'),
	('SELECT * FROM (SELECT g, v, id, row_number() OVER (PARTITION BY g ORDER BY v, id DESC) AS r FROM radik_gr_small) s WHERE r <= 2', 'g, v, id, r'),
	('SELECT DISTINCT ON (g) g, v FROM radik_gr_small ORDER BY g DESC, v', 'g, v'),
	('SELECT DISTINCT ON (g) g, v FROM radik_gr_small ORDER BY g NULLS FIRST, v DESC NULLS LAST', 'g, v'),
	('SELECT DISTINCT ON (gs) gs, v FROM radik_gr_small ORDER BY gs DESC NULLS LAST, v NULLS FIRST', 'gs, v'),
	('SELECT DISTINCT ON (gf) gf, v FROM radik_gr_small ORDER BY gf DESC, v DESC', 'gf, v'),
	('SELECT DISTINCT ON (gd) gd, v, id FROM radik_gr_small WHERE id % 4 <> 1 ORDER BY gd DESC, v', 'gd, v')
) t(q, k);

-- Sort keys whose engine key summarizes the value (text under "C" and the case-insensitive
-- collation, uuid, interval, inet, an enum): strings sharing their first 8 bytes and values equal
-- under the collation tie on the summary at each group's cut, where the kept rows must still
-- hold every row the window functions rank before the cut.
CREATE TYPE radik_gr_level AS ENUM ('high', 'low');
ALTER TYPE radik_gr_level ADD VALUE 'mid' BEFORE 'low';
CREATE TABLE radik_gr_keys AS
SELECT i AS id, i % 17 AS g,
	CASE WHEN i % 41 = 0 THEN NULL ELSE 'shared-prefix-' || (i * 7) % 13 || CASE WHEN i % 2 = 0 THEN 'a' ELSE 'A' END END AS t,
	md5((i % 300)::text)::uuid AS u,
	make_interval(days => i % 9, secs => ((i * 13) % 5) / 1000.0) AS iv,
	('10.0.' || i % 7 || '.' || (i * 11) % 256)::inet AS ip,
	(ARRAY['high', 'mid', 'low'])[1 + i % 3]::radik_gr_level AS lvl
FROM generate_series(1, 5000) i;
ANALYZE radik_gr_keys;
SELECT q, radik_compare(q, NULL, k) AS answer
FROM (VALUES
	('SELECT * FROM (SELECT g, t, row_number() OVER (PARTITION BY g ORDER BY t COLLATE "C" DESC) AS r FROM radik_gr_keys) s WHERE r <= 3', 'g, t, r'),
	('SELECT * FROM (SELECT g, t, rank() OVER (PARTITION BY g ORDER BY t COLLATE "C" NULLS FIRST) AS r FROM radik_gr_keys) s WHERE r <= 20', 'g, t, r'),
	('SELECT * FROM (SELECT g, lower(t) AS lt, rank() OVER (PARTITION BY g ORDER BY t COLLATE radik_gr_ci) AS r FROM radik_gr_keys) s WHERE r <= 2', 'g, lt, r'),
	('SELECT * FROM (SELECT g, lower(t) AS lt, dense_rank() OVER (PARTITION BY g ORDER BY t COLLATE radik_gr_ci DESC) AS r FROM radik_gr_keys) s WHERE r <= 2', 'g, lt, r'),
	('SELECT * FROM (SELECT g, u, dense_rank() OVER (PARTITION BY g ORDER BY u) AS r FROM radik_gr_keys) s WHERE r <= 3', 'g, u, r'),
	('SELECT * FROM (SELECT g, iv, rank() OVER (PARTITION BY g ORDER BY iv DESC) AS r FROM radik_gr_keys) s WHERE r <= 4', 'g, iv, r'),
	('SELECT * FROM (SELECT g, ip, id, row_number() OVER (PARTITION BY g ORDER BY ip, id) AS r FROM radik_gr_keys) s WHERE r <= 2', 'g, ip, id, r'),
	('SELECT * FROM (SELECT g, lvl, rank() OVER (PARTITION BY g ORDER BY lvl) AS r FROM radik_gr_keys) s WHERE r <= 1', 'g, lvl, r'),
	('SELECT DISTINCT ON (g) g, t, id FROM radik_gr_keys ORDER BY g, t COLLATE "C", id', 'g, t, id'),
	('SELECT DISTINCT ON (g) g, iv FROM radik_gr_keys ORDER BY g, iv DESC', 'g, iv')
) t(q, k);
DROP TABLE radik_gr_keys;
DROP TYPE radik_gr_level;

-- An empty table.
CREATE TABLE radik_gr_empty (LIKE radik_gr);
SELECT radik_compare('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr_empty) s WHERE r <= 3') AS empty_table,
	   radik_compare('SELECT DISTINCT ON (g) g, v FROM radik_gr_empty ORDER BY g, v') AS empty_distinct;

-- The plan: radik's node instead of the Sort, under radik's own numbering of its rows (RadiK
-- Rank, in place of PostgreSQL's WindowAgg) or, for DISTINCT ON, alone: it returns each group's
-- first row itself, in place of PostgreSQL's Unique.
SELECT radik_explain('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM radik_gr) s WHERE r <= 3');
EXPLAIN (COSTS OFF) SELECT DISTINCT ON (g) g, v FROM radik_gr ORDER BY g, v DESC;
-- Each scan of the node under a nested loop begins its groups afresh (one group a scan here, the
-- same group in the first two).
SELECT radik_compare('SELECT o.x, s.* FROM (VALUES (1), (1), (2)) o(x) CROSS JOIN LATERAL (SELECT DISTINCT ON (g) g, few, v FROM radik_gr WHERE g IN (o.x, o.x + 100) ORDER BY g, few DESC, v DESC) s') AS distinct_on_rescanned;
SELECT line FROM radik_explain('SELECT * FROM (SELECT g, v, dense_rank() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr) s WHERE r < 4', true) line
WHERE line ~ '(Top K per Group|Groups):';

-- k as a query parameter (a generic plan), each statement prepared twice: with radik and without.
PREPARE radik_gr_k(int8) AS SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr) s WHERE r <= $1;
PREPARE radik_gr_k_pg(int8) AS SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr) s WHERE r <= $1;
SET plan_cache_mode = force_generic_plan;
SELECT k, radik_compare(format('EXECUTE radik_gr_k(%s)', k), format('EXECUTE radik_gr_k_pg(%s)', k), 'g, v, r') AS answer
FROM unnest(ARRAY[0, 1, 3, 1000]) k;
RESET plan_cache_mode;
DEALLOCATE ALL;

-- Run conditions compared with their bounds: the function on either side, bounds of each integer
-- type, and a NULL bound, which no row passes.
SELECT q, radik_compare(q, NULL, 'g, few, r') AS answer FROM unnest(ARRAY[
	'SELECT * FROM (SELECT g, few, rank() OVER (PARTITION BY g ORDER BY few) AS r FROM radik_gr) s WHERE 2 >= r',
	'SELECT * FROM (SELECT g, few, dense_rank() OVER (PARTITION BY g ORDER BY few) AS r FROM radik_gr) s WHERE r < 3::int2',
	'SELECT * FROM (SELECT g, few, row_number() OVER (PARTITION BY g ORDER BY few) AS r FROM radik_gr) s WHERE 4::int4 > r AND r >= 2'
]) q;
PREPARE radik_gr_null_k(int4) AS SELECT * FROM (SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr) s WHERE r <= $1;
PREPARE radik_gr_null_k_pg(int4) AS SELECT * FROM (SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr) s WHERE r <= $1;
SET plan_cache_mode = force_generic_plan;
SELECT k, radik_compare(format('EXECUTE radik_gr_null_k(%s)', k), format('EXECUTE radik_gr_null_k_pg(%s)', k), 'g, v, r') AS answer
FROM unnest(ARRAY['NULL', '2']) k;
RESET plan_cache_mode;
DEALLOCATE ALL;

-- Parallel workers: each keeps its own groups, the backend running the query merges them.
CREATE TABLE radik_gr_big AS
	SELECT i AS id, i % 101 AS g, (i * 7919 % 100003) / 3.0 AS v, md5(i::text) AS tg
	FROM generate_series(1, 200000) i;
ALTER TABLE radik_gr_big SET (parallel_workers = 2);
ANALYZE radik_gr_big;
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT count(*) AS workers_planned
FROM radik_explain('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM radik_gr_big) s WHERE r <= 3') line
WHERE line ~ 'Workers Planned: 2';
SELECT q, radik_compare(q, NULL, k) AS answer
FROM (VALUES
	('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM radik_gr_big) s WHERE r <= 3', 'g, v, r'),
	('SELECT * FROM (SELECT g % 13 AS p, v, rank() OVER (PARTITION BY g % 13 ORDER BY v) AS r FROM radik_gr_big) s WHERE r <= 2', 'p, v, r'),
	('SELECT DISTINCT ON (g) g, v, id FROM radik_gr_big ORDER BY g, v, id', 'g, v, id')
) t(q, k);
-- Workers allowed but dear: radik's node reads the table without them, not PostgreSQL's plan
-- (radik.force offers radik's node with workers only).
SET radik.force = off;
SET parallel_setup_cost = 1e9;
SELECT q, radik_plan_uses_radik(q) AS uses_radik,
	NOT EXISTS (SELECT FROM radik_explain(q) line WHERE line ~ 'Workers Planned') AS no_workers,
	radik_compare(q, NULL, k) AS answer
FROM (VALUES
	('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM radik_gr_big) s WHERE r <= 3', 'g, v, r'),
	('SELECT DISTINCT ON (g) g, v, id FROM radik_gr_big ORDER BY g, v, id', 'g, v, id')
) t(q, k);
SET parallel_setup_cost = 0;
SET radik.force = on;
-- Many small groups, in table order and scattered, each worker sending its share of them.
SET work_mem = '64MB';
SELECT q, radik_compare(q, NULL, k) AS answer
FROM (VALUES
	('SELECT * FROM (SELECT id / 2 AS p, v, row_number() OVER (PARTITION BY id / 2 ORDER BY v DESC) AS r FROM radik_gr_big) s WHERE r <= 1', 'p, v, r'),
	('SELECT * FROM (SELECT id * 7919 % 50021 AS p, v, rank() OVER (PARTITION BY id * 7919 % 50021 ORDER BY v) AS r FROM radik_gr_big) s WHERE r <= 2', 'p, v, r'),
	('SELECT DISTINCT ON (id % 65537) id % 65537 AS p, v FROM radik_gr_big ORDER BY id % 65537 DESC, v', 'p, v')
) t(q, k);
RESET work_mem;
-- The workers' groups of a key grouped by its bits, merged with the backend's in the order of the
-- keys: groups scattered over the table (each in every process), a NULL group, NULL and tied sort
-- keys, every cut, both orders of the groups with NULLs first and last, a float key (-0, +0, NaN
-- and NULL groups) whose rows the node sorts again, and a text key (added group by group).
CREATE TABLE radik_gr_merge AS
	SELECT i AS id, CASE WHEN i % 997 = 0 THEN NULL ELSE i * 7919 % 30011 END AS g,
		CASE WHEN i % 101 = 0 THEN NULL ELSE i * 31 % 7 END AS v,
		CASE i % 5 WHEN 0 THEN '-0' WHEN 1 THEN '0' WHEN 2 THEN 'NaN' WHEN 3 THEN NULL
			ELSE (i % 7)::float8 END AS f,
		left(md5(i::text), 3) AS t
	FROM generate_series(1, 200000) i;
ALTER TABLE radik_gr_merge SET (parallel_workers = 2);
ANALYZE radik_gr_merge;
SET work_mem = '64MB';
-- The rows sent are the rows before each group's cut, ties included: those whose rank is at most 2.
SELECT (radik_analyzed_scan(q) ->> 'Workers Launched')::int > 0 AS workers_ran,
	(radik_analyzed_scan(q) ->> 'Groups')::int AS groups,
	(SELECT count(DISTINCT g) + 1 FROM radik_gr_merge) AS groups_wanted,
	(radik_analyzed_scan(q) ->> 'Rows Sent')::int AS rows_sent,
	(SELECT count(*) FROM (SELECT rank() OVER (PARTITION BY g ORDER BY v DESC) AS r
						   FROM radik_gr_merge) s WHERE r <= 2) AS rows_wanted
FROM (VALUES ('SELECT * FROM (SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM radik_gr_merge) s WHERE r <= 2')) t(q);
-- row_number() and DISTINCT ON by one exact sort key keep no rows tied at the cut: rows equal on
-- every sort key are peers, which PostgreSQL's sort returns in no particular order, so the rows
-- sent are the rows returned (those of the first two, or first one, of each group); with a later
-- sort key the ties are kept, since it orders them.
SELECT label, (radik_analyzed_scan(q) ->> 'Rows Sent')::bigint = (SELECT sum(least(n, k)) FROM
		(SELECT count(*) AS n FROM radik_gr_merge GROUP BY g) c) AS rows_sent_are_returned,
	radik_compare(q, NULL, keys) AS answer
FROM (VALUES
	('row_number', 'SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM radik_gr_merge) s WHERE r <= 2', 2, 'g, v, r'),
	('distinct on', 'SELECT DISTINCT ON (g) g, v FROM radik_gr_merge ORDER BY g, v DESC', 1, 'g, v'),
	('later key', 'SELECT * FROM (SELECT g, v, id, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS r FROM radik_gr_merge) s WHERE r <= 2', 2, NULL)
) t(label, q, k, keys);
SELECT q, radik_compare(q, NULL, k) AS answer
FROM (VALUES
	('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM radik_gr_merge) s WHERE r <= 2', 'g, v, r'),
	('SELECT * FROM (SELECT g, v, rank() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr_merge) s WHERE r <= 2', 'g, v, r'),
	('SELECT * FROM (SELECT g, v, dense_rank() OVER (PARTITION BY g ORDER BY v DESC) AS r FROM radik_gr_merge) s WHERE r <= 2', 'g, v, r'),
	('SELECT DISTINCT ON (g) g, v FROM radik_gr_merge ORDER BY g DESC NULLS LAST, v', 'g, v'),
	('SELECT DISTINCT ON (g) g, v FROM radik_gr_merge ORDER BY g NULLS FIRST, v DESC NULLS LAST', 'g, v'),
	('SELECT * FROM (SELECT f, v, id, row_number() OVER (PARTITION BY f ORDER BY v, id) AS r FROM radik_gr_merge) s WHERE r <= 3', 'f, v, id, r'),
	('SELECT * FROM (SELECT t, v, dense_rank() OVER (PARTITION BY t ORDER BY v DESC) AS r FROM radik_gr_merge) s WHERE r <= 1', 't, v, r')
) t(q, k);
RESET work_mem;
-- A group per row, as the statistics say: nothing to select, so the plan is PostgreSQL's.
SELECT radik_plan_uses_radik('SELECT * FROM (SELECT tg, v, row_number() OVER (PARTITION BY tg ORDER BY v) AS r FROM radik_gr_big) s WHERE r <= 1') AS group_per_row_uses_radik;
RESET min_parallel_table_scan_size;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET max_parallel_workers_per_gather;

-- Groups beyond their memory (work_mem x hash_mem_multiplier in each process): the planner's
-- estimate of the groups can be wrong, or a guess (a table not analyzed yet: PostgreSQL takes
-- 200 groups however many there are), so radik's node holds PostgreSQL's own sorted plan below
-- it.  Where the groups pass their memory, as 100000 groups do in 64kB, every process stops and
-- the node returns that plan's rows: the same answers, in a backend alone and with workers,
-- grouped by a key's bits and the general way, in a cursor walked both ways, and again on a
-- rescan.
CREATE TABLE radik_gr_unanalyzed WITH (autovacuum_enabled = off, parallel_workers = 2) AS
	SELECT i AS id, (i * 7919 % 1000)::float8 AS v, i % 500 AS g, i % 100000 AS many,
		   md5((i % 100000)::text) AS tg
	FROM generate_series(1, 200000) i;
SET work_mem = '64kB';
SELECT line FROM radik_explain('SELECT * FROM (SELECT many, v, row_number() OVER (PARTITION BY many ORDER BY v) AS r FROM radik_gr_unanalyzed) s WHERE r <= 1', true) line
WHERE line ~ '(Custom Scan|Selections Over Memory|Sort \(|Seq Scan)';
CREATE TEMP TABLE radik_gr_over_questions (q text, k text);
INSERT INTO radik_gr_over_questions VALUES
	('SELECT * FROM (SELECT many, v, row_number() OVER (PARTITION BY many ORDER BY v) AS r FROM radik_gr_unanalyzed) s WHERE r <= 1', 'many, v, r'),
	('SELECT * FROM (SELECT tg, v, id, rank() OVER (PARTITION BY tg ORDER BY v DESC) AS r FROM radik_gr_unanalyzed) s WHERE r <= 2', 'tg, v, r'),
	('SELECT DISTINCT ON (many) many, v, id FROM radik_gr_unanalyzed ORDER BY many, v, id', 'many, v, id'),
	('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr_unanalyzed) s WHERE r <= 1', 'g, v, r'),
	-- a group's two rows tie on v; rank() and dense_rank() tell them apart by the second key
	('SELECT * FROM (SELECT many, v, id % 3 AS m, row_number() OVER w AS n, rank() OVER w AS r, dense_rank() OVER w AS d FROM radik_gr_unanalyzed WINDOW w AS (PARTITION BY many ORDER BY v, id % 3)) s WHERE r <= 2', 'many, v, m, n, r, d'),
	('SELECT * FROM (SELECT tg, v, rank() OVER w AS r, dense_rank() OVER w AS d FROM radik_gr_unanalyzed WINDOW w AS (PARTITION BY tg ORDER BY v)) s WHERE r <= 1', 'tg, v, r, d');
SELECT q, radik_compare(q, NULL, k) AS answer FROM radik_gr_over_questions;
SELECT radik_cursor_moves('SELECT DISTINCT ON (many) many, v, id FROM radik_gr_unanalyzed WHERE many % 40 = 0 ORDER BY many, v, id', true, true) =
	   radik_cursor_moves('SELECT DISTINCT ON (many) many, v, id FROM radik_gr_unanalyzed WHERE many % 40 = 0 ORDER BY many, v, id', false, true) AS cursor_same;
SELECT radik_compare('SELECT x, (SELECT sum(v) FROM (SELECT DISTINCT ON (many) many, v FROM radik_gr_unanalyzed WHERE many > x ORDER BY many, v) d) FROM generate_series(99990, 99993) x',
					 NULL, NULL) AS rescanned,
	   radik_compare('SELECT x, (SELECT sum(r * v) FROM (SELECT many, v, rank() OVER (PARTITION BY many ORDER BY v DESC, id) AS r FROM radik_gr_unanalyzed WHERE many > x) s WHERE r <= 2) FROM generate_series(99990, 99993) x',
					 NULL, NULL) AS ranks_rescanned;
-- radik_topk's group_by runs the same window query, and falls back the same way (keys compared,
-- since a group's two rows tie on v).
SET radik.enabled = off;
CREATE TEMP TABLE radik_gr_over_want AS
	SELECT ROW(many, v)::text AS k, row_number() OVER (ORDER BY many) AS pos
	FROM (SELECT many, v, row_number() OVER (PARTITION BY many ORDER BY v DESC) AS r
		  FROM radik_gr_unanalyzed) s WHERE r <= 1;
SET radik.enabled = on;
CREATE TEMP TABLE radik_gr_over_got AS
	SELECT ROW(many, v)::text AS k, row_number() OVER () AS pos
	FROM radik_topk(NULL::radik_gr_unanalyzed, 'v', 1, group_by => 'many');
SELECT count(*) AS rows, count(*) FILTER (WHERE w.k IS DISTINCT FROM g.k) AS different
FROM radik_gr_over_want w FULL JOIN radik_gr_over_got g USING (pos);
DROP TABLE radik_gr_over_want, radik_gr_over_got;

SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT line FROM radik_explain('SELECT * FROM (SELECT tg, v, row_number() OVER (PARTITION BY tg ORDER BY v) AS r FROM radik_gr_unanalyzed) s WHERE r <= 1', true) line
WHERE line ~ '(Custom Scan|Workers Launched|Selections Over Memory)';
-- DISTINCT ON's own plan below the node is PostgreSQL's cheapest sorted one, here a Gather Merge
-- of sorted parallel scans, which it returns once the groups pass their memory.
SELECT line FROM radik_explain('SELECT DISTINCT ON (many) many, v, id FROM radik_gr_unanalyzed ORDER BY many, v, id', true) line
WHERE line ~ '(Custom Scan|Gather Merge|Selections Over Memory)';
SELECT q, radik_compare(q, NULL, k) AS answer FROM radik_gr_over_questions;
RESET min_parallel_table_scan_size;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET max_parallel_workers_per_gather;
RESET work_mem;
DROP TABLE radik_gr_over_questions;
-- Once the table is analyzed, the planner estimates the 100000 groups, whose rows would not fit
-- in 64kB; radik still takes the query, since an estimate of many groups from ANALYZE's sample
-- can be far too high, and the memory check at run time decides: the node returns PostgreSQL's
-- plan's rows.  The 500 groups fit.
ANALYZE radik_gr_unanalyzed;
SET work_mem = '64kB';
SELECT line FROM radik_explain('SELECT * FROM (SELECT many, v, row_number() OVER (PARTITION BY many ORDER BY v) AS r FROM radik_gr_unanalyzed) s WHERE r <= 1', true) line
WHERE line ~ '(Custom Scan|Selections Over Memory)';
SELECT radik_compare('SELECT * FROM (SELECT many, v, row_number() OVER (PARTITION BY many ORDER BY v) AS r FROM radik_gr_unanalyzed) s WHERE r <= 1', NULL, 'many, v, r') AS many_groups_analyzed;
RESET work_mem;
SELECT radik_compare('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr_unanalyzed) s WHERE r <= 1') AS analyzed;
-- Groups whose rows tie on the selecting key: rank() keeps every row tied at a group's cut, here
-- 60 rows in each of 1000 groups.  The planner's counts of the groups and of their keys are of
-- values ANALYZE's sample saw, so radik trusts them: in 512kB the tied rows would not fit, and
-- radik declines, saying why, where the query reads a column beside the keys (id), while
-- row_number() over a key without ties fits.  Where it reads only the group key and the sort
-- key, the groups count their tied rows instead of keeping each (a candidate a key), which fits
-- both by the planner's estimate and at run time (no selection over memory).  With the default
-- work_mem all are taken, and every answer is PostgreSQL's.
CREATE TABLE radik_gr_ties AS
	SELECT i % 1000 AS g, (i / 1000) % 5 AS few, (i::int8 * 7919 % 10007)::float8 AS v, i AS id
	FROM generate_series(1, 300000) i;
ANALYZE radik_gr_ties;
CREATE TEMP TABLE radik_gr_ties_questions (q text, k text);
INSERT INTO radik_gr_ties_questions VALUES
	('SELECT * FROM (SELECT g, few, rank() OVER (PARTITION BY g ORDER BY few) AS r FROM radik_gr_ties) s WHERE r <= 3', 'g, few, r'),
	('SELECT * FROM (SELECT g, few, id, rank() OVER (PARTITION BY g ORDER BY few) AS r FROM radik_gr_ties) s WHERE r <= 3', 'g, few, r'),
	('SELECT * FROM (SELECT g, v, id, row_number() OVER (PARTITION BY g ORDER BY v, id) AS r FROM radik_gr_ties) s WHERE r <= 3', 'g, v, id, r');
SET work_mem = '512kB';
SELECT q, radik_plan_uses_radik(q) AS uses_radik_in_512kb FROM radik_gr_ties_questions;
DO $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' ||
		(SELECT q FROM radik_gr_ties_questions WHERE q ~ 'id, rank') LOOP
		IF line LIKE 'RadiK Declined%' THEN
			RAISE NOTICE '%', line;
		END IF;
	END LOOP;
END $$;
SELECT radik_compare(q, NULL, k) AS counted_answer,
	radik_analyzed_scan(q) ->> 'Selections Over Memory' AS counted_over_memory
FROM radik_gr_ties_questions WHERE q ~ 'few, rank';
RESET work_mem;
SELECT q, radik_compare(q, NULL, k) AS answer FROM radik_gr_ties_questions;
DROP TABLE radik_gr_ties_questions;
DROP TABLE radik_gr_ties;
-- Groups of an expression without statistics of its own: the planner counts as many groups as
-- id has (200000), only a bound, so radik takes the query and the memory check at run time
-- decides.  id / 1000 has 201 groups, which fit; id / 2 has 100001, which pass the memory, and
-- the node returns PostgreSQL's plan's rows.  With statistics on the expression (CREATE
-- STATISTICS), the estimate is the planner's own, and the same holds.
SET work_mem = '1MB';
CREATE TEMP TABLE radik_gr_bound_questions (q text, k text);
INSERT INTO radik_gr_bound_questions VALUES
	('SELECT * FROM (SELECT id / 1000 AS b, v, id, row_number() OVER (PARTITION BY id / 1000 ORDER BY v DESC, id) AS r FROM radik_gr_unanalyzed) s WHERE r <= 2', 'b, v, id, r'),
	('SELECT DISTINCT ON (id / 1000) id / 1000 AS b, v, id FROM radik_gr_unanalyzed ORDER BY id / 1000, v, id', 'b, v, id'),
	('SELECT * FROM (SELECT id / 2 AS b, v, id, row_number() OVER (PARTITION BY id / 2 ORDER BY v, id) AS r FROM radik_gr_unanalyzed) s WHERE r <= 1', 'b, v, id, r');
SELECT q, radik_compare(q, NULL, k) AS answer FROM radik_gr_bound_questions;
SELECT q, line
FROM radik_gr_bound_questions, radik_explain(q, true) line
WHERE line ~ '(Custom Scan|Selections Over Memory)';
CREATE STATISTICS radik_gr_half ON (id / 2) FROM radik_gr_unanalyzed;
ANALYZE radik_gr_unanalyzed;
SELECT q, radik_compare(q, NULL, k) AS with_statistics
FROM radik_gr_bound_questions WHERE q ~ 'id / 2';
RESET work_mem;
DROP TABLE radik_gr_bound_questions;
DROP TABLE radik_gr_unanalyzed;

-- radik_topk's group_by: the k rows of each group, as PostgreSQL's window query returns them
-- (keys compared, since rows tied on the key may be either).
SET radik.enabled = off;
CREATE TEMP TABLE radik_gr_want AS
	SELECT 'largest' AS kind, ROW(g, v)::text AS k, row_number() OVER (ORDER BY g, r) AS pos
	FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC) AS r
		  FROM radik_gr WHERE v IS NOT NULL) s WHERE r <= 2
	UNION ALL
	SELECT 'smallest', ROW(tg, ts)::text, row_number() OVER (ORDER BY tg, r)
	FROM (SELECT tg, ts, row_number() OVER (PARTITION BY tg ORDER BY ts) AS r
		  FROM radik_gr WHERE ts IS NOT NULL) s WHERE r <= 3;
SET radik.enabled = on;
CREATE TEMP TABLE radik_gr_got AS
	SELECT 'largest' AS kind, ROW(g, v)::text AS k, row_number() OVER () AS pos
	FROM radik_topk(NULL::radik_gr, 'v', 2, group_by => 'g')
	UNION ALL
	SELECT 'smallest', ROW(tg, ts)::text, row_number() OVER ()
	FROM radik_topk(NULL::radik_gr, 'ts', 3, smallest => true, group_by => 'tg');
SELECT kind, count(*) AS rows, count(*) FILTER (WHERE w.k IS DISTINCT FROM g.k) AS different
FROM radik_gr_want w FULL JOIN radik_gr_got g USING (kind, pos)
GROUP BY kind ORDER BY kind;
SELECT * FROM radik_topk(NULL::radik_gr, 'v', 2, group_by => 'no_such_column');

-- Where radik declines: window functions that see rows outside each group's top k, several
-- windows, no run condition, a volatile key, a key type radik does not order, aggregates, a
-- group key unique by its statistics (every row its own group), a partitioned table.
SELECT q, radik_plan_uses_radik(q) AS uses_radik
FROM unnest(ARRAY[
	'SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r, count(*) OVER (PARTITION BY g) AS n FROM radik_gr) s WHERE r <= 3',
	'SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r, sum(v) OVER (PARTITION BY g ORDER BY v) AS s FROM radik_gr) s WHERE r <= 3',
	'SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r, lag(v) OVER (PARTITION BY tg ORDER BY v) AS l FROM radik_gr) s WHERE r <= 3',
	'SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr) s',
	'SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr) s WHERE r > 3',
	'SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v + random()) AS r FROM radik_gr) s WHERE r <= 3',
	'SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY ARRAY[v]) AS r FROM radik_gr) s WHERE r <= 3',
	'SELECT * FROM (SELECT g, max(v) AS m, row_number() OVER (PARTITION BY g % 3 ORDER BY max(v)) AS r FROM radik_gr GROUP BY g) s WHERE r <= 1',
	'SELECT DISTINCT ON (g) g, v FROM radik_gr ORDER BY g',
	'SELECT * FROM (SELECT id, v, rank() OVER (PARTITION BY id ORDER BY v) AS r FROM radik_gr) s WHERE r <= 1',
	'SELECT DISTINCT g, v FROM radik_gr ORDER BY g, v'
]) q;
-- Group keys an integer column divided by a constant, or its remainder, computed from the
-- column's value (radik_group_set.c): every integer type and mixed types, negative values and
-- divisors, NULLs, each type's extremes; and the divisors left to the executor (-1, which
-- overflows at the type's minimum, and 0), whose errors are PostgreSQL's.  Alone and with
-- parallel workers, which compute them too.
CREATE TABLE radik_gr_arith (a2 int2, a4 int4, a8 int8, v float8) WITH (parallel_workers = 2);
INSERT INTO radik_gr_arith
SELECT CASE WHEN i % 41 = 0 THEN NULL ELSE (i * 37 % 60001 - 30000)::int2 END,
	CASE WHEN i % 43 = 0 THEN NULL ELSE i * 7919 % 200003 - 100000 END,
	CASE WHEN i % 47 = 0 THEN NULL ELSE (i::int8 * 104729 % 2000003 - 1000000) * 1000003 END,
	(i * 131 % 10007) / 3.0
FROM generate_series(1, 30000) i;
INSERT INTO radik_gr_arith VALUES (-32768, -2147483648, -9223372036854775808, 1),
	(32767, 2147483647, 9223372036854775807, 2), (-32768, -2147483648, -9223372036854775808, 0.5);
ANALYZE radik_gr_arith;
CREATE FUNCTION radik_gr_arith_answers() RETURNS TABLE (q text, answer text)
LANGUAGE sql AS $$
	SELECT q, radik_compare(q, NULL, k)
	FROM (VALUES
		('SELECT * FROM (SELECT a4 / 1000 AS g, v, row_number() OVER (PARTITION BY a4 / 1000 ORDER BY v DESC) AS r FROM radik_gr_arith) s WHERE r <= 2', 'g, v, r'),
		('SELECT DISTINCT ON (a4 / -7) a4 / -7 AS g, v FROM radik_gr_arith ORDER BY a4 / -7, v', 'g, v'),
		('SELECT DISTINCT ON (a4 % 97) a4 % 97 AS g, v FROM radik_gr_arith ORDER BY a4 % 97 DESC, v', 'g, v'),
		('SELECT DISTINCT ON (a4 % -5) a4 % -5 AS g, v FROM radik_gr_arith ORDER BY a4 % -5, v', 'g, v'),
		('SELECT DISTINCT ON (a2 / 300) a2 / 300 AS g, v FROM radik_gr_arith ORDER BY a2 / 300, v DESC', 'g, v'),
		('SELECT DISTINCT ON (a2 % 11) a2 % 11 AS g, v FROM radik_gr_arith ORDER BY a2 % 11, v', 'g, v'),
		('SELECT DISTINCT ON (a2 / 1000000) a2 / 1000000 AS g, v FROM radik_gr_arith ORDER BY a2 / 1000000, v', 'g, v'),
		('SELECT DISTINCT ON (a2 / 1000::int8) a2 / 1000::int8 AS g, v FROM radik_gr_arith ORDER BY a2 / 1000::int8, v', 'g, v'),
		('SELECT DISTINCT ON (a4 / 3::int2) a4 / 3::int2 AS g, v FROM radik_gr_arith ORDER BY a4 / 3::int2, v', 'g, v'),
		('SELECT DISTINCT ON (a4 / 5000000000) a4 / 5000000000 AS g, v FROM radik_gr_arith ORDER BY a4 / 5000000000, v', 'g, v'),
		('SELECT * FROM (SELECT a8 / 50 AS g, v, rank() OVER (PARTITION BY a8 / 50 ORDER BY v) AS r FROM radik_gr_arith) s WHERE r <= 1', 'g, v, r'),
		('SELECT DISTINCT ON (a8 / 3000000007) a8 / 3000000007 AS g, v FROM radik_gr_arith ORDER BY a8 / 3000000007, v', 'g, v'),
		('SELECT DISTINCT ON (a8 / -2::int2) a8 / -2::int2 AS g, v FROM radik_gr_arith ORDER BY a8 / -2::int2, v', 'g, v'),
		('SELECT DISTINCT ON (a8 % 1000) a8 % 1000 AS g, v FROM radik_gr_arith ORDER BY a8 % 1000, v', 'g, v'),
		('SELECT DISTINCT ON (a8 / 1) a8 / 1 AS g, v FROM radik_gr_arith ORDER BY a8 / 1, v', 'g, v'),
		('SELECT DISTINCT ON (a4 / -1) a4 / -1 AS g, v FROM radik_gr_arith ORDER BY a4 / -1, v', 'g, v'),
		('SELECT DISTINCT ON (a4 % -1) a4 % -1 AS g, v FROM radik_gr_arith ORDER BY a4 % -1, v', 'g, v'),
		('SELECT DISTINCT ON (a8 / 0) a8 / 0 AS g, v FROM radik_gr_arith ORDER BY a8 / 0, v', 'g, v'),
		('SELECT DISTINCT ON (a4 % 0) a4 % 0 AS g, v FROM radik_gr_arith ORDER BY a4 % 0, v', 'g, v'))
		AS c(q, k)
$$;
SELECT * FROM radik_gr_arith_answers();
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM radik_gr_arith_answers();
RESET min_parallel_table_scan_size;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET max_parallel_workers_per_gather;
DROP FUNCTION radik_gr_arith_answers();
DROP TABLE radik_gr_arith;

CREATE TABLE radik_gr_parted (g int4, v float8) PARTITION BY RANGE (g);
CREATE TABLE radik_gr_parted_1 PARTITION OF radik_gr_parted FOR VALUES FROM (0) TO (10);
CREATE TABLE radik_gr_parted_2 PARTITION OF radik_gr_parted FOR VALUES FROM (10) TO (100);
INSERT INTO radik_gr_parted SELECT g, v FROM radik_gr WHERE g IS NOT NULL;
ANALYZE radik_gr_parted;
SELECT radik_plan_uses_radik('SELECT * FROM (SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) AS r FROM radik_gr_parted) s WHERE r <= 3') AS partitioned_uses_radik;

RESET radik.force;
DROP TABLE radik_gr, radik_gr_small, radik_gr_empty, radik_gr_big, radik_gr_merge, radik_gr_parted, radik_gr_want, radik_gr_got, radik_gr_fuzz;
DROP COLLATION radik_gr_ci;
