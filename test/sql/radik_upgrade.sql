-- radik_upgrade: an install updated with ALTER EXTENSION radik UPDATE has exactly the objects of
-- a fresh install of the default version.
--
-- Every older version from which an update reaches the default version (0.1.0 and any later
-- one, per pg_extension_update_paths) is installed as it was released (CREATE EXTENSION radik
-- VERSION ...), updated, and described member by member; then a fresh install of the default
-- version is described the same way, and the descriptions are compared with EXCEPT both ways.
-- A member is every object pg_depend ties to the extension (deptype 'e'); its description
-- covers what an update script could change or forget: the member itself, its definition
-- (functions: pg_get_functiondef and every attribute of pg_proc, argument defaults; tables and
-- types: columns, constraints, indexes, type attributes; operators, casts, operator classes and
-- families), its owner, its privileges (ACL and pg_init_privs), its comment and security label,
-- and what it depends on.  The extension's own row (version, schema, configuration tables) is
-- described too.  Any difference is listed below as a row, so the expected output has none.
-- After each update, radik_topk() and ORDER BY ... LIMIT are checked against PostgreSQL's
-- answer with radik disabled.  The test ends with radik freshly installed at the default version.

-- The default version, as radik.control gives it; the suite installed it before this test.
SELECT e.extversion = a.default_version AS installed_at_default
FROM pg_extension e JOIN pg_available_extensions a ON a.name = e.extname
WHERE e.extname = 'radik';

CREATE TABLE radik_upgrade_objects (installed text, object text, facet text, value text);

