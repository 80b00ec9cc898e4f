-- radik_setup: the tables and the comparison helpers that the other radik_* tests share.
--
-- Every radik answer in this suite is checked against PostgreSQL's own answer to the same
-- statement with radik.enabled = off, inside the test, so a wrong answer fails whatever the
-- expected file says.  The helpers also check, with EXPLAIN, that radik's node really ran in the
-- radik half (so a test cannot silently compare PostgreSQL with itself).
--
-- radik_compare(radik_stmt, pg_stmt, keys, base, radik_node) is the core:
--  * radik_stmt runs with radik.enabled = on and radik.force = on; its plan must contain
--    "Custom Scan (RadiK Top-K)", else the answer is 'radik not used' (radik_node => false
--    leaves this check out, for plans whose radik part is elsewhere: a remote query's LIMIT);
--  * pg_stmt (the same text when NULL) runs with radik.enabled = off, its plan must not;
--  * both answers are captured in order (CREATE TEMP TABLE ... AS keeps the order in ctid);
--  * equal text, row by row: 'ok';
--  * else, when the order is not fully determined (ties), keys lists the sort-key expressions
--    over the output columns (NULL: all output columns): the keys must be equal (IS NOT DISTINCT
--    FROM, so -0 = 0 and NaN = NaN as in PostgreSQL's order) position by position, and, when base
--    gives the query without ORDER BY/LIMIT, every row radik returned must be a row of base's
--    answer (as many times as it appears there): then 'ok', else a line naming the difference;
--  * an error in either half is caught: the same SQLSTATE and message in both halves gives
--    'same error: <message>', anything else names the two outcomes.
-- radik_check(select list, from-and-where, order by, limit/offset, keys) builds the statement
-- and its base and calls radik_compare.
LOAD 'radik';

-- Does this statement's plan contain radik's node?  (Plain EXPLAIN: nothing is executed.)
CREATE FUNCTION radik_plan_uses_radik(stmt text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || stmt LOOP
		IF line LIKE '%Custom Scan (RadiK Top-K)%' THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END $$;

-- radik's scan node in the plan of stmt run with EXPLAIN (ANALYZE, COSTS ON, FORMAT JSON), for
-- tests that look at the figures EXPLAIN shows only with costs (Rows Carried, the seed's lines);
-- NULL when radik's node is not in the plan.
CREATE FUNCTION radik_analyzed_scan(stmt text) RETURNS json
LANGUAGE plpgsql SET radik.force = on AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, COSTS ON, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || stmt INTO plan;
	RETURN (WITH RECURSIVE nodes(node) AS (
				SELECT plan -> 0 -> 'Plan'
				UNION ALL
				SELECT child FROM nodes, json_array_elements(node -> 'Plans') child)
			SELECT n.node FROM nodes n
			WHERE n.node ->> 'Custom Plan Provider' = 'RadiK Top-K');
END $$;

-- How many of the rows stmt's scan returned it carried: all, some, none, or none because it
-- made them from their keys (run with EXPLAIN ANALYZE).
CREATE FUNCTION radik_carry_outcome(stmt text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	scan json := radik_analyzed_scan(stmt);
	carried bigint;
	returned bigint;
BEGIN
	IF scan IS NULL THEN
		RETURN 'radik not used';
	ELSIF scan ->> 'Rows Carried' IS NULL THEN
		RETURN 'rows made from keys';
	END IF;
	carried := (scan ->> 'Rows Carried')::bigint;
	returned := (scan ->> 'Actual Rows')::numeric::bigint;	-- 18 gives it with decimals
	RETURN CASE WHEN carried = 0 THEN 'none carried'
				WHEN carried >= returned THEN 'all carried'
				ELSE 'some carried' END;
END $$;

-- The plan's lines, for tests that show plans; device-dependent lines (where the selection ran,
-- times) are masked so that the output is the same with and without a GPU.
CREATE FUNCTION radik_explain(stmt text, with_analyze boolean DEFAULT false) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF' ||
		CASE WHEN with_analyze THEN ', ANALYZE, BUFFERS OFF, TIMING OFF, SUMMARY OFF' ELSE '' END ||
		') ' || stmt LOOP
		-- PostgreSQL 18 shows a WindowAgg's window definition, and names it where older versions
		-- print OVER (?)
		CONTINUE WHEN line ~ '^\s*Window: ';
		line := regexp_replace(line, 'OVER w\d+', 'OVER (?)', 'g');
		IF with_analyze AND line ~* '(device|time|ms\M|copy|copying|selecting|scanning|sent)' THEN
			line := regexp_replace(line, ':.*$', ': (masked)');
		END IF;
		-- PostgreSQL 18 shows actual row counts with two decimals
		RETURN NEXT regexp_replace(line, '(rows=\d+)\.00 ', '\1 ', 'g');
	END LOOP;
END $$;

-- The lines of stmt's EXPLAIN (VERBOSE) that match pattern, trimmed: for tests that look at a
-- few lines of a plan whose other lines differ between PostgreSQL versions.
CREATE FUNCTION radik_plan_lines(stmt text, pattern text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || stmt LOOP
		IF line ~ pattern THEN
			RETURN NEXT trim(line);
		END IF;
	END LOOP;
END $$;

-- Capture the answer of stmt into temp table tab (in order), with radik on or off.  Returns NULL,
-- or the error as 'SQLSTATE: message'.
CREATE FUNCTION radik_capture(stmt text, tab text, use_radik boolean) RETURNS text
LANGUAGE plpgsql SET client_min_messages = warning AS $$
BEGIN
	PERFORM set_config('radik.enabled', CASE WHEN use_radik THEN 'on' ELSE 'off' END, true);
	EXECUTE format('DROP TABLE IF EXISTS %I', tab);
	BEGIN
		EXECUTE format('CREATE TEMP TABLE %I AS %s', tab, stmt);
	EXCEPTION WHEN OTHERS THEN
		RETURN SQLSTATE || ': ' || SQLERRM;
	END;
	RETURN NULL;
END $$;

CREATE FUNCTION radik_compare_answers(radik_stmt text, pg_stmt text, keys text, base text,
									  radik_node boolean)
RETURNS text
LANGUAGE plpgsql
SET client_min_messages = warning
SET radik.force = on
SET radik.enabled = on
AS $$
DECLARE
	got_error text;
	want_error text;
	n_got bigint;
	n_want bigint;
	pos bigint;
	got_row text;
	want_row text;
	got_keys text;
	want_keys text;
	missing bigint;
BEGIN
	pg_stmt := coalesce(pg_stmt, radik_stmt);

	-- radik's half: its node must be in the plan (unless radik_node is false)
	PERFORM set_config('radik.enabled', 'on', true);
	IF radik_node AND NOT radik_plan_uses_radik(radik_stmt) THEN
		RETURN 'radik not used: ' || radik_stmt;
	END IF;
	got_error := radik_capture(radik_stmt, 'radik_got', true);

	-- PostgreSQL's half: radik must not be in its plan
	PERFORM set_config('radik.enabled', 'off', true);
	IF radik_plan_uses_radik(pg_stmt) THEN
		RETURN 'radik used with radik.enabled = off: ' || pg_stmt;
	END IF;
	want_error := radik_capture(pg_stmt, 'radik_want', false);
	PERFORM set_config('radik.enabled', 'on', true);

	IF got_error IS NOT NULL OR want_error IS NOT NULL THEN
		IF got_error IS NOT DISTINCT FROM want_error THEN
			RETURN 'same error: ' || regexp_replace(got_error, '^[^:]*: ', '');
		END IF;
		RETURN format('DIFFERENT errors: radik %s, postgres %s',
					  coalesce(got_error, 'no error'), coalesce(want_error, 'no error'));
	END IF;

	-- The answers in order, position by position, as text (whole rows as ROW(x.*), so that a
	-- column named like the alias cannot stand in for the row).
	SELECT count(*) INTO n_got FROM radik_got;
	SELECT count(*) INTO n_want FROM radik_want;
	SELECT coalesce(g.pos, w.pos), g.row, w.row INTO pos, got_row, want_row
		FROM (SELECT row_number() OVER (ORDER BY ctid) AS pos, ROW(g.*)::text AS row FROM radik_got g) g
		FULL JOIN (SELECT row_number() OVER (ORDER BY ctid) AS pos, ROW(w.*)::text AS row FROM radik_want w) w
		USING (pos)
		WHERE g.row IS DISTINCT FROM w.row
		ORDER BY 1 LIMIT 1;
	IF NOT FOUND THEN
		RETURN 'ok';
	END IF;

	IF n_got <> n_want THEN
		RETURN format('DIFFERENT: radik returned %s rows, postgres %s; first difference at row %s: radik %s, postgres %s',
					  n_got, n_want, pos, coalesce(got_row, 'none'), coalesce(want_row, 'none'));
	END IF;

	-- Different rows: legitimate only where the sort keys tie.  The keys, position by position:
	IF keys IS NULL THEN
		SELECT string_agg(quote_ident(attname), ', ' ORDER BY attnum) INTO keys
			FROM pg_attribute
			WHERE attrelid = 'radik_got'::regclass AND attnum > 0 AND NOT attisdropped;
	END IF;
	EXECUTE format($q$
		SELECT pos, g.k::text, w.k::text
		FROM (SELECT row_number() OVER (ORDER BY ctid) AS pos, ROW(%1$s) AS k FROM radik_got) g
		JOIN (SELECT row_number() OVER (ORDER BY ctid) AS pos, ROW(%1$s) AS k FROM radik_want) w
		USING (pos)
		WHERE g.k IS DISTINCT FROM w.k
		ORDER BY pos LIMIT 1$q$, keys) INTO pos, got_keys, want_keys;
	IF pos IS NOT NULL THEN
		RETURN format('DIFFERENT keys (%s) at row %s: radik %s, postgres %s',
					  keys, pos, got_keys, want_keys);
	END IF;

	-- ... and every row radik returned is a real answer row (as often as radik returned it).
	IF base IS NOT NULL THEN
		PERFORM set_config('radik.enabled', 'off', true);
		EXECUTE format($q$
			SELECT count(*), min(g.row)
			FROM (SELECT ROW(g.*)::text AS row, count(*) AS n FROM radik_got g GROUP BY 1) g
			LEFT JOIN (SELECT ROW(b.*)::text AS row, count(*) AS n FROM (%s) b GROUP BY 1) b USING (row)
			WHERE b.n IS NULL OR b.n < g.n$q$, base) INTO missing, got_row;
		PERFORM set_config('radik.enabled', 'on', true);
		IF missing > 0 THEN
			RETURN format('DIFFERENT: %s row(s) radik returned are not answer rows, e.g. %s',
						  missing, got_row);
		END IF;
	END IF;
	RETURN 'ok';
END $$;

-- The same, leaving no temp table behind (so that another role can compare next).
CREATE FUNCTION radik_compare(radik_stmt text, pg_stmt text DEFAULT NULL,
							  keys text DEFAULT NULL, base text DEFAULT NULL,
							  radik_node boolean DEFAULT true) RETURNS text
LANGUAGE plpgsql SET client_min_messages = warning AS $$
DECLARE
	result text := radik_compare_answers(radik_stmt, pg_stmt, keys, base, radik_node);
BEGIN
	DROP TABLE IF EXISTS radik_got, radik_want;
	RETURN result;
END $$;

-- SELECT sel FROM src ORDER BY ord lim, compared (keys: see radik_compare; NULL = all columns).
CREATE FUNCTION radik_check(sel text, src text, ord text, lim text DEFAULT '',
							keys text DEFAULT NULL) RETURNS text
LANGUAGE sql AS $$
	SELECT radik_compare(format('SELECT %s FROM %s ORDER BY %s %s', sel, src, ord, lim),
						 NULL, keys, format('SELECT %s FROM %s', sel, src))
$$;

-- A postgres_fdw server that connects back to this database, and the current user's mapping
-- to it, for tests of foreign tables (postgres_fdw must be installed first).
CREATE FUNCTION radik_loopback_server(server name) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE SERVER %I FOREIGN DATA WRAPPER postgres_fdw '
				   'OPTIONS (host %L, port %L, dbname %L)', server,
				   split_part(current_setting('unix_socket_directories'), ',', 1),
				   current_setting('port'), current_database());
	EXECUTE format('CREATE USER MAPPING FOR CURRENT_USER SERVER %I OPTIONS (user %L)',
				   server, current_user);
END $$;

-- radik_topk_check(tbl, col, k, smallest, nulls), for radik_topk.sql and radik_topk_security.sql,
-- asks radik_topk and PostgreSQL (radik.enabled = off) the same question and compares the answers
-- inside the test, run as the calling role (so the same row-level security policies apply to
-- both halves).  Rows with equal keys may legitimately be cut differently at the boundary, so it
-- compares the keys rank by rank, and checks that the rows radik returns really are rows of the
-- table:
--   n        rows returned
--   tids_ok  TID form: keys equal PostgreSQL's, rank by rank; ranks are 1..n; every row_id is a
--            distinct visible row of the table
--   rows_ok  row form: keys equal PostgreSQL's, rank by rank; every row returned is a row of the
--            table (as a multiset)
-- It calls radik_topk only through dynamic SQL, so it survives radik_topk_security.sql dropping
-- and recreating the extension.
CREATE FUNCTION radik_topk_check(tbl regclass, col name, k bigint,
							smallest boolean DEFAULT false, nulls text DEFAULT 'exclude')
RETURNS TABLE (n bigint, tids_ok boolean, rows_ok boolean)
LANGUAGE plpgsql SET radik.enabled = off AS $check$
DECLARE
	dir text := CASE WHEN smallest THEN 'ASC' ELSE 'DESC' END
		|| CASE WHEN nulls = 'first' THEN ' NULLS FIRST' ELSE ' NULLS LAST' END;
	filter text := CASE WHEN nulls = 'exclude' THEN format('WHERE %I IS NOT NULL', col) ELSE '' END;
BEGIN
	RETURN QUERY EXECUTE format($q$
		WITH postgres AS (
			SELECT array_agg(key ORDER BY key %1$s) AS keys
			FROM (SELECT %2$I AS key FROM %3$s %4$s ORDER BY %2$I %1$s LIMIT $3) s),
		tids AS (
			SELECT r.rank, r.row_id, t.%2$I AS key, t.ctid IS NOT NULL AS found
			FROM radik_topk($1, $2, $3, $4, $5) r LEFT JOIN %3$s t ON t.ctid = r.row_id),
		rows AS (
			SELECT x.ordinality AS rank, x.%2$I AS key, to_jsonb(x) - 'ordinality' AS row
			FROM radik_topk(NULL::%3$s, $2, $3, $4, $5) WITH ORDINALITY AS x)
		SELECT (SELECT count(*) FROM tids),
			(SELECT array_agg(key ORDER BY rank) FROM tids)
				IS NOT DISTINCT FROM (SELECT keys FROM postgres)
			AND (SELECT coalesce(bool_and(found), true)
					AND count(DISTINCT row_id) = count(*)
					AND count(DISTINCT rank) = count(*)
					AND coalesce(min(rank), 1) = 1 AND coalesce(max(rank), 0) = count(*)
				 FROM tids),
			(SELECT array_agg(key ORDER BY rank) FROM rows)
				IS NOT DISTINCT FROM (SELECT keys FROM postgres)
			AND NOT EXISTS (SELECT row FROM rows
							EXCEPT ALL SELECT to_jsonb(radik_row) FROM %3$s radik_row)
		$q$, dir, col, tbl, filter)
	USING tbl, col, k, smallest, nulls;
END
$check$;

-- The table most tests read: every supported key type, with NULLs, NaN, infinities, -0.0,
-- extreme values, ties (values repeat), an all-equal column and an all-NULL column.
CREATE TABLE radik_t (
	id int4 NOT NULL,
	grp int4,					-- 0..4, for WHERE clauses
	few int2,					-- 0..2: many ties
	same int4,					-- the same value everywhere
	nothing int8,				-- NULL everywhere
	i2 int2,
	i4 int4,
	i8 int8,
	f4 float4,
	f8 float8,
	d date,
	t time,
	ts timestamp,
	tz timestamptz
);

-- 3000 ordinary rows: v runs over about 2000 values, so most values come twice (ties), and
-- every 17th value is NULL (in a different row for each column).
INSERT INTO radik_t
SELECT i, i % 5, i % 3, 42, NULL,
	   CASE WHEN i % 17 = 1 THEN NULL ELSE v END,
	   CASE WHEN i % 17 = 2 THEN NULL ELSE v * 1000003 END,
	   CASE WHEN i % 17 = 3 THEN NULL ELSE v * 10000000019 END,
	   CASE WHEN i % 17 = 4 THEN NULL ELSE (v / 7.0)::float4 END,
	   CASE WHEN i % 17 = 5 THEN NULL ELSE v / 3.0 END,
	   CASE WHEN i % 17 = 6 THEN NULL ELSE date '2000-01-01' + v END,
	   CASE WHEN i % 17 = 7 THEN NULL ELSE time '12:00' + v * interval '37 seconds' END,
	   CASE WHEN i % 17 = 8 THEN NULL
			ELSE timestamp '2000-01-01' + v * interval '1 hour 7 minutes 3.5 seconds' END,
	   CASE WHEN i % 17 = 9 THEN NULL
			ELSE timestamptz '2000-01-01 00:00+00' + v * interval '3 days 1 second' END
FROM (SELECT i, (i * 7919) % 2003 - 1000 AS v FROM generate_series(1, 3000) i) s;

-- Special values, two of each where ties matter.
INSERT INTO radik_t (id, grp, few, same, i2, i4, i8, f4, f8, d, t, ts, tz) VALUES
	(3001, 1, 0, 42, -32768, -2147483648, -9223372036854775808, '-Infinity', '-Infinity',
	 '-infinity', '00:00', '-infinity', '-infinity'),
	(3002, 2, 1, 42, 32767, 2147483647, 9223372036854775807, 'Infinity', 'Infinity',
	 'infinity', '24:00', 'infinity', 'infinity'),
	(3003, 3, 2, 42, 0, 0, 0, 'NaN', 'NaN', '4713-01-01 BC', '00:00:00.000001',
	 '4714-11-24 00:00 BC', '4714-11-24 00:00+00 BC'),
	(3004, 4, 0, 42, 0, 0, 0, '-0', '-0', '5874897-12-31', '23:59:59.999999',
	 '294276-12-31 23:59:59.999999', '294276-12-31 23:59:59.999999+00'),
	(3005, 0, 1, 42, 0, 0, 0, '0', '0', '2000-01-01', '12:00', '2000-01-01', '2000-01-01 00:00+00'),
	(3006, 1, 2, 42, -1, -1, -1, '-0', '-0', '1999-12-31', '11:59:59', '1999-12-31 23:59:59',
	 '1999-12-31 23:59:59+00'),
	(3007, 2, 0, 42, 1, 1, 1, 'NaN', 'NaN', '2000-01-02', '12:00:01', '2000-01-01 00:00:01',
	 '2000-01-01 00:00:01+00'),
	(3008, 3, 1, 42, -32768, -2147483648, -9223372036854775808, '-Infinity', '-Infinity',
	 '-infinity', '00:00', '-infinity', '-infinity'),
	(3009, 4, 2, 42, 32767, 2147483647, 9223372036854775807, 'Infinity', 'Infinity',
	 'infinity', '24:00', 'infinity', 'infinity'),
	(3010, 0, 0, 42, 1, 1, 1, '1e-45', '5e-324', '2000-01-02', '12:00:01',
	 '2000-01-01 00:00:01', '2000-01-01 00:00:01+00'),
	(3011, 1, 1, 42, -1, -1, -1, '-1e-45', '-5e-324', '1999-12-31', '11:59:59',
	 '1999-12-31 23:59:59', '1999-12-31 23:59:59+00'),
	(3012, 2, 2, 42, 32766, 2147483646, 9223372036854775806, '3.4028235e38',
	 '1.7976931348623157e308', '5874897-12-30', '23:59:59.999998', '294276-12-31 23:59:59.999998',
	 '294276-12-31 23:59:59.999998+00'),
	(3013, 3, 0, 42, -32767, -2147483647, -9223372036854775807, '-3.4028235e38',
	 '-1.7976931348623157e308', '4713-01-02 BC', '00:00:00.000002', '4714-11-24 00:00:01 BC',
	 '4714-11-24 00:00:01+00 BC');
CREATE INDEX radik_t_i4 ON radik_t (i4);
ANALYZE radik_t;

-- The helpers check themselves: a statement PostgreSQL answers alone is refused, a wrong
-- "radik" answer is caught (the two halves of radik_compare given different statements), and
-- so are rows that are not answer rows.
SELECT radik_compare('SELECT id FROM radik_t ORDER BY id LIMIT 3 OFFSET 1') AS right_answer;
SELECT radik_compare('SELECT id FROM radik_t GROUP BY id ORDER BY id LIMIT 3') AS not_radik;
SELECT radik_compare('SELECT id FROM radik_t ORDER BY id LIMIT 3',
					 'SELECT id FROM radik_t ORDER BY id LIMIT 3 OFFSET 1') AS wrong_rows;
SELECT radik_compare('SELECT id FROM radik_t ORDER BY id LIMIT 3',
					 'SELECT id FROM radik_t ORDER BY id LIMIT 4') AS wrong_count;
SELECT radik_compare('SELECT same, id FROM radik_t ORDER BY same LIMIT 3',
					 'SELECT same, id + 1 FROM radik_t ORDER BY same LIMIT 3',
					 'same') AS ties_allowed_without_base;
SELECT radik_compare('SELECT same, id FROM radik_t WHERE id <= 3 ORDER BY same LIMIT 3',
					 'SELECT same, id + 1 FROM radik_t WHERE id <= 3 ORDER BY same LIMIT 3',
					 'same', 'SELECT same, id + 10000 FROM radik_t') AS not_answer_rows;
SELECT radik_compare('SELECT few, id FROM radik_t ORDER BY few LIMIT 3',
					 'SELECT few, id FROM radik_t ORDER BY few DESC LIMIT 3',
					 'few') AS wrong_keys;
SELECT radik_compare('SELECT id FROM radik_t ORDER BY id LIMIT -1') AS same_error;
SELECT radik_compare('SELECT id FROM radik_t ORDER BY id LIMIT 1',
					 'SELECT id FROM radik_t ORDER BY id LIMIT -1') AS different_error;

-- A cursor's walk over stmt's rows, with radik on or off, in a SCROLL cursor or not: a list of
-- moves (forward, backward, absolute, to either end), each move's rows (or its error) recorded.
CREATE FUNCTION radik_cursor_moves(q text, use_radik boolean, scroll boolean) RETURNS text
LANGUAGE plpgsql SET radik.force = on SET radik.enabled = on AS $$
DECLARE
	r record;
	walk text := '';
	move text;
BEGIN
	PERFORM set_config('radik.enabled', CASE WHEN use_radik THEN 'on' ELSE 'off' END, true);
	IF radik_plan_uses_radik(q) IS DISTINCT FROM use_radik THEN
		RETURN 'radik used: ' || NOT use_radik;
	END IF;
	EXECUTE format('DECLARE radik_walk %s CURSOR FOR %s',
				   CASE WHEN scroll THEN 'SCROLL' ELSE '' END, q);
	FOREACH move IN ARRAY ARRAY['NEXT', 'NEXT', 'PRIOR', 'PRIOR', 'PRIOR', 'FORWARD 4',
								'BACKWARD 2', 'LAST', 'NEXT', 'PRIOR', 'FIRST', 'ABSOLUTE 5',
								'RELATIVE -2', 'ABSOLUTE -2', 'BACKWARD ALL', 'FORWARD ALL',
								'PRIOR'] LOOP
		BEGIN
			FOR r IN EXECUTE format('FETCH %s FROM radik_walk', move) LOOP
				walk := walk || r::text || ' ';
			END LOOP;
		EXCEPTION WHEN OTHERS THEN
			walk := walk || SQLERRM;
		END;
		walk := walk || '| ';
	END LOOP;
	EXECUTE 'CLOSE radik_walk';
	RETURN walk;
END $$;
