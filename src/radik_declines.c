/*
 * radik_declines.c
 *	  Why radik left a query to PostgreSQL's plan (radik_declines.h): a sort key of a type or
 *	  collation radik does not order, the best rows of too many groups for work_mem, and the
 *	  like.
 *
 * A user who expected radik's node and finds PostgreSQL's plan should not need to guess, so the
 * planner's reasons are said at DEBUG1 and, while EXPLAIN (VERBOSE) plans a query in text form,
 * kept and printed under the plan, one "RadiK Declined" line each.  EXPLAIN's other formats are
 * documents with a fixed shape, which a line after the plan would break; they get the DEBUG1
 * messages only.  The reasons are collected by an ExplainOneQuery_hook, which plans and
 * explains as PostgreSQL's own ExplainOneQuery does (standard_ExplainOneQuery from PostgreSQL 17
 * on; its body before that), then prints them.  Only the planning of the explained query itself
 * is listened to: a planner_hook counts the planner's nesting, so that queries planned within
 * it (a function's, say) or while EXPLAIN ANALYZE runs the plan are not.  Outside that hook
 * nothing is kept.
 */
#include "postgres.h"

#include "commands/explain.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#include "commands/explain_state.h"
#endif
#include "executor/instrument.h"
#include "nodes/pg_list.h"
#include "nodes/value.h"
#include "optimizer/planner.h"
#include "portability/instr_time.h"
#include "tcop/tcopprot.h"

#include "radik.h"
#include "radik_declines.h"

static ExplainOneQuery_hook_type prev_explain_one_query_hook = NULL;
static planner_hook_type prev_planner_hook = NULL;

/* How many planner calls are running, one inside the other. */
static int	planning_depth = 0;

/*
 * The reasons given while the query EXPLAIN (VERBOSE) explains is planned, at planning depth
 * collect_depth, kept in collect_context; NULL when no such planning is under way.
 */
static List **collected_declines = NULL;
static int	collect_depth = -1;
static MemoryContext collect_context = NULL;

void
radik_decline(const char *format,...)
{
	va_list		args;
	StringInfoData reason;

	initStringInfo(&reason);
	for (;;)
	{
		int			needed;

		va_start(args, format);
		needed = appendStringInfoVA(&reason, format, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(&reason, needed);
	}
	elog(DEBUG1, "radik declines %s", reason.data);
	if (collected_declines != NULL && planning_depth == collect_depth)
	{
		MemoryContext caller = MemoryContextSwitchTo(collect_context);
		String	   *kept = makeString(pstrdup(reason.data));

		if (!list_member(*collected_declines, kept))
			*collected_declines = lappend(*collected_declines, kept);
		MemoryContextSwitchTo(caller);
	}
	pfree(reason.data);
}

/* Count the planner's nesting; the explained query's planning ends its collection. */
static PlannedStmt *
radik_declines_planner(Query *parse, const char *query_string, int cursor_options,
					   ParamListInfo bound_params)
{
	PlannedStmt *stmt;

	planning_depth++;
	PG_TRY();
	{
		if (prev_planner_hook)
			stmt = prev_planner_hook(parse, query_string, cursor_options, bound_params);
		else
			stmt = standard_planner(parse, query_string, cursor_options, bound_params);
	}
	PG_FINALLY();
	{
		if (planning_depth == collect_depth)
			collect_depth = -1;
		planning_depth--;
	}
	PG_END_TRY();
	return stmt;
}

/* Plan and explain the query as PostgreSQL's ExplainOneQuery does. */
static void
explain_as_postgres_does(Query *query, int cursorOptions, IntoClause *into, ExplainState *es,
						 const char *queryString, ParamListInfo params,
						 QueryEnvironment *queryEnv)
{
#if PG_VERSION_NUM >= 170000
	standard_ExplainOneQuery(query, cursorOptions, into, es, queryString, params, queryEnv);
#else
	PlannedStmt *plan;
	instr_time	planstart;
	instr_time	planduration;
	BufferUsage bufusage_start;
	BufferUsage bufusage;

	if (es->buffers)
		bufusage_start = pgBufferUsage;
	INSTR_TIME_SET_CURRENT(planstart);
	plan = pg_plan_query(query, queryString, cursorOptions, params);
	INSTR_TIME_SET_CURRENT(planduration);
	INSTR_TIME_SUBTRACT(planduration, planstart);
	if (es->buffers)
	{
		memset(&bufusage, 0, sizeof(BufferUsage));
		BufferUsageAccumDiff(&bufusage, &pgBufferUsage, &bufusage_start);
	}
	ExplainOnePlan(plan, into, es, queryString, params, queryEnv, &planduration,
				   es->buffers ? &bufusage : NULL);
#endif
}

static void
radik_explain_one_query(Query *query, int cursorOptions, IntoClause *into, ExplainState *es,
						const char *queryString, ParamListInfo params,
						QueryEnvironment *queryEnv)
{
	List	   *declines = NIL;
	List	  **outer = collected_declines;
	int			outer_depth = collect_depth;
	MemoryContext outer_context = collect_context;
	bool		collect = es->verbose && es->format == EXPLAIN_FORMAT_TEXT;
	ListCell   *lc;

	collected_declines = collect ? &declines : NULL;
	collect_depth = collect ? planning_depth + 1 : -1;
	collect_context = CurrentMemoryContext;
	PG_TRY();
	{
		if (prev_explain_one_query_hook)
			prev_explain_one_query_hook(query, cursorOptions, into, es, queryString, params,
										queryEnv);
		else
			explain_as_postgres_does(query, cursorOptions, into, es, queryString, params,
									 queryEnv);
	}
	PG_FINALLY();
	{
		collected_declines = outer;
		collect_depth = outer_depth;
		collect_context = outer_context;
	}
	PG_END_TRY();

	foreach(lc, declines)
		ExplainPropertyText("RadiK Declined", strVal(lfirst(lc)), es);
}

void
radik_declines_init(void)
{
	prev_explain_one_query_hook = ExplainOneQuery_hook;
	ExplainOneQuery_hook = radik_explain_one_query;
	prev_planner_hook = planner_hook;
	planner_hook = radik_declines_planner;
}
