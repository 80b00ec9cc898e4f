-- radik_icu_keys: text keys under ICU collations, whose engine keys radik makes from a table of
-- the collation's ASCII characters where a string allows and asks ICU for otherwise
-- (radik_icu_keys.h).  Every answer is compared with PostgreSQL's own (radik_compare in
-- radik_setup.sql), under collations whose ASCII letters begin contractions (Czech "ch", Danish
-- "aa", Hungarian "gy", the root collation's "l·", Swedish "a" and a combining ring, which is
-- "å"), whose letters sort upper case first, whose digits sort after letters or as numbers,
-- whose punctuation is ignored, that expand letters (German phone book), that treat "i" apart
-- (Turkish), that compare case-insensitively; on strings of every printable ASCII character,
-- shorter and longer than a key's 8 bytes, sharing long prefixes, with a character that is not
-- ASCII at every position from the first to the thirteenth, with tabs, with a
-- contraction across the 8th byte, in text and in char(n); then under every ICU collation
-- PostgreSQL has.  EXPLAIN
-- ANALYZE's "Keys From ICU" shows which keys the table made.  A PostgreSQL built without ICU has
-- none of these collations and prints no failure and no counts (radik_icu_keys_1.out).
LOAD 'radik';
SET radik.force = on;

CREATE TABLE radik_ik (id int4, s text, c char(14));
INSERT INTO radik_ik
SELECT i, s, left(s, 14)
FROM generate_series(1, 6000) i,
	 LATERAL (SELECT CASE i % 10
		WHEN 0 THEN md5(i::text)
		WHEN 1 THEN (SELECT string_agg(chr(32 + get_byte(decode(md5(i || '/' || j), 'hex'), 0) % 95),
									   '')
					 FROM generate_series(1, i % 23) j)
		WHEN 2 THEN (ARRAY['abcdefgh', 'ABCDEFGH', 'abcdefgH', 'Abcdefgh', 'abcdefghi',
						   'abcdefgh ', 'abcdefgh-', 'abcdefg'])[1 + i / 10 % 8] || left(md5(i::text), i % 5)
		WHEN 3 THEN (ARRAY['ch', 'CH', 'cH', 'chata', 'cihla', 'hrad', 'aa', 'Aa', 'aaben', 'ab',
						   'gy', 'ggy', 'gyar', 'dzs', 'l·l', 'L·L', 'll', 'lla', 'l·', 'ıi', 'İi',
						   'Iı', 'ii', 'ae', 'ä', 'abcdefgl·l', 'abcdefgL·', 'abcdefgl', 'abcdefgla',
						   'abcdefgch', 'abcdefgaa', U&'abcdefga\030Ab', U&'abcdefgo\0308',
						   'abcdefgaz', 'abcdefgoz'])[1 + i / 10 % 35] || left(md5(i::text), i % 13)
		WHEN 4 THEN CASE WHEN i % 3 = 0 THEN (i * 7919 % 100000)::text || 'x' || (i % 7)
						 ELSE 'item' || (i % 997) || 'v' || (i % 11) END
		WHEN 5 THEN left(md5(i::text), i % 13) || (ARRAY['é', 'ß', '日', '·', 'ʼ', 'Ω'])[1 + i / 10 % 6]
					|| md5((i + 1)::text)
		WHEN 6 THEN translate(md5(i::text), 'ab', ' -') || '.' || (i % 9)
		WHEN 7 THEN left(md5(i::text), i % 9)
		WHEN 8 THEN 'sharedprefix' || (i % 53)
		ELSE CASE i % 30 WHEN 9 THEN NULL WHEN 19 THEN ''
			 ELSE (ARRAY['ab', E'ab\t', 'ab ', E'ab\t ', 'a', E'a\t', 'abc', E'\tab'])[1 + i / 30 % 8] END
	 END AS s) strings;
ANALYZE radik_ik;

