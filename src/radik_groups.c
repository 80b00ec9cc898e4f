/*
 * radik_groups.c
 *	  The best rows of each group (radik_groups.h): an open-addressing hash table of groups, each
 *	  keeping its candidate rows at or below a threshold of its own.
 *
 * A group collects the rows offered to it until it holds twice what it must keep (2k rows, at
 * least 8), then sorts them by key, cuts after the rows tied with the k-th (or after the k-th
 * distinct key) and takes the last key kept as its threshold: a later row beyond it is dropped
 * on arrival.  So a group costs about one sort of 2k keys per k rows it keeps, and the rows it
 * drops one comparison each; heavy ties at the threshold make a group grow, the next cut waiting
 * until it has doubled again.
 *
 * Groups are found by their key's hash.  One key of a type whose engine key is equal exactly for
 * equal values (integers, dates, times, floats with -0 and NaN folded) is grouped by those bits
 * alone; other keys by their type's hash and equality functions with their collation, the key
 * values copied into the set when a group is first seen.  NULL group keys form a group of their
 * own, as in PostgreSQL's grouping.
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
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "radik_groups.h"

/* A candidate's row id carries this bit when its key is NULL. */
#define KEY_NULL_FLAG (UINT64CONST(1) << 62)

/* A group cuts its rows once it holds this many times what it keeps, and at least MIN_PRUNE. */
#define PRUNE_FACTOR 2
#define MIN_PRUNE 8

typedef struct Candidate
{
	uint64		key;
	uint64		id;				/* the row id, KEY_NULL_FLAG when the key is NULL */
} Candidate;

typedef struct KeptGroup
{
	uint32		hash;
	bool		full;			/* threshold is set: the group has its k rows */
	uint8		threshold_class;	/* see order_class */
	uint64		threshold;
	int64		count;
	int64		capacity;
	int64		prune_at;
	Candidate  *rows;
	uint64		bits;			/* the key, grouped by bits */
	bool		bits_null;
	Datum	   *values;			/* the key, grouped the general way */
	bool	   *nulls;
} KeptGroup;

