/*
 * radik_group_set.c
 *	  The best rows of each group (radik_groups.h): an open-addressing hash table of groups, each
 *	  keeping its candidate rows at or below a threshold of its own.
 *
 * A group sorts the rows offered to it and cuts them after the rows tied with the k-th (after the
 * k-th row itself where ties are not kept, after the k-th distinct key for dense_rank()) when it
 * first holds k rows, and again each time it holds twice what it kept, taking the last key kept
 * as its threshold: a later row beyond it (or at it, where ties are not kept) is dropped on
 * arrival.  So a group costs about one sort of 2k keys per k rows it keeps, and the rows it drops
 * one comparison each; heavy ties at the threshold make a group grow, the next cut waiting until
 * it has doubled again.  A group not added to since its last cut, or holding k rows or fewer, needs
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
 * most of the wait for memory when the groups are scattered.  The final pass reads the records
 * in order; groups of a key grouped by bits can also come out in the order of their keys, and
 * the export writes the groups for another process (radik_groups_merge.c).
 *
 * Groups are found by their key's hash.  One key of a type whose engine key is equal exactly for
 * equal values (integers, dates, times, floats with -0 and NaN folded) is grouped by those bits
 * alone; other keys by their type's hash and equality functions with their collation, the key
 * values copied into the set (into blocks shared by many groups) when a group is first seen.
 * NULL group keys form a group of their own, as in PostgreSQL's grouping.  Everything lives in
 * the set's memory context, which radik_groups_memory measures.
 *
 * A group key that is an integer column divided by a constant, or its remainder (the bucket of
 * an id or of an epoch), is computed from the column's value in C: through the executor it
 * costs a slot, an expression context reset and a function call per row, a sixth of the time of
 * a grouped read of a million groups.
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
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "radik_compat.h"
#include "radik_group_set.h"

/* A group cuts its rows when it first holds k, then once it holds this many times what it kept. */
#define PRUNE_FACTOR 2

/* The most rows a group holds in its own record (16 bytes each). */
#define MAX_INLINE_ROWS 8

/* The bytes of a block of copied group key values. */
#define KEY_BLOCK_BYTES (64 * 1024)

/*
 * A hash table of at most this many slots (1 MB) stays in the CPU's caches: it is kept at most a
 * quarter full, so that nearly every lookup finds its key in the first slot it reads (a second
 * read is a branch mispredicted), and a page's rows are looked up without asking for the memory
 * ahead.  A larger table is kept at most half full.
 */
#define CACHED_TABLE_SLOTS (64 * 1024)

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

bool
radik_groups_sorted_by_keys(int ngroup_keys, Oid group_type, int nsort_keys, int selecting,
							Oid first_type, Oid first_sort_operator, Oid selecting_type)
{
	return ngroup_keys == 1 && selecting == 1 && nsort_keys == 2 && group_type == first_type &&
		radik_group_order_by_bits(first_type, first_sort_operator) &&
		radik_key_type_exact(selecting_type);
}

/* An integer type's value as an int64. */
static int64
integer_value(Datum value, Oid type)
{
	switch (type)
	{
		case INT2OID:
			return DatumGetInt16(value);
		case INT4OID:
			return DatumGetInt32(value);
		default:
			return DatumGetInt64(value);
	}
}

static Datum
integer_datum(int64 value, Oid type)
{
	switch (type)
	{
		case INT2OID:
			return Int16GetDatum((int16) value);
		case INT4OID:
			return Int32GetDatum((int32) value);
		default:
			return Int64GetDatum(value);
	}
}

static bool
is_integer_type(Oid type)
{
	return type == INT2OID || type == INT4OID || type == INT8OID;
}

/*
 * Is expr a column of the table divided by an integer constant, or its remainder, over integer
 * types?  Then *arith says how to compute it, and *attnum names the column.  A divisor of 0 or
 * -1 is left to the executor: its errors (division by zero, out of range) are PostgreSQL's.
 * Integer division and remainder in C truncate toward zero as PostgreSQL's do, and with any
 * other divisor the result fits the wider type.
 */
