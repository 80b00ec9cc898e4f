/*
 * radik_feed.h
 *	  Feeding the rows of a table to one engine selection (radik_feed.c).
 *
 * The table is read by the key extractor, in this process and in parallel workers; each row that
 * passes the quals goes, with its key, into the engine's chunk buffer, unless its key is beyond
 * the engine's running threshold or NULL (those rows are kept aside); whole rows may be carried
 * with their keys (radik_carry.h), and with ties a copy of the keys pushed is kept.  Under
 * radik.device = auto a selection the GPU runs out of memory for is run again on the CPU.
 * radik_select.c decides what to select and makes the answer of what the engine returns.
 */
#ifndef RADIK_FEED_H
#define RADIK_FEED_H

#include "postgres.h"

#include "executor/executor.h"
#include "nodes/params.h"
#include "portability/instr_time.h"
#include "storage/itemptr.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "radik_carry.h"
#include "radik_compat.h"
#include "radik_engine.h"
#include "radik_heap.h"
#include "radik_parallel.h"

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

/*
 * What one selection reads and keeps: rel's rows visible to snapshot that pass qual (NULL: all;
 * evaluated in econtext, as key->expr is, with the row as its scan tuple), the table's blocks
 * when the selection began, at most nulls_limit rows whose key is NULL, with keep_pushed a copy
 * of the keys pushed (within work_mem), and with carry_bytes > 0 whole rows, up to that many
 * bytes of copies.
 */
typedef struct RadikFeedRequest
{
	Relation	rel;
	Snapshot	snapshot;
	ExprContext *econtext;
	ExprState  *qual;
	const RadikSortKey *key;
	const RadikParallelPlan *parallel;	/* may be NULL */
	BlockNumber nblocks;
	int64		nulls_limit;
	bool		keep_pushed;
	Size		carry_bytes;
} RadikFeedRequest;

/* What a selection did, for EXPLAIN ANALYZE. */
typedef struct RadikSelectStats
{
	char		device[128];	/* "cpu" or the GPU's name */
	int			workers_launched;	/* parallel workers that ran */
	RadikScanCounts scan;		/* rows read and matched, ICU keys, pages copied */
	int64		rows_rescanned; /* visible rows read again to gather ties (RadikTies) */
	int64		rows_sent;		/* keys handed to the engine */
	int64		seed_pages;		/* pages sampled for a first threshold (radik_seed.h) */
	int64		seed_thresholds;	/* selections the sample gave one */
	int64		seed_misses;	/* of those, selections it failed: the table was read again */
	int64		brin_ranges_read;	/* block ranges read in BRIN order (radik_brin.h) */
	int64		brin_ranges_skipped;	/* and left unread, their summaries beyond the k-th key */
	int64		gpu_fallbacks;	/* selections run again on the CPU: the GPU was out of memory */
	int64		groups;			/* a grouped selection's groups */
	int64		groups_over_memory;	/* grouped selections whose groups passed their memory */
	bool		icu_table;		/* the key's ICU collation has a table (radik_icu_keys.h); of its
								 * keys, scan.keys_from_icu the table did not cover */
	double		scan_ms;		/* reading the heap and computing keys */
	double		copy_ms;		/* handing chunks to the engine */
	double		select_ms;		/* the engine's selection after the last chunk */
} RadikSelectStats;

/* Milliseconds since start. */
static inline double
radik_elapsed_ms(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return INSTR_TIME_GET_MILLISEC(now);
}

/* Add one selection's figures to the totals (the device: the last one's). */
extern void radik_select_stats_add(RadikSelectStats *totals, const RadikSelectStats *one);

/* Add what this process's extractor counted (rows, ICU keys, pages copied) to stats. */
extern void radik_select_stats_add_scan(RadikSelectStats *stats, const RadikExtractor *extractor);

typedef struct RadikEngineGuard RadikEngineGuard;

/* A growable array of TIDs (the rows whose key is NULL). */
typedef struct RadikTidList
{
	ItemPointerData *items;
	int64		count;
	int64		capacity;
} RadikTidList;

/*
 * Where extracted rows go: the engine's current chunk buffer (rows up to push_at, then pushed),
 * the running threshold, and the rows whose key is NULL.
 */
typedef struct RadikFeed
{
	RadikFeedRequest request;
	RadikEngineGuard *guard;
	radik_device device;		/* where the selection runs */
	bool		via_service;	/* the GPU is the GPU service's (radik_service.h) */
	bool		gpu_starting;	/* on the CPU because the GPU is starting in the background */
	bool		gpu_failed;		/* the GPU ran out of memory or its service ended (auto) */
	radik_error gpu_failure;	/* the engine's words for it */
	int			key_bytes;
	void	   *keys;
	uint64	   *ids;
	size_t		capacity;
	size_t		count;
	size_t		push_at;
	uint64		threshold;		/* PG_UINT64_MAX until the engine has k keys */
	uint64		start_threshold;	/* the threshold a selection starts with (PG_UINT64_MAX) */
	RadikParallelScan *workers; /* told every new threshold; may be NULL */
	RadikRowStore *carry;		/* rows carried whole (radik_carry.h); NULL: none */
	bool		carrying;		/* carry is not full yet */
	RadikTidList nulls;
	int64		rows_sent;
	size_t		rows_pushed;	/* by this selection (radik_feed_select) */
	double		copy_ms;

	/* With ties: a copy of every key and id pushed by this selection, up to kept_limit. */
	bool		kept_all;		/* the copy holds every row pushed so far */
	uint64	   *kept_keys;
	uint64	   *kept_ids;
	size_t		kept_count;
	size_t		kept_capacity;
	size_t		kept_limit;
	MemoryContext kept_context; /* where the copy lives */
} RadikFeed;

/*
 * Make feed ready for request: choose the device (radik.device = gpu without a GPU fails here,
 * before any work), make the row store in the current memory context, and tie the engine
 * selection's life to work_context, where the kept copy lives too.
 */
extern void radik_feed_begin(RadikFeed *feed, const RadikFeedRequest *request,
							 MemoryContext work_context);

/*
 * Open the engine's selection of the engine_k best keys, feed it every row the request reads
 * (with seed_need > 0, behind a threshold judged from a sample first: radik_seed.h), and finish
 * it; under radik.device = auto, once again on the CPU if the GPU ran out of memory.  Returns the
 * number of rows the engine selected; adds what it did to stats.
 */
extern uint64 radik_feed_select(RadikFeed *feed, uint64 engine_k, uint64 seed_need,
								RadikSelectStats *stats);

/*
 * The finished selection's rows, sorted by key: their keys (returned) and ids (*ids), in the
 * current memory context; the selection is closed.
 */
extern uint64 *radik_feed_result(RadikFeed *feed, uint64 count, uint64 **ids);

/* Close the engine selection, if one is open. */
extern void radik_feed_close(RadikFeed *feed);

#endif							/* RADIK_FEED_H */
