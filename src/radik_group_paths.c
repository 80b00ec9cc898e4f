/*
 * radik_group_paths.c
 *	  The planner side of "the best rows of each group": radik's node under a ranking window
 *	  function's run condition and under DISTINCT ON.
 *
 * PostgreSQL answers "the top 3 rows per category" by sorting every row by (group, key) and
 * numbering them in a WindowAgg, whose run condition (PostgreSQL 15 turns WHERE r <= 3 over a
 * row_number(), rank() or dense_rank() into one) then drops the rows past the cut; DISTINCT ON
 * sorts every row and keeps the first of each group.  Both need only each group's first rows in
 * the sort order.  radik's node, in its grouped form, reads the table once, keeps the best rows
 * of each group (radik_group_set.c) and returns them sorted as the Sort would; the numbering above
 * it (radik_rank.c, in place of the WindowAgg), or for DISTINCT ON the node itself keeping each
 * group's first row (in place of the Unique, whose copy of every row it reads costs a tenth of a
 * million groups' query), then computes exactly what PostgreSQL computes over every row, because
 * the rows kept are a prefix of each group: the ranks of those rows depend only on the rows
 * before them.
 *
 * Where: at the window stage, when the query's only window is one WindowAgg over the table whose
 * functions are all row_number(), rank() and dense_rank() and it has a run condition on one of
 * them (the count, k, is a constant or a query parameter); at the distinct stage, for DISTINCT ON
 * over the table with an ORDER BY that goes on after the DISTINCT ON expressions (k = 1).  The
 * path puts radik's numbering over radik's node instead of the WindowAgg over the Sort (or
 * radik's node alone instead of the Unique over the Sort).  radik declines where the reduction
 * could change an answer or is not worth it: other window functions (count(*) OVER and the like
 * see every row of a group), several windows, volatile or unsupported keys (the first sort key
 * after the groups is radik's kind of key; the group keys need a hash function, as for hash
 * aggregation), grouping and aggregates, and group keys the planner takes to be unique (every
 * row its own group: nothing to select).
 *
 * The groups' kept rows must fit the memory of a hash table (work_mem times hash_mem_multiplier):
 * k a group, plus the rows tied at its cut (rank() over a key of ten values keeps a tenth of each
 * group).  row_number() and DISTINCT ON keep no rows tied with the k-th where the selecting key is
 * the last sort key and exact (RADIK_GROUP_CUT_EXACT_ROWS): rows equal on every sort key are
 * peers, which PostgreSQL's sort returns in no particular order, so any k of them are its answer
 * (a top 3 by an integer rating of thousands of rows a group keeps 3, not every row rated 5).
 * radik trusts the planner's count of groups, and of keys within them, where it is of values
 * ANALYZE's sample saw (at most its 300 x default_statistics_target rows), and declines where
 * their rows would not fit.  A larger count is no guide: PostgreSQL counts an expression
 * without statistics of its own (PARTITION BY id / 50) as having as many groups as its columns,
 * and extrapolates many distinct values from its sample far beyond the truth (44 million groups
 * for the million of id / 50 in 50 million rows; 16 million with a sample of 3 million).  Such a
 * path is costed as the most groups that fit, and the memory check at run time decides.  Any
 * estimate can also be too low (PostgreSQL takes 200 groups for a key without statistics), so
 * the path holds PostgreSQL's own sorted path of the rows as its child, which the node returns
 * instead where its groups pass that memory (radik_scan.c); what that costs is the part of one
 * scan that filled the memory, less than the sort of every row that PostgreSQL's plan does.
 *
 * Where the table allows parallel workers, the node is offered with them and without: the
 * planner's count of groups, too high as above, makes what the workers send look dear, and
 * PostgreSQL's plan without workers must not win for want of radik's.
 */
#include "postgres.h"

#include <math.h>

#include "access/stratnum.h"
#include "catalog/pg_am.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/vacuum.h"
#include "executor/nodeHash.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/tlist.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"

