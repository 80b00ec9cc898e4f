/*
 * radik_scan.c
 *	  The executor side of the RadiK Top-K custom scan: run the selection when the first row is
 *	  asked for, then return the selected rows in order, carried by the scan or fetched by TID,
 *	  and projected; rescan.  Its EXPLAIN output is radik_scan_explain.c's.
 *
 * The node is lazy: nothing is read at executor start.  On the first call it evaluates its LIMIT
 * and OFFSET expressions as the Limit node above it does (rows_wanted), then asks
 * radik_select_rows for the TIDs of the best count + offset rows by the first sort key
 * (run_selection; a grouped node asks radik_select_groups for each group's best rows).  With one
 * exact sort key that is the answer (with the tied rows, for WITH TIES); with several keys, a
 * summarized key (numeric, text, uuid, an enum: radik_key_mapper.h) or groups, the candidates
 * are then sorted by all keys with PostgreSQL's own comparators (sort_candidates_by_all_keys),
 * unless the groups returned them in order.  Most rows are returned as the scan carried them
 * (radik_carry.h); the others are fetched by TID in batches (radik_scan_fetch_batch), and a query
 * that reads nothing but its one sort key column gets rows made from the keys (a grouped node's,
 * nothing but its group and sort keys: radik_key_rows.h).
 *
 * The quals run during the selection only, in the plan's order, which is PostgreSQL's
 * (selection_quals); ExecScan does not run them again.  The selected TIDs stay in memory until
 * the end or a rescan, so the node also walks them backward (a cursor's FETCH BACKWARD) without
 * a Material node above it, as a Sort would; a rescan selects again only when a parameter the
 * node depends on has changed (radik_scan_rescan).
 *
 * A grouped node holds PostgreSQL's own sorted plan of the same rows below it, as its one child:
 * where the groups pass their memory (radik_group_select.c), the selection stops and the node
 * returns that plan's rows instead (radik_scan_groups.c), which the numbering above it
 * (radik_rank.c) reads as it reads the node's own; for DISTINCT ON the node keeps the first row
 * of each group of either, as PostgreSQL's Unique would (radik_scan_first_of_group).
 *
 * PostgreSQL 15 gives a custom scan a virtual scan slot and compiles its target list and quals for
 * it before BeginCustomScan runs; this node stores heap tuple copies in its scan slot, so it
 * replaces the slot with a heap tuple slot and compiles those expressions again for it.
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/sysattr.h"
#include "access/tableam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/tuplesort.h"

#include "radik.h"
#include "radik_datum_keys.h"
#include "radik_fetch.h"
#include "radik_scan.h"
#include "radik_scan_state.h"
#include "radik_select.h"


static Node *radik_scan_create_state(CustomScan *cscan);
static void radik_scan_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *radik_scan_exec(CustomScanState *node);
static void radik_scan_end(CustomScanState *node);
static void radik_scan_rescan(CustomScanState *node);

/* The plan node's methods: registered by name so that plans can be copied and serialized. */
const CustomScanMethods radik_scan_methods = {
	.CustomName = RADIK_SCAN_NAME,
	.CreateCustomScanState = radik_scan_create_state,
};

/*
 * The executor's methods; no mark/restore, and none of the parallel-aware callbacks: the node
 * never runs under a Gather, it starts its own workers (radik_parallel.c).
 */
static const CustomExecMethods radik_exec_methods = {
	.CustomName = RADIK_SCAN_NAME,
	.BeginCustomScan = radik_scan_begin,	/* compile expressions, make the scan slot */
	.ExecCustomScan = radik_scan_exec,	/* select on first call, then return rows */
	.EndCustomScan = radik_scan_end,	/* release the selection's memory */
	.ReScanCustomScan = radik_scan_rescan,	/* forget the selection */
	.ExplainCustomScan = radik_scan_explain,	/* sort keys, k, and ANALYZE figures */
};

void
radik_scan_init(void)
{
	RegisterCustomScanMethods(&radik_scan_methods);
}

