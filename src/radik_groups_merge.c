/*
 * radik_groups_merge.c
 *	  The rows a group set keeps in the order of the group keys, the groups written for another
 *	  process's set, and the merge of those groups into the set that reads them (radik_groups.h).
 *
 * Groups of a key grouped by bits come out in the order of their keys: a radix sort of the bits,
 * each group's rows in the order of the sort key, which spares the caller its sort of the rows
 * kept.
 *
 * Parallel workers each keep the groups of the blocks they read, and the backend running the
 * query adds them to its own.  With many groups (a million groups of a few rows), finding each
 * worker's group in the backend's hash table costs a wait for memory per group, in one process,
 * after the workers have finished; so where the key is grouped by bits, a worker writes its
 * groups in the order of their keys, each group's rows cut and sorted (the sort runs in the
 * workers, side by side), and the backend keeps the exports as they come and merges them with
 * its own groups, sorted the same way, at the end: one pass over sorted lists, read in order.  A
 * key found in one list alone (most keys, when a key's rows lie together in the table) has its
 * rows copied as they are; the rows of a key found in several lists are sorted together and cut
 * again, which keeps what adding them to one group would keep.  The result comes out in the
 * order of the keys, ascending or descending, as radik_groups_sorted_rows returns it.  Keys
 * grouped the general way are exported in the order of the records and added to the backend's
 * groups one by one (radik_groups_import_values).
 *
 * A worker grouping by bits also sends copies of the rows it keeps, where the query returns
 * whole rows, appended to its export as a row store (radik_carry.h): the copies it made while
 * reading its pages (radik_group_copies.c), and the rows it did not copy then fetched by TID, in
 * TID order, from the blocks it has just read, once its groups are cut.  With a million groups
 * the rows kept are a million rows, about one on every page of the table; fetched again by the
 * backend alone after the workers have finished, they took longer than the whole grouped read.
 * The backend turns each carried row's id into the address of its copy, so the merge passes
 * them on like TIDs and the node returns the copies as they are.  The backend fetches the rows
 * its own groups keep and did not copy the same way (radik_groups_carry_own_rows), once it has
 * read its blocks, mostly while the workers still read theirs.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/memutils.h"

#include "radik_fetch.h"
#include "radik_group_set.h"

/*
 * The head of a group in an export of a set grouped by bits: its key's bits and its row count,
 * with NULL_GROUP_FLAG for the group of NULL keys, which comes first; its rows follow.  The
 * groups come in the order of their bits, each group's rows cut and sorted, every field 8-byte
 * aligned.
 */
typedef struct ExportedGroup
{
	uint64		bits;
	uint64		count;
} ExportedGroup;

#define NULL_GROUP_FLAG (UINT64CONST(1) << 63)

/*
 * An export by bits begins with the bytes of its groups (ExportedGroup, rows); the rows it
 * carries follow them, a row store whose rows the groups' carried ids name by offset.
 */
typedef struct ExportHeader
{
	uint64		groups_bytes;
} ExportHeader;

/* Rows fetched at a time for an export's row store. */
#define EXPORT_FETCH_ROWS 4096

/* A group to order by its bits. */
typedef struct GroupOrder
{
	uint64		bits;
	int64		number;
} GroupOrder;

/* One sorted list of groups in a merge: the set's own groups, or an export. */
typedef struct MergeSource
{
	const GroupOrder *order;	/* the set's own groups in order, or NULL */
	int64		norder;
	int64		next;
	const char *p;				/* an export: its next group, and its end */
	const char *end;
	/* the group at the head of the list */
	bool		valid;
	uint64		bits;
	int64		count;
	const Candidate *rows;
} MergeSource;

/*
 * Where the merged rows go: ids from the front, or groups from the back (descending keys); with
 * keys not NULL, each row's keys to the same place in keys' arrays, and each group's bits to the
 * next entry of keys->group_bits, from the front or the back the same way.
 */
typedef struct MergeOutput
{
	uint64	   *ids;
	RadikGroupRowKeys *keys;
	int64		front;
	int64		back;
	int64		groups_front;
	int64		groups_back;
	bool		backward;
} MergeOutput;

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

/*
 * The set's groups but the group of NULL keys, in the order of their bits: *n of them, in
 * *space (palloc'd, for the caller to free).
 */
