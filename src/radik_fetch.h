/*
 * radik_fetch.h
 *	  Fetching selected rows by TID, many at once, in TID order (radik_fetch.c).
 *
 * The custom scan returns its rows in key order, which jumps all over the table; it fetches them
 * in batches, each batch visited in TID order so that every page is read and locked once, and
 * copies them again, a few at a time, into the order it returns them (radik_gather_rows).
 */
#ifndef RADIK_FETCH_H
#define RADIK_FETCH_H

#include "postgres.h"

#include "access/htup.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

/* One row to fetch: its TID, packed (radik_pack_tid), and its place in the caller's order. */
typedef struct RadikFetchOrder
{
	uint64		packed_tid;
	int64		position;
} RadikFetchOrder;

/* Sort order[0 .. n) by TID. */
extern void radik_sort_fetch_order(RadikFetchOrder *order, int64 n);

/*
 * Fetch the rows order[0 .. n) (sorted by TID) of rel as heap_fetch would with snapshot;
 * out[position] receives a copy of each, allocated in the current memory context.  A row that is
 * gone or not visible is an error: the caller saw every row under the same snapshot.  With
 * may_copy (the caller reads each of these pages once, or about twice at most), a page of a
 * table read through a ring that no shared buffer holds is copied from the page cache instead
 * of read into a buffer, where the rows lie close together.  Returns the pages so copied.
 */
extern uint64 radik_fetch_rows(Relation rel, Snapshot snapshot, const RadikFetchOrder *order,
							   int64 n, bool may_copy, HeapTuple *out);

/*
 * Copy the first of rows[0 .. n) (none NULL), as many as fit in max_bytes and at least one,
 * into *buffer in their order, and point out[] at the copies; returns how many.  *buffer, of
 * *buffer_size bytes (NULL and 0 at first), is allocated or grown in context as needed.
 */
extern int64 radik_gather_rows(HeapTuple const *rows, int64 n, Size max_bytes, HeapTuple *out,
							   char **buffer, Size *buffer_size, MemoryContext context);

#endif							/* RADIK_FETCH_H */
