-- radik_keys: sort keys of type text, varchar, char(n), bytea, uuid, inet and cidr (whose engine
-- key is PostgreSQL's abbreviated key, a summary: radik_key_mapper.c), interval (its span, cut to
-- about 2 ms), enums (ranked by their sort order), bool, oid, "char" and money, and domains over
-- them.  Every answer is compared with PostgreSQL's own (radik_compare in radik_setup.sql).
-- The strings share prefixes longer than the 8 bytes a key holds, are empty, multibyte, differ
-- only in case or accents, have trailing spaces (equal in char(n)), hold NUL bytes (bytea), are
-- compressed or stored outside the row;
-- the uuids differ only in their last byte; the enum's order is not its labels' creation order;
-- intervals equal as spans but not in fields (a month and 30 days), or a millisecond apart;
-- addresses of both families, with and without netmasks.
-- Collations: the database's ("C" under pg_regress --no-locale), "C", POSIX, a libc collation
-- where there is one (radik declines it unless PostgreSQL abbreviates it) and ICU collations,
-- deterministic and not, where PostgreSQL was built with ICU; those parts print the same either
-- way.
LOAD 'radik';
SET radik.force = on;

CREATE TYPE radik_kmood AS ENUM ('low', 'high');
ALTER TYPE radik_kmood ADD VALUE 'mid' BEFORE 'high';
ALTER TYPE radik_kmood ADD VALUE 'lowest' BEFORE 'low';
ALTER TYPE radik_kmood ADD VALUE 'highest';
CREATE DOMAIN radik_kname AS text CHECK (VALUE <> 'forbidden');
CREATE DOMAIN radik_kmood_d AS radik_kmood;
CREATE TABLE radik_kt (id int4, t text, v varchar(40), c char(12), b bytea, u uuid, f bool,
					   o oid, ch "char", m money, e radik_kmood, dt radik_kname,
					   de radik_kmood_d, big text, packed text, iv interval, ip inet, cn cidr);