static GroupOrder *
groups_in_order(RadikGroupSet *set, int64 *n, GroupOrder **space)
{
	GroupOrder *groups = MemoryContextAllocHuge(CurrentMemoryContext,
												Max(set->ngroups, 1) * 2 * sizeof(GroupOrder));
	int64		norder = 0;

	for (int64 g = 0; g < set->ngroups; g++)
	{
		KeptGroup  *group = group_at(set, g);

		if (group == set->null_group)
			continue;
		groups[norder].bits = group->key.bits;
		groups[norder].number = g;
		norder++;
	}
	*n = norder;
	*space = groups;
	return sort_groups_by_bits(groups, groups + Max(set->ngroups, 1), norder);
}

/* Cut a group's rows and sort them (k rows or fewer are all kept, unsorted until here). */
static void
settle_group(RadikGroupSet *set, KeptGroup *group)
{
	radik_groups_finish(set, group);
	if (group->count > group->cut_count)
	{
		radik_groups_sort(group_rows(group), group->count, set);
		group->cut_count = group->count;
	}
}

/* Load the next group of a source, or mark it done. */
static void
next_group(RadikGroupSet *set, MergeSource *source)
{
	ExportedGroup head;

	if (source->order != NULL)
	{
		KeptGroup  *group;

		source->valid = source->next < source->norder;
		if (!source->valid)
			return;
		group = group_at(set, source->order[source->next++].number);
		settle_group(set, group);
		source->bits = group->key.bits;
		source->count = group->count;
		source->rows = group_rows(group);
		return;
	}
	if (source->p >= source->end)
	{
		source->valid = false;
		return;
	}
	memcpy(&head, source->p, sizeof(head));
	if ((head.count & NULL_GROUP_FLAG) != 0 ||
		(source->valid && head.bits <= source->bits) ||
		head.count > (Size) (source->end - source->p) / sizeof(Candidate))
		elog(ERROR, "radik: imported groups out of order or truncated");
	source->valid = true;
	source->bits = head.bits;
	source->count = (int64) head.count;
	source->rows = (const Candidate *) (source->p + sizeof(head));
	source->p += sizeof(head) + head.count * sizeof(Candidate);
	if (source->p > source->end)
		elog(ERROR, "radik: imported groups truncated");
}

/*
 * Put n rows of one group, in order, where the output's next group goes; the group's key is bits,
 * or NULL (group_null).
 */
static void
emit_rows(MergeOutput *out, const Candidate *rows, int64 n, uint64 bits, bool group_null)
{
	int64		at;
	uint8		group_flag = group_null ? RADIK_ROW_GROUP_NULL : 0;

	if (n == 0)
		return;
	if (out->backward)
	{
		out->back -= n;
		at = out->back;
	}
	else
	{
		at = out->front;
		out->front += n;
	}
	for (int64 j = 0; j < n; j++)
		out->ids[at + j] = rows[j].id & ~KEY_NULL_FLAG;
	if (out->keys == NULL)
		return;
	if (out->keys->repeats != NULL)
	{
		for (int64 j = 0; j < n; j++)
		{
			int64		count = candidate_rows(&rows[j]);

			out->keys->repeats[at + j] = count;
			out->keys->rows += count;
			if (candidate_is_run(&rows[j]))
				out->ids[at + j] = 0;	/* names no row: its keys tell its values */
		}
	}
	else
		out->keys->rows += n;
	for (int64 j = 0; j < n; j++)
	{
		out->keys->keys[at + j] = rows[j].key;
		out->keys->flags[at + j] = group_flag |
			((rows[j].id & KEY_NULL_FLAG) != 0 ? RADIK_ROW_KEY_NULL : 0);
	}
	out->keys->flags[at] |= RADIK_ROW_GROUP_START;
	out->keys->group_bits[out->backward ? --out->groups_back : out->groups_front++] = bits;
}

/* Room for n rows in *scratch, which holds *capacity. */
static void
scratch_room(Candidate **scratch, int64 *capacity, int64 n)
{
	if (n <= *capacity)
		return;
	*capacity = Max(n, *capacity * 2);
	if (*scratch == NULL)
		*scratch = MemoryContextAllocHuge(CurrentMemoryContext, *capacity * sizeof(Candidate));
	else
		*scratch = repalloc_huge(*scratch, *capacity * sizeof(Candidate));
}

