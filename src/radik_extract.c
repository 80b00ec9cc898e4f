/*
 * radik_extract.c
 *	  Read a table's visible rows, run the quals, compute each row's first sort key and put the
 *	  (key, row id) pairs that can still be selected into a batch (radik_extract.h).
 *
 * The rows are exactly those a sequential scan with the same snapshot would see: the scan is a
 * table AM sequential scan (table_beginscan_strat, or table_beginscan_parallel on a parallel
 * table scan), which applies the snapshot's visibility rules, takes the predicate locks of a
 * serializable transaction and uses the bulk-read buffer strategy.  Synchronized scans are off,
 * so a serial scan reads the blocks in order every time.
 *
 * Reading keys is most of a selection's time, so on a heap table the extractor walks the pages
 * itself, taking the blocks in order or from the parallel scan as a parallel sequential scan
 * does (table_block_parallelscan_nextpage), and lists each page's tuples visible to the snapshot
 * as heapgetpage does for a sequential scan (page pruning, share lock, no per-tuple check on an
 * all-visible page, the serializable conflict checks).  It does that itself, rather than through
 * heapgetpage, for one reason: memory.  A table much larger than the CPU caches makes every
 * page a run of cache misses, so the extractor pins the page after the current one before
 * reading the current one, and prefetches the next page's memory a line or two per row while it
 * reads this page's rows: the loads overlap the work instead of stalling it (heapgetpage
 * releases the scan's only pinned page before reading the next).  A key that is a plain column
 * is then read in place from each visible tuple, at its fixed offset when the columns before it
 * are fixed-width and the tuple has no NULLs (else heap_getattr), without storing the row in a
 * slot.  Rows go through a slot only where quals or a key expression need one.  Other table AMs
 * (radik_topk() accepts any table) go through table_scan_getnextslot, one row at a time.
 *
 * Simple WHERE clauses (radik_native_qual.h) run in the same loop that reads the key, on pages
 * whose tuples have no NULLs; other pages and quals get a verdict per row first, then the key
 * loop over the rows that passed.  A key expression of float arithmetic is computed from the
 * rows' raw values too (radik_native_key.h), node by node over a few rows at a time.  Which of
 * these a scan uses, and when the key is read before quals run through the executor,
 * radik_extract_plan.c decides.
 *
 * When the caller asks for whole rows (RadikKeyBatch.rows), the rows of a page that are handed
 * on are copied into a row store while the page is still pinned (radik_carry.c).
 *
 * The work is done page by page: a call reads pages while the batch has room for a whole page's
 * rows, so the caller decides how often to look at other things (a worker sends its batch, the
 * leader reads the workers' batches and feeds the engine).  The page walk checks for interrupts
 * on every page; the slot path checks on every row.
 */
#include "postgres.h"

#include "radik_compat.h"
#include "radik_extract.h"
#include "radik_heap.h"
#include "access/heapam.h"
#include "access/tableam.h"
#include "access/tupmacs.h"
#include "catalog/pg_am.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "pgstat.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/rel.h"


/* Rows whose quals and key are read between two rounds of prefetching (extract_page_column). */
#define QUAL_ROWS_PER_CALL 32

/*
 * Rows whose key expression is computed between two rounds of prefetching
 * (extract_native_key_rows).  The rounds ask for the next page's lines two or so per row, and the
 * loop that asks runs without waiting for memory, so a round is a burst: 32 rows' worth stalled
 * on the CPU's miss buffers, and the scan of a 3M-row table took 1.6x as long as for the plain
 * column, against 1.3x with 8 (the development machine; 4 and 16 were slower).
 */
#define KEY_ROWS_PER_CALL 8

/*
 * Add the columns node's Vars read to the Bitmapset *context; stop (true) at a whole-row or
 * system column.
 */
static bool
find_slot_columns(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *var = (Var *) node;

		if (var->varattno <= 0)
			return true;
		*(Bitmapset **) context = bms_add_member(*(Bitmapset **) context, var->varattno);
		return false;
	}
	return expression_tree_walker(node, find_slot_columns, context);
}

/*
 * Can the quals and the key expression run on a virtual slot holding only the columns they
 * read, each read straight from the tuple as the key column is?  That spares storing every row
 * in a slot and deforming it.  Not when they read a whole row or a system column (ctid, ...).
 */
static bool
plan_slot_columns(RadikExtractor *extractor, Relation rel, ExprState *qual,
				  const RadikSortKey *key)
{
	Bitmapset  *columns = NULL;
	int			attnum = -1;
	int			n = 0;

	if ((qual != NULL && find_slot_columns((Node *) qual->expr, &columns)) ||
		(key->attnum <= 0 && find_slot_columns((Node *) key->expr->expr, &columns)))
		return false;
	extractor->nslot_columns = bms_num_members(columns);
	extractor->slot_columns = palloc(Max(extractor->nslot_columns, 1) *
									 sizeof(RadikColumnReader));
	while ((attnum = bms_next_member(columns, attnum)) >= 0)
		radik_column_reader_init(&extractor->slot_columns[n++], rel, attnum);
	return true;
}