ALTER TABLE radik_kt ALTER big SET STORAGE EXTERNAL;
INSERT INTO radik_kt
SELECT i,
	   CASE WHEN i % 17 = 0 THEN NULL
			WHEN i % 11 = 0 THEN ''
			WHEN i % 5 = 0 THEN 'shared-prefix-' || (i % 37)
			WHEN i % 7 = 0 THEN (ARRAY['straße', 'strasse', 'STRASSE', 'Straße', 'ß', 'ss', 'é',
									   'e', 'É', 'E', '日本', '日本語', 'ä', 'a', 'z', 'Z', 'ab ',
									   'ab', 'ab  x', 'a b'])[1 + i % 20]
			ELSE md5(i::text) END,
	   CASE WHEN i % 13 = 0 THEN NULL WHEN i % 3 = 0 THEN 'same-8by' || (i % 5)
			ELSE left(md5((i * 3)::text), 1 + i % 20) END,
	   CASE WHEN i % 19 = 0 THEN NULL
			ELSE (ARRAY['ab', 'ab  ', 'abcdefgh', 'abcdefgh  x', 'abcdefgh   ', 'b', '', ' a',
						'abcdefghi'])[1 + i % 9] END,
	   CASE WHEN i % 23 = 0 THEN NULL WHEN i % 4 = 0 THEN '\x'::bytea
			WHEN i % 4 = 1 THEN decode(lpad(to_hex(i % 64), 2, '0') || '00', 'hex')
			WHEN i % 4 = 2 THEN decode('0000000000000000' || lpad(to_hex(i % 256), 2, '0'), 'hex')
			ELSE decode(md5(i::text), 'hex') END,
	   CASE WHEN i % 29 = 0 THEN NULL
			WHEN i % 2 = 0 THEN ('00000000-0000-0000-0000-0000000000' || lpad(to_hex(i % 256), 2, '0'))::uuid
			ELSE md5((i * 7)::text)::uuid END,
	   CASE WHEN i % 31 = 0 THEN NULL ELSE i % 3 = 0 END,
	   CASE WHEN i % 37 = 0 THEN NULL ELSE (i * 2654435761::int8 % 4294967296)::oid END,
	   CASE WHEN i % 41 = 0 THEN NULL ELSE (i % 256 - 128)::"char" END,
	   CASE WHEN i % 43 = 0 THEN NULL ELSE (i % 401 - 200) * 1.25 END::money,
	   CASE WHEN i % 47 = 0 THEN NULL
			ELSE (ARRAY['low', 'high', 'mid', 'lowest', 'highest'])[1 + i % 5]::radik_kmood END,
	   CASE WHEN i % 53 = 0 THEN NULL ELSE 'name ' || (i * 7919 % 1000) END,
	   CASE WHEN i % 59 = 0 THEN NULL
			ELSE (ARRAY['mid', 'highest', 'lowest'])[1 + i % 3]::radik_kmood END,
	   CASE WHEN i % 61 = 0 THEN NULL WHEN i % 6 = 0 THEN repeat(md5(i::text), 100)
			ELSE 'small ' || (i % 97) END,
	   CASE WHEN i % 67 = 0 THEN NULL WHEN i % 6 = 1 THEN repeat('compressible ', 300) || i
			ELSE 'plain ' || (i % 89) END,
	   CASE WHEN i % 71 = 0 THEN NULL
			WHEN i % 5 = 0 THEN make_interval(days => 1) - make_interval(secs => (i % 3) / 1000.0)
			WHEN i % 5 = 1 THEN make_interval(months => 1) - make_interval(days => 30 + i % 2)
			ELSE make_interval(months => i % 13 - 6, days => (i * 7) % 61 - 30,
							   secs => ((i * 7919) % 100000) / 997.0) END,
	   CASE WHEN i % 73 = 0 THEN NULL
			WHEN i % 4 = 0 THEN ('2001:db8:' || to_hex(i % 17) || '::' || to_hex(i) || '/' || (64 + i % 65))::inet
			WHEN i % 4 = 1 THEN ('192.168.' || (i % 3) || '.' || (i % 256) || '/' || (i % 33))::inet
			ELSE ('10.' || (i % 2) || '.' || (i * 7) % 256 || '.' || (i % 256))::inet END,
	   CASE WHEN i % 79 = 0 THEN NULL
			ELSE network(('10.' || (i % 5) || '.' || (i * 13) % 256 || '.0/' || (8 + i % 17))::inet)::cidr END
FROM generate_series(1, 3000) i;
ANALYZE radik_kt;
-- big: values over 2 kB stored outside the row; packed: values over 2 kB compressed in the row.
SELECT count(*) FILTER (WHERE pg_column_size(big) > 2000) > 0 AS external_values,
	   count(*) FILTER (WHERE octet_length(packed) > 2000
						AND pg_column_size(packed) < octet_length(packed)) > 0 AS compressed_values
FROM radik_kt;

-- radik's node over each new key type.
EXPLAIN (COSTS OFF) SELECT id, t FROM radik_kt ORDER BY t LIMIT 5;
EXPLAIN (COSTS OFF) SELECT id, t FROM radik_kt ORDER BY t COLLATE "C" DESC LIMIT 5;
EXPLAIN (COSTS OFF) SELECT * FROM radik_kt ORDER BY u, e, c, b, f, o, ch, m, v LIMIT 5;
EXPLAIN (COSTS OFF) SELECT id FROM radik_kt ORDER BY iv DESC, ip, cn LIMIT 5;

