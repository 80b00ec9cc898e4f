-- radik_topk() and security: the privileges the same SELECT would need, row-level security,
-- names resolved as identifiers, and an install script that search_path cannot capture.
--
-- radik_topk_check() (defined in radik_setup.sql) compares radik_topk's answer with
-- PostgreSQL's own ORDER BY ... LIMIT (radik.enabled = off), run as the same role, so the same
-- policies apply to both: n rows returned; tids_ok and rows_ok: the TID form and the row form
-- agree with it.
SET extra_float_digits = 0;

CREATE ROLE regress_radik_topk_owner;
CREATE ROLE regress_radik_topk_reader;
CREATE SCHEMA radik_topk_sec;
GRANT USAGE ON SCHEMA radik_topk_sec TO regress_radik_topk_owner, regress_radik_topk_reader;
CREATE TABLE radik_topk_sec.topk_accounts (id integer, owner_name text, balance bigint, secret text);
INSERT INTO radik_topk_sec.topk_accounts
SELECT i,
	CASE i % 3 WHEN 0 THEN 'regress_radik_topk_reader' WHEN 1 THEN 'regress_radik_topk_owner' ELSE 'someone' END,
	CASE WHEN i % 50 = 0 THEN NULL ELSE (i * 7919) % 997 END,
	'secret ' || i
FROM generate_series(1, 600) i;
ALTER TABLE radik_topk_sec.topk_accounts OWNER TO regress_radik_topk_owner;
SET search_path = radik_topk_sec, public;

-- No privilege: refused, as the same SELECT is.
SET ROLE regress_radik_topk_reader;
SELECT balance FROM topk_accounts ORDER BY balance DESC LIMIT 3;
SELECT * FROM radik_topk('topk_accounts', 'balance', 3);
SELECT * FROM radik_topk(NULL::topk_accounts, 'balance', 3);
RESET ROLE;

-- SELECT on the key column only: the key may be ordered, but neither form may return what it
-- returns: the TID form returns ctid, the row form every column.
GRANT SELECT (balance) ON topk_accounts TO regress_radik_topk_reader;
SET ROLE regress_radik_topk_reader;
SELECT count(*) FROM (SELECT balance FROM topk_accounts ORDER BY balance DESC LIMIT 3) s;
SELECT ctid FROM topk_accounts ORDER BY balance DESC LIMIT 3;
SELECT * FROM radik_topk('topk_accounts', 'balance', 3);
SELECT * FROM radik_topk(NULL::topk_accounts, 'balance', 3);
RESET ROLE;

-- SELECT on the key column and ctid: the TID form works, the row form does not.
GRANT SELECT (ctid) ON topk_accounts TO regress_radik_topk_reader;
SET ROLE regress_radik_topk_reader;
SET radik.enabled = off;
SELECT (SELECT array_agg(a.balance ORDER BY t.rank)
		FROM radik_topk('topk_accounts', 'balance', 25) t JOIN topk_accounts a ON a.ctid = t.row_id)
	 = (SELECT array_agg(balance ORDER BY balance DESC)
		FROM (SELECT balance FROM topk_accounts WHERE balance IS NOT NULL
			  ORDER BY balance DESC LIMIT 25) s) AS same_keys;
RESET radik.enabled;
SELECT * FROM radik_topk(NULL::topk_accounts, 'balance', 3);
RESET ROLE;

-- SELECT on every column (and ctid), granted column by column: both forms work.
GRANT SELECT (id, owner_name, secret) ON topk_accounts TO regress_radik_topk_reader;
SET ROLE regress_radik_topk_reader;
SELECT * FROM radik_topk_check('topk_accounts', 'balance', 25);
SELECT * FROM radik_topk_check('topk_accounts', 'id', 25, true);
RESET ROLE;

-- Every column but the key: ordering by the key is refused, by another column allowed for the
-- TID form; the row form needs every column.
REVOKE SELECT (balance) ON topk_accounts FROM regress_radik_topk_reader;
SET ROLE regress_radik_topk_reader;
SELECT id FROM topk_accounts ORDER BY balance LIMIT 1;
SELECT * FROM radik_topk('topk_accounts', 'balance', 3);
SELECT count(*) FROM radik_topk('topk_accounts', 'id', 3);
SELECT * FROM radik_topk(NULL::topk_accounts, 'id', 3);
RESET ROLE;
REVOKE SELECT (id, owner_name, secret, ctid) ON topk_accounts FROM regress_radik_topk_reader;

