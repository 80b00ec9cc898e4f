/*
 * radik_topk.c
 *	  The SQL function radik_topk(): the k rows of a table with the largest (or the smallest)
 *	  values of one column, selected by the same scan-and-select code as the custom scan.
 *
 * Two forms, because SQL cannot give one function a result type that depends on a table named
 * by a value:
 *  - radik_topk(tbl regclass | text, col name, k bigint, ...) RETURNS TABLE(rank, row_id):
 *    which rows, as heap TIDs in rank order.  The text overload only keeps a plain literal
 *    ('events') from being ambiguous with the row form (radik_topk_tids_by_name).
 *  - radik_topk(rowtype anyelement, col name, k bigint, ...) RETURNS SETOF anyelement, called
 *    as radik_topk(NULL::events, 'score', 10): the rows themselves, of the table whose row type
 *    the first argument has (its value is ignored); with group_by, the k rows of each group.
 *
 * Both run radik_select_rows() (radik_select.c), the code path of the custom scan, so types,
 * NaN and -0.0, snapshot and device follow the same rules as ORDER BY ... LIMIT.  NULL keys are
 * never selected by default ("top" implies a value); nulls => 'first' or 'last' place them as
 * ORDER BY's NULLS FIRST / NULLS LAST would.  Where radik cannot read the rows itself (a table
 * that keeps them outside its own heap: rows_place; a row-level security policy with a
 * subquery), the row form runs the equivalent query (select_by_query) and the row-id form
 * refuses; group_by, too, runs the equivalent window query, which radik's planner answers.
 * Keys whose engine keys only summarize their values (text and the other types ordered through
 * abbreviated keys, numeric, interval) are selected by the equivalent query in both forms: the
 * custom scan orders their candidates with the type's comparator and the column's collation.
 * Privileges and row-level security are those of the equivalent SELECT (check_selectable,
 * row_security_quals).  The function reads the table with the caller's snapshot, so it is
 * STABLE; it is PARALLEL RESTRICTED because a parallel worker cannot read the leader's temporary
 * tables, which the planner cannot see behind a function call.
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/genam.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "executor/spi.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "parser/parse_relation.h"
#include "rewrite/rowsecurity.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "radik_key_mapper.h"
#include "radik_select.h"

PG_FUNCTION_INFO_V1(radik_topk_tids);
PG_FUNCTION_INFO_V1(radik_topk_tids_by_name);
PG_FUNCTION_INFO_V1(radik_topk_rows);
PG_FUNCTION_INFO_V1(radik_topk_support);

/* Argument positions, the same in every form. */
#define ARG_TABLE		0
#define ARG_COLUMN		1
#define ARG_K			2
#define ARG_SMALLEST	3
#define ARG_NULLS		4
#define NUM_ARGS		5
#define ARG_GROUP_BY	5		/* the row form only */

/* Where rows with a NULL key go (the nulls argument). */
typedef enum NullsPlacement
{
	NULLS_EXCLUDE,
	NULLS_FIRST,
	NULLS_LAST
} NullsPlacement;

/* Where a table keeps its rows, when radik cannot read them in the table's own heap. */
typedef enum RowsPlace
{
	ROWS_IN_HEAP,				/* a heap table without children: radik reads it */
	ROWS_IN_PARTITIONS,
	ROWS_IN_CHILDREN,			/* an inheritance parent's children hold rows too */
	ROWS_ON_FOREIGN_SERVER,
	ROWS_IN_OTHER_ACCESS_METHOD,
	ROWS_DISTRIBUTED			/* a table Citus distributes */
} RowsPlace;

/* A call's arguments, checked and resolved, and the open table. */
typedef struct TopkRequest
{
	Relation	rel;
	AttrNumber	attnum;
	Oid			atttype;		/* the column's declared type */
	int32		atttypmod;
	Oid			attcollation;
	Oid			key_type;		/* atttype, or a domain's base type */
	bool		key_exact;		/* its engine keys order it exactly (radik_key_type_exact) */
	int64		k;
	bool		smallest;
	NullsPlacement nulls;
	AttrNumber	group_attnum;	/* the row form's group_by column, or InvalidAttrNumber */
} TopkRequest;

