-- radik_partition_limits: ORDER BY ... LIMIT on a partitioned table with postgres_fdw partitions
-- (over a loopback connection to this database) and local ones.  radik asks every partition for
-- its own first LIMIT + OFFSET rows, so each remote query carries the LIMIT; every answer is
-- compared with PostgreSQL's (radik.enabled = off, whose remote queries carry no LIMIT), and
-- each case shows the LIMIT of every remote query, or 'no LIMIT' where radik keeps
-- PostgreSQL's plan.
LOAD 'radik';
CREATE EXTENSION postgres_fdw;
SELECT radik_loopback_server('plim_loopback');

-- The LIMIT of each remote query in stmt's plan (radik on), in plan order.
CREATE FUNCTION remote_limits(stmt text) RETURNS text
LANGUAGE sql SET radik.enabled = on AS $$
	SELECT string_agg(coalesce(substring(line FROM ' (LIMIT .*)$'), 'no LIMIT'), ', ' ORDER BY n)
	FROM radik_plan_lines(stmt, 'Remote SQL:') WITH ORDINALITY AS l(line, n)
$$;

-- The partitioned table: two foreign partitions, a local one whose columns lie in another order
-- behind a dropped column, and a partition partitioned again into a local and a foreign one.
-- The parent has a dropped column too.  Keys tie (v takes 199 values), v has NULLs and NaN.
CREATE TABLE plim (gone int4, id int4, v float8, name text, grp int4) PARTITION BY RANGE (id);
ALTER TABLE plim DROP COLUMN gone;
CREATE TABLE plim_src_a (id int4, v float8, name text, grp int4);
CREATE TABLE plim_src_b (name text, grp int4, v float8, id int4);
CREATE TABLE plim_src_d2 (id int4, v float8, name text, grp int4);
CREATE FOREIGN TABLE plim_a PARTITION OF plim FOR VALUES FROM (1) TO (3001)
	SERVER plim_loopback OPTIONS (table_name 'plim_src_a');
CREATE FOREIGN TABLE plim_b PARTITION OF plim FOR VALUES FROM (3001) TO (6001)
	SERVER plim_loopback OPTIONS (table_name 'plim_src_b');
CREATE TABLE plim_c (junk int4, grp int4, name text, v float8, id int4);
ALTER TABLE plim_c DROP COLUMN junk;
ALTER TABLE plim ATTACH PARTITION plim_c FOR VALUES FROM (6001) TO (9001);
CREATE TABLE plim_d PARTITION OF plim FOR VALUES FROM (9001) TO (12001) PARTITION BY RANGE (id);
CREATE TABLE plim_d1 PARTITION OF plim_d FOR VALUES FROM (9001) TO (10501);
CREATE FOREIGN TABLE plim_d2 PARTITION OF plim_d FOR VALUES FROM (10501) TO (12001)
	SERVER plim_loopback OPTIONS (table_name 'plim_src_d2');
CREATE VIEW plim_rows AS
	SELECT i AS id,
		   CASE WHEN i % 101 = 0 THEN NULL WHEN i % 997 = 0 THEN 'NaN'
				ELSE (i * 7919 % 199) / 4.0 END AS v,
		   CASE WHEN i % 3 = 0 THEN 'N' ELSE 'n' END || (i * 31 % 1000) AS name,
		   i % 7 AS grp
	FROM generate_series(1, 12000) i;
INSERT INTO plim_src_a SELECT id, v, name, grp FROM plim_rows WHERE id <= 3000;
INSERT INTO plim_src_b (id, v, name, grp) SELECT id, v, name, grp FROM plim_rows
	WHERE id BETWEEN 3001 AND 6000;
INSERT INTO plim_c (id, v, name, grp) SELECT id, v, name, grp FROM plim_rows
	WHERE id BETWEEN 6001 AND 9000;
INSERT INTO plim_d1 SELECT id, v, name, grp FROM plim_rows WHERE id BETWEEN 9001 AND 10500;
INSERT INTO plim_src_d2 SELECT id, v, name, grp FROM plim_rows WHERE id > 10500;
ANALYZE plim, plim_src_a, plim_src_b, plim_src_d2;

-- The plan: the query's Limit over a Merge Append of each partition's first rows, radik's node on
-- the local partitions, the LIMIT (k + offset) in every remote query.
SET radik.force = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT id, v FROM plim WHERE grp <> 2 ORDER BY v DESC LIMIT 5 OFFSET 2;
RESET radik.force;

