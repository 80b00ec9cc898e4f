-- radik_partition: ORDER BY ... LIMIT over a partitioned table, an inheritance tree and a UNION
-- ALL of tables.  radik's node reads each member (partition, child, arm) that is a plain table and
-- yields its best LIMIT + OFFSET rows in order; PostgreSQL's Merge Append merges them and its
-- Limit node stops.  Every answer is compared with PostgreSQL's own (radik_compare in
-- radik_setup.sql), whose plan sorts the members' rows.
LOAD 'radik';
SET radik.force = on;

-- radik_t's rows, range-partitioned on id: a partition whose columns lie in another order, with
-- a dropped one; a partition itself partitioned by list (with a default); an empty partition; and
-- a default partition that takes the special values (ids 3001-3013).
CREATE TABLE radik_part (id int4, grp int4, few int2, i2 int2, i8 int8, f4 float4, f8 float8,
						 n numeric, ts timestamp, tz timestamptz)
	PARTITION BY RANGE (id);
CREATE TABLE radik_part_low PARTITION OF radik_part FOR VALUES FROM (MINVALUE) TO (1000);
CREATE TABLE radik_part_shuffled (tz timestamptz, dropped text, n numeric, f8 float8, ts timestamp,
								  f4 float4, i8 int8, i2 int2, few int2, grp int4, id int4);
ALTER TABLE radik_part_shuffled DROP COLUMN dropped;
ALTER TABLE radik_part ATTACH PARTITION radik_part_shuffled FOR VALUES FROM (1000) TO (2000);
CREATE TABLE radik_part_by_grp PARTITION OF radik_part FOR VALUES FROM (2000) TO (3001)
	PARTITION BY LIST (grp);
CREATE TABLE radik_part_grp_low PARTITION OF radik_part_by_grp FOR VALUES IN (0, 1, 2);
CREATE TABLE radik_part_grp_other PARTITION OF radik_part_by_grp DEFAULT;
CREATE TABLE radik_part_empty PARTITION OF radik_part FOR VALUES FROM (5000) TO (6000);
CREATE TABLE radik_part_default PARTITION OF radik_part DEFAULT;
INSERT INTO radik_part (id, grp, few, i2, i8, f4, f8, n, ts, tz)
SELECT id, grp, few, i2, i8, f4, f8, (i8 / 1000000)::numeric / 7, ts, tz FROM radik_t;
ANALYZE radik_part;
SELECT tableoid::regclass AS partition, count(*) FROM radik_part GROUP BY 1 ORDER BY 1;

-- The plans: a Merge Append over radik's node on each partition, each asked for LIMIT + OFFSET
-- rows; partitions the WHERE clause rules out are not read.
EXPLAIN (COSTS OFF) SELECT * FROM radik_part ORDER BY f8 DESC LIMIT 5 OFFSET 2;
EXPLAIN (COSTS OFF) SELECT id, f8 FROM radik_part WHERE id >= 1500 AND grp = 4 ORDER BY f8 LIMIT 5;
SELECT radik_explain('SELECT id FROM radik_part WHERE id < 2000 ORDER BY i8 LIMIT 3', true);

-- Every key type, both directions, NULLs first and last, k from 1 to more than the table has.
SELECT ord, k, radik_check('*', 'radik_part', ord, 'LIMIT ' || k, split_part(ord, ' ', 1)) AS result
FROM unnest(ARRAY['i2', 'i8 DESC', 'f4 NULLS FIRST', 'f8 DESC NULLS LAST', 'f8', 'n DESC',
				  'ts', 'tz DESC NULLS FIRST', 'few']) AS ord,
	 unnest(ARRAY[1, 7, 200, 2999, 5000]) AS k
ORDER BY ord, k;