-- One row per (member, facet) of radik as installed now; installed names the install.
CREATE FUNCTION radik_upgrade_describe(installed text) RETURNS void
LANGUAGE sql AS $fn$
INSERT INTO radik_upgrade_objects
WITH ext AS (
	SELECT e.* FROM pg_extension e WHERE e.extname = 'radik'
),
member AS (
	SELECT d.classid, d.objid, d.objsubid,
		pg_describe_object(d.classid, d.objid, d.objsubid) AS object
	FROM pg_depend d JOIN ext ON d.refobjid = ext.oid
	WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
),
facet(object, facet, value) AS (
	-- the extension itself
	SELECT 'extension radik', x.facet, x.value
	FROM ext, LATERAL (VALUES
		('version', ext.extversion),
		('schema', ext.extnamespace::regnamespace::text),
		('owner', ext.extowner::regrole::text),
		('relocatable', ext.extrelocatable::text),
		('configuration tables',
			(SELECT string_agg(c::regclass::text, ', ' ORDER BY c::regclass::text)
			 FROM unnest(ext.extconfig) c)),
		('configuration conditions', array_to_string(ext.extcondition, ' | '))) x(facet, value)
	UNION ALL
	-- every member, whatever its kind
	SELECT m.object, 'member', pg_identify_object_as_address(m.classid, m.objid, m.objsubid)::text
	FROM member m
	UNION ALL
	SELECT m.object, 'comment' || coalesce(' on column ' || a.attname, ''), d.description
	FROM member m
	JOIN pg_description d ON d.classoid = m.classid AND d.objoid = m.objid
	LEFT JOIN pg_attribute a ON m.classid = 'pg_class'::regclass AND a.attrelid = m.objid
		AND a.attnum = d.objsubid AND d.objsubid <> 0
	UNION ALL
	SELECT m.object, 'security label ' || s.provider || coalesce(' on column ' || s.objsubid, ''),
		s.label
	FROM member m JOIN pg_seclabel s ON s.classoid = m.classid AND s.objoid = m.objid
	UNION ALL
	SELECT m.object, 'initial privileges ' || i.privtype::text || coalesce(' on column ' || a.attname, ''),
		i.initprivs::text
	FROM member m
	JOIN pg_init_privs i ON i.classoid = m.classid AND i.objoid = m.objid
	LEFT JOIN pg_attribute a ON m.classid = 'pg_class'::regclass AND a.attrelid = m.objid
		AND a.attnum = i.objsubid AND i.objsubid <> 0
	UNION ALL
	-- what a member depends on (a function's support function, a table's types, ...)
	SELECT m.object, 'depends ' || d.deptype::text,
		pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid)
	FROM member m
	JOIN pg_depend d ON d.classid = m.classid AND d.objid = m.objid
	WHERE d.deptype <> 'e'
	UNION ALL
	-- functions, procedures, aggregates
	SELECT m.object, x.facet, x.value
	FROM member m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
	JOIN pg_language l ON l.oid = p.prolang,
	LATERAL (VALUES
		('definition', CASE WHEN p.prokind <> 'a' THEN pg_get_functiondef(p.oid) END),
		('arguments', pg_get_function_arguments(p.oid)),
		('result', pg_get_function_result(p.oid)),
		('kind', p.prokind::text),
		('language', l.lanname::text),
		('volatility', p.provolatile::text),
		('parallel', p.proparallel::text),
		('strict', p.proisstrict::text),
		('security definer', p.prosecdef::text),
		('leakproof', p.proleakproof::text),
		('returns set', p.proretset::text),
		('cost', p.procost::text),
		('rows', p.prorows::text),
		('support', p.prosupport::regproc::text),
		('argument defaults', p.pronargdefaults::text || ': ' || coalesce(pg_get_expr(p.proargdefaults, 0), '')),
		('settings', p.proconfig::text),
		('source', p.prosrc),
		('library', p.probin),
		('owner', p.proowner::regrole::text),
		('privileges', p.proacl::text)) x(facet, value)
	UNION ALL
	SELECT m.object, x.facet, x.value
	FROM member m JOIN pg_aggregate g ON m.classid = 'pg_proc'::regclass AND g.aggfnoid = m.objid,
	LATERAL (VALUES
		('aggregate', concat_ws(' ', g.aggkind, g.aggnumdirectargs, g.aggtransfn, g.aggfinalfn,
			g.aggcombinefn, g.aggserialfn, g.aggdeserialfn, g.aggmtransfn, g.aggminvtransfn,
			g.aggmfinalfn, g.aggfinalextra, g.aggmfinalextra, g.aggfinalmodify, g.aggmfinalmodify,
			g.aggsortop::regoperator, g.aggtranstype::regtype, g.aggtransspace,
			g.aggmtranstype::regtype, g.aggmtransspace, g.agginitval, g.aggminitval))) x(facet, value)
	UNION ALL
	-- tables, views, sequences, indexes, composite types' relations
	SELECT m.object, x.facet, x.value
	FROM member m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid,
	LATERAL (VALUES
		('relation', concat_ws(' ', c.relkind, c.relpersistence, c.relreplident,
			c.relrowsecurity, c.relforcerowsecurity, c.reloftype::regtype, c.reloptions)),
		('owner', c.relowner::regrole::text),
		('privileges', c.relacl::text),
		('view', CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid) END),
		('index', CASE WHEN c.relkind IN ('i', 'I') THEN pg_get_indexdef(c.oid) END),
		('columns', (SELECT string_agg(concat_ws(' ', a.attname, format_type(a.atttypid, a.atttypmod),
				a.attnotnull, a.attidentity, a.attgenerated, a.attcollation::regcollation,
				pg_get_expr(ad.adbin, ad.adrelid), a.attacl, a.attoptions), ', ' ORDER BY a.attnum)
			FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
			WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)),
		('constraints', (SELECT string_agg(k.conname || ' ' || pg_get_constraintdef(k.oid), ', '
				ORDER BY k.conname)
			FROM pg_constraint k WHERE k.conrelid = c.oid)),
		('indexes', (SELECT string_agg(pg_get_indexdef(i.indexrelid), ', '
				ORDER BY pg_get_indexdef(i.indexrelid))
			FROM pg_index i WHERE i.indrelid = c.oid)),
		('triggers', (SELECT string_agg(pg_get_triggerdef(t.oid), ', ' ORDER BY t.tgname)
			FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal)),
		('policies', (SELECT string_agg(concat_ws(' ', o.polname, o.polcmd, o.polpermissive,
				o.polroles::regrole[], pg_get_expr(o.polqual, o.polrelid),
				pg_get_expr(o.polwithcheck, o.polrelid)), ', ' ORDER BY o.polname)
			FROM pg_policy o WHERE o.polrelid = c.oid))) x(facet, value)
	UNION ALL
	-- types and domains
	SELECT m.object, x.facet, x.value
	FROM member m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND t.oid = m.objid,
	LATERAL (VALUES
		('type', concat_ws(' ', t.typtype, t.typlen, t.typbyval, t.typcategory, t.typispreferred,
			t.typdelim, t.typinput, t.typoutput, t.typreceive, t.typsend, t.typmodin, t.typmodout,
			t.typanalyze, t.typsubscript, t.typelem::regtype, t.typarray::regtype, t.typalign,
			t.typstorage, t.typnotnull, t.typbasetype::regtype, t.typtypmod, t.typndims,
			t.typcollation::regcollation, t.typdefault)),
		('owner', t.typowner::regrole::text),
		('privileges', t.typacl::text),
		('columns', (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', '
				ORDER BY a.attnum)
			FROM pg_attribute a
			WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped)),
		('constraints', (SELECT string_agg(k.conname || ' ' || pg_get_constraintdef(k.oid), ', '
				ORDER BY k.conname)
			FROM pg_constraint k WHERE k.contypid = t.oid)),
		('labels', (SELECT string_agg(e.enumlabel::text, ', ' ORDER BY e.enumsortorder)
			FROM pg_enum e WHERE e.enumtypid = t.oid))) x(facet, value)
	UNION ALL
	-- operators
	SELECT m.object, x.facet, x.value
	FROM member m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid,
	LATERAL (VALUES
		('operator', concat_ws(' ', o.oprkind, o.oprcanmerge, o.oprcanhash, o.oprresult::regtype,
			o.oprcode, o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest, o.oprjoin)),
		('owner', o.oprowner::regrole::text)) x(facet, value)
	UNION ALL
	-- casts
	SELECT m.object, 'cast', concat_ws(' ', k.castfunc::regprocedure, k.castcontext, k.castmethod)
	FROM member m JOIN pg_cast k ON m.classid = 'pg_cast'::regclass AND k.oid = m.objid
	UNION ALL
	-- operator classes and families: their operators and support functions
	SELECT m.object, x.facet, x.value
	FROM member m JOIN pg_opclass o ON m.classid = 'pg_opclass'::regclass AND o.oid = m.objid,
	LATERAL (VALUES
		('operator class', concat_ws(' ', o.opcfamily, o.opcintype::regtype, o.opcdefault,
			o.opckeytype::regtype)),
		('owner', o.opcowner::regrole::text)) x(facet, value)
	UNION ALL
	SELECT m.object, x.facet, x.value
	FROM member m JOIN pg_opfamily f ON m.classid = 'pg_opfamily'::regclass AND f.oid = m.objid,
	LATERAL (VALUES
		('owner', f.opfowner::regrole::text),
		('operators', (SELECT string_agg(d, ', ' ORDER BY d)
			FROM pg_amop a,
				concat(pg_describe_object('pg_amop'::regclass, a.oid, 0), ' for ', a.amoppurpose) AS d
			WHERE a.amopfamily = f.oid)),
		('functions', (SELECT string_agg(d, ', ' ORDER BY d)
			FROM pg_amproc a, pg_describe_object('pg_amproc'::regclass, a.oid, 0) AS d
			WHERE a.amprocfamily = f.oid))) x(facet, value)
	UNION ALL
	-- schemas
	SELECT m.object, x.facet, x.value
	FROM member m JOIN pg_namespace n ON m.classid = 'pg_namespace'::regclass AND n.oid = m.objid,
	LATERAL (VALUES
		('owner', n.nspowner::regrole::text),
		('privileges', n.nspacl::text)) x(facet, value)
)
SELECT installed, object, facet, coalesce(value, '(null)') FROM facet;
$fn$;

