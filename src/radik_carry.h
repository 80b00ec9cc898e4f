/*
 * radik_carry.h
 *	  Whole rows carried with their keys: copies of the rows a selection may return, taken while
 *	  the scan has their page in hand, so that the rows selected need not be fetched again.
 *
 * When a query returns whole rows, fetching the selected rows by TID after the selection costs,
 * for a million rows spread over a large table, a buffer lookup, a pin, a lock and a few
 * dependent cache misses for almost every page, in the one backend running the query: longer
 * than the selection itself.  But the scan already held each of those rows:
 * only the rows whose key passes the running threshold are handed on (with a threshold from a
 * sample, about 1.5 times k of them), so copying those few rows there costs little, and the
 * parallel workers do most of it.
 *
 * A carried row is a copy of the heap tuple (as the scan saw it, visible to the query's snapshot)
 * in a row store, an array of bytes; the row's engine id then names its place in the store
 * instead of its TID (RADIK_CARRIED_ID_FLAG), so whatever the engine selects leads straight to the
 * copy.  A page is read with carrying only while the store has room for any page's rows; once
 * it has not, the rows keep their TIDs and are fetched as before.  The backend running the query
 * keeps one store, bounded by work_mem; each worker fills a store per message, which the leader
 * copies rows out of into its own.
 */
#ifndef RADIK_CARRY_H
#define RADIK_CARRY_H

#include "postgres.h"

#include "access/htup_details.h"
#include "storage/bufpage.h"
#include "storage/itemptr.h"

/*
 * A row store: used of capacity bytes at data, each row a RadikCarriedRow; it may grow to limit
 * bytes (radik_store_make_room), data keeping its memory context.
 */
typedef struct RadikRowStore
{
	char	   *data;
	Size		used;
	Size		capacity;
	Size		limit;
} RadikRowStore;

/* One carried row: its TID and length, then the tuple (header and data) MAXALIGN'd. */
typedef struct RadikCarriedRow
{
	ItemPointerData tid;
	uint32		len;
} RadikCarriedRow;

#define RADIK_CARRIED_ROW_HEADER MAXALIGN(sizeof(RadikCarriedRow))

/* The most bytes one page's rows can take in a store. */
#define RADIK_CARRY_PAGE_BYTES \
	(BLCKSZ + MaxHeapTuplesPerPage * (RADIK_CARRIED_ROW_HEADER + MAXIMUM_ALIGNOF))

/*
 * Engine ids: a packed TID (radik_pack_tid, 48 bits) or, with the top bit set, the offset of a
 * carried row in the store of the process that holds it.
 */
#define RADIK_CARRIED_ID_FLAG (UINT64CONST(1) << 63)

static inline bool
radik_id_is_carried(uint64 id)
{
	return (id & RADIK_CARRIED_ID_FLAG) != 0;
}

static inline RadikCarriedRow *
radik_carried_row(const RadikRowStore *store, uint64 id)
{
	return (RadikCarriedRow *) (store->data + (id & ~RADIK_CARRIED_ID_FLAG));
}

/* Make tuple describe the carried row (pointing into the store). */
static inline void
radik_carried_tuple(RadikCarriedRow *row, Oid relid, HeapTuple tuple)
{
	tuple->t_len = row->len;
	tuple->t_self = row->tid;
	tuple->t_tableOid = relid;
	tuple->t_data = (HeapTupleHeader) ((char *) row + RADIK_CARRIED_ROW_HEADER);
}

/* Does store have room for one more page's rows? */
static inline bool
radik_store_has_page_room(const RadikRowStore *store)
{
	return store->capacity - store->used >= RADIK_CARRY_PAGE_BYTES;
}

/* Make store hold at least bytes more, growing it within its limit; false if it cannot. */
extern bool radik_store_make_room(RadikRowStore *store, Size bytes);

/*
 * Carry the rows of block's page whose packed TIDs are ids[0 .. n), replacing each id by its
 * row's carried id; the page must be pinned, and store must have room for a page's rows
 * (radik_store_has_page_room, which the extractor checks before every page).
 */
extern void radik_carry_page_rows(RadikRowStore *store, Page page, BlockNumber block,
								  uint64 *ids, int n);

/*
 * The id of row (of another process's store) once carried into store, copied there when it has
 * room; else the row's packed TID.
 */
extern uint64 radik_carry_row_into(RadikRowStore *store, const RadikCarriedRow *row);

/* The carried id of a copy of tuple appended to store when it has room; else its packed TID. */
extern uint64 radik_carry_tuple(RadikRowStore *store, HeapTuple tuple);

#endif							/* RADIK_CARRY_H */
