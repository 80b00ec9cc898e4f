/*
 * radik_partition_limits.c
 *	  ORDER BY ... LIMIT k on a partitioned table with foreign partitions, planned as the same
 *	  ORDER BY ... LIMIT k + offset on each partition, merged by PostgreSQL above.
 *
 * PostgreSQL sends a query's LIMIT to a foreign table's server only when the foreign table is the
 * whole query.  A foreign partition gets the ORDER BY alone, so every remote server sorts all of
 * its rows and sends them until the Merge Append above has enough.  Asked as a UNION ALL of the
 * partitions, each with its own ORDER BY ... LIMIT, the same question sends every remote its
 * LIMIT (and lets radik answer there, where it is installed), and radik's node answers each local
 * partition here.  The answer is the same: a partition's rows after its first k + offset cannot
 * be among the query's first k + offset, and WITH TIES keeps each partition's ties as well.
 *
 * This planner_hook makes that rewrite.  It plans the query as PostgreSQL does first, to learn
 * which partitions that plan reads (after plan-time pruning and constraint exclusion, and having
 * locked only those); where one of them is foreign, the partitioned table becomes a UNION ALL
 * with one arm per partition read,
 *
 *	  SELECT <the columns the query uses> FROM ONLY partition WHERE <the query's WHERE>
 *	  ORDER BY <the query's keys> LIMIT <k + offset>
 *
 * and the query's own ORDER BY, LIMIT and OFFSET run above it.  It applies only where that is
 * plainly the same question: a SELECT of one partitioned table with no joins, grouping, window
 * functions, DISTINCT, set operations, locking clauses, sublinks, WITH or set-returning
 * functions; keys that are not volatile; no whole-row or system columns; no row-level security
 * policy; a LIMIT known before the query runs apart from a parameter (and then no OFFSET); and no
 * partitions pruned only while the plan runs, which the arms could not prune.  Privileges are
 * checked on the partitioned table, as the original query checks them, never on its partitions.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/plannodes.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "parser/parse_relation.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "radik.h"
#include "radik_settings.h"

static planner_hook_type prev_planner_hook = NULL;

/* What building one partition's arm needs to know of the query. */
typedef struct PartitionArmContext
{
	Query	   *parse;
	RangeTblEntry *table;			/* the partitioned table's range table entry */
	TupleDesc	table_desc;
	Bitmapset  *used_columns;	/* as pull_varattnos gives them */
	Node	   *quals;			/* the query's WHERE, over the partitioned table */
	Node	   *limit;			/* each arm's LIMIT */
	Oid			check_as_user;
} PartitionArmContext;

static PlannedStmt *
plan_as_next(Query *parse, const char *query_string, int cursor_options,
			 ParamListInfo bound_params)
{
	if (prev_planner_hook)
		return prev_planner_hook(parse, query_string, cursor_options, bound_params);
	return standard_planner(parse, query_string, cursor_options, bound_params);
}

static RangeTblRef *
range_table_ref(Index index)
{
	RangeTblRef *ref = makeNode(RangeTblRef);

	ref->rtindex = index;
	return ref;
}

/* True for a Var this rewrite cannot map onto a partition's columns. */
static bool
unmappable_var(Node *node, void *context)
{
	Index		table_index = *(Index *) context;

	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		return var->varlevelsup != 0 || var->varno != table_index || var->varattno <= 0;
	}
	return expression_tree_walker(node, unmappable_var, context);
}

