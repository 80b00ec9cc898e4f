-- radik_topk_elsewhere: radik_topk over tables whose rows radik cannot read in the table's own
-- heap: a partitioned table, an inheritance parent, a table of another access method, a foreign
-- table (postgres_fdw over a loopback connection), and a table listed in Citus's catalog.  The
-- row form answers with the equivalent query's rows (its keys compared with PostgreSQL's, rank by
-- rank, inside the test); the row-id form refuses, since the table's own row ids would not name
-- those rows.
LOAD 'radik';

-- The row form's keys against PostgreSQL's query, and the rows being rows of the table.
CREATE FUNCTION topk_rows_check(tbl regclass, col name, k bigint,
								smallest boolean DEFAULT false, nulls text DEFAULT 'exclude')
RETURNS TABLE (n bigint, rows_ok boolean)
LANGUAGE plpgsql SET radik.enabled = off AS $check$
DECLARE
	dir text := CASE WHEN smallest THEN 'ASC' ELSE 'DESC' END
		|| CASE WHEN nulls = 'first' THEN ' NULLS FIRST' ELSE ' NULLS LAST' END;
	filter text := CASE WHEN nulls = 'exclude' THEN format('WHERE %I IS NOT NULL', col) ELSE '' END;
BEGIN
	RETURN QUERY EXECUTE format($q$
		WITH postgres AS (
			SELECT array_agg(key ORDER BY key %1$s) AS keys
			FROM (SELECT %2$I AS key FROM %3$s %4$s ORDER BY %2$I %1$s LIMIT $2) s),
		radik AS (
			SELECT x.ordinality AS rank, x.%2$I AS key, to_jsonb(x) - 'ordinality' AS row
			FROM radik_topk(NULL::%3$s, $1, $2, $3, $4) WITH ORDINALITY AS x)
		SELECT (SELECT count(*) FROM radik),
			(SELECT array_agg(key ORDER BY rank) FROM radik)
				IS NOT DISTINCT FROM (SELECT keys FROM postgres)
			AND NOT EXISTS (SELECT row FROM radik
							EXCEPT ALL SELECT to_jsonb(t) FROM %3$s t)$q$,
		dir, col, tbl, filter) USING col, k, smallest, nulls;
END $check$;

-- A partitioned table: a partition whose columns lie in another order, one with a dropped column.
CREATE TABLE topk_parted (id int4, v float8, note text) PARTITION BY RANGE (id);
CREATE TABLE topk_parted_low (note text, v float8, id int4);
ALTER TABLE topk_parted ATTACH PARTITION topk_parted_low FOR VALUES FROM (0) TO (500);
CREATE TABLE topk_parted_high (id int4, gone int4, v float8, note text);
ALTER TABLE topk_parted_high DROP COLUMN gone;
ALTER TABLE topk_parted ATTACH PARTITION topk_parted_high FOR VALUES FROM (500) TO (1000);
INSERT INTO topk_parted SELECT i, CASE WHEN i % 50 = 0 THEN NULL ELSE (i * 37 % 101) * 0.5 END, 'n' || i
	FROM generate_series(0, 999) i;
SELECT * FROM topk_rows_check('topk_parted', 'v', 5);
SELECT * FROM topk_rows_check('topk_parted', 'v', 5, smallest => true, nulls => 'first');
SELECT * FROM topk_rows_check('topk_parted', 'v', 2000, nulls => 'last');
SELECT * FROM radik_topk('topk_parted', 'v', 3);

-- An inheritance parent with a dropped column, whose child holds rows too.
CREATE TABLE topk_parent (id int4, gone int4, v int8);
ALTER TABLE topk_parent DROP COLUMN gone;
CREATE TABLE topk_child (extra text) INHERITS (topk_parent);
INSERT INTO topk_parent SELECT i, i * 13 % 97 FROM generate_series(1, 300) i;
INSERT INTO topk_child SELECT i, i * 17 % 89 + 1000, 'x' FROM generate_series(301, 600) i;
SELECT * FROM topk_rows_check('topk_parent', 'v', 7);
SELECT max(v) >= 1000 AS child_rows_found FROM radik_topk(NULL::topk_parent, 'v', 3);
SELECT * FROM radik_topk('topk_parent', 'v', 3);
-- the child alone is a plain heap table, which radik reads itself
SELECT count(*) FROM radik_topk('topk_child', 'v', 3);

