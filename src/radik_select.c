/*
 * radik_select.c
 *	  Select the best rows of a table (radik_select.h): how many to ask the engine for, the rows
 *	  tied at the cut, and the answer made of what the engine and the feed return.
 *
 * The table's rows reach the engine through the feed (radik_feed.c).  Rows whose key is NULL
 * never reach the engine: the feed keeps them aside, and they are placed first or last here, as
 * NULLS FIRST / NULLS LAST asks.  When a threshold from a sample of the table was used and the
 * engine ended with fewer than k rows, that threshold may have dropped rows of the answer, and
 * the table is read again without it.
 *
 * Ties (RadikTies): the engine cuts rows with equal keys arbitrarily at the boundary.  To learn
 * whether that cut separated equal keys without a second pass in the usual case, the engine is
 * asked for one row more than k: when the extra row's key differs from the k-th, no row left out
 * ties with the last one kept.  When it is equal, the rows of the group the engine left out were
 * all pushed to it (a row is dropped only when its key is above the running threshold, which
 * never falls below the boundary key), so the feed keeps a copy of every key and id it pushes,
 * up to work_mem, and takes the group from there.  Only when that copy outgrew work_mem is the
 * table read again (with the workers, as the first time), in a selection of every row whose key
 * is at or below the boundary key: its threshold is that key from the first row on, so only the
 * rows before the group and the group itself reach the engine, and they are the answer.
 */
#include "postgres.h"

#include "access/heapam.h"
#include "catalog/pg_am.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "radik_feed.h"
#include "radik_select.h"

/*
 * Where the answer is cut, k rows into the order "the rows whose key is NULL first or last, the
 * engine's rows in key order" (k < 0: nowhere): how many NULL rows (*take_nulls) and how many of
 * the engine's rows (*take_engine) come before the cut.  With ties (RadikTies), the rows tied
 * with the k-th are kept too: the engine's rows whose key equals the k-th's, and with
 * RADIK_TIES_ALL every NULL row when the k-th is one.  The engine returned one row more than k,
 * so a following row with another key shows that it cut no group of equal keys; when it cut one,
 * the engine's rows stop before the group and the function returns true with the group's key in
 * *tie_key, for the caller to add the whole group.
 */
static bool
choose_cut(int64 k, RadikTies ties, bool nulls_first, int64 nnull, const uint64 *engine_keys,
		   int64 nengine, int64 *take_nulls, int64 *take_engine, uint64 *tie_key)
{
	/* Everything found is wanted. */
	*take_nulls = nnull;
	*take_engine = nengine;
	if (k < 0 || nnull + nengine <= k)
		return false;

	if (ties != RADIK_TIES_NONE)
	{
		/* the k-th row's index among the engine's; -1: a NULL row */
		int64		boundary;

		if (nulls_first)
			boundary = (k - 1 < nnull) ? -1 : k - 1 - nnull;
		else
			boundary = (k - 1 < nengine) ? k - 1 : -1;

		if (boundary >= 0)
		{
			*take_nulls = nulls_first ? nnull : 0;
			*take_engine = boundary + 1;
			if (boundary + 1 < nengine && engine_keys[boundary + 1] == engine_keys[boundary])
			{
				*tie_key = engine_keys[boundary];
				while (*take_engine > 0 && engine_keys[*take_engine - 1] == *tie_key)
					(*take_engine)--;
				return true;
			}
			return false;
		}
		if (ties == RADIK_TIES_ALL)
		{
			/* Every NULL row ties with the k-th; with NULLS LAST every other row precedes it. */
			*take_engine = nulls_first ? 0 : nengine;
			return false;
		}
		/* RADIK_TIES_KEYS: NULL rows are cut as without ties. */
	}

	if (nulls_first)
	{
		*take_nulls = Min(nnull, k);
		*take_engine = k - *take_nulls;
	}
	else
	{
		*take_engine = Min(nengine, k);
		*take_nulls = k - *take_engine;
	}
	return false;
}

