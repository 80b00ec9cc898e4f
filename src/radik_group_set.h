/*
 * radik_group_set.h
 *	  The group set's records (radik_groups.h), shared by the files that make it: radik_group_set.c
 *	  (the hash table, finding groups, offering rows, cutting them) and radik_groups_merge.c (the
 *	  rows kept, in the order of the group keys, and the groups that parallel workers send).
 *
 * A candidate is a row offered to a group: its first sort key (an engine key, 0 with the NULL
 * flag for a NULL key) and its row id.  A group's record holds its first rows inside it; see
 * radik_group_set.c's header for the layout and why.
 */
#ifndef RADIK_GROUP_SET_H
#define RADIK_GROUP_SET_H

#include "postgres.h"

#include "radik_groups.h"

/* A candidate's row id carries this bit when its key is NULL. */
#define KEY_NULL_FLAG (UINT64CONST(1) << 62)

/*
 * A candidate whose id carries this bit is a run: rows of its key counted, not kept, their number
 * in the id's other bits (radik_groups_count_ties).
 */
#define RUN_FLAG (UINT64CONST(1) << 61)

/* Group records per chunk. */
#define CHUNK_GROUPS_LOG2 12
#define CHUNK_GROUPS (1 << CHUNK_GROUPS_LOG2)

typedef struct Candidate
{
	uint64		key;
	uint64		id;				/* the row id, KEY_NULL_FLAG when the key is NULL; or a run */
} Candidate;

static inline bool
candidate_is_run(const Candidate *c)
{
	return (c->id & RUN_FLAG) != 0;
}

/* The rows a candidate stands for: one, or a run's. */
static inline int64
candidate_rows(const Candidate *c)
{
	return candidate_is_run(c) ? (int64) (c->id & ~RUN_FLAG) : 1;
}

/* A slot of the hash table. */
typedef struct GroupSlot
{
	uint64		bits;			/* the key, grouped by bits; else where its values lie */
	uint32		hash;
	uint32		group;			/* the group's number plus one; 0: the slot is empty */
} GroupSlot;

/*
 * A group's record: what a row offered to it reads first lies in the record's first 64 bytes, its
 * first rows right after.
 */
typedef struct KeptGroup
{
	uint64		threshold;
	int64		count;			/* rows held */
	int64		prune_at;
	Candidate  *rows;			/* the rows' own array; NULL while they are in inline_rows */
	bool		full;			/* threshold is set: the group has its k rows */
	uint8		threshold_class;	/* see order_class */
	bool		bits_null;
	int64		capacity;		/* of rows, when they have an array of their own */
	int64		cut_count;		/* rows held after the last cut, which left them sorted */
	union
	{
		uint64		bits;		/* the key, grouped by bits */
		Datum	   *values;		/* the key, grouped the general way; its nulls follow */
	}			key;
	Candidate	inline_rows[FLEXIBLE_ARRAY_MEMBER];
} KeptGroup;

struct RadikGroupSet
{
	const RadikGroupKeys *keys;
	int64		k;
	RadikGroupCut cut;
	bool		nulls_first;
	MemoryContext context;
	GroupSlot  *table;			/* open addressing, a power of two slots */
	uint32		mask;
	int64		ngroups;
	char	  **chunks;			/* the group records, CHUNK_GROUPS a chunk */
	int64		max_chunks;
	Size		group_size;		/* a record's bytes, with its inline rows */
	int			inline_capacity;	/* rows a record has room for */
	int64		held;			/* rows all groups hold */
	KeptGroup  *null_group;		/* grouped by bits: the group of NULL keys, when seen */
	KeptGroup  *last_group;		/* grouped by bits: the group of the last key found, */
	uint64		last_bits;		/* and its bits */
	char	   *key_space;		/* grouped the general way: room for the next key values */
	Size		key_space_left;
	/*
	 * grouped by bits: the exports imported (their groups; the rows they carry follow each),
	 * merged with the set's groups at the end, in their own memory under the set's
	 */
	MemoryContext imports_context;
	char	  **imported;
	Size	   *imported_sizes;
	int			nimported;
	int			max_imported;
	int64		merged_groups;	/* the groups after that merge; -1 before it */
	/* radik_groups_count_ties: the selecting key's type and direction */
	bool		count_ties;
	Oid			tie_key_type;
	bool		tie_key_descending;
	/*
	 * radik_groups_copy_while_reading (radik_group_copies.c): the copies of the rows kept, in
	 * chunks of their own memory that never move; NULL while no rows are copied
	 */
	MemoryContext copies_context;
	RadikRowStore copies;		/* the chunk being filled */
	Size		copies_bytes;	/* of all chunks */
	Size		copies_limit;
	bool		copies_full;	/* the limit reached: no more copies */
};