-- A table of another access method (here one that stores heap pages under another name).
CREATE ACCESS METHOD topk_other_am TYPE TABLE HANDLER heap_tableam_handler;
CREATE TABLE topk_other (id int4, v int4) USING topk_other_am;
INSERT INTO topk_other SELECT i, i * 7 % 53 FROM generate_series(1, 500) i;
SELECT * FROM topk_rows_check('topk_other', 'v', 4, smallest => true);
SELECT * FROM radik_topk('topk_other', 'v', 3);

-- A foreign table over postgres_fdw, connected back to this database.
CREATE EXTENSION postgres_fdw;
SELECT radik_loopback_server('topk_loopback');
CREATE TABLE topk_remote_source (id int4, v timestamptz);
INSERT INTO topk_remote_source
	SELECT i, timestamptz '2024-01-01 00:00+00' + (i * 7919 % 1009) * interval '1 hour'
	FROM generate_series(1, 2000) i;
CREATE FOREIGN TABLE topk_remote (id int4, v timestamptz)
	SERVER topk_loopback OPTIONS (table_name 'topk_remote_source');
SELECT * FROM topk_rows_check('topk_remote', 'v', 6);
SELECT * FROM radik_topk('topk_remote', 'v', 3);

-- A table Citus distributes: Citus lists it in pg_catalog.pg_dist_partition, while the table on
-- the coordinator is an empty or stale shell.  (A stand-in for Citus's catalog, as Citus is not
-- installed here; the real one was checked by hand.)
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass, partmethod "char");
RESET allow_system_table_mods;
CREATE TABLE topk_distributed (id int4, v int4);
INSERT INTO topk_distributed SELECT i, i % 10 FROM generate_series(1, 100) i;
INSERT INTO pg_catalog.pg_dist_partition VALUES ('topk_distributed', 'h');
SELECT * FROM radik_topk('topk_distributed', 'v', 3);
SELECT * FROM topk_rows_check('topk_distributed', 'v', 3);
-- a table not in the catalog is read as before
CREATE TABLE topk_local (id int4, v int4);
INSERT INTO topk_local SELECT i, i % 10 FROM generate_series(1, 100) i;
SELECT count(*) FROM radik_topk('topk_local', 'v', 3);
SET allow_system_table_mods = on;
DROP TABLE pg_catalog.pg_dist_partition;
RESET allow_system_table_mods;

-- A policy with a subquery: the row form asks the equivalent query, which applies it; the
-- row-id form refuses.  As an ordinary role, so that the policy applies.
CREATE TABLE topk_policed (id int4, v int4);
INSERT INTO topk_policed SELECT i, i * 31 % 211 FROM generate_series(1, 400) i;
CREATE TABLE topk_allowed (id int4);
INSERT INTO topk_allowed SELECT i FROM generate_series(1, 400, 3) i;
ALTER TABLE topk_policed ENABLE ROW LEVEL SECURITY;
CREATE POLICY topk_allowed_only ON topk_policed USING (id IN (SELECT id FROM topk_allowed));
CREATE ROLE regress_radik_topk_elsewhere;
GRANT SELECT ON topk_policed, topk_allowed TO regress_radik_topk_elsewhere;
SET ROLE regress_radik_topk_elsewhere;
SELECT * FROM topk_rows_check('topk_policed', 'v', 5);
SELECT bool_and(id % 3 = 1) AS only_allowed_rows FROM radik_topk(NULL::topk_policed, 'v', 50);
SELECT * FROM radik_topk('topk_policed', 'v', 3);
RESET ROLE;

DROP TABLE topk_parted, topk_parent, topk_child, topk_other, topk_remote_source, topk_distributed,
	topk_local, topk_policed, topk_allowed;
DROP FOREIGN TABLE topk_remote;
DROP USER MAPPING FOR CURRENT_USER SERVER topk_loopback;
DROP SERVER topk_loopback;
DROP EXTENSION postgres_fdw;
DROP ACCESS METHOD topk_other_am;
DROP ROLE regress_radik_topk_elsewhere;
DROP FUNCTION topk_rows_check(regclass, name, bigint, boolean, text);