/* The range table index of the partitioned table, when the query has the shape served here. */
static Index
partitioned_table_queried(Query *parse)
{
	RangeTblRef *ref;
	RangeTblEntry *rte;
	ListCell   *lc;

	if (parse->commandType != CMD_SELECT || parse->utilityStmt != NULL ||
		parse->setOperations != NULL || parse->hasAggs || parse->hasWindowFuncs ||
		parse->hasTargetSRFs || parse->hasSubLinks || parse->hasModifyingCTE ||
		parse->hasForUpdate || parse->hasRecursive || parse->cteList != NIL ||
		parse->rowMarks != NIL || parse->groupClause != NIL || parse->groupingSets != NIL ||
		parse->havingQual != NULL || parse->distinctClause != NIL ||
		parse->sortClause == NIL || parse->limitCount == NULL ||
		list_length(parse->jointree->fromlist) != 1 ||
		!IsA(linitial(parse->jointree->fromlist), RangeTblRef))
		return 0;
	ref = linitial_node(RangeTblRef, parse->jointree->fromlist);
	rte = rt_fetch(ref->rtindex, parse->rtable);
	if (rte->rtekind != RTE_RELATION || rte->relkind != RELKIND_PARTITIONED_TABLE || !rte->inh ||
		rte->tablesample != NULL || rte->securityQuals != NIL)
		return 0;
	if (unmappable_var((Node *) parse->targetList, &ref->rtindex) ||
		unmappable_var(parse->jointree->quals, &ref->rtindex))
		return 0;
	foreach(lc, parse->sortClause)
	{
		TargetEntry *tle = get_sortgroupclause_tle(lfirst_node(SortGroupClause, lc),
												   parse->targetList);

		if (contain_volatile_functions((Node *) tle->expr))
			return 0;
	}
	return ref->rtindex;
}

/*
 * Each partition's LIMIT: the query's LIMIT plus its OFFSET, as a constant, or the query's own
 * LIMIT parameter when there is no OFFSET.  NULL where no such bound can be given.
 */
static Node *
partition_limit(Query *parse)
{
	Node	   *count = eval_const_expressions(NULL, copyObject(parse->limitCount));
	Node	   *offset = parse->limitOffset ?
		eval_const_expressions(NULL, copyObject(parse->limitOffset)) : NULL;
	int64		k;
	int64		skipped = 0;
	int64		bound;

	if (IsA(count, Const) && ((Const *) count)->constisnull)
		return NULL;			/* LIMIT ALL */
	if (offset != NULL)
	{
		if (!IsA(offset, Const))
			return NULL;
		if (!((Const *) offset)->constisnull)
			skipped = DatumGetInt64(((Const *) offset)->constvalue);
	}
	if (IsA(count, Param) && skipped == 0)
		return count;
	if (!IsA(count, Const))
		return NULL;
	k = DatumGetInt64(((Const *) count)->constvalue);
	if (k < 0 || skipped < 0 || pg_add_s64_overflow(k, skipped, &bound))
		return NULL;
	return (Node *) makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(bound),
							  false, FLOAT8PASSBYVAL);
}

/* An Append's or MergeAppend's run-time pruning, as each version keeps it. */
#if PG_VERSION_NUM >= 180000
#define PRUNES_WHILE_RUNNING(node) ((node)->part_prune_index >= 0)
#else
#define PRUNES_WHILE_RUNNING(node) ((node)->part_prune_info != NULL)
#endif

/* What PostgreSQL's plan of the query reads. */
typedef struct PlanReading
{
	List	   *rtable;			/* the plan's range table */
	List	   *partitions;		/* the tables its scans read */
	bool		foreign;		/* one of them is a foreign table */
	bool		unknown;		/* a scan of no one table, or pruning while the plan runs */
} PlanReading;

/*
 * Collect the tables plan's scans read: the partitions that neither plan-time pruning nor
 * constraint exclusion removed.  A scan that names no table, or an Append that prunes while it
 * runs (which the arms could not), leaves the reading unknown.
 */
static void
read_plan(Plan *plan, PlanReading *reading)
{
	List	   *children = NIL;
	ListCell   *lc;

	if (plan == NULL)
		return;
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_SampleScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
		case T_ForeignScan:
		case T_CustomScan:
			{
				Index		scanrelid = ((Scan *) plan)->scanrelid;
				RangeTblEntry *rte;

				if (scanrelid == 0 ||
					(rte = rt_fetch(scanrelid, reading->rtable))->rtekind != RTE_RELATION)
				{
					reading->unknown = true;
					return;
				}
				if (!list_member_oid(reading->partitions, rte->relid))
					reading->partitions = lappend_oid(reading->partitions, rte->relid);
				reading->foreign |= rte->relkind == RELKIND_FOREIGN_TABLE;
				return;
			}
		case T_SubqueryScan:
			reading->unknown = true;
			return;
		case T_Append:
			reading->unknown |= PRUNES_WHILE_RUNNING((Append *) plan);
			children = ((Append *) plan)->appendplans;
			break;
		case T_MergeAppend:
			reading->unknown |= PRUNES_WHILE_RUNNING((MergeAppend *) plan);
			children = ((MergeAppend *) plan)->mergeplans;
			break;
		default:
			break;
	}
	foreach(lc, children)
		read_plan((Plan *) lfirst(lc), reading);
	read_plan(plan->lefttree, reading);
	read_plan(plan->righttree, reading);
}

