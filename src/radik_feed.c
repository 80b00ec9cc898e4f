/*
 * radik_feed.c
 *	  Feed the rows of a table to one engine selection (radik_feed.h).
 *
 * The rows are read by the key extractor (radik_extract.c), in this process alone or, when the
 * caller asks for workers and runs in parallel mode, by parallel workers too
 * (radik_parallel.c), this process then taking its share of the blocks between reading what the
 * workers send.
 *
 * Keys travel to the engine in the chunk buffers it hands out (radik_chunk_buffer), each key
 * with its row's TID packed into the 64-bit id (block << 16 | offset): this process extracts
 * straight into the chunk buffer, the workers' batches are copied into it.  After every chunk
 * the engine's running k-th key (radik_threshold) lets the extractors drop rows whose key is
 * already too large to be selected (the workers learn it through shared memory), so few keys are
 * copied once the selection has settled; for a small k the first chunk is pushed early, after a
 * few times k rows, to get that threshold soon, and each later one once it doubles the rows
 * pushed, so the threshold keeps tightening as the rows seen grow.  For a large k the engine has
 * none until millions of rows are in, so a threshold judged from a sample of the table's pages is
 * used from the start instead (radik_seed.c).  Rows whose key is NULL never reach the engine:
 * they are kept aside.
 *
 * When the caller wants whole rows (carry_bytes), the extractors also copy every row they hand
 * on, and the id names the copy instead of the TID (radik_carry.h): this process's extractor
 * into its row store, the workers into their messages, from which this process moves the rows
 * that pass its threshold into its store.  When the store reaches carry_bytes, carrying stops
 * everywhere, and the rows not carried are fetched by the caller as before.
 *
 * Under radik.device = auto, a selection the GPU runs out of memory for (its own memory, or
 * radik.gpu_memory_limit) is no error: the scan stops, the selection is closed and run again from
 * the start on the CPU twin, and the server log says so.  The engine selection is closed by a
 * reset callback on the caller's memory context, so an error or a cancel anywhere in the scan
 * releases its pinned and device memory; the parallel context, if any, is cleaned up by the
 * transaction's abort.
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/parallel.h"
#include "catalog/catalog.h"
#include "catalog/pg_am.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "radik_brin.h"
#include "radik_device.h"
#include "radik_extract.h"
#include "radik_feed.h"
#include "radik_parallel.h"
#include "radik_seed.h"
#include "radik_service.h"
#include "radik_settings.h"

/* Pages this process reads between two looks at the workers' queues. */
#define LEADER_PAGES_PER_CALL_PARALLEL 4
#define LEADER_PAGES_PER_CALL_SERIAL 64

/*
 * The open engine selection, in this process or in the GPU service (one of the two is set),
 * closed when the selection's memory context goes away.
 */
struct RadikEngineGuard
{
	radik_selection *selection;
	RadikServiceSelection *service;
	MemoryContextCallback callback;
};

static void
close_engine_selection(void *arg)
{
	RadikEngineGuard *guard = (RadikEngineGuard *) arg;

	radik_close(guard->selection);
	guard->selection = NULL;
	radik_service_close(guard->service);
	guard->service = NULL;
}

/* The engine door's calls on the guard's selection, wherever it runs. */
static radik_status
selection_chunk_buffer(RadikEngineGuard *guard, void **keys, uint64 **ids, size_t *capacity,
					   radik_error *err)
{
	if (guard->service != NULL)
		return radik_service_chunk_buffer(guard->service, keys, ids, capacity, err);
	return radik_chunk_buffer(guard->selection, keys, (uint64_t **) ids, capacity, err);
}

static radik_status
selection_push_chunk(RadikEngineGuard *guard, size_t n, radik_error *err)
{
	if (guard->service != NULL)
		return radik_service_push_chunk(guard->service, n, err);
	return radik_push_chunk(guard->selection, n, err);
}

static radik_status
selection_threshold(RadikEngineGuard *guard, uint64 *kth_key, int *valid, radik_error *err)
{
	if (guard->service != NULL)
		return radik_service_threshold(guard->service, kth_key, valid, err);
	return radik_threshold(guard->selection, (uint64_t *) kth_key, valid, err);
}

