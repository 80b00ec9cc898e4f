-- radik_rows: radik must see exactly the rows PostgreSQL's plan sees: deleted, updated (HOT and
-- not), rolled-back and same-transaction rows, added and dropped columns, TOASTed values; and it
-- must rescan correctly under a correlated subquery or LATERAL, in a scrollable cursor and inside
-- DML.  Each answer is compared with PostgreSQL's (radik_compare in radik_setup.sql).
LOAD 'radik';

CREATE TABLE radik_vis (id int4 PRIMARY KEY, v int4, w float8, tag int4, note text)
	WITH (fillfactor = 50);
CREATE INDEX radik_vis_tag ON radik_vis (tag);
INSERT INTO radik_vis
SELECT i, (i * 37) % 1009, ((i * 53) % 997) / 8.0, i % 10, 'row ' || i
FROM generate_series(1, 2000) i;
ANALYZE radik_vis;

CREATE FUNCTION radik_vis_checks() RETURNS TABLE (query text, result text)
LANGUAGE sql AS $$
	SELECT q, radik_check('*', 'radik_vis', q, 'LIMIT 25')
	FROM unnest(ARRAY['v DESC, id', 'w, id', 'tag, v, id']) AS q
	UNION ALL
	SELECT 'id DESC (whole table)', radik_check('id', 'radik_vis', 'id DESC', 'LIMIT 3000')
$$;
SELECT * FROM radik_vis_checks();

-- Deleted rows, committed; then vacuumed away.
DELETE FROM radik_vis WHERE v > 900 OR id % 7 = 0;
SELECT * FROM radik_vis_checks();
VACUUM radik_vis;
SELECT * FROM radik_vis_checks();

-- HOT updates (no indexed column changes, room on the page) and non-HOT ones (an indexed column
-- changes), seen inside the updating transaction and after it commits.
BEGIN;
UPDATE radik_vis SET v = v + 2000 WHERE id % 10 = 1;
SELECT pg_stat_get_xact_tuples_hot_updated('radik_vis'::regclass) > 0 AS some_updates_were_hot;
SELECT * FROM radik_vis_checks();
UPDATE radik_vis SET tag = tag + 100, w = -w WHERE id % 10 = 2;
UPDATE radik_vis SET tag = tag + 100, w = -w WHERE id % 10 = 2;
SELECT * FROM radik_vis_checks();
COMMIT;
SELECT * FROM radik_vis_checks();

-- Rolled back: an insert of rows that would win, a delete and an update; then an aborted
-- subtransaction inside a transaction that goes on.
BEGIN;
INSERT INTO radik_vis SELECT 100000 + i, 5000 + i, -1000 - i, -1, 'rolled back'
	FROM generate_series(1, 50) i;
DELETE FROM radik_vis WHERE v < 100;
UPDATE radik_vis SET w = w + 1000;
ROLLBACK;
SELECT * FROM radik_vis_checks();
BEGIN;
SAVEPOINT s;
INSERT INTO radik_vis SELECT 200000 + i, 6000 + i, -2000 - i, -2, 'aborted subxact'
	FROM generate_series(1, 50) i;
DELETE FROM radik_vis WHERE v > 2000;
ROLLBACK TO SAVEPOINT s;
SELECT * FROM radik_vis_checks();
-- Rows inserted, updated, deleted by this same transaction (and by earlier commands in it).
INSERT INTO radik_vis SELECT 300000 + i, 7000 + i, -3000 - i, -3, 'same transaction'
	FROM generate_series(1, 50) i;
UPDATE radik_vis SET v = v + 10 WHERE id BETWEEN 300001 AND 300010;
DELETE FROM radik_vis WHERE id BETWEEN 300041 AND 300050;
SELECT * FROM radik_vis_checks();
COMMIT;
SELECT * FROM radik_vis_checks();
SELECT count(*) FILTER (WHERE note = 'same transaction') AS kept,
	   count(*) FILTER (WHERE note IN ('rolled back', 'aborted subxact')) AS gone
FROM radik_vis;

-- A column added with a DEFAULT after rows exist (old rows have no value stored: it comes from
-- the catalog), one added without a default, and a dropped column.
ALTER TABLE radik_vis ADD COLUMN extra int8 DEFAULT 7, ADD COLUMN maybe float4;
INSERT INTO radik_vis (id, v, w, tag, extra, maybe)
	SELECT 400000 + i, i, i, i, i - 5, i / 3.0 FROM generate_series(1, 10) i;