/*
 * Put the rows of one group kept in several lists (nparts of them, each sorted and cut), sorted
 * and cut again, where the output's next group goes.
 */
static void
emit_merged_rows(RadikGroupSet *set, MergeOutput *out, const Candidate **parts,
				 const int64 *counts, int nparts, uint64 bits, bool group_null,
				 Candidate **scratch, int64 *capacity)
{
	int64		n = 0;
	bool		full;

	if (nparts == 0)
		return;
	if (nparts == 1)
	{
		emit_rows(out, parts[0], counts[0], bits, group_null);
		return;
	}
	for (int i = 0; i < nparts; i++)
		n += counts[i];
	scratch_room(scratch, capacity, n);
	n = 0;
	for (int i = 0; i < nparts; i++)
	{
		memcpy(*scratch + n, parts[i], counts[i] * sizeof(Candidate));
		n += counts[i];
	}
	radik_groups_sort(*scratch, n, set);
	emit_rows(out, *scratch, radik_groups_cut(set, *scratch, n, &full), bits, group_null);
}

/*
 * The group of NULL keys of the set and of every export (each export's first group, when it has
 * one), put where the output's next group goes; returns whether there was one.
 */
static bool
emit_null_groups(RadikGroupSet *set, MergeOutput *out, int nimported,
				 const Candidate **parts, int64 *counts, Candidate **scratch, int64 *capacity)
{
	int			nparts = 0;

	if (set->null_group != NULL && set->null_group->count > 0)
	{
		settle_group(set, set->null_group);
		parts[nparts] = group_rows(set->null_group);
		counts[nparts++] = set->null_group->count;
	}
	for (int i = 0; i < nimported; i++)
	{
		ExportedGroup head;

		if (set->imported_sizes[i] < sizeof(head))
			continue;
		memcpy(&head, set->imported[i], sizeof(head));
		if ((head.count & NULL_GROUP_FLAG) == 0)
			continue;
		head.count &= ~NULL_GROUP_FLAG;
		if (head.count > (set->imported_sizes[i] - sizeof(head)) / sizeof(Candidate))
			elog(ERROR, "radik: imported groups truncated");
		parts[nparts] = (const Candidate *) (set->imported[i] + sizeof(head));
		counts[nparts++] = (int64) head.count;
	}
	emit_merged_rows(set, out, parts, counts, nparts, 0, true, scratch, capacity);
	return nparts > 0;
}