/* Make the virtual slot the row in tuple, as far as the quals and the key read it. */
static inline void
fill_slot_columns(RadikExtractor *extractor, HeapTuple tuple)
{
	TupleTableSlot *slot = extractor->slot;

	ExecClearTuple(slot);
	for (int i = 0; i < extractor->nslot_columns; i++)
	{
		const RadikColumnReader *column = &extractor->slot_columns[i];

		slot->tts_values[column->attnum - 1] =
			radik_read_column(column, tuple, &slot->tts_isnull[column->attnum - 1]);
	}
	ExecStoreVirtualTuple(slot);
}

void
radik_extract_begin(RadikExtractor *extractor, Relation rel, Snapshot snapshot,
					ParallelTableScanDesc pscan, ExprContext *econtext, ExprState *qual,
					const RadikSortKey *key, int64 nulls_limit)
{
	memset(extractor, 0, sizeof(*extractor));
	extractor->rel = rel;
	extractor->key = key;
	radik_key_mapper_init(&extractor->mapper, key);
	extractor->key_bytes = extractor->mapper.key_bytes;
	if (key->attnum > 0)
		radik_column_reader_init(&extractor->column, rel, key->attnum);
	extractor->econtext = econtext;
	extractor->qual = qual;
	extractor->nulls_limit = nulls_limit;

	if (pscan != NULL)
	{
		extractor->scan = table_beginscan_parallel(rel, pscan);
		extractor->parallel = true;
	}
	else
		extractor->scan = table_beginscan_strat(rel, snapshot, 0, NULL, true, false);

	/* the page walk lists visible tuples as a page-mode scan does, which needs an MVCC snapshot */
	extractor->heap_pages = rel->rd_rel->relam == HEAP_TABLE_AM_OID &&
		(extractor->scan->rs_flags & SO_ALLOW_PAGEMODE) != 0;
	if (extractor->heap_pages)
		radik_page_source_begin(&extractor->pages, rel, (HeapScanDesc) extractor->scan);

	extractor->need_slot = qual != NULL || key->attnum <= 0;
	if (extractor->heap_pages && qual != NULL)
		extractor->native_qual = radik_extract_native_quals((List *) qual->expr, rel, key);
	if (!extractor->heap_pages)
		extractor->slot = table_slot_create(rel, NULL);
	else if (extractor->need_slot && plan_slot_columns(extractor, rel, qual, key))
	{
		/* the columns the quals and the key read, filled in a virtual slot; NULL elsewhere */
		extractor->slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsVirtual);
		memset(extractor->slot->tts_isnull, true,
			   RelationGetDescr(rel)->natts * sizeof(bool));
	}
	else
	{
		/*
		 * On the heap path a row stays valid while its page is pinned by the scan, so the slot
		 * refers to it without pinning the buffer again for every row.
		 */
		extractor->slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsHeapTuple);
	}

	/* With native quals, the slot is needed only for a key expression (and the odd row). */
	if (extractor->native_qual != NULL)
		extractor->need_slot = key->attnum <= 0;
	extractor->key_first = qual != NULL && extractor->native_qual == NULL &&
		radik_extract_key_read_first((List *) qual->expr, key);

	if (extractor->heap_pages)
		extractor->native_key = radik_extract_native_key(key, rel);
	/* a key computed natively is read a page at a time, as a column (the slot for odd rows) */
	if (extractor->native_key != NULL && (qual == NULL || extractor->native_qual != NULL))
		extractor->need_slot = false;
	extractor->fill_slot = extractor->need_slot &&
		((qual != NULL && extractor->native_qual == NULL) ||
		 (key->attnum <= 0 && extractor->native_key == NULL));
}

/* Make the slot the row in tuple and econtext's scan tuple, for the expression evaluator. */
static inline void
set_slot_row(RadikExtractor *extractor, HeapTuple tuple)
{
	if (tuple == NULL)
		;						/* already in the slot */
	else if (extractor->slot_columns != NULL)
		fill_slot_columns(extractor, tuple);
	else
		ExecStoreHeapTuple(tuple, extractor->slot, false);
	ResetExprContext(extractor->econtext);
	extractor->econtext->ecxt_scantuple = extractor->slot;
}

/*
 * Does the heap tuple pass the quals, given the native quals' verdict on it?  A row they cannot
 * decide (it would raise an error) goes through ExecQual, which raises PostgreSQL's own error.
 */