-- Each column, both directions, NULLs first and last, k from 1 to beyond the table: the count
-- of checks, then any that failed.
CREATE TEMP TABLE radik_kt_checks AS
SELECT col, ord, k, radik_check('id, ' || col, 'radik_kt', col || ord, 'LIMIT ' || k, col) AS result
FROM unnest(ARRAY['t', 'v', 'c', 'b', 'u', 'f', 'o', 'ch', 'm', 'e', 'dt', 'de', 'big',
				  'packed', 'iv', 'ip', 'cn']) AS col,
	 unnest(ARRAY['', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST']) AS ord,
	 unnest(ARRAY[1, 7, 100, 2990, 4000]) AS k;
SELECT count(*) AS checks, count(*) FILTER (WHERE result = 'ok') AS agreed FROM radik_kt_checks;
SELECT * FROM radik_kt_checks WHERE result <> 'ok' ORDER BY col, ord, k;
DROP TABLE radik_kt_checks;

-- Cuts among keys that tie on their first 8 bytes (and in char(n), trailing spaces), OFFSET,
-- WITH TIES, several keys, whole rows and the key alone.
SELECT q, radik_compare(q, NULL, 'k', 'SELECT id, k FROM (SELECT id, t AS k FROM radik_kt) s') AS result
FROM unnest(ARRAY[
	'SELECT id, t AS k FROM radik_kt WHERE t LIKE ''shared%'' ORDER BY t LIMIT 3',
	'SELECT id, t AS k FROM radik_kt WHERE t LIKE ''shared%'' ORDER BY t DESC LIMIT 30 OFFSET 7',
	'SELECT id, t AS k FROM radik_kt WHERE t LIKE ''shared-prefix-1%'' ORDER BY t FETCH FIRST 2 ROWS WITH TIES',
	'SELECT id, t AS k FROM radik_kt ORDER BY t NULLS FIRST OFFSET 150 ROWS FETCH FIRST 5 ROWS WITH TIES'
	]) AS q;
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT id, c FROM radik_kt WHERE c LIKE ''abcdefgh%'' ORDER BY c, id LIMIT 10',
	'SELECT c FROM radik_kt WHERE c LIKE ''ab%'' ORDER BY c DESC, id LIMIT 700',
	'SELECT id, v FROM radik_kt ORDER BY v, id LIMIT 50',
	'SELECT id, v FROM radik_kt WHERE v LIKE ''same-8by%'' ORDER BY v DESC, id DESC LIMIT 20 OFFSET 100',
	'SELECT t FROM radik_kt ORDER BY t, id LIMIT 200',
	'SELECT * FROM radik_kt ORDER BY t DESC NULLS LAST, id LIMIT 40',
	'SELECT * FROM radik_kt ORDER BY b, id LIMIT 100',
	'SELECT id, b FROM radik_kt ORDER BY b DESC, id FETCH FIRST 1 ROWS WITH TIES',
	'SELECT id, u FROM radik_kt ORDER BY u, id LIMIT 130',
	'SELECT id, u FROM radik_kt ORDER BY u DESC NULLS LAST, id LIMIT 10',
	'SELECT id, e, de FROM radik_kt ORDER BY e DESC, de, id LIMIT 25',
	'SELECT id, e FROM radik_kt ORDER BY e, id OFFSET 590 ROWS FETCH FIRST 20 ROWS WITH TIES',
	'SELECT id, ch, m FROM radik_kt ORDER BY ch, m DESC, id LIMIT 30',
	'SELECT id, f, o FROM radik_kt ORDER BY f DESC NULLS LAST, o LIMIT 30',
	'SELECT id, m FROM radik_kt WHERE m < 0::money ORDER BY m, id LIMIT 15',
	'SELECT id, big FROM radik_kt ORDER BY big DESC, id LIMIT 12',
	'SELECT id, packed FROM radik_kt ORDER BY packed, id LIMIT 12',
	'SELECT id, dt FROM radik_kt ORDER BY dt DESC, id LIMIT 12',
	'SELECT id, iv FROM radik_kt ORDER BY iv, id LIMIT 100',
	'SELECT id, iv FROM radik_kt ORDER BY iv DESC NULLS LAST, id FETCH FIRST 30 ROWS WITH TIES',
	'SELECT id, ip FROM radik_kt ORDER BY ip DESC, id LIMIT 90',
	'SELECT id, cn, ip FROM radik_kt ORDER BY cn, ip, id LIMIT 70'
	]) AS q;

-- Expressions over text as keys.
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT id, lower(t) FROM radik_kt ORDER BY lower(t), id LIMIT 40',
	'SELECT id, t || ''x'' FROM radik_kt ORDER BY t || ''x'' DESC, id LIMIT 40',
	'SELECT id FROM radik_kt ORDER BY substr(big, 3, 20), id LIMIT 40',
	'SELECT id, md5(v)::uuid FROM radik_kt ORDER BY md5(v)::uuid, id LIMIT 10',
	'SELECT id FROM radik_kt ORDER BY convert_to(t, ''UTF8''), id LIMIT 40',
	'SELECT id, c::text FROM radik_kt ORDER BY c::text DESC, id LIMIT 40'
	]) AS q;

