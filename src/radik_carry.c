/*
 * radik_carry.c
 *	  Carry whole rows with their keys (radik_carry.h): copy a page's handed-on rows into a row
 *	  store while the page is pinned, and move rows between stores.
 *
 * The copies are made after the page's rows have been listed and filtered, with the page pinned
 * but not locked, as a sequential scan in page mode reads its tuples: a tuple visible to the
 * snapshot does not change under a pin, except for hint bits, which the copy may or may not
 * have.  A store grows by doubling within its limit; rows are found by offset, never by
 * pointer, so growing moves nothing that matters.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "radik_carry.h"
#include "radik_heap.h"

/* The bytes a tuple of len bytes takes in a store. */
static inline Size
carried_row_bytes(uint32 len)
{
	return RADIK_CARRIED_ROW_HEADER + MAXALIGN(len);
}

/* Append a copy of a tuple to store (which has room); its carried id. */
static inline uint64
append_row(RadikRowStore *store, const ItemPointerData *tid, const void *tuple_data, uint32 len)
{
	Size		offset = store->used;
	RadikCarriedRow *row = (RadikCarriedRow *) (store->data + offset);

	row->tid = *tid;
	row->len = len;
	memcpy((char *) row + RADIK_CARRIED_ROW_HEADER, tuple_data, len);
	store->used += carried_row_bytes(len);
	return RADIK_CARRIED_ID_FLAG | (uint64) offset;
}

bool
radik_store_make_room(RadikRowStore *store, Size bytes)
{
	Size		capacity;

	if (store->capacity - store->used >= bytes)
		return true;
	if (store->limit - store->used < bytes)
		return false;
	capacity = Min(Max(store->capacity * 2, store->used + bytes), store->limit);
	store->data = repalloc_huge(store->data, capacity);
	store->capacity = capacity;
	return true;
}

void
radik_carry_page_rows(RadikRowStore *store, Page page, BlockNumber block, uint64 *ids, int n)
{
	Assert(radik_store_has_page_room(store));
	for (int i = 0; i < n; i++)
	{
		OffsetNumber offnum = radik_packed_tid_offset(ids[i]);
		ItemId		lp = PageGetItemId(page, offnum);
		ItemPointerData tid;

		ItemPointerSet(&tid, block, offnum);
		ids[i] = append_row(store, &tid, PageGetItem(page, lp), ItemIdGetLength(lp));
	}
}

uint64
radik_carry_row_into(RadikRowStore *store, const RadikCarriedRow *row)
{
	if (!radik_store_make_room(store, carried_row_bytes(row->len)))
		return radik_pack_tid(&row->tid);
	return append_row(store, &row->tid, (const char *) row + RADIK_CARRIED_ROW_HEADER, row->len);
}

uint64
radik_carry_tuple(RadikRowStore *store, HeapTuple tuple)
{
	if (!radik_store_make_room(store, carried_row_bytes(tuple->t_len)))
		return radik_pack_tid(&tuple->t_self);
	return append_row(store, &tuple->t_self, tuple->t_data, tuple->t_len);
}