static inline bool
row_passes_verdict(RadikExtractor *extractor, HeapTuple tuple, RadikQualResult verdict)
{
	switch (verdict)
	{
		case RADIK_QUAL_TRUE:
			return true;
		case RADIK_QUAL_FALSE:
			return false;
		default:
			set_slot_row(extractor, tuple);
			return ExecQual(extractor->qual, extractor->econtext);
	}
}

/* The key expression's value for the row in tuple (NULL: the row is in the slot already). */
static inline Datum
key_expression_value(RadikExtractor *extractor, HeapTuple tuple, bool *isnull)
{
	if (extractor->native_key != NULL && tuple != NULL)
	{
		float8		value;

		switch (radik_native_key_run(extractor->native_key, tuple, &value))
		{
			case RADIK_NATIVE_KEY_VALUE:
				*isnull = false;
				return Float8GetDatum(value);
			case RADIK_NATIVE_KEY_NULL:
				*isnull = true;
				return (Datum) 0;
			case RADIK_NATIVE_KEY_ASK_EXECUTOR:
				/* PostgreSQL's expression raises the error */
				if (!extractor->fill_slot)
					set_slot_row(extractor, tuple);
				break;
		}
	}
	return ExecEvalExprSwitchContext(extractor->key->expr, extractor->econtext, isnull);
}

/*
 * The row in slot, or on the heap path the row in tuple (stored into slot when quals or a key
 * expression need it): does it pass the quals, and where does it go in batch?  With native
 * quals, verdict is theirs on the row, run over its page by the caller.
 */
static inline void
extract_row(RadikExtractor *extractor, HeapTuple tuple, ItemPointer tid, RadikKeyBatch *batch,
			uint64 threshold, RadikQualResult verdict)
{
	TupleTableSlot *slot = extractor->slot;
	Datum		value = (Datum) 0;
	bool		isnull = false;
	uint64		key = 0;
	bool		key_read = false;

	extractor->rows_scanned++;

	/*
	 * A plain column key first, where quals would be run through the expression evaluator: a
	 * row whose key is beyond the threshold cannot be selected whatever the quals say, so they
	 * are not run on it (reading a column raises no error; the quals still run first on every
	 * row that may be selected, and for key expressions).  Only for quals whose errors and
	 * effects cannot depend on the row (qual_may_fail_on_values).  It counts as matched, as any
	 * row dropped for its key.  A row that passes keeps the key read here.
	 */
	if (extractor->key_first && tuple != NULL && extractor->groups == NULL &&
		threshold != PG_UINT64_MAX)
	{
		value = radik_read_column(&extractor->column, tuple, &isnull);
		if (!isnull)
		{
			key = radik_mapper_key(&extractor->mapper, value);
			if (key > threshold)
			{
				extractor->rows_matched++;
				return;
			}
		}
		key_read = true;
	}
	if (extractor->native_qual != NULL && !row_passes_verdict(extractor, tuple, verdict))
		return;
	if (extractor->fill_slot)
	{
		set_slot_row(extractor, tuple);
		if (extractor->qual != NULL && extractor->native_qual == NULL &&
			!ExecQual(extractor->qual, extractor->econtext))
			return;
	}
	extractor->rows_matched++;

	if (!key_read)
	{
		if (extractor->key->attnum <= 0)
			value = key_expression_value(extractor, tuple, &isnull);
		else if (tuple == NULL)
			value = slot_getattr(slot, extractor->key->attnum, &isnull);
		else
			value = radik_read_column(&extractor->column, tuple, &isnull);
		if (!isnull)
			key = radik_mapper_key(&extractor->mapper, value);
	}

	if (extractor->groups != NULL)
	{
		radik_groups_offer_tuple(extractor->groups, tuple, key, isnull, radik_pack_tid(tid));
		return;
	}
	if (isnull)
	{
		if (extractor->nulls_seen++ < extractor->nulls_limit)
			batch->nulls[batch->nnulls++] = *tid;
		return;
	}
	if (key > threshold)
		return;					/* can no longer be among the best */
	if (extractor->key_bytes == 4)
		((uint32 *) batch->keys)[batch->count] = (uint32) key;
	else
		((uint64 *) batch->keys)[batch->count] = key;
	batch->ids[batch->count++] = radik_pack_tid(tid);
}