struct RadikGroupSet
{
	const RadikGroupKeys *keys;
	int64		k;
	RadikGroupCut cut;
	bool		nulls_first;
	MemoryContext context;
	KeptGroup	  **table;			/* open addressing, a power of two slots */
	uint32		mask;
	int64		ngroups;
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
	set->table = MemoryContextAllocZero(set_context, (set->mask + 1) * sizeof(KeptGroup *));
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

static int
compare_candidates(const void *a, const void *b, void *arg)
{
	const RadikGroupSet *set = (const RadikGroupSet *) arg;
	const Candidate *ca = (const Candidate *) a;
	const Candidate *cb = (const Candidate *) b;

	return compare_order(candidate_class(set, ca), ca->key, candidate_class(set, cb), cb->key);
}

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

static bool
values_equal(const RadikGroupKeys *keys, const KeptGroup *group, const Datum *values,
			 const bool *nulls)
{
	for (int i = 0; i < keys->nkeys; i++)
	{
		if (group->nulls[i] || nulls[i])
		{
			if (group->nulls[i] != nulls[i])
				return false;
			continue;
		}
		if (!DatumGetBool(FunctionCall2Coll(&keys->equal_functions[i], keys->collations[i],
											group->values[i], values[i])))
			return false;
	}
	return true;
}

/* Double the hash table. */
static void
grow_table(RadikGroupSet *set)
{
	uint32		old_mask = set->mask;
	KeptGroup	  **old_table = set->table;

	set->mask = old_mask * 2 + 1;
	set->table = MemoryContextAllocZero(set->context, ((Size) set->mask + 1) * sizeof(KeptGroup *));
	for (uint32 i = 0; i <= old_mask; i++)
	{
		KeptGroup	   *group = old_table[i];
		uint32		slot;

		if (group == NULL)
			continue;
		for (slot = group->hash & set->mask; set->table[slot] != NULL; slot = (slot + 1) & set->mask)
			;
		set->table[slot] = group;
	}
	pfree(old_table);
}

static KeptGroup *
new_group(RadikGroupSet *set, uint32 hash, uint32 slot)
{
	KeptGroup	   *group = MemoryContextAllocZero(set->context, sizeof(KeptGroup));

	group->hash = hash;
	group->prune_at = Max(PRUNE_FACTOR * set->k, MIN_PRUNE);
	set->table[slot] = group;
	set->ngroups++;
	return group;
}

/* The group of a key grouped by its bits, made when new. */
static KeptGroup *
find_group_by_bits(RadikGroupSet *set, uint64 bits, bool isnull)
{
	uint32		hash = isnull ? 0x9e3779b9 : hash_bits(bits);
	KeptGroup	   *group;
	uint32		slot;

	if (isnull)
		bits = 0;
	for (slot = hash & set->mask; (group = set->table[slot]) != NULL;
		 slot = (slot + 1) & set->mask)
	{
		if (group->bits == bits && group->bits_null == isnull)
			return group;
	}
	group = new_group(set, hash, slot);
	group->bits = bits;
	group->bits_null = isnull;
	if (set->ngroups * 2 > (int64) set->mask)
		grow_table(set);
	return group;
}

/* The group of a key grouped the general way, made when new (the key's values copied). */
static KeptGroup *
find_group_by_values(RadikGroupSet *set, const Datum *values, const bool *nulls)
{
	const RadikGroupKeys *keys = set->keys;
	uint32		hash = hash_values(keys, values, nulls);
	KeptGroup	   *group;
	uint32		slot;
	MemoryContext old_context;

	for (slot = hash & set->mask; (group = set->table[slot]) != NULL;
		 slot = (slot + 1) & set->mask)
	{
		if (group->hash == hash && values_equal(keys, group, values, nulls))
			return group;
	}
	group = new_group(set, hash, slot);
	old_context = MemoryContextSwitchTo(set->context);
	group->values = palloc(keys->nkeys * sizeof(Datum));
	group->nulls = palloc(keys->nkeys * sizeof(bool));
	for (int i = 0; i < keys->nkeys; i++)
	{
		group->nulls[i] = nulls[i];
		group->values[i] = nulls[i] ? (Datum) 0 :
			datumCopy(values[i], keys->byval[i], keys->typlen[i]);
	}
	MemoryContextSwitchTo(old_context);
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
	int64		keep = group->count;

	qsort_arg(group->rows, group->count, sizeof(Candidate), compare_candidates, set);
	if (set->cut == RADIK_GROUP_CUT_ROWS && group->count >= set->k)
		keep = set->k;
	else if (set->cut == RADIK_GROUP_CUT_DISTINCT)
	{
		int64		distinct = 0;

		for (int64 i = 0; i < group->count; i++)
		{
			if (i == 0 || compare_candidates(&group->rows[i - 1], &group->rows[i], set) != 0)
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
		const Candidate *last = &group->rows[keep - 1];

		group->threshold_class = candidate_class(set, last);
		group->threshold = last->key;
		/* the rows tied with the last one kept are kept too */
		while (keep < group->count &&
			   compare_candidates(last, &group->rows[keep], set) == 0)
			keep++;
	}
	group->count = keep;
	group->prune_at = Max(Max(PRUNE_FACTOR * set->k, MIN_PRUNE), PRUNE_FACTOR * keep);
}

/* Offer a row to its group: kept unless beyond the group's cut. */
static inline void
add_row(RadikGroupSet *set, KeptGroup *group, uint64 key, bool key_null, uint64 row_id)
{
	uint8		class = order_class(set, key_null);

	if (key_null)
		key = 0;
	if (group->full &&
		compare_order(class, key, group->threshold_class, group->threshold) > 0)
		return;					/* beyond the group's cut */
	if (group->count == group->capacity)
	{
		int64		capacity = Max(group->capacity * 2, Min(group->prune_at, 64));

		if (group->rows == NULL)
			group->rows = MemoryContextAllocHuge(set->context, capacity * sizeof(Candidate));
		else
			group->rows = repalloc_huge(group->rows, capacity * sizeof(Candidate));
		group->capacity = capacity;
	}
	group->rows[group->count].key = key;
	group->rows[group->count].id = row_id | (key_null ? KEY_NULL_FLAG : 0);
	group->count++;
	if (group->count >= group->prune_at)
		prune_group(set, group);
}

void
radik_groups_offer(RadikGroupSet *set, const Datum *group_values, const bool *group_nulls,
				   uint64 key, bool key_null, uint64 row_id)
{
	const RadikGroupKeys *keys = set->keys;
	KeptGroup	   *group;

	if (keys->bits_map != NULL)
		group = find_group_by_bits(set, group_nulls[0] ? 0 : keys->bits_map(group_values[0]),
								   group_nulls[0]);
	else
		group = find_group_by_values(set, group_values, group_nulls);
	add_row(set, group, key, key_null, row_id);
}

void
radik_groups_offer_tuple(RadikGroupSet *set, HeapTuple tuple, uint64 key, bool key_null,
						 uint64 row_id)
{
	const RadikGroupKeys *keys = set->keys;
	Datum		values[INDEX_MAX_KEYS];
	bool		nulls[INDEX_MAX_KEYS];

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
	radik_groups_offer(set, values, nulls, key, key_null, row_id);
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
	int64		total = 0;
	int64		n = 0;
	uint64	   *ids;

	for (uint32 i = 0; i <= set->mask; i++)
	{
		KeptGroup	   *group = set->table[i];

		if (group == NULL || group->count == 0)
			continue;
		prune_group(set, group);
		total += group->count;
	}
	ids = MemoryContextAllocHuge(CurrentMemoryContext, Max(total, 1) * sizeof(uint64));
	for (uint32 i = 0; i <= set->mask; i++)
	{
		KeptGroup	   *group = set->table[i];

		if (group == NULL)
			continue;
		for (int64 j = 0; j < group->count; j++)
			ids[n++] = group->rows[j].id & ~KEY_NULL_FLAG;
	}
	*row_ids = ids;
	return n;
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

	for (uint32 i = 0; i <= set->mask; i++)
	{
		KeptGroup	   *group = set->table[i];

		if (group == NULL || group->count == 0)
			continue;
		prune_group(set, group);
		bytes += sizeof(int64) + group->count * sizeof(Candidate);
		if (keys->bits_map != NULL)
			bytes += 1 + sizeof(uint64);
		else
			for (int k = 0; k < keys->nkeys; k++)
				bytes += datumEstimateSpace(group->values[k], group->nulls[k], keys->byval[k],
											keys->typlen[k]);
	}
	data = p = MemoryContextAllocHuge(CurrentMemoryContext, Max(bytes, 1));
	for (uint32 i = 0; i <= set->mask; i++)
	{
		KeptGroup	   *group = set->table[i];

		if (group == NULL || group->count == 0)
			continue;
		memcpy(p, &group->count, sizeof(int64));
		p += sizeof(int64);
		if (keys->bits_map != NULL)
		{
			*p++ = group->bits_null ? 1 : 0;
			memcpy(p, &group->bits, sizeof(uint64));
			p += sizeof(uint64);
		}
		else
			for (int k = 0; k < keys->nkeys; k++)
				datumSerialize(group->values[k], group->nulls[k], keys->byval[k],
							   keys->typlen[k], &p);
		memcpy(p, group->rows, group->count * sizeof(Candidate));
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
		KeptGroup	   *group;

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
