/*
 * radik_heap.h
 *	  The vocabulary radik's PostgreSQL-side files share about the heap tables they read: a sort
 *	  key, the row ids the engine carries (heap TIDs packed into 48 bits), reading a column
 *	  straight from a heap tuple, and the prefetch hint of the page readers.
 *
 * It includes no header of radik's, so that every other file's includes run downward from here.
 */
#ifndef RADIK_HEAP_H
#define RADIK_HEAP_H

#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupdesc.h"
#include "access/tupmacs.h"
#include "executor/executor.h"
#include "storage/itemptr.h"
#include "utils/relcache.h"

/* How one sort key is computed and ordered. */
typedef struct RadikSortKey
{
	Oid			type;			/* a base type radik_key_orderable() accepts */
	Oid			collation;		/* the sort's collation (InvalidOid: none) */
	Oid			sort_operator;	/* its ordering operator, "<" or ">" */
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

/* How to read a plain column straight from a heap tuple. */
typedef struct RadikColumnReader
{
	AttrNumber	attnum;
	TupleDesc	desc;
	int32		fixed_offset;	/* >= 0: its offset in a tuple without NULLs */
	bool		byval;
	int16		len;
	/*
	 * Else, in a tuple without NULLs: the first variable-width column up to this one (0-based),
	 * which starts at walk_offset (before its alignment), and from which the columns are walked.
	 */
	int16		walk_first;
	int32		walk_offset;
	/*
	 * A fixed-width column after variable-width ones that is the table's last: in a row without
	 * NULLs that has every column, it ends where the row ends, so it is read from there.
	 */
	bool		at_row_end;
} RadikColumnReader;

/* Prepare to read column attnum of rel straight from its tuples. */
extern void radik_column_reader_init(RadikColumnReader *column, Relation rel, AttrNumber attnum);

/*
 * Whether a row's attributes up to attnum sit at their cached offsets (attcacheoff, counted from
 * the row's data): the row has no NULLs and was written after attribute attnum was added.
 */
static pg_attribute_always_inline bool
radik_row_at_cached_offsets(HeapTupleHeader header, AttrNumber attnum)
{
	return (header->t_infomask & HEAP_HASNULL) == 0 && HeapTupleHeaderGetNatts(header) >= attnum;
}

/*
 * The column's value in a row without NULLs, after variable-width columns: their lengths walked
 * from the first, as heap_deform_tuple walks them (a short varlena header is not aligned), but
 * only from there and only up to the column, without nocachegetattr's checks of every column
 * from the first on every call.
 */
static pg_attribute_always_inline Datum
radik_walk_to_column(const RadikColumnReader *column, HeapTupleHeader header)
{
	char	   *data = (char *) header + header->t_hoff;
	uintptr_t	offset = column->walk_offset;
	Form_pg_attribute target = TupleDescAttr(column->desc, column->attnum - 1);

	for (int i = column->walk_first; i < column->attnum - 1; i++)
	{
		Form_pg_attribute att = TupleDescAttr(column->desc, i);

		offset = att_align_pointer(offset, att->attalign, att->attlen, data + offset);
		offset = att_addlength_pointer(offset, att->attlen, data + offset);
	}
	offset = att_align_pointer(offset, target->attalign, target->attlen, data + offset);
	return fetch_att(data + offset, column->byval, column->len);
}

/* The column's value in tuple. */
static pg_attribute_always_inline Datum
radik_read_column(const RadikColumnReader *column, HeapTuple tuple, bool *isnull)
{
	HeapTupleHeader header = tuple->t_data;

	if (radik_row_at_cached_offsets(header, column->attnum))
	{
		*isnull = false;
		if (column->fixed_offset >= 0)
			return fetch_att((char *) header + header->t_hoff + column->fixed_offset,
							 column->byval, column->len);
		/*
		 * the row's length is its header's and its columns', the last one's end included (it
		 * has every column: at least attnum, and no row has more than its table)
		 */
		if (column->at_row_end)
			return fetch_att((char *) header + tuple->t_len - column->len, column->byval,
							 column->len);
		return radik_walk_to_column(column, header);
	}
	/* NULLs, or a column added after the row was written */
	return heap_getattr(tuple, column->attnum, column->desc, isnull);
}

/*
 * Ask the CPU to bring the line at address into its cache, without waiting: a hint, which never
 * faults.  RADIK_PREFETCH_STRIDE is the CPU's cache line (PG_CACHE_LINE_SIZE is 128, a padding
 * size, not the line).  The lines are asked into the outer caches (locality 1: prefetcht2 on
 * x86), not into L1: on the GPU host's Xeon that let a scan keep more lines in flight, 6-7%
 * faster than locality 3 for a 50M-row scan alone or with 2 workers (prefetchnta, locality 0,
 * was 70% slower; no prefetch 45% slower).  Build with COPT=-DRADIK_PREFETCH_LOCALITY=n (or
 * -DRADIK_NO_PREFETCH) to compare.
 */
#define RADIK_PREFETCH_STRIDE 64
#ifndef RADIK_PREFETCH_LOCALITY
#define RADIK_PREFETCH_LOCALITY 1
#endif
#if (defined(__GNUC__) || defined(__clang__)) && !defined(RADIK_NO_PREFETCH)
#define radik_prefetch_for_read(address) __builtin_prefetch(address, 0, RADIK_PREFETCH_LOCALITY)
#else
#define radik_prefetch_for_read(address) ((void) 0)
#endif

#endif							/* RADIK_HEAP_H */