-- Answers.  Rows tied on the keys may come in another order, so the keys are compared where the
-- ORDER BY does not give a total order.
SELECT q, remote_limits(q) AS remote, radik_compare(q, keys => keys, radik_node => false) AS result
FROM (VALUES
	('SELECT * FROM plim ORDER BY v DESC LIMIT 10', 'v'),
	('SELECT * FROM plim ORDER BY v, id LIMIT 25', NULL),
	('SELECT * FROM plim ORDER BY v NULLS FIRST, id LIMIT 15 OFFSET 100', NULL),
	('SELECT * FROM plim ORDER BY v DESC NULLS LAST LIMIT 40 OFFSET 11990', 'v'),
	('SELECT * FROM plim ORDER BY v DESC FETCH FIRST 7 ROWS WITH TIES', 'v'),
	('SELECT id, name FROM plim WHERE grp < 3 AND name LIKE ''n1%'' ORDER BY name COLLATE "C" DESC, id LIMIT 12', NULL),
	('SELECT id, name FROM plim ORDER BY name, id DESC LIMIT 9', NULL),
	('SELECT id, v FROM plim ORDER BY abs(v - 20), id LIMIT 9', NULL),
	('SELECT v * 2 AS w, id % 10 AS d FROM plim WHERE v < 30 ORDER BY v DESC, id LIMIT 6', NULL),
	('SELECT id FROM plim ORDER BY v, id LIMIT 0', NULL),
	('SELECT id, v FROM plim ORDER BY v, id LIMIT 5 OFFSET 20000', NULL),
	('SELECT id, v FROM plim WHERE id > 5000 ORDER BY v, id LIMIT 8', NULL),
	('SELECT id, v FROM plim WHERE id <= 2000 ORDER BY v DESC, id LIMIT 8', NULL),
	('SELECT id, v FROM plim WHERE id > 11000 ORDER BY v DESC, id LIMIT 8', NULL),
	('SELECT id, v FROM plim WHERE false ORDER BY v LIMIT 3', NULL)
) AS c(q, keys);

-- The partitions locked are those PostgreSQL's plan reads, as with radik off: a partition
-- pruning skips is not locked (another session may hold it).  Each query runs in a
-- subtransaction that is then rolled back, which releases its locks.
CREATE FUNCTION plim_locked(q text, radik boolean) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	locked text;
BEGIN
	BEGIN
		PERFORM set_config('radik.enabled', radik::text, true);
		EXECUTE q;
		SELECT string_agg(c.relname, ' ' ORDER BY c.relname) INTO locked
		FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
		WHERE l.pid = pg_backend_pid() AND c.relname LIKE 'plim%' AND c.relkind IN ('r', 'f', 'p');
		RAISE EXCEPTION '%', locked;
	EXCEPTION WHEN raise_exception THEN
		RETURN SQLERRM;
	END;
END $$;
SELECT q, radik, postgres, radik = postgres AS same
FROM (VALUES
	('SELECT id, v FROM plim WHERE id <= 2000 ORDER BY v DESC, id LIMIT 8'),
	('SELECT id, v FROM plim WHERE id > 9000 ORDER BY v DESC, id LIMIT 8')
) AS c(q), LATERAL (SELECT plim_locked(q, true) AS radik, plim_locked(q, false) AS postgres) l;
DROP FUNCTION plim_locked(text, boolean);

-- A CHECK constraint on a partition excludes it as in PostgreSQL's plan (the constraint is the
-- user's promise about the remote rows, here broken on purpose so that the exclusion shows).
ALTER FOREIGN TABLE plim_a ADD CONSTRAINT plim_a_small_v CHECK (v < 1000);
INSERT INTO plim_src_a VALUES (1, 5000, 'promise broken', 0);
SELECT remote_limits(q) AS remote, radik_compare(q, radik_node => false) AS result
FROM (VALUES ('SELECT id, v FROM plim WHERE v > 1000 ORDER BY v DESC, id LIMIT 3')) AS c(q);
DELETE FROM plim_src_a WHERE name = 'promise broken';
ALTER FOREIGN TABLE plim_a DROP CONSTRAINT plim_a_small_v;

-- Where radik keeps PostgreSQL's plan (every remote query without its LIMIT), the answer is
-- still compared: no LIMIT, a LIMIT that is no constant, columns a partition would answer
-- differently (its own OID), whole rows, sublinks, a volatile key, grouping.
SELECT q, remote_limits(q) AS remote, radik_compare(q, keys => keys, radik_node => false) AS result
FROM (VALUES
	('SELECT id, v FROM plim ORDER BY v, id LIMIT ALL', NULL),
	('SELECT id, v FROM plim ORDER BY v, id LIMIT (SELECT 3)', NULL),
	('SELECT tableoid::regclass AS part, id, v FROM plim ORDER BY v, id LIMIT 4', NULL),
	('SELECT p AS whole FROM plim p ORDER BY v, id LIMIT 4', NULL),
	('SELECT id, v FROM plim WHERE id IN (SELECT id FROM plim_c) ORDER BY v, id LIMIT 4', NULL),
	('SELECT id, v FROM plim WHERE id > 2000 ORDER BY v, id LIMIT 4 OFFSET (SELECT 1)', NULL)
) AS c(q, keys);
SELECT remote_limits('SELECT id FROM plim ORDER BY v + random() LIMIT 4') AS volatile_key,
	   remote_limits('SELECT grp, min(v) FROM plim GROUP BY grp ORDER BY 2 LIMIT 2') AS grouped;