-- Collations PostgreSQL compares as "C" does.
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT id, t FROM radik_kt ORDER BY t COLLATE "C", id LIMIT 60',
	'SELECT id, t FROM radik_kt ORDER BY t COLLATE "POSIX" DESC, id LIMIT 60',
	'SELECT id, v FROM radik_kt ORDER BY v COLLATE "C" DESC, id LIMIT 60',
	'SELECT id, c FROM radik_kt ORDER BY c COLLATE "C", id LIMIT 60'
	]) AS q;

-- Other collations, where this PostgreSQL has them: each answer must be PostgreSQL's, whether
-- radik answers (an abbreviating collation) or declines (a libc collation PostgreSQL does not
-- abbreviate).  ICU: case and accents, "ß" against "ss", a nondeterministic collation under
-- which 'STRASSE' and 'straße' are equal.
CREATE FUNCTION radik_kt_collation_checks() RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	colls text[] := '{}';
	coll text;
	q text;
	result text;
BEGIN
	SELECT array_agg(quote_ident(collname)) INTO colls
	FROM pg_collation
	WHERE collname IN ('C.utf8', 'C.UTF-8', 'en_US.utf8', 'en_US', 'de_DE.utf8')
	  AND collencoding IN (-1, pg_char_to_encoding(current_setting('server_encoding')));
	BEGIN
		EXECUTE 'CREATE COLLATION radik_kt_icu (provider = icu, locale = ''und'')';
		EXECUTE 'CREATE COLLATION radik_kt_icu_de (provider = icu, locale = ''de-DE'')';
		EXECUTE 'CREATE COLLATION radik_kt_icu_ci (provider = icu, locale = ''und-u-ks-level2'', '
			'deterministic = false)';
		EXECUTE 'CREATE COLLATION radik_kt_icu_ai (provider = icu, locale = ''und-u-ks-level1'', '
			'deterministic = false)';
		colls := coalesce(colls, '{}') ||
			ARRAY['radik_kt_icu', 'radik_kt_icu_de', 'radik_kt_icu_ci', 'radik_kt_icu_ai'];
	EXCEPTION WHEN feature_not_supported THEN
		NULL;					-- PostgreSQL built without ICU
	END;
	FOREACH coll IN ARRAY coalesce(colls, '{}') LOOP
		FOREACH q IN ARRAY ARRAY[
			format('SELECT id, t FROM radik_kt ORDER BY t COLLATE %s, id LIMIT 80', coll),
			format('SELECT id, t FROM radik_kt ORDER BY t COLLATE %s DESC, id LIMIT 80', coll),
			format('SELECT id, v FROM radik_kt ORDER BY v COLLATE %s NULLS FIRST, id LIMIT 80', coll),
			format('SELECT id, c FROM radik_kt ORDER BY c COLLATE %s DESC, id LIMIT 80', coll),
			format('SELECT id, lower(t) FROM radik_kt ORDER BY lower(t) COLLATE %s, id LIMIT 80', coll),
			format('SELECT id, t FROM radik_kt WHERE t IN (''straße'', ''strasse'', ''STRASSE'', '
				   '''Straße'', ''ß'', ''ss'', ''é'', ''e'', ''É'', ''E'') ORDER BY t COLLATE %s, '
				   'id LIMIT 20', coll),
			format('SELECT id, t FROM radik_kt WHERE t IN (''straße'', ''strasse'', ''STRASSE'', '
				   '''ß'', ''ss'') ORDER BY t COLLATE %s FETCH FIRST 1 ROWS WITH TIES', coll),
			-- LIKE runs natively under deterministic collations only: PostgreSQL 15 to 17 refuse
			-- the others when planning, and 18 matches 'straße' there (case-insensitively)
			format('SELECT id, t FROM radik_kt WHERE t COLLATE %s LIKE ''S%%'' ORDER BY id LIMIT 80',
				   coll)
		] LOOP
			IF q LIKE '%WITH TIES' THEN
				-- under a nondeterministic collation, ties hold different strings in any order:
				-- the same rows
				q := 'SELECT string_agg(id::text, '','' ORDER BY id) FROM (' || q || ') s';
				PERFORM set_config('radik.enabled', 'off', true);
				EXECUTE q INTO STRICT result;
				PERFORM set_config('radik.enabled', 'on', true);
				EXECUTE 'SELECT CASE WHEN ids IS NOT DISTINCT FROM $1 THEN ''ok'' '
					'ELSE ''other rows: '' || ids END FROM (' || q || ') s(ids)'
					INTO STRICT result USING result;
			ELSE
				BEGIN
					result := radik_compare(q);
				EXCEPTION WHEN feature_not_supported THEN
					-- the planner's own error, before either plan exists
					result := CASE WHEN SQLERRM = 'nondeterministic collations are not supported for LIKE'
						AND q LIKE '%LIKE%' THEN 'ok' ELSE SQLERRM END;
				END;
			END IF;
			IF result <> 'ok' AND result NOT LIKE 'radik not used:%' THEN
				RETURN coll || ': ' || q || ': ' || result;
			END IF;
		END LOOP;
	END LOOP;
	RETURN 'ok';
