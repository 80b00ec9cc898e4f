/*
 * radik_select.c
 *	  Scan a heap table under a snapshot, compute the first sort key of every row that passes the
 *	  quals, and select the best rows with the engine (radik_select.h).
 *
 * One code path serves both the custom scan and radik_topk(), so both see rows exactly as a
 * sequential scan with the same snapshot would: the scan is a table AM sequential scan
 * (table_beginscan_strat), which applies the snapshot's visibility rules (deleted, updated,
 * uncommitted and rolled-back rows), takes the predicate locks of a serializable transaction and
 * uses the bulk-read buffer strategy.  Synchronized scans are turned off so that the rows reach
 * the engine in block order every time.
 *
 * Reading keys is most of a selection's time, so on a heap table the scan walks the pages itself
 * with heapgetpage, the very function a sequential scan uses to read a page and list the tuples
 * visible to the snapshot (skipping per-tuple checks on all-visible pages).  A key that is a
 * plain column is then read in place from each visible tuple, at its fixed offset when the
 * columns before it are fixed-width and the tuple has no NULLs (else heap_getattr), without
 * storing the row in a slot.  Rows go through a slot only where quals or a key expression need
 * one; other table AMs go through table_scan_getnextslot.
 *
 * Keys travel to the engine in the chunk buffers it hands out (radik_chunk_buffer), each key
 * with its row's TID packed into the 64-bit id (block << 16 | offset).  After every chunk the
 * engine's running k-th key (radik_threshold) lets the scan drop rows whose key is already too
 * large to be selected, so few keys are copied once the selection has settled; for a small k
 * the first chunk is pushed early, after a few times k rows, to get that threshold soon.  Rows
 * whose key is NULL never reach the engine: they are kept aside and placed first or last
 * afterwards, as NULLS FIRST / NULLS LAST asks.
 *
 * Ties (with_ties): the engine cuts rows with equal keys arbitrarily at the boundary.  To learn
 * whether that cut separated equal keys without a second pass in the usual case, the engine is
 * asked for one row more than k: when the extra row's key differs from the k-th, no row left out
 * ties with the last one kept.  Only when it is equal does a second pass over the table collect
 * every row whose key equals the boundary key.
 *
 * The engine selection is closed by a reset callback on a private memory context, so an error or
 * a cancel anywhere in the scan (CHECK_FOR_INTERRUPTS runs for every row) releases its pinned
 * and device memory when the caller's memory is cleaned up.
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/tupmacs.h"
#include "catalog/pg_am.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "radik.h"
#include "radik_datum_keys.h"
#include "radik_select.h"

/* The open engine selection, closed when the selection's memory context goes away. */
typedef struct EngineGuard
{
	radik_selection *selection;
	MemoryContextCallback callback;
} EngineGuard;

/* A growable array of TIDs (the rows whose key is NULL, the rows tied at the boundary). */
typedef struct TidList
{
	ItemPointerData *items;
	int64		count;
	int64		capacity;
} TidList;

/*
 * The table's rows visible to the snapshot, one at a time (see the file header).  On the heap
 * path the current row is tuple, in place on the pinned page, and goes into slot only when
 * fill_slot says something needs a slot; off the heap path every row is in slot.
 */
typedef struct RowReader
{
	TableScanDesc scan;
	TupleTableSlot *slot;
	bool		heap_pages;		/* walking heap pages with heapgetpage */
	bool		fill_slot;		/* store every row in slot */
	BlockNumber next_block;
	BlockNumber current_block;
	Page		page;
	int			ntuples;		/* visible tuples on the current page */
	int			next_index;		/* next of them to hand out */
	HeapTupleData tuple;		/* the current row, on the heap path */
} RowReader;

/* How to read a plain column straight from a heap tuple. */
typedef struct ColumnReader
{
	AttrNumber	attnum;
	TupleDesc	desc;
	int32		fixed_offset;	/* >= 0: its offset in a tuple without NULLs */
	bool		byval;
	int16		len;
} ColumnReader;

/* What the scan loop needs to compute one row's key. */
typedef struct KeyReader
{
	const RadikSortKey *key;
	RadikKeyMap map;
	ExprContext *econtext;
	ColumnReader column;		/* when key->attnum > 0 */
} KeyReader;