static Node *
radik_scan_create_state(CustomScan *cscan)
{
	RadikScanState *state = palloc0(sizeof(RadikScanState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &radik_exec_methods;
	return (Node *) state;
}

/* A heap row's bytes, judged by the table's pages and tuples (free space included). */
static double
estimated_row_bytes(double pages, double tuples)
{
	return pages > 0 && tuples > 0 ? pages * BLCKSZ / tuples : 200.0;
}

/*
 * How many rows one fetch batch holds: as many as fit in work_mem, judging a row's size by the
 * table's pages and tuples (a heap tuple copy plus its bookkeeping), but at least a thousand.
 * The planner uses it too, to cost the fetches.
 */
double
radik_fetch_batch_rows(double pages, double tuples)
{
	double		tuple_bytes = estimated_row_bytes(pages, tuples);
	double		budget = (double) work_mem * 1024.0;

	tuple_bytes += HEAPTUPLESIZE + 2 * sizeof(void *) + sizeof(RadikFetchOrder) + 16;
	return Max(1024.0, Min(budget / tuple_bytes, (double) (MaxAllocSize / sizeof(RadikFetchOrder))));
}

/*
 * How many rows the scan's row store holds (work_mem, see run_selection), judging a row's size
 * as radik_fetch_batch_rows does; 0 when the store is too small to carry a page's rows
 * (make_row_store in radik_select.c).  The planner uses it to cost the rows carried.
 */
double
radik_carry_capacity_rows(double pages, double tuples)
{
	double		budget = (double) work_mem * 1024.0;

	if (budget < RADIK_CARRY_PAGE_BYTES)
		return 0.0;
	return budget / (RADIK_CARRIED_ROW_HEADER + estimated_row_bytes(pages, tuples));
}

/* Does the node's target list read no column of the table but attnum? */
static bool
target_reads_only_column(CustomScan *cscan, AttrNumber attnum)
{
	Bitmapset  *columns = NULL;

	pull_varattnos((Node *) cscan->scan.plan.targetlist, cscan->scan.scanrelid, &columns);
	columns = bms_del_member(columns, attnum - FirstLowInvalidHeapAttributeNumber);
	return bms_is_empty(columns);
}

/*
 * Always true, but computes expr first, raising any error it raises: a clause that computes a
 * sort key for its errors alone.
 */
static Expr *
computed_for_errors(Expr *expr)
{
	NullTest   *null_test = makeNode(NullTest);
	BooleanTest *known = makeNode(BooleanTest);

	null_test->arg = expr;
	null_test->nulltesttype = IS_NULL;
	null_test->argisrow = false;
	null_test->location = -1;
	known->arg = (Expr *) null_test;
	known->booltesttype = IS_NOT_UNKNOWN;
	known->location = -1;
	return (Expr *) known;
}

/*
 * The clauses run on every row while selecting, in the plan's order: the table's quals, then,
 * when a sort key other than the one selected by (keys[selecting]) is an expression, one clause
 * per sort key computed from an expression (computed_for_errors), in the order of the keys.
 * PostgreSQL computes every sort key of every row that passes the quals before it sorts, so a
 * key that fails on some row fails its query; the node needs the other keys only for the rows
 * tied on the selected key, but computes them for every row too, so that such a query raises the
 * same error.  (A selected key that is the only expression is computed for every row anyway; so
 * is a grouped node's group key, by the groups, which where the selected key is a plain column,
 * raising no error, is then the only key that can fail.)
 * The node's ps.qual is cleared so that ExecScan does not run the quals a second time on the rows
 * returned.  When the plan has workers and the executor runs in parallel mode, the selection
 * hands them these clauses and the selected key as plan expressions, with the query's
 * parameters, to read part of the table (radik_parallel.c).
 */
static List *
selection_quals(CustomScan *cscan, const RadikSortKey *keys, int nkeys, int selecting,
				List *group_exprs)
{
	List	   *quals = list_copy(cscan->scan.plan.qual);
	bool		later_expression = false;

	for (int i = 0; i < nkeys; i++)
		later_expression |= i != selecting && keys[i].attnum <= 0 &&
			!(keys[selecting].attnum > 0 &&
			  list_member(group_exprs, list_nth(cscan->custom_exprs, RADIK_EXPR_FIRST_KEY + i)));
	if (!later_expression)
		return quals;
	for (int i = 0; i < nkeys; i++)
	{
		if (keys[i].attnum <= 0)
			quals = lappend(quals,
							computed_for_errors(list_nth(cscan->custom_exprs,
														 RADIK_EXPR_FIRST_KEY + i)));
	}
	return quals;
}

static void
radik_scan_begin(CustomScanState *node, EState *estate, int eflags)
{
	RadikScanState *state = (RadikScanState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	Relation	rel = node->ss.ss_currentRelation;
	List	   *types = list_nth(cscan->custom_private, RADIK_PRIVATE_KEY_TYPES);
	List	   *operators = list_nth(cscan->custom_private, RADIK_PRIVATE_SORT_OPERATORS);
	List	   *descending = list_nth(cscan->custom_private, RADIK_PRIVATE_DESCENDING);
	List	   *nulls_first = list_nth(cscan->custom_private, RADIK_PRIVATE_NULLS_FIRST);
	List	   *collations = list_nth(cscan->custom_private, RADIK_PRIVATE_COLLATIONS);
	List	   *groups = list_nth(cscan->custom_private, RADIK_PRIVATE_GROUPS);

	/* The fetches read heap pages directly; the planner offers radik for heap tables only. */
	if (rel == NULL || rel->rd_rel->relam != HEAP_TABLE_AM_OID)
		elog(ERROR, "radik top-k scan of a relation that is not a heap table");

	/*
	 * The scan slot holds copies of heap tuples: replace the virtual slot ExecInitCustomScan made
	 * and compile the target list and quals again for the new one.  The SubPlans the first
	 * compilation registered are dropped so that each is registered (and EXPLAINed) once.
	 */
	node->ss.ps.subPlan = NIL;
	ExecInitScanTupleSlot(estate, &node->ss, RelationGetDescr(rel), &TTSOpsHeapTuple);
	ExecAssignScanProjectionInfoWithVarno(&node->ss, cscan->scan.scanrelid);
	node->ss.ps.qual = NULL;	/* run while selecting, not again by ExecScan */

	state->limit_count = ExecInitExpr(list_nth(cscan->custom_exprs, RADIK_EXPR_LIMIT_COUNT),
									  &node->ss.ps);
	state->limit_offset = ExecInitExpr(list_nth(cscan->custom_exprs, RADIK_EXPR_LIMIT_OFFSET),
									   &node->ss.ps);

	state->nkeys = list_length(types);
	state->keys = palloc0(state->nkeys * sizeof(RadikSortKey));
	state->sort_operators = palloc(state->nkeys * sizeof(Oid));
	state->collations = palloc(state->nkeys * sizeof(Oid));
	state->nulls_first = palloc(state->nkeys * sizeof(bool));
	for (int i = 0; i < state->nkeys; i++)
	{
		Expr	   *expr = list_nth(cscan->custom_exprs, RADIK_EXPR_FIRST_KEY + i);
		RadikSortKey *key = &state->keys[i];

		key->type = list_nth_oid(types, i);
		key->collation = list_nth_oid(collations, i);
		key->sort_operator = list_nth_oid(operators, i);
		key->descending = list_nth_int(descending, i) != 0;
		key->nulls_first = list_nth_int(nulls_first, i) != 0;
		/* A plain column of the table is read straight from the tuple. */
		if (IsA(expr, Var) && ((Var *) expr)->varno == cscan->scan.scanrelid &&
			((Var *) expr)->varattno > 0 && ((Var *) expr)->varlevelsup == 0)
			key->attnum = ((Var *) expr)->varattno;
		else
			key->expr = ExecInitExpr(expr, &node->ss.ps);
		state->sort_operators[i] = list_nth_oid(operators, i);
		state->collations[i] = list_nth_oid(collations, i);
		state->nulls_first[i] = key->nulls_first;
	}
	if (groups != NIL)
		radik_scan_begin_groups(state, cscan, groups, eflags);
	/*
	 * Past their memory a grouped node's rows are the sorted plan's own slots
	 * (radik_scan_groups.c), so the plan above must not count on one kind of slot from this node.
	 */
	state->sorted_plan_eflags = eflags;
	if (cscan->custom_plans != NIL)
		node->ss.ps.resultopsfixed = false;
	state->row_quals = selection_quals(cscan, state->keys, state->nkeys, state->selecting,
									   state->groups.exprs);
	state->qual = ExecInitQual(state->row_quals, &node->ss.ps);

	/*
	 * Several keys, or a first key the engine only summarizes (numeric, interval, text, uuid, an
	 * enum): candidates are sorted; so are a grouped node's rows, by all keys.
	 */
	state->sort_candidates = state->grouped ||
		radik_keys_sort_candidates(state->nkeys, state->keys[0].type);
	if (!state->sort_candidates && state->keys[0].attnum > 0 &&
		target_reads_only_column(cscan, state->keys[0].attnum))
	{
		int			natts = RelationGetDescr(rel)->natts;
		Form_pg_attribute key_att = TupleDescAttr(RelationGetDescr(rel),
												  state->keys[0].attnum - 1);

		state->output_from_keys = true;
		state->row_values = palloc0(natts * sizeof(Datum));
		state->row_isnull = palloc(natts * sizeof(bool));
		memset(state->row_isnull, true, natts * sizeof(bool));
		if (key_att->attbyval)
		{
			state->row_isnull[key_att->attnum - 1] = false;
			state->key_row_template = heap_form_tuple(RelationGetDescr(rel), state->row_values,
													  state->row_isnull);
			state->key_row_template->t_tableOid = RelationGetRelid(rel);
			state->row_isnull[key_att->attnum - 1] = true;
		}
	}

	state->parallel.nworkers = list_nth_int(list_nth(cscan->custom_private,
													 RADIK_PRIVATE_OPTIONS),
											RADIK_OPTION_WORKERS);
	state->with_ties = list_nth_int(list_nth(cscan->custom_private, RADIK_PRIVATE_OPTIONS),
									RADIK_OPTION_WITH_TIES) != 0;
	state->parallel.quals = state->row_quals;
	state->parallel.key_expr = list_nth(cscan->custom_exprs,
										RADIK_EXPR_FIRST_KEY + state->selecting);
	state->parallel.params = estate->es_param_list_info;

	state->selection_context = AllocSetContextCreate(estate->es_query_cxt,
													 "radik top-k selection",
													 ALLOCSET_DEFAULT_SIZES);
	state->batch_context = AllocSetContextCreate(estate->es_query_cxt,
												 "radik top-k fetched rows",
												 ALLOCSET_DEFAULT_SIZES);
	state->batch_rows = (int64) radik_fetch_batch_rows(rel->rd_rel->relpages,
													   rel->rd_rel->reltuples);
	strlcpy(state->totals.device, "none", sizeof(state->totals.device));
}

/*
 * The number of rows to select, count + offset, evaluated as the Limit node evaluates them
 * (OFFSET first, then LIMIT, with its errors, though the Limit node above has raised any of them
 * already); -1 for no limit.
 */
static int64
rows_wanted(RadikScanState *state)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	Datum		value;
	bool		isnull;
	int64		offset = 0;
	int64		count;
	int64		wanted;

	if (state->grouped)
		return radik_scan_group_count(state);
	value = ExecEvalExprSwitchContext(state->limit_offset, econtext, &isnull);
	if (!isnull)
	{
		offset = DatumGetInt64(value);
		if (offset < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_ROW_COUNT_IN_RESULT_OFFSET_CLAUSE),
					 errmsg("OFFSET must not be negative")));
	}

	value = ExecEvalExprSwitchContext(state->limit_count, econtext, &isnull);
	if (isnull)
		return -1;				/* LIMIT ALL or LIMIT NULL */
	count = DatumGetInt64(value);
	if (count < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_ROW_COUNT_IN_LIMIT_CLAUSE),
				 errmsg("LIMIT must not be negative")));

	if (pg_add_s64_overflow(count, offset, &wanted))
		return -1;
	return wanted;
}