#include "radik_compat.h"
#include "radik_datum_keys.h"
#include "radik_declines.h"
#include "radik_groups.h"
#include "radik_key_mapper.h"
#include "radik_key_rows.h"
#include "radik_paths.h"
#include "radik_rank.h"
#include "radik_settings.h"

/* A group's bookkeeping in memory, and a kept row's (radik_group_set.c), for the memory check. */
#define GROUP_BYTES 160.0
#define KEPT_ROW_BYTES 32.0

/* Is expr made of scan_rel's own columns alone, and safe to compute for every row? */
static bool
expr_of_table(Expr *expr, RelOptInfo *scan_rel)
{
	Relids		relids = pull_varnos(NULL, (Node *) expr);

	return bms_is_subset(relids, scan_rel->relids) &&
		!contain_volatile_functions((Node *) expr) &&
		!contain_subplans((Node *) expr) &&
		!contain_agg_clause((Node *) expr) &&
		!contain_window_function((Node *) expr);
}

/*
 * The sort key a SortGroupClause of the query orders by, as a RadikPlannedKey; false where it is
 * not a key of the table.
 */
static bool
planned_key(PlannerInfo *root, RelOptInfo *scan_rel, SortGroupClause *clause,
			RadikPlannedKey *key)
{
	Oid			opfamily;
	Oid			opcintype;
	CompareType strategy;

	key->expr = (Expr *) get_sortgroupclause_expr(clause, root->processed_tlist);
	if (!expr_of_table(key->expr, scan_rel) || !OidIsValid(clause->sortop) ||
		!get_ordering_op_properties(clause->sortop, &opfamily, &opcintype, &strategy))
		return false;
	key->type = exprType((Node *) key->expr);
	key->sort_operator = clause->sortop;
	key->collation = exprCollation((Node *) key->expr);
	key->descending = strategy == COMPARE_GT;
	key->nulls_first = clause->nulls_first;
	return true;
}

/*
 * Can radik select by key (the first sort key after the groups): a type radik orders under the
 * sort's collation (radik_key_orderable: text in "C" or ICU, uuid, enums, ...), in the type's
 * default btree order?  A key whose engine key only summarizes its value keeps each group's
 * rows tied with the k-th on that summary (RADIK_GROUP_CUT_ROWS), or the rows of its first k
 * distinct summaries (RADIK_GROUP_CUT_DISTINCT): a superset of the rows the window functions
 * need, which the sort above radik's node orders exactly.
 */
static bool
selecting_key_supported(const RadikPlannedKey *key)
{
	Oid			opclass;
	Oid			opfamily;
	Oid			opcintype;
	CompareType strategy;

	if (!radik_key_orderable(key->type, key->collation, key->sort_operator, NULL))
		return false;
	opclass = GetDefaultOpClass(key->type, BTREE_AM_OID);
	return OidIsValid(opclass) &&
		get_ordering_op_properties(key->sort_operator, &opfamily, &opcintype, &strategy) &&
		opfamily == get_opclass_family(opclass);
}

/*
 * The group keys of clauses (PARTITION BY or DISTINCT ON) into groups; false where one is not a
 * hashable key of the table.
 */
static bool
planned_groups(PlannerInfo *root, RelOptInfo *scan_rel, List *clauses, RadikPlannedGroups *groups)
{
	ListCell   *lc;

	if (clauses == NIL || list_length(clauses) > INDEX_MAX_KEYS)
		return false;
	foreach(lc, clauses)
	{
		SortGroupClause *clause = lfirst_node(SortGroupClause, lc);
		Expr	   *expr = (Expr *) get_sortgroupclause_expr(clause, root->processed_tlist);

		if (!expr_of_table(expr, scan_rel) || !radik_group_key_hashable(clause->eqop))
			return false;
		groups->exprs = lappend(groups->exprs, expr);
		groups->equality_operators = lappend_oid(groups->equality_operators, clause->eqop);
		groups->collations = lappend_oid(groups->collations, exprCollation((Node *) expr));
	}
	return true;
}