static radik_status
selection_finish(RadikEngineGuard *guard, uint64 *count, radik_error *err)
{
	if (guard->service != NULL)
		return radik_service_finish(guard->service, count, err);
	return radik_finish(guard->selection, (uint64_t *) count, err);
}

static radik_status
selection_result(RadikEngineGuard *guard, uint64 *keys, uint64 *ids, radik_error *err)
{
	if (guard->service != NULL)
		return radik_service_result(guard->service, keys, ids, err);
	return radik_result(guard->selection, (uint64_t *) keys, (uint64_t *) ids, err);
}

static void
tid_list_append(RadikTidList *list, const ItemPointerData *tid)
{
	if (list->count == list->capacity)
	{
		int64		capacity = list->capacity < 256 ? 256 : list->capacity * 2;

		if (list->items == NULL)
			list->items = MemoryContextAllocHuge(CurrentMemoryContext,
												 capacity * sizeof(ItemPointerData));
		else
			list->items = repalloc_huge(list->items, capacity * sizeof(ItemPointerData));
		list->capacity = capacity;
	}
	list->items[list->count++] = *tid;
}

static void
check_engine(radik_status status, const radik_error *err)
{
	if (status != RADIK_OK)
		radik_engine_error(status, err);
}

/*
 * check_engine for the calls of a selection being fed: under radik.device = auto, a GPU that
 * runs out of memory (its own, or radik.gpu_memory_limit), or a GPU service whose process ended
 * during the selection, is no error but a reason to select on the CPU instead
 * (radik_feed_select).  Returns false then, with the feed marked; the callers stop feeding.
 */
static bool
feed_check(RadikFeed *feed, radik_status status, const radik_error *err)
{
	if (status == RADIK_OK)
		return true;
	if (status == RADIK_DEVICE_ERROR && feed->guard->service != NULL &&
		radik_device_setting == RADIK_SETTING_DEVICE_AUTO)
	{
		feed->gpu_failed = true;	/* the service's process ended, or met a GPU error */
		feed->gpu_failure = *err;
		return false;
	}
	if (status == RADIK_OUT_OF_MEMORY && feed->device == RADIK_DEVICE_GPU)
	{
		if (radik_device_setting == RADIK_SETTING_DEVICE_AUTO)
		{
			feed->gpu_failed = true;
			feed->gpu_failure = *err;
			return false;
		}
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("radik selection failed: the GPU is out of memory"),
				 errdetail("%s", err->message),
				 errhint("With radik.device = \"auto\", such a selection runs on the CPU instead.")));
	}
	radik_engine_error(status, err);
}



/*
 * Keep a copy of the rows in the chunk buffer, about to be pushed (request.keep_pushed), or give
 * the copy up when it would pass kept_limit.
 */
static void
feed_keep_chunk(RadikFeed *feed)
{
	size_t		needed = feed->kept_count + feed->count;

	if (!feed->kept_all || feed->count == 0)
		return;
	if (needed > feed->kept_limit)
	{
		/* too many: the caller will read the table again if it needs the group */
		feed->kept_all = false;
		if (feed->kept_keys != NULL)
		{
			pfree(feed->kept_keys);
			pfree(feed->kept_ids);
		}
		feed->kept_keys = feed->kept_ids = NULL;
		feed->kept_capacity = 0;
		return;
	}
	if (needed > feed->kept_capacity)
	{
		size_t		capacity = Min(Max(needed, 2 * feed->kept_capacity), feed->kept_limit);

		capacity = Max(capacity, 1024);
		if (feed->kept_keys == NULL)
		{
			feed->kept_keys = MemoryContextAllocHuge(feed->kept_context,
													 capacity * sizeof(uint64));
			feed->kept_ids = MemoryContextAllocHuge(feed->kept_context,
													capacity * sizeof(uint64));
		}
		else
		{
			feed->kept_keys = repalloc_huge(feed->kept_keys, capacity * sizeof(uint64));
			feed->kept_ids = repalloc_huge(feed->kept_ids, capacity * sizeof(uint64));
		}
		feed->kept_capacity = capacity;
	}
	for (size_t i = 0; i < feed->count; i++)
		feed->kept_keys[feed->kept_count + i] = feed->key_bytes == 4 ?
			((const uint32 *) feed->keys)[i] : ((const uint64 *) feed->keys)[i];
	memcpy(feed->kept_ids + feed->kept_count, feed->ids, feed->count * sizeof(uint64));
	feed->kept_count = needed;
}

