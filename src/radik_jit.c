/*
 * radik_jit.c
 *	  Leave radik's own selections out of the planner's decision to JIT-compile a query.
 *
 * PostgreSQL decides once per query whether to JIT-compile its expressions and tuple deforming,
 * by comparing the whole plan's cost with jit_above_cost (and, for more effort, with
 * jit_optimize_above_cost and jit_inline_above_cost).  A radik node's cost is mostly its
 * selection: reading every row's key in C and selecting on the GPU or the CPU twin, work no
 * compiled expression takes part in when the sort keys are plain columns and the WHERE clause
 * runs natively (radik_native_qual.c).  Its expressions run for the rows it returns, a few.  Yet
 * that cost alone takes a 10M-row table over jit_above_cost, and a 50M-row one over the other
 * two, and the query then pays for compiling every expression of the plan (radik's, the Limit's)
 * when the first is called: measured on Debian's PostgreSQL 15 (jit = on by default), 21 ms on
 * radik's 111 ms query of a 10M-row table, 72 ms with optimization and inlining, 65 ms (685 ms)
 * over 64 partitions, where each partition's node has its own expressions, and 53 ms on the 7 ms
 * query of the latest rows of 64 partitions by time.
 *
 * So after planning, the decision is taken again as standard_planner takes it, on the plan's
 * cost less the startup cost (the selection) of each radik node that compiled expressions would
 * not serve.  A radik node whose sort key is an expression, or whose WHERE clause goes through
 * the executor row by row, keeps its cost in the decision: there compiled expressions do run for
 * every row (in the backend running the query; parallel workers evaluate without JIT anyway).
 * Only nodes in the main plan tree whose startup cost the plan's cost holds whole are counted
 * (native_selection_cost; a radik node inside a SubPlan, after the first child of an unordered
 * Append, or below a node type the walk does not know, is left to PostgreSQL's decision), and the
 * decision only ever becomes less eager, never more.
 */
#include "postgres.h"

#include "access/table.h"
#include "jit/jit.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/plannodes.h"
#include "optimizer/planner.h"
#include "parser/parsetree.h"
#include "utils/memutils.h"

#include "radik.h"
#include "radik_native_qual.h"
#include "radik_rank.h"
#include "radik_scan.h"

static planner_hook_type prev_planner_hook = NULL;

/*
 * Whether a radik node's per-row work runs without the expression evaluator: every sort key a
 * plain column of its table, and its quals none or all native.
 */
static bool
selection_is_native(CustomScan *cscan, List *rtable)
{
	bool		native = true;

	for (int i = RADIK_EXPR_FIRST_KEY; i < list_length(cscan->custom_exprs); i++)
	{
		Var		   *var = (Var *) list_nth(cscan->custom_exprs, i);

		if (!IsA(var, Var) || var->varno != cscan->scan.scanrelid || var->varattno <= 0 ||
			var->varlevelsup != 0)
			return false;
	}
	if (cscan->scan.plan.qual != NIL)
	{
		/* compiled in a context of its own, dropped with what the compile allocated */
		MemoryContext check = AllocSetContextCreate(CurrentMemoryContext, "radik JIT check",
													ALLOCSET_SMALL_SIZES);
		MemoryContext caller = MemoryContextSwitchTo(check);
		Relation	rel;

		/* held already since the query was parsed: a local lock table hit */
		rel = table_open(rt_fetch(cscan->scan.scanrelid, rtable)->relid, AccessShareLock);
		native = radik_native_qual_compile(cscan->scan.plan.qual, rel) != NULL;
		table_close(rel, AccessShareLock);
		MemoryContextSwitchTo(caller);
		MemoryContextDelete(check);
	}
	return native;
}

static Cost native_selection_cost(Plan *plan, List *rtable);

/*
 * An Append's startup cost is its first child's when its rows come in no order, and the sum of
 * its children's startup costs when they are ordered (cost_append: partitions that follow the
 * sort key, read one after the other under a Limit: the usual "latest rows" of a table
 * partitioned by time).  Which one the plan has is seen from the costs themselves.
 */