/* The count a run condition's bound gives, when known at plan time; else -1. */
static double
estimated_count(PlannerInfo *root, Expr *bound, bool exclusive)
{
	Node	   *value = estimate_expression_value(root, (Node *) bound);
	Const	   *constant;
	double		count;

	if (!IsA(value, Const) || ((Const *) value)->constisnull)
		return -1;
	constant = (Const *) value;
	switch (constant->consttype)
	{
		case INT2OID:
			count = DatumGetInt16(constant->constvalue);
			break;
		case INT4OID:
			count = DatumGetInt32(constant->constvalue);
			break;
		default:
			count = (double) DatumGetInt64(constant->constvalue);
			break;
	}
	return Max(count - (exclusive ? 1 : 0), 0);
}

/*
 * Is one of exprs unique by the planner's statistics (a unique index, or no value repeated in
 * ANALYZE's sample), so that every row is its own group?
 */
static bool
groups_unique(PlannerInfo *root, List *exprs)
{
	ListCell   *lc;

	foreach(lc, exprs)
	{
		VariableStatData vardata;
		bool		isdefault;
		double		ndistinct;
		double		tuples;

		examine_variable(root, (Node *) lfirst(lc), 0, &vardata);
		ndistinct = get_variable_numdistinct(&vardata, &isdefault);
		tuples = vardata.rel != NULL ? vardata.rel->tuples : 0;
		ReleaseVariableStats(vardata);
		if (!isdefault && tuples > 1 && ndistinct >= tuples)
			return true;
	}
	return false;
}

/* Would ngroups groups keeping kept rows pass the memory of a hash table? */
static bool
groups_pass_memory(double ngroups, double kept)
{
	return ngroups * GROUP_BYTES + kept * KEPT_ROW_BYTES > (double) get_hash_memory_limit();
}

/*
 * The costs of a grouped path reading scan_rel: a scan that runs the quals, computes the
 * selecting key and the group key of every row and finds its group (a hash lookup), then the
 * kept rows fetched and sorted by all keys.  Returns false where the group keys are unique by
 * the planner's statistics, or its trusted estimate of the groups' rows passes their memory.
 */