/*
 * The selected rows start .. start + n - 1 into rows[0 .. n), where rows[i] is still NULL: the
 * copies the scan carried (radik_carry.h) as they are, the others fetched by TID, in TID order.
 * What is allocated lives in the current memory context.
 */
static void
fetch_rows_at(RadikScanState *state, int64 start, int64 n, HeapTuple *rows)
{
	ScanState  *ss = &state->css.ss;
	Relation	rel = ss->ss_currentRelation;
	RadikFetchOrder *order = MemoryContextAllocHuge(CurrentMemoryContext,
													Max(n, 1) * sizeof(RadikFetchOrder));
	HeapTupleData *carried_tuples = NULL;
	int64		nfetch = 0;

	if (state->carried != NULL)
		carried_tuples = MemoryContextAllocHuge(CurrentMemoryContext,
												Max(n, 1) * sizeof(HeapTupleData));
	for (int64 i = 0; i < n; i++)
	{
		if (rows[i] != NULL)
			continue;
		if (state->carried != NULL && state->carried[start + i] != NULL)
		{
			radik_carried_tuple(state->carried[start + i], RelationGetRelid(rel),
								&carried_tuples[i]);
			rows[i] = &carried_tuples[i];
			continue;
		}
		order[nfetch].packed_tid = radik_pack_tid(&state->tids[start + i]);
		order[nfetch].position = i;
		nfetch++;
	}
	radik_sort_fetch_order(order, nfetch);
	/*
	 * A page is fetched once where one batch holds every row, and about twice at most where the
	 * rows are no more than two a page: copying it each time from the page cache is then cheaper
	 * than reading it into a buffer once (a million rows of a 10M-row table fetched in 30 batches
	 * took 6% longer with the copies, 300,000 rows a third less).
	 */
	state->totals.scan.pages_copied +=
		radik_fetch_rows(rel, ss->ps.state->es_snapshot, order, nfetch,
						 state->ntids <= state->batch_rows ||
						 state->ntids <= 2 * (int64) RelationGetNumberOfBlocks(rel), rows);
	pfree(order);
}