static NullsPlacement parse_nulls_placement(text *nulls);
static Relation open_table(Oid relid);
static void check_selectable(Relation rel, AttrNumber key_attnum, AttrNumber returned_attnum);
static void resolve_key_column(TopkRequest *req, const char *colname);
static RowsPlace rows_place(Relation rel);
static void refuse_row_ids(Relation rel, RowsPlace place);
static void select_by_query(ReturnSetInfo *rsinfo, TopkRequest *req, bool whole_rows,
							bool rows_in_heap);
static void resolve_group_column(TopkRequest *req, const char *colname);
static List *row_security_quals(Relation rel, bool *has_sublinks);
static RadikSelectResult *run_selection(TopkRequest *req, List *security_quals);
static void topk_common(FunctionCallInfo fcinfo, Oid relid, bool whole_rows,
						const char *group_by);

/*
 * radik_topk(tbl regclass, col name, k bigint, smallest bool, nulls text)
 *		RETURNS TABLE(rank bigint, row_id tid)
 * STRICT: no NULL argument reaches here.
 */
Datum
radik_topk_tids(PG_FUNCTION_ARGS)
{
	topk_common(fcinfo, PG_GETARG_OID(ARG_TABLE), false, NULL);
	return (Datum) 0;
}

/*
 * radik_topk(tbl text, ...): the same, the name read exactly as regclass input reads it (a
 * possibly qualified, possibly quoted name, or a numeric OID).
 */
Datum
radik_topk_tids_by_name(PG_FUNCTION_ARGS)
{
	char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(ARG_TABLE));
	Oid			relid = DatumGetObjectId(DirectFunctionCall1(regclassin,
															 CStringGetDatum(name)));

	topk_common(fcinfo, relid, false, NULL);
	return (Datum) 0;
}

/*
 * radik_topk(rowtype anyelement, col name, k bigint, smallest bool, nulls text)
 *		RETURNS SETOF anyelement
 */
Datum
radik_topk_rows(PG_FUNCTION_ARGS)
{
	Oid			rowtype = get_fn_expr_argtype(fcinfo->flinfo, ARG_TABLE);
	Oid			relid;
	char		relkind;

	if (!OidIsValid(rowtype))
		elog(ERROR, "could not determine the type of radik_topk's first argument");

	relid = type_is_rowtype(rowtype) ? get_typ_typrelid(rowtype) : InvalidOid;
	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("first argument of radik_topk must be a table's row type, not type %s",
						format_type_be(rowtype)),
				 errhint("Pass a typed NULL, as in radik_topk(NULL::events, 'score', 10), or the table's name as regclass or text.")));

	relkind = get_rel_relkind(relid);
	if (relkind == RELKIND_COMPOSITE_TYPE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("type %s is not the row type of a table", format_type_be(rowtype)),
				 errdetail("It is a composite type made with CREATE TYPE, which has no rows to select."),
				 errhint("Pass a typed NULL of a table's row type, as in radik_topk(NULL::events, 'score', 10).")));

	/*
	 * Not STRICT (its first argument is normally NULL): like a STRICT function, return nothing
	 * when another argument is NULL.
	 */
	for (int i = ARG_COLUMN; i < NUM_ARGS; i++)		/* a NULL group_by: no groups */
	{
		if (PG_ARGISNULL(i))
		{
			InitMaterializedSRF(fcinfo, 0);
			return (Datum) 0;
		}
	}

	topk_common(fcinfo, relid, true,
				PG_NARGS() > ARG_GROUP_BY && !PG_ARGISNULL(ARG_GROUP_BY) ?
				NameStr(*PG_GETARG_NAME(ARG_GROUP_BY)) : NULL);
	return (Datum) 0;
}

/*
 * Planner support: both forms return at most k rows, so estimate k when it is known at plan
 * time, instead of the declared ROWS.
 */
