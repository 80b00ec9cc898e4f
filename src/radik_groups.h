/*
 * radik_groups.h
 *	  The best rows of each group: a hash table of groups, each keeping its candidate rows at or
 *	  below a threshold of its own (radik_group_set.c, radik_groups_merge.c).
 *
 * "The top k rows per group" (a ranking window function's run condition, DISTINCT ON) needs each
 * group's first rows in the sort order, not the table's.  The scan offers every qualifying row
 * with its group key and its first sort key (an engine key, radik_datum_keys.h); a group keeps
 * the rows whose key is at or below its threshold, the k-th smallest key it holds (counting
 * equal keys, for row_number() and rank(); the k-th smallest distinct key, for dense_rank()), so
 * that once a group has k rows nearly every later row of it is dropped after one hash lookup and
 * one comparison.  Rows equal to the threshold are kept: the rows a group keeps are then always
 * a prefix of the group in the full sort order, whatever the later sort keys, and a ranking
 * function computed over them gives each of them the value it has over the whole table.
 */
#ifndef RADIK_GROUPS_H
#define RADIK_GROUPS_H

#include "postgres.h"

#include "executor/executor.h"
#include "fmgr.h"
#include "port/atomics.h"

#include "radik_carry.h"
#include "radik_datum_keys.h"
#include "radik_heap.h"

/* A group key column / divisor or column % divisor over integer types (divisor 0: neither). */
typedef struct RadikGroupArith
{
	int64		divisor;		/* never -1 */
	bool		remainder;		/* column % divisor, else column / divisor */
	Oid			column_type;	/* int2, int4 or int8 */
} RadikGroupArith;

/*
 * How a row's group key is made and compared: nkeys values, each a plain column of the table
 * (attnum > 0, read straight from the tuple), such a column divided by an integer constant or
 * its remainder (attnum > 0 and arith), or an expression (evaluated in econtext with the row in
 * slot), equal as their equality operators say with their collations.
 */
typedef struct RadikGroupKeys
{
	int			nkeys;
	AttrNumber *attnums;
	RadikColumnReader *columns; /* for the columns */
	RadikGroupArith *arith;		/* for the columns divided */
	ExprState **exprs;			/* for the others */
	Oid		   *types;
	Oid		   *collations;
	FmgrInfo   *hash_functions; /* compatible with the equality operators */
	FmgrInfo   *equal_functions;
	bool	   *byval;
	int16	   *typlen;
	ExprContext *econtext;		/* for the expressions */
	TupleTableSlot *slot;
	/* One key of a type whose engine key is the same exactly for equal values: its bits. */
	RadikKeyMap bits_map;		/* NULL: hashed and compared the general way */
} RadikGroupKeys;

/* Which rows of a group come before its cut. */
typedef enum RadikGroupCut
{
	RADIK_GROUP_CUT_ROWS,		/* the first k rows, and the rows tied with the k-th */
	RADIK_GROUP_CUT_EXACT_ROWS, /* the first k rows: rows tied with the k-th are not kept */
	RADIK_GROUP_CUT_DISTINCT	/* the rows of the first k distinct keys */
} RadikGroupCut;

typedef struct RadikGroupSet RadikGroupSet;

/*
 * What a grouped selection keeps: per group of equal values of exprs (plan expressions over the
 * table's columns, equal by equality_operators with collations), the rows before the cut at k.
 */
typedef struct RadikGroupSpec
{
	List	   *exprs;
	Oid		   *equality_operators;
	Oid		   *collations;
	int64		k;
	RadikGroupCut cut;
	/*
	 * Ask for the rows in the order of the one group key (descending or not, NULL first or
	 * not), then of the selecting key: radik_groups_sorted_rows, where the set can.
	 */
	bool		order_rows;
	bool		order_descending;
	bool		order_nulls_first;
	bool		order_row_keys; /* ... and their keys (radik_select.h's result->row_keys) */
	bool		count_ties;		/* radik_groups_count_ties, with the selecting key */
} RadikGroupSpec;

/*
 * Whether values of type can be grouped by equality_operator: it must have a hash function
 * (the group key of a hashable SortGroupClause).
 */
extern bool radik_group_key_hashable(Oid equality_operator);

/*
 * Does sort_operator order values of type as a key grouped by its bits is ordered (an exact key
 * type in its default btree order, ascending or descending)?
 */
extern bool radik_group_order_by_bits(Oid type, Oid sort_operator);

/*
 * Can a grouped selection return its rows in the order of its sort keys, with their keys
 * (radik_groups_sorted_rows), sparing the caller its sort?  Where it groups by one key, of
 * group_type, sorted first (the first of nsort_keys, of first_type, by first_sort_operator), and
 * selects by the second and last sort key (selecting, of selecting_type) of an exact type.
 */