/* Where a key falls among NULLs: keys of class 0 come before class 1. */
static inline uint8
order_class(const RadikGroupSet *set, bool key_null)
{
	return key_null == set->nulls_first ? 0 : 1;
}

/* a's place in the order against b's: < 0, 0, > 0. */
static inline int
compare_order(uint8 class_a, uint64 key_a, uint8 class_b, uint64 key_b)
{
	if (class_a != class_b)
		return class_a < class_b ? -1 : 1;
	if (key_a != key_b)
		return key_a < key_b ? -1 : 1;
	return 0;
}

static inline uint8
candidate_class(const RadikGroupSet *set, const Candidate *c)
{
	return order_class(set, (c->id & KEY_NULL_FLAG) != 0);
}

static inline int
compare_candidates(const Candidate *a, const Candidate *b, const RadikGroupSet *set)
{
	return compare_order(candidate_class(set, a), a->key, candidate_class(set, b), b->key);
}

/* A group's key values' NULL flags, after its values. */
static inline bool *
group_nulls(const RadikGroupKeys *keys, Datum *values)
{
	return (bool *) (values + keys->nkeys);
}

/* Group number's record. */
static inline KeptGroup *
group_at(const RadikGroupSet *set, int64 number)
{
	return (KeptGroup *) (set->chunks[number >> CHUNK_GROUPS_LOG2] +
						  (number & (CHUNK_GROUPS - 1)) * set->group_size);
}

/* A group's rows, in its record or in their own array. */
static inline Candidate *
group_rows(KeptGroup *group)
{
	return group->rows != NULL ? group->rows : group->inline_rows;
}

/* Sort n candidates in their order (the order of compare_candidates). */
extern void radik_groups_sort(Candidate *rows, size_t n, const RadikGroupSet *set);

/*
 * How many of n sorted candidates of one group come before its cut (the k-th row and the rows
 * tied with it, or the rows of the first k distinct keys, a run counting as its rows); *full
 * tells whether the group reaches k.
 */
extern int64 radik_groups_cut(const RadikGroupSet *set, const Candidate *rows, int64 n,
							  bool *full);

/*
 * Cut a group whose rows may not be cut yet (see radik_group_set.c): afterwards it holds its rows
 * before the cut, sorted when it held more than k.
 */
extern void radik_groups_finish(RadikGroupSet *set, KeptGroup *group);

/*
 * Copy the rows of a page that their groups still hold after the page's rows were offered, while
 * the page is in hand (radik_group_copies.c): the rows kept[0 .. n) of tuples, which went to
 * groups[kept[i]], their row ids row_ids[kept[i]].
 */
extern void radik_groups_copy_page_rows(RadikGroupSet *set, HeapTupleData *tuples,
										const uint64 *row_ids, KeptGroup **groups,
										const int *kept, int n);

/* Offer every row of an export of a set grouped the general way (radik_groups_import). */
extern void radik_groups_import_values(RadikGroupSet *set, const char *data, Size size);

#endif							/* RADIK_GROUP_SET_H */