Datum
radik_topk_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestRows))
	{
		SupportRequestRows *req = (SupportRequestRows *) rawreq;

		if (is_funcclause(req->node) && list_length(((FuncExpr *) req->node)->args) > ARG_K)
		{
			Node	   *karg = list_nth(((FuncExpr *) req->node)->args, ARG_K);

			if (req->root)
				karg = estimate_expression_value(req->root, karg);
			if (IsA(karg, Const) && ((Const *) karg)->consttype == INT8OID &&
				!((Const *) karg)->constisnull)
			{
				int64		k = DatumGetInt64(((Const *) karg)->constvalue);

				if (k >= 0)
				{
					req->rows = (double) k;
					PG_RETURN_POINTER(req);
				}
			}
		}
	}
	PG_RETURN_POINTER(NULL);
}

/*
 * The body shared by both forms: check everything, select, and put the answer in a tuplestore
 * (materialize mode, so the table and the engine are done with before the first row goes out).
 */
static void
topk_common(FunctionCallInfo fcinfo, Oid relid, bool whole_rows, const char *group_by)
{
	TopkRequest req;
	char	   *colname = NameStr(*PG_GETARG_NAME(ARG_COLUMN));
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RadikSelectResult *result = NULL;
	RowsPlace	place;
	List	   *security_quals;
	bool		policy_has_sublinks;

	memset(&req, 0, sizeof(req));
	req.k = PG_GETARG_INT64(ARG_K);
	req.smallest = PG_GETARG_BOOL(ARG_SMALLEST);
	req.nulls = parse_nulls_placement(PG_GETARG_TEXT_PP(ARG_NULLS));
	if (req.k < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("k must not be negative"),
				 errdetail("k was " INT64_FORMAT ".", req.k)));

	InitMaterializedSRF(fcinfo, 0);

	req.rel = open_table(relid);
	resolve_key_column(&req, colname);
	check_selectable(req.rel, req.attnum,
					 whole_rows ? InvalidAttrNumber : SelfItemPointerAttributeNumber);
	place = rows_place(req.rel);

	/* the best rows of each group: the equivalent window query, which radik's planner answers */
	if (group_by != NULL)
	{
		resolve_group_column(&req, group_by);
		if (req.k > 0)
			select_by_query(rsinfo, &req, true, place == ROWS_IN_HEAP);
		table_close(req.rel, NoLock);
		return;
	}

	/*
	 * Rows radik cannot read in the table's heap (see rows_place), and keys whose engine keys
	 * only summarize their values (text, uuid, numeric, interval: the custom scan sorts the
	 * candidates with the type's comparator): the equivalent query.
	 */
	if (place != ROWS_IN_HEAP && !whole_rows)
		refuse_row_ids(req.rel, place);
	if (place != ROWS_IN_HEAP || !req.key_exact)
	{
		if (req.k > 0)
			select_by_query(rsinfo, &req, whole_rows, place == ROWS_IN_HEAP);
		table_close(req.rel, NoLock);
		return;
	}
	security_quals = row_security_quals(req.rel, &policy_has_sublinks);
	if (policy_has_sublinks && !whole_rows)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("radik_topk cannot apply the row-level security policies of table \"%s\"",
						RelationGetRelationName(req.rel)),
				 errdetail("A policy that applies to you contains a subquery, which radik_topk cannot evaluate."),
				 errhint("Use radik_topk(NULL::%s, ...), which returns the rows themselves, or SELECT ... ORDER BY ... LIMIT.",
						 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(req.rel)),
													RelationGetRelationName(req.rel)))));
	if (policy_has_sublinks)
	{
		if (req.k > 0)
			select_by_query(rsinfo, &req, true, true);
		table_close(req.rel, NoLock);
		return;
	}

	if (req.k > 0)
		result = run_selection(&req, security_quals);

	if (result != NULL && result->ntids > 0)
	{
		Snapshot	snapshot = GetActiveSnapshot();
		TupleTableSlot *slot = whole_rows ? table_slot_create(req.rel, NULL) : NULL;

		for (int64 i = 0; i < result->ntids; i++)
		{
			CHECK_FOR_INTERRUPTS();

			if (whole_rows)
			{
				/*
				 * The row as the scan saw it: same snapshot, same TID.  slot_getallattrs fills
				 * in the defaults of columns added after the row was written, which copying the
				 * stored tuple would not.
				 */
				if (!table_tuple_fetch_row_version(req.rel, &result->tids[i], snapshot, slot))
					elog(ERROR, "radik_topk: selected row (%u,%u) of \"%s\" is not visible",
						 ItemPointerGetBlockNumber(&result->tids[i]),
						 ItemPointerGetOffsetNumber(&result->tids[i]),
						 RelationGetRelationName(req.rel));
				slot_getallattrs(slot);
				for (int att = 0; att < slot->tts_tupleDescriptor->natts; att++)
				{
					/* a dropped column's old bytes are nobody's business */
					if (TupleDescAttr(slot->tts_tupleDescriptor, att)->attisdropped)
						slot->tts_isnull[att] = true;
				}
				tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc,
									 slot->tts_values, slot->tts_isnull);
				ExecClearTuple(slot);
			}
			else
			{
				Datum		values[2];
				bool		nulls[2] = {false, false};

				values[0] = Int64GetDatum(i + 1);
				values[1] = PointerGetDatum(&result->tids[i]);
				tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			}
		}
		if (slot)
			ExecDropSingleTupleTableSlot(slot);
	}

	table_close(req.rel, NoLock);	/* the lock is kept until the end of the transaction */
}

