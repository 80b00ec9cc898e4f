/*
 * radik_scan_state.h
 *	  The executor state of a RadiK Top-K scan, shared by the node's execution (radik_scan.c)
 *	  and its EXPLAIN output (radik_scan_explain.c).
 */
#ifndef RADIK_SCAN_STATE_H
#define RADIK_SCAN_STATE_H

#include "postgres.h"

#include "commands/explain.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"

#include "radik_groups.h"
#include "radik_key_rows.h"
#include "radik_select.h"

typedef struct RadikScanState
{
	CustomScanState css;

	List	   *row_quals;		/* what runs on every row while selecting (selection_quals) */
	ExprState  *qual;			/* row_quals compiled */
	ExprState  *limit_count;
	ExprState  *limit_offset;
	int			nkeys;
	RadikSortKey *keys;			/* one per sort key; keys[0] drives the selection */
	Oid		   *sort_operators;
	Oid		   *collations;
	bool	   *nulls_first;
	RadikParallelPlan parallel; /* workers planned, and what they need */
	bool		with_ties;		/* FETCH FIRST ... WITH TIES: return the rows tied at the cut */
	int			selecting;		/* the key the engine selects by: keys[selecting] */
	bool		grouped;		/* the best rows of each group (radik_group_paths.c) */
	RadikGroupSpec groups;		/* ... of these groups; groups.k is set per selection */
	bool		k_exclusive;	/* grouped: the count excludes itself ("< k") */
	bool		sort_candidates;	/* the selection's rows are sorted by all keys here */
	bool		over_memory;	/* grouped: the groups passed their memory; the rows come
								 * from the sorted plan below (custom_ps) */
	int			sorted_plan_eflags;	/* the executor flags that plan starts with */

	MemoryContext selection_context;	/* the selected TIDs; reset on rescan */
	bool		selected;		/* has this scan's selection run? */
	ItemPointerData *tids;		/* the rows to return, in order */
	RadikCarriedRow **carried;	/* each row's copy carried by the scan, or NULL; may be NULL */
	int64		ntids;
	int64		next;			/* index of the next row forward; see radik_scan_next */

	/*
	 * With one sort key that is a plain column, and a target list that reads no other column,
	 * rows are made from their selected keys instead of fetched (see fetch_batch).
	 */
	bool		output_from_keys;
	uint64	   *selected_keys;	/* the selection's keys, parallel to tids */
	int64		null_keys_begin;
	int64		null_keys_end;
	Datum	   *row_values;		/* a row of the table with only the key column set */
	bool	   *row_isnull;
	HeapTuple	key_row_template;	/* such a row formed once, for a by-value key (or NULL) */

	/*
	 * A grouped node whose target list reads only the group and sort keys
	 * (groups.order_row_keys) makes its rows from them (radik_key_rows.h), where the selection
	 * returned them (row_keys.keys set).  last_key_row is the row it returned last where that
	 * was such a row going forward (else -1), previous_key_row the same for the call before:
	 * radik_scan_row_boundaries compares their keys.  Where the selection counted rows tied at
	 * a cut (row_keys.repeats), an entry stands for several rows, returned one after the other:
	 * run_left is how many of the last entry's rows are still to come.
	 */
	RadikKeyRows key_rows;
	RadikGroupRowKeys row_keys; /* the selection's, parallel to tids */
	int64		last_key_row;
	int64		previous_key_row;
	int64		run_left;

	/*
	 * DISTINCT ON: the node returns only each group's first row, where the selection keeps a
	 * group's rows tied at its cut too (the later sort keys order them) and the sorted plan below
	 * returns every row.  The row returned last's DISTINCT ON columns (group_columns of the
	 * node's rows, the other columns NULL; empty before the first row) are compared with each
	 * row's (radik_scan_first_of_group).
	 */
	bool		first_of_group;
	int			ngroup_columns;
	AttrNumber *group_columns;
	ExprState  *same_group;
	ExprContext *same_group_context;
	TupleTableSlot *group_before;
	MemoryContext group_before_context;

	/* The batch of fetched rows: tids[batch_start .. batch_end) as heap tuple copies. */
	MemoryContext batch_context;
	HeapTuple  *batch_tuples;
	int64		batch_start;
	int64		batch_end;
	int64		batch_rows;		/* rows per batch, sized by work_mem */
	/* A large batch's rows batch_tuples[window_start .. window_end) copied in order (batch_row) */
	HeapTuple  *window_tuples;
	char	   *window_buffer;
	Size		window_buffer_size;
	int64		window_start;
	int64		window_end;

	/* Totals over every selection of this node, for EXPLAIN ANALYZE. */
	int64		selections;
	RadikSelectStats totals;
	int64		rows_carried;	/* rows to return that the scan carried whole */
} RadikScanState;

/*
 * The selected row the scan returns next in its direction, the position moved past it; -1 past
 * either end, the position left there (radik_scan.c).
 */
extern int64 radik_scan_step(RadikScanState *state, bool forward);

/* Fetch the batch of rows from start (radik_scan.c). */
extern void radik_scan_fetch_batch(RadikScanState *state, int64 start);

/*
 * A grouped node's groups, from the plan's list at RADIK_PRIVATE_GROUPS, for the node started
 * with eflags (radik_scan_groups.c).
 */
extern void radik_scan_begin_groups(RadikScanState *state, CustomScan *cscan, List *groups,
									int eflags);

/*
 * The rows (or distinct keys) each group keeps: the run condition's bound, an integer of any
 * width, less one when it excludes itself; none for a NULL or a count below one.
 */
extern int64 radik_scan_group_count(RadikScanState *state);

/* Mark rows[0 .. n), the selected rows from start, that are made from their keys: no fetch. */
extern void radik_scan_mark_key_rows(RadikScanState *state, int64 start, int64 n,
									 HeapTuple *rows);

/*
 * The next selected row in the scan's direction, made from its keys (or fetched and projected
 * where they do not tell its values), as the node returns it.
 */
extern TupleTableSlot *radik_scan_next_key_row(RadikScanState *state);

/*
 * DISTINCT ON: does row begin a group (its DISTINCT ON columns differ from the row returned
 * last's)?  If so it becomes the row returned last.
 */
extern bool radik_scan_first_of_group(RadikScanState *state, TupleTableSlot *row);

/*
 * The next row of the sorted plan below the node, where the groups passed their memory: that
 * plan's own slot, valid until the next call as any node's row is (its target list is the node's,
 * radik_planner.c).  The plan is started on its first row, not with the node: most selections
 * never need it, and EXPLAIN shows it only where it ran.
 */
extern TupleTableSlot *radik_scan_next_sorted_row(CustomScanState *node);

/* EXPLAIN for the node (radik_scan_explain.c). */
extern void radik_scan_explain(CustomScanState *node, List *ancestors, ExplainState *es);

#endif							/* RADIK_SCAN_STATE_H */