void
radik_select_rows(const RadikSelection *selection, RadikSelectResult *result)
{
	Relation	rel = selection->rel;
	const RadikSortKey *key = selection->key;
	int64		k = selection->k;
	RadikTies	ties = selection->ties;
	MemoryContext caller_context = CurrentMemoryContext;
	MemoryContext work_context;
	RadikFeedRequest request;
	RadikFeed	feed;
	BlockNumber nblocks;
	uint64		row_bound;
	uint64		engine_k;
	TupleTableSlot *saved_scantuple = selection->econtext->ecxt_scantuple;
	uint64		engine_count;
	uint64	   *engine_keys;
	uint64	   *engine_ids;
	instr_time	start;
	instr_time	step;
	int64		take_nulls;
	int64		take_engine;
	uint64		tie_key = 0;
	bool		cut_group;
	int64		out;

	memset(result, 0, sizeof(*result));
	strlcpy(result->stats.device, "none", sizeof(result->stats.device));
	result->tids = palloc(sizeof(ItemPointerData));
	result->keys = palloc(sizeof(uint64));
	if (k == 0)
		return;

	/*
	 * No visible row lies beyond the blocks the table has now, so this bounds the rows the scan
	 * can find; k beyond it (or no limit at all) means every row, in order.  (Other table AMs
	 * get a bound that never cuts; the engine never sizes anything by k.)
	 */
	nblocks = RelationGetNumberOfBlocks(rel);
	if (rel->rd_rel->relam == HEAP_TABLE_AM_OID)
		row_bound = (uint64) nblocks * MaxHeapTuplesPerPage;
	else
		row_bound = (uint64) PG_INT64_MAX / 4;
	if (k < 0 || (uint64) k > row_bound)
	{
		engine_k = row_bound;
		ties = RADIK_TIES_NONE;	/* every row is returned: nothing is cut */
	}
	else
		engine_k = ties != RADIK_TIES_NONE ? (uint64) k + 1 : (uint64) k;

	request.rel = rel;
	request.snapshot = selection->snapshot;
	request.econtext = selection->econtext;
	request.qual = selection->qual;
	request.key = key;
	request.parallel = selection->parallel;
	request.nblocks = nblocks;
	request.nulls_limit = (k < 0 || ties == RADIK_TIES_ALL) ? PG_INT64_MAX : k;
	/* With ties, the rows pushed are kept (within work_mem) to find a cut group in. */
	request.keep_pushed = ties != RADIK_TIES_NONE;
	request.carry_bytes = selection->carry_bytes;
	work_context = AllocSetContextCreate(caller_context, "radik selection",
										 ALLOCSET_DEFAULT_SIZES);
	radik_feed_begin(&feed, &request, work_context);
	MemoryContextSwitchTo(work_context);

	INSTR_TIME_SET_CURRENT(start);
	engine_count = 0;
	if (engine_k > 0)
	{
		/* A sample's threshold can help only where k cuts the table. */
		uint64		seed_need = (k >= 0 && engine_k < row_bound) ? engine_k : 0;

		engine_count = radik_feed_select(&feed, engine_k, seed_need, &result->stats);
		if (result->stats.seed_thresholds > 0 && engine_count < engine_k)
		{
			/*
			 * The engine got fewer than k rows, so the sample's threshold may have left out rows
			 * of the answer: read the table again without it.
			 */
			result->stats.seed_misses = 1;
			radik_feed_close(&feed);
			engine_count = radik_feed_select(&feed, engine_k, 0, &result->stats);
		}
	}
	/* The engine's answer: its best rows, sorted by key; then where it is cut (choose_cut). */
	INSTR_TIME_SET_CURRENT(step);
	engine_keys = radik_feed_result(&feed, engine_count, &engine_ids);
	result->stats.select_ms += radik_elapsed_ms(step);
	cut_group = choose_cut(k, ties, key->nulls_first, feed.nulls.count, engine_keys,
						   (int64) engine_count, &take_nulls, &take_engine, &tie_key);
	if (cut_group && feed.kept_all)
	{
		/*
		 * The cut fell inside a group of equal keys: the whole group is among the rows kept
		 * (room for all of them, at most work_mem's worth, saves counting the group first).
		 */
		const Size	room = (take_engine + feed.kept_count) * sizeof(uint64);

		engine_keys = repalloc_huge(engine_keys, room);
		engine_ids = repalloc_huge(engine_ids, room);
		for (size_t i = 0; i < feed.kept_count; i++)
		{
			if (i % 65536 == 0)
				CHECK_FOR_INTERRUPTS();
			if (feed.kept_keys[i] != tie_key)
				continue;
			engine_keys[take_engine] = tie_key;
			engine_ids[take_engine++] = feed.kept_ids[i];
		}
	}
	else if (cut_group)
	{
		/*
		 * The cut fell inside a group of equal keys and the rows kept did not hold them all:
		 * select every row at or below the group's key (the rows before the group, then the
		 * whole group), the table read again.
		 */
		RadikSelectStats tie_stats;

		memset(&tie_stats, 0, sizeof(tie_stats));
		feed.request.keep_pushed = false;
		feed.start_threshold = tie_key;
		engine_count = radik_feed_select(&feed, row_bound, 0, &tie_stats);
		INSTR_TIME_SET_CURRENT(step);
		engine_keys = radik_feed_result(&feed, engine_count, &engine_ids);
		tie_stats.select_ms += radik_elapsed_ms(step);
		take_nulls = key->nulls_first ? feed.nulls.count : 0;
		take_engine = (int64) engine_count;
		result->stats.rows_rescanned += tie_stats.scan.rows_scanned;
		result->stats.select_ms += tie_stats.select_ms;
		result->stats.gpu_fallbacks += tie_stats.gpu_fallbacks;
		strlcpy(result->stats.device, tie_stats.device, sizeof(result->stats.device));
	}
	result->stats.rows_sent = feed.rows_sent;
	result->stats.copy_ms = feed.copy_ms;
	result->stats.scan_ms = radik_elapsed_ms(start) - feed.copy_ms - result->stats.select_ms;

	result->ntids = take_nulls + take_engine;
	result->tids = MemoryContextAllocHuge(caller_context,
										  Max(result->ntids, 1) * sizeof(ItemPointerData));
	result->keys = MemoryContextAllocHuge(caller_context, Max(result->ntids, 1) * sizeof(uint64));
	if (feed.carry != NULL)
		result->carried = MemoryContextAllocHuge(caller_context,
												 Max(result->ntids, 1) * sizeof(RadikCarriedRow *));
	out = 0;
	if (key->nulls_first && take_nulls > 0)
	{
		memcpy(result->tids, feed.nulls.items, take_nulls * sizeof(ItemPointerData));
		memset(result->keys, 0, take_nulls * sizeof(uint64));
		if (result->carried != NULL)
			memset(result->carried, 0, take_nulls * sizeof(RadikCarriedRow *));
		result->null_keys_begin = 0;
		result->null_keys_end = take_nulls;
		out += take_nulls;
	}
	for (int64 i = 0; i < take_engine; i++, out++)
	{
		result->keys[out] = engine_keys[i];
		if (radik_id_is_carried(engine_ids[i]))
		{
			RadikCarriedRow *row = radik_carried_row(feed.carry, engine_ids[i]);

			result->tids[out] = row->tid;
			result->carried[out] = row;
			continue;
		}
		radik_unpack_tid(engine_ids[i], &result->tids[out]);
		if (result->carried != NULL)
			result->carried[out] = NULL;
	}
	if (!key->nulls_first && take_nulls > 0)
	{
		memcpy(result->tids + out, feed.nulls.items, take_nulls * sizeof(ItemPointerData));
		memset(result->keys + out, 0, take_nulls * sizeof(uint64));
		if (result->carried != NULL)
			memset(result->carried + out, 0, take_nulls * sizeof(RadikCarriedRow *));
		result->null_keys_begin = out;
		result->null_keys_end = out + take_nulls;
		out += take_nulls;
	}
	Assert(out == result->ntids);

	selection->econtext->ecxt_scantuple = saved_scantuple;
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
}