/* The next block to read, or InvalidBlockNumber at the end of the scan. */
static BlockNumber
next_block(RadikExtractor *extractor)
{
	HeapScanDesc hscan = (HeapScanDesc) extractor->scan;

	if (extractor->parallel)
	{
		ParallelBlockTableScanDesc pbscan =
		(ParallelBlockTableScanDesc) extractor->scan->rs_parallel;

		if (extractor->next_block == 0)
		{
			/* first call: join the parallel scan */
			table_block_parallelscan_startblock_init(extractor->rel,
													 hscan->rs_parallelworkerdata, pbscan);
			extractor->next_block = 1;
		}
		return table_block_parallelscan_nextpage(extractor->rel,
												 hscan->rs_parallelworkerdata, pbscan);
	}
	if (extractor->ranges != NULL)
	{
		if (extractor->next_block >= extractor->range_end)
		{
			const RadikBlockRange *range;

			if (extractor->next_range >= extractor->nranges)
				return InvalidBlockNumber;
			range = &extractor->ranges[extractor->next_range];
			if (range->bound > extractor->threshold)
			{
				extractor->ranges_skipped = extractor->nranges - extractor->next_range;
				extractor->next_range = extractor->nranges;
				return InvalidBlockNumber;
			}
			extractor->next_range++;
			extractor->ranges_read++;
			extractor->next_block = range->start;
			extractor->range_end = Min(range->end, hscan->rs_nblocks);
			if (extractor->next_block >= extractor->range_end)
				return next_block(extractor);
		}
		return extractor->next_block++;
	}
	if (extractor->only_blocks != NULL)
	{
		if (extractor->next_block >= (BlockNumber) extractor->nonly_blocks)
			return InvalidBlockNumber;
		return extractor->only_blocks[extractor->next_block++];
	}
	if (extractor->next_block >= hscan->rs_nblocks)
		return InvalidBlockNumber;
	return extractor->next_block++;
}

/*
 * Prefetching a page's memory.  A page that was not prefetched while the previous one was read
 * (the first one of a call) asks for all of its tuple space at once, so that the loads at least
 * overlap each other.  The next page is asked for a little per row of the current one
 * (PagePrefetch): asked all at once, the requests would fill the CPU's miss buffers and stall
 * the reading of the current page as surely as the misses themselves.
 */
static inline void
prefetch_page_tuples(Page page)
{
	PageHeader	header = (PageHeader) page;

	for (int offset = header->pd_upper; offset < header->pd_special;
		 offset += RADIK_PREFETCH_STRIDE)
		radik_prefetch_for_read((char *) page + offset);
}

typedef struct PagePrefetch
{
	const char *page;			/* NULL: nothing to prefetch */
	int			next;			/* offset of the next line to ask for, from the page's end down */
	int			per_row;		/* lines to ask for per row read */
} PagePrefetch;

/*
 * Start prefetching the next page (ahead, or none) over rows rows of this one.  With
 * line_pointers_first, its line pointers are asked for first, as they are read first; then the
 * rest, from the page's end, where the first tuples lie.  The page is read without its lock: a
 * prefetch is only a hint, and every address asked for lies within the page.
 */
static inline void
page_prefetch_begin(PagePrefetch *prefetch, const char *ahead, bool line_pointers_first,
					int rows)
{
	const int	lines = BLCKSZ / RADIK_PREFETCH_STRIDE;

	prefetch->page = ahead;
	if (ahead == NULL)
		return;
	if (line_pointers_first)
	{
		PageHeader	header = (PageHeader) ahead;

		for (int offset = 0; offset < Min((int) header->pd_lower, BLCKSZ);
			 offset += RADIK_PREFETCH_STRIDE)
			radik_prefetch_for_read(ahead + offset);
	}
	prefetch->next = BLCKSZ - RADIK_PREFETCH_STRIDE;
	prefetch->per_row = rows > 0 ? (lines + rows - 1) / rows : lines;
}

static inline void
page_prefetch_row(PagePrefetch *prefetch)
{
	if (prefetch->page == NULL)
		return;
	for (int i = 0; i < prefetch->per_row && prefetch->next >= 0; i++)
	{
		radik_prefetch_for_read(prefetch->page + prefetch->next);
		prefetch->next -= RADIK_PREFETCH_STRIDE;
	}
}

/* Ask for whatever the rows left unasked (a page with few visible rows). */
static inline void
page_prefetch_end(PagePrefetch *prefetch)
{
	if (prefetch->page == NULL)
		return;
	for (; prefetch->next >= 0; prefetch->next -= RADIK_PREFETCH_STRIDE)
		radik_prefetch_for_read(prefetch->page + prefetch->next);
}

/*
 * List the tuples of block (pinned in buffer) visible to the scan's snapshot into
 * extractor->vistuples, as heapgetpage does in a page-mode scan: prune the page if worthwhile,
 * hold the share lock while looking, skip the per-tuple visibility test on an all-visible page,
 * and give every tuple to the serializable conflict check.  That check starts by asking
 * CheckForSerializableConflictOutNeeded, which stays false for the whole scan outside
 * serializable transactions, so it is asked once per page and the per-tuple call made only when
 * it said yes (the call then asks again itself, as it would have).  A page copied from the page
 * cache is all-visible outside serializable transactions (radik_page_source.c): every tuple.
 */