-- SELECT on the table.
GRANT SELECT ON topk_accounts TO regress_radik_topk_reader;
SET ROLE regress_radik_topk_reader;
SELECT * FROM radik_topk_check('topk_accounts', 'balance', 40);
SELECT * FROM radik_topk_check('topk_accounts', 'balance', 40, true, 'first');
RESET ROLE;

-- Row-level security: the policies are applied; rows the caller may not see never come back.
ALTER TABLE topk_accounts ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON topk_accounts FOR SELECT USING (owner_name = current_user);
SET ROLE regress_radik_topk_reader;
SELECT * FROM radik_topk_check('topk_accounts', 'balance', 40);
SELECT * FROM radik_topk_check('topk_accounts', 'balance', 1000, true, 'last');
SELECT count(*) AS rows, count(*) FILTER (WHERE owner_name <> current_user) AS not_mine
FROM radik_topk(NULL::topk_accounts, 'balance', 1000, nulls => 'first');
SELECT count(*) AS not_mine
FROM radik_topk('topk_accounts', 'balance', 1000) t JOIN topk_accounts a ON a.ctid = t.row_id
WHERE a.owner_name <> current_user;
RESET ROLE;
-- The owner is not subject to the policies, the superuser neither.
SET ROLE regress_radik_topk_owner;
SELECT * FROM radik_topk_check('topk_accounts', 'balance', 1000);
RESET ROLE;
SELECT * FROM radik_topk_check('topk_accounts', 'balance', 1000);
-- A restrictive policy narrows the permissive one.
CREATE POLICY small_only ON topk_accounts AS RESTRICTIVE FOR SELECT USING (balance < 500);
SET ROLE regress_radik_topk_reader;
SELECT * FROM radik_topk_check('topk_accounts', 'balance', 1000);
SELECT max(balance) < 500 AS restricted FROM radik_topk(NULL::topk_accounts, 'balance', 1000);
RESET ROLE;
-- No permissive policy left for the reader: nothing is visible (default deny).
DROP POLICY own_rows ON topk_accounts;
CREATE POLICY owner_only ON topk_accounts FOR SELECT TO regress_radik_topk_owner USING (true);
SET ROLE regress_radik_topk_reader;
SELECT * FROM radik_topk_check('topk_accounts', 'balance', 10);
RESET ROLE;
DROP POLICY owner_only ON topk_accounts;
CREATE POLICY own_rows ON topk_accounts FOR SELECT USING (owner_name = current_user);
-- FORCE ROW LEVEL SECURITY: the owner too.
ALTER TABLE topk_accounts FORCE ROW LEVEL SECURITY;
SET ROLE regress_radik_topk_owner;
SELECT * FROM radik_topk_check('topk_accounts', 'balance', 1000);
SELECT count(*) FILTER (WHERE owner_name <> current_user) AS not_mine
FROM radik_topk(NULL::topk_accounts, 'balance', 1000);
RESET ROLE;
-- row_security = off: an error where policies would apply, as for any query.
SET ROLE regress_radik_topk_reader;
SET row_security = off;
SELECT count(*) FROM topk_accounts;
SELECT * FROM radik_topk('topk_accounts', 'balance', 3);
SELECT * FROM radik_topk(NULL::topk_accounts, 'balance', 3);
SELECT * FROM radik_topk('topk_accounts', 'balance', 0);
RESET row_security;
RESET ROLE;
-- A policy with a subquery cannot be applied without the planner: the row form asks the
-- equivalent query, which applies it (compared with PostgreSQL's answer below); the row-id form
-- refuses.  Never ignored.
CREATE TABLE topk_allowed_ids (id integer);
INSERT INTO topk_allowed_ids SELECT generate_series(1, 600, 7);
GRANT SELECT ON topk_allowed_ids TO regress_radik_topk_reader;
CREATE POLICY by_list ON topk_accounts AS RESTRICTIVE FOR SELECT
	USING (id IN (SELECT id FROM radik_topk_sec.topk_allowed_ids));
SET ROLE regress_radik_topk_reader;
SELECT count(*) FROM (SELECT balance FROM topk_accounts ORDER BY balance DESC LIMIT 3) s;
SELECT * FROM radik_topk('topk_accounts', 'balance', 3);
SELECT * FROM radik_topk(NULL::topk_accounts, 'balance', 3);
-- A text key is selected by the equivalent query in both forms, so the row-id form answers too
-- (with radik's scan, whatever radik.enabled says; PostgreSQL's own plan answers the other side).
SET radik.enabled = off;
SELECT (SELECT array_agg(t.secret ORDER BY r.rank)
		FROM radik_topk('topk_accounts', 'secret', 5) r JOIN topk_accounts t ON t.ctid = r.row_id)
	 = (SELECT array_agg(secret ORDER BY secret DESC)
		FROM (SELECT secret FROM topk_accounts ORDER BY secret DESC LIMIT 5) s)
	AS text_key_same_as_postgres;
RESET radik.enabled;
SELECT (SELECT array_agg(x.*::text) FROM radik_topk(NULL::topk_accounts, 'balance', 3) x)
	 = (SELECT array_agg(t.*::text ORDER BY balance DESC)
		FROM (SELECT * FROM topk_accounts WHERE balance IS NOT NULL ORDER BY balance DESC LIMIT 3) t)
	AS same_as_postgres;
RESET ROLE;
-- The superuser bypasses every policy, so nothing needs applying.
SELECT * FROM radik_topk_check('topk_accounts', 'balance', 30);
DROP POLICY by_list ON topk_accounts;

-- A SECURITY DEFINER function selects with its owner's rights and policies (FORCE is still on:
-- the owner's own rows with a balance under 500).
CREATE FUNCTION radik_topk_sec.topk_top_balances(k bigint) RETURNS SETOF bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$ SELECT balance FROM public.radik_topk(NULL::radik_topk_sec.topk_accounts, 'balance', k) $$;
ALTER FUNCTION radik_topk_sec.topk_top_balances(bigint) OWNER TO regress_radik_topk_owner;
REVOKE SELECT ON topk_accounts FROM regress_radik_topk_reader;
SET ROLE regress_radik_topk_reader;
SELECT count(*) FROM topk_accounts;
CREATE TEMP TABLE topk_via_definer AS SELECT b FROM topk_top_balances(20) b;
RESET ROLE;
SET radik.enabled = off;
SELECT (SELECT array_agg(b ORDER BY b DESC) FROM topk_via_definer)
	 = (SELECT array_agg(b ORDER BY b DESC) FROM (SELECT balance AS b FROM radik_topk_sec.topk_accounts
		WHERE balance < 500 AND owner_name = 'regress_radik_topk_owner'
		ORDER BY balance DESC LIMIT 20) s) AS as_owner;
RESET radik.enabled;
DROP TABLE topk_via_definer;

-- Names are never spliced into SQL: hostile strings are just names that do not exist.
SELECT * FROM radik_topk('topk_accounts; DROP TABLE radik_topk_sec.topk_accounts', 'balance', 3);
SELECT * FROM radik_topk('"accounts; DROP TABLE radik_topk_sec.topk_accounts"', 'balance', 3);
SELECT * FROM radik_topk('topk_accounts', 'balance) FROM pg_authid --', 3);
SELECT count(*) FROM topk_accounts;
RESET search_path;

-- The install script cannot be captured through search_path: recreate the extension with a
-- schema first in search_path that shadows every type its functions use.
DROP EXTENSION radik;
CREATE SCHEMA radik_topk_evil;
CREATE DOMAIN radik_topk_evil.int8 AS pg_catalog.numeric;
CREATE DOMAIN radik_topk_evil.name AS pg_catalog.text;
CREATE DOMAIN radik_topk_evil.bool AS pg_catalog.int4;
CREATE DOMAIN radik_topk_evil.text AS pg_catalog.varchar;
CREATE DOMAIN radik_topk_evil.regclass AS pg_catalog.oid;
CREATE DOMAIN radik_topk_evil.tid AS pg_catalog.text;
CREATE DOMAIN radik_topk_evil.anyelement AS pg_catalog.text;
CREATE DOMAIN radik_topk_evil.internal AS pg_catalog.text;
SET search_path = radik_topk_evil, pg_catalog, public;
CREATE EXTENSION radik SCHEMA public;
RESET search_path;
SELECT p.oid::regprocedure AS function, p.prorettype::regtype AS returns,
	pg_get_function_result(p.oid) AS result
FROM pg_proc p
WHERE p.proname IN ('radik_topk', 'radik_topk_support') AND p.pronamespace = 'public'::regnamespace
ORDER BY 1::text;
SELECT count(*) AS captured
FROM pg_proc p, unnest(p.proargtypes::oid[] || p.prorettype || coalesce(p.proallargtypes, '{}')) t
WHERE p.proname IN ('radik_topk', 'radik_topk_support') AND t IN (SELECT oid FROM pg_type WHERE typnamespace = 'radik_topk_evil'::regnamespace);
SET search_path = radik_topk_sec, public;
SELECT * FROM radik_topk_check('topk_accounts', 'balance', 30);
RESET search_path;

DROP SCHEMA radik_topk_evil CASCADE;
DROP SCHEMA radik_topk_sec CASCADE;
DROP ROLE regress_radik_topk_owner;
DROP ROLE regress_radik_topk_reader;