SELECT radik_check('*', 'radik_vis', 'extra DESC, id', 'LIMIT 20') AS default_desc,
	   radik_check('*', 'radik_vis', 'extra, id', 'LIMIT 20') AS default_asc,
	   radik_check('id, extra', 'radik_vis', 'extra', 'LIMIT 20', 'extra') AS default_ties,
	   radik_check('*', 'radik_vis', 'maybe NULLS FIRST, id', 'LIMIT 20') AS added_null,
	   radik_check('*', 'radik_vis', 'maybe DESC NULLS LAST, id', 'LIMIT 20') AS added_values,
	   radik_check('*', 'radik_vis', 'extra * 2 + v, id', 'LIMIT 20') AS default_in_expression;
ALTER TABLE radik_vis DROP COLUMN note, DROP COLUMN w;
SELECT radik_check('*', 'radik_vis', 'v DESC, id', 'LIMIT 20') AS after_drop,
	   radik_check('*', 'radik_vis', 'extra, v, id', 'LIMIT 20') AS after_drop_default,
	   radik_check('*', 'radik_vis', 'maybe, id', 'LIMIT 20') AS after_drop_last_column;

-- Keys read straight from the tuples: rows without NULLs, fixed-width columns of every alignment
-- before the key (bool, "char", uuid, name, macaddr, point), a NOT NULL column added with a
-- DEFAULT after rows exist (older rows are shorter than the new ones), and dropped columns
-- still stored in the older rows before the key.
CREATE TABLE radik_layout (c1 bool NOT NULL, k1 int2 NOT NULL, c2 "char" NOT NULL,
	k2 int8 NOT NULL, c3 uuid NOT NULL, k3 int4 NOT NULL, c4 name NOT NULL, k4 float8 NOT NULL,
	c5 macaddr NOT NULL, k5 float4 NOT NULL, c6 point NOT NULL, k6 timestamptz NOT NULL,
	c7 int2 NOT NULL, k7 date NOT NULL, c8 "char" NOT NULL, k8 time NOT NULL,
	k9 timestamp NOT NULL);
INSERT INTO radik_layout
SELECT i % 2 = 0, (i * 7) % 300 - 150, 'x', (i * 7919)::int8 * 1000003 - 5000000000,
	   md5(i::text)::uuid, (i * 31) % 1000 - 500, 'n' || i, (i * 13) % 777 / 7.0,
	   '08:00:2b:01:02:03', (i * 17) % 555 / 3.0, point(i, i),
	   timestamptz '2020-01-01 00:00+00' + (i * 37 % 1000) * interval '1 hour', i % 5,
	   date '2020-01-01' + (i * 11) % 400, 'y', time '00:00' + (i * 101 % 86400) * interval '1 second',
	   timestamp '2020-01-01' + (i * 53 % 10000) * interval '1 minute'
FROM generate_series(1, 2000) i;
-- Each key column of tbl, both directions, two k: the counts of right and wrong answers.
CREATE FUNCTION radik_layout_checks(cols text[], tbl text DEFAULT 'radik_layout')
RETURNS TABLE (ok int8, failed int8, first_failure text)
LANGUAGE sql AS $$
	SELECT count(*) FILTER (WHERE r = 'ok'), count(*) FILTER (WHERE r <> 'ok'),
		   min(r) FILTER (WHERE r <> 'ok')
	FROM (SELECT radik_check('*', tbl, c || ' ' || o, 'LIMIT ' || k, c) AS r
		  FROM unnest(cols) c, unnest(ARRAY['ASC', 'DESC']) o, unnest(ARRAY[7, 300]) k) s
$$;
SELECT * FROM radik_layout_checks(ARRAY['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9']);
ALTER TABLE radik_layout ADD COLUMN k10 int8 NOT NULL DEFAULT 42, ADD COLUMN k11 float4 DEFAULT -1.5;
INSERT INTO radik_layout
SELECT c1, k1, c2, k2, c3, k3, c4, k4, c5, k5, c6, k6, c7, k7, c8, k8, k9, k3 * 10, k5 * 2
FROM radik_layout WHERE k3 % 7 = 0;
SELECT * FROM radik_layout_checks(ARRAY['k9', 'k10', 'k11']);
ALTER TABLE radik_layout DROP COLUMN c3, DROP COLUMN k2;
SELECT * FROM radik_layout_checks(ARRAY['k1', 'k3', 'k4', 'k9', 'k10', 'k11']);
DROP TABLE radik_layout;

