/*
 * radik_extract.h
 *	  The key extractor: walks a table's rows visible to a snapshot, runs the quals, computes each
 *	  row's first sort key and hands (key, row id) pairs over in batches.
 *
 * It is the one place that reads the table for a selection, in the backend that runs the query
 * and in the parallel workers alike (radik_parallel.c): a serial extractor walks every block
 * itself, a parallel one takes blocks from a parallel table scan shared with the other
 * processes.  The caller gives, with every call, the largest key still worth having (the
 * engine's running k-th key, or PG_UINT64_MAX), so rows that cannot be selected are dropped here
 * and never copied anywhere.
 */
#ifndef RADIK_EXTRACT_H
#define RADIK_EXTRACT_H

#include "postgres.h"

#include "access/relscan.h"
#include "access/htup_details.h"
#include "executor/executor.h"
#include "storage/buf.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "radik_carry.h"
#include "radik_datum_keys.h"
#include "radik_groups.h"
#include "radik_heap.h"
#include "radik_key_mapper.h"
#include "radik_native_key.h"
#include "radik_native_qual.h"
#include "radik_page_source.h"

/*
 * Rows extracted and not yet handed on.  keys holds uint32 or uint64 values (key_bytes), ids the
 * packed TIDs (radik_pack_tid), nulls the rows whose key is NULL.  With rows set, the rows
 * handed on are also carried whole into that store where it has room, and their ids name the
 * copies (radik_carry.h).  The arrays belong to the caller; the extractor fills them from count
 * and nnulls on.
 */
typedef struct RadikKeyBatch
{
	int			key_bytes;
	void	   *keys;
	uint64	   *ids;
	size_t		count;
	size_t		capacity;
	ItemPointerData *nulls;
	size_t		nnulls;
	size_t		nulls_capacity;
	RadikRowStore *rows;		/* NULL: no row is carried */
} RadikKeyBatch;

/*
 * Blocks [start, end) of a table, and the smallest engine key any row of them can have
 * (radik_brin.h): a range whose bound is beyond the threshold has no row worth extracting.
 */
typedef struct RadikBlockRange
{
	uint64		bound;
	BlockNumber start;
	BlockNumber end;
} RadikBlockRange;

/* One table scan's extraction state; see radik_extract_begin. */
typedef struct RadikExtractor
{
	Relation	rel;
	TableScanDesc scan;
	TupleTableSlot *slot;
	bool		heap_pages;		/* walking heap pages ourselves (see radik_extract.c) */
	bool		need_slot;		/* quals or a key expression read the row through slot */
	bool		parallel;		/* blocks come from a parallel table scan */
	bool		finished;
	BlockNumber next_block;		/* serial heap walk: the next block to read */
	const BlockNumber *only_blocks; /* serial heap walk of these blocks alone, when set */
	int			nonly_blocks;
	const RadikBlockRange *ranges;	/* serial heap walk of these ranges in turn, when set */
	int			nranges;
	int			next_range;
	BlockNumber range_end;		/* the end of the range being read */
	uint64		threshold;		/* the last radik_extract's */
	int64		ranges_read;	/* ranges begun */
	int64		ranges_skipped; /* ranges left unread: their bound was beyond the threshold */
	RadikPageSource pages;		/* where the heap pages come from */
	RadikPageRef ahead;			/* the page read after the current one, read early */
	BlockNumber ahead_block;
	int			ntuples;		/* the current page's visible tuples */
	OffsetNumber vistuples[MaxHeapTuplesPerPage];

	const RadikSortKey *key;
	RadikKeyMapper mapper;		/* the key's values to engine keys */
	int			key_bytes;
	RadikColumnReader column;	/* when key->attnum > 0 */
	int			nslot_columns;	/* > 0: slot is virtual, only these columns are filled */
	RadikColumnReader *slot_columns;
	ExprContext *econtext;
	ExprState  *qual;
	RadikNativeQual *native_qual;	/* qual run on raw values, when it can be */
	RadikNativeKey *native_key; /* a key expression computed from raw values, when it can be */
	bool		fill_slot;		/* each row goes into the slot, for the executor (extract_row) */
	bool		key_first;		/* the key column is compared first, qual after (extract_row) */
	RadikGroupSet *groups;		/* set: rows are offered to their groups, not batched */
	int64		nulls_limit;	/* NULL-key rows to keep at most; the rest are only counted */

	int64		rows_scanned;	/* visible rows read */
	int64		rows_matched;	/* of those, rows not removed by the quals (see extract_row) */
	int64		nulls_seen;		/* of those, rows whose key is NULL */
} RadikExtractor;

