-- radik--0.1.0--0.2.0.sql: update script from radik 0.1.0 to 0.2.0
-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION radik UPDATE TO '0.2.0'" to load this file. \quit

-- Every change to an object in sql/radik--0.2.0.sql is made here as well, in the same words
-- (schema-qualified names, @extschema@): the radik_upgrade regression test compares an install
-- updated through this script with a fresh install of 0.2.0, object by object, and fails on any
-- difference.

-- The row form of radik_topk gains group_by: the k rows of each group.
DROP FUNCTION @extschema@.radik_topk(pg_catalog.anyelement, pg_catalog.name, pg_catalog.int8,
	pg_catalog.bool, pg_catalog.text);
-- The table by its row type, radik_topk(NULL::events, 'score', 10): the rows themselves; with
-- group_by, the k rows of each group of that column.  Not STRICT, since the first argument is
-- normally NULL; a NULL in another argument returns no rows (group_by NULL: no groups).
CREATE FUNCTION @extschema@.radik_topk(rowtype pg_catalog.anyelement, col pg_catalog.name,
	k pg_catalog.int8, smallest pg_catalog.bool DEFAULT false,
	nulls pg_catalog.text DEFAULT 'exclude', group_by pg_catalog.name DEFAULT NULL)
RETURNS SETOF pg_catalog.anyelement
AS 'MODULE_PATHNAME', 'radik_topk_rows'
LANGUAGE C CALLED ON NULL INPUT STABLE PARALLEL RESTRICTED ROWS 100
SUPPORT @extschema@.radik_topk_support;

COMMENT ON FUNCTION @extschema@.radik_topk(pg_catalog.anyelement, pg_catalog.name, pg_catalog.int8,
	pg_catalog.bool, pg_catalog.text, pg_catalog.name)
	IS 'the k rows of a table (or of each group) with the largest (or smallest) values of a column, in rank order';


-- Where the GPU services stand (radik preloaded with radik.service on): one row per GPU; one row
-- with state 'off' and the rest NULL otherwise.
CREATE FUNCTION @extschema@.radik_service_status(OUT gpu pg_catalog.int4,
	OUT state pg_catalog.text, OUT pid pg_catalog.int4, OUT device pg_catalog.text,
	OUT slots pg_catalog.int4, OUT slots_in_use pg_catalog.int4,
	OUT selections pg_catalog.int8, OUT busy pg_catalog.int8, OUT restarts pg_catalog.int8,
	OUT answering_ms pg_catalog.float8, OUT batches pg_catalog.int8,
	OUT batched_selections pg_catalog.int8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'radik_service_status'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.radik_service_status()
	IS 'where the radik GPU services stand: one row per GPU, its state, process and slots';