bool
radik_groups_sorted_rows(RadikGroupSet *set, bool descending, bool nulls_first, int64 *nrows,
						 uint64 **row_ids, RadikGroupRowKeys *row_keys)
{
	int			nimported = set->nimported;
	int			nsources = 1 + nimported;
	MergeSource *sources;
	const Candidate **parts;
	int64	   *counts;
	GroupOrder *space;
	Candidate  *scratch = NULL;
	int64		scratch_capacity = 0;
	int64		capacity;
	int64		ngroups = 0;
	MergeOutput out;

	if (set->keys->bits_map == NULL)
		return false;

	/* the rows held now, and the rows in the exports, are at least the rows kept */
	if (set->count_ties && row_keys == NULL)
		elog(ERROR, "radik: counted rows asked for without their keys");
	capacity = set->held;
	for (int i = 0; i < nimported; i++)
		capacity += set->imported_sizes[i] / sizeof(Candidate);
	out.ids = MemoryContextAllocHuge(CurrentMemoryContext, Max(capacity, 1) * sizeof(uint64));
	out.keys = row_keys;
	if (row_keys != NULL)
	{
		row_keys->keys = MemoryContextAllocHuge(CurrentMemoryContext,
												Max(capacity, 1) * sizeof(uint64));
		/* an entry a group: the pages past the groups' entries are never touched */
		row_keys->group_bits = MemoryContextAllocHuge(CurrentMemoryContext,
													  Max(capacity, 1) * sizeof(uint64));
		row_keys->flags = MemoryContextAllocHuge(CurrentMemoryContext, Max(capacity, 1));
		row_keys->repeats = !set->count_ties ? NULL :
			MemoryContextAllocHuge(CurrentMemoryContext, Max(capacity, 1) * sizeof(int64));
		row_keys->rows = 0;
	}
	out.front = 0;
	out.back = capacity;
	out.groups_front = 0;
	out.groups_back = capacity;	/* a group holds a row at least */
	out.backward = descending;

	sources = palloc0(nsources * sizeof(MergeSource));
	parts = palloc(nsources * sizeof(Candidate *));
	counts = palloc(nsources * sizeof(int64));

	/* groups written from the back come out in reverse: NULLs first go in last */
	if (nulls_first != descending)
		ngroups += emit_null_groups(set, &out, nimported, parts, counts, &scratch,
									&scratch_capacity);

	sources[0].order = groups_in_order(set, &sources[0].norder, &space);
	next_group(set, &sources[0]);
	for (int i = 0; i < nimported; i++)
	{
		MergeSource *source = &sources[1 + i];
		ExportedGroup head;

		source->p = set->imported[i];
		source->end = set->imported[i] + set->imported_sizes[i];
		if (set->imported_sizes[i] >= sizeof(head))
		{
			memcpy(&head, source->p, sizeof(head));
			if ((head.count & NULL_GROUP_FLAG) != 0)
				source->p += sizeof(head) +
					(head.count & ~NULL_GROUP_FLAG) * sizeof(Candidate);
		}
		next_group(set, source);
	}

	/* each key in turn, smallest first, with every list's rows of it */
	for (;;)
	{
		uint64		bits = PG_UINT64_MAX;
		bool		any = false;
		int			nparts = 0;

		for (int i = 0; i < nsources; i++)
		{
			if (sources[i].valid && (!any || sources[i].bits < bits))
			{
				bits = sources[i].bits;
				any = true;
			}
		}
		if (!any)
			break;
		for (int i = 0; i < nsources; i++)
		{
			if (!sources[i].valid || sources[i].bits != bits)
				continue;
			parts[nparts] = sources[i].rows;
			counts[nparts++] = sources[i].count;
			next_group(set, &sources[i]);
		}
		emit_merged_rows(set, &out, parts, counts, nparts, bits, false, &scratch,
						 &scratch_capacity);
		ngroups++;
	}

	if (nulls_first == descending)
		ngroups += emit_null_groups(set, &out, nimported, parts, counts, &scratch,
									&scratch_capacity);

	if (out.backward)
	{
		out.front = capacity - out.back;
		memmove(out.ids, out.ids + out.back, out.front * sizeof(uint64));
		if (row_keys != NULL)
		{
			memmove(row_keys->keys, row_keys->keys + out.back, out.front * sizeof(uint64));
			memmove(row_keys->flags, row_keys->flags + out.back, out.front);
			if (row_keys->repeats != NULL)
				memmove(row_keys->repeats, row_keys->repeats + out.back,
						out.front * sizeof(int64));
			memmove(row_keys->group_bits, row_keys->group_bits + out.groups_back,
					(capacity - out.groups_back) * sizeof(uint64));
		}
	}
	if (row_keys != NULL)
	{
		row_keys->cursor_row = 0;	/* the first row begins the first group */
		row_keys->cursor_group = 0;
	}
	pfree(space);
	pfree(sources);
	pfree(parts);
	pfree(counts);
	if (scratch != NULL)
		pfree(scratch);
	set->merged_groups = ngroups;
	*nrows = out.front;
	*row_ids = out.ids;
	return true;
}

/*
 * The rows of the group at *p among an export's groups (which end at end), *count of them;
 * *p moves past them.
 */
static Candidate *
exported_group_rows(char **p, const char *end, int64 *count)
{
	ExportedGroup head;
	Candidate  *rows;

	memcpy(&head, *p, sizeof(head));
	*count = (int64) (head.count & ~NULL_GROUP_FLAG);
	*p += sizeof(head);
	if (*count > (end - *p) / (int64) sizeof(Candidate))
		elog(ERROR, "radik: imported groups truncated");
	rows = (Candidate *) *p;
	*p += *count * sizeof(Candidate);
	return rows;
}

/*
 * Copy the rows of candidates[0 .. n) into store, fetched from rows->rel in TID order, and give
 * each row copied its carried id (an offset in the store), until the store is full or rows->stop
 * is set.
 */
