/*
 * radik_scan_groups.c
 *	  The executor side of a grouped RadiK Top-K node (radik_group_paths.c): its groups, the
 *	  count each group keeps, and the rows it returns other than fetched or carried ones: rows made
 *	  from their keys, and PostgreSQL's sorted rows where its groups passed their memory.
 *
 * radik_scan.c runs the node; these are the parts only a grouped node has.  Where the target
 * list reads nothing of a row but its group key and sort key (radik_key_rows.h), the selection
 * returns each row's keys with it, carries no rows, and the node returns rows made from the keys;
 * a row whose key does not tell its value is fetched, with the others of its batch that need it,
 * and projected.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/datum.h"
#include "utils/memutils.h"

#include "radik_scan.h"
#include "radik_scan_state.h"

/* What a batch holds for a row made from its keys, which needs no fetch. */
static HeapTupleData row_made_from_keys;

static void begin_first_of_group(RadikScanState *state, List *columns, List *operators,
								 List *collations);

void
radik_scan_begin_groups(RadikScanState *state, CustomScan *cscan, List *groups, int eflags)
{
	List	   *operators = linitial(groups);
	List	   *collations = lsecond(groups);
	List	   *options = lthird(groups);
	int			nkeys = list_length(operators);

	state->grouped = true;
	state->selecting = list_nth_int(options, RADIK_GROUP_SELECTING_KEY);
	state->k_exclusive = list_nth_int(options, RADIK_GROUP_K_EXCLUSIVE) != 0;
	state->groups.cut = (RadikGroupCut) list_nth_int(options, RADIK_GROUP_CUT);
	state->groups.exprs = list_copy_tail(cscan->custom_exprs,
										 RADIK_EXPR_FIRST_KEY + state->nkeys);
	state->groups.equality_operators = palloc(nkeys * sizeof(Oid));
	state->groups.collations = palloc(nkeys * sizeof(Oid));
	for (int i = 0; i < nkeys; i++)
	{
		state->groups.equality_operators[i] = list_nth_oid(operators, i);
		state->groups.collations[i] = list_nth_oid(collations, i);
	}

	/*
	 * Sorted by one group key, in its type's default order, then by an exact selecting key: the
	 * groups can return their rows in that order (radik_groups_sorted_rows), sparing the sort.
	 */
	state->groups.order_rows =
		radik_groups_sorted_by_keys(nkeys, exprType(linitial(state->groups.exprs)), state->nkeys,
									state->selecting, state->keys[0].type,
									state->sort_operators[0],
									state->keys[state->selecting].type);
	state->groups.order_descending = state->keys[0].descending;
	state->groups.order_nulls_first = state->keys[0].nulls_first;

	/* ... and with their keys, where the target list reads no more of them */
	state->groups.order_row_keys = state->groups.order_rows &&
		radik_key_rows_begin(&state->key_rows, cscan->scan.plan.targetlist,
							 linitial(state->groups.exprs),
							 list_nth(cscan->custom_exprs, RADIK_EXPR_FIRST_KEY + 1),
							 state->keys[1].type, state->keys[1].descending,
							 state->css.ss.ps.state);
	if (state->groups.order_row_keys)
		state->css.ss.ps.resultopsfixed = false;

	state->first_of_group = list_nth_int(options, RADIK_GROUP_FIRST_OF_GROUP) != 0;

	/*
	 * Rows tied at a cut that are made from their keys need no row id each: counted, each run
	 * returned as its rows going forward (a node read backward lists every row)
	 */
	state->groups.count_ties = state->groups.order_row_keys && !state->first_of_group &&
		(eflags & EXEC_FLAG_BACKWARD) == 0;
	if (state->first_of_group)
		begin_first_of_group(state, list_nth(groups, 3), list_nth(groups, 4),
							 list_nth(groups, 5));
}

/* DISTINCT ON: compare rows on columns with operators and collations (all of them lists). */
static void
begin_first_of_group(RadikScanState *state, List *columns, List *operators, List *collations)
{
	PlanState  *ps = &state->css.ss.ps;
	TupleDesc	desc = ExecGetResultType(ps);
	int			n = list_length(columns);
	Oid		   *operator_oids = palloc(n * sizeof(Oid));
	Oid		   *collation_oids = palloc(n * sizeof(Oid));

	state->ngroup_columns = n;
	state->group_columns = palloc(n * sizeof(AttrNumber));
	for (int i = 0; i < n; i++)
	{
		state->group_columns[i] = (AttrNumber) list_nth_int(columns, i);
		operator_oids[i] = list_nth_oid(operators, i);
		collation_oids[i] = list_nth_oid(collations, i);
	}
	state->same_group = execTuplesMatchPrepare(desc, n, state->group_columns, operator_oids,
											   collation_oids, ps);
	state->same_group_context = CreateExprContext(ps->state);
	state->group_before = ExecInitExtraTupleSlot(ps->state, desc, &TTSOpsVirtual);
	memset(state->group_before->tts_isnull, true, desc->natts * sizeof(bool));
	state->group_before_context = AllocSetContextCreate(CurrentMemoryContext,
														"RadiK DISTINCT ON keys",
														ALLOCSET_SMALL_SIZES);
}

