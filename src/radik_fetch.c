/*
 * radik_fetch.c
 *	  Fetch selected rows by TID, a batch at a time, in TID order (radik_fetch.h).
 *
 * Each row is checked as heap_fetch checks it: the snapshot's visibility test, the predicate
 * lock and the serializable conflict check.  Two things make it much cheaper than heap_fetch per
 * row, which matters when a query asks for a million whole rows:
 *
 *  - Rows are visited in TID order, so each page is read, pinned and share-locked once for all
 *    its rows; on an all-visible page the per-row visibility test is skipped, as a sequential
 *    scan in page mode skips it (the selection read these rows under that very rule).  The
 *    serializable checks start by asking CheckForSerializableConflictOutNeeded, false for the
 *    whole query outside serializable transactions: it is asked once per page, and the per-row
 *    calls are made only when it said yes.
 *  - The rows of a large batch are spread over most of the table's pages, so every page costs
 *    a few cache misses that depend on each other (the page's line pointer, then its tuple).
 *    The next FETCH_PAGES_AHEAD pages are therefore pinned ahead: when a page is pinned its rows'
 *    line pointers are prefetched, half the window later their tuples, so that by the time a
 *    page is read its memory is on its way or there.  Pinning ahead holds a few more buffer
 *    pins, never a lock.
 *
 * Pages come from a page source (radik_page_source.h): where a scan of the table reads it
 * through a ring, the caller reads each page once (or about twice at most) and the rows lie
 * close together, a page that no shared buffer holds is copied from the page cache, as the scan
 * that selected the rows copied it, instead of being read into a shared buffer with one 8 kB
 * read() (after a restart, every page of a million rows kept: a grouped selection of 50M rows
 * took half the time).  A caller that fetches its rows in several batches, each spread over the
 * table, reads a page in many of them: it reads through shared buffers, where the page then
 * stays, rather than copying it again each time.  A copy holds only the page's header, its line
 * pointers and the rows fetched from it (radik_page_source_read_rows_into), not the whole 8 kB
 * page of which a million rows kept over a table use a row or two.
 */
#include "postgres.h"

#include "radik_compat.h"
#include "radik_fetch.h"
#include "radik_heap.h"
#include "radik_page_source.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/memutils.h"
#include "utils/rel.h"


/*
 * Pages may be copied from the page cache where the rows lie on at least one block in this many
 * of the blocks they span: each copy of a block scattered further apart costs a page fault and
 * a share of a mapping, which measured no faster than reading it into a buffer.
 */
#define FETCH_COPY_DENSITY 8

/* Rows whose memory radik_gather_rows asks for ahead of the one it copies. */
#define GATHER_ROWS_AHEAD 16

/* Pages pinned ahead of the one being read (a power of two). */
#define FETCH_PAGES_AHEAD 16

#define ST_SORT sort_by_tid
#define ST_ELEMENT_TYPE RadikFetchOrder
#define ST_COMPARE(a, b) \
	((a)->packed_tid < (b)->packed_tid ? -1 : (a)->packed_tid > (b)->packed_tid ? 1 : 0)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

void
radik_sort_fetch_order(RadikFetchOrder *order, int64 n)
{
	sort_by_tid(order, n);
}

/* A page read ahead (pinned, or copied into copy): its block, and order[first .. end) its rows. */
typedef struct FetchPage
{
	RadikPageRef ref;
	Page		copy;
	BlockNumber block;
	int64		first;
	int64		end;
	bool		tuples_prefetched;
} FetchPage;

/* Where the line pointer of a row lies in its page (an offset out of range stays in the page). */
static inline const ItemIdData *
line_pointer_of(const char *memory, const RadikFetchOrder *order)
{
	OffsetNumber offnum = radik_packed_tid_offset(order->packed_tid);

	offnum = Max(FirstOffsetNumber, Min(offnum, MaxHeapTuplesPerPage));
	return (const ItemIdData *) (memory + SizeOfPageHeaderData) + (offnum - 1);
}