-- Keys after variable-width columns, whose offsets each row's values decide: short values (one
-- header byte, never padded), long ones (four header bytes, aligned), empty ones, values stored
-- out of line or compressed, a numeric and a text column before keys of every alignment, rows
-- with NULLs before the key, and a column added after rows exist (the last column).
CREATE TABLE radik_walk (id int4 NOT NULL, t1 text, c1 "char", n1 numeric, k1 int2, t2 varchar,
	k2 int8, b1 bytea, k3 float8, k4 uuid, t3 text, k5 int4, k6 text, k7 numeric);
ALTER TABLE radik_walk ALTER COLUMN b1 SET STORAGE EXTERNAL;
INSERT INTO radik_walk
SELECT i,
	   CASE WHEN i % 97 = 0 THEN NULL WHEN i % 3 = 0 THEN '' WHEN i % 3 = 1 THEN 'ab'
			ELSE repeat('long value ', 20 + i % 5) END,
	   chr(65 + i % 26)::"char",
	   CASE WHEN i % 89 = 0 THEN NULL ELSE (i * 7) % 1000 / 3.0 END,
	   (i * 7) % 300 - 150,
	   CASE WHEN i % 5 = 0 THEN repeat('v', 200 + i % 7) ELSE 'v' || i END,
	   (i * 7919)::int8 * 1000003 - 5000000000,
	   CASE WHEN i % 11 = 0 THEN decode(repeat(md5(i::text), 200), 'hex')
			WHEN i % 11 = 1 THEN decode(repeat('00', 300), 'hex')
			ELSE decode(md5(i::text), 'hex') END,
	   (i * 13) % 777 / 7.0,
	   md5((i * 3)::text)::uuid,
	   CASE WHEN i % 4 = 0 THEN repeat('compressible ', 400) || i ELSE 'x' END,
	   (i * 31) % 1000 - 500,
	   'key ' || (i * 17) % 901,
	   (i * 101) % 997 / 7.0
FROM generate_series(1, 2000) i;
SELECT * FROM radik_layout_checks(ARRAY['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'n1', 't2'], 'radik_walk');
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT id, k3 FROM radik_walk WHERE k1 > 0 ORDER BY k3 DESC, id LIMIT 20',
	'SELECT id, k5 FROM radik_walk WHERE k2 < 0 AND k5 <> 7 ORDER BY k5, id LIMIT 20'
	]) AS q;
-- The added column is the last, and is read from the end of the rows that hold it, with or
-- without NULLs before it.
ALTER TABLE radik_walk ADD COLUMN k8 int8 NOT NULL DEFAULT 42;
INSERT INTO radik_walk (id, t1, k1, k2, k3, k5, k6, k8)
SELECT id + 2000, t1, k1, k2, k3, k5, k6, k5 * 10 FROM radik_walk WHERE id % 7 = 0;
INSERT INTO radik_walk
SELECT id + 4000, t1, c1, n1, k1, t2, k2, b1, k3, k4, t3, k5, k6, k7, (id * 7) % 1001 - 500
FROM radik_walk WHERE id <= 2000 AND id % 3 <> 0;
SELECT * FROM radik_layout_checks(ARRAY['k3', 'k5', 'k6', 'k8'], 'radik_walk');
DROP TABLE radik_walk;

-- Last columns that do not end a row on an 8-byte boundary (int2, uuid), after text of every
-- length, so that a row's length is its own and not its stored size.
CREATE TABLE radik_tail2 (id int4 NOT NULL, t text, n numeric, k int2);
INSERT INTO radik_tail2
SELECT i, CASE WHEN i % 13 = 0 THEN NULL ELSE repeat('t', i % 21) END, (i % 77) / 7.0,
	   (i * 7919) % 30001 - 15000
