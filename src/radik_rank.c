/*
 * radik_rank.c
 *	  The RadiK Rank custom scan: row_number(), rank() and dense_rank() over rows already in the
 *	  window's order, in place of PostgreSQL's WindowAgg above radik's grouped node.
 *
 * radik's grouped node (radik_group_paths.c) returns each group's best rows sorted by the
 * window's partition and order keys.  PostgreSQL's WindowAgg would number them, but it starts
 * and ends a tuplestore for every partition, which with a million small groups costs more than
 * selecting them.  A ranking function needs none of that: over rows in the window's order,
 * row_number() counts the rows of the partition, rank() is the number of the first row of the
 * current peers (rows equal on every ORDER BY key) and dense_rank() counts the peer groups.  This
 * node computes them from the row before (of which it keeps only the key columns, copying a
 * whole row for every row returned costing more than the comparisons), with the window clause's
 * own equality operators and collations (as WindowAgg compares partitions and peers; keys of
 * types passed by value whose bits are the same need no call, most rows being of the partition
 * and often the peers of the row before), and applies the window's run conditions as its filter,
 * which keeps exactly the rows the WindowAgg would return.  A run condition comparing a function
 * with a bound that no row changes ("rank() <= 3", "$1 >= row_number()") is applied as a
 * comparison of two integers, its bound evaluated once a scan (RankBound); the operator's call
 * for every row cost as much as numbering it.  Where the grouped node makes its rows
 * from their keys, it tells where each row begins a partition or a run of peers by comparing the
 * keys' bits itself (radik_scan_row_boundaries), and the node compares nothing; past the first
 * row it takes those rows' values straight from the grouped node's arrays into its own scan slot
 * (radik_scan_next_key_values), without the child's ExecProcNode, slot and copy for every row;
 * a row equal to the row before in every column (rank() over a key of few values returns long
 * runs of them) is not even made: its output is the row before's again, numbered the same,
 * unless a column of the output is volatile or is row_number(), which changes every row.
 *
 * Its child is the grouped node, whatever it returns: its own rows, or PostgreSQL's sorted rows
 * where its groups passed their memory.  The node has no relation (scanrelid 0): its scan tuple
 * is the child's row followed by one bigint per ranking function (custom_scan_tlist: the child's
 * target list, then the WindowFunc nodes), so that setrefs.c points the target list's and the
 * filter's window functions at those columns.  Once the plan is made, those entries become plain
 * calls of the same functions (describe_rank_functions, which EXPLAIN shows as "row_number()"):
 * they only describe the columns, and PostgreSQL 18's EXPLAIN names a window function's window
 * from the WindowAgg that computes it, failing where there is none.
 *
 * custom_private: three lists per key kind, partition keys then order keys: the key's column in
 * the child's row (integer list), its equality operator and its collation (OID lists); then the
 * ranking function of each added column (OID list of F_ROW_NUMBER, F_RANK_, F_DENSE_RANK_).
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "optimizer/planner.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "radik.h"
#include "radik_rank.h"
#include "radik_scan.h"

#define RADIK_RANK_NAME "RadiK Rank"

/* Positions in custom_private (each key kind's columns, then its operators and collations). */
#define RANK_PRIVATE_PARTITION_KEYS	0
#define RANK_PRIVATE_ORDER_KEYS		3
#define RANK_PRIVATE_FUNCTIONS		6

/*
 * Whether two rows agree on some key columns: their equality operators, compiled; and the
 * columns, where all of them are of types passed by value, whose equal bits make equal values
 * (an equality operator of a btree or hash operator class is reflexive) without calling them.
 */
typedef struct RankMatch
{
	ExprState  *equal;
	int			nbits_columns;	/* 0: not all passed by value */
	AttrNumber *bits_columns;
	AttrNumber	last_column;	/* the highest of them */
} RankMatch;

/*
 * A run condition comparing one ranking function with a bound that no row changes (a constant
 * or a parameter of the query), such as "rank() <= 3": applied by comparing two integers,
 * without calling the operator for every row.
 */
typedef struct RankBound
{
	int			function;		/* the function's index in functions */
	int			strategy;		/* the btree strategy, the function on the left */
	ExprState  *expr;			/* the bound */
	Oid			type;			/* int2, int4 or int8 */
	bool		null;			/* its value in this scan: NULL, which no row passes */
	int64		value;
} RankBound;