/* A partitioned table's Var as the same column of one partition (attnos: theirs, by column). */
static Node *
var_of_partition(Node *node, void *context)
{
	AttrNumber *attnos = (AttrNumber *) context;

	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) copyObject(node);

		var->varno = 1;
		var->varattno = attnos[var->varattno];
		var->varnosyn = var->varno;
		var->varattnosyn = var->varattno;
		return (Node *) var;
	}
	return expression_tree_mutator(node, var_of_partition, context);
}

/*
 * SELECT <columns> FROM ONLY partition WHERE <quals> ORDER BY <keys> LIMIT <limit>, whose output
 * has the partitioned table's columns in its order: the columns the query uses, and a NULL of the
 * column's type for the others (and for dropped columns).
 */
static Query *
partition_arm(PartitionArmContext *context, Oid partition)
{
	Query	   *arm = makeNode(Query);
	RangeTblEntry *rte = makeNode(RangeTblEntry);
	TupleDesc	desc = context->table_desc;
	Relation	rel = table_open(partition, NoLock);
	TupleDesc	partition_desc = RelationGetDescr(rel);
	AttrNumber *attnos = palloc0(sizeof(AttrNumber) * (desc->natts + 1));
	List	   *colnames = NIL;
	Index		sortref = 0;
	ListCell   *lc;

	for (int i = 0; i < partition_desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(partition_desc, i);

		colnames = lappend(colnames,
						   makeString(pstrdup(att->attisdropped ? "" : NameStr(att->attname))));
	}
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (!att->attisdropped)
			attnos[i + 1] = get_attnum(partition, NameStr(att->attname));
	}

	rte->rtekind = RTE_RELATION;
	rte->relid = partition;
	rte->relkind = rel->rd_rel->relkind;
	rte->rellockmode = context->table->rellockmode;
	rte->inh = false;
	rte->inFromCl = true;
	rte->eref = makeAlias(RelationGetRelationName(rel), colnames);
#if PG_VERSION_NUM >= 160000
	{
		RTEPermissionInfo *perminfo = addRTEPermissionInfo(&arm->rteperminfos, rte);

		/* nothing to check here: the partitioned table's own entry checks the query */
		perminfo->requiredPerms = 0;
		perminfo->checkAsUser = context->check_as_user;
	}
#else
	rte->requiredPerms = 0;
	rte->checkAsUser = context->check_as_user;
#endif
	table_close(rel, NoLock);

	arm->commandType = CMD_SELECT;
	arm->querySource = QSRC_ORIGINAL;
	arm->canSetTag = true;
	arm->rtable = list_make1(rte);
	arm->jointree = makeFromExpr(list_make1(range_table_ref(1)),
								 var_of_partition(copyObject(context->quals), attnos));
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		Expr	   *column;

		if (att->attisdropped)
			column = (Expr *) makeNullConst(INT4OID, -1, InvalidOid);
		else if (!bms_is_member(i + 1 - FirstLowInvalidHeapAttributeNumber,
								context->used_columns))
			column = (Expr *) makeNullConst(att->atttypid, att->atttypmod, att->attcollation);
		else
			column = (Expr *) makeVar(1, attnos[i + 1], att->atttypid, att->atttypmod,
									  att->attcollation, 0);
		arm->targetList = lappend(arm->targetList,
								  makeTargetEntry(column, i + 1,
												  pstrdup(att->attisdropped ? "" :
														  NameStr(att->attname)),
												  false));
	}

	/* The query's keys: a plain column is ordered as the arm's output column, so that the
	 * arms' order is one the Merge Append above can use; an expression as a junk column. */
	foreach(lc, context->parse->sortClause)
	{
		SortGroupClause *clause = copyObject(lfirst_node(SortGroupClause, lc));
		TargetEntry *key = get_sortgroupclause_tle(clause, context->parse->targetList);
		TargetEntry *tle;

		if (IsA(key->expr, Var))
			tle = list_nth_node(TargetEntry, arm->targetList, ((Var *) key->expr)->varattno - 1);
		else
		{
			tle = makeTargetEntry((Expr *) var_of_partition(copyObject((Node *) key->expr),
															attnos),
								  list_length(arm->targetList) + 1, NULL, true);
			arm->targetList = lappend(arm->targetList, tle);
		}
		if (tle->ressortgroupref == 0)
			tle->ressortgroupref = ++sortref;
		clause->tleSortGroupRef = tle->ressortgroupref;
		arm->sortClause = lappend(arm->sortClause, clause);
	}
	arm->limitCount = copyObject(context->limit);
	arm->limitOption = context->parse->limitOption;
	return arm;
}