static void
close_engine_selection(void *arg)
{
	EngineGuard *guard = (EngineGuard *) arg;

	radik_close(guard->selection);
	guard->selection = NULL;
}

static void
tid_list_append(TidList *list, ItemPointer tid)
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
row_reader_begin(RowReader *reader, Relation rel, Snapshot snapshot, bool need_slot)
{
	memset(reader, 0, sizeof(*reader));
	reader->scan = table_beginscan_strat(rel, snapshot, 0, NULL, true, false);
	reader->slot = table_slot_create(rel, NULL);
	/* heapgetpage lists a page's visible tuples only in page mode (an MVCC snapshot) */
	reader->heap_pages = rel->rd_rel->relam == HEAP_TABLE_AM_OID &&
		(reader->scan->rs_flags & SO_ALLOW_PAGEMODE) != 0;
	reader->fill_slot = need_slot || !reader->heap_pages;
	reader->tuple.t_tableOid = RelationGetRelid(rel);
}

/* Move to the next visible row; false at the end of the table. */
static inline bool
row_reader_next(RowReader *reader)
{
	HeapScanDesc hscan = (HeapScanDesc) reader->scan;

	if (!reader->heap_pages)
		return table_scan_getnextslot(reader->scan, ForwardScanDirection, reader->slot);

	while (reader->next_index >= reader->ntuples)
	{
		if (reader->next_block >= hscan->rs_nblocks)
			return false;
		heapgetpage(reader->scan, reader->next_block);	/* checks for interrupts */
		reader->current_block = reader->next_block++;
		reader->page = BufferGetPage(hscan->rs_cbuf);
		reader->ntuples = hscan->rs_ntuples;
		reader->next_index = 0;
	}

	{
		OffsetNumber offnum = hscan->rs_vistuples[reader->next_index++];
		ItemId		lp = PageGetItemId(reader->page, offnum);

		reader->tuple.t_data = (HeapTupleHeader) PageGetItem(reader->page, lp);
		reader->tuple.t_len = ItemIdGetLength(lp);
		ItemPointerSet(&reader->tuple.t_self, reader->current_block, offnum);
		if (reader->fill_slot)
			ExecStoreBufferHeapTuple(&reader->tuple, reader->slot, hscan->rs_cbuf);
	}
	return true;
}

static inline ItemPointer
row_reader_tid(RowReader *reader)
{
	return reader->heap_pages ? &reader->tuple.t_self : &reader->slot->tts_tid;
}

static void
row_reader_end(RowReader *reader)
{
	ExecDropSingleTupleTableSlot(reader->slot);
	table_endscan(reader->scan);
}

/* Prepare to read column attnum of rel straight from its tuples. */
static void
column_reader_init(ColumnReader *column, Relation rel, AttrNumber attnum)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Form_pg_attribute target = TupleDescAttr(desc, attnum - 1);
	int32		offset = 0;

	column->attnum = attnum;
	column->desc = desc;
	column->byval = target->attbyval;
	column->len = target->attlen;

	/* As heap_deform_tuple lays columns out: fixed-width ones at aligned, known offsets. */
	for (int i = 0; i < attnum; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attlen <= 0)
		{
			offset = -1;
			break;
		}
		offset = att_align_nominal(offset, att->attalign);
		if (i < attnum - 1)
			offset += att->attlen;
	}
	column->fixed_offset = offset;
}

/* The column's value in tuple. */
static inline Datum
read_column(const ColumnReader *column, HeapTuple tuple, bool *isnull)
{
	HeapTupleHeader header = tuple->t_data;

	if (column->fixed_offset >= 0 && (header->t_infomask & HEAP_HASNULL) == 0 &&
		HeapTupleHeaderGetNatts(header) >= column->attnum)
	{
		*isnull = false;
		return fetch_att((char *) header + header->t_hoff + column->fixed_offset,
						 column->byval, column->len);
	}
	/* NULLs, variable-width columns before it, or a column added after the row was written */
	return heap_getattr(tuple, column->attnum, column->desc, isnull);
}

