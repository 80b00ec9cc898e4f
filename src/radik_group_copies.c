/*
 * radik_group_copies.c
 *	  Copies of the rows a group set keeps, taken while their pages are read (radik_groups.h).
 *
 * Where a query returns whole rows, the rows the groups keep were fetched by TID once the table
 * had been read: with a million groups, a row or two on nearly every page of the table, each
 * page looked up in shared buffers and pinned, or copied from the page cache, a second time.
 * After a restart that took a third of a grouped read.  So once a page's rows have been offered
 * (radik_groups_offer_tuples), the rows of the page that their groups still hold are copied,
 * while the page is in hand: a row's id becomes its copy's address (a carried id, radik_carry.h),
 * and whatever keeps the row returns the copy, as it returns the rows the workers carry.
 *
 * A row is copied once, when it is kept; a row that a better one displaces later leaves its copy
 * behind.  Groups whose rows lie together (a serial key, a date) make about one copy per group
 * and per page it spans; groups scattered over the table about k (1 + ln(rows / k)) each, most
 * of them while the groups fill.  So the copies are bounded: once they take their limit, the
 * rows kept are fetched later, as before.  Where the groups and their copies together pass the
 * memory the groups may take (radik_groups_within_memory), the copies are given up first: each
 * carried id becomes its row's TID again, and the copies are freed.  A group holding more than
 * COPY_SEARCH_ROWS rows (a large k, or many ties) has its rows fetched, not copied: finding the
 * page's rows among its own at every page would cost more than the fetch.  Sets that count their
 * ties (runs stand for rows) and sets grouped the general way copy nothing.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "radik_group_set.h"

/* The bytes of a chunk of copies (a chunk never moves; a heap tuple fits in one). */
#define COPIES_CHUNK_BYTES (1024 * 1024)

/* The most rows a group may hold for its rows to be copied. */
#define COPY_SEARCH_ROWS 64

void
radik_groups_copy_while_reading(RadikGroupSet *set, Size limit)
{
	if (set->keys->bits_map == NULL || set->count_ties || limit < COPIES_CHUNK_BYTES ||
		set->copies_context != NULL)
		return;
	set->copies_context = AllocSetContextCreate(set->context, "radik copied rows",
												ALLOCSET_DEFAULT_SIZES);
	memset(&set->copies, 0, sizeof(set->copies));
	set->copies_bytes = 0;
	set->copies_limit = limit;
	set->copies_full = false;
}

/* Start a new chunk of copies, if the limit allows it. */
static bool
new_chunk(RadikGroupSet *set)
{
	if (set->copies_bytes + COPIES_CHUNK_BYTES > set->copies_limit)
	{
		set->copies_full = true;
		return false;
	}
	set->copies.data = MemoryContextAlloc(set->copies_context, COPIES_CHUNK_BYTES);
	set->copies.used = 0;
	set->copies.capacity = COPIES_CHUNK_BYTES;
	set->copies.limit = COPIES_CHUNK_BYTES;
	set->copies_bytes += COPIES_CHUNK_BYTES;
	return true;
}

/* Copy tuple; its carried id (its copy's address), or 0 where it is not copied. */
static uint64
copy_row(RadikGroupSet *set, HeapTuple tuple)
{
	uint64		id = radik_carry_tuple(&set->copies, tuple);
	uint64		address;

	if (!radik_id_is_carried(id))
	{
		if (!new_chunk(set))
			return 0;
		id = radik_carry_tuple(&set->copies, tuple);
		Assert(radik_id_is_carried(id));
	}
	address = (uint64) (uintptr_t) radik_carried_row(&set->copies, id);
	if ((address & (RADIK_CARRIED_ID_FLAG | KEY_NULL_FLAG | RUN_FLAG)) != 0)
		return 0;				/* would not fit in an id beside its flags */
	return RADIK_CARRIED_ID_FLAG | address;
}

void
radik_groups_copy_page_rows(RadikGroupSet *set, HeapTupleData *tuples, const uint64 *row_ids,
							KeptGroup **groups, const int *kept, int n)
{
	for (int i = 0; i < n && !set->copies_full; i++)
	{
		int			r = kept[i];
		KeptGroup  *group = groups[r];
		Candidate  *rows = group_rows(group);

		if (group->count > COPY_SEARCH_ROWS)
			continue;
		/* the row, unless a later row of the page displaced it */
		for (int64 j = group->count - 1; j >= 0; j--)
		{
			if ((rows[j].id & ~KEY_NULL_FLAG) == row_ids[r])
			{
				uint64		id = copy_row(set, &tuples[r]);

				if (id != 0)
					rows[j].id = (rows[j].id & KEY_NULL_FLAG) | id;
				break;
			}
		}
	}
}

/* Give up the copies: every carried id of the set's own groups becomes its row's TID again. */
static void
drop_copies(RadikGroupSet *set)
{
	for (int64 g = 0; g < set->ngroups; g++)
	{
		KeptGroup  *group = group_at(set, g);
		Candidate  *rows = group_rows(group);

		for (int64 j = 0; j < group->count; j++)
		{
			RadikCarriedRow *row = radik_groups_carried_row(rows[j].id & ~KEY_NULL_FLAG);

			if (row != NULL)
				rows[j].id = (rows[j].id & KEY_NULL_FLAG) | radik_pack_tid(&row->tid);
		}
	}
	MemoryContextDelete(set->copies_context);
	set->copies_context = NULL;
}

bool
radik_groups_within_memory(RadikGroupSet *set, Size limit)
{
	if (radik_groups_memory(set) <= limit)
		return true;
	if (set->copies_context == NULL)
		return false;
	drop_copies(set);
	return radik_groups_memory(set) <= limit;
}