typedef struct RadikRankState
{
	CustomScanState css;
	PlanState  *child;
	int			child_columns;
	int			nfunctions;
	Oid		   *functions;		/* F_ROW_NUMBER, F_RANK_ or F_DENSE_RANK_ */
	RankMatch  *same_partition; /* NULL: no PARTITION BY */
	RankMatch  *same_peers;		/* NULL: no rank() or dense_rank() */
	ExprContext *match_context; /* for the two above */
	int			nbounds;		/* the run conditions on bounds; the others are the qual */
	RankBound  *bounds;
	bool		bounds_evaluated;	/* in this scan */
	bool		child_boundaries;	/* the child tells where they change (radik_scan.h) */
	bool		repeats_output; /* a row equal to the row before numbered the same gives the
								 * same output (no row_number(), nothing volatile) */
	bool		returned_previous;	/* the row before passed the filter */
	TupleTableSlot *previous;	/* the keys of the child's row before (a virtual slot) */
	bool		have_previous;
	int			nkey_columns;	/* the columns of previous that the matches read */
	AttrNumber *key_columns;
	bool		keys_by_reference;	/* some of them are copied into previous_context */
	MemoryContext previous_context;
	int64		row_number;
	int64		rank;
	int64		dense_rank;
} RadikRankState;

static Plan *rank_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
					   List *clauses, List *custom_plans);
static Node *rank_create_state(CustomScan *cscan);
static void rank_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *rank_exec(CustomScanState *node);
static void rank_end(CustomScanState *node);
static void rank_rescan(CustomScanState *node);

static const CustomPathMethods rank_path_methods = {
	.CustomName = RADIK_RANK_NAME,
	.PlanCustomPath = rank_plan,
};

/* Registered by name so that plans can be copied and serialized. */
static const CustomScanMethods rank_scan_methods = {
	.CustomName = RADIK_RANK_NAME,
	.CreateCustomScanState = rank_create_state,
};

static const CustomExecMethods rank_exec_methods = {
	.CustomName = RADIK_RANK_NAME,
	.BeginCustomScan = rank_begin,
	.ExecCustomScan = rank_exec,
	.EndCustomScan = rank_end,
	.ReScanCustomScan = rank_rescan,
};

static planner_hook_type prev_planner_hook = NULL;

/* Plans of this node made by this backend, to tell whether a planning made one. */
static uint64 rank_plans_made = 0;

/*
 * In each RadiK Rank node under plan, make the window functions of custom_scan_tlist plain
 * calls of the same functions (which EXPLAIN shows as "row_number()").
 */
static void
describe_rank_functions(Plan *plan)
{
	ListCell   *lc;

	if (plan == NULL)
		return;
	check_stack_depth();
	if (IsA(plan, CustomScan))
	{
		CustomScan *cscan = (CustomScan *) plan;

		if (cscan->methods == &rank_scan_methods)
			foreach(lc, cscan->custom_scan_tlist)
			{
				TargetEntry *tle = lfirst_node(TargetEntry, lc);

				if (IsA(tle->expr, WindowFunc))
				{
					WindowFunc *wfunc = (WindowFunc *) tle->expr;

					tle->expr = (Expr *) makeFuncExpr(wfunc->winfnoid, wfunc->wintype, NIL,
													  InvalidOid, InvalidOid,
													  COERCE_EXPLICIT_CALL);
				}
			}
		foreach(lc, cscan->custom_plans)
			describe_rank_functions(lfirst(lc));
	}
	else if (IsA(plan, Append))
		foreach(lc, ((Append *) plan)->appendplans)
			describe_rank_functions(lfirst(lc));
	else if (IsA(plan, MergeAppend))
		foreach(lc, ((MergeAppend *) plan)->mergeplans)
			describe_rank_functions(lfirst(lc));
	else if (IsA(plan, SubqueryScan))
		describe_rank_functions(((SubqueryScan *) plan)->subplan);
	describe_rank_functions(plan->lefttree);
	describe_rank_functions(plan->righttree);
}

static PlannedStmt *
rank_planner(Query *parse, const char *query_string, int cursor_options,
			 ParamListInfo bound_params)
{
	uint64		made_before = rank_plans_made;
	PlannedStmt *stmt;
	ListCell   *lc;

	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursor_options, bound_params);
	else
		stmt = standard_planner(parse, query_string, cursor_options, bound_params);
	if (rank_plans_made != made_before)
	{
		describe_rank_functions(stmt->planTree);
		foreach(lc, stmt->subplans)
			describe_rank_functions(lfirst(lc));
	}
	return stmt;
}