static NullsPlacement
parse_nulls_placement(text *nulls)
{
	char	   *value = text_to_cstring(nulls);

	if (pg_strcasecmp(value, "exclude") == 0)
		return NULLS_EXCLUDE;
	if (pg_strcasecmp(value, "first") == 0)
		return NULLS_FIRST;
	if (pg_strcasecmp(value, "last") == 0)
		return NULLS_LAST;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid value for parameter \"nulls\": \"%s\"", value),
			 errhint("Valid values are \"exclude\" (the default: rows with a NULL key are not selected), \"first\" and \"last\".")));
	return NULLS_EXCLUDE;		/* keep the compiler quiet */
}

/*
 * Open and lock the table, refusing every kind of relation radik cannot scan with a message
 * that says what to do instead.
 */
static Relation
open_table(Oid relid)
{
	Relation	rel = try_relation_open(relid, AccessShareLock);
	const char *relname;

	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	relname = RelationGetRelationName(rel);

	switch (rel->rd_rel->relkind)
	{
		case RELKIND_RELATION:
			break;
		case RELKIND_MATVIEW:
			if (!RelationIsPopulated(rel))
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("materialized view \"%s\" has not been populated", relname),
						 errhint("Use the REFRESH MATERIALIZED VIEW command.")));
			break;
		case RELKIND_VIEW:
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("radik_topk cannot select from view \"%s\"", relname),
					 errdetail("radik_topk reads a table's rows directly, and a view has none."),
					 errhint("Use SELECT ... FROM %s ORDER BY ... LIMIT, or call radik_topk on the view's underlying table.",
							 quote_identifier(relname))));
			break;
		case RELKIND_PARTITIONED_TABLE:
		case RELKIND_FOREIGN_TABLE:
			break;				/* rows kept elsewhere: see rows_place */
		default:
			ereport(ERROR,
					(errcode(ERRCODE_WRONG_OBJECT_TYPE),
					 errmsg("\"%s\" is not a table", relname),
					 errdetail("radik_topk selects from tables, partitioned and foreign tables, and materialized views.")));
	}

	if (RELATION_IS_OTHER_TEMP(rel))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot access temporary tables of other sessions"),
				 errdetail("Table \"%s\" belongs to another session.", relname)));

	return rel;
}