-- OFFSET, FETCH FIRST ... WITH TIES, several keys, expressions, the key column alone, tableoid,
-- and WHERE clauses that rule partitions out at plan time or filter inside them.
SELECT q, radik_compare(q, NULL, keys, base) AS result
FROM (VALUES
	('SELECT * FROM radik_part ORDER BY f8 DESC, id LIMIT 10 OFFSET 995', NULL, NULL),
	('SELECT id, few FROM radik_part ORDER BY few DESC LIMIT 3 OFFSET 2990', 'few',
	 'SELECT id, few FROM radik_part'),
	('SELECT id, few FROM radik_part ORDER BY few FETCH FIRST 5 ROWS WITH TIES', 'few',
	 'SELECT id, few FROM radik_part'),
	('SELECT id, i2 FROM radik_part ORDER BY i2 DESC NULLS LAST OFFSET 3 ROWS FETCH FIRST 1 ROW WITH TIES',
	 'i2', 'SELECT id, i2 FROM radik_part'),
	('SELECT id, n FROM radik_part ORDER BY n FETCH FIRST 2 ROWS WITH TIES', 'n',
	 'SELECT id, n FROM radik_part'),
	('SELECT few, f4, id FROM radik_part ORDER BY few, f4 DESC, id LIMIT 20', NULL, NULL),
	('SELECT id, f8 + 1 AS k FROM radik_part ORDER BY f8 + 1 DESC LIMIT 8', 'k',
	 'SELECT id, f8 + 1 AS k FROM radik_part'),
	('SELECT id, i8 % 1000 AS k FROM radik_part ORDER BY i8 % 1000 LIMIT 8', 'k',
	 'SELECT id, i8 % 1000 AS k FROM radik_part'),
	('SELECT f8 FROM radik_part ORDER BY f8 DESC LIMIT 6', NULL, NULL),
	('SELECT ts FROM radik_part ORDER BY ts LIMIT 1500', NULL, NULL),
	('SELECT tableoid::regclass AS part, id, f8 FROM radik_part ORDER BY f8, id LIMIT 12', NULL, NULL),
	('SELECT * FROM radik_part WHERE id BETWEEN 500 AND 1500 ORDER BY i8, id LIMIT 10', NULL, NULL),
	('SELECT * FROM radik_part WHERE grp = 1 AND id >= 2000 ORDER BY f4 DESC, id LIMIT 10', NULL, NULL),
	('SELECT * FROM radik_part WHERE grp IN (3, 4) AND few <> 1 ORDER BY ts DESC, id LIMIT 10', NULL, NULL),
	('SELECT * FROM radik_part WHERE id > 3000 ORDER BY f8 LIMIT 4', 'f8', 'SELECT * FROM radik_part WHERE id > 3000'),
	('SELECT * FROM radik_part WHERE id >= 5000 ORDER BY f8 LIMIT 4', 'f8', 'SELECT * FROM radik_part WHERE id >= 5000'),
	('SELECT * FROM radik_part WHERE id < 0 ORDER BY f8 LIMIT 4', NULL, NULL),
	('SELECT * FROM radik_part_shuffled ORDER BY f8 DESC, id LIMIT 4', NULL, NULL),
	('SELECT * FROM radik_part_by_grp ORDER BY i8 DESC, id LIMIT 4', NULL, NULL)
	) AS c(q, keys, base);

-- Ordered by the partition key with no default partition: PostgreSQL reads the partitions in
-- turn (an Append, no Merge Append) and stops once the Limit node has its rows.
CREATE TABLE radik_part_ordered (id int4, f8 float8) PARTITION BY RANGE (id);
CREATE TABLE radik_part_ordered_1 PARTITION OF radik_part_ordered FOR VALUES FROM (MINVALUE) TO (1000);
CREATE TABLE radik_part_ordered_2 PARTITION OF radik_part_ordered FOR VALUES FROM (1000) TO (2000);
CREATE TABLE radik_part_ordered_3 PARTITION OF radik_part_ordered FOR VALUES FROM (2000) TO (MAXVALUE);
INSERT INTO radik_part_ordered SELECT id, f8 FROM radik_t;
ANALYZE radik_part_ordered;
SELECT radik_explain('SELECT * FROM radik_part_ordered ORDER BY id DESC LIMIT 3', true);
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT * FROM radik_part_ordered ORDER BY id DESC LIMIT 3',
	'SELECT * FROM radik_part_ordered ORDER BY id LIMIT 5 OFFSET 997',
	'SELECT * FROM radik_part_ordered WHERE id % 3 = 0 ORDER BY id DESC LIMIT 4 OFFSET 335',
	'SELECT * FROM radik_part_ordered ORDER BY id FETCH FIRST 2 ROWS WITH TIES',
	'SELECT * FROM radik_part_ordered ORDER BY id LIMIT 5000'
	]) WITH ORDINALITY AS a(q, n)
ORDER BY n;
DROP TABLE radik_part_ordered;