static bool
cost_group_path(PlannerInfo *root, RelOptInfo *scan_rel, CustomPath *path, List *quals,
				const RadikPlannedKey *selecting, const RadikPlannedGroups *groups,
				double count, bool ties_counted, int workers)
{
	double		tuples = Max(scan_rel->tuples, 1);
	double		rows = Max(scan_rel->rows, 1);
	double		ngroups = estimate_num_groups(root, groups->exprs, rows, NULL, NULL);
	/* the rows ANALYZE samples at the default statistics target */
	double		sample_rows = 300.0 * default_statistics_target;
	double		keys_in_groups;
	double		rows_per_key;
	double		kept_per_group;
	double		kept;
	double		held_per_group;
	double		held;
	double		spc_seq_page_cost;
	QualCost	qual_cost;
	QualCost	key_cost;
	QualCost	group_cost;
	Cost		per_row;
	Cost		startup;

	if (count < 0)
		count = 10;				/* a parameter: a guess */
	count = Max(count, 1.0);
	if (groups_unique(root, groups->exprs))
	{
		radik_decline("the best rows of each group: every row is its own group by the planner's statistics");
		return false;
	}

	/*
	 * A group keeps the rows tied at its cut: those of its k-th key beyond the k-th row (none for
	 * RADIK_GROUP_CUT_EXACT_ROWS), or every row of its k keys for dense_rank(); about the rows a
	 * key has in a group.
	 */
	keys_in_groups = estimate_num_groups(root, lappend(list_copy(groups->exprs), selecting->expr),
										 rows, NULL, NULL);
	rows_per_key = Max(rows / Max(keys_in_groups, 1.0), 1.0);
	kept_per_group = groups->cut == RADIK_GROUP_CUT_DISTINCT ? count * rows_per_key :
		groups->cut == RADIK_GROUP_CUT_EXACT_ROWS ? count : count + rows_per_key - 1.0;
	kept = Min(rows, ngroups * kept_per_group);

	/*
	 * What the groups hold: their rows, or where they count the rows tied at their cuts, about a
	 * candidate a key they keep, twice that before each cut.
	 */
	held_per_group = ties_counted ? Min(kept_per_group, 2.0 * (count + 1.0)) : kept_per_group;
	held = Min(rows, ngroups * held_per_group);
	if (groups_pass_memory(ngroups, held))
	{
		/*
		 * Trusted where the count is of values ANALYZE's sample saw (at most its rows): then the
		 * groups' rows would not fit, by an estimate that rarely errs.  Otherwise costed as the
		 * most groups that fit, since more would have the node return its child's rows, having
		 * read the part of the table that filled the memory (see above).
		 */
		if (ngroups <= sample_rows &&
			(keys_in_groups <= sample_rows ||
			 groups_pass_memory(ngroups, Min(rows, ngroups * count))))
		{
			radik_decline("the best rows of each group: those of %.0f groups, %.0f rows, would pass the memory of a hash table (work_mem x hash_mem_multiplier)",
						  ngroups, held);
			return false;
		}
		ngroups = (double) get_hash_memory_limit() /
			(GROUP_BYTES + held_per_group * KEPT_ROW_BYTES);
		kept = Min(rows, ngroups * kept_per_group);
	}
	kept = clamp_row_est(kept);

	get_tablespace_page_costs(scan_rel->reltablespace, NULL, &spc_seq_page_cost);
	cost_qual_eval(&qual_cost, quals, root);
	cost_qual_eval_node(&key_cost, (Node *) selecting->expr, root);
	cost_qual_eval(&group_cost, groups->exprs, root);
	per_row = (cpu_tuple_cost + qual_cost.per_tuple) * tuples +
		(key_cost.per_tuple + group_cost.per_tuple + radik_key_cost +
		 2 * cpu_operator_cost) * rows;
	startup = spc_seq_page_cost * scan_rel->pages + qual_cost.startup + key_cost.startup +
		group_cost.startup + radik_selection_cost;

	/*
	 * The kept rows, fetched by TID and sorted by all keys.  With workers, each process sends
	 * its groups in one batch (each of them holding every group, where the groups' rows are
	 * scattered over the table) and fetches the rows its groups keep from the blocks it has
	 * read, side by side with the others; the backend returns those copies from memory.
	 */
	if (workers > 0)
	{
		double		divisor = radik_parallel_divisor(workers);

		startup += per_row / divisor + parallel_setup_cost +
			SENT_ROW_PARALLEL_TUPLE_COSTS * parallel_tuple_cost * Min(rows, kept * workers) +
			kept * (FETCH_ROW_CPU_TUPLE_COSTS / divisor + CARRIED_ROW_CPU_TUPLE_COSTS) *
			cpu_tuple_cost;
	}
	else
		startup += per_row + kept * FETCH_ROW_CPU_TUPLE_COSTS * cpu_tuple_cost;
	startup += 2.0 * cpu_operator_cost * kept * log2(Max(kept, 2.0));

	path->path.rows = kept;
	path->path.startup_cost = startup;
	path->path.total_cost = startup + kept * (cpu_tuple_cost + path->path.pathtarget->cost.per_tuple);
	return true;
}

/*
 * Will the groups of a grouped path returning target count the rows tied at their cuts, as the
 * node does where it makes its rows from their group key and sort key alone
 * (radik_scan_begin_groups, radik_groups_count_ties)?
 */
static bool
ties_counted(PathTarget *target, List *keys, const RadikPlannedGroups *groups)
{
	RadikPlannedKey *first = linitial(keys);
	RadikPlannedKey *selecting = list_nth(keys, groups->selecting_key);

	return groups->cut != RADIK_GROUP_CUT_EXACT_ROWS && !groups->first_of_group &&
		radik_groups_sorted_by_keys(list_length(groups->exprs),
									exprType(linitial(groups->exprs)), list_length(keys),
									groups->selecting_key, first->type, first->sort_operator,
									selecting->type) &&
		radik_key_rows_possible(target->exprs, linitial(groups->exprs), selecting->expr);
}