static void
list_visible_tuples(RadikExtractor *extractor, RadikPageRef *ref, BlockNumber block)
{
	Buffer		buffer = ref->buffer;
	Relation	rel = extractor->rel;
	Snapshot	snapshot = extractor->scan->rs_snapshot;
	Page		page;
	OffsetNumber lines;
	OffsetNumber lineoff;
	ItemId		lpp;
	bool		all_visible;
	int			check_serializable = -1;	/* not asked yet */
	int			ntuples = 0;

	if (BufferIsValid(buffer))
	{
		heap_page_prune_opt(rel, buffer);
		LockBuffer(buffer, BUFFER_LOCK_SHARE);
	}
	page = ref->page;
	TestForOldSnapshot(snapshot, rel, page);
	lines = PageGetMaxOffsetNumber(page);
	all_visible = PageIsAllVisible(page) && !snapshot->takenDuringRecovery;

	for (lineoff = FirstOffsetNumber, lpp = PageGetItemId(page, lineoff); lineoff <= lines;
		 lineoff++, lpp++)
	{
		HeapTupleData tuple;
		bool		valid;

		if (!ItemIdIsNormal(lpp))
			continue;
		if (check_serializable < 0)
			check_serializable = CheckForSerializableConflictOutNeeded(rel, snapshot) ? 1 : 0;
		if (all_visible && !check_serializable)
		{
			extractor->vistuples[ntuples++] = lineoff;
			continue;
		}
		tuple.t_tableOid = RelationGetRelid(rel);
		tuple.t_data = (HeapTupleHeader) PageGetItem(page, lpp);
		tuple.t_len = ItemIdGetLength(lpp);
		ItemPointerSet(&tuple.t_self, block, lineoff);
		valid = all_visible || HeapTupleSatisfiesVisibility(&tuple, snapshot, buffer);
		if (check_serializable)
			HeapCheckForSerializableConflictOut(valid, rel, &tuple, buffer, snapshot);
		if (valid)
			extractor->vistuples[ntuples++] = lineoff;
	}
	if (BufferIsValid(buffer))
		LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	extractor->ntuples = ntuples;
}

/* The row at offnum of page, as a HeapTuple (its data stays on the page). */
static pg_attribute_always_inline void
row_as_tuple(RadikExtractor *extractor, Page page, BlockNumber block, OffsetNumber offnum,
			 HeapTuple tuple)
{
	ItemId		lp = PageGetItemId(page, offnum);

	tuple->t_data = (HeapTupleHeader) PageGetItem(page, lp);
	tuple->t_len = ItemIdGetLength(lp);
	tuple->t_tableOid = RelationGetRelid(extractor->rel);
	ItemPointerSet(&tuple->t_self, block, offnum);
}

/* A row whose key is NULL: to its group, or into the batch's NULL rows (as many as are kept). */
static inline void
keep_null_row(RadikExtractor *extractor, HeapTuple tuple, RadikKeyBatch *batch)
{
	if (extractor->groups != NULL)
		radik_groups_offer_tuple(extractor->groups, tuple, 0, true,
								 radik_pack_tid(&tuple->t_self));
	else if (extractor->nulls_seen++ < extractor->nulls_limit)
		batch->nulls[batch->nnulls++] = tuple->t_self;
}

/*
 * The key of tuple (its column, or its expression) into *value: true; or, when it is NULL, the
 * row kept as a NULL (keep_null_row): false.
 */
static inline bool
read_key_or_keep_null(RadikExtractor *extractor, HeapTuple tuple, RadikKeyBatch *batch,
					  Datum *value)
{
	bool		isnull;

	if (extractor->key->attnum > 0)
		*value = radik_read_column(&extractor->column, tuple, &isnull);
	else
		*value = key_expression_value(extractor, tuple, &isnull);
	if (!isnull)
		return true;
	keep_null_row(extractor, tuple, batch);
	return false;
}

/*
 * extract_page_column's loop for the usual page, every row to be read and the key at a fixed
 * offset: the column reader and the prefetch state in locals, which the loop keeps in registers
 * (through the pointers it would reload them after every store).  A row with NULLs or written
 * before the column was added is read the general way.  Returns the number of keys in values.
 */