END $$;
SELECT radik_kt_collation_checks() AS other_collations;
DROP FUNCTION radik_kt_collation_checks();
SET client_min_messages = warning;
DROP COLLATION IF EXISTS radik_kt_icu, radik_kt_icu_de, radik_kt_icu_ci, radik_kt_icu_ai;
RESET client_min_messages;

-- Parallel workers make the same keys as the backend running the query.
ALTER TABLE radik_kt SET (parallel_workers = 2);
SET min_parallel_table_scan_size = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET max_parallel_workers_per_gather = 2;
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT id, t FROM radik_kt ORDER BY t DESC, id LIMIT 70',
	'SELECT id, e FROM radik_kt ORDER BY e, id LIMIT 70',
	'SELECT id, u FROM radik_kt ORDER BY u DESC, id LIMIT 70',
	'SELECT id FROM radik_kt ORDER BY upper(t) || v, id LIMIT 70'
	]) AS q;
RESET max_parallel_workers_per_gather;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
RESET min_parallel_table_scan_size;

-- A partitioned table: each partition selects by the same keys, and the candidates of all of
-- them are ordered by the type's comparator together.
CREATE TABLE radik_kt_parted (LIKE radik_kt) PARTITION BY RANGE (id);
CREATE TABLE radik_kt_parted_1 PARTITION OF radik_kt_parted FOR VALUES FROM (MINVALUE) TO (1500);
CREATE TABLE radik_kt_parted_2 PARTITION OF radik_kt_parted FOR VALUES FROM (1500) TO (MAXVALUE);
INSERT INTO radik_kt_parted SELECT * FROM radik_kt;
ANALYZE radik_kt_parted;
SELECT q, radik_compare(q) AS result
FROM unnest(ARRAY[
	'SELECT id, t FROM radik_kt_parted ORDER BY t COLLATE "C" DESC, id LIMIT 40',
	'SELECT id, t FROM radik_kt_parted WHERE t LIKE ''shared%'' ORDER BY t, id LIMIT 25',
	'SELECT id, u FROM radik_kt_parted ORDER BY u, id LIMIT 40',
	'SELECT id, e FROM radik_kt_parted ORDER BY e DESC, id LIMIT 40',
	'SELECT id, iv FROM radik_kt_parted ORDER BY iv NULLS FIRST, id LIMIT 40',
	'SELECT id, ip FROM radik_kt_parted ORDER BY ip DESC, id LIMIT 40'
	]) AS q;
DROP TABLE radik_kt_parted;

-- radik_topk() orders every key type ORDER BY ... LIMIT does.
SELECT col, c.*
FROM unnest(ARRAY['t', 'v', 'c', 'b', 'u', 'f', 'o', 'ch', 'm', 'e', 'dt', 'de', 'big']) col,
	radik_topk_check('radik_kt', col, 25, col IN ('t', 'b', 'e'), 'last') c
ORDER BY col;

DROP TABLE radik_kt;
DROP DOMAIN radik_kmood_d;
DROP DOMAIN radik_kname;
DROP TYPE radik_kmood;