bool
radik_scan_first_of_group(RadikScanState *state, TupleTableSlot *row)
{
	TupleTableSlot *before = state->group_before;
	TupleDesc	desc = before->tts_tupleDescriptor;
	ExprContext *econtext = state->same_group_context;
	MemoryContext caller;

	if (!TTS_EMPTY(before))
	{
		econtext->ecxt_innertuple = row;
		econtext->ecxt_outertuple = before;
		if (ExecQualAndReset(state->same_group, econtext))
			return false;
	}
	slot_getallattrs(row);
	ExecClearTuple(before);
	MemoryContextReset(state->group_before_context);
	caller = MemoryContextSwitchTo(state->group_before_context);
	for (int i = 0; i < state->ngroup_columns; i++)
	{
		int			column = state->group_columns[i] - 1;
		Form_pg_attribute attribute = TupleDescAttr(desc, column);

		before->tts_isnull[column] = row->tts_isnull[column];
		before->tts_values[column] = row->tts_isnull[column] ? (Datum) 0 :
			datumCopy(row->tts_values[column], attribute->attbyval, attribute->attlen);
	}
	MemoryContextSwitchTo(caller);
	ExecStoreVirtualTuple(before);
	return true;
}

int64
radik_scan_group_count(RadikScanState *state)
{
	ExprContext *econtext = state->css.ss.ps.ps_ExprContext;
	bool		isnull;
	Datum		value = ExecEvalExprSwitchContext(state->limit_count, econtext, &isnull);
	int64		count;

	if (isnull)
		return 0;
	switch (exprType((Node *) state->limit_count->expr))
	{
		case INT2OID:
			count = DatumGetInt16(value);
			break;
		case INT4OID:
			count = DatumGetInt32(value);
			break;
		default:
			count = DatumGetInt64(value);
			break;
	}
	if (state->k_exclusive && count > PG_INT64_MIN)
		count--;
	return Max(count, 0);
}

/* Is the selected row numbered row made from its keys? */
static inline bool
row_from_keys(RadikScanState *state, int64 row)
{
	return radik_key_rows_exact(&state->key_rows, radik_group_row_bits(&state->row_keys, row),
								state->row_keys.keys[row], state->row_keys.flags[row]);
}

void
radik_scan_mark_key_rows(RadikScanState *state, int64 start, int64 n, HeapTuple *rows)
{
	for (int64 i = 0; i < n; i++)
	{
		if (row_from_keys(state, start + i))
			rows[i] = &row_made_from_keys;
	}
}

TupleTableSlot *
radik_scan_next_key_row(RadikScanState *state)
{
	ScanState  *ss = &state->css.ss;
	ExprContext *econtext = ss->ps.ps_ExprContext;
	bool		forward = ScanDirectionIsForward(ss->ps.state->es_direction);
	int64		row;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	TupleTableSlot *made;

	CHECK_FOR_INTERRUPTS();
	state->previous_key_row = state->last_key_row;
	state->last_key_row = -1;
	row = radik_scan_step(state, forward);
	if (row < 0)
		return ExecClearTuple(state->key_rows.slot);
	made = radik_key_rows_make(&state->key_rows, radik_group_row_bits(&state->row_keys, row),
							   state->row_keys.keys[row], state->row_keys.flags[row]);
	if (made != NULL)
	{
		if (forward)
			state->last_key_row = row;
		return made;
	}

	/* a key that stands for several values: the row itself, projected */
	if (row < state->batch_start || row >= state->batch_end)
		radik_scan_fetch_batch(state, forward ? row : Max(0, row + 1 - state->batch_rows));
	ExecStoreHeapTuple(state->batch_tuples[row - state->batch_start], slot, false);
	slot->tts_tableOid = RelationGetRelid(ss->ss_currentRelation);
	if (ss->ps.ps_ProjInfo == NULL)
		return slot;
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
	return ExecProject(ss->ps.ps_ProjInfo);
}

/* node as a grouped RadiK Top-K node's state, or NULL where it is another node */
static RadikScanState *
grouped_scan_state(PlanState *node)
{
	if (!IsA(node, CustomScanState) || !IsA(node->plan, CustomScan) ||
		((CustomScan *) node->plan)->methods != &radik_scan_methods)
		return NULL;
	return ((RadikScanState *) node)->grouped ? (RadikScanState *) node : NULL;
}