/*
 * The grouped paths over scan_rel returning the rows of keys' order (partition or DISTINCT ON
 * keys first) as pathkeys, keys[selecting] being the key each group keeps its best count of: with
 * the parallel workers the table allows, then (unless radik.force makes the first the only one)
 * without any, for add_path to choose; NIL where radik declines.
 */
static List *
make_group_paths(PlannerInfo *root, RelOptInfo *scan_rel, PathTarget *target, List *pathkeys,
				 List *keys, RadikPlannedGroups *groups, double count, Path *sorted)
{
	RadikPlannedKey *selecting = list_nth(keys, groups->selecting_key);
	List	   *quals = radik_table_quals(scan_rel);
	List	   *exprs = list_copy(groups->exprs);
	List	   *paths = NIL;
	int			workers;
	ListCell   *lc;

	if (!selecting_key_supported(selecting))
		return NIL;
	/* rows tied at the cut are kept where a later sort key orders them, or the key summarizes */
	if (groups->cut == RADIK_GROUP_CUT_EXACT_ROWS &&
		(groups->selecting_key != list_length(keys) - 1 || !radik_key_type_exact(selecting->type)))
		groups->cut = RADIK_GROUP_CUT_ROWS;
	foreach(lc, keys)
		exprs = lappend(exprs, ((RadikPlannedKey *) lfirst(lc))->expr);
	workers = radik_plan_workers(root, scan_rel, quals, exprs);
	for (;;)
	{
		CustomPath *path = radik_make_path(scan_rel, target, pathkeys, keys, workers, groups);

		/* declined or not, whatever the workers */
		if (!cost_group_path(root, scan_rel, path, quals, selecting, groups, count,
							 ties_counted(target, keys, groups), workers))
			return NIL;
		path->custom_paths = list_make1(sorted);
		/* the sorted plan below may be a Gather Merge, which reads forward only */
		path->flags &= ~CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
		paths = lappend(paths, path);
		if (workers == 0 || radik_force)
			return paths;
		workers = 0;
	}
}

/* Is the query reading one table, with nothing between the scan and the stage but a target? */
static bool
query_reads_one_table(PlannerInfo *root, RelOptInfo *input_rel)
{
	Query	   *parse = root->parse;

	return parse->commandType == CMD_SELECT && !parse->hasAggs && parse->groupClause == NIL &&
		parse->groupingSets == NIL && parse->havingQual == NULL && !parse->hasTargetSRFs &&
		parse->setOperations == NULL && parse->rowMarks == NIL && root->rowMarks == NIL &&
		input_rel->reloptkind == RELOPT_BASEREL && radik_table_readable(root, input_rel);
}

/* Offer path in rel; under radik.force as rel's only path (as radik_add_path does). */
static void
add_upper_path(RelOptInfo *rel, Path *path)
{
	if (radik_force)
	{
		rel->pathlist = NIL;
		rel->partial_pathlist = NIL;
	}
	add_path(rel, path);
}

/* The run conditions of a WindowAgg path (PostgreSQL 17 keeps them in the path). */
static List *
window_run_conditions(WindowAggPath *window)
{
#if PG_VERSION_NUM >= 170000
	return window->runCondition;
#else
	return window->winclause->runCondition;
#endif
}

/* Is wfunc row_number(), rank() or dense_rank() of window winref, plain? */
static bool
ranking_function(Node *node, Index winref)
{
	WindowFunc *wfunc;

	while (IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (!IsA(node, WindowFunc))
		return false;
	wfunc = (WindowFunc *) node;
	return wfunc->winref == winref && wfunc->args == NIL && wfunc->aggfilter == NULL &&
		(wfunc->winfnoid == F_ROW_NUMBER || wfunc->winfnoid == F_RANK_ ||
		 wfunc->winfnoid == F_DENSE_RANK_);
}

/* Does node hold a window function other than a ranking function of window *context? */
static bool
other_window_function(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, WindowFunc))
		return !ranking_function(node, *(Index *) context);
	return expression_tree_walker(node, other_window_function, context);
}

