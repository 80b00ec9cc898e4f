/*
 * radik_key_rows.c
 *	  A grouped node's rows made from their keys (radik_key_rows.h).
 *
 * "The best rows of each group" often asks for no more of a row than its group and its sort key:
 * SELECT grp, v, row_number() OVER (PARTITION BY grp ORDER BY v DESC) ..., rank() over a
 * computed key, DISTINCT ON (grp) grp, v.  The group set keeps each row's sort key, and each
 * group its key's bits, both exact for the key types that group by bits and order rows with them
 * (radik_groups_sorted_rows): the values can be made from them, as a single top-k's rows are
 * made from their key where the query reads only its key column (radik_scan.c).  Then the rows
 * need not be fetched or carried at all: the parallel workers send their groups' keys and row
 * ids only, and the node returns virtual rows.  With heavy ties (rank() over a key of ten
 * values, a tenth of the table returned) or a million groups, fetching or carrying the rows cost
 * more than reading the table.
 *
 * A target list entry qualifies when it is equal to the group key expression, to the sort key
 * expression (the grouped node's target list holds the window's or DISTINCT ON's expressions as
 * the planner computed them for the sort), or a constant.  A key that stands for several values
 * (a float zero, -0 or +0, and every NaN) does not tell its row's value: that row is fetched and
 * projected as before (radik_scan_groups.c).
 */
#include "postgres.h"

#include "executor/executor.h"
#include "executor/tuptable.h"
#include "nodes/nodeFuncs.h"

#include "radik_datum_keys.h"
#include "radik_groups.h"
#include "radik_key_rows.h"

/* Where expr's value comes from, of rows made from group_expr and order_expr; false: neither. */
static bool
key_column(Expr *expr, Expr *group_expr, Expr *order_expr, RadikKeyColumn *column)
{
	if (equal(expr, group_expr))
		*column = RADIK_KEY_COLUMN_GROUP;
	else if (equal(expr, order_expr))
		*column = RADIK_KEY_COLUMN_ORDER;
	else if (IsA(expr, Const))
		*column = RADIK_KEY_COLUMN_CONST;
	else
		return false;
	return true;
}

bool
radik_key_rows_possible(List *exprs, Expr *group_expr, Expr *order_expr)
{
	ListCell   *lc;

	foreach(lc, exprs)
	{
		RadikKeyColumn column;

		if (!key_column(lfirst(lc), group_expr, order_expr, &column))
			return false;
	}
	return true;
}

bool
radik_key_rows_begin(RadikKeyRows *rows, List *targetlist, Expr *group_expr, Expr *order_expr,
					 Oid order_type, bool order_descending, EState *estate)
{
	int			n = list_length(targetlist);
	ListCell   *lc;
	int			i = 0;

	memset(rows, 0, sizeof(*rows));
	rows->columns = palloc(Max(n, 1) * sizeof(RadikKeyColumn));
	rows->const_values = palloc0(Max(n, 1) * sizeof(Datum));
	rows->const_nulls = palloc0(Max(n, 1) * sizeof(bool));
	foreach(lc, targetlist)
	{
		Expr	   *expr = ((TargetEntry *) lfirst(lc))->expr;

		if (!key_column(expr, group_expr, order_expr, &rows->columns[i]))
			return false;
		rows->reads_group |= rows->columns[i] == RADIK_KEY_COLUMN_GROUP;
		rows->reads_order |= rows->columns[i] == RADIK_KEY_COLUMN_ORDER;
		if (rows->columns[i] == RADIK_KEY_COLUMN_CONST)
		{
			rows->const_values[i] = ((Const *) expr)->constvalue;
			rows->const_nulls[i] = ((Const *) expr)->constisnull;
		}
		i++;
	}
	rows->ncolumns = n;
	rows->group_type = exprType((Node *) group_expr);
	rows->order_type = order_type;
	rows->order_descending = order_descending;
	if (!radik_key_type_exact(rows->group_type) || !radik_key_type_exact(order_type))
		return false;
	rows->slot = ExecInitExtraTupleSlot(estate, ExecTypeFromTL(targetlist), &TTSOpsVirtual);
	return true;
}

bool
radik_key_rows_exact(const RadikKeyRows *rows, uint64 group_bits, uint64 key, uint8 flags)
{
	bool		exact = true;

	if (rows->reads_group && (flags & RADIK_ROW_GROUP_NULL) == 0)
		(void) radik_datum_from_key(rows->group_type, false, group_bits, &exact);
	if (exact && rows->reads_order && (flags & RADIK_ROW_KEY_NULL) == 0)
		(void) radik_datum_from_key(rows->order_type, rows->order_descending, key, &exact);
	return exact;
}

bool
radik_key_rows_fill(const RadikKeyRows *rows, uint64 group_bits, uint64 key, uint8 flags,
					Datum *values, bool *nulls)
{
	bool		exact = true;
	Datum		group_value = 0;
	Datum		order_value = 0;
	bool		group_null = (flags & RADIK_ROW_GROUP_NULL) != 0;
	bool		order_null = (flags & RADIK_ROW_KEY_NULL) != 0;

	if (rows->reads_group && !group_null)
		group_value = radik_datum_from_key(rows->group_type, false, group_bits, &exact);
	if (exact && rows->reads_order && !order_null)
		order_value = radik_datum_from_key(rows->order_type, rows->order_descending, key, &exact);
	if (!exact)
		return false;
	for (int i = 0; i < rows->ncolumns; i++)
	{
		switch (rows->columns[i])
		{
			case RADIK_KEY_COLUMN_GROUP:
				values[i] = group_value;
				nulls[i] = group_null;
				break;
			case RADIK_KEY_COLUMN_ORDER:
				values[i] = order_value;
				nulls[i] = order_null;
				break;
			case RADIK_KEY_COLUMN_CONST:
				values[i] = rows->const_values[i];
				nulls[i] = rows->const_nulls[i];
				break;
		}
	}
	return true;
}

TupleTableSlot *
radik_key_rows_make(RadikKeyRows *rows, uint64 group_bits, uint64 key, uint8 flags)
{
	TupleTableSlot *slot = rows->slot;

	ExecClearTuple(slot);
	if (!radik_key_rows_fill(rows, group_bits, key, flags, slot->tts_values, slot->tts_isnull))
		return NULL;
	return ExecStoreVirtualTuple(slot);
}
