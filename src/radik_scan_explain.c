/*
 * radik_scan_explain.c
 *	  EXPLAIN for the RadiK Top-K scan: its sort keys and k (or its groups and the rows each
 *	  keeps), printed as a Sort node prints them, and under ANALYZE what the selection did.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "commands/explain.h"
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#endif
#include "common/int.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include "radik_extract.h"
#include "radik_scan.h"
#include "radik_scan_state.h"

/* A sort key as EXPLAIN prints a Sort node's (show_sortorder_options). */
static char *
deparse_sort_key(RadikScanState *state, int i, List *context, bool useprefix)
{
	CustomScan *cscan = (CustomScan *) state->css.ss.ps.plan;
	Node	   *expr = list_nth(cscan->custom_exprs, RADIK_EXPR_FIRST_KEY + i);
	RadikSortKey *key = &state->keys[i];
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, deparse_expression(expr, context, useprefix, true));
	/* a collation other than the type's default, as show_sortorder_options shows it */
	if (OidIsValid(state->collations[i]) &&
		state->collations[i] != get_typcollation(exprType(expr)))
		appendStringInfo(&buf, " COLLATE %s",
						 quote_identifier(get_collation_name(state->collations[i])));
	if (key->descending)
		appendStringInfoString(&buf, " DESC");
	if (key->nulls_first && !key->descending)
		appendStringInfoString(&buf, " NULLS FIRST");
	else if (!key->nulls_first && key->descending)
		appendStringInfoString(&buf, " NULLS LAST");
	return buf.data;
}

/* Whether expr is a non-NULL integer constant (of any width), and its value. */
static bool
integer_constant(Node *expr, int64 *value)
{
	Const	   *c = (Const *) expr;

	if (!IsA(expr, Const) || c->constisnull)
		return false;
	switch (c->consttype)
	{
		case INT2OID:
			*value = DatumGetInt16(c->constvalue);
			return true;
		case INT4OID:
			*value = DatumGetInt32(c->constvalue);
			return true;
		case INT8OID:
			*value = DatumGetInt64(c->constvalue);
			return true;
		default:
			return false;
	}
}

/* A LIMIT or OFFSET expression: an integer constant as a plain number, else deparsed. */
static char *
deparse_limit_expression(Node *expr, List *context, bool useprefix)
{
	int64		value;

	if (integer_constant(expr, &value))
		return psprintf(INT64_FORMAT, value);
	return deparse_expression(expr, context, useprefix, false);
}

/* The rows selected, count + offset: a number when both are constants, else the expressions. */
static char *
deparse_rows_wanted(CustomScan *cscan, List *context, bool useprefix)
{
	Node	   *count = list_nth(cscan->custom_exprs, RADIK_EXPR_LIMIT_COUNT);
	Node	   *offset = list_nth(cscan->custom_exprs, RADIK_EXPR_LIMIT_OFFSET);

	if (IsA(count, Const) && ((Const *) count)->constisnull)
		return pstrdup("all");
	if (IsA(count, Const) && IsA(offset, Const))
	{
		int64		sum = DatumGetInt64(((Const *) count)->constvalue);
		int64		offset_value = ((Const *) offset)->constisnull ? 0 :
			DatumGetInt64(((Const *) offset)->constvalue);

		if (pg_add_s64_overflow(sum, offset_value, &sum))
			return pstrdup("all");
		return psprintf(INT64_FORMAT, sum);
	}
	/* OFFSET NULL, like OFFSET 0, adds nothing */
	if (IsA(offset, Const) && (((Const *) offset)->constisnull ||
							   DatumGetInt64(((Const *) offset)->constvalue) == 0))
		return deparse_limit_expression(count, context, useprefix);
	return psprintf("%s + %s",
					deparse_limit_expression(count, context, useprefix),
					deparse_limit_expression(offset, context, useprefix));
}

/*
 * EXPLAIN: the sort keys and k always; under ANALYZE the rows scanned, and the device, the keys
 * sent and the times only when costs are shown (and times only with TIMING), because those
 * differ between a GPU host and a CPU-only one while regression tests compare EXPLAIN (COSTS
 * OFF) output across both.
 */
