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
 * numeric key (whose engine key only summarizes the value), and for FETCH FIRST ... WITH TIES.
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

/* How one sort key is computed and ordered. */
typedef struct RadikSortKey
{
	Oid			type;			/* one of radik_key_type_supported()'s types */
	bool		descending;
	bool		nulls_first;
	AttrNumber	attnum;			/* > 0: a plain column of the table, read directly */
	ExprState  *expr;			/* else: evaluated in econtext, the row as its scan tuple */
} RadikSortKey;

/*
 * A heap TID packed into 48 bits (block << 16 | offset): the engine's row id, and a sort key
 * that orders rows by their place in the table.
 */
static inline uint64
radik_pack_tid(const ItemPointerData *tid)
{
	return ((uint64) ItemPointerGetBlockNumberNoCheck(tid) << 16) |
		(uint64) ItemPointerGetOffsetNumberNoCheck(tid);
}

static inline BlockNumber
radik_packed_tid_block(uint64 packed)
{
	return (BlockNumber) (packed >> 16);
}

static inline OffsetNumber
radik_packed_tid_offset(uint64 packed)
{
	return (OffsetNumber) (packed & 0xFFFF);
}

static inline void
radik_unpack_tid(uint64 packed, ItemPointer tid)
{
	ItemPointerSet(tid, radik_packed_tid_block(packed), radik_packed_tid_offset(packed));
}

/*
 * What parallel workers need to extract keys too (radik_parallel.h): the quals and the first
 * key as plan expressions, to be sent to them, and the query's parameters.
 */
typedef struct RadikParallelPlan
{
	int			nworkers;		/* workers to ask for; 0: the calling process alone */
	List	   *quals;
	Expr	   *key_expr;
	ParamListInfo params;
} RadikParallelPlan;

/* What the selection did, for EXPLAIN ANALYZE. */
typedef struct RadikSelectStats
{
	char		device[128];	/* "cpu" or the GPU's name */
	int			workers_launched;	/* parallel workers that ran */
	int64		rows_scanned;	/* visible rows read from the heap */
	int64		rows_matched;	/* of those, rows that passed the quals */
	int64		rows_rescanned; /* visible rows read again to gather ties (RadikTies) */
	int64		rows_sent;		/* keys handed to the engine */
	int64		seed_pages;		/* pages sampled for a first threshold (radik_seed.h) */
	int64		seed_thresholds;	/* selections the sample gave one */
	int64		seed_misses;	/* of those, selections it failed: the table was read again */
	int64		gpu_fallbacks;	/* selections run again on the CPU: the GPU was out of memory */
	double		scan_ms;		/* reading the heap and computing keys */
	double		copy_ms;		/* handing chunks to the engine */
	double		select_ms;		/* the engine's selection after the last chunk */
} RadikSelectStats;

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
} RadikSelectResult;

/* Which rows tied with the k-th a selection returns beyond k. */
typedef enum RadikTies
{
	RADIK_TIES_NONE,			/* none: exactly k rows */
	RADIK_TIES_KEYS,			/* every row whose (non-NULL) key equals the k-th's */
	RADIK_TIES_ALL				/* those, and every row whose key is NULL when the k-th's is */
} RadikTies;

/*
 * Select the best k rows of rel visible to snapshot that pass qual (NULL: all rows).
 * econtext is used to evaluate qual and key->expr; its scan tuple is set to each row in turn.
 * k < 0 means no limit (every row, ordered).  With parallel (may be NULL) asking for workers,
 * and the caller in parallel mode, parallel workers read part of the table.  With carry_bytes
 * > 0 the rows are carried whole by the scan, up to that many bytes of copies, so that the
 * caller need not fetch them (radik_carry.h; result->carried).  The result is
 * palloc'd in the current memory context; engine resources are released on error through a
 * memory context callback.
 */
extern void radik_select_rows(Relation rel, Snapshot snapshot, ExprContext *econtext,
							  ExprState *qual, const RadikSortKey *key, int64 k, RadikTies ties,
							  const RadikParallelPlan *parallel, Size carry_bytes,
							  RadikSelectResult *result);

#endif							/* RADIK_SELECT_H */