-- LIMIT as a parameter of a generic plan: postgres_fdw sends no parameter as a remote LIMIT (nor
-- for a single foreign table), so each partition's LIMIT stays here.  A parameter on the
-- partition key makes the plan prune partitions while it runs, which the arms could not: radik
-- keeps PostgreSQL's plan.
SET plan_cache_mode = force_generic_plan;
PREPARE plim_top(int8) AS SELECT id, v FROM plim ORDER BY v DESC, id LIMIT $1;
PREPARE plim_top_pg(int8) AS SELECT id, v FROM plim ORDER BY v DESC, id LIMIT $1;
PREPARE plim_after(int4) AS SELECT id, v FROM plim WHERE id > $1 ORDER BY v, id LIMIT 6;
PREPARE plim_after_pg(int4) AS SELECT id, v FROM plim WHERE id > $1 ORDER BY v, id LIMIT 6;
SELECT remote_limits('EXECUTE plim_top(4)') AS top, remote_limits('EXECUTE plim_after(100)') AS after;
SELECT a, radik_compare(format('EXECUTE plim_top(%s)', a), format('EXECUTE plim_top_pg(%s)', a),
					 radik_node => false)
FROM unnest(ARRAY[1, 4, 30, 0]) a;
SELECT a, radik_compare(format('EXECUTE plim_after(%s)', a), format('EXECUTE plim_after_pg(%s)', a),
					 radik_node => false)
FROM unnest(ARRAY[100, 5000, 11000]) a;
RESET plan_cache_mode;

-- A cursor over the answer, read both ways.
BEGIN;
DECLARE plim_cursor SCROLL CURSOR FOR SELECT id, v FROM plim ORDER BY v DESC, id LIMIT 6;
FETCH 4 FROM plim_cursor;
FETCH BACKWARD 2 FROM plim_cursor;
SET LOCAL radik.enabled = off;
DECLARE plim_cursor_pg SCROLL CURSOR FOR SELECT id, v FROM plim ORDER BY v DESC, id LIMIT 6;
FETCH 4 FROM plim_cursor_pg;
FETCH BACKWARD 2 FROM plim_cursor_pg;
COMMIT;

-- Privileges are those of the partitioned table, as in PostgreSQL's plan: a role that may read
-- the partitioned table (all of it, or some columns) but none of its partitions gets the
-- answer, and a role that may not read it gets PostgreSQL's error.  Row-level security on the
-- partitioned table keeps PostgreSQL's plan.
CREATE ROLE plim_reader;
CREATE ROLE plim_columns;
CREATE ROLE plim_nobody;
GRANT SELECT ON plim TO plim_reader;
GRANT SELECT (id, v) ON plim TO plim_columns;
GRANT USAGE ON FOREIGN SERVER plim_loopback TO plim_reader, plim_columns, plim_nobody;
DO $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['plim_reader', 'plim_columns', 'plim_nobody'] LOOP
		EXECUTE format('CREATE USER MAPPING FOR %I SERVER plim_loopback '
					   'OPTIONS (user %L, password_required ''false'')', r, current_user);
	END LOOP;
END $$;
SET ROLE plim_reader;
SELECT remote_limits('SELECT * FROM plim ORDER BY v DESC LIMIT 5') AS remote,
	   radik_compare('SELECT * FROM plim ORDER BY v DESC, id LIMIT 5', radik_node => false) AS result;
SET ROLE plim_columns;
SELECT radik_compare('SELECT id, v FROM plim ORDER BY v DESC, id LIMIT 5', radik_node => false) AS columns_granted;
SELECT radik_capture(q, 'plim_got', true) AS radik, radik_capture(q, 'plim_want', false) AS postgres
FROM (VALUES ('SELECT id, name FROM plim ORDER BY v DESC, id LIMIT 5')) c(q);
SET ROLE plim_nobody;
SELECT radik_capture(q, 'plim_got', true) AS radik, radik_capture(q, 'plim_want', false) AS postgres
FROM (VALUES ('SELECT id, v FROM plim ORDER BY v DESC, id LIMIT 5')) c(q);
RESET ROLE;
ALTER TABLE plim ENABLE ROW LEVEL SECURITY;
CREATE POLICY plim_even ON plim USING (id % 2 = 0);
SET ROLE plim_reader;
SELECT remote_limits('SELECT id, v FROM plim ORDER BY v DESC, id LIMIT 5') AS remote,
	   radik_compare('SELECT id, v FROM plim ORDER BY v DESC, id LIMIT 5', radik_node => false) AS result;
RESET ROLE;

DROP TABLE plim;
DROP VIEW plim_rows;
DROP TABLE plim_src_a, plim_src_b, plim_src_d2;
DO $$
DECLARE
	r text;
BEGIN
	FOREACH r IN ARRAY ARRAY['plim_reader', 'plim_columns', 'plim_nobody'] LOOP
		EXECUTE format('DROP USER MAPPING FOR %I SERVER plim_loopback', r);
	END LOOP;
END $$;
REVOKE USAGE ON FOREIGN SERVER plim_loopback FROM plim_reader, plim_columns, plim_nobody;
DROP ROLE plim_reader, plim_columns, plim_nobody;
DROP FUNCTION remote_limits(text);
DROP USER MAPPING FOR CURRENT_USER SERVER plim_loopback;
DROP SERVER plim_loopback;
DROP EXTENSION postgres_fdw;