static void
carry_candidate_rows(Candidate **candidates, int64 n, const RadikGroupRowsSource *rows,
					 RadikRowStore *store)
{
	RadikFetchOrder *order;
	HeapTuple  *tuples;
	MemoryContext fetch_context;
	MemoryContext old_context;
	bool		full = false;

	order = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(RadikFetchOrder));
	tuples = MemoryContextAllocHuge(CurrentMemoryContext, Max(n, 1) * sizeof(HeapTuple));
	for (int64 i = 0; i < n; i++)
	{
		order[i].packed_tid = candidates[i]->id & ~KEY_NULL_FLAG;
		order[i].position = i;
	}
	radik_sort_fetch_order(order, n);

	fetch_context = AllocSetContextCreate(CurrentMemoryContext, "radik exported rows",
										  ALLOCSET_DEFAULT_SIZES);
	for (int64 start = 0; start < n && !full; start += EXPORT_FETCH_ROWS)
	{
		int64		m = Min(EXPORT_FETCH_ROWS, n - start);

		if (rows->stop != NULL && pg_atomic_read_u32(rows->stop) != 0)
			break;

		old_context = MemoryContextSwitchTo(fetch_context);
		(void) radik_fetch_rows(rows->rel, rows->snapshot, order + start, m, true, tuples);
		MemoryContextSwitchTo(old_context);
		for (int64 i = start; i < start + m && !full; i++)
		{
			Candidate  *c = candidates[order[i].position];
			uint64		id = radik_carry_tuple(store, tuples[order[i].position]);

			full = !radik_id_is_carried(id);
			if (!full)
				c->id = (c->id & KEY_NULL_FLAG) | id;
		}
		MemoryContextReset(fetch_context);
	}
	MemoryContextDelete(fetch_context);
	pfree(tuples);
	pfree(order);
}

/*
 * Copy the rows of an export's groups (groups_bytes of them) into store: the rows the set copied
 * while reading (radik_group_copies.c) from their copies, the others fetched where rows is not
 * NULL (carry_candidate_rows); a row that finds no room keeps, or takes again, its TID.
 */
static void
carry_exported_rows(char *groups, Size groups_bytes, const RadikGroupRowsSource *rows,
					RadikRowStore *store)
{
	int64		n = 0;
	Candidate **candidates;

	candidates = MemoryContextAllocHuge(CurrentMemoryContext,
										Max(groups_bytes / sizeof(Candidate), 1) *
										sizeof(Candidate *));
	for (char *p = groups; p < groups + groups_bytes;)
	{
		int64		count;
		Candidate  *kept = exported_group_rows(&p, groups + groups_bytes, &count);

		for (int64 j = 0; j < count; j++)
		{
			RadikCarriedRow *copy = radik_groups_carried_row(kept[j].id & ~KEY_NULL_FLAG);

			if (candidate_is_run(&kept[j]))
				continue;		/* counted rows are never carried */
			if (copy != NULL)
				kept[j].id = (kept[j].id & KEY_NULL_FLAG) | radik_carry_row_into(store, copy);
			else
				candidates[n++] = &kept[j];
		}
	}
	if (rows != NULL)
		carry_candidate_rows(candidates, n, rows, store);
	pfree(candidates);
}

/*
 * The export of a set grouped by bits: an ExportHeader, the groups (see ExportedGroup), and with
 * rows, the row store of the rows carried.
 */
static char *
export_by_bits(RadikGroupSet *set, const RadikGroupRowsSource *rows, Size *size)
{
	GroupOrder *space;
	GroupOrder *order;
	int64		norder;
	Size		bytes = 0;
	char	   *data;
	char	   *p;
	ExportHeader header;
	ExportedGroup head;
	RadikRowStore store;

	for (int64 g = 0; g < set->ngroups; g++)
	{
		KeptGroup  *group = group_at(set, g);

		settle_group(set, group);
		if (group->count > 0)
			bytes += sizeof(ExportedGroup) + group->count * sizeof(Candidate);
	}
	order = groups_in_order(set, &norder, &space);
	data = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(header) + bytes);
	p = data + sizeof(header);
	for (int64 i = -1; i < norder; i++)
	{
		KeptGroup  *group = i < 0 ? set->null_group : group_at(set, order[i].number);

		if (group == NULL || group->count == 0)
			continue;
		head.bits = group->bits_null ? 0 : group->key.bits;
		head.count = (uint64) group->count | (group->bits_null ? NULL_GROUP_FLAG : 0);
		memcpy(p, &head, sizeof(head));
		p += sizeof(head);
		memcpy(p, group_rows(group), group->count * sizeof(Candidate));
		p += group->count * sizeof(Candidate);
	}
	Assert(p == data + sizeof(header) + bytes);
	pfree(space);
	header.groups_bytes = bytes;
	memcpy(data, &header, sizeof(header));
	*size = sizeof(header) + bytes;
	if (bytes == 0 || (rows == NULL && set->copies_context == NULL))
		return data;

	/* without room, the rows the set copied go by their TIDs (and nothing is fetched) */
	store.used = 0;
	store.limit = rows != NULL && rows->limit > *size ? rows->limit - *size : 0;
	store.capacity = Min(BLCKSZ, store.limit);
	store.data = store.capacity > 0 ? palloc(store.capacity) : NULL;
	carry_exported_rows(data + sizeof(header), bytes, store.limit > 0 ? rows : NULL, &store);
	if (store.used > 0)
	{
		data = repalloc_huge(data, *size + store.used);
		memcpy(data + *size, store.data, store.used);
		*size += store.used;
	}
	if (store.data != NULL)
		pfree(store.data);
	return data;
}