-- Each collation: the table's keys and ICU's, in both directions (past the empty strings and the
-- NULLs, which would fill the cut), char(n) (whose trailing spaces do not count, so 'ab' comes
-- before 'ab' and a tab, which sorts below a space), the strings that contract or are not ASCII
-- alone, those that contract across the 8th byte (a key too small there would leave them out of
-- the largest), a cut deep in the order; serially and with 2 workers.
CREATE FUNCTION radik_ik_collation_checks() RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	locales text[] := ARRAY['und', 'cs-CZ', 'da-DK', 'hu-HU', 'tr-TR', 'de-u-co-phonebk',
							'und-u-kn-true', 'und-u-ka-shifted', 'und-u-kr-digit-latn',
							'und-u-kf-upper', 'sv-SE'];
	colls text[] := '{}';
	coll text;
	q text;
	result text;
	checks int := 0;
BEGIN
	BEGIN
		FOR i IN 1 .. array_length(locales, 1) LOOP
			EXECUTE format('CREATE COLLATION radik_ik_%s (provider = icu, locale = %L)', i,
						   locales[i]);
			colls := colls || ('radik_ik_' || i);
		END LOOP;
		EXECUTE 'CREATE COLLATION radik_ik_ci (provider = icu, locale = ''und-u-ks-level2'', '
			'deterministic = false)';
		colls := colls || 'radik_ik_ci'::text;
	EXCEPTION WHEN feature_not_supported THEN
		RETURN 'ok';			-- PostgreSQL built without ICU
	END;
	FOREACH coll IN ARRAY colls LOOP
		FOR workers IN 0 .. 2 BY 2 LOOP
			PERFORM set_config('max_parallel_workers_per_gather', workers::text, true);
			FOREACH q IN ARRAY ARRAY[
				format('SELECT id, s FROM radik_ik WHERE s <> '''' ORDER BY s COLLATE %s, id LIMIT 60',
					   coll),
				format('SELECT id, s FROM radik_ik WHERE s <> '''' '
					   'ORDER BY s COLLATE %s DESC NULLS LAST, id LIMIT 60', coll),
				format('SELECT id, c FROM radik_ik WHERE s <> '''' '
					   'ORDER BY c COLLATE %s DESC NULLS LAST, id LIMIT 60', coll),
				format('SELECT id, c FROM radik_ik WHERE id %% 30 = 29 AND c LIKE ''ab%%'' '
					   'ORDER BY c COLLATE %s, id LIMIT 30', coll),
				format('SELECT id, s FROM radik_ik WHERE id %% 30 = 29 '
					   'ORDER BY s COLLATE %s DESC, id LIMIT 20', coll),
				format('SELECT id, s FROM radik_ik WHERE id %% 10 IN (3, 5) '
					   'ORDER BY s COLLATE %s, id LIMIT 40', coll),
				format('SELECT id, s FROM radik_ik WHERE id %% 10 IN (1, 2, 4, 6) '
					   'ORDER BY s COLLATE %s DESC, id LIMIT 40', coll),
				format('SELECT id, s FROM radik_ik WHERE s LIKE ''abcdefg%%'' '
					   'ORDER BY s COLLATE %s DESC, id LIMIT 30', coll),
				format('SELECT id, s FROM radik_ik ORDER BY s COLLATE %s, id OFFSET 2500 LIMIT 30',
					   coll)
			] LOOP
				result := radik_compare(q);
				checks := checks + 1;
				IF result <> 'ok' THEN
					RETURN coll || ': ' || q || ': ' || result;
				END IF;
			END LOOP;
		END LOOP;
	END LOOP;
	RETURN CASE WHEN checks = 18 * array_length(colls, 1) THEN 'ok'
		ELSE 'only ' || checks || ' checks' END;
END $$;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
ALTER TABLE radik_ik SET (parallel_workers = 2);
SELECT radik_ik_collation_checks() AS icu_collations;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

-- Which keys the table made: under the root collation every key of the hexadecimal strings and
-- of the shared prefixes; of the strings with a character that is not ASCII, those with it
-- past their first 8 bytes; of the short strings, those of 8 bytes.  Under numeric ordering,
-- which leaves digits to ICU, the keys of strings with a digit in their first 8 bytes come from
-- ICU, the shared prefixes' from the table.
CREATE FUNCTION radik_ik_keys_from_icu(coll text, quals text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	scan json;
BEGIN
	IF NOT EXISTS (SELECT FROM pg_collation WHERE collname = coll) THEN
		RETURN 'no ICU';
	END IF;
	scan := radik_analyzed_scan(format('SELECT id FROM radik_ik WHERE %s ORDER BY s COLLATE %s '
									   'LIMIT 10', quals, coll));
	RETURN CASE WHEN scan ->> 'Keys From ICU' IS NULL THEN 'no table'
		WHEN (scan ->> 'Keys From ICU')::int8 = 0 THEN 'none'
		WHEN (scan ->> 'Keys From ICU')::int8 = (scan ->> 'Rows Scanned')::int8 -
			coalesce((scan ->> 'Rows Removed by Filter')::int8, 0) THEN 'all'
		ELSE 'some' END;
END $$;
SET max_parallel_workers_per_gather = 0;
SELECT quals, radik_ik_keys_from_icu('radik_ik_1', quals) AS root,
	   radik_ik_keys_from_icu('radik_ik_7', quals) AS numeric
FROM unnest(ARRAY['id % 10 = 0', 'id % 10 = 8', 'id % 10 = 5', 'id % 10 = 7']) quals;

-- Every ICU collation this PostgreSQL has (hundreds of locales, each with its own contractions,
-- expansions and orders), in both directions; a transaction per collation, so that the
-- comparisons' temporary tables let their locks go.  (PostgreSQL 16 and later built without ICU
-- still list an ICU collation, "unicode", which cannot be used there.)
CREATE TEMP TABLE radik_ik_every (coll name, result text);
CREATE PROCEDURE radik_ik_every_collation()
LANGUAGE plpgsql AS $$
DECLARE
	coll name;
	usable boolean;
BEGIN
	FOR coll IN SELECT collname FROM pg_collation
				WHERE collprovider = 'i'
				  AND collencoding IN (-1, pg_char_to_encoding(current_setting('server_encoding')))
	LOOP
		BEGIN
			EXECUTE format('SELECT ''a'' < ''b'' COLLATE %I', coll);
			usable := true;
		EXCEPTION WHEN feature_not_supported THEN
			usable := false;
		END;
		IF usable THEN
			INSERT INTO radik_ik_every
			SELECT coll, radik_compare(format('SELECT id, s FROM radik_ik WHERE s <> '''' '
											  'ORDER BY s COLLATE %I%s, id LIMIT 50', coll, dir))
			FROM unnest(ARRAY['', ' DESC NULLS LAST']) dir;
		ELSE
			INSERT INTO radik_ik_every VALUES (coll, 'no ICU');
		END IF;
		COMMIT;
	END LOOP;
END $$;
CALL radik_ik_every_collation();
SELECT count(DISTINCT coll) = (SELECT count(*) FROM pg_collation WHERE collprovider = 'i'
							   AND collencoding IN (-1, pg_char_to_encoding(current_setting('server_encoding'))))
		   AS every_collation,
	   count(*) FILTER (WHERE result NOT IN ('ok', 'no ICU')) AS failed
FROM radik_ik_every;
SELECT coll, result FROM radik_ik_every WHERE result NOT IN ('ok', 'no ICU') ORDER BY coll;
DROP PROCEDURE radik_ik_every_collation();
RESET max_parallel_workers_per_gather;

DROP FUNCTION radik_ik_keys_from_icu(text, text);
DROP FUNCTION radik_ik_collation_checks();
DROP TABLE radik_ik;
SET client_min_messages = warning;
DO $$
BEGIN
	FOR i IN 1 .. 11 LOOP
		EXECUTE format('DROP COLLATION IF EXISTS radik_ik_%s', i);
	END LOOP;
END $$;
DROP COLLATION IF EXISTS radik_ik_ci;
RESET client_min_messages;
