-- radik_topk(): the SQL function, compared with PostgreSQL's own ORDER BY ... LIMIT.
--
-- Every answer is checked with radik_topk_check() (defined in radik_setup.sql), which compares it
-- with PostgreSQL's own answer inside the test, so a wrong answer fails whatever this file expects.
SET extra_float_digits = 0;

-- Keys of every supported kind, with ties, NULLs, NaN, -0.0, +0.0 and both infinities.
CREATE TABLE topk_events (
	id integer PRIMARY KEY,
	score double precision,
	ratio real,
	small smallint,
	medium integer,
	big bigint,
	day date,
	clock time,
	at timestamp,
	attz timestamptz,
	note text
);
INSERT INTO topk_events
SELECT i,
	CASE WHEN i % 17 = 0 THEN NULL
		 WHEN i % 23 = 0 THEN 'NaN'
		 WHEN i % 29 = 0 THEN '-0'
		 WHEN i % 31 = 0 THEN '0'
		 WHEN i % 37 = 0 THEN 'Infinity'
		 WHEN i % 41 = 0 THEN '-Infinity'
		 ELSE ((i * 7919) % 1009 - 500) / 8.0 END,
	CASE WHEN i % 19 = 0 THEN NULL
		 WHEN i % 43 = 0 THEN 'NaN'::real
		 WHEN i % 47 = 0 THEN '-0'::real
		 ELSE ((i * 104729) % 2003 - 1000) / 3.0 END,
	CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 31) % 211 - 105 END,
	CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 2654435761) % 2147483647 - 1073741823 END,
	CASE WHEN i % 7 = 0 THEN NULL
		 ELSE ((i::numeric * 6364136223846793005) % 9223372036854775807 - 4611686018427387903)::bigint END,
	CASE WHEN i % 5 = 0 THEN NULL ELSE date '2000-01-01' + (i * 37) % 3650 END,
	CASE WHEN i % 8 = 0 THEN NULL ELSE time '00:00' + (i * 7841) % 86400 * interval '1 second' END,
	CASE WHEN i % 9 = 0 THEN NULL ELSE timestamp '2020-01-01' + (i * 7901) % 86400 * interval '1 minute' END,
	CASE WHEN i % 10 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00+00' + (i * 7907) % 86400 * interval '1 second' END,
	'event ' || i
FROM generate_series(1, 3000) i;

-- A small table with distinct keys and one NULL, whose answers can be shown.
CREATE TABLE topk_players (id integer, name text, points integer);
INSERT INTO topk_players VALUES (1, 'ada', 40), (2, 'bob', 75), (3, 'cy', 25), (4, 'dee', 90),
	(5, 'eve', 10), (6, 'fay', 60), (7, 'gus', NULL);

-- The three forms: by name (a literal, text or regclass) and by row type.
SELECT * FROM radik_topk('topk_players', 'points', 3);
SELECT * FROM radik_topk('topk_players'::regclass, 'points', 3);
SELECT * FROM radik_topk('topk_players'::text, 'points', 3);
SELECT * FROM radik_topk(NULL::topk_players, 'points', 3);
SELECT * FROM radik_topk(NULL::topk_players, 'points', 3, smallest => true);
SELECT * FROM radik_topk(NULL::topk_players, 'points', 3, nulls => 'first');
SELECT * FROM radik_topk(NULL::topk_players, 'points', 10, nulls => 'last');
SELECT * FROM radik_topk(NULL::topk_players, 'points', 10, true, 'LAST');
SELECT * FROM radik_topk(NULL::topk_players, 'points', 2) WITH ORDINALITY AS t(id, name, points, rank);
SELECT p.name, p.points, t.rank
FROM radik_topk('topk_players', 'points', 3) t JOIN topk_players p ON p.ctid = t.row_id
ORDER BY t.rank;
SELECT * FROM radik_topk_check('topk_players', 'points', 3);
SELECT * FROM radik_topk_check('topk_players', 'points', 3, true);
SELECT * FROM radik_topk_check('topk_players', 'points', 3, false, 'first');
SELECT * FROM radik_topk_check('topk_players', 'points', 10, true, 'last');

-- Every key type, both directions, every NULL placement.
SELECT col, smallest, nulls, c.*
FROM unnest(ARRAY['score', 'ratio', 'small', 'medium', 'big', 'day', 'clock', 'at', 'attz']) col,
	unnest(ARRAY[false, true]) smallest,
	unnest(ARRAY['exclude', 'first', 'last']) nulls,
	radik_topk_check('topk_events', col, 100, smallest, nulls) c
ORDER BY col, smallest, nulls;

