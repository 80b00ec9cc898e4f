/*
 * radik_groups_merge.c
 *	  The rows a group set keeps, in the order of the group keys, and the groups written for
 *	  another process's set (radik_groups.h).
 *
 * Groups of a key grouped by bits come out in the order of their keys: a radix sort of the bits,
 * each group's rows in the order of the sort key, which spares the caller its sort of the rows
 * kept.
 */
#include "postgres.h"

#include "utils/datum.h"
#include "utils/memutils.h"

#include "radik_group_set.h"

/* A group to order by its bits. */
typedef struct GroupOrder
{
	uint64		bits;
	int64		number;
} GroupOrder;

/*
 * Sort n groups by their bits, using to as much room: a radix sort, a byte a pass, of the bytes
 * where the bits differ, unless they are in order already (groups first seen in the order of
 * their keys).  Returns the array that holds them sorted (from or to).
 */
static GroupOrder *
sort_groups_by_bits(GroupOrder *from, GroupOrder *to, int64 n)
{
	uint64		differ = 0;
	bool		sorted = true;

	for (int64 i = 1; i < n; i++)
	{
		differ |= from[i].bits ^ from[0].bits;
		sorted &= from[i - 1].bits <= from[i].bits;
	}
	if (sorted)
		return from;
	for (int shift = 0; shift < 64; shift += 8)
	{
		int64		start[257];
		GroupOrder *swap;

		if (((differ >> shift) & 0xff) == 0)
			continue;
		memset(start, 0, sizeof(start));
		for (int64 i = 0; i < n; i++)
			start[((from[i].bits >> shift) & 0xff) + 1]++;
		for (int b = 1; b <= 256; b++)
			start[b] += start[b - 1];
		for (int64 i = 0; i < n; i++)
			to[start[(from[i].bits >> shift) & 0xff]++] = from[i];
		swap = from;
		from = to;
		to = swap;
	}
	return from;
}

/* Append a group's rows, cut and sorted, to ids[*n ..]. */
static void
append_sorted_group(RadikGroupSet *set, KeptGroup *group, uint64 *ids, int64 *n)
{
	const Candidate *rows = group_rows(group);

	radik_groups_finish(set, group);
	if (group->count > group->cut_count)
	{
		/* k rows or fewer, all kept: sorted, nothing cut */
		radik_groups_sort(group_rows(group), group->count, set);
		group->cut_count = group->count;
	}
	for (int64 j = 0; j < group->count; j++)
		ids[(*n)++] = rows[j].id & ~KEY_NULL_FLAG;
}

bool
radik_groups_sorted_rows(RadikGroupSet *set, bool descending, bool nulls_first, int64 *nrows,
						 uint64 **row_ids)
{
	GroupOrder *groups;
	GroupOrder *room;
	GroupOrder *order;
	int64		norder = 0;
	uint64	   *ids;
	int64		n = 0;

	if (set->keys->bits_map == NULL)
		return false;
	groups = MemoryContextAllocHuge(CurrentMemoryContext,
									Max(set->ngroups, 1) * sizeof(GroupOrder));
	room = MemoryContextAllocHuge(CurrentMemoryContext, Max(set->ngroups, 1) * sizeof(GroupOrder));
	for (int64 g = 0; g < set->ngroups; g++)
	{
		KeptGroup  *group = group_at(set, g);

		if (group == set->null_group)
			continue;
		groups[norder].bits = group->key.bits;
		groups[norder].number = g;
		norder++;
	}
	order = sort_groups_by_bits(groups, room, norder);

	/* the rows held now are at least the rows kept after the last cuts */
	ids = MemoryContextAllocHuge(CurrentMemoryContext, Max(set->held, 1) * sizeof(uint64));
	if (set->null_group != NULL && nulls_first)
		append_sorted_group(set, set->null_group, ids, &n);
	for (int64 i = 0; i < norder; i++)
		append_sorted_group(set, group_at(set, order[descending ? norder - 1 - i : i].number),
							ids, &n);
	if (set->null_group != NULL && !nulls_first)
		append_sorted_group(set, set->null_group, ids, &n);
	pfree(groups);
	pfree(room);
	*nrows = n;
	*row_ids = ids;
	return true;
}

/*
 * Export: per group, its row count (int64), its key (bits mode: a null flag byte and the bits;
 * else each value by datumSerialize), then its rows (Candidate structs), unaligned.
 */
char *
radik_groups_export(RadikGroupSet *set, Size *size)
{
	const RadikGroupKeys *keys = set->keys;
	Size		bytes = 0;
	char	   *data;
	char	   *p;

	for (int64 g = 0; g < set->ngroups; g++)
	{
		KeptGroup  *group = group_at(set, g);

		if (group->count == 0)
			continue;
		radik_groups_finish(set, group);
		bytes += sizeof(int64) + group->count * sizeof(Candidate);
		if (keys->bits_map != NULL)
			bytes += 1 + sizeof(uint64);
		else
			for (int k = 0; k < keys->nkeys; k++)
				bytes += datumEstimateSpace(group->key.values[k], group_nulls(keys, group->key.values)[k],
											keys->byval[k], keys->typlen[k]);
	}
	data = p = MemoryContextAllocHuge(CurrentMemoryContext, Max(bytes, 1));
	for (int64 g = 0; g < set->ngroups; g++)
	{
		KeptGroup  *group = group_at(set, g);

		if (group->count == 0)
			continue;
		memcpy(p, &group->count, sizeof(int64));
		p += sizeof(int64);
		if (keys->bits_map != NULL)
		{
			*p++ = group->bits_null ? 1 : 0;
			memcpy(p, &group->key.bits, sizeof(uint64));
			p += sizeof(uint64);
		}
		else
			for (int k = 0; k < keys->nkeys; k++)
				datumSerialize(group->key.values[k], group_nulls(keys, group->key.values)[k], keys->byval[k],
							   keys->typlen[k], &p);
		memcpy(p, group_rows(group), group->count * sizeof(Candidate));
		p += group->count * sizeof(Candidate);
	}
	Assert(p == data + bytes);
	*size = bytes;
	return data;
}