/*
 * Keep a copy of a candidate fetched for sorting as if the scan had carried it, while the copies
 * stay within work_mem (in context, the selection's), so that returning it needs no second fetch.
 */
static void
keep_fetched_row(RadikScanState *state, int64 position, HeapTuple row, MemoryContext context,
				 Size *kept_bytes)
{
	Size		size = RADIK_CARRIED_ROW_HEADER + row->t_len;
	RadikCarriedRow *copy;

	if (state->output_from_keys ||
		(state->carried != NULL && state->carried[position] != NULL))
		return;
	if (*kept_bytes + size > (Size) work_mem * 1024)
		return;
	if (state->carried == NULL)
		state->carried = MemoryContextAllocExtended(context,
													Max(state->ntids, 1) * sizeof(RadikCarriedRow *),
													MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	copy = MemoryContextAlloc(context, size);
	copy->tid = row->t_self;
	copy->len = row->t_len;
	memcpy((char *) copy + RADIK_CARRIED_ROW_HEADER, row->t_data, row->t_len);
	state->carried[position] = copy;
	*kept_bytes += size;
}

/*
 * Order the candidate rows by all sort keys with a tuplesort bounded to the rows wanted (< 0:
 * all of them), and replace state->tids (and state->carried) with the result.  The sorted tuples
 * hold the keys and the candidate's position.  The candidates fetched here are kept, within
 * work_mem, for returning (keep_fetched_row).
 *
 * With several sort keys the engine returns every row tied with the last one on the first key
 * too, and this sort, with PostgreSQL's own comparators, breaks ties on the first key exactly as
 * a Sort node would; so it does with one key whose engine key only summarizes the value
 * (numeric, interval, text, uuid, an enum: radik_datum_keys.c, radik_key_mapper.c).  FETCH
 * FIRST ... WITH TIES asks for the tied rows with one exact key as well, and sorts candidates
 * without a bound: the node returns the count + offset rows and then the rows tied with the last
 * of them, among others, and the Limit node above stops at the first row not tied on all the
 * sort keys, as it does over a Sort.
 */
static void
sort_candidates_by_all_keys(RadikScanState *state, int64 wanted)
{
	ScanState  *ss = &state->css.ss;
	ExprContext *econtext = ss->ps.ps_ExprContext;
	TupleTableSlot *row_slot = ss->ss_ScanTupleSlot;
	int			nkeys = state->nkeys;
	TupleDesc	desc;
	TupleTableSlot *key_slot;
	TupleTableSlot *sorted_slot;
	AttrNumber *attnums;
	Tuplesortstate *sort;
	ItemPointerData *sorted;
	RadikCarriedRow **sorted_carried = NULL;
	int64		nsorted = 0;
	MemoryContext selection_context = CurrentMemoryContext;
	Size		kept_bytes = 0;

	desc = CreateTemplateTupleDesc(nkeys + 1);
	attnums = palloc(nkeys * sizeof(AttrNumber));
	for (int i = 0; i < nkeys; i++)
	{
		TupleDescInitEntry(desc, i + 1, NULL, state->keys[i].type, -1, 0);
		attnums[i] = i + 1;
	}
	TupleDescInitEntry(desc, nkeys + 1, NULL, INT8OID, -1, 0);
	key_slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	sorted_slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);

	/* a bounded sort must say so from the start: 17 keeps an unbounded sort's tuples unfreeable */
	sort = tuplesort_begin_heap(desc, nkeys, attnums, state->sort_operators, state->collations,
								state->nulls_first, work_mem, NULL,
								wanted >= 0 ? TUPLESORT_ALLOWBOUNDED : TUPLESORT_NONE);
	if (wanted >= 0)
		tuplesort_set_bound(sort, wanted);

	/*
	 * The order the candidates enter the sort does not matter: read them a batch at a time
	 * (carried or fetched in table order) and put their keys and positions into the sort.
	 */
	for (int64 start = 0; start < state->ntids; start += state->batch_rows)
	{
		int64		n = Min(state->ntids - start, state->batch_rows);
		HeapTuple  *rows;
		MemoryContext old_context;

		MemoryContextReset(state->batch_context);
		old_context = MemoryContextSwitchTo(state->batch_context);
		rows = MemoryContextAllocHuge(state->batch_context, n * sizeof(HeapTuple));
		memset(rows, 0, n * sizeof(HeapTuple));
		fetch_rows_at(state, start, n, rows);
		MemoryContextSwitchTo(old_context);

		for (int64 i = 0; i < n; i++)
		{
			CHECK_FOR_INTERRUPTS();
			keep_fetched_row(state, start + i, rows[i], selection_context, &kept_bytes);
			ExecStoreHeapTuple(rows[i], row_slot, false);
			ResetExprContext(econtext);
			econtext->ecxt_scantuple = row_slot;
			ExecClearTuple(key_slot);
			for (int k = 0; k < nkeys; k++)
			{
				RadikSortKey *key = &state->keys[k];

				if (key->attnum > 0)
					key_slot->tts_values[k] = slot_getattr(row_slot, key->attnum,
														   &key_slot->tts_isnull[k]);
				else
					key_slot->tts_values[k] = ExecEvalExprSwitchContext(key->expr, econtext,
																		&key_slot->tts_isnull[k]);
			}
			key_slot->tts_values[nkeys] = Int64GetDatum(start + i);
			key_slot->tts_isnull[nkeys] = false;
			ExecStoreVirtualTuple(key_slot);
			tuplesort_puttupleslot(sort, key_slot);
		}
		ExecClearTuple(row_slot);
	}
	MemoryContextReset(state->batch_context);

	tuplesort_performsort(sort);
	sorted = MemoryContextAllocHuge(CurrentMemoryContext,
									Max(state->ntids, 1) * sizeof(ItemPointerData));
	if (state->carried != NULL)
		sorted_carried = MemoryContextAllocHuge(CurrentMemoryContext,
												Max(state->ntids, 1) * sizeof(RadikCarriedRow *));
	/* A bounded sort must not be asked for more rows than its bound. */
	while ((wanted < 0 || nsorted < wanted) &&
		   tuplesort_gettupleslot(sort, true, false, sorted_slot, NULL))
	{
		bool		isnull;
		int64		position = DatumGetInt64(slot_getattr(sorted_slot, nkeys + 1, &isnull));

		sorted[nsorted] = state->tids[position];
		if (sorted_carried != NULL)
			sorted_carried[nsorted] = state->carried[position];
		nsorted++;
	}
	tuplesort_end(sort);
	ExecDropSingleTupleTableSlot(key_slot);
	ExecDropSingleTupleTableSlot(sorted_slot);

	state->tids = sorted;
	state->carried = sorted_carried;
	state->ntids = nsorted;
}