static pg_attribute_always_inline int
extract_fixed_offset_rows(RadikExtractor *extractor, Page page, BlockNumber block,
						  const OffsetNumber *rows, int nrows, RadikKeyBatch *batch,
						  PagePrefetch *prefetch, Datum *values, OffsetNumber *offsets)
{
	const int32 key_offset = extractor->column.fixed_offset;
	const int16 key_len = extractor->column.len;
	const AttrNumber key_attnum = extractor->column.attnum;
	PagePrefetch ahead = *prefetch;
	int			n = 0;

	for (int i = 0; i < nrows; i++)
	{
		OffsetNumber offnum = rows[i];
		HeapTupleHeader header = (HeapTupleHeader) PageGetItem(page, PageGetItemId(page, offnum));
		HeapTupleData tuple;

		page_prefetch_row(&ahead);
		if (radik_row_at_cached_offsets(header, key_attnum))
		{
			values[n] = fetch_att((char *) header + header->t_hoff + key_offset, true, key_len);
			offsets[n++] = offnum;
			continue;
		}
		row_as_tuple(extractor, page, block, offnum, &tuple);
		if (read_key_or_keep_null(extractor, &tuple, batch, &values[n]))
			offsets[n++] = offnum;
	}
	*prefetch = ahead;
	return n;
}

/*
 * extract_page_column's loop for a key expression computed from raw values: a few rows at a time
 * (the next page asked for in between), their keys computed node by node over them.  A NULL
 * key is kept as such; a row PostgreSQL's expression fails on goes the general way, where the
 * executor raises the error.  Returns the number of keys in values.
 */
static int
extract_native_key_rows(RadikExtractor *extractor, Page page, BlockNumber block,
						const OffsetNumber *rows, int nrows, RadikKeyBatch *batch,
						PagePrefetch *prefetch, Datum *values, OffsetNumber *offsets)
{
	HeapTupleData tuples[MaxHeapTuplesPerPage];
	float8		keys[MaxHeapTuplesPerPage];
	RadikNativeKeyResult results[MaxHeapTuplesPerPage];
	int			n = 0;

	for (int first = 0; first < nrows; first += KEY_ROWS_PER_CALL)
	{
		int			nrows_call = Min(KEY_ROWS_PER_CALL, nrows - first);

		for (int i = first; i < first + nrows_call; i++)
		{
			page_prefetch_row(prefetch);
			row_as_tuple(extractor, page, block, rows[i], &tuples[i]);
		}
		radik_native_key_run_rows(extractor->native_key, tuples + first, nrows_call,
								  keys + first, results + first);
	}
	for (int i = 0; i < nrows; i++)
	{
		if (likely(results[i] == RADIK_NATIVE_KEY_VALUE))
		{
			values[n] = Float8GetDatum(keys[i]);
			offsets[n++] = rows[i];
		}
		else if (results[i] == RADIK_NATIVE_KEY_NULL)
			keep_null_row(extractor, &tuples[i], batch);
		else if (read_key_or_keep_null(extractor, &tuples[i], batch, &values[n]))
			offsets[n++] = rows[i];	/* the executor's value, had it raised no error */
	}
	return n;
}

/*
 * The common case, a plain column or a natively computed expression as the key and no quals or
 * native ones, done a page at a time:
 * read the values of the visible rows that pass into an array, map them all with one call, keep
 * those within threshold.
 */