static bool
group_key_arith(Expr *expr, RadikGroupArith *arith, AttrNumber *attnum)
{
	OpExpr	   *op = (OpExpr *) expr;
	Var		   *var;
	Const	   *divisor;
	bool		remainder;
	int64		value;

	if (!IsA(expr, OpExpr) || list_length(op->args) != 2)
		return false;
	var = linitial(op->args);
	divisor = lsecond(op->args);
	if (!IsA(var, Var) || var->varattno <= 0 || var->varlevelsup != 0 ||
		!IsA(divisor, Const) || divisor->constisnull ||
		!is_integer_type(var->vartype) || !is_integer_type(divisor->consttype) ||
		!is_integer_type(op->opresulttype))
		return false;
	switch (op->opfuncid)
	{
		case F_INT2DIV:
		case F_INT4DIV:
		case F_INT8DIV:
		case F_INT24DIV:
		case F_INT42DIV:
		case F_INT28DIV:
		case F_INT82DIV:
		case F_INT48DIV:
		case F_INT84DIV:
			remainder = false;
			break;
		case F_INT2MOD:
		case F_INT4MOD:
		case F_INT8MOD:
			remainder = true;
			break;
		default:
			return false;
	}
	value = integer_value(divisor->constvalue, divisor->consttype);
	if (value == 0 || value == -1)
		return false;
	arith->divisor = value;
	arith->remainder = remainder;
	arith->column_type = var->vartype;
	*attnum = var->varattno;
	return true;
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
	keys->arith = palloc0(nkeys * sizeof(RadikGroupArith));
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
		if (group_key_arith(expr, &keys->arith[i], &keys->attnums[i]))
		{
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
	set->merged_groups = -1;
	return set;
}

void
radik_groups_free(RadikGroupSet *set)
{
	MemoryContextDelete(set->context);
}

void
radik_groups_count_ties(RadikGroupSet *set, Oid key_type, bool descending)
{
	if (set->keys->bits_map == NULL || set->cut == RADIK_GROUP_CUT_EXACT_ROWS ||
		!radik_key_type_exact(key_type))
		return;
	set->count_ties = true;
	set->tie_key_type = key_type;
	set->tie_key_descending = descending;
}

/* radik_groups_sort(rows, n, set): a group's rows in their order */
#define ST_SORT radik_groups_sort
#define ST_ELEMENT_TYPE Candidate
#define ST_COMPARE_ARG_TYPE const RadikGroupSet
#define ST_COMPARE(a, b, set) compare_candidates(a, b, set)
#define ST_SCOPE extern
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

/* Does the table need more slots for its groups (see CACHED_TABLE_SLOTS)? */
static inline bool
table_crowded(const RadikGroupSet *set)
{
	int			fill = set->mask < CACHED_TABLE_SLOTS ? 4 : 2;

	return set->ngroups * fill > (int64) set->mask;
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
	if (table_crowded(set))
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
	if (table_crowded(set))
		grow_table(set);
	return group;
}

int64
radik_groups_cut(const RadikGroupSet *set, const Candidate *rows, int64 n, bool *full)
{
	int64		keep = n;

	*full = false;
	if (set->cut == RADIK_GROUP_CUT_EXACT_ROWS)
	{
		*full = n >= set->k;
		return Min(n, set->k);
	}
	if (set->cut == RADIK_GROUP_CUT_ROWS && set->count_ties)
	{
		int64		seen = 0;

		/* the candidate that holds the k-th row */
		for (int64 i = 0; i < n && !*full; i++)
		{
			seen += candidate_rows(&rows[i]);
			keep = i + 1;
			*full = seen >= set->k;
		}
		if (!*full)
			keep = n;
	}
	else if (set->cut == RADIK_GROUP_CUT_ROWS && n >= set->k)
	{
		keep = set->k;
		*full = true;
	}
	else if (set->cut == RADIK_GROUP_CUT_DISTINCT)
	{
		int64		distinct = 0;

		for (int64 i = 0; i < n; i++)
		{
			if (i == 0 || compare_candidates(&rows[i - 1], &rows[i], set) != 0)
				distinct++;
			if (distinct == set->k)
			{
				keep = i + 1;
				*full = true;
				break;
			}
		}
	}
	/* the rows tied with the last one kept are kept too */
	while (*full && keep < n && compare_candidates(&rows[keep - 1], &rows[keep], set) == 0)
		keep++;
	return keep;
}

/*
 * Do the keys of a group's rows of key tell their values exactly (radik_groups_count_ties)?  Not
 * where one stands for several values (a float zero, which may be -0, and NaN).
 */
static bool
tie_keys_exact(const RadikGroupSet *set, const KeptGroup *group, uint64 key)
{
	bool		exact = true;

	if (!group->bits_null)
		(void) radik_datum_from_key(set->keys->types[0], false, group->key.bits, &exact);
	if (exact)
		(void) radik_datum_from_key(set->tie_key_type, set->tie_key_descending, key, &exact);
	return exact;
}

/*
 * Make a group's n sorted candidates of each key one run, where its rows' keys tell their values
 * (tie_keys_exact), so that a group holds a candidate a key after each cut, whatever its ties;
 * returns how many candidates are left, still sorted.
 */
static int64
merge_runs(const RadikGroupSet *set, const KeptGroup *group, Candidate *rows, int64 n)
{
	int64		out = 0;
	int64		run = -1;		/* the run of the key of rows[out - 1], or -1 */

	for (int64 i = 0; i < n; i++)
	{
		if (out == 0 || compare_candidates(&rows[out - 1], &rows[i], set) != 0)
		{
			/* a new key: counted where its keys tell its rows' values */
			run = -1;
			if ((rows[i].id & KEY_NULL_FLAG) == 0 && tie_keys_exact(set, group, rows[i].key))
				run = out;
		}
		else if (run >= 0)
		{
			rows[run].id += candidate_rows(&rows[i]);
			continue;
		}
		rows[out] = rows[i];
		if (run == out && !candidate_is_run(&rows[out]))
			rows[out].id = RUN_FLAG | 1;
		out++;
	}
	return out;
}

/*
 * Cut the group's rows (radik_groups_cut), leaving them sorted, and take the last key kept as the
 * threshold when the group has its k rows (or k distinct keys).  A group that has them keeps
 * them, rows being only added: its threshold only comes down.
 */
static void
prune_group(RadikGroupSet *set, KeptGroup *group)
{
	Candidate  *rows = group_rows(group);
	int64		keep;
	bool		full;

	radik_groups_sort(rows, group->count, set);
	keep = radik_groups_cut(set, rows, group->count, &full);
	if (full)
	{
		group->full = true;
		group->threshold_class = candidate_class(set, &rows[keep - 1]);
		group->threshold = rows[keep - 1].key;
	}
	if (set->count_ties)
		keep = merge_runs(set, group, rows, keep);
	set->held -= group->count - keep;
	group->count = keep;
	group->cut_count = keep;
	group->prune_at = times_prune_factor(Max(set->k, keep));
}

/*
 * Cut a group whose rows may not be cut yet: rows added since its last cut, and more than k of
 * them (k rows or fewer hold no more than k distinct keys, and are all kept; not k candidates,
 * where runs count several rows).
 */
void
radik_groups_finish(RadikGroupSet *set, KeptGroup *group)
{
	if (group->count > group->cut_count && (group->count > set->k || set->count_ties))
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

/*
 * A row tied at a full group's cut, in a set counting its ties: counted into the group's last
 * candidate where that is the run of its key (true); else *id becomes a new run's, where the
 * row's keys tell its values.
 */
static pg_noinline bool
count_tie(RadikGroupSet *set, KeptGroup *group, uint64 key, uint64 *id)
{
	Candidate  *last = &group_rows(group)[group->count - 1];

	if (candidate_is_run(last) && last->key == key)
	{
		last->id++;
		return true;
	}
	if (tie_keys_exact(set, group, key))
		*id = RUN_FLAG | 1;
	return false;
}

/* Offer a row to its group: kept (true) unless beyond the group's cut. */
static pg_attribute_always_inline bool
add_row(RadikGroupSet *set, KeptGroup *group, uint64 key, bool key_null, uint64 row_id)
{
	uint8		class = order_class(set, key_null);
	uint64		id = row_id | (key_null ? KEY_NULL_FLAG : 0);
	Candidate  *row;

	if (key_null)
		key = 0;
	if (group->full)
	{
		int			order = compare_order(class, key, group->threshold_class, group->threshold);

		if (order >= (set->cut == RADIK_GROUP_CUT_EXACT_ROWS ? 0 : 1))
			return false;		/* beyond the group's cut, or at it where ties are not kept */
		if (order == 0 && set->count_ties && !key_null && count_tie(set, group, key, &id))
			return false;
	}
	if (group->rows == NULL ? group->count == set->inline_capacity :
		group->count == group->capacity)
		grow_rows(set, group);
	row = &group_rows(group)[group->count++];
	row->key = key;
	row->id = id;
	set->held++;
	if (group->count >= group->prune_at)
		prune_group(set, group);
	return true;
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
	(void) add_row(set, group, key, key_null, row_id);
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
		{
			const RadikGroupArith *arith = &keys->arith[i];

			values[i] = radik_read_column(&keys->columns[i], tuple, &nulls[i]);
			if (arith->divisor != 0 && !nulls[i])
			{
				int64		value = integer_value(values[i], arith->column_type);

				value = arith->remainder ? value % arith->divisor : value / arith->divisor;
				values[i] = integer_datum(value, keys->types[i]);
			}
		}
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
 * Keys grouped by bits are found in three rounds over the page's rows where the hash table is
 * larger than the caches, so that the memory the rows need is asked for ahead instead of waited
 * for row after row (with groups scattered over the table, nearly every row's slot and record are
 * out of the caches): the keys' bits with their slots asked for, then the groups found with their
 * records asked for, then the rows.  A table in the caches needs none of that: each row is found
 * and offered in one round.  Where the set copies the rows it keeps, the rows kept are copied
 * once the page's rows are offered (radik_groups_copy_page_rows).
 */
void
radik_groups_offer_tuples(RadikGroupSet *set, HeapTupleData *tuples, const uint64 *keys,
						  const uint64 *row_ids, int n)
{
	const RadikGroupKeys *group_keys = set->keys;
	uint64		bits[MaxHeapTuplesPerPage];
	bool		nulls[MaxHeapTuplesPerPage];
	KeptGroup  *groups[MaxHeapTuplesPerPage];
	int			kept[MaxHeapTuplesPerPage];
	int			nkept = 0;

	if (group_keys->bits_map == NULL || n > MaxHeapTuplesPerPage)
	{
		for (int i = 0; i < n; i++)
			radik_groups_offer_tuple(set, &tuples[i], keys[i], false, row_ids[i]);
		return;
	}
	if (set->mask < CACHED_TABLE_SLOTS)
	{
		for (int i = 0; i < n; i++)
		{
			Datum		value;
			bool		isnull;

			tuple_group_key(group_keys, &tuples[i], &value, &isnull);
			groups[i] = find_group_by_bits(set, isnull ? 0 : group_keys->bits_map(value),
										   isnull);
			if (add_row(set, groups[i], keys[i], false, row_ids[i]))
				kept[nkept++] = i;
		}
	}
	else
	{
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
		{
			if (add_row(set, groups[i], keys[i], false, row_ids[i]))
				kept[nkept++] = i;
		}
	}
	if (set->copies_context != NULL && nkept > 0)
		radik_groups_copy_page_rows(set, tuples, row_ids, groups, kept, nkept);
}

int64
radik_groups_count(const RadikGroupSet *set)
{
	if (set->merged_groups >= 0)
		return set->merged_groups;
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
	uint64	   *ids;
	int64		n = 0;

	/* the groups other sets sent are merged in the order of their keys */
	if (set->nimported > 0)
	{
		(void) radik_groups_sorted_rows(set, false, false, &n, row_ids, NULL);
		return n;
	}
	/* the rows held now are at least the rows kept after the last cuts */
	ids = MemoryContextAllocHuge(CurrentMemoryContext, Max(set->held, 1) * sizeof(uint64));
	for (int64 g = 0; g < set->ngroups; g++)
	{
		KeptGroup  *group = group_at(set, g);
		const Candidate *rows;

		radik_groups_finish(set, group);
		rows = group_rows(group);
		for (int64 j = 0; j < group->count; j++)
		{
			Assert(!candidate_is_run(&rows[j]));	/* counted rows come out sorted */
			ids[n++] = rows[j].id & ~KEY_NULL_FLAG;
		}
	}
	*row_ids = ids;
	return n;
}

void
radik_groups_import_values(RadikGroupSet *set, const char *data, Size size)
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
		for (int k = 0; k < keys->nkeys; k++)
			values[k] = datumRestore(&p, &nulls[k]);
		group = find_group_by_values(set, values, nulls);
		for (int64 r = 0; r < count; r++)
		{
			Candidate	row;

			memcpy(&row, p, sizeof(Candidate));
			p += sizeof(Candidate);
			add_row(set, group, row.key, (row.id & KEY_NULL_FLAG) != 0, row.id & ~KEY_NULL_FLAG);
		}
	}
}