/*
 * Export: for a key grouped by bits, see ExportedGroup; else per group, its row count (int64),
 * each value of its key by datumSerialize, then its rows (Candidate structs), unaligned.
 */
char *
radik_groups_export(RadikGroupSet *set, const RadikGroupRowsSource *rows, Size *size)
{
	const RadikGroupKeys *keys = set->keys;
	Size		bytes = 0;
	char	   *data;
	char	   *p;

	if (set->nimported > 0)
		elog(ERROR, "radik: a set with imported groups cannot be exported");
	if (keys->bits_map != NULL)
		return export_by_bits(set, rows, size);
	for (int64 g = 0; g < set->ngroups; g++)
	{
		KeptGroup  *group = group_at(set, g);

		if (group->count == 0)
			continue;
		radik_groups_finish(set, group);
		bytes += sizeof(int64) + group->count * sizeof(Candidate);
		for (int k = 0; k < keys->nkeys; k++)
			bytes += datumEstimateSpace(group->key.values[k],
										group_nulls(keys, group->key.values)[k],
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
		for (int k = 0; k < keys->nkeys; k++)
			datumSerialize(group->key.values[k], group_nulls(keys, group->key.values)[k],
						   keys->byval[k], keys->typlen[k], &p);
		memcpy(p, group_rows(group), group->count * sizeof(Candidate));
		p += group->count * sizeof(Candidate);
	}
	Assert(p == data + bytes);
	*size = bytes;
	return data;
}

/*
 * Point a candidate's carried id (an offset in store, store_bytes long, which no longer moves) at
 * its row, by address; a row whose address would not fit in an id is returned by its TID instead.
 */
static void
point_at_carried_row(Candidate *c, char *store, Size store_bytes)
{
	uint64		offset = c->id & ~(RADIK_CARRIED_ID_FLAG | KEY_NULL_FLAG);
	RadikCarriedRow *row;
	uint64		address;

	if (!radik_id_is_carried(c->id))
		return;
	if (offset + RADIK_CARRIED_ROW_HEADER > store_bytes)
		elog(ERROR, "radik: imported rows truncated");
	row = (RadikCarriedRow *) (store + offset);
	address = (uint64) (uintptr_t) row;
	if ((address & (RADIK_CARRIED_ID_FLAG | KEY_NULL_FLAG)) != 0)
		c->id = (c->id & KEY_NULL_FLAG) | radik_pack_tid(&row->tid);
	else
		c->id = (c->id & KEY_NULL_FLAG) | RADIK_CARRIED_ID_FLAG | address;
}

/*
 * Point the carried ids of an export's groups (groups_bytes of them, in memory the set keeps) at
 * the rows that follow them (store_bytes): point_at_carried_row.
 */
static void
point_at_carried_rows(char *groups, Size groups_bytes, Size store_bytes)
{
	char	   *store = groups + groups_bytes;
	char	   *p = groups;

	while (p < groups + groups_bytes)
	{
		int64		count;
		Candidate  *kept = exported_group_rows(&p, groups + groups_bytes, &count);

		for (int64 j = 0; j < count; j++)
			point_at_carried_row(&kept[j], store, store_bytes);
	}
}

/* The context the set keeps the exports it imports and the rows they carry in. */
static MemoryContext
imports_context(RadikGroupSet *set)
{
	if (set->imports_context == NULL)
		set->imports_context = AllocSetContextCreate(set->context, "radik imported groups",
													 ALLOCSET_DEFAULT_SIZES);
	return set->imports_context;
}

MemoryContext
radik_groups_import_context(RadikGroupSet *set)
{
	return imports_context(set);
}

void
radik_groups_import(RadikGroupSet *set, char *data, Size size)
{
	ExportHeader header;

	if (set->keys->bits_map == NULL)
	{
		radik_groups_import_values(set, data, size);
		pfree(data);
		return;
	}
	if (size < sizeof(header))
		elog(ERROR, "radik: imported groups truncated");
	memcpy(&header, data, sizeof(header));
	if (header.groups_bytes > size - sizeof(header) || header.groups_bytes % sizeof(uint64) != 0)
		elog(ERROR, "radik: imported groups truncated");
	if (header.groups_bytes == 0)
	{
		pfree(data);
		return;
	}
	if (set->nimported == set->max_imported)
	{
		set->max_imported = Max(8, set->max_imported * 2);
		if (set->imported == NULL)
		{
			set->imported = MemoryContextAlloc(set->context,
											   set->max_imported * sizeof(char *));
			set->imported_sizes = MemoryContextAlloc(set->context,
													 set->max_imported * sizeof(Size));
		}
		else
		{
			set->imported = repalloc(set->imported, set->max_imported * sizeof(char *));
			set->imported_sizes = repalloc(set->imported_sizes,
										   set->max_imported * sizeof(Size));
		}
	}
	/* kept as it is until the merge (its groups 8-byte aligned after the header) */
	data += sizeof(header);
	point_at_carried_rows(data, header.groups_bytes, size - sizeof(header) - header.groups_bytes);
	set->imported[set->nimported] = data;
	set->imported_sizes[set->nimported++] = header.groups_bytes;
}

Size
radik_groups_room_for_copies(const RadikGroupSet *set)
{
	Size		limit = get_hash_memory_limit();
	Size		own_bytes = radik_groups_memory(set);

	/* the memory the set's own groups hold, not the exports it has imported so far */
	if (set->imports_context != NULL)
		own_bytes -= Min(MemoryContextMemAllocated(set->imports_context, true), own_bytes);
	return Min(limit - Min(own_bytes, limit), MaxAllocSize);
}

void
radik_groups_carry_own_rows(RadikGroupSet *set, const RadikGroupRowsSource *rows)
{
	Candidate **candidates;
	int64		n = 0;
	RadikRowStore store;

	if (set->keys->bits_map == NULL)
		return;
	if (rows->limit < BLCKSZ)
		return;
	/* cut first: the rows held are then the rows the groups keep */
	for (int64 g = 0; g < set->ngroups; g++)
		settle_group(set, group_at(set, g));
	if (set->held == 0)
		return;

	candidates = MemoryContextAllocHuge(CurrentMemoryContext, set->held * sizeof(Candidate *));
	for (int64 g = 0; g < set->ngroups; g++)
	{
		KeptGroup  *group = group_at(set, g);
		Candidate  *kept = group_rows(group);

		/* counted rows are never carried; the rows copied while reading are */
		for (int64 j = 0; j < group->count; j++)
		{
			if (!candidate_is_run(&kept[j]) && !radik_id_is_carried(kept[j].id))
				candidates[n++] = &kept[j];
		}
	}
	if (n == 0)
	{
		pfree(candidates);
		return;
	}
	/* in the memory radik_groups_keep_carried_rows keeps, as the exports' copies are */
	store.used = 0;
	store.capacity = BLCKSZ;
	store.limit = rows->limit;
	store.data = MemoryContextAlloc(imports_context(set), store.capacity);
	carry_candidate_rows(candidates, n, rows, &store);
	/* the store no longer grows, so its offsets can become addresses */
	for (int64 i = 0; i < n; i++)
		point_at_carried_row(candidates[i], store.data, store.used);
	if (store.used == 0)
		pfree(store.data);
	pfree(candidates);
}

void
radik_groups_keep_carried_rows(RadikGroupSet *set, MemoryContext context)
{
	if (set->imports_context != NULL)
		MemoryContextSetParent(set->imports_context, context);
	set->imports_context = NULL;
	if (set->copies_context != NULL)
		MemoryContextSetParent(set->copies_context, context);
	set->copies_context = NULL;
}