/* Find the key column by its name as given and check that radik can order it. */
static void
resolve_key_column(TopkRequest *req, const char *colname)
{
	Oid			relid = RelationGetRelid(req->rel);
	TypeCacheEntry *typentry;
	Oid			opclass;
	const char *reason = NULL;

	req->attnum = get_attnum(relid, colname);
	if (req->attnum == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						colname, RelationGetRelationName(req->rel)),
				 errhint("The column name is matched exactly, without case folding or quotes.")));
	if (req->attnum < 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("radik_topk cannot select by system column \"%s\"", colname),
				 errhint("Use SELECT ... ORDER BY %s LIMIT ... instead.", quote_identifier(colname))));

	get_atttypetypmodcoll(relid, req->attnum, &req->atttype, &req->atttypmod,
						  &req->attcollation);
	req->key_type = getBaseType(req->atttype);
	/* the type its default btree order compares (text for varchar, inet for cidr) */
	opclass = GetDefaultOpClass(req->key_type, BTREE_AM_OID);
	if (OidIsValid(opclass) && !IsPolymorphicType(get_opclass_input_type(opclass)))
		req->key_type = get_opclass_input_type(opclass);
	typentry = lookup_type_cache(req->key_type, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
	if (!OidIsValid(typentry->lt_opr) || !OidIsValid(typentry->gt_opr) ||
		!radik_key_orderable(req->key_type, req->attcollation, typentry->lt_opr, &reason))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("radik_topk cannot select by column \"%s\" of type %s",
						colname, format_type_be(req->atttype)),
				 reason != NULL && type_is_collatable(req->key_type) ?
				 errdetail_internal("%s.", reason) :
				 errdetail("radik orders these types: %s.", radik_supported_type_names()),
				 errhint("Use SELECT ... ORDER BY %s LIMIT ... for other types.", quote_identifier(colname))));
	req->key_exact = radik_key_type_exact(req->key_type);
}

/* Find the group_by column by its name as given. */
static void
resolve_group_column(TopkRequest *req, const char *colname)
{
	req->group_attnum = get_attnum(RelationGetRelid(req->rel), colname);
	if (req->group_attnum == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						colname, RelationGetRelationName(req->rel)),
				 errhint("The column name is matched exactly, without case folding or quotes.")));
	if (req->group_attnum < 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("radik_topk cannot group by system column \"%s\"", colname)));
}

/*
 * The privileges the equivalent SELECT needs, checked the way the executor checks a range
 * table entry (ExecCheckRTEPerms): SELECT on the table, or else on each column used: the key,
 * and returned_attnum (ctid for the row-id form, or InvalidAttrNumber for the whole row: every
 * column).
 */
static void
check_selectable(Relation rel, AttrNumber key_attnum, AttrNumber returned_attnum)
{
	Oid			relid = RelationGetRelid(rel);
	Oid			userid = GetUserId();
	bool		allowed;

	if (pg_class_aclcheck(relid, userid, ACL_SELECT) == ACLCHECK_OK)
		return;

	allowed = pg_attribute_aclcheck(relid, key_attnum, userid, ACL_SELECT) == ACLCHECK_OK;
	if (allowed)
	{
		if (returned_attnum == InvalidAttrNumber)
			allowed = pg_attribute_aclcheck_all(relid, userid, ACL_SELECT, ACLMASK_ALL) == ACLCHECK_OK;
		else
			allowed = pg_attribute_aclcheck(relid, returned_attnum, userid, ACL_SELECT) == ACLCHECK_OK;
	}
	if (!allowed)
		aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(rel->rd_rel->relkind),
					   RelationGetRelationName(rel));
}

/*
 * The row-level security quals a SELECT on rel would get for the current user (NIL when none
 * apply), ready for ExecInitQual; run_selection evaluates them on every row before its key is
 * read.  They come from the rewriter's own function, get_row_security_policies(), so permissive
 * and restrictive policies, policies for other roles, FORCE ROW LEVEL SECURITY, BYPASSRLS and
 * row_security = off behave exactly as in a query.  *has_sublinks is set when a policy holds a
 * subquery, which only a planned query can evaluate (the quals are NIL then): the row form then
 * asks the equivalent query, and the row-id form refuses.
 */