FROM generate_series(1, 2000) i;
CREATE TABLE radik_tailu (id int4 NOT NULL, t text, u uuid);
INSERT INTO radik_tailu
SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE repeat('u', i % 19) END, md5(i::text)::uuid
FROM generate_series(1, 2000) i;
SELECT * FROM radik_layout_checks(ARRAY['k'], 'radik_tail2');
SELECT * FROM radik_layout_checks(ARRAY['u'], 'radik_tailu');
DROP TABLE radik_tail2, radik_tailu;
DROP FUNCTION radik_layout_checks(text[], text);

-- TOASTed wide rows: SELECT * brings back values of about 100 kB (stored out of line,
-- compressed or not), and a key computed from them.
CREATE TABLE radik_wide (id int4, v float8, body text, packed text);
ALTER TABLE radik_wide ALTER COLUMN body SET STORAGE EXTERNAL;
INSERT INTO radik_wide
SELECT i, (i * 7) % 13,
	   (SELECT string_agg(md5((i * 1000 + j)::text), '') FROM generate_series(1, 3000) j),
	   repeat('radik ' || i, 10000)
FROM generate_series(1, 30) i;
SELECT pg_relation_size(reltoastrelid) > 1000000 AS toasted
FROM pg_class WHERE relname = 'radik_wide';
SELECT radik_check('*', 'radik_wide', 'v DESC, id', 'LIMIT 5') AS wide_rows,
	   radik_check('id, v', 'radik_wide', 'v', 'LIMIT 7', 'v') AS wide_ties,
	   radik_check('id, length(packed)', 'radik_wide', 'length(packed), id', 'LIMIT 5')
	   AS key_from_toast,
	   radik_check('*', 'radik_wide WHERE body LIKE ''%ab%''', 'v, id', 'LIMIT 30') AS all_rows;
-- Rows fetched in many small batches (work_mem at its minimum), whole and wide.
SET work_mem = 64;
SELECT radik_check('*', 'radik_t', 'i8 DESC, id', 'LIMIT 3013') AS small_batches,
	   radik_check('*', 'radik_t', 'ts, id', 'LIMIT 2000 OFFSET 100') AS small_batches_offset,
	   radik_check('*', 'radik_wide', 'v DESC, id', 'LIMIT 30') AS small_batches_wide;
RESET work_mem;
DROP TABLE radik_wide;

-- Rescans: radik under a correlated subquery and under LATERAL, where the key's filter, LIMIT
-- and OFFSET change with the outer row.
SELECT radik_compare($$
	SELECT g, (SELECT array_agg(id) FROM
				 (SELECT id FROM radik_t WHERE grp = g ORDER BY f8, id LIMIT 3) s)
	FROM generate_series(0, 5) g$$) AS correlated_subquery;
SELECT radik_compare($$
	SELECT g, (SELECT sum(i4) FROM
				 (SELECT i4 FROM radik_t WHERE few = g % 3 ORDER BY i8 DESC, id LIMIT g) s)
	FROM generate_series(0, 6) g$$) AS correlated_limit;
SELECT radik_compare($$
	SELECT g, s.* FROM generate_series(0, 4) g,
		LATERAL (SELECT id, f8 FROM radik_t WHERE grp = g
				 ORDER BY f8 DESC, id LIMIT g + 1 OFFSET g) s$$) AS lateral_limit_offset;
SELECT radik_compare($$
	SELECT g, s.* FROM (VALUES (1), (2), (1), (3)) AS v(g),
		LATERAL (SELECT id, ts FROM radik_t WHERE id % 1000 = g
				 ORDER BY ts NULLS FIRST, id LIMIT 2) s$$) AS lateral_repeated;
SELECT radik_compare($$
	SELECT g, (SELECT max(id) FROM
				 (SELECT id FROM radik_t ORDER BY f8, id LIMIT 10 OFFSET g) s)
	FROM generate_series(1, 4) g$$) AS correlated_offset;

-- ... and where the outer row changes the key itself (even its direction).
SELECT radik_compare($$
	SELECT g, (SELECT sum(id) FROM
				 (SELECT id FROM radik_t ORDER BY i2 * g.g, id LIMIT 4) s)
	FROM generate_series(-2, 2) g$$) AS outer_value_in_key,
	   radik_compare($$
	SELECT g, (SELECT sum(id) FROM
				 (SELECT id FROM radik_t ORDER BY CASE WHEN g.g > 0 THEN f8 ELSE -f8 END, id LIMIT 4) s)
	FROM generate_series(-2, 2) g$$) AS outer_value_flips_order;