/*
 * Hand the rows in the chunk buffer to the engine (a copy kept first, with ties); false when the
 * GPU ran out of memory (feed_check).
 */
static bool
feed_push_chunk(RadikFeed *feed)
{
	radik_error err;

	feed_keep_chunk(feed);
	if (!feed_check(feed, selection_push_chunk(feed->guard, feed->count, &err), &err))
		return false;
	feed->rows_sent += feed->count;
	feed->rows_pushed += feed->count;
	feed->count = 0;
	return true;
}

/*
 * Push the rows in the chunk buffer to the engine, then learn the new threshold.  When the GPU
 * runs out of memory (feed_check) the feed is marked and its callers stop.
 */
static void
feed_push(RadikFeed *feed)
{
	radik_error err;
	instr_time	start;
	uint64		kth_key;
	int			valid;

	if (feed->gpu_failed)
		return;					/* the selection failed: no more calls on it */
	INSTR_TIME_SET_CURRENT(start);
	if (!feed_push_chunk(feed))
		return;
	if (!feed_check(feed, selection_threshold(feed->guard, &kth_key, &valid, &err), &err))
		return;
	if (valid && kth_key < feed->threshold)
	{
		feed->threshold = kth_key;
		if (feed->workers != NULL)
			radik_parallel_set_threshold(feed->workers, kth_key);
	}
	if (!feed_check(feed, selection_chunk_buffer(feed->guard, &feed->keys, &feed->ids,
											 &feed->capacity, &err), &err))
		return;

	/*
	 * The next chunk when it holds as many rows as were pushed before it (or as the first
	 * chunk): the threshold tightens after every doubling of the rows seen, instead of only
	 * after a full chunk, so that a middling k (say 1000, whose first threshold lets about one
	 * row in eight through) does not send millions of rows before its second.
	 */
	feed->push_at = Min(feed->capacity, Max(feed->push_at, feed->rows_pushed));
	feed->copy_ms += radik_elapsed_ms(start);
}

/* Keep the rows of batch whose key is NULL, as many as may be returned. */
static void
feed_nulls(RadikFeed *feed, const RadikKeyBatch *batch)
{
	for (size_t i = 0; i < batch->nnulls && feed->nulls.count < feed->request.nulls_limit; i++)
		tid_list_append(&feed->nulls, &batch->nulls[i]);
}

/* Carry no more rows, in this process or in the workers: the store is full. */
static void
feed_stop_carrying(RadikFeed *feed)
{
	feed->carrying = false;
	if (feed->workers != NULL)
		radik_parallel_stop_carrying(feed->workers);
}

/*
 * The id in this process of a row a worker sent with id: the row's copy in this process's
 * store when the worker carried it and the store takes it, else its TID.
 */
static uint64
feed_worker_row_id(RadikFeed *feed, const RadikKeyBatch *batch, uint64 id)
{
	RadikCarriedRow *row;

	if (!radik_id_is_carried(id))
		return id;
	row = radik_carried_row(batch->rows, id);
	if (!feed->carrying)
		return radik_pack_tid(&row->tid);
	id = radik_carry_row_into(feed->carry, row);
	if (!radik_id_is_carried(id))
		feed_stop_carrying(feed);
	return id;
}

/* Copy a worker's batch into the chunk buffer, dropping keys beyond the threshold. */
static void
feed_worker_batch(RadikFeed *feed, const RadikKeyBatch *batch)
{
	for (size_t i = 0; i < batch->count; i++)
	{
		uint64		key = feed->key_bytes == 4 ? ((const uint32 *) batch->keys)[i] :
		((const uint64 *) batch->keys)[i];

		if (key > feed->threshold)
			continue;
		if (feed->key_bytes == 4)
			((uint32 *) feed->keys)[feed->count] = (uint32) key;
		else
			((uint64 *) feed->keys)[feed->count] = key;
		feed->ids[feed->count++] = feed_worker_row_id(feed, batch, batch->ids[i]);
		if (feed->count == feed->push_at)
		{
			feed_push(feed);
			if (feed->gpu_failed)
				return;
		}
	}
	feed_nulls(feed, batch);
}