/* A subquery range table entry over query, named name, with the given column names. */
static RangeTblEntry *
subquery_entry(Query *query, const char *name, List *colnames)
{
	RangeTblEntry *rte = makeNode(RangeTblEntry);

	rte->rtekind = RTE_SUBQUERY;
	rte->subquery = query;
	rte->eref = makeAlias(name, colnames);
	rte->inFromCl = true;
	return rte;
}

/* SELECT * FROM arm 1 UNION ALL SELECT * FROM arm 2 ..., as the parser builds one. */
static Query *
union_all(List *arms, List *colnames)
{
	Query	   *query = makeNode(Query);
	Query	   *first = linitial_node(Query, arms);
	List	   *types = NIL;
	List	   *typmods = NIL;
	List	   *collations = NIL;
	Node	   *tree = NULL;
	ListCell   *lc;

	foreach(lc, first->targetList)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		if (tle->resjunk)
			continue;
		types = lappend_oid(types, exprType((Node *) tle->expr));
		typmods = lappend_int(typmods, exprTypmod((Node *) tle->expr));
		collations = lappend_oid(collations, exprCollation((Node *) tle->expr));
		query->targetList =
			lappend(query->targetList,
					makeTargetEntry((Expr *) makeVar(1, tle->resno,
													 exprType((Node *) tle->expr),
													 exprTypmod((Node *) tle->expr),
													 exprCollation((Node *) tle->expr), 0),
									tle->resno, pstrdup(tle->resname), false));
	}
	foreach(lc, arms)
	{
		Query	   *arm = lfirst_node(Query, lc);
		RangeTblRef *ref;

		query->rtable = lappend(query->rtable,
								subquery_entry(arm, linitial_node(RangeTblEntry,
																  arm->rtable)->eref->aliasname,
											   copyObject(colnames)));
		ref = range_table_ref(list_length(query->rtable));
		if (tree == NULL)
			tree = (Node *) ref;
		else
		{
			SetOperationStmt *op = makeNode(SetOperationStmt);

			op->op = SETOP_UNION;
			op->all = true;
			op->larg = tree;
			op->rarg = (Node *) ref;
			op->colTypes = types;
			op->colTypmods = typmods;
			op->colCollations = collations;
			tree = (Node *) op;
		}
	}
	query->commandType = CMD_SELECT;
	query->querySource = QSRC_ORIGINAL;
	query->canSetTag = true;
	query->jointree = makeFromExpr(NIL, NULL);
	query->setOperations = tree;
	return query;
}

/*
 * Turn the partitioned table of parse into the UNION ALL of one arm per partition.  Its range
 * table entry is kept, outside the join tree, for the privileges the query needs on it.
 */