extern bool radik_groups_sorted_by_keys(int ngroup_keys, Oid group_type, int nsort_keys,
										int selecting, Oid first_type, Oid first_sort_operator,
										Oid selecting_type);

/*
 * Fill keys for grouping rel's rows by exprs (plan expressions over rel's columns, one per key),
 * equal by equality_operators with collations; expressions are compiled for parent (may be NULL).
 */
extern void radik_group_keys_init(RadikGroupKeys *keys, Relation rel, List *exprs,
								  const Oid *equality_operators, const Oid *collations,
								  PlanState *parent);

/* Release what radik_group_keys_init made for the expressions. */
extern void radik_group_keys_end(RadikGroupKeys *keys);

/*
 * An empty set of groups that keeps, per group, the rows before the cut at k (see the file
 * header), ordering NULL keys first or last; everything lives in a child of context.
 */
extern RadikGroupSet *radik_groups_create(const RadikGroupKeys *keys, int64 k, RadikGroupCut cut,
										  bool nulls_first, MemoryContext context);

/* Release the set and everything in it. */
extern void radik_groups_free(RadikGroupSet *set);

/*
 * Count a group's rows of one key instead of keeping each, where the caller makes the rows it
 * returns from their keys alone (radik_key_rows.h) and the keys tell the values exactly: a row
 * tied at the cut is counted on arrival, and at each cut the rows of a key become one count.
 * rank() over a key of few values keeps a tenth of a table as ties, which then cost a counter,
 * not a row id each to keep, send to the backend, merge and list.  key_type and descending are
 * the selecting key's, whose engine keys are offered.  For a set grouped by bits, whose rows
 * come out of radik_groups_sorted_rows with their keys, the rows counted as one entry (see
 * RadikGroupRowKeys); no rows are carried for them.
 */
extern void radik_groups_count_ties(RadikGroupSet *set, Oid key_type, bool descending);

/*
 * Offer one row with its group key's values: its first sort key (an engine key, ignored when
 * key_null) and its row id (what radik_groups_rows gives back; bits 62 and 63 clear).
 */
extern void radik_groups_offer(RadikGroupSet *set, const Datum *group_values,
							   const bool *group_nulls, uint64 key, bool key_null, uint64 row_id);

/* The same for a heap tuple, whose group key is made here. */
extern void radik_groups_offer_tuple(RadikGroupSet *set, HeapTuple tuple, uint64 key,
									 bool key_null, uint64 row_id);

/*
 * The same for n heap tuples (a page's rows), whose keys are not NULL, handled together: faster
 * where groups are many.
 */
extern void radik_groups_offer_tuples(RadikGroupSet *set, HeapTupleData *tuples,
									  const uint64 *keys, const uint64 *row_ids, int n);

/*
 * Copy the rows the groups keep while their pages are read, within limit bytes, where the
 * caller returns whole rows: radik_groups_rows, radik_groups_sorted_rows and the export then
 * give the copies as carried rows (radik_groups_carried_row), and the rows not copied by their
 * TIDs.  A set grouped by bits only, not counting ties; call it before the first offer.
 */
extern void radik_groups_copy_while_reading(RadikGroupSet *set, Size limit);

/*
 * Whether the set holds no more than limit bytes, giving up the copies of its rows first
 * (radik_groups_copy_while_reading) where they take it past.
 */
extern bool radik_groups_within_memory(RadikGroupSet *set, Size limit);

/*
 * The groups seen so far (with the imported groups, once radik_groups_rows or
 * radik_groups_sorted_rows has merged them), and the bytes the set holds.
 */
extern int64 radik_groups_count(const RadikGroupSet *set);
extern Size radik_groups_memory(const RadikGroupSet *set);

/*
 * The rows every group keeps after the last offer, cut exactly at each group's threshold, in no
 * particular order: their row ids, palloc'd in the current memory context; returns how many.
 */
extern int64 radik_groups_rows(RadikGroupSet *set, uint64 **row_ids);

/*
 * A row id radik_groups_rows or radik_groups_sorted_rows returned: the copy of the row an export
 * (radik_groups_export) or the set itself (radik_groups_copy_while_reading,
 * radik_groups_carry_own_rows) carried, or NULL for a packed TID (radik_pack_tid).  The copies
 * live in the set's memory, or in the context radik_groups_keep_carried_rows moved them to.
 */
static inline RadikCarriedRow *
radik_groups_carried_row(uint64 row_id)
{
	if (!radik_id_is_carried(row_id))
		return NULL;
	return (RadikCarriedRow *) (uintptr_t) (row_id & ~RADIK_CARRIED_ID_FLAG);
}

/* Move the rows the set's imports (and own groups) carried under context, to outlive the set. */
extern void radik_groups_keep_carried_rows(RadikGroupSet *set, MemoryContext context);