void
radik_rank_init(void)
{
	RegisterCustomScanMethods(&rank_scan_methods);
	prev_planner_hook = planner_hook;
	planner_hook = rank_planner;
}

/* Is plan a RadiK Rank node? */
bool
radik_is_rank_plan(Plan *plan)
{
	return IsA(plan, CustomScan) && ((CustomScan *) plan)->methods == &rank_scan_methods;
}

Path *
radik_make_rank_path(RelOptInfo *window_rel, WindowAggPath *window, Path *subpath,
					 List *run_conditions)
{
	CustomPath *path = makeNode(CustomPath);
	WindowClause *clause = window->winclause;
	double		comparisons = list_length(clause->partitionClause) +
		list_length(clause->orderClause);

	path->path.pathtype = T_CustomScan;
	path->path.parent = window_rel;
	path->path.pathtarget = window->path.pathtarget;
	path->path.parallel_safe = window->path.parallel_safe && subpath->parallel_safe;
	path->path.rows = subpath->rows;
#if PG_VERSION_NUM >= 180000
	path->path.disabled_nodes = subpath->disabled_nodes;
#endif
	path->path.startup_cost = subpath->startup_cost;
	path->path.total_cost = subpath->total_cost +
		subpath->rows * (cpu_tuple_cost + comparisons * cpu_operator_cost +
						 window->path.pathtarget->cost.per_tuple);
	path->path.pathkeys = window->path.pathkeys;
	path->custom_paths = list_make1(subpath);
	path->custom_private = list_make2(clause, run_conditions);
	path->methods = &rank_path_methods;
	return &path->path;
}

/* Collect into *context (a List of WindowFunc) each window function of node, once. */
static bool
collect_window_functions(Node *node, List **context)
{
	if (node == NULL)
		return false;
	if (IsA(node, WindowFunc))
	{
		if (!list_member(*context, node))
			*context = lappend(*context, node);
		return false;
	}
	return expression_tree_walker(node, collect_window_functions, context);
}

/* Append to private the columns of keys in child_tlist, their equality operators, collations. */
static List *
add_key_lists(List *private, List *keys, List *child_tlist)
{
	List	   *columns = NIL;
	List	   *operators = NIL;
	List	   *collations = NIL;
	ListCell   *lc;

	foreach(lc, keys)
	{
		SortGroupClause *key = lfirst_node(SortGroupClause, lc);
		TargetEntry *tle = get_sortgroupclause_tle(key, child_tlist);

		columns = lappend_int(columns, tle->resno);
		operators = lappend_oid(operators, key->eqop);
		collations = lappend_oid(collations, exprCollation((Node *) tle->expr));
	}
	return lappend(lappend(lappend(private, columns), operators), collations);
}

/*
 * PlanCustomPath: tlist is the window's target; the run conditions become the node's filter.
 * The child's target list (labelled with the sort group references, as create_plan builds it
 * for an exact target list) gives the keys' columns.
 */
static Plan *
rank_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
		  List *clauses, List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *child = linitial(custom_plans);
	WindowClause *clause = linitial(best_path->custom_private);
	List	   *run_conditions = lsecond(best_path->custom_private);
	List	   *functions = NIL;
	List	   *function_oids = NIL;
	List	   *private = NIL;
	ListCell   *lc;

	collect_window_functions((Node *) tlist, &functions);
	collect_window_functions((Node *) run_conditions, &functions);

	cscan->custom_scan_tlist = NIL;
	foreach(lc, child->targetlist)
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		cscan->custom_scan_tlist =
			lappend(cscan->custom_scan_tlist,
					makeTargetEntry(copyObject(tle->expr),
									list_length(cscan->custom_scan_tlist) + 1, NULL, false));
	}
	foreach(lc, functions)
	{
		WindowFunc *wfunc = lfirst_node(WindowFunc, lc);

		cscan->custom_scan_tlist =
			lappend(cscan->custom_scan_tlist,
					makeTargetEntry((Expr *) copyObject(wfunc),
									list_length(cscan->custom_scan_tlist) + 1, NULL, false));
		function_oids = lappend_oid(function_oids, wfunc->winfnoid);
	}

	private = add_key_lists(private, clause->partitionClause, child->targetlist);
	private = add_key_lists(private, clause->orderClause, child->targetlist);
	private = lappend(private, function_oids);

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = copyObject(run_conditions);
	cscan->scan.scanrelid = 0;
	cscan->custom_plans = custom_plans;
	cscan->custom_private = private;
	cscan->methods = &rank_scan_methods;
	rank_plans_made++;
	return &cscan->scan.plan;
}