/* Select the rows this scan returns. */
static void
run_selection(RadikScanState *state)
{
	ScanState  *ss = &state->css.ss;
	EState	   *estate = ss->ps.state;
	int64		wanted = rows_wanted(state);
	RadikSelection selection;
	RadikSelectResult result;
	MemoryContext old_context;

	MemoryContextReset(state->selection_context);
	old_context = MemoryContextSwitchTo(state->selection_context);

	selection.rel = ss->ss_currentRelation;
	selection.snapshot = estate->es_snapshot;
	selection.econtext = ss->ps.ps_ExprContext;
	selection.qual = state->qual;
	selection.key = &state->keys[0];
	selection.k = wanted;
	/*
	 * Ties at the cut: all of them for several keys (the next key orders them, NULL rows too) and
	 * for WITH TIES; with one summarized key, the rows whose summary ties (NULL rows are equal).
	 */
	selection.ties = state->nkeys > 1 || state->with_ties ? RADIK_TIES_ALL :
		state->sort_candidates ? RADIK_TIES_KEYS : RADIK_TIES_NONE;
	selection.parallel = estate->es_use_parallel_mode ? &state->parallel : NULL;
	/* Rows made from their keys need no copy; others are carried within work_mem. */
	selection.carry_bytes = state->output_from_keys || state->groups.order_row_keys ? 0 :
		(Size) work_mem * 1024;
	if (state->grouped)
	{
		selection.key = &state->keys[state->selecting];
		state->groups.k = wanted;
		radik_select_groups(&selection, &state->groups, &ss->ps, &result);
		wanted = -1;			/* every row the groups kept, sorted */
	}
	else
		radik_select_rows(&selection, &result);
	state->over_memory = result.over_memory;
	state->tids = result.tids;
	state->carried = result.carried;
	state->ntids = result.ntids;
	state->selected_keys = result.keys;
	state->null_keys_begin = result.null_keys_begin;
	state->null_keys_end = result.null_keys_end;
	/* the rows' keys, where the rows came out ordered with them */
	memset(&state->row_keys, 0, sizeof(state->row_keys));
	if (result.ordered)
		state->row_keys = result.row_keys;
	if (state->sort_candidates && state->ntids > 0 && !result.ordered)
		sort_candidates_by_all_keys(state, state->with_ties ? -1 : wanted);
	for (int64 i = 0; state->carried != NULL && i < state->ntids; i++)
		state->rows_carried += state->carried[i] != NULL;

	MemoryContextSwitchTo(old_context);

	InstrCountFiltered1(state, result.stats.scan.rows_scanned - result.stats.scan.rows_matched);
	state->selections++;
	radik_select_stats_add(&state->totals, &result.stats);

	state->next = 0;
	state->last_key_row = state->previous_key_row = -1;
	state->run_left = 0;
	state->batch_start = state->batch_end = 0;
	state->selected = true;
}

