/*
 * radik_select.h
 *	  The one code path, shared by the custom scan (ORDER BY ... LIMIT) and the SQL function
 *	  radik_topk(), that scans a heap table under a snapshot, computes the first sort key of every
 *	  visible row that passes the quals, and selects the best rows with the engine.
 *
 * The caller describes the sort key (type, direction, where NULLs go, and how to compute it: a
 * plain column read straight from the tuple, or an expression evaluated over the scan slot) and
 * k; it gets back the TIDs of the selected rows in order.  Rows whose keys tie at the boundary are
 * cut arbitrarily so that exactly k come back, unless ties are asked for (RadikTies): then every
 * row whose key equals the last selected row's key is returned too.  The custom scan asks for
 * them to order several sort keys exactly (the rows it must sort are all among these), for a
 * summarized key (numeric, interval, text, uuid: the engine key only summarizes the value), and
 * for FETCH FIRST ... WITH TIES.
 */
#ifndef RADIK_SELECT_H
#define RADIK_SELECT_H

#include "postgres.h"

#include "executor/executor.h"
#include "nodes/params.h"
#include "nodes/execnodes.h"
#include "storage/itemptr.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "radik_carry.h"
#include "radik_datum_keys.h"
#include "radik_feed.h"
#include "radik_groups.h"
#include "radik_heap.h"



/* The selection's answer: TIDs in order, best first. */
typedef struct RadikSelectResult
{
	ItemPointerData *tids;
	int64		ntids;
	RadikSelectStats stats;
	/* With carry_bytes: each row's copy carried by the scan, or NULL where it must be fetched */
	RadikCarriedRow **carried;
	/* Each row's engine key (radik_key_map's), except for the rows whose key is NULL: */
	uint64	   *keys;
	int64		null_keys_begin;	/* rows [null_keys_begin, null_keys_end) have NULL keys */
	int64		null_keys_end;
	bool		ordered;		/* a grouped selection's rows come in the order of all keys */
	/* ... and with groups->order_row_keys, the rows' keys, in the order of the rows */
	RadikGroupRowKeys row_keys;
	bool		over_memory;	/* a grouped selection's groups passed their memory: no rows */
} RadikSelectResult;

/* Which rows tied with the k-th a selection returns beyond k. */
typedef enum RadikTies
{
	RADIK_TIES_NONE,			/* none: exactly k rows */
	RADIK_TIES_KEYS,			/* every row whose (non-NULL) key equals the k-th's */
	RADIK_TIES_ALL				/* those, and every row whose key is NULL when the k-th's is */
} RadikTies;

/*
 * One selection: the best k rows (k < 0: every row, ordered) of rel visible to snapshot that
 * pass qual (NULL: all rows), with the rows tied at the cut that ties asks for.  econtext is
 * used to evaluate qual and key->expr; its scan tuple is set to each row in turn.  With parallel
 * (may be NULL) asking for workers, and the caller in parallel mode, parallel workers read part
 * of the table.  With carry_bytes > 0 the rows are carried whole by the scan, up to that many
 * bytes of copies, so that the caller need not fetch them (radik_carry.h; result->carried).
 */
typedef struct RadikSelection
{
	Relation	rel;
	Snapshot	snapshot;
	ExprContext *econtext;
	ExprState  *qual;
	const RadikSortKey *key;
	int64		k;
	RadikTies	ties;
	const RadikParallelPlan *parallel;
	Size		carry_bytes;
} RadikSelection;

/*
 * Select.  The result is palloc'd in the current memory context; engine resources are released
 * on error through a memory context callback.
 */
extern void radik_select_rows(const RadikSelection *selection, RadikSelectResult *result);

/*
 * Select the best rows of each group instead (radik_group_select.c): per group of groups, the
 * rows before the cut at groups->k by selection->key (selection->k and ties are not used); the
 * row ids in no order, or in order (result->ordered) where groups->order_rows asks for it and the
 * groups can, with their keys where groups->order_row_keys asks for them too; no rows, with
 * result->over_memory, where the groups passed their memory (work_mem x hash_mem_multiplier a
 * process).  With carry_bytes > 0 the parallel workers send copies of the rows they keep, and
 * this process copies its own while it waits for them (each within the memory its groups leave
 * unused, not carry_bytes), in result->carried.  Group key expressions are compiled for parent.
 */
extern void radik_select_groups(const RadikSelection *selection, const RadikGroupSpec *groups,
								PlanState *parent, RadikSelectResult *result);

#endif							/* RADIK_SELECT_H */