static void
rewrite_into_arms(Query *parse, Index table_index, List *partitions, Node *limit)
{
	RangeTblEntry *table = rt_fetch(table_index, parse->rtable);
	RangeTblEntry *privileges = copyObject(table);
	Relation	rel = table_open(table->relid, NoLock);
	PartitionArmContext context;
	List	   *arms = NIL;
	List	   *colnames = NIL;
	ListCell   *lc;

	context.parse = parse;
	context.table = table;
	context.table_desc = RelationGetDescr(rel);
	context.quals = parse->jointree->quals;
	context.limit = limit;
	context.used_columns = NULL;
	pull_varattnos((Node *) parse->targetList, table_index, &context.used_columns);
#if PG_VERSION_NUM >= 160000
	context.check_as_user = getRTEPermissionInfo(parse->rteperminfos, table)->checkAsUser;
#else
	context.check_as_user = table->checkAsUser;
#endif
	foreach(lc, partitions)
		arms = lappend(arms, partition_arm(&context, lfirst_oid(lc)));
	foreach(lc, linitial_node(Query, arms)->targetList)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		if (!tle->resjunk)
			colnames = lappend(colnames, makeString(pstrdup(tle->resname)));
	}
	table_close(rel, NoLock);

	privileges->inh = false;
	parse->rtable = lappend(parse->rtable, privileges);
	parse->jointree->quals = NULL;

	table->rtekind = RTE_SUBQUERY;
	table->subquery = list_length(arms) == 1 ? linitial_node(Query, arms) :
		union_all(arms, colnames);
	table->relid = InvalidOid;
	table->relkind = 0;
	table->rellockmode = NoLock;
	table->inh = false;
#if PG_VERSION_NUM >= 160000
	table->perminfoindex = 0;
#else
	table->requiredPerms = 0;
	table->checkAsUser = InvalidOid;
	table->selectedCols = NULL;
	table->insertedCols = NULL;
	table->updatedCols = NULL;
	table->extraUpdatedCols = NULL;
#endif
}

#if PG_VERSION_NUM >= 160000
/*
 * The arms' permission entries check nothing (the partitioned table's entry checks the query);
 * drop them from the plan, as PostgreSQL has none for the partitions it reads.
 */
static void
drop_arm_permissions(PlannedStmt *stmt, List *partitions)
{
	List	   *kept = NIL;
	Index	   *renumbered = palloc0(sizeof(Index) * (list_length(stmt->permInfos) + 1));
	Index		old_index = 0;
	ListCell   *lc;

	foreach(lc, stmt->permInfos)
	{
		RTEPermissionInfo *perminfo = lfirst_node(RTEPermissionInfo, lc);

		old_index++;
		if (perminfo->requiredPerms == 0 && list_member_oid(partitions, perminfo->relid))
			continue;
		kept = lappend(kept, perminfo);
		renumbered[old_index] = list_length(kept);
	}
	foreach(lc, stmt->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->perminfoindex > 0)
			rte->perminfoindex = renumbered[rte->perminfoindex];
	}
	stmt->permInfos = kept;
}
#endif

static PlannedStmt *
radik_partition_limits_planner(Query *parse, const char *query_string, int cursor_options,
							   ParamListInfo bound_params)
{
	Index		table_index;
	RangeTblEntry *table;
	List	   *partitions;
	Node	   *limit;
	PlannedStmt *stmt;
	PlanReading reading;
	bool		any_foreign = false;
	ListCell   *lc;

	if (!radik_enabled || (table_index = partitioned_table_queried(parse)) == 0 ||
		(limit = partition_limit(parse)) == NULL)
		return plan_as_next(parse, query_string, cursor_options, bound_params);

	/*
	 * Foreign partitions, looked for without locking the partitions (PostgreSQL locks only
	 * those pruning keeps: the plan below does); a partition dropped meanwhile has no relkind.
	 */
	table = rt_fetch(table_index, parse->rtable);
	partitions = find_all_inheritors(table->relid, NoLock, NULL);
	foreach(lc, partitions)
		any_foreign |= get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE;
	if (!any_foreign)
		return plan_as_next(parse, query_string, cursor_options, bound_params);

	stmt = plan_as_next(copyObject(parse), query_string, cursor_options, bound_params);
	memset(&reading, 0, sizeof(reading));
	reading.rtable = stmt->rtable;
	read_plan(stmt->planTree, &reading);
	if (!reading.foreign || reading.unknown)
		return stmt;

	rewrite_into_arms(parse, table_index, reading.partitions, limit);
	stmt = plan_as_next(parse, query_string, cursor_options, bound_params);
#if PG_VERSION_NUM >= 160000
	drop_arm_permissions(stmt, reading.partitions);
#endif
	return stmt;
}

void
radik_partition_limits_init(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = radik_partition_limits_planner;
}
