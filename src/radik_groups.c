/*
 * radik_groups.c
 *	  The best rows of each group (radik_groups.h): an open-addressing hash table of groups, each
 *	  keeping its candidate rows at or below a threshold of its own.
 *
 * A group sorts the rows offered to it and cuts them after the rows tied with the k-th (or after
 * the k-th distinct key) when it first holds k rows, and again each time it holds twice what it
 * kept, taking the last key kept as its threshold: a later row beyond it is dropped on arrival.
 * So a group costs about one sort of 2k keys per k rows it keeps, and the rows it drops one
 * comparison each; heavy ties at the threshold make a group grow, the next cut waiting until it
 * has doubled again.  A group not added to since its last cut, or holding k rows or fewer, needs
 * no cut at the end.
 *
 * Many small groups (a million groups of a few rows) make the bookkeeping of a group, not the
 * rows, the cost; so the groups are records of one size in large chunks, numbered in the order
 * they were first seen, each with room for its first rows (2k, at most MAX_INLINE_ROWS) inside
 * it: a group's rows move to an array of their own only when they outgrow that room.  A slot of
 * the hash table holds a group's number and its key's hash with the key's bits, or where the
 * key's values lie, so that a lookup reads the slot (and the values) and then the one record it
 * finds.  The group of the row offered last is remembered, which makes the rows of a table
 * stored in group order (a serial key, a date) cost no lookup; the rows of a page are looked up
 * together (radik_groups_offer_tuples), their slots and records asked for ahead, which hides
 * most of the wait for memory when the groups are scattered.  The final pass and the export read
 * the records in order; groups of a key grouped by bits can also come out in the order of their
 * keys (a radix sort of the bits), each group's rows in the order of the sort key, which spares
 * the caller its sort of the rows kept.
 *
 * Groups are found by their key's hash.  One key of a type whose engine key is equal exactly for
 * equal values (integers, dates, times, floats with -0 and NaN folded) is grouped by those bits
 * alone; other keys by their type's hash and equality functions with their collation, the key
 * values copied into the set (into blocks shared by many groups) when a group is first seen.
 * NULL group keys form a group of their own, as in PostgreSQL's grouping.  Everything lives in
 * the set's memory context, which radik_groups_memory measures.
 */
#include "postgres.h"

#include "access/stratnum.h"
#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "common/hashfn.h"
#include "nodes/nodeFuncs.h"
#include "port/pg_bitutils.h"
#include "utils/datum.h"
#include "utils/expandeddatum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "radik_compat.h"
#include "radik_groups.h"

/* A candidate's row id carries this bit when its key is NULL. */
#define KEY_NULL_FLAG (UINT64CONST(1) << 62)

/* A group cuts its rows when it first holds k, then once it holds this many times what it kept. */
#define PRUNE_FACTOR 2

/* The most rows a group holds in its own record (16 bytes each). */
#define MAX_INLINE_ROWS 8

/* Group records per chunk, and the bytes of a block of copied group key values. */
#define CHUNK_GROUPS_LOG2 12
#define CHUNK_GROUPS (1 << CHUNK_GROUPS_LOG2)
#define KEY_BLOCK_BYTES (64 * 1024)

typedef struct Candidate
{
	uint64		key;
	uint64		id;				/* the row id, KEY_NULL_FLAG when the key is NULL */
} Candidate;

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
};

bool
radik_group_key_hashable(Oid equality_operator)
{
	RegProcedure hash_function;

	return get_op_hash_functions(equality_operator, &hash_function, NULL);
}

/* The type's default btree equality operator (InvalidOid when it has none). */
static Oid
default_equality_operator(Oid type)
{
	Oid			opclass = GetDefaultOpClass(type, BTREE_AM_OID);

	if (!OidIsValid(opclass))
		return InvalidOid;
	return get_opfamily_member(get_opclass_family(opclass), type, type, BTEqualStrategyNumber);
}

bool
radik_group_order_by_bits(Oid type, Oid sort_operator)
{
	Oid			opclass = GetDefaultOpClass(type, BTREE_AM_OID);
	Oid			opfamily;
	Oid			opcintype;
	CompareType strategy;

	return radik_key_type_exact(type) && OidIsValid(opclass) &&
		get_ordering_op_properties(sort_operator, &opfamily, &opcintype, &strategy) &&
		opfamily == get_opclass_family(opclass) && opcintype == type;
}