/*
 * The store this process's extractor carries rows into, with room for a page's rows at least
 * (it doubles when short, within its limit), or NULL once it is full.
 */
static RadikRowStore *
feed_carry_room(RadikFeed *feed)
{
	if (!feed->carrying)
		return NULL;
	if (radik_store_make_room(feed->carry, RADIK_CARRY_PAGE_BYTES))
		return feed->carry;
	feed_stop_carrying(feed);
	return NULL;
}

/*
 * Extract up to max_pages pages with this process's extractor straight into the chunk buffer.
 * Returns false once the extractor has no rows left (or the GPU ran out of memory).
 */
static bool
feed_from_extractor(RadikFeed *feed, RadikExtractor *extractor, int max_pages)
{
	ItemPointerData nulls[MaxHeapTuplesPerPage * 2];
	RadikKeyBatch view;
	bool		more;

	if (feed->push_at - feed->count < MaxHeapTuplesPerPage)
		feed_push(feed);
	if (feed->gpu_failed)
		return false;

	view.key_bytes = feed->key_bytes;
	view.keys = (char *) feed->keys + feed->count * feed->key_bytes;
	view.ids = feed->ids + feed->count;
	view.count = 0;
	view.capacity = feed->push_at - feed->count;
	view.nulls = nulls;
	view.nnulls = 0;
	view.nulls_capacity = lengthof(nulls);
	view.rows = feed_carry_room(feed);
	more = radik_extract(extractor, &view, feed->threshold, max_pages);
	feed->count += view.count;
	feed_nulls(feed, &view);
	if (feed->push_at - feed->count < MaxHeapTuplesPerPage)
		feed_push(feed);
	return more && !feed->gpu_failed;
}

/*
 * Read the table (alone, or with the workers of a parallel scan) and feed every qualifying row
 * to the engine.  Adds the rows scanned and matched to stats.
 */