-- min() and max() over the partitions: PostgreSQL may plan each as ORDER BY ... LIMIT 1 over the
-- members (where radik's node is offered); whichever plan it takes, the answers are the same.
CREATE TEMP TABLE radik_part_agg_on AS
SELECT max(f8) AS f8_max, min(f8) AS f8_min, max(i8) AS i8_max, min(ts) AS ts_min, max(n) AS n_max
FROM radik_part;
SET radik.enabled = off;
CREATE TEMP TABLE radik_part_agg_off AS
SELECT max(f8) AS f8_max, min(f8) AS f8_min, max(i8) AS i8_max, min(ts) AS ts_min, max(n) AS n_max
FROM radik_part;
RESET radik.enabled;
SELECT (SELECT ROW(a.*)::text FROM radik_part_agg_on a) =
	   (SELECT ROW(b.*)::text FROM radik_part_agg_off b) AS same_min_max;
DROP TABLE radik_part_agg_on, radik_part_agg_off;

-- Parameters: a generic plan prunes partitions when it runs (Subplans Removed); radik's half runs
-- EXECUTE, PostgreSQL's the same query with the values written in.
SET plan_cache_mode = force_generic_plan;
PREPARE radik_part_top(int4, int8, int8) AS
	SELECT id, f8, grp FROM radik_part WHERE id >= $1 ORDER BY f8 DESC, id LIMIT $2 OFFSET $3;
EXPLAIN (COSTS OFF) EXECUTE radik_part_top(2500, 5, 0);
SELECT args, radik_compare('EXECUTE radik_part_top' || args,
		format('SELECT id, f8, grp FROM radik_part WHERE id >= %1$s ORDER BY f8 DESC, id LIMIT %2$s OFFSET %3$s',
			   VARIADIC string_to_array(btrim(args, '()'), ', '))) AS result
FROM unnest(ARRAY['(2500, 5, 0)', '(0, 1, 0)', '(1500, 0, 0)', '(900, 10, 1000)', '(3001, 20, 0)',
				  '(-5, 3000, 10)', '(0, NULL, 3005)', '(7000, 5, 0)']) WITH ORDINALITY AS a(args, n)
ORDER BY n;
DEALLOCATE radik_part_top;
RESET plan_cache_mode;

-- A LATERAL subquery over the partitions, run again for each outer row (the members are rescanned
-- with a new parameter).
SELECT radik_compare('SELECT g, s.* FROM generate_series(0, 4) g,
	LATERAL (SELECT id, f8 FROM radik_part p WHERE p.grp = g ORDER BY f8 DESC, id LIMIT 3) s') AS lateral_rescan;

-- Parallel workers read each member in turn.
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET max_parallel_workers_per_gather = 2;
ALTER TABLE radik_part_low SET (parallel_workers = 2);
ALTER TABLE radik_part_shuffled SET (parallel_workers = 1);
SELECT radik_explain('SELECT * FROM radik_part WHERE id < 2000 ORDER BY f8 DESC LIMIT 10', true);
SELECT radik_check('*', 'radik_part', 'f8 DESC, id', 'LIMIT 10') AS with_workers,
	   radik_check('id, few', 'radik_part', 'few', 'FETCH FIRST 3 ROWS WITH TIES', 'few') AS ties_with_workers;
ALTER TABLE radik_part_low RESET (parallel_workers);
ALTER TABLE radik_part_shuffled RESET (parallel_workers);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET min_parallel_table_scan_size;

-- Row-level security on the partitioned table: its policy filters every partition's rows.
ALTER TABLE radik_part ENABLE ROW LEVEL SECURITY;
CREATE POLICY radik_part_grp ON radik_part USING (grp = 2);
CREATE ROLE regress_radik_part_reader;
GRANT SELECT ON radik_part TO regress_radik_part_reader;
SET ROLE regress_radik_part_reader;
SELECT radik_check('*', 'radik_part', 'f8 DESC, id', 'LIMIT 10') AS policy_applied;
SELECT count(*) AS rows_seen, count(*) FILTER (WHERE grp <> 2) AS rows_outside_policy
FROM (SELECT * FROM radik_part ORDER BY f8 LIMIT 3000) s;
RESET ROLE;
DROP OWNED BY regress_radik_part_reader;
DROP ROLE regress_radik_part_reader;
ALTER TABLE radik_part DISABLE ROW LEVEL SECURITY;

-- Table inheritance: the parent's own rows and its children's (one with a column more); ONLY the
-- parent reads the parent alone.
CREATE TABLE radik_parent (id int4, v float8);
CREATE TABLE radik_child () INHERITS (radik_parent);
CREATE TABLE radik_child_wide (extra text) INHERITS (radik_parent);
INSERT INTO radik_parent SELECT id, f8 FROM radik_t WHERE id % 3 = 0;
INSERT INTO radik_child SELECT id, f8 FROM radik_t WHERE id % 3 = 1;
INSERT INTO radik_child_wide SELECT id, f8, 'x' || id FROM radik_t WHERE id % 3 = 2;
ANALYZE radik_parent, radik_child, radik_child_wide;
EXPLAIN (COSTS OFF) SELECT * FROM radik_parent ORDER BY v LIMIT 5;
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT * FROM radik_parent ORDER BY v, id LIMIT 5',
	'SELECT * FROM radik_parent ORDER BY v DESC NULLS LAST, id LIMIT 50 OFFSET 10',
	'SELECT tableoid::regclass AS t, * FROM radik_parent WHERE id % 2 = 0 ORDER BY v, id LIMIT 7',
	'SELECT * FROM ONLY radik_parent ORDER BY v DESC, id LIMIT 5',
	'SELECT * FROM radik_child_wide ORDER BY v DESC, id LIMIT 5'
	]) WITH ORDINALITY AS a(q, n)