void
radik_scan_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	RadikScanState *state = (RadikScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *context;
	bool		useprefix;
	List	   *sort_keys = NIL;

	context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
	useprefix = list_length(es->rtable) > 1 || es->verbose;

	if (state->grouped)
	{
		List	   *group_keys = NIL;
		ListCell   *lc;
		Node	   *count_expr = list_nth(cscan->custom_exprs, RADIK_EXPR_LIMIT_COUNT);
		int64		bound;
		char	   *count;

		foreach(lc, state->groups.exprs)
			group_keys = lappend(group_keys,
								 deparse_expression(lfirst(lc), context, useprefix, false));
		ExplainPropertyList("Group Key", group_keys, es);
		/* "r < 4" keeps 3: a constant bound as the number kept, else the expression */
		if (state->k_exclusive && integer_constant(count_expr, &bound) && bound > PG_INT64_MIN)
			count = psprintf(INT64_FORMAT, bound - 1);
		else if (state->k_exclusive)
			count = psprintf("%s - 1", deparse_limit_expression(count_expr, context, useprefix));
		else
			count = deparse_limit_expression(count_expr, context, useprefix);
		if (state->groups.cut == RADIK_GROUP_CUT_DISTINCT)
			count = psprintf("%s distinct keys", count);
		ExplainPropertyText("Top K per Group", count, es);
	}
	for (int i = 0; i < state->nkeys; i++)
		sort_keys = lappend(sort_keys, deparse_sort_key(state, i, context, useprefix));
	ExplainPropertyList("Sort Key", sort_keys, es);
	if (!state->grouped)
		ExplainPropertyText("Top K", state->with_ties ?
							psprintf("%s with ties", deparse_rows_wanted(cscan, context, useprefix)) :
							deparse_rows_wanted(cscan, context, useprefix), es);
	/* Whether the quals run on raw column values (radik_native_qual.c), for those who ask. */
	if (es->verbose && state->row_quals != NIL)
		ExplainPropertyBool("Native Quals",
							radik_extract_native_quals(state->row_quals,
													   node->ss.ss_currentRelation,
													   &state->keys[state->selecting]) != NULL,
							es);
	/* Likewise whether an expression key is computed from them (radik_native_key.c). */
	if (es->verbose && state->keys[state->selecting].attnum <= 0)
		ExplainPropertyBool("Native Key",
							radik_extract_native_key(&state->keys[state->selecting],
													 node->ss.ss_currentRelation) != NULL, es);
	if (state->parallel.nworkers > 0)
	{
		ExplainPropertyInteger("Workers Planned", NULL, state->parallel.nworkers, es);
		if (es->analyze && state->selections > 0)
			ExplainPropertyInteger("Workers Launched", NULL, state->totals.workers_launched, es);
	}

	if (es->analyze && state->selections > 0)
	{
		if (es->costs)
			ExplainPropertyText("Device", state->totals.device, es);
		/* Selections the GPU could not hold, run on the CPU instead (radik.device = auto). */
		if (es->costs && state->totals.gpu_fallbacks > 0)
			ExplainPropertyInteger("GPU Fallbacks", NULL, state->totals.gpu_fallbacks, es);
		ExplainPropertyInteger("Rows Scanned", NULL,
							   state->totals.scan.rows_scanned + state->totals.rows_rescanned, es);
		if (state->grouped)
			ExplainPropertyInteger("Groups", NULL, state->totals.groups, es);
		/* Selections whose groups passed their memory: the plan below returned the rows. */
		if (state->totals.groups_over_memory > 0)
			ExplainPropertyInteger("Selections Over Memory", NULL,
								   state->totals.groups_over_memory, es);
		if (es->costs)
			ExplainPropertyInteger("Rows Sent", NULL, state->totals.rows_sent, es);
		/* Under an ICU collation, the keys its table of ASCII characters did not make. */
		if (es->costs && state->totals.icu_table)
			ExplainPropertyInteger("Keys From ICU", NULL, state->totals.scan.keys_from_icu, es);
		/*
		 * Pages that no shared buffer held, copied from the page cache (radik_page_source.h) by
		 * the scan and by the fetches of the rows it selected.
		 */
		if (es->costs && state->totals.scan.pages_copied > 0)
			ExplainPropertyInteger("Pages From Page Cache", NULL, state->totals.scan.pages_copied, es);
		/* Rows of the answer the scan carried whole, when rows are not made from keys. */
		if (es->costs && !state->output_from_keys && !state->groups.order_row_keys)
			ExplainPropertyInteger("Rows Carried", NULL, state->rows_carried, es);
		/* A sample's outcome varies from run to run, like the rows sent. */
		if (es->costs && state->totals.seed_pages > 0)
		{
			ExplainPropertyInteger("Seed Pages Sampled", NULL, state->totals.seed_pages, es);
			ExplainPropertyInteger("Seed Thresholds Used", NULL, state->totals.seed_thresholds,
								   es);
			ExplainPropertyInteger("Seed Thresholds Missed", NULL, state->totals.seed_misses, es);
		}
		/* Block ranges read in a BRIN index's order, and skipped (radik_brin.h) */
		if (state->totals.brin_ranges_read + state->totals.brin_ranges_skipped > 0)
		{
			ExplainPropertyInteger("BRIN Ranges Read", NULL, state->totals.brin_ranges_read, es);
			ExplainPropertyInteger("BRIN Ranges Skipped", NULL,
								   state->totals.brin_ranges_skipped, es);
		}
		if (es->costs && es->timing)
		{
			ExplainPropertyFloat("Scan Time", "ms", state->totals.scan_ms, 3, es);
			ExplainPropertyFloat("Copy Time", "ms", state->totals.copy_ms, 3, es);
			ExplainPropertyFloat("Select Time", "ms", state->totals.select_ms, 3, es);
		}
	}
}