static void
feed_table(RadikFeed *feed, uint64 engine_k, uint64 seed_need, RadikSelectStats *stats)
{
	const RadikFeedRequest *request = &feed->request;
	Relation	rel = request->rel;
	Snapshot	snapshot = request->snapshot;
	const RadikSortKey *key = request->key;
	const RadikParallelPlan *parallel = request->parallel;
	RadikParallelScan *workers = NULL;
	RadikExtractor extractor;
	RadikBrinPlan *brin = NULL;
	bool		leader_scans = true;
	bool		workers_done = true;

	/* A BRIN index that says few ranges can qualify: read those alone, in this process. */
	if (radik_brin_ranges)
		brin = radik_brin_plan(rel, snapshot, key, request->nblocks, engine_k, feed->threshold,
							   parallel != NULL && IsInParallelMode() ? parallel->nworkers : 0);
	if (brin != NULL)
	{
		/*
		 * The best ranges come first: their keys make a threshold sooner than a sample would,
		 * and a small k gets it after a few pages, so that the next range can be skipped.
		 */
		seed_need = 0;
		if (feed->push_at < feed->capacity)
			feed->push_at = Min(feed->push_at,
								Max((size_t) engine_k * 4, 2 * MaxHeapTuplesPerPage));
	}
	else if (parallel != NULL && parallel->nworkers > 0 && IsInParallelMode() &&
			 rel->rd_rel->relam == HEAP_TABLE_AM_OID)
	{
		RadikWorkersRequest workers_request;

		workers_request.rel = rel;
		workers_request.snapshot = snapshot;
		workers_request.key = key;
		workers_request.key_expr = parallel->key_expr;
		workers_request.quals = parallel->quals;
		workers_request.params = parallel->params;
		workers_request.nworkers = parallel->nworkers;
		workers_request.nulls_limit = request->nulls_limit;
		workers_request.carry_rows = feed->carrying;
		workers_request.groups = NULL;
		workers = radik_parallel_begin(&workers_request);
	}
	if (workers != NULL)
	{
		stats->workers_launched = radik_parallel_workers_launched(workers);
		feed->workers = workers;
		workers_done = stats->workers_launched == 0;
		leader_scans = parallel_leader_participation || workers_done;
		if (feed->threshold != PG_UINT64_MAX)
			radik_parallel_set_threshold(workers, feed->threshold);
	}

	/* The sample is read while the workers start; they learn its threshold as any other. */
	if (seed_need > 0)
	{
		stats->seed_pages = radik_seed_threshold(rel, snapshot, request->econtext, request->qual,
												 key, seed_need, request->nblocks,
												 &feed->threshold);
		if (feed->threshold != PG_UINT64_MAX)
		{
			stats->seed_thresholds = 1;
			if (workers != NULL)
				radik_parallel_set_threshold(workers, feed->threshold);
		}
	}

	radik_extract_begin(&extractor, rel, snapshot,
						workers != NULL ? radik_parallel_table_scan(workers) : NULL,
						request->econtext, request->qual, key, request->nulls_limit);
	if (brin != NULL && !radik_extract_block_ranges(&extractor, brin->ranges, brin->nranges))
		brin = NULL;

	/* (Out of GPU memory, it stops early: radik_parallel_end tells the workers to stop.) */
	while ((leader_scans || !workers_done) && !feed->gpu_failed)
	{
		RadikKeyBatch batch;

		/* Whatever the workers have sent, then a few pages of this process's own. */
		while (!workers_done && !feed->gpu_failed &&
			   radik_parallel_receive(workers, &batch, !leader_scans, &workers_done))
			feed_worker_batch(feed, &batch);
		if (leader_scans && !feed->gpu_failed)
			leader_scans = feed_from_extractor(feed, &extractor,
											   workers != NULL && !workers_done ?
											   LEADER_PAGES_PER_CALL_PARALLEL :
											   LEADER_PAGES_PER_CALL_SERIAL);
		CHECK_FOR_INTERRUPTS();
	}

	radik_select_stats_add_scan(stats, &extractor);
	if (brin != NULL)
	{
		stats->brin_ranges_read += extractor.ranges_read;
		stats->brin_ranges_skipped += extractor.ranges_skipped;
	}
	radik_extract_end(&extractor);
	if (workers != NULL)
	{
		radik_parallel_end(workers, &stats->scan);
		feed->workers = NULL;
	}
}

/*
 * Open the engine's selection of the engine_k best keys on feed->device, in the GPU service when
 * the device chosen was its GPU.  When the service cannot take the selection, it runs on the CPU
 * under radik.device = auto (every slot taken, or k more than a slot holds), on this backend's
 * GPU under gpu.  False when the GPU ran out of memory under auto (feed_check).
 */
static bool
open_selection(RadikFeed *feed, uint64 engine_k, double expected_rows, RadikSelectStats *stats)
{
	radik_error err;

	if (feed->via_service && feed->device == RADIK_DEVICE_GPU)
	{
		bool		busy;
		radik_status status;

		status = radik_service_open(feed->key_bytes, engine_k,
									radik_device_setting == RADIK_SETTING_DEVICE_GPU,
									&feed->guard->service, &busy, &err);
		if (status == RADIK_OK)
		{
			snprintf(stats->device, sizeof(stats->device), "%s (GPU service)",
					 radik_service_device_name(feed->guard->service));
			return true;
		}
		if (status != RADIK_NO_DEVICE)
			return feed_check(feed, status, &err);	/* the selection is closed by the caller */
		feed->via_service = false;
		if (radik_device_setting == RADIK_SETTING_DEVICE_AUTO)
			feed->device = RADIK_DEVICE_CPU;
		else
			feed->device = radik_choose_backend_device(expected_rows, &feed->gpu_starting);
		ereport(DEBUG1,
				(errmsg_internal("radik selection not in the GPU service: %s", err.message)));
	}
	radik_set_gpu_memory_limit((uint64) radik_gpu_memory_limit_kb * 1024);
	if (!feed_check(feed, radik_open(feed->device, feed->key_bytes, engine_k,
									 (uint64) expected_rows, &feed->guard->selection, &err),
					&err))
		return false;
	strlcpy(stats->device, radik_selection_device_name(feed->guard->selection),
			sizeof(stats->device));
	if (feed->gpu_starting)
		strlcat(stats->device, " (GPU starting)", sizeof(stats->device));
	return true;
}