void
radik_group_keys_init(RadikGroupKeys *keys, Relation rel, List *exprs,
					  const Oid *equality_operators, const Oid *collations, PlanState *parent)
{
	int			nkeys = list_length(exprs);

	keys->nkeys = nkeys;
	keys->attnums = palloc0(nkeys * sizeof(AttrNumber));
	keys->columns = palloc0(nkeys * sizeof(RadikColumnReader));
	keys->exprs = palloc0(nkeys * sizeof(ExprState *));
	keys->types = palloc(nkeys * sizeof(Oid));
	keys->collations = palloc(nkeys * sizeof(Oid));
	keys->hash_functions = palloc(nkeys * sizeof(FmgrInfo));
	keys->equal_functions = palloc(nkeys * sizeof(FmgrInfo));
	keys->byval = palloc(nkeys * sizeof(bool));
	keys->typlen = palloc(nkeys * sizeof(int16));
	keys->bits_map = NULL;
	keys->econtext = NULL;
	keys->slot = NULL;
	for (int i = 0; i < nkeys; i++)
	{
		Expr	   *expr = list_nth(exprs, i);
		RegProcedure hash_function;

		if (!get_op_hash_functions(equality_operators[i], &hash_function, NULL))
			elog(ERROR, "radik: no hash function for group key operator %u",
				 equality_operators[i]);
		keys->types[i] = exprType((Node *) expr);
		keys->collations[i] = collations[i];
		fmgr_info(hash_function, &keys->hash_functions[i]);
		fmgr_info(get_opcode(equality_operators[i]), &keys->equal_functions[i]);
		get_typlenbyval(keys->types[i], &keys->typlen[i], &keys->byval[i]);
		if (IsA(expr, Var) && ((Var *) expr)->varattno > 0 && ((Var *) expr)->varlevelsup == 0)
		{
			keys->attnums[i] = ((Var *) expr)->varattno;
			radik_column_reader_init(&keys->columns[i], rel, keys->attnums[i]);
			continue;
		}
		keys->exprs[i] = ExecInitExpr(expr, parent);
		if (keys->econtext == NULL)
		{
			keys->econtext = CreateStandaloneExprContext();
			keys->slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsHeapTuple);
		}
	}

	/*
	 * One key whose engine key is the same for exactly the values its type's own equality calls
	 * equal (the exact key types, under the default equality): grouped by those bits.
	 */
	if (nkeys == 1 && radik_key_type_exact(keys->types[0]) &&
		equality_operators[0] == default_equality_operator(keys->types[0]))
	{
		int			key_bytes;

		keys->bits_map = radik_key_map(keys->types[0], false, &key_bytes);
	}
}

void
radik_group_keys_end(RadikGroupKeys *keys)
{
	if (keys->slot != NULL)
		ExecDropSingleTupleTableSlot(keys->slot);
	if (keys->econtext != NULL)
		FreeExprContext(keys->econtext, true);
	keys->slot = NULL;
	keys->econtext = NULL;
}

/* PRUNE_FACTOR times n, at most PG_INT64_MAX. */
static inline int64
times_prune_factor(int64 n)
{
	return n > PG_INT64_MAX / PRUNE_FACTOR ? PG_INT64_MAX : PRUNE_FACTOR * n;
}

RadikGroupSet *
radik_groups_create(const RadikGroupKeys *keys, int64 k, RadikGroupCut cut, bool nulls_first,
					MemoryContext context)
{
	MemoryContext set_context = AllocSetContextCreate(context, "radik groups",
													  ALLOCSET_DEFAULT_SIZES);
	RadikGroupSet *set = MemoryContextAllocZero(set_context, sizeof(RadikGroupSet));

	set->keys = keys;
	set->k = Max(k, 1);
	set->cut = cut;
	set->nulls_first = nulls_first;
	set->context = set_context;
	set->mask = 1023;
	set->table = MemoryContextAllocZero(set_context, (set->mask + 1) * sizeof(GroupSlot));
	set->inline_capacity = (int) Min(times_prune_factor(set->k), MAX_INLINE_ROWS);
	set->group_size = MAXALIGN(offsetof(KeptGroup, inline_rows) +
							   set->inline_capacity * sizeof(Candidate));
	set->max_chunks = 16;
	set->chunks = MemoryContextAlloc(set_context, set->max_chunks * sizeof(char *));
	return set;
}

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