-- A small table and the answers radik must give on it, checked after each update.
CREATE TABLE radik_upgrade_t AS
	SELECT i AS id, (i * 7919 % 1009)::float8 AS v FROM generate_series(1, 1000) i;
ANALYZE radik_upgrade_t;
CREATE TABLE radik_upgrade_answers (installed text, query text, same boolean);
CREATE FUNCTION radik_upgrade_answer(installed text) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
	radik_ids int[];
	pg_ids int[];
	used boolean := false;
	line text;
BEGIN
	-- radik_topk(), the TID form and the row form, against PostgreSQL's ORDER BY ... LIMIT
	PERFORM set_config('radik.enabled', 'off', true);
	SELECT array_agg(id ORDER BY v DESC, id) INTO pg_ids
	FROM (SELECT id, v FROM radik_upgrade_t ORDER BY v DESC, id LIMIT 25) s;
	PERFORM set_config('radik.enabled', 'on', true);
	SELECT array_agg(t.id ORDER BY r.rank) INTO radik_ids
	FROM radik_topk('radik_upgrade_t', 'v', 25) r JOIN radik_upgrade_t t ON t.ctid = r.row_id;
	INSERT INTO radik_upgrade_answers VALUES (installed, 'radik_topk tids', radik_ids = pg_ids);
	SELECT array_agg(id) INTO radik_ids FROM radik_topk(NULL::radik_upgrade_t, 'v', 25);
	INSERT INTO radik_upgrade_answers VALUES (installed, 'radik_topk rows', radik_ids = pg_ids);
	-- ORDER BY ... LIMIT through radik's node (which must be in the plan)
	PERFORM set_config('radik.force', 'on', true);
	FOR line IN EXPLAIN (COSTS OFF) SELECT id FROM radik_upgrade_t ORDER BY v DESC LIMIT 25 LOOP
		used := used OR line LIKE '%Custom Scan (RadiK Top-K)%';
	END LOOP;
	SELECT array_agg(id) INTO radik_ids
	FROM (SELECT id FROM radik_upgrade_t ORDER BY v DESC LIMIT 25) s;
	PERFORM set_config('radik.force', 'off', true);
	INSERT INTO radik_upgrade_answers VALUES (installed, 'order by limit', used AND radik_ids = pg_ids);