static List *
row_security_quals(Relation rel, bool *has_sublinks)
{
	Query	   *query = makeNode(Query);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	List	   *security_quals;
	List	   *with_check_options;
	bool		has_row_security;
	List	   *planned = NIL;
	ListCell   *lc;

	*has_sublinks = false;
	if (check_enable_rls(RelationGetRelid(rel), InvalidOid, false) != RLS_ENABLED)
		return NIL;

	rte->rtekind = RTE_RELATION;
	rte->relid = RelationGetRelid(rel);
	rte->relkind = rel->rd_rel->relkind;
	rte->rellockmode = AccessShareLock;
	query->commandType = CMD_SELECT;
	query->rtable = list_make1(rte);
#if PG_VERSION_NUM >= 160000
	{
		/* 16 keeps the permissions an RTE asks for apart from it */
		RTEPermissionInfo *permissions = addRTEPermissionInfo(&query->rteperminfos, rte);

		permissions->requiredPerms = ACL_SELECT;
		permissions->checkAsUser = InvalidOid;
	}
#else
	rte->requiredPerms = ACL_SELECT;
	rte->checkAsUser = InvalidOid;
#endif

	get_row_security_policies(query, rte, 1, &security_quals, &with_check_options,
							  &has_row_security, has_sublinks);
	if (*has_sublinks)
		return NIL;

	foreach(lc, security_quals)
		planned = lappend(planned, expression_planner((Expr *) lfirst(lc)));
	return planned;
}

/*
 * Is relid a table Citus distributes: a distributed, reference or Citus local table, whose rows
 * live in shards while the relation itself is an empty or stale shell?  Such a table has a row
 * in Citus's catalog pg_catalog.pg_dist_partition; without that catalog Citus is not installed.
 * The catalog is read directly (no privilege on it needed), by a scan for the one relation.
 */
static bool
citus_distributes(Oid relid)
{
	Oid			catalog_id = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	Relation	catalog;
	AttrNumber	attnum;
	ScanKeyData key;
	SysScanDesc scan;
	bool		found;

	if (!OidIsValid(catalog_id))
		return false;
	attnum = get_attnum(catalog_id, "logicalrelid");
	if (attnum == InvalidAttrNumber)
		return false;
	catalog = table_open(catalog_id, AccessShareLock);
	ScanKeyInit(&key, attnum, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(catalog, InvalidOid, false, NULL, 1, &key);
	found = HeapTupleIsValid(systable_getnext(scan));
	systable_endscan(scan);
	table_close(catalog, AccessShareLock);
	return found;
}

/*
 * Where rel keeps its rows: in its own heap, where radik reads them, or elsewhere: a partitioned
 * table in its partitions, an inheritance parent in its children too, a foreign table on another
 * server, a table of another access method (columnar, ...) in its own format, a table Citus
 * distributes (listed in Citus's catalog pg_dist_partition) on its worker nodes, its coordinator
 * holding an empty or stale shell.  Reading such a table's own heap would return wrong rows
 * without an error, so the row form asks PostgreSQL the equivalent query instead
 * (select_by_query, which the planner, the foreign data wrapper or Citus answers, radik's custom
 * scan included where it can), and the row-id form, whose heap TIDs would not name those rows,
 * refuses with an error that says what to use (refuse_row_ids).
 */
static RowsPlace
rows_place(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);

	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
		return ROWS_IN_PARTITIONS;
	if (rel->rd_rel->relkind == RELKIND_FOREIGN_TABLE)
		return ROWS_ON_FOREIGN_SERVER;
	if (citus_distributes(relid))
		return ROWS_DISTRIBUTED;
	if (rel->rd_rel->relam != HEAP_TABLE_AM_OID)
		return ROWS_IN_OTHER_ACCESS_METHOD;
	if (rel->rd_rel->relhassubclass && find_inheritance_children(relid, NoLock) != NIL)
		return ROWS_IN_CHILDREN;
	return ROWS_IN_HEAP;
}

/* The row-id form for a table whose rows heap TIDs of its own do not name: an error. */
static void
refuse_row_ids(Relation rel, RowsPlace place)
{
	const char *relname = RelationGetRelationName(rel);
	const char *detail;

	switch (place)
	{
		case ROWS_IN_PARTITIONS:
			detail = _("A partitioned table keeps its rows in its partitions, whose row ids repeat across partitions.");
			break;
		case ROWS_IN_CHILDREN:
			detail = _("Its inheritance children hold rows too, and row ids repeat across tables.");
			break;
		case ROWS_ON_FOREIGN_SERVER:
			detail = _("The rows of a foreign table live on another server.");
			break;
		case ROWS_DISTRIBUTED:
			detail = _("Citus distributes the table: its rows live in shards, on other nodes.");
			break;
		default:
			detail = _("Its table access method does not keep rows by heap row ids.");
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("radik_topk cannot return row ids of table \"%s\"", relname),
			 errdetail_internal("%s", detail),
			 errhint("Use radik_topk(NULL::%s, ...), which returns the rows themselves, or SELECT ... ORDER BY ... LIMIT.",
					 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												relname))));
}