/* Read the page of order[*cursor] and ask for its rows' line pointers; move *cursor past them. */
static void
pin_page_ahead(RadikPageSource *source, const RadikFetchOrder *order, int64 n, int64 *cursor,
			   FetchPage *page)
{
	const char *memory;
	OffsetNumber offsets[MaxHeapTuplesPerPage];
	int			noffsets = 0;

	page->first = *cursor;
	page->block = radik_packed_tid_block(order[page->first].packed_tid);
	for (page->end = page->first;
		 page->end < n && radik_packed_tid_block(order[page->end].packed_tid) == page->block;
		 page->end++)
	{
		if (noffsets < MaxHeapTuplesPerPage)
			offsets[noffsets] = radik_packed_tid_offset(order[page->end].packed_tid);
		noffsets++;
	}
	*cursor = page->end;
	/* more rows than a page holds (a row asked for twice): the whole page */
	if (noffsets <= MaxHeapTuplesPerPage)
		page->ref = radik_page_source_read_rows_into(source, page->block, page->copy, offsets,
													 noffsets);
	else
		page->ref = radik_page_source_read_into(source, page->block, page->copy);
	page->tuples_prefetched = false;

	memory = (const char *) page->ref.page;
	for (int64 i = page->first; i < page->end; i++)
		radik_prefetch_for_read(line_pointer_of(memory, &order[i]));
}

/*
 * Ask for the tuples of a pinned page's rows.  The line pointers are read without the page's
 * lock: only to compute a prefetch address, which is kept within the page.
 */
static void
prefetch_page_rows(const RadikFetchOrder *order, FetchPage *page)
{
	const char *memory = (const char *) page->ref.page;

	for (int64 i = page->first; i < page->end; i++)
	{
		unsigned	offset = line_pointer_of(memory, &order[i])->lp_off;

		if (offset < BLCKSZ)
			radik_prefetch_for_read(memory + offset);
	}
	page->tuples_prefetched = true;
}

/*
 * Check and copy the rows of one page read ahead (then released).  A copy from the page cache is
 * of an all-visible page outside serializable transactions (radik_page_source.c), so it needs
 * neither the buffer's lock nor the per-row checks.
 */
static void
fetch_page_rows(Relation rel, Snapshot snapshot, const RadikFetchOrder *order, FetchPage *fp,
				HeapTuple *out)
{
	Buffer		buffer = fp->ref.buffer;
	Page		page = fp->ref.page;
	OffsetNumber maxoff;
	bool		all_visible;
	bool		check_serializable;

	if (BufferIsValid(buffer))
		LockBuffer(buffer, BUFFER_LOCK_SHARE);
	TestForOldSnapshot(snapshot, rel, page);
	maxoff = PageGetMaxOffsetNumber(page);
	all_visible = PageIsAllVisible(page) && !snapshot->takenDuringRecovery;
	check_serializable = CheckForSerializableConflictOutNeeded(rel, snapshot);

	for (int64 i = fp->first; i < fp->end; i++)
	{
		OffsetNumber offnum = radik_packed_tid_offset(order[i].packed_tid);
		ItemId		lp;
		HeapTupleData tuple;
		bool		valid;

		lp = (offnum >= FirstOffsetNumber && offnum <= maxoff) ? PageGetItemId(page, offnum) : NULL;
		if (lp == NULL || !ItemIdIsNormal(lp))
			elog(ERROR, "selected row (%u,%u) of \"%s\" is gone",
				 fp->block, offnum, RelationGetRelationName(rel));
		tuple.t_data = (HeapTupleHeader) PageGetItem(page, lp);
		tuple.t_len = ItemIdGetLength(lp);
		tuple.t_tableOid = RelationGetRelid(rel);
		ItemPointerSet(&tuple.t_self, fp->block, offnum);

		valid = all_visible || HeapTupleSatisfiesVisibility(&tuple, snapshot, buffer);
		if (check_serializable)
		{
			if (valid)
				PredicateLockTID(rel, &tuple.t_self, snapshot,
								 HeapTupleHeaderGetXmin(tuple.t_data));
			HeapCheckForSerializableConflictOut(valid, rel, &tuple, buffer, snapshot);
		}
		if (!valid)
			elog(ERROR, "selected row (%u,%u) of \"%s\" is not visible to the query's snapshot",
				 fp->block, offnum, RelationGetRelationName(rel));
		out[order[i].position] = heap_copytuple(&tuple);
	}
	if (BufferIsValid(buffer))
		LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
	radik_page_source_release(&fp->ref);
}