END $fn$;

-- The versions an update brings to the default version: at least 0.1.0.
SELECT string_agg(p.source, ', ' ORDER BY p.source) AS updated_from
FROM pg_extension_update_paths('radik') p
JOIN pg_available_extensions a ON a.name = 'radik' AND p.target = a.default_version
WHERE p.path IS NOT NULL;

-- Each of them installed as released, checked to be that version, updated, described.
DO $$
DECLARE
	old text;
	installed text;
	to_version text;
BEGIN
	SELECT default_version INTO to_version FROM pg_available_extensions WHERE name = 'radik';
	FOR old IN
		SELECT p.source FROM pg_extension_update_paths('radik') p
		WHERE p.target = to_version AND p.path IS NOT NULL
		ORDER BY p.source
	LOOP
		DROP EXTENSION radik;
		EXECUTE format('CREATE EXTENSION radik VERSION %L', old);
		SELECT extversion INTO installed FROM pg_extension WHERE extname = 'radik';
		IF installed IS DISTINCT FROM old THEN
			RAISE EXCEPTION 'CREATE EXTENSION radik VERSION % installed %', old, installed;
		END IF;
		ALTER EXTENSION radik UPDATE;
		SELECT extversion INTO installed FROM pg_extension WHERE extname = 'radik';
		IF installed IS DISTINCT FROM to_version THEN
			RAISE EXCEPTION 'ALTER EXTENSION radik UPDATE from % reached %, not %', old, installed,
				to_version;
		END IF;
		PERFORM radik_upgrade_describe('updated from ' || old);
		PERFORM radik_upgrade_answer('updated from ' || old);
	END LOOP;
END $$;

-- A fresh install of the default version, described the same way; it stays installed.
DROP EXTENSION radik;
CREATE EXTENSION radik;
SELECT radik_upgrade_describe('fresh');
SELECT radik_upgrade_answer('fresh');

-- Not vacuous: each install has members (functions with definitions among them), every update
-- was described, and the updated installs have as many members as the fresh one.
SELECT installed,
	count(*) FILTER (WHERE facet = 'member') > 0 AS has_members,
	count(*) FILTER (WHERE facet = 'definition' AND value LIKE 'CREATE OR REPLACE FUNCTION%') > 0
		AS has_functions,
	count(*) FILTER (WHERE facet = 'member') = (SELECT count(*) FROM radik_upgrade_objects
		WHERE installed = 'fresh' AND facet = 'member') AS members_as_fresh
FROM radik_upgrade_objects
GROUP BY installed
ORDER BY installed = 'fresh', installed;

-- What a fresh install has and an updated one lacks or has otherwise ...
SELECT u.installed, f.object, f.facet, f.value
FROM radik_upgrade_objects f
CROSS JOIN (SELECT DISTINCT installed FROM radik_upgrade_objects WHERE installed <> 'fresh') u
WHERE f.installed = 'fresh'
EXCEPT
SELECT u.installed, u.object, u.facet, u.value
FROM radik_upgrade_objects u
WHERE u.installed <> 'fresh'
ORDER BY 1, 2, 3, 4;

-- ... and what an updated install has that a fresh one lacks or has otherwise.
SELECT u.installed, u.object, u.facet, u.value
FROM radik_upgrade_objects u
WHERE u.installed <> 'fresh'
EXCEPT
SELECT u.installed, f.object, f.facet, f.value
FROM radik_upgrade_objects f
CROSS JOIN (SELECT DISTINCT installed FROM radik_upgrade_objects WHERE installed <> 'fresh') u
WHERE f.installed = 'fresh'
ORDER BY 1, 2, 3, 4;

-- radik answered as PostgreSQL did after every update and after the fresh install.
SELECT installed, string_agg(query, ', ' ORDER BY query) FILTER (WHERE same) AS same_answers,
	string_agg(query, ', ' ORDER BY query) FILTER (WHERE same IS NOT TRUE) AS different_answers
FROM radik_upgrade_answers
GROUP BY installed
ORDER BY installed = 'fresh', installed;

-- Left installed at the default version.
SELECT e.extversion = a.default_version AS installed_at_default
FROM pg_extension e JOIN pg_available_extensions a ON a.name = e.extname
WHERE e.extname = 'radik';

DROP FUNCTION radik_upgrade_describe(text);
DROP FUNCTION radik_upgrade_answer(text);
DROP TABLE radik_upgrade_objects, radik_upgrade_answers, radik_upgrade_t;