-- Keys that radik orders by a summary of their values, the candidates then sorted by the type's
-- comparator: text (in the column's collation), numeric, interval, uuid, inet and cidr, with
-- values sharing long prefixes and differing in spans of under a few milliseconds.
CREATE TABLE topk_summarized AS
SELECT i AS id,
	CASE WHEN i % 17 = 0 THEN NULL ELSE 'player-name-' || (i * 7919) % 500 END AS name,
	CASE WHEN i % 19 = 0 THEN NULL ELSE (i * 7919) % 700 / 7.0 + 1e12 END AS amount,
	CASE WHEN i % 23 = 0 THEN NULL
		 ELSE make_interval(months => i % 5, days => (i * 31) % 40 - 20, secs => ((i * 7) % 2001) / 1000.0) END AS span,
	CASE WHEN i % 29 = 0 THEN NULL
		 ELSE ('00000000-0000-0000-0000-00000000' || lpad(to_hex((i * 7919) % 4096), 4, '0'))::uuid END AS token,
	CASE WHEN i % 31 = 0 THEN NULL
		 WHEN i % 3 = 0 THEN ('2001:db8::' || to_hex(i % 300) || '/' || (100 + i % 28))::inet
		 ELSE ('10.' || (i % 3) || '.' || (i * 7) % 256 || '.' || i % 250 || '/' || (16 + i % 17))::inet END AS addr,
	CASE WHEN i % 37 = 0 THEN NULL ELSE network(('10.' || (i % 7) || '.' || (i * 13) % 256 || '.0/' || (8 + i % 17))::inet)::cidr END AS net
FROM generate_series(1, 3000) i;
CREATE TEMP TABLE topk_summarized_checks AS
SELECT col, smallest, nulls, k, c.*
FROM unnest(ARRAY['name', 'amount', 'span', 'token', 'addr', 'net']) col,
	unnest(ARRAY[false, true]) smallest,
	unnest(ARRAY['exclude', 'first', 'last']) nulls,
	unnest(ARRAY[1, 50, 2990]) k,
	radik_topk_check('topk_summarized', col, k, smallest, nulls) c;
SELECT count(*) AS checks, count(*) FILTER (WHERE n > 0 AND tids_ok AND rows_ok) AS agreed
FROM topk_summarized_checks;
SELECT * FROM topk_summarized_checks WHERE n = 0 OR NOT (tids_ok AND rows_ok)
ORDER BY col, smallest, nulls, k;
DROP TABLE topk_summarized_checks;
-- Under radik.enabled = off too, radik_topk selects with radik (the checks above run so).
SET radik.enabled = off;
SELECT * FROM radik_topk_check('topk_summarized', 'name', 40);
RESET radik.enabled;
DROP TABLE topk_summarized;

-- k = 0, 1, around the number of rows, larger than the table, the largest bigint.
SELECT k, c.*
FROM unnest(ARRAY[0, 1, 2, 1000, 2823, 2824, 2999, 3000, 3001, 100000,
				  9223372036854775807]::bigint[]) k,
	radik_topk_check('topk_events', 'score', k) c
ORDER BY k;
SELECT k, c.*
FROM unnest(ARRAY[0, 1, 2999, 3000, 3001, 9223372036854775807]::bigint[]) k,
	radik_topk_check('topk_events', 'score', k, true, 'last') c
ORDER BY k;
SELECT count(*) FROM radik_topk('topk_events', 'score', 0);
SELECT count(*) FROM radik_topk(NULL::topk_events, 'score', 0);

-- NaN is the largest value, -0.0 equals +0.0: the ranks around them.
SELECT k, c.*
FROM unnest(ARRAY[1, 2, 100, 131, 132, 133, 200]::bigint[]) k,
	radik_topk_check('topk_events', 'score', k) c
ORDER BY k;
SELECT count(*) FILTER (WHERE score = 'NaN') AS nans, count(*) AS n
FROM radik_topk(NULL::topk_events, 'score', 125);
SELECT count(*) FILTER (WHERE score = 0) AS zeros
FROM radik_topk(NULL::topk_events, 'score', 10000) WHERE score BETWEEN -0.2 AND 0.2;

-- An empty table, a table of NULLs.
CREATE TABLE topk_empty (v integer);
SELECT * FROM radik_topk_check('topk_empty', 'v', 10);
CREATE TABLE topk_all_nulls AS SELECT NULL::integer AS v FROM generate_series(1, 50);
SELECT * FROM radik_topk_check('topk_all_nulls', 'v', 10);
SELECT * FROM radik_topk_check('topk_all_nulls', 'v', 10, false, 'first');

-- A domain over a supported type; a column added with a default after rows were written (the
-- row form must show the default, not NULL); a materialized view.
CREATE DOMAIN topk_positive_int AS integer CHECK (VALUE > 0);
CREATE TABLE topk_with_domain (id integer, v topk_positive_int);
INSERT INTO topk_with_domain SELECT i, (i * 7) % 101 + 1 FROM generate_series(1, 500) i;
SELECT * FROM radik_topk_check('topk_with_domain', 'v', 20);
ALTER TABLE topk_players ADD COLUMN level integer NOT NULL DEFAULT 7;
SELECT * FROM radik_topk(NULL::topk_players, 'points', 2);
SELECT * FROM radik_topk_check('topk_players', 'points', 5);
-- A dropped column and out-of-line (TOASTed) values: rows come back as SELECT shows them.
CREATE TABLE topk_wide (id integer, gone text, body text, v real);
ALTER TABLE topk_wide ALTER COLUMN body SET STORAGE EXTERNAL;
INSERT INTO topk_wide SELECT i, 'dropped ' || i, repeat(md5(i::text), 100), (i * 7) % 61
FROM generate_series(1, 60) i;
ALTER TABLE topk_wide DROP COLUMN gone;
SELECT * FROM radik_topk_check('topk_wide', 'v', 10);
SELECT id, length(body), md5(body) = md5(repeat(md5(id::text), 100)) AS body_ok, v
FROM radik_topk(NULL::topk_wide, 'v', 3);
SELECT (radik_topk(NULL::topk_wide, 'v', 2)).id;
CREATE MATERIALIZED VIEW topk_events_mv AS SELECT id, score FROM topk_events WHERE id <= 1500;
SELECT * FROM radik_topk_check('topk_events_mv', 'score', 40);
CREATE MATERIALIZED VIEW topk_events_mv_empty AS SELECT id, score FROM topk_events WITH NO DATA;
SELECT * FROM radik_topk('topk_events_mv_empty', 'score', 3);

-- The caller's snapshot: a statement sees the rows as they were when it began, as every part
-- of it does (here a data-modifying CTE deletes the top rows in the same statement), and a
-- later statement of the same transaction sees its own changes.
BEGIN;
SET LOCAL radik.enabled = off;
WITH gone AS (DELETE FROM topk_events WHERE id IN (SELECT id FROM topk_events
			  WHERE score IS NOT NULL ORDER BY score DESC LIMIT 40) RETURNING id)
SELECT (SELECT count(*) FROM gone) AS deleted,
	(SELECT array_agg(score ORDER BY score DESC) FROM radik_topk(NULL::topk_events, 'score', 50))
	= (SELECT array_agg(score ORDER BY score DESC)
	   FROM (SELECT score FROM topk_events WHERE score IS NOT NULL ORDER BY score DESC LIMIT 50) s)
	AS same_keys,
	(SELECT count(*) FROM radik_topk(NULL::topk_events, 'score', 50) t
	 JOIN topk_events e ON e.id = t.id) AS rows_found;
SELECT * FROM radik_topk_check('topk_events', 'score', 50);
ROLLBACK;
SELECT * FROM radik_topk_check('topk_events', 'score', 50);
-- Rows updated and deleted in the transaction: only current versions come back.
BEGIN;
UPDATE topk_events SET score = score + 1000 WHERE id % 100 = 1 AND score IS NOT NULL;
DELETE FROM topk_events WHERE id % 100 = 2;
SELECT * FROM radik_topk_check('topk_events', 'score', 60);
SELECT count(*) AS updated_seen,
	count(*) = (SELECT count(*) FROM topk_events WHERE score >= 900 AND score < 'Infinity') AS same
FROM radik_topk(NULL::topk_events, 'score', 5000) WHERE score >= 900 AND score < 'Infinity';
ROLLBACK;

-- A larger table, so that the selection is fed in several chunks.
CREATE TABLE topk_big AS
SELECT i AS id, (i * 2654435761::bigint) % 1000003 AS v, ((i::bigint * 40503) % 65536)::real / 7 AS f
FROM generate_series(1, 200000) i;
SELECT * FROM radik_topk_check('topk_big', 'v', 1000);
SELECT * FROM radik_topk_check('topk_big', 'v', 5, true);
SELECT * FROM radik_topk_check('topk_big', 'f', 3000);
SELECT * FROM radik_topk_check('topk_big', 'f', 70000, true);

-- Names are identifiers: quotes, spaces, mixed case, schema qualification.  The table is read
-- as regclass input reads it (so "quoted" names keep their case); the column is matched as given.
CREATE SCHEMA "TopK Schema";
CREATE TABLE "TopK Schema"."Top ""K"" Table" ("Score Value" integer, "mixedCase" bigint, "id" integer);
INSERT INTO "TopK Schema"."Top ""K"" Table" SELECT (i * 13) % 307, (i * 17) % 301, i FROM generate_series(1, 300) i;
SELECT t.rank, x.* FROM radik_topk('"TopK Schema"."Top ""K"" Table"', 'Score Value', 3) t
JOIN "TopK Schema"."Top ""K"" Table" x ON x.ctid = t.row_id ORDER BY t.rank;
SELECT * FROM radik_topk(NULL::"TopK Schema"."Top ""K"" Table", 'mixedCase', 3, true);
SELECT * FROM radik_topk_check('"TopK Schema"."Top ""K"" Table"', 'Score Value', 30);
SELECT * FROM radik_topk_check('"TopK Schema"."Top ""K"" Table"', 'mixedCase', 30, true);
SET search_path = "TopK Schema", public;
SELECT * FROM radik_topk_check('"Top ""K"" Table"', 'Score Value', 30);
SELECT * FROM radik_topk(NULL::"Top ""K"" Table", 'Score Value', 2);
RESET search_path;
SELECT * FROM radik_topk('"TopK Schema"."Top ""K"" Table"', '"Score Value"', 3);
SELECT * FROM radik_topk('"TopK Schema"."Top ""K"" Table"', 'mixedcase', 3);
SELECT * FROM radik_topk('"TopK Schema"."top ""k"" table"', 'id', 3);
SELECT * FROM radik_topk('"TopK Schema".top "K" table', 'id', 3);
SELECT * FROM radik_topk('topk_players', 'points; DROP TABLE topk_players; --', 3);
-- Table and column as values, as a script would pass them.
PREPARE topk_by_name(text, name, bigint) AS SELECT rank FROM radik_topk($1, $2, $3);
EXECUTE topk_by_name('"TopK Schema"."Top ""K"" Table"', 'id', 2);
PREPARE topk_by_oid(regclass, name, bigint) AS SELECT rank FROM radik_topk($1, $2, $3);
EXECUTE topk_by_oid('topk_players', 'points', 2);

-- NULL arguments: no rows, as from a STRICT function.
SELECT count(*) FROM radik_topk('topk_players', NULL, 3);
SELECT count(*) FROM radik_topk('topk_players', 'points', NULL);
SELECT count(*) FROM radik_topk(NULL::regclass, 'points', 3);
SELECT count(*) FROM radik_topk(NULL::topk_players, NULL, 3);
SELECT count(*) FROM radik_topk(NULL::topk_players, 'points', NULL);
SELECT count(*) FROM radik_topk(NULL::topk_players, 'points', 3, NULL);
SELECT count(*) FROM radik_topk(NULL::topk_players, 'points', 3, false, NULL);

-- Bad input: each a clear error.
SELECT * FROM radik_topk('no_such_table', 'points', 3);
SELECT * FROM radik_topk(0::regclass, 'points', 3);
SELECT * FROM radik_topk('topk_players', 'no_such_column', 3);
SELECT * FROM radik_topk('topk_players', 'ctid', 3);
SELECT * FROM radik_topk('topk_players', 'xmin', 3);
CREATE TABLE topk_docs (id integer, doc jsonb);
SELECT * FROM radik_topk('topk_docs', 'doc', 3);
SELECT * FROM radik_topk(NULL::topk_docs, 'doc', 3);
DROP TABLE topk_docs;
SELECT * FROM radik_topk('topk_players', 'points', -1);
SELECT * FROM radik_topk(NULL::topk_players, 'points', -5);
SELECT * FROM radik_topk('topk_players', 'points', 3, nulls => 'middle');
SELECT * FROM radik_topk('topk_players', 'points', 3, nulls => '');
CREATE VIEW topk_players_view AS SELECT * FROM topk_players;
SELECT * FROM radik_topk('topk_players_view', 'points', 3);
SELECT * FROM radik_topk(NULL::topk_players_view, 'points', 3);
CREATE TABLE topk_parted (id integer, v integer) PARTITION BY RANGE (id);
CREATE TABLE topk_parted_1 PARTITION OF topk_parted FOR VALUES FROM (0) TO (100);
INSERT INTO topk_parted SELECT i, i * 3 % 50 FROM generate_series(0, 99) i;
SELECT * FROM radik_topk('topk_parted', 'v', 3);
SELECT v FROM radik_topk(NULL::topk_parted, 'v', 3);
SELECT * FROM radik_topk_check('topk_parted_1', 'v', 3);
CREATE FOREIGN DATA WRAPPER radik_topk_dummy_fdw;
CREATE SERVER radik_topk_dummy_server FOREIGN DATA WRAPPER radik_topk_dummy_fdw;
CREATE FOREIGN TABLE topk_remote_events (id integer, v integer) SERVER radik_topk_dummy_server;
SELECT * FROM radik_topk('topk_remote_events', 'v', 3);
CREATE INDEX topk_players_points ON topk_players (points);
SELECT * FROM radik_topk('topk_players_points', 'points', 3);
CREATE SEQUENCE topk_seq;
SELECT * FROM radik_topk('topk_seq', 'last_value', 3);
CREATE TYPE topk_pair AS (a integer, b integer);
SELECT * FROM radik_topk(NULL::topk_pair, 'a', 3);
SELECT * FROM radik_topk(now(), 'points', 3);
SELECT * FROM radik_topk(NULL::float8, 'points', 3);
-- A temporary table of this session is fine.
CREATE TEMP TABLE topk_temp_scores AS SELECT i AS id, (i * 37) % 101 AS v FROM generate_series(1, 400) i;
SELECT * FROM radik_topk_check('topk_temp_scores', 'v', 15);
-- Errors changed nothing.
SELECT count(*) FROM topk_players;

-- radik_topk inside a query answered by radik's custom scan: two selections are open at once
-- (the scan's, and the function's for each row the scan's filter evaluates).
CREATE FUNCTION topk_plan_uses_custom_scan(query text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line LIKE '%Custom Scan%' THEN RETURN true; END IF;
	END LOOP;
	RETURN false;
END $$;
CREATE TABLE topk_nested AS SELECT g AS id, (g * 7919) % 10007 AS v FROM generate_series(1, 2000) g;
SET radik.force = on;
SELECT topk_plan_uses_custom_scan($q$SELECT id, v FROM topk_nested
	WHERE v % 3 = (SELECT count(*) % 3 FROM radik_topk(NULL::topk_nested, 'v', topk_nested.id % 5))
	ORDER BY v DESC LIMIT 5$q$) AS uses_custom_scan;
CREATE TEMP TABLE topk_nested_radik AS SELECT id, v FROM topk_nested
	WHERE v % 3 = (SELECT count(*) % 3 FROM radik_topk(NULL::topk_nested, 'v', topk_nested.id % 5))
	ORDER BY v DESC LIMIT 5;
SET radik.enabled = off;
CREATE TEMP TABLE topk_nested_pg AS SELECT id, v FROM topk_nested
	WHERE v % 3 = (SELECT count(*) % 3 FROM radik_topk(NULL::topk_nested, 'v', topk_nested.id % 5))
	ORDER BY v DESC LIMIT 5;
RESET radik.enabled;
RESET radik.force;
SELECT (SELECT array_agg(id ORDER BY v DESC) FROM topk_nested_radik)
	 = (SELECT array_agg(id ORDER BY v DESC) FROM topk_nested_pg) AS same_rows,
	(SELECT count(*) FROM topk_nested_radik) AS n;
DROP TABLE topk_nested, topk_nested_radik, topk_nested_pg;
DROP FUNCTION topk_plan_uses_custom_scan(text);

-- The planner expects k rows when k is known at plan time (else the declared ROWS 100).
CREATE FUNCTION topk_plan_rows(query text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
SELECT topk_plan_rows('SELECT * FROM radik_topk(''topk_players'', ''points'', 42)');
SELECT topk_plan_rows('SELECT * FROM radik_topk(NULL::topk_players, ''points'', 7 * 6, nulls => ''last'')');
SELECT topk_plan_rows('SELECT * FROM radik_topk(NULL::topk_players, ''points'', 0)');

-- The functions' markings.
SELECT p.oid::regprocedure, p.provolatile, p.proparallel, p.proisstrict, p.prorettype::regtype,
	p.prosupport
FROM pg_proc p WHERE p.proname = 'radik_topk' ORDER BY 1::text;

DROP FUNCTION topk_plan_rows(text);
DROP VIEW topk_players_view;
DROP MATERIALIZED VIEW topk_events_mv, topk_events_mv_empty;
DROP TABLE topk_events, topk_players, topk_wide, topk_empty, topk_all_nulls, topk_with_domain, topk_big, topk_parted, topk_temp_scores;
DROP FOREIGN TABLE topk_remote_events;
DROP SERVER radik_topk_dummy_server;
DROP FOREIGN DATA WRAPPER radik_topk_dummy_fdw;
DROP SCHEMA "TopK Schema" CASCADE;
DROP SEQUENCE topk_seq;
DROP TYPE topk_pair;
DROP DOMAIN topk_positive_int;