/*
 * From a run condition "f(...) op bound" or "bound op f(...)" on a ranking function of window
 * winref: the bound (a constant or a query parameter), whether it excludes itself, and the cut;
 * false for anything else.
 */
static bool
read_run_condition(Node *node, Index winref, Expr **bound, bool *exclusive, RadikGroupCut *cut)
{
	OpExpr	   *op = (OpExpr *) node;
	Node	   *left;
	Node	   *right;
	bool		function_left;
	int			strategy;
	WindowFunc *wfunc;

	if (!IsA(node, OpExpr) || list_length(op->args) != 2)
		return false;
	left = linitial(op->args);
	right = lsecond(op->args);
	function_left = ranking_function(left, winref);
	if (!function_left && !ranking_function(right, winref))
		return false;
	*bound = (Expr *) (function_left ? right : left);
	if (contain_volatile_functions((Node *) *bound) || contain_var_clause((Node *) *bound) ||
		contain_exec_param((Node *) *bound, NIL) ||
		(exprType((Node *) *bound) != INT8OID && exprType((Node *) *bound) != INT4OID &&
		 exprType((Node *) *bound) != INT2OID))
		return false;
	strategy = get_op_opfamily_strategy(op->opno, INTEGER_BTREE_FAM_OID);
	if (function_left ? strategy == BTLessStrategyNumber : strategy == BTGreaterStrategyNumber)
		*exclusive = true;
	else if (function_left ? strategy == BTLessEqualStrategyNumber :
			 strategy == BTGreaterEqualStrategyNumber)
		*exclusive = false;
	else
		return false;
	wfunc = (WindowFunc *) (function_left ? left : right);
	while (IsA(wfunc, RelabelType))
		wfunc = (WindowFunc *) ((RelabelType *) wfunc)->arg;
	*cut = wfunc->winfnoid == F_DENSE_RANK_ ? RADIK_GROUP_CUT_DISTINCT :
		wfunc->winfnoid == F_ROW_NUMBER ? RADIK_GROUP_CUT_EXACT_ROWS : RADIK_GROUP_CUT_ROWS;
	return true;
}

void
radik_add_window_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *window_rel)
{
	WindowAggPath *window = NULL;
	WindowClause *clause;
	RadikPlannedGroups groups;
	List	   *keys = NIL;
	List	   *ranked = NIL;
	bool		found = false;
	ListCell   *lc;

	if (!query_reads_one_table(root, input_rel) || list_length(root->parse->windowClause) != 1)
		return;
	/* PostgreSQL's WindowAgg over the table's rows (a Sort, or rows already in order) */
	foreach(lc, window_rel->pathlist)
	{
		Path	   *candidate = lfirst(lc);

		if (IsA(candidate, WindowAggPath) &&
			!IsA(((WindowAggPath *) candidate)->subpath, WindowAggPath))
		{
			window = (WindowAggPath *) candidate;
			break;
		}
	}
	if (window == NULL || !window->topwindow)
		return;
	clause = window->winclause;
	if (other_window_function((Node *) root->processed_tlist, &clause->winref))
		return;

	memset(&groups, 0, sizeof(groups));
	foreach(lc, window_run_conditions(window))
	{
		found = read_run_condition(lfirst(lc), clause->winref, &groups.k, &groups.k_exclusive,
								   &groups.cut);
		if (found)
			break;
	}
	if (!found || !planned_groups(root, input_rel, clause->partitionClause, &groups))
		return;

	/* the rows in the window's order: the partition keys, then the order keys */
	foreach(lc, list_concat_copy(clause->partitionClause, clause->orderClause))
	{
		RadikPlannedKey *key = palloc0(sizeof(RadikPlannedKey));

		if (!planned_key(root, input_rel, lfirst_node(SortGroupClause, lc), key))
			return;
		keys = lappend(keys, key);
	}
	groups.selecting_key = list_length(clause->partitionClause);
	if (clause->orderClause == NIL)
		return;

	/*
	 * radik's numbering over radik's node, instead of PostgreSQL's WindowAgg over the Sort.  All
	 * are made before any is offered, since add_path frees the WindowAgg's path once beaten.
	 */
	foreach(lc, make_group_paths(root, input_rel, window->subpath->pathtarget,
								 root->window_pathkeys, keys, &groups,
								 estimated_count(root, groups.k, groups.k_exclusive),
								 window->subpath))
		ranked = lappend(ranked,
						 radik_make_rank_path(window_rel, window,
											  &lfirst_node(CustomPath, lc)->path,
											  window_run_conditions(window)));
	foreach(lc, ranked)
		add_upper_path(window_rel, lfirst(lc));
}

