/*
 * radik_key_rows.h
 *	  A grouped node's rows made from their keys (radik_key_rows.c), where its target list reads
 *	  nothing of a row but its group key and its sort key.
 */
#ifndef RADIK_KEY_ROWS_H
#define RADIK_KEY_ROWS_H

#include "postgres.h"

#include "nodes/execnodes.h"
#include "nodes/pg_list.h"

/* Where a target list entry's value comes from. */
typedef enum RadikKeyColumn
{
	RADIK_KEY_COLUMN_CONST,		/* a constant of the plan */
	RADIK_KEY_COLUMN_GROUP,		/* the row's group key */
	RADIK_KEY_COLUMN_ORDER		/* the row's sort key */
} RadikKeyColumn;

typedef struct RadikKeyRows
{
	int			ncolumns;
	RadikKeyColumn *columns;	/* one per target list entry */
	Datum	   *const_values;	/* the constants' values, by entry */
	bool	   *const_nulls;
	bool		reads_group;	/* does an entry read the group key ... */
	bool		reads_order;	/* ... or the sort key? */
	Oid			group_type;
	Oid			order_type;
	bool		order_descending;	/* the sort key's engine key is descending */
	TupleTableSlot *slot;		/* virtual, of the target list's row type */
} RadikKeyRows;

/*
 * Is every one of exprs (a grouped node's target, over its table) group_expr, order_expr or a
 * constant, so that its rows can be made from their keys (for the planner, which then counts
 * the rows tied at a cut as the groups will, radik_groups_count_ties)?
 */
extern bool radik_key_rows_possible(List *exprs, Expr *group_expr, Expr *order_expr);

/*
 * Can the rows of targetlist (a grouped node's, over its table) be made from each row's group
 * key, which is group_expr, and its sort key, order_expr of order_type (an exact key type, its
 * engine key descending or not)?  Where each entry is one of them or a constant, fills rows (in
 * estate's memory, with a slot of its own) and says yes.
 */
extern bool radik_key_rows_begin(RadikKeyRows *rows, List *targetlist, Expr *group_expr,
								 Expr *order_expr, Oid order_type, bool order_descending,
								 EState *estate);

/*
 * Do a row's keys tell the values the target list reads exactly?  Not where one stands for
 * several values (a float zero, which may be -0, and NaN): only the row itself knows.  The keys
 * are radik_groups_sorted_rows's (radik_groups.h): group_bits, key and the row's flags.
 */
extern bool radik_key_rows_exact(const RadikKeyRows *rows, uint64 group_bits, uint64 key,
								 uint8 flags);

/*
 * The values of the row the target list makes from those keys, in values and nulls (one per
 * entry); false where they do not tell them exactly (as radik_key_rows_exact).
 */
extern bool radik_key_rows_fill(const RadikKeyRows *rows, uint64 group_bits, uint64 key,
								uint8 flags, Datum *values, bool *nulls);

/*
 * The row the target list makes from those keys, in rows->slot; NULL where they do not tell its
 * values exactly (as radik_key_rows_exact).
 */
extern TupleTableSlot *radik_key_rows_make(RadikKeyRows *rows, uint64 group_bits, uint64 key,
										   uint8 flags);

#endif							/* RADIK_KEY_ROWS_H */