ORDER BY n;

-- UNION ALL of tables: each arm is a member (an inheritance tree's members too).  An arm that is
-- not a table keeps its Sort, and so does an arm with a WHERE clause of its own: PostgreSQL plans
-- it as a subquery of its own, which has no LIMIT.
EXPLAIN (COSTS OFF)
SELECT id, f8 FROM radik_t UNION ALL SELECT id, v FROM radik_parent ORDER BY 2 LIMIT 3;
EXPLAIN (COSTS OFF)
SELECT id, f8 FROM radik_t UNION ALL SELECT g, g / 7.0::float8 FROM generate_series(1, 100) g
ORDER BY 2 DESC LIMIT 3;
EXPLAIN (COSTS OFF)
SELECT id, f8 FROM radik_t WHERE grp = 1 UNION ALL SELECT id, f8 FROM radik_t ORDER BY 2 LIMIT 3;
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT id, f8 FROM radik_t UNION ALL SELECT id, v FROM radik_parent ORDER BY 2, 1 LIMIT 30',
	'SELECT id, f8 FROM radik_t UNION ALL SELECT g, g / 7.0::float8 FROM generate_series(1, 100) g ORDER BY 2 DESC, 1 LIMIT 30',
	'SELECT id, f8 FROM radik_t WHERE grp = 1 UNION ALL SELECT id, f8 FROM radik_t ORDER BY 2, 1 LIMIT 30',
	'SELECT id, i8 FROM radik_t UNION ALL SELECT id, i8 FROM radik_part ORDER BY 2 DESC NULLS LAST, 1 LIMIT 9 OFFSET 1'
	]) WITH ORDINALITY AS a(q, n)
ORDER BY n;

-- A foreign partition (file_fdw, shipped with PostgreSQL): PostgreSQL sorts its rows, radik
-- reads the other partition, and the foreign partition's rows come first in the answer.
SET client_min_messages = warning;
CREATE EXTENSION file_fdw;
RESET client_min_messages;
CREATE SERVER radik_part_files FOREIGN DATA WRAPPER file_fdw;
CREATE TABLE radik_part_mixed (id int4, v float8) PARTITION BY RANGE (id);
CREATE TABLE radik_part_mixed_local PARTITION OF radik_part_mixed FOR VALUES FROM (0) TO (5000);
CREATE FOREIGN TABLE radik_part_mixed_foreign PARTITION OF radik_part_mixed
	FOR VALUES FROM (5000) TO (6000) SERVER radik_part_files
	OPTIONS (program 'echo 5001,2.5; echo 5002,1e9; echo 5003,-4', format 'csv');
INSERT INTO radik_part_mixed_local SELECT id, f8 FROM radik_t WHERE f8 < 1e9;
EXPLAIN (COSTS OFF) SELECT * FROM radik_part_mixed ORDER BY v DESC LIMIT 3;
SELECT radik_compare('SELECT * FROM radik_part_mixed ORDER BY v DESC NULLS LAST LIMIT 3', NULL, 'v',
					 'SELECT * FROM radik_part_mixed') AS foreign_partition;
DROP TABLE radik_part_mixed;
DROP EXTENSION file_fdw CASCADE;

DROP TABLE radik_part, radik_parent, radik_child, radik_child_wide;