/*
 * The row of the table whose columns are all NULL but the key, whose value is value (a by-value
 * type), with row id tid, at memory (MAXALIGN(HEAPTUPLESIZE + template->t_len) bytes): a copy of
 * the template with the value written in place.  Every other column being NULL, the key is the
 * tuple's only data, at its start.  (Cheaper than heap_form_tuple for each of a million rows.)
 */
static HeapTuple
key_row_from_template(HeapTuple template, Form_pg_attribute key_att, Datum value,
					  ItemPointer tid, char *memory)
{
	HeapTuple	tuple = (HeapTuple) memory;

	tuple->t_len = template->t_len;
	tuple->t_self = *tid;
	tuple->t_tableOid = template->t_tableOid;
	tuple->t_data = (HeapTupleHeader) (memory + HEAPTUPLESIZE);
	memcpy(tuple->t_data, template->t_data, template->t_len);
	store_att_byval((char *) tuple->t_data + tuple->t_data->t_hoff, value, key_att->attlen);
	return tuple;
}

/*
 * A batch of at least GATHER_MIN_ROWS rows is returned going forward from copies of the next
 * GATHER_WINDOW_ROWS rows, at most GATHER_WINDOW_BYTES of them (or one row), made in key order
 * (batch_row): about as much as a processor's second-level cache holds.
 */
#define GATHER_MIN_ROWS 8192
#define GATHER_WINDOW_ROWS 4096
#define GATHER_WINDOW_BYTES (512 * 1024)