/*
 * The table's and a column's catalog names, quoted, for the equivalent query.  The arguments are
 * resolved as identifiers (regclass input, get_attnum on the column name as given).
 */
static char *
qualified_name(Relation rel)
{
	return quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
									  RelationGetRelationName(rel));
}

static const char *
column_name(Relation rel, AttrNumber attnum)
{
	return quote_identifier(get_attname(RelationGetRelid(rel), attnum, false));
}

/* The key column's ORDER BY item: "col DESC NULLS LAST" and the like. */
static char *
order_by(TopkRequest *req)
{
	return psprintf("%s %s NULLS %s", column_name(req->rel, req->attnum),
					req->smallest ? "ASC" : "DESC", req->nulls == NULLS_FIRST ? "FIRST" : "LAST");
}

/*
 * The query for the best k rows of each group: the table's live columns, ranked by row_number()
 * over the groups in a subquery and cut at $1, ordered by group and rank.  The rank's column
 * name is chosen so that no column of the table has it.
 */
static void
grouped_query(StringInfo sql, TopkRequest *req)
{
	Relation	rel = req->rel;
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData columns;
	char	   *rank = pstrdup("radik_rank");
	const char *group = column_name(rel, req->group_attnum);

	for (int i = 2; get_attnum(RelationGetRelid(rel), rank) != InvalidAttrNumber; i++)
		rank = psprintf("radik_rank_%d", i);
	initStringInfo(&columns);
	for (int att = 0; att < desc->natts; att++)
	{
		if (TupleDescAttr(desc, att)->attisdropped)
			continue;
		appendStringInfo(&columns, "%s%s", columns.len > 0 ? ", " : "",
						 quote_identifier(NameStr(TupleDescAttr(desc, att)->attname)));
	}
	appendStringInfo(sql, "SELECT %s FROM (SELECT %s, row_number() OVER (PARTITION BY %s ORDER BY %s) AS %s FROM %s",
					 columns.data, columns.data, group, order_by(req), rank, qualified_name(rel));
	if (req->nulls == NULLS_EXCLUDE)
		appendStringInfo(sql, " WHERE %s IS NOT NULL", column_name(rel, req->attnum));
	appendStringInfo(sql, ") s WHERE %s <= $1 ORDER BY %s, %s", rank, group, rank);
}

/*
 * A selection by the equivalent query: SELECT * (the row form) or SELECT ctid (the row-id form,
 * of a table whose rows are in its own heap) FROM tbl [WHERE col IS NOT NULL] ORDER BY col
 * ASC|DESC NULLS FIRST|LAST LIMIT k, run through SPI with the caller's snapshot (read-only, as
 * the function is STABLE), so that the planner applies privileges, row-level security (policies
 * with subqueries too) and whatever reads the rows (partitions, children, a foreign data
 * wrapper, Citus), and orders the key with its collation, radik's custom scan included where it
 * can.  rows_in_heap: the table keeps its rows in its own heap, so radik's scan is forced on for
 * the query (below).  The row form's result row type also has the table's dropped columns (NULL
 * there).
 */