/*
 * PostgreSQL's cheapest path of input_rel's rows in pathkeys' order, as its DISTINCT stage finds
 * it: a path already in that order (a Gather Merge of sorted parallel scans, an index scan) or
 * the cheapest path sorted.
 */
static Path *
cheapest_sorted_path(PlannerInfo *root, RelOptInfo *input_rel, List *pathkeys)
{
	Path	   *cheapest = input_rel->cheapest_total_path;
	Path	   *presorted = get_cheapest_path_for_pathkeys(input_rel->pathlist, pathkeys, NULL,
														   TOTAL_COST, false);

	if (!pathkeys_contained_in(pathkeys, cheapest->pathkeys))
		cheapest = (Path *) create_sort_path(root, input_rel, cheapest, pathkeys, -1.0);
	return presorted != NULL && presorted->total_cost < cheapest->total_cost ? presorted : cheapest;
}

void
radik_add_distinct_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *distinct_rel)
{
	Query	   *parse = root->parse;
	RadikPlannedGroups groups;
	List	   *keys = NIL;
	Path	   *sorted;
	ListCell   *lc;

	/* DISTINCT ON, its expressions first in ORDER BY, which goes on after them */
	if (!parse->hasDistinctOn || parse->hasWindowFuncs || !query_reads_one_table(root, input_rel) ||
		root->distinct_pathkeys == NIL ||
		list_length(parse->sortClause) <= list_length(parse->distinctClause) ||
		!pathkeys_contained_in(root->distinct_pathkeys, root->sort_pathkeys) ||
		list_length(root->sort_pathkeys) <= list_length(root->distinct_pathkeys))
		return;

	memset(&groups, 0, sizeof(groups));
	if (!planned_groups(root, input_rel, parse->distinctClause, &groups))
		return;
	foreach(lc, parse->sortClause)
	{
		RadikPlannedKey *key = palloc0(sizeof(RadikPlannedKey));

		if (!planned_key(root, input_rel, lfirst_node(SortGroupClause, lc), key))
			return;
		keys = lappend(keys, key);
	}
	groups.selecting_key = list_length(parse->distinctClause);
	groups.k = (Expr *) makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(1),
								  false, FLOAT8PASSBYVAL);
	groups.k_exclusive = false;
	groups.cut = RADIK_GROUP_CUT_EXACT_ROWS;
	groups.first_of_group = true;

	sorted = cheapest_sorted_path(root, input_rel, root->sort_pathkeys);
	foreach(lc, make_group_paths(root, input_rel, input_rel->cheapest_total_path->pathtarget,
								 root->sort_pathkeys, keys, &groups, 1, sorted))
	{
		CustomPath *path = lfirst(lc);

		/* its target list is its child's, which holds the DISTINCT ON columns it compares */
		path->flags &= ~CUSTOMPATH_SUPPORT_PROJECTION;
		add_upper_path(distinct_rel, &path->path);
	}
}