/* A row's keys, for the caller that makes rows from them (radik_key_rows.h). */
#define RADIK_ROW_KEY_NULL 1	/* the sort key is NULL */
#define RADIK_ROW_GROUP_NULL 2	/* the row is of the group of NULL keys */
#define RADIK_ROW_GROUP_START 4 /* the row is the first of its group */

/*
 * The keys of rows radik_groups_sorted_rows returns, parallel to their ids: each row's sort key
 * (an engine key) and its flags above; and the bits of each group's key (radik_key_map's,
 * ascending), one entry a group in the order of the rows, a group's rows lying together: five
 * million rows of a thousand groups write a thousand entries, not five million.  A row's group is
 * counted from the row asked about last (radik_group_row_bits).
 */
typedef struct RadikGroupRowKeys
{
	uint64	   *keys;
	uint8	   *flags;
	uint64	   *group_bits;		/* a group's entry, not a row's */
	int64		cursor_row;		/* the row asked about last, and its group's entry */
	int64		cursor_group;
	/*
	 * Where the set counted rows (radik_groups_count_ties), an entry may stand for several rows,
	 * equal in their keys, with row id 0: how many (NULL: one each), and the rows in all.
	 */
	int64	   *repeats;
	int64		rows;
} RadikGroupRowKeys;

/* The bits of the group key of row (of keys' rows, which are not none). */
static inline uint64
radik_group_row_bits(RadikGroupRowKeys *keys, int64 row)
{
	while (keys->cursor_row < row)
	{
		keys->cursor_row++;
		keys->cursor_group += (keys->flags[keys->cursor_row] & RADIK_ROW_GROUP_START) != 0;
	}
	while (keys->cursor_row > row)
	{
		keys->cursor_group -= (keys->flags[keys->cursor_row] & RADIK_ROW_GROUP_START) != 0;
		keys->cursor_row--;
	}
	return keys->group_bits[keys->cursor_group];
}

/*
 * The same rows in order where the set groups by bits (one key, radik_group_order_by_bits):
 * the groups in the order of their key, ascending or descending, the group of NULL keys first
 * or last, and each group's rows in the order of the sort key (ties in no particular order);
 * *nrows of them, and with row_keys not NULL their keys, palloc'd there (a set counting its ties
 * needs them: *nrows entries, some of them runs of rows).  False, with nothing made, where the
 * set groups the general way.
 */
extern bool radik_groups_sorted_rows(RadikGroupSet *set, bool descending, bool nulls_first,
									 int64 *nrows, uint64 **row_ids,
									 RadikGroupRowKeys *row_keys);

/*
 * Where a set grouped by bits is exported with copies of its rows: the table and snapshot to
 * fetch them with, the most bytes the export may take with them, and a flag that, once set,
 * stops the copying (NULL: none).
 */
typedef struct RadikGroupRowsSource
{
	Relation	rel;
	Snapshot	snapshot;
	Size		limit;
	pg_atomic_uint32 *stop;
} RadikGroupRowsSource;

/*
 * The rows every group keeps, with their group keys, written for another process's set
 * (radik_groups_import): a palloc'd buffer of *size bytes.  The set is cut as by
 * radik_groups_rows; a set grouped by bits writes its groups in the order of their keys, and
 * with rows not NULL copies of as many of its rows as fit in rows->limit, which the importing
 * set returns as carried rows.  Not for a set that has imported groups.
 */
extern char *radik_groups_export(RadikGroupSet *set, const RadikGroupRowsSource *rows,
								 Size *size);

/*
 * The bytes copies of a set's rows may take: what work_mem x hash_mem_multiplier leaves beside
 * the set's own groups (not the exports it imported), at most MaxAllocSize (one allocation, one
 * message), so that a process holds no more than its groups could have taken.
 */
extern Size radik_groups_room_for_copies(const RadikGroupSet *set);

/*
 * Carry the rows the set's own groups keep and did not copy while reading (a set grouped by
 * bits, after its last offer), as an export carries them: within rows->limit bytes, stopping
 * once rows->stop is set.  For the backend running the query with workers, once it has read its
 * blocks; the copies are returned as the exports' are.
 */
extern void radik_groups_carry_own_rows(RadikGroupSet *set, const RadikGroupRowsSource *rows);

/*
 * Where an export to import is received: memory of the set's, which radik_groups_memory counts
 * as soon as it is allocated.
 */
extern MemoryContext radik_groups_import_context(RadikGroupSet *set);

/*
 * Add an exported buffer's groups, the set taking data (size bytes allocated in
 * radik_groups_import_context): where the set groups the general way, every row is offered and
 * the buffer freed; where it groups by bits, the buffer is kept as it is, and radik_groups_rows
 * or radik_groups_sorted_rows merges it with the set's own groups.
 */
extern void radik_groups_import(RadikGroupSet *set, char *data, Size size);

#endif							/* RADIK_GROUPS_H */