static void
extract_page_column(RadikExtractor *extractor, Page page, BlockNumber block,
					RadikKeyBatch *batch, uint64 threshold, PagePrefetch *prefetch)
{
	int			ntuples = extractor->ntuples;
	Datum		values[MaxHeapTuplesPerPage];
	OffsetNumber offsets[MaxHeapTuplesPerPage];
	uint64		keys[MaxHeapTuplesPerPage];
	uint64		block_id = (uint64) block << 16;	/* radik_pack_tid's layout */
	RadikQualResult verdicts[MaxHeapTuplesPerPage];
	OffsetNumber passing[MaxHeapTuplesPerPage];
	const OffsetNumber *rows = extractor->vistuples;
	int			nrows = ntuples;
	const RadikQualResult *row_verdicts = NULL;
	HeapTupleData tuple;
	int			n = 0;
	int			matched = 0;

	/*
	 * Simple quals on pages without NULLs, with a plain column as the key: the quals and the key
	 * read in one loop, a few rows at a time with the next page asked for in between
	 * (radik_native_qual_select_page).
	 */
	if (extractor->native_qual != NULL)
	{
		int			first = 0;
		bool		ask_executor = false;
		int			npassing = 0;

		for (; extractor->native_key == NULL && first < ntuples; first += QUAL_ROWS_PER_CALL)
		{
			int			nrows_call = Min(QUAL_ROWS_PER_CALL, ntuples - first);
			int			got = radik_native_qual_select_page(extractor->native_qual, page,
														   extractor->vistuples + first,
														   nrows_call, &extractor->column,
														   values + n, offsets + n);

			if (got < 0)
				break;
			n += got;
			for (int i = 0; i < nrows_call; i++)
				page_prefetch_row(prefetch);
		}
		if (extractor->native_key == NULL && first >= ntuples)
		{
			matched = n;
			goto map_keys;
		}

		/* A page for the general path: a verdict per row first. */
		n = 0;
		radik_native_qual_run_page(extractor->native_qual, page, block, extractor->vistuples,
								   ntuples, verdicts);

		/*
		 * The rows that pass, listed without a branch (a qual that fails rows at random would
		 * mispredict one in two); rows the executor must decide keep the verdicts row by row.
		 */
		for (int i = 0; i < ntuples; i++)
		{
			passing[npassing] = extractor->vistuples[i];
			npassing += verdicts[i] == RADIK_QUAL_TRUE;
			ask_executor |= verdicts[i] == RADIK_QUAL_ASK_EXECUTOR;
		}
		if (ask_executor)
			row_verdicts = verdicts;
		else
		{
			rows = passing;
			nrows = npassing;
		}
	}
	if (row_verdicts == NULL && extractor->native_key != NULL)
	{
		n = extract_native_key_rows(extractor, page, block, rows, nrows, batch, prefetch,
									values, offsets);
		matched = nrows;
	}
	else if (row_verdicts == NULL && extractor->key->attnum > 0 &&
			 extractor->column.fixed_offset >= 0 && extractor->column.byval)
	{
		n = extract_fixed_offset_rows(extractor, page, block, rows, nrows, batch, prefetch,
									  values, offsets);
		matched = nrows;
	}
	else
	{
		for (int i = 0; i < nrows; i++)
		{
			OffsetNumber offnum = rows[i];

			page_prefetch_row(prefetch);
			row_as_tuple(extractor, page, block, offnum, &tuple);
			if (row_verdicts != NULL && !row_passes_verdict(extractor, &tuple, row_verdicts[i]))
				continue;
			matched++;
			if (read_key_or_keep_null(extractor, &tuple, batch, &values[n]))
				offsets[n++] = offnum;
		}
	}
map_keys:
	extractor->rows_scanned += ntuples;
	extractor->rows_matched += matched;

	radik_mapper_keys(&extractor->mapper, values, n, keys);
	if (extractor->groups != NULL)
	{
		HeapTupleData tuples[MaxHeapTuplesPerPage];
		uint64		ids[MaxHeapTuplesPerPage];

		/* every row to its group, while the page is pinned (the group key is read from it) */
		for (int i = 0; i < n; i++)
		{
			row_as_tuple(extractor, page, block, offsets[i], &tuples[i]);
			ids[i] = block_id | offsets[i];
		}
		radik_groups_offer_tuples(extractor->groups, tuples, keys, ids, n);
	}
	else if (extractor->key_bytes == 4)
	{
		uint32	   *out_keys = (uint32 *) batch->keys;

		for (int i = 0; i < n; i++)
		{
			if (keys[i] > threshold)
				continue;		/* can no longer be among the best */
			out_keys[batch->count] = (uint32) keys[i];
			batch->ids[batch->count++] = block_id | offsets[i];
		}
	}
	else
	{
		uint64	   *out_keys = (uint64 *) batch->keys;

		for (int i = 0; i < n; i++)
		{
			if (keys[i] > threshold)
				continue;
			out_keys[batch->count] = keys[i];
			batch->ids[batch->count++] = block_id | offsets[i];
		}
	}
}

/*
 * Read the next heap page and extract its visible rows; false at the end of the scan.  The page
 * after it is read first (extractor->ahead: pinned, or copied) and prefetched while this one is
 * read.
 */