/*
 * Open the engine's selection of the engine_k best keys (open_selection), feed it every
 * qualifying row of the table (feed_table; with seed_need > 0, behind a threshold judged from a
 * sample first) and finish it.  Returns the number of rows the engine selected (0 with the feed
 * marked when the GPU ran out of memory under radik.device = auto); adds the finish's time to
 * stats->select_ms.
 */
static uint64
select_table_on_device(RadikFeed *feed, uint64 engine_k, uint64 seed_need,
					   RadikSelectStats *stats)
{
	Relation	rel = feed->request.rel;
	double		expected_rows = rel->rd_rel->reltuples > 0 ? rel->rd_rel->reltuples : 0;
	radik_error err;
	instr_time	step;
	uint64		count = 0;

	if (!open_selection(feed, engine_k, expected_rows, stats))
		return 0;
	if (!feed_check(feed, selection_chunk_buffer(feed->guard, &feed->keys, &feed->ids,
											 &feed->capacity, &err), &err))
		return 0;
	feed->count = 0;
	feed->rows_pushed = 0;
	feed->kept_count = 0;
	feed->kept_all = feed->request.keep_pushed;
	feed->threshold = feed->start_threshold;
	feed->nulls.count = 0;
	if (feed->carry != NULL)
	{
		feed->carry->used = 0;
		feed->carrying = true;
	}

	/*
	 * Push the first chunk early, once it holds a few times k keys, so that the engine's
	 * threshold starts filtering rows as soon as it means something; chunks twice as large as
	 * what came before after (feed_push).
	 */
	feed->push_at = feed->capacity;
	if (engine_k <= feed->capacity / 16)
		feed->push_at = Max((size_t) engine_k * 4, Min(feed->capacity, (size_t) 8192));

	feed_table(feed, engine_k, seed_need, stats);
	if (feed->gpu_failed)
		return 0;
	INSTR_TIME_SET_CURRENT(step);
	if (feed->count > 0 && !feed_push_chunk(feed))
		return 0;
	feed->copy_ms += radik_elapsed_ms(step);

	INSTR_TIME_SET_CURRENT(step);
	if (!feed_check(feed, selection_finish(feed->guard, &count, &err), &err))
		return 0;
	stats->select_ms += radik_elapsed_ms(step);
	return count;
}

/*
 * select_table_on_device; when the GPU runs out of memory under radik.device = auto (its own
 * memory, or radik.gpu_memory_limit), or the GPU service's process ends during the selection, the
 * selection is closed and run again from the start on the CPU, which needs host memory only: auto
 * means the GPU where it can answer, the CPU where it cannot.  The server log says so; EXPLAIN
 * ANALYZE counts it (GPU Fallbacks).
 */
uint64
radik_feed_select(RadikFeed *feed, uint64 engine_k, uint64 seed_need, RadikSelectStats *stats)
{
	uint64		count = select_table_on_device(feed, engine_k, seed_need, stats);

	if (!feed->gpu_failed)
		return count;
	ereport(LOG,
			(errmsg("radik selection moved to the CPU: %s",
					feed->via_service ? "the GPU service could not finish it" :
					"the GPU is out of memory"),
			 errdetail("%s", feed->gpu_failure.message)));
	stats->gpu_fallbacks++;
	close_engine_selection(feed->guard);
	if (!feed->via_service)
		radik_release_cache();	/* what this backend holds on the GPU, for the others */
	feed->via_service = false;
	feed->gpu_failed = false;
	feed->device = RADIK_DEVICE_CPU;
	return select_table_on_device(feed, engine_k, seed_need, stats);
}

/*
 * The finished engine selection's rows, sorted by key: their keys (returned) and ids (*ids), in
 * the current memory context; the selection is closed.
 */
uint64 *
radik_feed_result(RadikFeed *feed, uint64 count, uint64 **ids)
{
	uint64	   *keys = MemoryContextAllocHuge(CurrentMemoryContext, Max(count, 1) * sizeof(uint64));
	radik_error err;

	*ids = MemoryContextAllocHuge(CurrentMemoryContext, Max(count, 1) * sizeof(uint64));
	if (count > 0)
		check_engine(selection_result(feed->guard, keys, *ids, &err), &err);
	radik_feed_close(feed);
	return keys;
}