uint64
radik_fetch_rows(Relation rel, Snapshot snapshot, const RadikFetchOrder *order, int64 n,
				 bool may_copy, HeapTuple *out)
{
	FetchPage	ahead[FETCH_PAGES_AHEAD];
	int			head = 0;		/* the next page to read */
	int			pinned = 0;
	int64		cursor = 0;		/* the next row to pin a page for */
	RadikPageSource source;
	MemoryContext source_context;
	MemoryContext old_context;
	uint64		pages_copied;
	BlockNumber first_block;
	BlockNumber end_block;

	if (n <= 0)
		return 0;
	/* the source's window, unmapped when this context goes, on an error too */
	source_context = AllocSetContextCreate(CurrentMemoryContext, "radik fetched pages",
										   ALLOCSET_SMALL_SIZES);
	old_context = MemoryContextSwitchTo(source_context);
	first_block = radik_packed_tid_block(order[0].packed_tid);
	end_block = radik_packed_tid_block(order[n - 1].packed_tid) + 1;
	radik_page_source_begin_fetch(&source, rel, snapshot, end_block,
								  may_copy &&
								  (uint64) n * FETCH_COPY_DENSITY >= end_block - first_block);
	for (int i = 0; i < FETCH_PAGES_AHEAD; i++)
		ahead[i].copy = radik_page_source_may_copy(&source) ? palloc(BLCKSZ) : NULL;
	MemoryContextSwitchTo(old_context);

	while (pinned > 0 || cursor < n)
	{
		FetchPage  *later;

		CHECK_FOR_INTERRUPTS();
		while (pinned < FETCH_PAGES_AHEAD && cursor < n)
		{
			pin_page_ahead(&source, order, n, &cursor,
						   &ahead[(head + pinned) % FETCH_PAGES_AHEAD]);
			pinned++;
		}
		/* the page half the window ahead: its line pointers have had time to arrive */
		later = &ahead[(head + Min(FETCH_PAGES_AHEAD / 2, pinned - 1)) % FETCH_PAGES_AHEAD];
		if (!later->tuples_prefetched)
			prefetch_page_rows(order, later);
		fetch_page_rows(rel, snapshot, order, &ahead[head], out);
		head = (head + 1) % FETCH_PAGES_AHEAD;
		pinned--;
	}
	pages_copied = source.pages_copied;
	radik_page_source_end(&source);
	MemoryContextDelete(source_context);
	return pages_copied;
}

/*
 * Rows returned in key order from copies made in TID order are each a cache miss (and, in 4 kB
 * pages, a TLB miss) when the node above first reads them, one at a time, with a row's worth of
 * executor work between them.  Here the misses overlap, the memory of the rows ahead asked for
 * while a row is copied, and the copies are read next from a buffer small enough to stay in the
 * processor's cache.  (Copying a whole batch of a million rows at once saved the misses too, but
 * spent a fifth of that on the page faults of its fresh memory.)
 */
int64
radik_gather_rows(HeapTuple const *rows, int64 n, Size max_bytes, HeapTuple *out,
				  char **buffer, Size *buffer_size, MemoryContext context)
{
	Size		total = 0;
	int64		count = 0;
	char	   *copies;

	while (count < n)
	{
		Size		size = MAXALIGN(HEAPTUPLESIZE + rows[count]->t_len);

		if (count > 0 && total + size > max_bytes)
			break;
		if (count + GATHER_ROWS_AHEAD < n)
			radik_prefetch_for_read(rows[count + GATHER_ROWS_AHEAD]);
		total += size;
		count++;
	}
	if (*buffer_size < total)
	{
		if (*buffer != NULL)
			pfree(*buffer);
		*buffer = MemoryContextAllocHuge(context, total);
		*buffer_size = total;
	}
	copies = *buffer;
	for (int64 i = 0; i < count; i++)
	{
		HeapTuple	copy = (HeapTuple) copies;

		if (i + GATHER_ROWS_AHEAD < count)
		{
			HeapTuple	ahead = rows[i + GATHER_ROWS_AHEAD];

			radik_prefetch_for_read(ahead->t_data);
			if (ahead->t_len > 64)
				radik_prefetch_for_read((char *) ahead->t_data + 64);
		}
		*copy = *rows[i];
		copy->t_data = (HeapTupleHeader) ((char *) copy + HEAPTUPLESIZE);
		memcpy(copy->t_data, rows[i]->t_data, rows[i]->t_len);
		out[i] = copy;
		copies += MAXALIGN(HEAPTUPLESIZE + copy->t_len);
	}
	return count;
}