bool
radik_scan_knows_boundaries(PlanState *node, AttrNumber group_column, AttrNumber order_column)
{
	RadikScanState *state = grouped_scan_state(node);

	return state != NULL && state->groups.order_row_keys &&
		group_column >= 1 && group_column <= state->key_rows.ncolumns &&
		order_column >= 1 && order_column <= state->key_rows.ncolumns &&
		state->key_rows.columns[group_column - 1] == RADIK_KEY_COLUMN_GROUP &&
		state->key_rows.columns[order_column - 1] == RADIK_KEY_COLUMN_ORDER;
}

/*
 * Does row (not the first) begin a new group, or a new run of equal sort keys, after the row
 * before it?  Of two rows made from their keys, which then are exact: equal bits, equal values.
 */
static inline void
key_row_boundaries(const RadikGroupRowKeys *keys, int64 row, bool *new_group, bool *new_peers)
{
	uint8		flags = keys->flags[row];
	uint8		flags_before = keys->flags[row - 1];

	*new_group = (flags & RADIK_ROW_GROUP_START) != 0;
	*new_peers = ((flags ^ flags_before) & RADIK_ROW_KEY_NULL) != 0 ||
		((flags & RADIK_ROW_KEY_NULL) == 0 && keys->keys[row] != keys->keys[row - 1]);
}

bool
radik_scan_row_boundaries(PlanState *node, bool *new_group, bool *new_peers)
{
	RadikScanState *state = (RadikScanState *) node;
	int64		row = state->last_key_row;

	if (row >= 0 && state->previous_key_row == row)
	{
		/* a run's entry again (rows counted, row_keys.repeats): its row before's keys */
		*new_group = *new_peers = false;
		return true;
	}
	if (row < 1 || state->previous_key_row != row - 1)
		return false;
	key_row_boundaries(&state->row_keys, row, new_group, new_peers);
	return true;
}

RadikKeyValues
radik_scan_next_key_values(PlanState *node, Datum *values, bool *nulls, bool values_kept,
						   bool *new_group, bool *new_peers)
{
	RadikScanState *state = (RadikScanState *) node;
	RadikGroupRowKeys *keys = &state->row_keys;
	int64		row = state->next;
	bool		boundaries_known;
	bool		same_row;

	if (!state->selected || state->over_memory || keys->keys == NULL ||
		state->first_of_group || !ScanDirectionIsForward(node->state->es_direction))
		return RADIK_KEY_VALUES_NONE;
	if (state->run_left > 0)
	{
		/* the entry returned last again, a run of rows counted: the same keys */
		row = state->next - 1;
		boundaries_known = true;
		*new_group = *new_peers = false;
	}
	else if (row >= state->ntids)
	{
		(void) radik_scan_step(state, true);
		state->previous_key_row = state->last_key_row = -1;
		return RADIK_KEY_VALUES_END;
	}
	else
	{
		/* the row before made from its keys, as radik_scan_row_boundaries asks */
		boundaries_known = row > 0 && state->last_key_row == row - 1;
		if (boundaries_known)
			key_row_boundaries(keys, row, new_group, new_peers);
	}

	/* this row of the row before's group and its peer: the same row */
	same_row = boundaries_known && values_kept && !*new_group && !*new_peers;
	if (!same_row &&
		!radik_key_rows_fill(&state->key_rows, radik_group_row_bits(keys, row), keys->keys[row],
							 keys->flags[row], values, nulls))
		return RADIK_KEY_VALUES_NONE;

	(void) radik_scan_step(state, true);
	state->previous_key_row = state->last_key_row;
	state->last_key_row = row;
	if (node->instrument != NULL)
		node->instrument->tuplecount += 1;
	return same_row ? RADIK_KEY_VALUES_SAME_ROW :
		boundaries_known ? RADIK_KEY_VALUES_ROW : RADIK_KEY_VALUES_ROW_ALONE;
}

TupleTableSlot *
radik_scan_next_sorted_row(CustomScanState *node)
{
	if (node->custom_ps == NIL)
	{
		RadikScanState *state = (RadikScanState *) node;
		CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
		EState	   *estate = node->ss.ps.state;
		MemoryContext caller = MemoryContextSwitchTo(estate->es_query_cxt);

		if (cscan->custom_plans == NIL)
			elog(ERROR, "radik: grouped selection over memory without a sorted plan");
		node->custom_ps = list_make1(ExecInitNode(linitial(cscan->custom_plans), estate,
												  state->sorted_plan_eflags));
		MemoryContextSwitchTo(caller);
	}
	return ExecProcNode(linitial(node->custom_ps));
}