static Cost
append_native_selection_cost(Append *append, List *rtable)
{
	Cost		children_startup = 0.0;
	Cost		cost = 0.0;
	ListCell   *lc;

	if (append->appendplans == NIL)
		return 0.0;
	foreach(lc, append->appendplans)
		children_startup += ((Plan *) lfirst(lc))->startup_cost;
	if (children_startup > append->plan.startup_cost * (1.0 + 1e-9) + 1e-9)
		return native_selection_cost(linitial(append->appendplans), rtable);
	foreach(lc, append->appendplans)
		cost += native_selection_cost((Plan *) lfirst(lc), rtable);
	return cost;
}

/*
 * The startup cost of the radik nodes under plan whose selection runs without the expression
 * evaluator, counting only nodes whose startup cost is wholly part of the plan's own cost: the
 * walk goes down only through node types that put their children's startup costs into their own
 * startup cost (a Limit, a Merge Append, an ordered Append, a sort, an aggregate, a join, a
 * Gather, radik's numbering of a grouped node's rows, ...), and into an unordered Append's first
 * child alone (its startup is its first child's; the later children's costs reach a Limit above
 * it only in part).  Elsewhere it stops, which leaves those radik nodes' cost in the decision.
 */
static Cost
native_selection_cost(Plan *plan, List *rtable)
{
	Cost		cost = 0.0;
	ListCell   *lc;

	if (plan == NULL)
		return 0.0;
	check_stack_depth();
	switch (nodeTag(plan))
	{
		case T_CustomScan:
			if (radik_is_rank_plan(plan))
				return native_selection_cost(linitial(((CustomScan *) plan)->custom_plans), rtable);
			if (((CustomScan *) plan)->methods == &radik_scan_methods &&
				selection_is_native((CustomScan *) plan, rtable))
				return plan->startup_cost;
			return 0.0;
		case T_Append:
			return append_native_selection_cost((Append *) plan, rtable);
		case T_MergeAppend:
			foreach(lc, ((MergeAppend *) plan)->mergeplans)
				cost += native_selection_cost((Plan *) lfirst(lc), rtable);
			return cost;
		case T_SubqueryScan:
			return native_selection_cost(((SubqueryScan *) plan)->subplan, rtable);
		case T_Limit:
		case T_Agg:
		case T_WindowAgg:
		case T_Group:
		case T_ProjectSet:
		case T_Sort:
		case T_IncrementalSort:
		case T_Material:
		case T_Result:
		case T_Unique:
		case T_Gather:
		case T_GatherMerge:
		case T_Hash:
		case T_NestLoop:
		case T_MergeJoin:
		case T_HashJoin:
			return native_selection_cost(plan->lefttree, rtable) +
				native_selection_cost(plan->righttree, rtable);
		default:
			return 0.0;
	}
}

/* standard_planner's JIT decision, for a plan of the given cost. */
static int
jit_flags_for_cost(Cost cost)
{
	int			flags = PGJIT_NONE;

	if (jit_enabled && jit_above_cost >= 0 && cost > jit_above_cost)
	{
		flags |= PGJIT_PERFORM;
		if (jit_optimize_above_cost >= 0 && cost > jit_optimize_above_cost)
			flags |= PGJIT_OPT3;
		if (jit_inline_above_cost >= 0 && cost > jit_inline_above_cost)
			flags |= PGJIT_INLINE;
		if (jit_expressions)
			flags |= PGJIT_EXPR;
		if (jit_tuple_deforming)
			flags |= PGJIT_DEFORM;
	}
	return flags;
}

static PlannedStmt *
radik_planner(Query *parse, const char *query_string, int cursor_options,
			  ParamListInfo bound_params)
{
	PlannedStmt *stmt;

	if (prev_planner_hook)
		stmt = prev_planner_hook(parse, query_string, cursor_options, bound_params);
	else
		stmt = standard_planner(parse, query_string, cursor_options, bound_params);

	if ((stmt->jitFlags & PGJIT_PERFORM) != 0)
	{
		const Cost	native = native_selection_cost(stmt->planTree, stmt->rtable);

		if (native > 0.0)
			stmt->jitFlags &= jit_flags_for_cost(stmt->planTree->total_cost - native);
	}
	return stmt;
}

void
radik_jit_init(void)
{
	prev_planner_hook = planner_hook;
	planner_hook = radik_planner;
}