/* The current row's key; false when it is NULL.  A slot row is econtext's scan tuple. */
static inline bool
read_key(const KeyReader *reader, RowReader *row, uint64 *key)
{
	Datum		value;
	bool		isnull;

	if (reader->key->attnum <= 0)
		value = ExecEvalExprSwitchContext(reader->key->expr, reader->econtext, &isnull);
	else if (row->fill_slot)
		value = slot_getattr(row->slot, reader->key->attnum, &isnull);
	else
		value = read_column(&reader->column, &row->tuple, &isnull);
	if (isnull)
		return false;
	*key = reader->map(value);
	return true;
}

/* Make slot the row that quals and key expressions see, and forget the last row's garbage. */
static inline void
set_current_row(ExprContext *econtext, TupleTableSlot *slot)
{
	ResetExprContext(econtext);
	econtext->ecxt_scantuple = slot;
}

static void
check_engine(radik_status status, const radik_error *err)
{
	if (status != RADIK_OK)
		radik_engine_error(status, err);
}

static double
elapsed_ms(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return INSTR_TIME_GET_MILLISEC(now);
}

/*
 * The second pass of a with_ties selection: every row that passes the quals and whose key
 * equals boundary_key, in block order.
 */
static void
collect_boundary_ties(Relation rel, Snapshot snapshot, ExprContext *econtext, ExprState *qual,
					  const KeyReader *reader, uint64 boundary_key, TidList *ties,
					  RadikSelectStats *stats)
{
	RowReader	rows;

	row_reader_begin(&rows, rel, snapshot, qual != NULL || reader->key->attnum <= 0);
	while (row_reader_next(&rows))
	{
		uint64		key;

		CHECK_FOR_INTERRUPTS();
		stats->rows_rescanned++;
		if (rows.fill_slot)
		{
			set_current_row(econtext, rows.slot);
			if (qual != NULL && !ExecQual(qual, econtext))
				continue;
		}
		if (read_key(reader, &rows, &key) && key == boundary_key)
			tid_list_append(ties, row_reader_tid(&rows));
	}
	row_reader_end(&rows);
}

/*
 * Where the answer is cut, k rows into the order "the rows whose key is NULL first or last, the
 * engine's rows in key order" (k < 0: nowhere): how many NULL rows (*take_nulls) and how many of
 * the engine's rows (*take_engine) come before the cut.  With with_ties, the rows tied with the
 * k-th are kept too: every NULL row when the k-th is one, else the engine's rows whose key equals
 * the k-th's.  The engine returned one row more than k, so a following row with another key
 * shows that it cut no group of equal keys; when it cut one, the engine's rows stop before the
 * group and the function returns true with the group's key in *tie_key, for the caller to gather
 * the whole group from the table.
 */
