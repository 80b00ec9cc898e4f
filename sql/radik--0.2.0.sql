-- radik--0.2.0.sql: install script for radik 0.2.0
-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION radik" to load this file. \quit

-- Loading the library registers the planner hook and the custom scan, so that ORDER BY ... LIMIT
-- is answered by radik in this session right after CREATE EXTENSION (other sessions: LOAD 'radik'
-- or session_preload_libraries, see the README).
LOAD 'radik';

-- radik_topk(): the top k rows of a table by one column, from SQL (src/radik_topk.c).
-- Every name is schema-qualified, so that no object in the caller's search_path can capture
-- a type or function used here.  STABLE: reads the table with the caller's snapshot.  PARALLEL
-- RESTRICTED: a parallel worker could not read the leader's temporary tables.
CREATE FUNCTION @extschema@.radik_topk_support(pg_catalog.internal)
RETURNS pg_catalog.internal
AS 'MODULE_PATHNAME', 'radik_topk_support'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

-- The table by name or OID: which rows, as TIDs in rank order.
CREATE FUNCTION @extschema@.radik_topk(tbl pg_catalog.regclass, col pg_catalog.name,
	k pg_catalog.int8, smallest pg_catalog.bool DEFAULT false,
	nulls pg_catalog.text DEFAULT 'exclude')
RETURNS TABLE(rank pg_catalog.int8, row_id pg_catalog.tid)
AS 'MODULE_PATHNAME', 'radik_topk_tids'
LANGUAGE C STRICT STABLE PARALLEL RESTRICTED ROWS 100
SUPPORT @extschema@.radik_topk_support;

-- The same, for a name given as text or as a plain literal ('events' would otherwise be
-- ambiguous between the regclass form and the row form).
CREATE FUNCTION @extschema@.radik_topk(tbl pg_catalog.text, col pg_catalog.name,
	k pg_catalog.int8, smallest pg_catalog.bool DEFAULT false,
	nulls pg_catalog.text DEFAULT 'exclude')
RETURNS TABLE(rank pg_catalog.int8, row_id pg_catalog.tid)
AS 'MODULE_PATHNAME', 'radik_topk_tids_by_name'
LANGUAGE C STRICT STABLE PARALLEL RESTRICTED ROWS 100
SUPPORT @extschema@.radik_topk_support;

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

COMMENT ON FUNCTION @extschema@.radik_topk(pg_catalog.regclass, pg_catalog.name, pg_catalog.int8,
	pg_catalog.bool, pg_catalog.text)
	IS 'ranks and TIDs of the k rows of a table with the largest (or smallest) values of a column';
COMMENT ON FUNCTION @extschema@.radik_topk(pg_catalog.text, pg_catalog.name, pg_catalog.int8,
	pg_catalog.bool, pg_catalog.text)
	IS 'ranks and TIDs of the k rows of a table with the largest (or smallest) values of a column';
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