static void
select_by_query(ReturnSetInfo *rsinfo, TopkRequest *req, bool whole_rows, bool rows_in_heap)
{
	Relation	rel = req->rel;
	TupleDesc	result_desc = rsinfo->setDesc;
	StringInfoData sql;
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1] = {Int64GetDatum(req->k)};
	Datum	   *values = palloc(result_desc->natts * sizeof(Datum));
	bool	   *nulls = palloc(result_desc->natts * sizeof(bool));
	int			status;
	int			guc_nest_level;

	initStringInfo(&sql);
	if (req->group_attnum != InvalidAttrNumber)
		grouped_query(&sql, req);
	else
	{
		appendStringInfo(&sql, "SELECT %s FROM %s", whole_rows ? "*" : "ctid", qualified_name(rel));
		if (req->nulls == NULLS_EXCLUDE)
			appendStringInfo(&sql, " WHERE %s IS NOT NULL", column_name(rel, req->attnum));
		appendStringInfo(&sql, " ORDER BY %s LIMIT $1", order_by(req));
	}

	/*
	 * A table whose rows are in its heap is selected by radik's custom scan, as a function
	 * called radik_topk promises, under radik.enabled = on and radik.force = on for the query
	 * only (as a function's SET clause would set them).
	 */
	guc_nest_level = NewGUCNestLevel();
	if (rows_in_heap)
	{
		(void) set_config_option("radik.enabled", "on", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
		(void) set_config_option("radik.force", "on", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_SAVE, true, 0, false);
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "radik_topk: SPI_connect failed");
	status = SPI_execute_with_args(sql.data, 1, argtypes, args, NULL, true, 0);
	if (status != SPI_OK_SELECT)
		elog(ERROR, "radik_topk: SPI_execute_with_args returned %s", SPI_result_code_string(status));

	for (uint64 row = 0; row < SPI_processed; row++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[row];
		int			column = 0;		/* the query's columns: the table's live ones, in order */

		CHECK_FOR_INTERRUPTS();
		if (!whole_rows)
		{
			/* (rank, row_id) */
			values[0] = Int64GetDatum((int64) row + 1);
			nulls[0] = false;
			values[1] = SPI_getbinval(tuple, SPI_tuptable->tupdesc, 1, &nulls[1]);
			tuplestore_putvalues(rsinfo->setResult, result_desc, values, nulls);
			continue;
		}
		for (int att = 0; att < result_desc->natts; att++)
		{
			if (TupleDescAttr(result_desc, att)->attisdropped)
			{
				values[att] = (Datum) 0;
				nulls[att] = true;
				continue;
			}
			values[att] = SPI_getbinval(tuple, SPI_tuptable->tupdesc, ++column, &nulls[att]);
		}
		tuplestore_putvalues(rsinfo->setResult, result_desc, values, nulls);
	}
	SPI_finish();
	AtEOXact_GUC(true, guc_nest_level);
}

/* Run radik_select_rows with the key, the NULL rule and the row-level security quals. */
static RadikSelectResult *
run_selection(TopkRequest *req, List *security_quals)
{
	RadikSelectResult *result = palloc0(sizeof(RadikSelectResult));
	RadikSelection selection;
	RadikSortKey key;
	List	   *quals = list_copy(security_quals);
	EState	   *estate;
	ExprContext *econtext;
	ExprState  *qual = NULL;

	/* Excluded NULLs are filtered after the policies, which must see every row first. */
	if (req->nulls == NULLS_EXCLUDE)
	{
		NullTest   *not_null = makeNode(NullTest);

		not_null->arg = (Expr *) makeVar(1, req->attnum, req->atttype, req->atttypmod,
										 req->attcollation, 0);
		not_null->nulltesttype = IS_NOT_NULL;
		not_null->argisrow = false;
		not_null->location = -1;
		quals = lappend(quals, not_null);
	}

	memset(&key, 0, sizeof(key));
	key.type = req->key_type;
	key.descending = !req->smallest;
	key.nulls_first = (req->nulls == NULLS_FIRST);
	key.attnum = req->attnum;
	key.expr = NULL;

	estate = CreateExecutorState();
	econtext = GetPerTupleExprContext(estate);
	if (quals != NIL)
		qual = ExecInitQual(quals, NULL);

	selection.rel = req->rel;
	selection.snapshot = GetActiveSnapshot();
	selection.econtext = econtext;
	selection.qual = qual;
	selection.key = &key;
	selection.k = req->k;
	selection.ties = RADIK_TIES_NONE;
	selection.parallel = NULL;
	selection.carry_bytes = 0;
	radik_select_rows(&selection, result);

	FreeExecutorState(estate);
	return result;
}