/*
 * Make a batch of rows in key order, state->tids[start .. start + batch_rows), in batch_context:
 * rows carried by the scan as they are, the others fetched in TID order.  When the target list
 * reads only the key column, a row is made from its key instead (the other columns NULL, never
 * read), and only the rows whose key does not tell their value exactly are fetched.
 *
 * Most rows need no fetch: the scan carried copies of the rows it handed to the engine, within
 * work_mem (radik_carry.h).  The others (when the copies outgrew work_mem, rows whose key is
 * NULL) are fetched by TID with the query's snapshot (the row versions the selection saw).
 * Fetching a million rows one by one in key order jumps all over the table, so the next rows in
 * key order, as many as fit in work_mem, are fetched in TID order (radik_fetch.c: each page read
 * and locked once per batch, each row checked against the snapshot as heap_fetch checks it),
 * copied, and returned from memory in key order; ExecScan projects the target list.  (radik
 * plans only heap tables, so it reads heap pages itself rather than through the table AM's
 * one-row-at-a-time fetch.)  The keys that stand for several values (a float zero, which may be
 * -0, and NaN) do not tell their value exactly.
 */
void
radik_scan_fetch_batch(RadikScanState *state, int64 start)
{
	ScanState  *ss = &state->css.ss;
	Relation	rel = ss->ss_currentRelation;
	int64		rows = Min(state->ntids - start, state->batch_rows);
	MemoryContext old_context;
	char	   *key_rows = NULL;	/* the rows made from a by-value key's template */
	Size		key_row_size = 0;

	ExecClearTuple(ss->ss_ScanTupleSlot);	/* it points into the old batch */
	MemoryContextReset(state->batch_context);
	old_context = MemoryContextSwitchTo(state->batch_context);

	state->batch_tuples = MemoryContextAllocHuge(state->batch_context,
												 Max(rows, 1) * sizeof(HeapTuple));
	memset(state->batch_tuples, 0, Max(rows, 1) * sizeof(HeapTuple));
	if (state->key_row_template != NULL)
	{
		key_row_size = MAXALIGN(HEAPTUPLESIZE + state->key_row_template->t_len);
		key_rows = MemoryContextAllocHuge(state->batch_context, Max(rows, 1) * key_row_size);
	}
	for (int64 i = 0; state->output_from_keys && i < rows; i++)
	{
		ItemPointer tid = &state->tids[start + i];
		RadikSortKey *key = &state->keys[0];
		int			column = key->attnum - 1;
		bool		exact = true;
		HeapTuple	tuple;

		if (start + i >= state->null_keys_begin && start + i < state->null_keys_end)
			state->row_isnull[column] = true;
		else
		{
			state->row_values[column] = radik_datum_from_key(key->type, key->descending,
															 state->selected_keys[start + i],
															 &exact);
			state->row_isnull[column] = false;
		}
		if (!exact)
			continue;			/* fetched below */
		if (key_rows != NULL && !state->row_isnull[column])
		{
			state->batch_tuples[i] =
				key_row_from_template(state->key_row_template,
									  TupleDescAttr(RelationGetDescr(rel), column),
									  state->row_values[column], tid,
									  key_rows + i * key_row_size);
			continue;
		}
		tuple = heap_form_tuple(RelationGetDescr(rel), state->row_values, state->row_isnull);
		tuple->t_self = *tid;
		tuple->t_tableOid = RelationGetRelid(rel);
		state->batch_tuples[i] = tuple;
	}
	if (state->row_keys.keys != NULL)
		radik_scan_mark_key_rows(state, start, rows, state->batch_tuples);
	fetch_rows_at(state, start, rows, state->batch_tuples);

	MemoryContextSwitchTo(old_context);
	state->batch_start = start;
	state->batch_end = start + rows;
	state->window_tuples = NULL;
	state->window_buffer = NULL;
	state->window_buffer_size = 0;
	state->window_start = state->window_end = 0;
}

/*
 * The selected row numbered row, which the batch holds.  A large batch's rows lie in the order
 * they were fetched or carried, TID order, but are returned in key order: going forward they are
 * copied, a window of the next ones at a time, into a buffer in the order returned
 * (radik_gather_rows); going backward (a cursor) they are returned as they lie.
 */
static HeapTuple
batch_row(RadikScanState *state, int64 row, bool forward)
{
	int64		in_batch = row - state->batch_start;
	int64		size = state->batch_end - state->batch_start;

	if (!forward || size < GATHER_MIN_ROWS)
		return state->batch_tuples[in_batch];
	if (row < state->window_start || row >= state->window_end)
	{
		int64		n = Min(size - in_batch, GATHER_WINDOW_ROWS);

		ExecClearTuple(state->css.ss.ss_ScanTupleSlot); /* it may point into the buffer */
		if (state->window_tuples == NULL)
			state->window_tuples = MemoryContextAlloc(state->batch_context,
													  GATHER_WINDOW_ROWS * sizeof(HeapTuple));
		state->window_start = row;
		state->window_end = row +
			radik_gather_rows(&state->batch_tuples[in_batch], n, GATHER_WINDOW_BYTES,
							  state->window_tuples, &state->window_buffer,
							  &state->window_buffer_size, state->batch_context);
	}
	return state->window_tuples[row - state->window_start];
}