static Node *
rank_create_state(CustomScan *cscan)
{
	RadikRankState *state = palloc0(sizeof(RadikRankState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &rank_exec_methods;
	return (Node *) state;
}

/*
 * What tells whether two rows of desc agree on the keys of custom_private at first; their
 * columns are added to *columns_read.
 */
static RankMatch *
prepare_match(List *private, int first, TupleDesc desc, PlanState *parent,
			  Bitmapset **columns_read)
{
	RankMatch  *match;
	bool		by_value = true;
	List	   *columns = list_nth(private, first);
	List	   *operators = list_nth(private, first + 1);
	List	   *collations = list_nth(private, first + 2);
	int			ncolumns = list_length(columns);
	AttrNumber *column_numbers;
	Oid		   *operator_oids;
	Oid		   *collation_oids;
	int			i;

	if (ncolumns == 0)
		return NULL;
	column_numbers = palloc(ncolumns * sizeof(AttrNumber));
	operator_oids = palloc(ncolumns * sizeof(Oid));
	collation_oids = palloc(ncolumns * sizeof(Oid));
	for (i = 0; i < ncolumns; i++)
	{
		column_numbers[i] = list_nth_int(columns, i);
		*columns_read = bms_add_member(*columns_read, column_numbers[i]);
		operator_oids[i] = list_nth_oid(operators, i);
		collation_oids[i] = list_nth_oid(collations, i);
		by_value &= TupleDescAttr(desc, column_numbers[i] - 1)->attbyval;
	}
	match = palloc0(sizeof(RankMatch));
	match->equal = execTuplesMatchPrepare(desc, ncolumns, column_numbers, operator_oids,
										  collation_oids, parent);
	if (by_value)
	{
		match->nbits_columns = ncolumns;
		match->bits_columns = column_numbers;
		for (i = 0; i < ncolumns; i++)
			match->last_column = Max(match->last_column, column_numbers[i]);
	}
	return match;
}

/* The index in functions of the ranking function that node (a column of the scan tuple) is. */
static int
function_of(RadikRankState *state, Node *node)
{
	while (IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (IsA(node, Var) && ((Var *) node)->varno == INDEX_VAR &&
		((Var *) node)->varattno > state->child_columns &&
		((Var *) node)->varattno <= state->child_columns + state->nfunctions)
		return ((Var *) node)->varattno - state->child_columns - 1;
	return -1;
}

/* Is clause "function op bound" or "bound op function", an integer comparison?  Into *bound. */
static bool
read_bound(RadikRankState *state, Node *clause, RankBound *bound)
{
	OpExpr	   *op = (OpExpr *) clause;
	Node	   *left;
	Node	   *right;
	Node	   *other;
	bool		function_left;

	if (!IsA(clause, OpExpr) || list_length(op->args) != 2)
		return false;
	left = linitial(op->args);
	right = lsecond(op->args);
	function_left = function_of(state, left) >= 0;
	if (!function_left && function_of(state, right) < 0)
		return false;
	other = function_left ? right : left;
	bound->function = function_of(state, function_left ? left : right);
	bound->type = exprType(other);
	bound->strategy = get_op_opfamily_strategy(op->opno, INTEGER_BTREE_FAM_OID);
	if (bound->strategy == InvalidStrategy ||
		(bound->type != INT8OID && bound->type != INT4OID && bound->type != INT2OID) ||
		contain_var_clause(other) || contain_volatile_functions(other))
		return false;
	if (!function_left)
		bound->strategy = BTMaxStrategyNumber + 1 - bound->strategy;	/* < for >, <= for >= */
	bound->expr = ExecInitExpr((Expr *) other, &state->css.ss.ps);
	return true;
}

/* The node's qual (the window's run conditions): its comparisons with bounds, then the rest. */
static void
prepare_bounds(RadikRankState *state, List *qual)
{
	List	   *others = NIL;
	ListCell   *lc;

	state->bounds = palloc(Max(list_length(qual), 1) * sizeof(RankBound));
	foreach(lc, qual)
	{
		if (read_bound(state, lfirst(lc), &state->bounds[state->nbounds]))
			state->nbounds++;
		else
			others = lappend(others, lfirst(lc));
	}
	state->css.ss.ps.qual = ExecInitQual(others, &state->css.ss.ps);
}

static void
evaluate_bounds(RadikRankState *state)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;

	for (int i = 0; i < state->nbounds; i++)
	{
		RankBound  *bound = &state->bounds[i];
		Datum		value = ExecEvalExprSwitchContext(bound->expr, econtext, &bound->null);

		bound->value = bound->null ? 0 :
			bound->type == INT8OID ? DatumGetInt64(value) :
			bound->type == INT4OID ? DatumGetInt32(value) : DatumGetInt16(value);
	}
	state->bounds_evaluated = true;
}

/* Does the numbered row in slot pass every comparison with a bound? */
static bool
within_bounds(RadikRankState *state, TupleTableSlot *slot)
{
	for (int i = 0; i < state->nbounds; i++)
	{
		RankBound  *bound = &state->bounds[i];
		int64		value = DatumGetInt64(slot->tts_values[state->child_columns +
														  bound->function]);
		bool		passes;

		if (bound->null)
			return false;
		switch (bound->strategy)
		{
			case BTLessStrategyNumber:
				passes = value < bound->value;
				break;
			case BTLessEqualStrategyNumber:
				passes = value <= bound->value;
				break;
			case BTEqualStrategyNumber:
				passes = value == bound->value;
				break;
			case BTGreaterEqualStrategyNumber:
				passes = value >= bound->value;
				break;
			default:
				passes = value > bound->value;
				break;
		}
		if (!passes)
			return false;
	}
	return true;
}

static void
rank_begin(CustomScanState *node, EState *estate, int eflags)
{
	RadikRankState *state = (RadikRankState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *private = cscan->custom_private;
	List	   *functions = list_nth(private, RANK_PRIVATE_FUNCTIONS);
	TupleDesc	child_desc;
	bool		peers_needed = false;
	Bitmapset  *columns_read = NULL;
	int			column = -1;
	int			i;

	state->child = ExecInitNode(linitial(cscan->custom_plans), estate, eflags);
	node->custom_ps = list_make1(state->child);
	child_desc = ExecGetResultType(state->child);
	state->child_columns = child_desc->natts;

	state->nfunctions = list_length(functions);
	state->functions = palloc(Max(state->nfunctions, 1) * sizeof(Oid));
	for (i = 0; i < state->nfunctions; i++)
	{
		state->functions[i] = list_nth_oid(functions, i);
		peers_needed |= state->functions[i] != F_ROW_NUMBER;
	}

	state->same_partition = prepare_match(private, RANK_PRIVATE_PARTITION_KEYS, child_desc,
										  &node->ss.ps, &columns_read);
	if (peers_needed)
		state->same_peers = prepare_match(private, RANK_PRIVATE_ORDER_KEYS, child_desc,
										  &node->ss.ps, &columns_read);
	state->match_context = CreateExprContext(estate);
	prepare_bounds(state, cscan->scan.plan.qual);
	state->child_boundaries =
		list_length(list_nth(private, RANK_PRIVATE_PARTITION_KEYS)) == 1 &&
		list_length(list_nth(private, RANK_PRIVATE_ORDER_KEYS)) == 1 &&
		radik_scan_knows_boundaries(state->child,
									linitial_int(list_nth(private, RANK_PRIVATE_PARTITION_KEYS)),
									linitial_int(list_nth(private, RANK_PRIVATE_ORDER_KEYS)));

	state->repeats_output = !contain_volatile_functions((Node *) cscan->scan.plan.targetlist) &&
		!contain_volatile_functions((Node *) cscan->scan.plan.qual);
	for (i = 0; i < state->nfunctions; i++)
		state->repeats_output &= state->functions[i] != F_ROW_NUMBER;

	/* the row before: its key columns alone, the others NULL */
	state->previous = ExecInitExtraTupleSlot(estate, child_desc, &TTSOpsVirtual);
	memset(state->previous->tts_isnull, true, child_desc->natts * sizeof(bool));
	state->key_columns = palloc(Max(bms_num_members(columns_read), 1) * sizeof(AttrNumber));
	while ((column = bms_next_member(columns_read, column)) >= 0)
	{
		state->key_columns[state->nkey_columns++] = column;
		state->keys_by_reference |= !TupleDescAttr(child_desc, column - 1)->attbyval;
	}
	state->previous_context = AllocSetContextCreate(CurrentMemoryContext, "RadiK Rank keys",
													ALLOCSET_SMALL_SIZES);
}

/* Keep the key columns of a row (its values and nulls, by column) as the row before. */
static void
remember_keys(RadikRankState *state, const Datum *values, const bool *nulls)
{
	TupleTableSlot *previous = state->previous;
	TupleDesc	desc = previous->tts_tupleDescriptor;
	MemoryContext caller;
	int			i;

	/* values passed by value: copied in place, the slot staying stored */
	if (!state->keys_by_reference && !TTS_EMPTY(previous))
	{
		for (i = 0; i < state->nkey_columns; i++)
		{
			int			column = state->key_columns[i] - 1;

			previous->tts_isnull[column] = nulls[column];
			previous->tts_values[column] = values[column];
		}
		return;
	}
	ExecClearTuple(previous);
	if (state->keys_by_reference)
		MemoryContextReset(state->previous_context);
	caller = MemoryContextSwitchTo(state->previous_context);
	for (i = 0; i < state->nkey_columns; i++)
	{
		int			column = state->key_columns[i] - 1;
		Form_pg_attribute attribute = TupleDescAttr(desc, column);

		previous->tts_isnull[column] = nulls[column];
		previous->tts_values[column] = nulls[column] ? (Datum) 0 :
			datumCopy(values[column], attribute->attbyval, attribute->attlen);
	}
	MemoryContextSwitchTo(caller);
	ExecStoreVirtualTuple(previous);
}

/* Do row and the row before agree on match's keys? */
static bool
rows_match(RadikRankState *state, RankMatch *match, TupleTableSlot *row)
{
	ExprContext *econtext = state->match_context;
	TupleTableSlot *previous = state->previous;
	int			i;

	/* the same bits (or both NULL) in every column: equal, without the operators */
	if (match->nbits_columns > 0)
	{
		slot_getsomeattrs(row, match->last_column);
		for (i = 0; i < match->nbits_columns; i++)
		{
			int			column = match->bits_columns[i] - 1;

			if (row->tts_isnull[column] != previous->tts_isnull[column] ||
				(!row->tts_isnull[column] &&
				 row->tts_values[column] != previous->tts_values[column]))
				break;
		}
		if (i == match->nbits_columns)
			return true;
	}
	econtext->ecxt_innertuple = row;
	econtext->ecxt_outertuple = previous;
	return ExecQualAndReset(match->equal, econtext);
}

/*
 * The child's next row in the scan slot, its columns first: made from its keys by the grouped
 * node without a slot of its own where it can (radik_scan_next_key_values), else the row
 * ExecProcNode returns, copied.  Says whether the child told where the row begins a partition
 * or a run of peers, and whether the row is the row before again (*same_row: equal in every
 * column, the scan slot's values left as they were); false at the end, with the scan slot
 * empty.
 */
static bool
next_child_row(RadikRankState *state, bool *boundaries_known, bool *new_partition,
			   bool *new_peers, bool *same_row)
{
	TupleTableSlot *scan_slot = state->css.ss.ss_ScanTupleSlot;
	TupleTableSlot *row;

	/* a slot made to own its values (materialized above) frees them when cleared */
	bool		values_kept = !TTS_SHOULDFREE(scan_slot);

	ExecClearTuple(scan_slot);
	*boundaries_known = false;
	*same_row = false;
	if (state->child_boundaries && state->have_previous)
	{
		switch (radik_scan_next_key_values(state->child, scan_slot->tts_values,
										   scan_slot->tts_isnull, values_kept, new_partition,
										   new_peers))
		{
			case RADIK_KEY_VALUES_END:
				return false;
			case RADIK_KEY_VALUES_SAME_ROW:
				*same_row = true;
				/* FALLTHROUGH */
			case RADIK_KEY_VALUES_ROW:
				*boundaries_known = true;
				ExecStoreVirtualTuple(scan_slot);
				return true;
			case RADIK_KEY_VALUES_ROW_ALONE:
				ExecStoreVirtualTuple(scan_slot);
				return true;
			case RADIK_KEY_VALUES_NONE:
				break;
		}
	}

	row = ExecProcNode(state->child);
	if (TupIsNull(row))
		return false;
	*boundaries_known = state->child_boundaries && state->have_previous &&
		radik_scan_row_boundaries(state->child, new_partition, new_peers);
	slot_getallattrs(row);
	memcpy(scan_slot->tts_values, row->tts_values, state->child_columns * sizeof(Datum));
	memcpy(scan_slot->tts_isnull, row->tts_isnull, state->child_columns * sizeof(bool));
	ExecStoreVirtualTuple(scan_slot);
	return true;
}

/*
 * The child's next row with its ranking functions' values, in the scan slot; NULL at the end.
 * *same_row: the row before again, numbered after it.
 */
static TupleTableSlot *
next_numbered_row(RadikRankState *state, bool *same_row)
{
	TupleTableSlot *scan_slot = state->css.ss.ss_ScanTupleSlot;
	bool		boundaries_known;
	bool		new_partition = false;
	bool		new_peers = false;
	int			i;

	if (!next_child_row(state, &boundaries_known, &new_partition, &new_peers, same_row))
		return NULL;

	/* the child's word where it has it, else the keys compared with the row before */
	if (state->have_previous && !boundaries_known)
	{
		new_partition = state->same_partition != NULL &&
			!rows_match(state, state->same_partition, scan_slot);
		new_peers = !new_partition && state->same_peers != NULL &&
			!rows_match(state, state->same_peers, scan_slot);
	}
	if (!state->have_previous || new_partition)
	{
		state->row_number = 1;
		state->rank = 1;
		state->dense_rank = 1;
	}
	else
	{
		state->row_number++;
		if (new_peers)
		{
			state->rank = state->row_number;
			state->dense_rank++;
		}
	}
	if (state->nkey_columns > 0 && !*same_row)
		remember_keys(state, scan_slot->tts_values, scan_slot->tts_isnull);
	state->have_previous = true;

	for (i = 0; i < state->nfunctions; i++)
	{
		int64		value = state->functions[i] == F_ROW_NUMBER ? state->row_number :
			state->functions[i] == F_RANK_ ? state->rank : state->dense_rank;

		scan_slot->tts_values[state->child_columns + i] = Int64GetDatum(value);
		scan_slot->tts_isnull[state->child_columns + i] = false;
	}
	return scan_slot;
}

static TupleTableSlot *
rank_exec(CustomScanState *node)
{
	RadikRankState *state = (RadikRankState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	ExprState  *qual = node->ss.ps.qual;
	ProjectionInfo *projection = node->ss.ps.ps_ProjInfo;

	for (;;)
	{
		TupleTableSlot *slot;
		bool		same_row;

		CHECK_FOR_INTERRUPTS();
		slot = next_numbered_row(state, &same_row);
		if (slot == NULL)
			return projection != NULL ? ExecClearTuple(projection->pi_state.resultslot) :
				ExecClearTuple(node->ss.ss_ScanTupleSlot);

		/*
		 * The row before again with the same numbers: the filter says what it said, and the
		 * output slot (whose values the expression context's memory still holds) is the output,
		 * unless the caller cleared it
		 */
		if (same_row && state->repeats_output)
		{
			if (!state->returned_previous)
			{
				InstrCountFiltered1(node, 1);
				continue;
			}
			if (projection == NULL)
				return slot;
			if (!TTS_EMPTY(projection->pi_state.resultslot))
				return projection->pi_state.resultslot;
		}
		ResetExprContext(econtext);
		econtext->ecxt_scantuple = slot;
		if (!state->bounds_evaluated)
			evaluate_bounds(state);
		state->returned_previous = within_bounds(state, slot) &&
			(qual == NULL || ExecQual(qual, econtext));
		if (!state->returned_previous)
		{
			InstrCountFiltered1(node, 1);
			continue;
		}
		return projection != NULL ? ExecProject(projection) : slot;
	}
}

static void
rank_end(CustomScanState *node)
{
	RadikRankState *state = (RadikRankState *) node;

	ExecEndNode(state->child);
	MemoryContextDelete(state->previous_context);
}

static void
rank_rescan(CustomScanState *node)
{
	RadikRankState *state = (RadikRankState *) node;

	state->have_previous = false;
	state->bounds_evaluated = false;
	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(state->child, node->ss.ps.chgParam);
	if (state->child->chgParam == NULL)
		ExecReScan(state->child);
}