/*
 * About how many rows the table holds now, for choosing the device: the statistics' density
 * times the current number of blocks, as the planner estimates it; a table never analyzed is
 * assumed full.
 */
static double
estimate_table_rows(Relation rel, BlockNumber nblocks)
{
	if (rel->rd_rel->relpages > 0 && rel->rd_rel->reltuples >= 0)
		return rel->rd_rel->reltuples / rel->rd_rel->relpages * nblocks;
	return (double) nblocks * MaxHeapTuplesPerPage;
}

/*
 * A row store of up to limit bytes in context, for rows carried whole (radik_carry.h); NULL
 * when limit is too small for a page's rows.
 */
static RadikRowStore *
make_row_store(MemoryContext context, Size limit)
{
	RadikRowStore *store;

	if (limit < RADIK_CARRY_PAGE_BYTES)
		return NULL;
	store = MemoryContextAlloc(context, sizeof(RadikRowStore));
	store->used = 0;
	store->limit = limit;
	store->capacity = Min(limit, (Size) 4 * RADIK_CARRY_PAGE_BYTES);
	store->data = MemoryContextAllocHuge(context, store->capacity);
	return store;
}

void
radik_feed_begin(RadikFeed *feed, const RadikFeedRequest *request, MemoryContext work_context)
{
	Relation	rel = request->rel;

	memset(feed, 0, sizeof(*feed));
	feed->request = *request;
	feed->key_bytes = radik_key_bytes(request->key);
	feed->threshold = PG_UINT64_MAX;
	feed->start_threshold = PG_UINT64_MAX;
	feed->device = radik_choose_device(estimate_table_rows(rel, request->nblocks),
									   &feed->gpu_starting, &feed->via_service);
	feed->kept_limit = (size_t) work_mem * 1024 / (2 * sizeof(uint64));
	feed->kept_context = work_context;

	/*
	 * Rows are copied after the page's lock is released, as a sequential scan reads them; a
	 * catalog's rows may be updated in place under a pin, so they are fetched under the lock.
	 */
	if (request->carry_bytes > 0 && rel->rd_rel->relam == HEAP_TABLE_AM_OID &&
		!IsCatalogRelation(rel))
		feed->carry = make_row_store(CurrentMemoryContext, request->carry_bytes);

	feed->guard = MemoryContextAllocZero(work_context, sizeof(RadikEngineGuard));
	feed->guard->callback.func = close_engine_selection;
	feed->guard->callback.arg = feed->guard;
	MemoryContextRegisterResetCallback(work_context, &feed->guard->callback);
}

void
radik_feed_close(RadikFeed *feed)
{
	close_engine_selection(feed->guard);
}

void
radik_select_stats_add_scan(RadikSelectStats *stats, const RadikExtractor *extractor)
{
	radik_extract_count(extractor, &stats->scan);
	stats->icu_table |= extractor->mapper.kind == RADIK_KEY_ICU;
}

void
radik_select_stats_add(RadikSelectStats *totals, const RadikSelectStats *one)
{
	strlcpy(totals->device, one->device, sizeof(totals->device));
	totals->workers_launched += one->workers_launched;
	radik_scan_counts_add(&totals->scan, &one->scan);
	totals->rows_rescanned += one->rows_rescanned;
	totals->rows_sent += one->rows_sent;
	totals->seed_pages += one->seed_pages;
	totals->seed_thresholds += one->seed_thresholds;
	totals->seed_misses += one->seed_misses;
	totals->brin_ranges_read += one->brin_ranges_read;
	totals->brin_ranges_skipped += one->brin_ranges_skipped;
	totals->gpu_fallbacks += one->gpu_fallbacks;
	totals->groups += one->groups;
	totals->groups_over_memory += one->groups_over_memory;
	totals->icu_table |= one->icu_table;
	totals->scan_ms += one->scan_ms;
	totals->copy_ms += one->copy_ms;
	totals->select_ms += one->select_ms;
}