static bool
extract_next_heap_page(RadikExtractor *extractor, RadikKeyBatch *batch, uint64 threshold)
{
	bool		prefetched = extractor->ahead.page != NULL;
	BlockNumber block;
	RadikPageRef current;
	BlockNumber ahead;
	HeapTupleData tuple;
	PagePrefetch prefetch;
	Page		page;
	size_t		first_row = batch->count;

	/* at least once per page, as heapgetpage does, even through pages of dead tuples */
	CHECK_FOR_INTERRUPTS();
	if (prefetched)
	{
		block = extractor->ahead_block;
		current = extractor->ahead;
		extractor->ahead.buffer = InvalidBuffer;
		extractor->ahead.page = NULL;
	}
	else
	{
		block = next_block(extractor);
		if (!BlockNumberIsValid(block))
			return false;
		current = radik_page_source_read(&extractor->pages, block);
	}
	ahead = next_block(extractor);
	if (BlockNumberIsValid(ahead))
	{
		extractor->ahead = radik_page_source_read(&extractor->pages, ahead);
		extractor->ahead_block = ahead;
	}

	list_visible_tuples(extractor, &current, block);
	page = current.page;
	if (!prefetched)
		prefetch_page_tuples(page);
	/*
	 * A copied page is in the CPU's caches already: prefetch what the next copy will read, the
	 * whole page, without reading its header.
	 */
	if (extractor->ahead.page == NULL || BufferIsValid(extractor->ahead.buffer))
		page_prefetch_begin(&prefetch, extractor->ahead.page, true, extractor->ntuples);
	else
		page_prefetch_begin(&prefetch, radik_page_source_peek(&extractor->pages, ahead + 1),
							false, extractor->ntuples);

	if (!extractor->need_slot)
		extract_page_column(extractor, page, block, batch, threshold, &prefetch);
	else
	{
		/* native quals (with a key expression) run node by node over the page first */
		RadikQualResult verdicts[MaxHeapTuplesPerPage];

		if (extractor->native_qual != NULL)
			radik_native_qual_run_page(extractor->native_qual, page, block, extractor->vistuples,
									   extractor->ntuples, verdicts);
		tuple.t_tableOid = RelationGetRelid(extractor->rel);
		for (int i = 0; i < extractor->ntuples; i++)
		{
			OffsetNumber offnum = extractor->vistuples[i];
			ItemId		lp = PageGetItemId(page, offnum);

			page_prefetch_row(&prefetch);
			tuple.t_data = (HeapTupleHeader) PageGetItem(page, lp);
			tuple.t_len = ItemIdGetLength(lp);
			ItemPointerSet(&tuple.t_self, block, offnum);
			extract_row(extractor, &tuple, &tuple.t_self, batch, threshold,
						extractor->native_qual != NULL ? verdicts[i] : RADIK_QUAL_TRUE);
		}
	}
	page_prefetch_end(&prefetch);
	if (batch->rows != NULL && batch->count > first_row)
		radik_carry_page_rows(batch->rows, page, block, batch->ids + first_row,
							  batch->count - first_row);
	radik_page_source_release(&current);
	return true;
}

bool
radik_extract_only_blocks(RadikExtractor *extractor, const BlockNumber *blocks, int nblocks)
{
	if (!extractor->heap_pages || extractor->parallel)
		return false;
	Assert(extractor->next_block == 0);
	extractor->only_blocks = blocks;
	extractor->nonly_blocks = nblocks;
	extractor->pages.populate = false;	/* a few blocks of each window */
	return true;
}

bool
radik_extract_block_ranges(RadikExtractor *extractor, const RadikBlockRange *ranges, int nranges)
{
	if (!extractor->heap_pages || extractor->parallel)
		return false;
	Assert(extractor->next_block == 0);
	extractor->ranges = ranges;
	extractor->nranges = nranges;
	extractor->pages.populate = false;	/* a few blocks of each window */
	return true;
}

bool
radik_extract(RadikExtractor *extractor, RadikKeyBatch *batch, uint64 threshold, int max_pages)
{
	Assert(batch->key_bytes == extractor->key_bytes);
	extractor->threshold = threshold;
	if (extractor->finished)
		return false;

	if (!extractor->heap_pages)
	{
		int64		max_rows = (int64) max_pages * MaxHeapTuplesPerPage;

		/* Other table AMs: one row at a time through the slot. */
		for (int64 i = 0; i < max_rows && batch->count < batch->capacity &&
			 batch->nnulls < batch->nulls_capacity; i++)
		{
			CHECK_FOR_INTERRUPTS();
			if (!table_scan_getnextslot(extractor->scan, ForwardScanDirection, extractor->slot))
			{
				extractor->finished = true;
				return false;
			}
			extract_row(extractor, NULL, &extractor->slot->tts_tid, batch, threshold,
						RADIK_QUAL_TRUE);	/* no native quals off the heap path */
		}
		return true;
	}

	for (int pages = 0; pages < max_pages && radik_batch_has_room(batch); pages++)
	{
		if (!extract_next_heap_page(extractor, batch, threshold))
		{
			extractor->finished = true;
			return false;
		}
	}
	return true;
}

void
radik_scan_counts_add(RadikScanCounts *counts, const RadikScanCounts *more)
{
	counts->rows_scanned += more->rows_scanned;
	counts->rows_matched += more->rows_matched;
	counts->keys_from_icu += more->keys_from_icu;
	counts->pages_copied += more->pages_copied;
}

void
radik_extract_count(const RadikExtractor *extractor, RadikScanCounts *counts)
{
	counts->rows_scanned += extractor->rows_scanned;
	counts->rows_matched += extractor->rows_matched;
	counts->keys_from_icu += extractor->mapper.icu_conversions;
	counts->pages_copied += extractor->pages.pages_copied;
}

void
radik_extract_end(RadikExtractor *extractor)
{
	if (extractor->heap_pages)
	{
		radik_page_source_release(&extractor->ahead);
		radik_page_source_end(&extractor->pages);
	}
	ExecDropSingleTupleTableSlot(extractor->slot);
	table_endscan(extractor->scan);
}
