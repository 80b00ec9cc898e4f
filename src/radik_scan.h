/*
 * radik_scan.h
 *	  What the planner (radik_planner.c) hands the executor (radik_scan.c) in a RadiK Top-K
 *	  CustomScan plan node.
 *
 * A plan node must survive copyObject and the plan cache, so everything travels in the node's
 * own lists: expressions in custom_exprs (so that setrefs.c adjusts their Vars and Params like
 * any scan's), and plain numbers in custom_private as OID and integer lists.
 *
 * custom_exprs: the LIMIT count (a NULL constant when there is none; for a grouped node, the rows
 * each group keeps), the OFFSET (0 when there is none), then one expression per sort key, then
 * a grouped node's group keys, over the scanned table's columns.
 * custom_private: five lists with one entry per sort key: the key's type (OID list), its btree
 * sort operator (OID list), descending (integer list, 0 or 1), NULLs first (integer list), its
 * collation (OID list); then a list of two integers: the parallel workers planned to extract keys
 * (0: none), and whether the query asks for FETCH FIRST ... WITH TIES (1) or not (0); then, for
 * a grouped node (the best rows of each group: radik_group_paths.c), a list of the group keys'
 * equality operators (OID list), their collations (OID list), and four integers: the sort key
 * each group keeps its best of, whether the count is exclusive (the query said "< k"), the cut
 * (RadikGroupCut), and whether the node returns only each group's first row (DISTINCT ON: 1);
 * for such a node, the columns of its target list that hold the DISTINCT ON expressions
 * (integer list), their equality operators and their collations (OID lists); NIL for the plain
 * selection.
 * The node's quals are the table's WHERE clauses; scanrelid is the table.
 *
 * Also, what a grouped node tells the numbering node above it (radik_scan_knows_boundaries).
 */
#ifndef RADIK_SCAN_H
#define RADIK_SCAN_H

#include "postgres.h"

#include "nodes/extensible.h"

#define RADIK_SCAN_NAME "RadiK Top-K"

/* Positions in custom_exprs. */
#define RADIK_EXPR_LIMIT_COUNT	0
#define RADIK_EXPR_LIMIT_OFFSET	1
#define RADIK_EXPR_FIRST_KEY	2

/* Positions in custom_private. */
#define RADIK_PRIVATE_KEY_TYPES			0
#define RADIK_PRIVATE_SORT_OPERATORS	1
#define RADIK_PRIVATE_DESCENDING		2
#define RADIK_PRIVATE_NULLS_FIRST		3
#define RADIK_PRIVATE_COLLATIONS		4
#define RADIK_PRIVATE_OPTIONS			5
#define RADIK_PRIVATE_GROUPS			6

/* Positions in the custom_private list at RADIK_PRIVATE_OPTIONS. */
#define RADIK_OPTION_WORKERS	0
#define RADIK_OPTION_WITH_TIES	1

/* Positions in the list of integers in the list at RADIK_PRIVATE_GROUPS. */
#define RADIK_GROUP_SELECTING_KEY	0
#define RADIK_GROUP_K_EXCLUSIVE		1
#define RADIK_GROUP_CUT				2
#define RADIK_GROUP_FIRST_OF_GROUP	3

extern const CustomScanMethods radik_scan_methods;

/*
 * For the numbering node above a grouped node (radik_rank.c), which compares each row with the
 * one before on the partition and order keys: will node, a grouped node, tell row by row where
 * a row begins a new group and a new run of equal sort keys, for the columns of its rows
 * group_column and order_column (1-based)?  Where those columns are its group key and its sort
 * key and its rows are made from their keys (radik_scan_groups.c).
 */
extern bool radik_scan_knows_boundaries(PlanState *node, AttrNumber group_column,
										AttrNumber order_column);

/*
 * Where it knows (true), whether the row node returned last begins a new group or a new run of
 * equal sort keys after the row it returned before.  Not where either row's keys stand for
 * several values, or the rows were not returned one after the other going forward.
 */
extern bool radik_scan_row_boundaries(PlanState *node, bool *new_group, bool *new_peers);

/* What radik_scan_next_key_values gave. */
typedef enum RadikKeyValues
{
	RADIK_KEY_VALUES_NONE,		/* nothing: take the next row from ExecProcNode */
	RADIK_KEY_VALUES_END,		/* no more rows */
	RADIK_KEY_VALUES_ROW,		/* the next row's values, and where it begins a group or peers */
	RADIK_KEY_VALUES_ROW_ALONE,	/* its values, but not that: compare it with the row before */
	RADIK_KEY_VALUES_SAME_ROW	/* the next row, equal to the row before in every column (of the
								 * same group and its peer): the caller's values stay */
} RadikKeyValues;

/*
 * For the numbering node, once node (a grouped node that knows the boundaries) has returned its
 * first row through ExecProcNode: its next row's values, in values and nulls (one per column of
 * its rows), made from the row's keys without a slot, with the boundaries as
 * radik_scan_row_boundaries tells them.  Where values_kept says that values and nulls still hold
 * the row before's, and the next row has the same keys (rank() over heavy ties returns runs of
 * such rows), only that it is the same row (RADIK_KEY_VALUES_SAME_ROW), the values left as they
 * are.  Where the row's keys do not tell its values, or the node does not return rows made from
 * keys now, nothing: the caller takes that row from ExecProcNode, which goes on from the same
 * place.
 */
extern RadikKeyValues radik_scan_next_key_values(PlanState *node, Datum *values, bool *nulls,
												 bool values_kept, bool *new_group,
												 bool *new_peers);

/* Rows fetched per batch by TID, for a table of these pages and tuples (under work_mem). */
extern double radik_fetch_batch_rows(double pages, double tuples);

/* Rows whose copies the scan's row store holds under work_mem (radik_carry.h), likewise. */
extern double radik_carry_capacity_rows(double pages, double tuples);

#endif							/* RADIK_SCAN_H */