/*
 * The position works as a cursor's: after row i, forward gives row i + 1 and backward row i - 1;
 * past the end (next = ntids + 1), backward gives the last row again; before the start
 * (next = 0), forward gives the first.  Where rows are counted in runs (row_keys.repeats, only in
 * a node never read backward), it gives a run's entry once for each of its rows.
 */
int64
radik_scan_step(RadikScanState *state, bool forward)
{
	int64		row;

	if (state->row_keys.repeats != NULL && !forward)
		elog(ERROR, "radik: rows counted in runs read backward");
	if (forward && state->run_left > 0)
	{
		state->run_left--;
		return state->next - 1;
	}
	row = forward ? state->next : state->next - 2;

	if (row < 0 || row >= state->ntids)
	{
		state->next = forward ? state->ntids + 1 : 0;
		return -1;
	}
	state->next = row + 1;
	if (state->row_keys.repeats != NULL)
		state->run_left = state->row_keys.repeats[row] - 1;
	return row;
}

/*
 * ExecScan's access method: the next selected row in the scan's direction, in the scan slot.  A
 * batch is fetched starting at the row wanted going forward, ending at it going backward.
 */
static TupleTableSlot *
radik_scan_next(ScanState *ss)
{
	RadikScanState *state = (RadikScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	bool		forward = ScanDirectionIsForward(ss->ps.state->es_direction);
	int64		row;

	if (!state->selected)
		run_selection(state);

	row = radik_scan_step(state, forward);
	if (row < 0)
		return ExecClearTuple(slot);
	if (row < state->batch_start || row >= state->batch_end)
		radik_scan_fetch_batch(state, forward ? row : Max(0, row + 1 - state->batch_rows));
	ExecStoreHeapTuple(batch_row(state, row, forward), slot, false);
	slot->tts_tableOid = RelationGetRelid(ss->ss_currentRelation);
	return slot;
}

/* ExecScan's recheck method: the quals ran during the selection, so every row passes. */
static bool
radik_scan_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

/* The next row the selection (or the sorted plan below) returns. */
static TupleTableSlot *
next_selected_row(CustomScanState *node)
{
	RadikScanState *state = (RadikScanState *) node;

	if (state->grouped && !state->selected)
		run_selection(state);
	if (state->over_memory)
		return radik_scan_next_sorted_row(node);
	if (state->row_keys.keys != NULL)
		return radik_scan_next_key_row(state);
	return ExecScan(&node->ss, radik_scan_next, radik_scan_recheck);
}

static TupleTableSlot *
radik_scan_exec(CustomScanState *node)
{
	RadikScanState *state = (RadikScanState *) node;
	TupleTableSlot *slot;

	do
		slot = next_selected_row(node);
	while (state->first_of_group && !TupIsNull(slot) && !radik_scan_first_of_group(state, slot));
	return slot;
}

static void
radik_scan_end(CustomScanState *node)
{
	RadikScanState *state = (RadikScanState *) node;

	MemoryContextDelete(state->selection_context);
	state->selection_context = NULL;
	MemoryContextDelete(state->batch_context);
	state->batch_context = NULL;
	state->tids = NULL;
	state->carried = NULL;
	state->ntids = 0;
	if (node->ss.ss_ScanTupleSlot != NULL)
		ExecClearTuple(node->ss.ss_ScanTupleSlot);
	if (node->custom_ps != NIL)
		ExecEndNode(linitial(node->custom_ps));
}

static void
radik_scan_rescan(CustomScanState *node)
{
	RadikScanState *state = (RadikScanState *) node;

	/* the sorted plan below, where it has returned rows: rewound, or run again */
	if (node->custom_ps != NIL)
	{
		PlanState  *sorted = linitial(node->custom_ps);

		if (node->ss.ps.chgParam != NULL)
			UpdateChangedParamSet(sorted, node->ss.ps.chgParam);
		ExecReScan(sorted);
	}

	/*
	 * A rescan (the node under a correlated subquery or LATERAL) forgets the selection when a
	 * parameter the node depends on has changed: the next call reevaluates the limits and
	 * selects again.  When none has, the same snapshot gives the same rows: return the selection
	 * again from the start, as a Sort rewinds its sorted output, so that a cursor rewound (FETCH
	 * ABSOLUTE, FIRST) sees rows tied on the sort keys in the same order.
	 */
	if (state->first_of_group)
		ExecClearTuple(state->group_before);
	if (state->selected && node->ss.ps.chgParam == NULL)
	{
		state->next = 0;
		state->last_key_row = state->previous_key_row = -1;
		state->run_left = 0;
		ExecScanReScan(&node->ss);
		return;
	}

	state->selected = false;
	state->over_memory = false;
	memset(&state->row_keys, 0, sizeof(state->row_keys));
	state->tids = NULL;
	state->carried = NULL;
	state->ntids = 0;
	state->next = 0;
	state->batch_start = state->batch_end = 0;
	ExecClearTuple(node->ss.ss_ScanTupleSlot);
	MemoryContextReset(state->batch_context);
	MemoryContextReset(state->selection_context);
	ExecScanReScan(&node->ss);
}