/* What scans counted, summed over the processes that ran them (radik_extract_count). */
typedef struct RadikScanCounts
{
	int64		rows_scanned;	/* visible rows read */
	int64		rows_matched;	/* of those, rows not removed by the quals */
	int64		keys_from_icu;	/* keys an ICU collation's table did not make (radik_key_mapper.h) */
	int64		pages_copied;	/* pages copied from the page cache (radik_page_source.h) */
} RadikScanCounts;

/*
 * Start extracting rel's rows visible to snapshot: every block when pscan is NULL, else the
 * blocks this process takes from the parallel scan pscan (whose snapshot is then used).  qual
 * (may be NULL) and key->expr are evaluated in econtext with the row as its scan tuple.  Of
 * the rows whose key is NULL, the first nulls_limit are handed over.
 */
extern void radik_extract_begin(RadikExtractor *extractor, Relation rel, Snapshot snapshot,
								ParallelTableScanDesc pscan, ExprContext *econtext,
								ExprState *qual, const RadikSortKey *key, int64 nulls_limit);

/*
 * Can the key be read before the quals (an implicitly ANDed list), which then run only on rows
 * whose key may still be selected?  For a plain column key, where the quals' errors and effects
 * cannot depend on a row's values: a row left out for its key then hides nothing.
 */
extern bool radik_extract_key_read_first(List *quals, const RadikSortKey *key);

/*
 * The quals (an implicitly ANDed list) compiled to run on raw column values for a scan by key
 * (radik_native_qual.h), or NULL where they run through the executor: where they cannot, and
 * where they match text and the key is a column read before them (extract_row), so that the
 * text of most rows, whose keys cannot be selected, is never matched at all.
 */
extern RadikNativeQual *radik_extract_native_quals(List *quals, Relation rel,
												   const RadikSortKey *key);

/*
 * The key's expression compiled to be computed from raw column values (radik_native_key.h), or
 * NULL where the executor computes it (a plain column key is read, not computed).
 */
extern RadikNativeKey *radik_extract_native_key(const RadikSortKey *key, Relation rel);

/*
 * Make a serial heap extractor read only blocks[0 .. nblocks) (ascending, below the table's
 * size; the array must outlive the extractor) instead of every block: a sample of the table.
 * Call before the first radik_extract.  Returns false, changing nothing, when the extractor
 * does not walk heap pages itself (another table AM, a parallel scan, a non-MVCC snapshot).
 */
extern bool radik_extract_only_blocks(RadikExtractor *extractor, const BlockNumber *blocks,
									  int nblocks);

/*
 * Make a serial heap extractor read the block ranges ranges[0 .. nranges) in that order (the
 * array must outlive the extractor), and stop at the first range whose bound is beyond the
 * threshold of the radik_extract call that reaches it: every later range must have a bound at
 * least as large.  Call before the first radik_extract.  Returns false, changing nothing, where
 * radik_extract_only_blocks would.
 */
extern bool radik_extract_block_ranges(RadikExtractor *extractor, const RadikBlockRange *ranges,
									   int nranges);

/*
 * Offer every row that passes the quals to its group in groups (radik_groups.h), with its first
 * sort key, instead of handing it on in batches: the batches stay empty.  Heap pages only; call
 * before the first radik_extract.
 */
static inline void
radik_extract_to_groups(RadikExtractor *extractor, RadikGroupSet *groups)
{
	extractor->groups = groups;
}

/*
 * Extract rows into batch until it lacks room for another page's rows, or max_pages pages have
 * been read.  Rows whose key is greater than threshold are skipped.  Returns false once the
 * scan has no rows left.
 */
extern bool radik_extract(RadikExtractor *extractor, RadikKeyBatch *batch, uint64 threshold,
						  int max_pages);

/* Does batch have room for the rows of one more page (carried too, when they are)? */
static inline bool
radik_batch_has_room(const RadikKeyBatch *batch)
{
	return batch->capacity - batch->count >= MaxHeapTuplesPerPage &&
		batch->nulls_capacity - batch->nnulls >= MaxHeapTuplesPerPage &&
		(batch->rows == NULL || radik_store_has_page_room(batch->rows));
}

extern void radik_extract_end(RadikExtractor *extractor);

/* Add more to counts. */
extern void radik_scan_counts_add(RadikScanCounts *counts, const RadikScanCounts *more);

/* Add what extractor counted to counts. */
extern void radik_extract_count(const RadikExtractor *extractor, RadikScanCounts *counts);

#endif							/* RADIK_EXTRACT_H */