-- Inside other statements: a materialized CTE, INSERT ... SELECT, UPDATE and DELETE driven by a
-- top-k subquery (the same statements run on a copy with radik off must leave the same table).
SELECT radik_compare($$
	WITH top AS MATERIALIZED (SELECT id, f8 FROM radik_t ORDER BY f8 DESC, id LIMIT 5)
	SELECT * FROM top ORDER BY id$$) AS materialized_cte;
CREATE TABLE radik_dml_on AS SELECT * FROM radik_vis;
CREATE TABLE radik_dml_off AS SELECT * FROM radik_vis;
CREATE FUNCTION radik_dml(tab text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('UPDATE %1$I SET v = -v WHERE id IN (SELECT id FROM %1$I ORDER BY v DESC, id LIMIT 5)', tab);
	EXECUTE format('DELETE FROM %1$I WHERE id IN (SELECT id FROM %1$I ORDER BY v, id LIMIT 7)', tab);
	EXECUTE format('INSERT INTO %1$I (id, v, tag) SELECT id + 1000000, v, 1 FROM %1$I ORDER BY extra DESC, id LIMIT 4', tab);
END $$;
SET radik.force = on;
SELECT radik_plan_uses_radik('UPDATE radik_dml_on SET v = -v WHERE id IN (SELECT id FROM radik_dml_on ORDER BY v DESC, id LIMIT 5)') AS update_uses_radik,
	   radik_plan_uses_radik('DELETE FROM radik_dml_on WHERE id IN (SELECT id FROM radik_dml_on ORDER BY v, id LIMIT 7)') AS delete_uses_radik,
	   radik_plan_uses_radik('INSERT INTO radik_dml_on (id, v, tag) SELECT id + 1000000, v, 1 FROM radik_dml_on ORDER BY extra DESC, id LIMIT 4') AS insert_uses_radik;
SELECT radik_dml('radik_dml_on');
SET radik.enabled = off;
SELECT radik_dml('radik_dml_off');
RESET radik.enabled;
RESET radik.force;
SELECT (SELECT count(*) FROM radik_dml_on) AS rows_on,
	   (SELECT count(*) FROM (SELECT * FROM radik_dml_on EXCEPT ALL SELECT * FROM radik_dml_off) a)
	   + (SELECT count(*) FROM (SELECT * FROM radik_dml_off EXCEPT ALL SELECT * FROM radik_dml_on) b)
	   AS differing_rows;
DROP TABLE radik_dml_on, radik_dml_off;
DROP FUNCTION radik_dml(text);

-- A scrollable cursor moved back and forth, and a cursor closed before its end.
CREATE FUNCTION radik_cursor_walk(q text, use_radik boolean) RETURNS int4[]
LANGUAGE plpgsql
SET radik.force = on
AS $$
DECLARE
	c refcursor;
	r record;
	ids int4[] := '{}';
BEGIN
	PERFORM set_config('radik.enabled', use_radik::text, true);
	IF radik_plan_uses_radik(q) <> use_radik THEN
		RAISE EXCEPTION 'radik_plan_uses_radik(%) is not %', q, use_radik;
	END IF;
	OPEN c SCROLL FOR EXECUTE q;
	FOR i IN 1 .. 4 LOOP
		FETCH c INTO r;
		ids := ids || r.id;
	END LOOP;
	FETCH PRIOR FROM c INTO r;
	ids := ids || r.id;
	FETCH ABSOLUTE 9 FROM c INTO r;
	ids := ids || r.id;
	FETCH LAST FROM c INTO r;
	ids := ids || r.id;
	FETCH FIRST FROM c INTO r;
	ids := ids || r.id;
	MOVE FORWARD 100 FROM c;
	FETCH PRIOR FROM c INTO r;
	ids := ids || r.id;
	FETCH RELATIVE -3 FROM c INTO r;
	ids := ids || r.id;
	CLOSE c;
	OPEN c NO SCROLL FOR EXECUTE q;
	FETCH c INTO r;
	ids := ids || r.id;
	CLOSE c;
	RETURN ids;
END $$;
SELECT radik_cursor_walk(q, true) = radik_cursor_walk(q, false) AS same_walk,
	   radik_cursor_walk(q, true) AS walk
FROM (VALUES ('SELECT id FROM radik_t ORDER BY f8 DESC, id LIMIT 12'),
			 ('SELECT id FROM radik_t WHERE grp = 2 ORDER BY ts, id LIMIT 10 OFFSET 3')) AS v(q);

-- A cursor read in parts while its own transaction updates and deletes the rows it returns:
-- the cursor keeps its snapshot, so the rest of its rows are the old versions, which radik
-- fetches later, in further batches (a batch holds 1024 rows at least, so 1500 rows make two).
-- Each walk is rolled back (a subtransaction) so that both see the same table.
CREATE FUNCTION radik_cursor_changes(use_radik boolean) RETURNS text
LANGUAGE plpgsql
SET radik.force = on
SET work_mem = 64
AS $$
DECLARE
	c refcursor;
	r record;
	seen text := '';
	q text := 'SELECT * FROM radik_vis ORDER BY v DESC, id LIMIT 1500';
BEGIN
	PERFORM set_config('radik.enabled', use_radik::text, true);
	IF radik_plan_uses_radik(q) <> use_radik THEN
		RAISE EXCEPTION 'radik_plan_uses_radik(%) is not %', q, use_radik;
	END IF;
	BEGIN
		OPEN c NO SCROLL FOR EXECUTE q;
		FOR i IN 1 .. 100 LOOP
			FETCH c INTO r;
			seen := seen || r::text;
		END LOOP;
		UPDATE radik_vis SET v = v + 1, extra = -extra;
		DELETE FROM radik_vis WHERE id % 3 = 0;
		UPDATE radik_vis SET tag = tag + 1 WHERE id % 3 = 1;
		LOOP
			FETCH c INTO r;
			EXIT WHEN NOT FOUND;
			seen := seen || r::text;
		END LOOP;
		CLOSE c;
		RAISE EXCEPTION 'roll back';
	EXCEPTION WHEN raise_exception THEN
		NULL;
	END;
	RETURN md5(seen) || ' ' || length(seen);
END $$;
SELECT radik_cursor_changes(true) = radik_cursor_changes(false) AS same_rows,
	   (SELECT count(*) FROM radik_vis) AS table_unchanged;
DROP FUNCTION radik_cursor_changes(boolean);
-- A query loop in a procedure that commits halfway: at the commit PostgreSQL makes the loop's
-- cursor holdable, running its plan again from the start (a rescan) to keep all its rows.
CREATE TABLE radik_hold_results (use_radik boolean, plan_uses_radik boolean, seen text);
CREATE PROCEDURE radik_hold_walk(use_radik boolean)
LANGUAGE plpgsql AS $$
DECLARE
	q text := 'SELECT id, f8 FROM radik_t WHERE grp <> 3 ORDER BY f8 DESC, id LIMIT 9 OFFSET 1';
	r record;
	i int4 := 0;
	seen text := '';
BEGIN
	PERFORM set_config('radik.force', 'on', false);
	PERFORM set_config('radik.enabled', use_radik::text, false);
	FOR r IN EXECUTE q LOOP
		i := i + 1;
		seen := seen || r::text;
		IF i = 4 THEN
			COMMIT;
		END IF;
	END LOOP;
	INSERT INTO radik_hold_results VALUES (use_radik, radik_plan_uses_radik(q), seen);
	PERFORM set_config('radik.enabled', 'on', false);
	PERFORM set_config('radik.force', 'off', false);
END $$;
CALL radik_hold_walk(true);
CALL radik_hold_walk(false);
RESET radik.force;
RESET radik.enabled;
SELECT a.plan_uses_radik AS radik_used, b.plan_uses_radik AS radik_used_when_off,
	   a.seen = b.seen AS same_rows, a.seen AS rows
FROM radik_hold_results a, radik_hold_results b WHERE a.use_radik AND NOT b.use_radik;
DROP PROCEDURE radik_hold_walk(boolean);
DROP TABLE radik_hold_results;

DROP FUNCTION radik_cursor_walk(text, boolean);
DROP FUNCTION radik_vis_checks();
DROP TABLE radik_vis;