/* sort_candidates(rows, n, set): a group's rows in their order */
#define ST_SORT sort_candidates
#define ST_ELEMENT_TYPE Candidate
#define ST_COMPARE_ARG_TYPE const RadikGroupSet
#define ST_COMPARE(a, b, set) compare_candidates(a, b, set)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* A 64-bit value's hash (the splitmix64 finalizer, folded to 32 bits). */
static inline uint32
hash_bits(uint64 x)
{
	x ^= x >> 30;
	x *= UINT64CONST(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64CONST(0x94d049bb133111eb);
	x ^= x >> 31;
	return (uint32) x ^ (uint32) (x >> 32);
}

/* The group key's hash, the general way: each value's hash rotated in, as execGrouping.c does. */
static uint32
hash_values(const RadikGroupKeys *keys, const Datum *values, const bool *nulls)
{
	uint32		hash = 0;

	for (int i = 0; i < keys->nkeys; i++)
	{
		hash = pg_rotate_left32(hash, 1);
		if (!nulls[i])
			hash ^= DatumGetUInt32(FunctionCall1Coll(&keys->hash_functions[i],
													 keys->collations[i], values[i]));
	}
	return murmurhash32(hash);
}

/* A group's key values' NULL flags, after its values. */
static inline bool *
group_nulls(const RadikGroupKeys *keys, Datum *values)
{
	return (bool *) (values + keys->nkeys);
}

/* Are a group's key values (group_values, with their NULL flags after them) these? */
static bool
values_equal(const RadikGroupKeys *keys, Datum *group_values, const Datum *values,
			 const bool *nulls)
{
	const bool *group_null = group_nulls(keys, group_values);

	for (int i = 0; i < keys->nkeys; i++)
	{
		if (group_null[i] || nulls[i])
		{
			if (group_null[i] != nulls[i])
				return false;
			continue;
		}
		if (!DatumGetBool(FunctionCall2Coll(&keys->equal_functions[i], keys->collations[i],
											group_values[i], values[i])))
			return false;
	}
	return true;
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

/* A new group, numbered after the others (its record in the last chunk, made when full). */
static KeptGroup *
new_group(RadikGroupSet *set)
{
	int64		number = set->ngroups;
	KeptGroup  *group;

	if ((number & (CHUNK_GROUPS - 1)) == 0)
	{
		int64		chunk = number >> CHUNK_GROUPS_LOG2;

		if (chunk == set->max_chunks)
		{
			set->max_chunks *= 2;
			set->chunks = repalloc_huge(set->chunks, set->max_chunks * sizeof(char *));
		}
		set->chunks[chunk] = MemoryContextAllocHuge(set->context,
													CHUNK_GROUPS * set->group_size);
	}
	group = group_at(set, number);
	memset(group, 0, offsetof(KeptGroup, inline_rows));
	group->prune_at = set->k;	/* the first cut, at k rows */
	set->ngroups++;
	return group;
}

/* Double the hash table. */
static void
grow_table(RadikGroupSet *set)
{
	uint32		old_mask = set->mask;
	GroupSlot  *old_table = set->table;

	if (old_mask >= PG_UINT32_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("radik: too many groups")));
	set->mask = old_mask * 2 + 1;
	set->table = MemoryContextAllocExtended(set->context,
											((Size) set->mask + 1) * sizeof(GroupSlot),
											MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (uint32 i = 0; i <= old_mask; i++)
	{
		const GroupSlot *old_slot = &old_table[i];
		uint32		slot;

		if (old_slot->group == 0)
			continue;
		for (slot = old_slot->hash & set->mask; set->table[slot].group != 0;
			 slot = (slot + 1) & set->mask)
			;
		set->table[slot] = *old_slot;
	}
	pfree(old_table);
}

/* Make a new group in the empty slot of the table. */
static KeptGroup *
new_group_at_slot(RadikGroupSet *set, GroupSlot *slot, uint64 bits, uint32 hash)
{
	KeptGroup  *group = new_group(set);

	slot->bits = bits;
	slot->hash = hash;
	slot->group = (uint32) set->ngroups;
	return group;
}

/* The group of a key grouped by its bits, made when new. */
static inline KeptGroup *
find_group_by_bits(RadikGroupSet *set, uint64 bits, bool isnull)
{
	uint32		hash;
	KeptGroup  *group;
	GroupSlot  *slot;
	uint32		i;

	if (isnull)
	{
		if (set->null_group == NULL)
		{
			set->null_group = new_group(set);
			set->null_group->bits_null = true;
		}
		return set->null_group;
	}
	if (set->last_group != NULL && set->last_bits == bits)
		return set->last_group;

	hash = hash_bits(bits);
	for (i = hash & set->mask; (slot = &set->table[i])->group != 0; i = (i + 1) & set->mask)
	{
		if (slot->bits == bits)
		{
			group = group_at(set, slot->group - 1);
			set->last_group = group;
			set->last_bits = bits;
			return group;
		}
	}
	group = new_group_at_slot(set, slot, bits, hash);
	group->key.bits = bits;
	if (set->ngroups * 2 > (int64) set->mask)
		grow_table(set);
	set->last_group = group;
	set->last_bits = bits;
	return group;
}

/* Room for size bytes of key values, in the set's current block or in a new one. */
static char *
key_space(RadikGroupSet *set, Size size)
{
	char	   *space;

	size = MAXALIGN(size);
	if (size > KEY_BLOCK_BYTES / 8)
		return MemoryContextAlloc(set->context, size);
	if (size > set->key_space_left)
	{
		set->key_space = MemoryContextAlloc(set->context, KEY_BLOCK_BYTES);
		set->key_space_left = KEY_BLOCK_BYTES;
	}
	space = set->key_space;
	set->key_space += size;
	set->key_space_left -= size;
	return space;
}

/* A copy of a key value in the set. */
static Datum
copy_key_value(RadikGroupSet *set, Datum value, bool byval, int16 typlen)
{
	Size		size;
	char	   *copy;

	if (byval)
		return value;
	if (typlen == -1 && VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(value)))
	{
		MemoryContext old_context = MemoryContextSwitchTo(set->context);
		Datum		flat = datumCopy(value, byval, typlen);

		MemoryContextSwitchTo(old_context);
		return flat;
	}
	size = datumGetSize(value, byval, typlen);
	copy = key_space(set, size);
	memcpy(copy, DatumGetPointer(value), size);
	return PointerGetDatum(copy);
}

/* The group of a key grouped the general way, made when new (the key's values copied). */
static KeptGroup *
find_group_by_values(RadikGroupSet *set, const Datum *values, const bool *nulls)
{
	const RadikGroupKeys *keys = set->keys;
	uint32		hash = hash_values(keys, values, nulls);
	KeptGroup  *group;
	GroupSlot  *slot;
	Datum	   *group_values;
	bool	   *group_null;
	uint32		i;

	/* the slot says where the key's values lie: the record is read only when they match */
	for (i = hash & set->mask; (slot = &set->table[i])->group != 0; i = (i + 1) & set->mask)
	{
		if (slot->hash == hash &&
			values_equal(keys, (Datum *) (uintptr_t) slot->bits, values, nulls))
			return group_at(set, slot->group - 1);
	}
	group_values = (Datum *) key_space(set, keys->nkeys * (sizeof(Datum) + sizeof(bool)));
	group = new_group_at_slot(set, slot, (uint64) (uintptr_t) group_values, hash);
	group->key.values = group_values;
	group_null = group_nulls(keys, group_values);
	for (int k = 0; k < keys->nkeys; k++)
	{
		group_null[k] = nulls[k];
		group->key.values[k] = nulls[k] ? (Datum) 0 :
			copy_key_value(set, values[k], keys->byval[k], keys->typlen[k]);
	}
	if (set->ngroups * 2 > (int64) set->mask)
		grow_table(set);
	return group;
}

/*
 * Cut the group's rows after its k-th row and the rows tied with it (or after its k-th distinct
 * key), leaving them sorted, and take the last key kept as the threshold when the group has
 * that many.
 */
static void
prune_group(RadikGroupSet *set, KeptGroup *group)
{
	Candidate  *rows = group_rows(group);
	int64		keep = group->count;

	sort_candidates(rows, group->count, set);
	if (set->cut == RADIK_GROUP_CUT_ROWS && group->count >= set->k)
		keep = set->k;
	else if (set->cut == RADIK_GROUP_CUT_DISTINCT)
	{
		int64		distinct = 0;

		for (int64 i = 0; i < group->count; i++)
		{
			if (i == 0 || compare_candidates(&rows[i - 1], &rows[i], set) != 0)
				distinct++;
			if (distinct == set->k)
			{
				keep = i + 1;
				break;
			}
		}
		if (distinct < set->k)
			keep = group->count;
		else
			group->full = true;
	}
	if (set->cut == RADIK_GROUP_CUT_ROWS && group->count >= set->k)
		group->full = true;
	if (group->full)
	{
		const Candidate *last = &rows[keep - 1];

		group->threshold_class = candidate_class(set, last);
		group->threshold = last->key;
		/* the rows tied with the last one kept are kept too */
		while (keep < group->count && compare_candidates(last, &rows[keep], set) == 0)
			keep++;
	}
	set->held -= group->count - keep;
	group->count = keep;
	group->cut_count = keep;
	group->prune_at = times_prune_factor(Max(set->k, keep));
}

/*
 * Cut a group whose rows may not be cut yet: rows added since its last cut, and more than k of
 * them (k rows or fewer hold no more than k distinct keys, and are all kept).
 */
static inline void
finish_group(RadikGroupSet *set, KeptGroup *group)
{
	if (group->count > group->cut_count && group->count > set->k)
		prune_group(set, group);
}

/* Give a group's rows an array of their own, or a larger one. */
static void
grow_rows(RadikGroupSet *set, KeptGroup *group)
{
	int64		capacity = Max(group->count * 2, Min(group->prune_at, 64));

	if (group->rows == NULL)
	{
		group->rows = MemoryContextAllocHuge(set->context, capacity * sizeof(Candidate));
		memcpy(group->rows, group->inline_rows, group->count * sizeof(Candidate));
	}
	else
		group->rows = repalloc_huge(group->rows, capacity * sizeof(Candidate));
	group->capacity = capacity;
}

/* Offer a row to its group: kept unless beyond the group's cut. */
static inline void
add_row(RadikGroupSet *set, KeptGroup *group, uint64 key, bool key_null, uint64 row_id)
{
	uint8		class = order_class(set, key_null);
	Candidate  *row;

	if (key_null)
		key = 0;
	if (group->full &&
		compare_order(class, key, group->threshold_class, group->threshold) > 0)
		return;					/* beyond the group's cut */
	if (group->rows == NULL ? group->count == set->inline_capacity :
		group->count == group->capacity)
		grow_rows(set, group);
	row = &group_rows(group)[group->count++];
	row->key = key;
	row->id = row_id | (key_null ? KEY_NULL_FLAG : 0);
	set->held++;
	if (group->count >= group->prune_at)
		prune_group(set, group);
}

void
radik_groups_offer(RadikGroupSet *set, const Datum *group_values, const bool *group_nulls,
				   uint64 key, bool key_null, uint64 row_id)
{
	const RadikGroupKeys *keys = set->keys;
	KeptGroup  *group;

	if (keys->bits_map != NULL)
		group = find_group_by_bits(set, group_nulls[0] ? 0 : keys->bits_map(group_values[0]),
								   group_nulls[0]);
	else
		group = find_group_by_values(set, group_values, group_nulls);
	add_row(set, group, key, key_null, row_id);
}

/* The group key's values for a heap tuple. */
static inline void
tuple_group_key(const RadikGroupKeys *keys, HeapTuple tuple, Datum *values, bool *nulls)
{
	if (keys->econtext != NULL)
	{
		ResetExprContext(keys->econtext);
		ExecStoreHeapTuple(tuple, keys->slot, false);
		keys->econtext->ecxt_scantuple = keys->slot;
	}
	for (int i = 0; i < keys->nkeys; i++)
	{
		if (keys->attnums[i] > 0)
			values[i] = radik_read_column(&keys->columns[i], tuple, &nulls[i]);
		else
			values[i] = ExecEvalExprSwitchContext(keys->exprs[i], keys->econtext, &nulls[i]);
	}
}

void
radik_groups_offer_tuple(RadikGroupSet *set, HeapTuple tuple, uint64 key, bool key_null,
						 uint64 row_id)
{
	Datum		values[INDEX_MAX_KEYS];
	bool		nulls[INDEX_MAX_KEYS];

	tuple_group_key(set->keys, tuple, values, nulls);
	radik_groups_offer(set, values, nulls, key, key_null, row_id);
}

/*
 * Keys grouped by bits are found in three rounds over the page's rows, so that the memory the
 * rows need is asked for ahead instead of waited for row after row (with groups scattered over
 * the table, nearly every row's slot and record are out of the caches): the keys' bits with
 * their slots asked for, then the groups found with their records asked for, then the rows.
 */
void
radik_groups_offer_tuples(RadikGroupSet *set, HeapTupleData *tuples, const uint64 *keys,
						  const uint64 *row_ids, int n)
{
	const RadikGroupKeys *group_keys = set->keys;
	uint64		bits[MaxHeapTuplesPerPage];
	bool		nulls[MaxHeapTuplesPerPage];
	KeptGroup  *groups[MaxHeapTuplesPerPage];

	if (group_keys->bits_map == NULL || n > MaxHeapTuplesPerPage)
	{
		for (int i = 0; i < n; i++)
			radik_groups_offer_tuple(set, &tuples[i], keys[i], false, row_ids[i]);
		return;
	}
	for (int i = 0; i < n; i++)
	{
		Datum		value;

		tuple_group_key(group_keys, &tuples[i], &value, &nulls[i]);
		bits[i] = nulls[i] ? 0 : group_keys->bits_map(value);
		if (!nulls[i] && (i == 0 || bits[i] != bits[i - 1]))
			radik_prefetch_for_read(&set->table[hash_bits(bits[i]) & set->mask]);
	}
	for (int i = 0; i < n; i++)
	{
		groups[i] = find_group_by_bits(set, bits[i], nulls[i]);
		radik_prefetch_for_read(groups[i]);
		radik_prefetch_for_read((char *) groups[i] + offsetof(KeptGroup, capacity));
	}
	for (int i = 0; i < n; i++)
		add_row(set, groups[i], keys[i], false, row_ids[i]);
}

int64
radik_groups_count(const RadikGroupSet *set)
{
	return set->ngroups;
}

Size
radik_groups_memory(const RadikGroupSet *set)
{
	return MemoryContextMemAllocated(set->context, true);
}

int64
radik_groups_rows(RadikGroupSet *set, uint64 **row_ids)
{
	/* the rows held now are at least the rows kept after the last cuts */
	uint64	   *ids = MemoryContextAllocHuge(CurrentMemoryContext,
											 Max(set->held, 1) * sizeof(uint64));
	int64		n = 0;

	for (int64 g = 0; g < set->ngroups; g++)
	{
		KeptGroup  *group = group_at(set, g);
		const Candidate *rows;

		finish_group(set, group);
		rows = group_rows(group);
		for (int64 j = 0; j < group->count; j++)
			ids[n++] = rows[j].id & ~KEY_NULL_FLAG;
	}
	*row_ids = ids;
	return n;
}

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

	finish_group(set, group);
	if (group->count > group->cut_count)
	{
		/* k rows or fewer, all kept: sorted, nothing cut */
		sort_candidates(group_rows(group), group->count, set);
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
		finish_group(set, group);
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

void
radik_groups_import(RadikGroupSet *set, const char *data, Size size)
{
	const RadikGroupKeys *keys = set->keys;
	char	   *p = (char *) data;
	Datum		values[INDEX_MAX_KEYS];
	bool		nulls[INDEX_MAX_KEYS];

	while (p < data + size)
	{
		int64		count;
		KeptGroup  *group;

		memcpy(&count, p, sizeof(int64));
		p += sizeof(int64);
		if (keys->bits_map != NULL)
		{
			bool		isnull = *p++ != 0;
			uint64		bits;

			memcpy(&bits, p, sizeof(uint64));
			p += sizeof(uint64);
			group = find_group_by_bits(set, bits, isnull);
		}
		else
		{
			for (int k = 0; k < keys->nkeys; k++)
				values[k] = datumRestore(&p, &nulls[k]);
			group = find_group_by_values(set, values, nulls);
		}
		for (int64 r = 0; r < count; r++)
		{
			Candidate	row;

			memcpy(&row, p, sizeof(Candidate));
			p += sizeof(Candidate);
			add_row(set, group, row.key, (row.id & KEY_NULL_FLAG) != 0, row.id & ~KEY_NULL_FLAG);
		}
	}
}