static bool
choose_cut(int64 k, bool with_ties, bool nulls_first, int64 nnull, const uint64 *engine_keys,
		   int64 nengine, int64 *take_nulls, int64 *take_engine, uint64 *tie_key)
{
	int64		boundary;		/* the k-th row's index among the engine's; -1: a NULL row */

	/* Everything found is wanted. */
	*take_nulls = nnull;
	*take_engine = nengine;
	if (k < 0 || nnull + nengine <= k)
		return false;

	if (!with_ties)
	{
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

	if (nulls_first)
		boundary = (k - 1 < nnull) ? -1 : k - 1 - nnull;
	else
		boundary = (k - 1 < nengine) ? k - 1 : -1;

	if (boundary < 0)
	{
		/* Every NULL row ties with the k-th; with NULLS LAST every non-NULL row precedes it. */
		*take_engine = nulls_first ? 0 : nengine;
		return false;
	}

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

void
radik_select_rows(Relation rel, Snapshot snapshot, ExprContext *econtext,
				  ExprState *qual, const RadikSortKey *key, int64 k, bool with_ties,
				  RadikSelectResult *result)
{
	MemoryContext caller_context = CurrentMemoryContext;
	MemoryContext work_context;
	EngineGuard *guard;
	KeyReader	reader;
	int			key_bytes;
	radik_device device;
	radik_error err;
	BlockNumber nblocks;
	uint64		row_bound;
	uint64		engine_k;
	RowReader	rows;
	TupleTableSlot *saved_scantuple = econtext->ecxt_scantuple;
	void	   *chunk_keys = NULL;
	uint64	   *chunk_ids = NULL;
	size_t		chunk_capacity = 0;
	size_t		chunk_count = 0;
	size_t		chunk_push_at = 0;
	uint64		threshold = 0;
	int			threshold_valid = 0;
	TidList		nulls = {0};
	uint64		engine_count;
	uint64	   *engine_keys;
	uint64	   *engine_ids;
	int64		nulls_kept_limit;
	instr_time	start;
	instr_time	step;
	double		copy_ms = 0.0;
	int64		take_nulls;
	int64		take_engine;
	uint64		tie_key = 0;
	TidList		ties = {0};
	int64		out;

	memset(result, 0, sizeof(*result));
	strlcpy(result->stats.device, "none", sizeof(result->stats.device));
	result->tids = palloc(sizeof(ItemPointerData));
	result->keys = palloc(sizeof(uint64));
	if (k == 0)
		return;

	reader.key = key;
	reader.map = radik_key_map(key->type, key->descending, &key_bytes);
	reader.econtext = econtext;
	if (key->attnum > 0)
		column_reader_init(&reader.column, rel, key->attnum);

	/*
	 * No visible row lies beyond the blocks the table has now, so this bounds the rows the scan
	 * can find; k beyond it (or no limit at all) means every row, in order.  (Other table AMs
	 * get a bound that never cuts; the engine never sizes anything by k.)
	 */
	nblocks = RelationGetNumberOfBlocks(rel);

	/* Decide the device first: radik.device = gpu without a GPU fails before any work. */
	device = radik_choose_device(estimate_table_rows(rel, nblocks));
	if (rel->rd_rel->relam == HEAP_TABLE_AM_OID)
		row_bound = (uint64) nblocks * MaxHeapTuplesPerPage;
	else
		row_bound = (uint64) PG_INT64_MAX / 4;
	if (k < 0 || (uint64) k > row_bound)
	{
		engine_k = row_bound;
		with_ties = false;		/* every row is returned: nothing is cut */
	}
	else
		engine_k = with_ties ? (uint64) k + 1 : (uint64) k;
	nulls_kept_limit = (k < 0 || with_ties) ? PG_INT64_MAX : k;

	work_context = AllocSetContextCreate(caller_context, "radik selection",
										 ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(work_context);
	guard = palloc0(sizeof(EngineGuard));
	guard->callback.func = close_engine_selection;
	guard->callback.arg = guard;
	MemoryContextRegisterResetCallback(work_context, &guard->callback);

	INSTR_TIME_SET_CURRENT(start);
	if (engine_k > 0)
	{
		double		expected_rows = rel->rd_rel->reltuples > 0 ? rel->rd_rel->reltuples : 0;

		check_engine(radik_open(device, key_bytes, engine_k, (uint64) expected_rows,
								&guard->selection, &err), &err);
		strlcpy(result->stats.device, radik_selection_device_name(guard->selection),
				sizeof(result->stats.device));
		check_engine(radik_chunk_buffer(guard->selection, &chunk_keys, &chunk_ids,
										&chunk_capacity, &err), &err);

		/*
		 * Push the first chunk early, once it holds a few times k keys, so that the engine's
		 * threshold starts filtering rows as soon as it means something; full chunks after.
		 */
		chunk_push_at = chunk_capacity;
		if (engine_k <= chunk_capacity / 16)
			chunk_push_at = Max((size_t) engine_k * 4, Min(chunk_capacity, (size_t) 8192));
	}

	row_reader_begin(&rows, rel, snapshot, qual != NULL || key->attnum <= 0);
	while (row_reader_next(&rows))
	{
		uint64		row_key;

		CHECK_FOR_INTERRUPTS();
		result->stats.rows_scanned++;
		if (rows.fill_slot)
		{
			set_current_row(econtext, rows.slot);
			if (qual != NULL && !ExecQual(qual, econtext))
				continue;
		}
		result->stats.rows_matched++;

		if (!read_key(&reader, &rows, &row_key))
		{
			if (nulls.count < nulls_kept_limit)
				tid_list_append(&nulls, row_reader_tid(&rows));
			continue;
		}
		if (threshold_valid && row_key > threshold)
			continue;			/* can no longer be among the best */

		if (key_bytes == 4)
			((uint32 *) chunk_keys)[chunk_count] = (uint32) row_key;
		else
			((uint64 *) chunk_keys)[chunk_count] = row_key;
		chunk_ids[chunk_count] = radik_pack_tid(row_reader_tid(&rows));
		if (++chunk_count == chunk_push_at)
		{
			INSTR_TIME_SET_CURRENT(step);
			check_engine(radik_push_chunk(guard->selection, chunk_count, &err), &err);
			result->stats.rows_sent += chunk_count;
			chunk_count = 0;
			check_engine(radik_threshold(guard->selection, &threshold, &threshold_valid, &err),
						 &err);
			check_engine(radik_chunk_buffer(guard->selection, &chunk_keys, &chunk_ids,
											&chunk_capacity, &err), &err);
			chunk_push_at = chunk_capacity;
			copy_ms += elapsed_ms(step);
		}
	}
	row_reader_end(&rows);

	if (chunk_count > 0)
	{
		INSTR_TIME_SET_CURRENT(step);
		check_engine(radik_push_chunk(guard->selection, chunk_count, &err), &err);
		result->stats.rows_sent += chunk_count;
		copy_ms += elapsed_ms(step);
	}
	result->stats.copy_ms = copy_ms;
	result->stats.scan_ms = elapsed_ms(start) - copy_ms;

	/* The engine's answer: its best rows, sorted by key. */
	INSTR_TIME_SET_CURRENT(step);
	engine_count = 0;
	if (guard->selection != NULL)
		check_engine(radik_finish(guard->selection, &engine_count, &err), &err);
	engine_keys = MemoryContextAllocHuge(work_context, Max(engine_count, 1) * sizeof(uint64));
	engine_ids = MemoryContextAllocHuge(work_context, Max(engine_count, 1) * sizeof(uint64));
	if (engine_count > 0)
		check_engine(radik_result(guard->selection, engine_keys, engine_ids, &err), &err);
	radik_close(guard->selection);
	guard->selection = NULL;
	result->stats.select_ms = elapsed_ms(step);

	/* Put the rows in order and cut them at k (see choose_cut). */
	if (choose_cut(k, with_ties, key->nulls_first, nulls.count, engine_keys,
				   (int64) engine_count, &take_nulls, &take_engine, &tie_key))
	{
		INSTR_TIME_SET_CURRENT(step);
		collect_boundary_ties(rel, snapshot, econtext, qual, &reader, tie_key, &ties,
							  &result->stats);
		result->stats.scan_ms += elapsed_ms(step);
	}

	result->ntids = take_nulls + take_engine + ties.count;
	result->tids = MemoryContextAllocHuge(caller_context,
										  Max(result->ntids, 1) * sizeof(ItemPointerData));
	result->keys = MemoryContextAllocHuge(caller_context, Max(result->ntids, 1) * sizeof(uint64));
	out = 0;
	if (key->nulls_first && take_nulls > 0)
	{
		memcpy(result->tids, nulls.items, take_nulls * sizeof(ItemPointerData));
		memset(result->keys, 0, take_nulls * sizeof(uint64));
		result->null_keys_begin = 0;
		result->null_keys_end = take_nulls;
		out += take_nulls;
	}
	for (int64 i = 0; i < take_engine; i++)
	{
		result->keys[out] = engine_keys[i];
		radik_unpack_tid(engine_ids[i], &result->tids[out++]);
	}
	for (int64 i = 0; i < ties.count; i++)
	{
		result->keys[out] = tie_key;
		result->tids[out++] = ties.items[i];
	}
	if (!key->nulls_first && take_nulls > 0)
	{
		memcpy(result->tids + out, nulls.items, take_nulls * sizeof(ItemPointerData));
		memset(result->keys + out, 0, take_nulls * sizeof(uint64));
		result->null_keys_begin = out;
		result->null_keys_end = out + take_nulls;
		out += take_nulls;
	}
	Assert(out == result->ntids);

	econtext->ecxt_scantuple = saved_scantuple;
	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(work_context);
}
