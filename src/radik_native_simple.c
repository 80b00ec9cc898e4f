/*
 * radik_native_simple.c
 *	  The usual WHERE clauses, "column op constant" and "(column arith constant) op constant" on
 *	  fixed-width columns, run row by row on a page's tuples, each column read at its offset
 *	  (radik_native_nodes.h).
 *
 * Node by node over a page's rows (radik_native_qual.c) a clause costs a loop per node and a
 * pass over the rows' columns first; these clauses run in one loop over the rows instead, and
 * radik_native_qual_select_page reads the sort key in the same loop.  A page where a tuple has
 * NULLs or fewer columns, or where arithmetic would fail or its dividend is too wide for the
 * division by a constant, goes back to the node-by-node path.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/tupmacs.h"
#include "catalog/pg_type.h"

#include "radik_keys.h"
#include "radik_native_nodes.h"
#include "radik_native_qual.h"

/* The comparison with its operands swapped: a < b is b > a. */
static NativeOp
mirrored(NativeOp op)
{
	switch (op)
	{
		case OP_LT: return OP_GT;
		case OP_LE: return OP_GE;
		case OP_GE: return OP_LE;
		case OP_GT: return OP_LT;
		default: return op;		/* = and <> */
	}
}

/*
 * Fill qual->simple when every clause is a simple one (SimpleClause): a comparison of a
 * constant with a fixed-offset column, or with integer arithmetic of such a column and a
 * constant (in that order).
 */
void
radik_native_compile_simple(RadikNativeQual *qual)
{
	SimpleClause *simple = palloc0(qual->nclauses * sizeof(SimpleClause));
	AttrNumber	max_attnum = 0;

	for (int c = 0; c < qual->nclauses; c++)
	{
		const NativeNode *compare = &qual->nodes[qual->clauses[c]];
		const NativeNode *value;
		const NativeNode *constant;
		const NativeNode *column;
		const RadikColumnReader *reader;
		SimpleClause *clause = &simple[c];
		NativeOp	op;

		if (compare->kind == NATIVE_COMPUTED)
		{
			/* computed for its errors alone: a comparison that always holds, with 0 */
			value = &qual->nodes[compare->left];
			constant = NULL;
			clause->truth_table = comparison_truth_table(OP_LT) | comparison_truth_table(OP_GE);
		}
		else if (compare->kind == NATIVE_COMPARE)
		{
			value = &qual->nodes[compare->left];
			constant = &qual->nodes[compare->right];
			op = compare->op;
			if (value->kind == NATIVE_CONST)
			{
				value = &qual->nodes[compare->right];
				constant = &qual->nodes[compare->left];
				op = mirrored(compare->op);
			}
			clause->truth_table = comparison_truth_table(op);
			if (constant->kind != NATIVE_CONST)
				break;
		}
		else
			break;
		column = value;
		if (value->kind == NATIVE_ARITH)
		{
			column = &qual->nodes[value->left];
			if (qual->nodes[value->right].kind != NATIVE_CONST)
				break;
			clause->has_arith = true;
			clause->arith_op = value->op;
			clause->arith_bytes = value->int_bytes;
			clause->arith_value = qual->nodes[value->right].int_value;
			if (value->op == OP_DIV || value->op == OP_MOD)
				clause->divisor = constant_divisor(clause->arith_value);
		}
		if (column->kind != NATIVE_COLUMN)
			break;
		reader = &qual->columns[column->column];
		if (reader->fixed_offset < 0)
			break;
		clause->offset = reader->fixed_offset;
		clause->column_type = column->column_type;
		clause->is_float = column->is_float;
		if (constant != NULL)
		{
			clause->int_value = constant->int_value;
			if (compare->is_float)
				clause->float_key = radik_key_from_float8(constant->float_value);
		}
		max_attnum = Max(max_attnum, reader->attnum);
		if (c == qual->nclauses - 1)
		{
			qual->simple = simple;
			qual->nsimple = qual->nclauses;
			qual->simple_max_attnum = max_attnum;
			return;
		}
	}
	pfree(simple);
}

/*
 * One simple clause's verdict on the tuple whose data (after its header) is at data, a tuple
 * without NULLs holding the column it reads: RADIK_QUAL_TRUE or RADIK_QUAL_FALSE, or
 * RADIK_QUAL_ASK_EXECUTOR when arithmetic would fail or its dividend is too wide for the
 * constant division (the general path must run the row).
 */
static pg_attribute_always_inline RadikQualResult
simple_clause_verdict(const SimpleClause *clause, const char *data)
{
	const char *field = data + clause->offset;
	int64		value;

	if (clause->is_float)
	{
		uint64		key = radik_key_from_float8(clause->column_type == FLOAT4OID ?
												(double) *(const float4 *) field :
												*(const float8 *) field);

		return COMPARED(clause->truth_table, key, clause->float_key) ?
			RADIK_QUAL_TRUE : RADIK_QUAL_FALSE;
	}
	value = clause->column_type == INT2OID ? *(const int16 *) field :
		clause->column_type == INT4OID ? *(const int32 *) field : *(const int64 *) field;
	if (clause->divisor.magnitude != 0)
	{
		if (!divide_by_constant(&clause->divisor, value, clause->arith_op == OP_DIV, &value) ||
			!fits(value, clause->arith_bytes))
			return RADIK_QUAL_ASK_EXECUTOR;
	}
	else if (clause->has_arith &&
			 !arithmetic(clause->arith_op, clause->arith_bytes, value,
						 clause->arith_value, &value))
		return RADIK_QUAL_ASK_EXECUTOR;
	return COMPARED(clause->truth_table, value, clause->int_value) ?
		RADIK_QUAL_TRUE : RADIK_QUAL_FALSE;
}

/*
 * The verdict of clauses[0 .. nclauses) on a tuple: the first clause that is not true decides
 * (false fails the row, as ExecQual's AND does, before any later clause could fail to compute).
 */
static pg_attribute_always_inline RadikQualResult
simple_clauses_verdict(const SimpleClause *clauses, int nclauses, const char *data)
{
	for (int c = 0; c < nclauses; c++)
	{
		RadikQualResult verdict = simple_clause_verdict(&clauses[c], data);

		if (verdict != RADIK_QUAL_TRUE)
			return verdict;
	}
	return RADIK_QUAL_TRUE;
}

/*
 * Run simple clauses (qual->simple) on the tuples at offsets[0 .. n) of page, row by row, each
 * column read at its offset.  Returns false, for the general path to run the page, at the first
 * row that needs it: a tuple with NULLs or fewer columns, arithmetic that would fail or whose
 * dividend is too wide for the constant division.
 */
bool
radik_native_run_simple_page(const RadikNativeQual *qual, Page page, const OffsetNumber *offsets,
							 int n, RadikQualResult *verdicts)
{
	for (int row = 0; row < n; row++)
	{
		HeapTupleHeader tuple = (HeapTupleHeader) PageGetItem(page,
															  PageGetItemId(page, offsets[row]));

		if (!radik_row_at_cached_offsets(tuple, qual->simple_max_attnum))
			return false;
		verdicts[row] = simple_clauses_verdict(qual->simple, qual->nsimple,
											   (const char *) tuple + tuple->t_hoff);
		if (verdicts[row] == RADIK_QUAL_ASK_EXECUTOR)
			return false;
	}
	return true;
}

/*
 * The loop of radik_native_qual_select_page over clauses[0 .. nclauses); called with a local
 * copy of one or two clauses and a constant count, it is specialized for them, the clauses'
 * fields kept in registers instead of reloaded after every store.
 */
static pg_attribute_always_inline int
select_page_rows(const SimpleClause *clauses, int nclauses, AttrNumber max_attnum, Page page,
				 const OffsetNumber *offsets, int n, const RadikColumnReader *key,
				 Datum *values, OffsetNumber *passing)
{
	const int32 key_offset = key->fixed_offset;
	const int16 key_len = key->len;
	int			npassing = 0;

	for (int row = 0; row < n; row++)
	{
		HeapTupleHeader tuple = (HeapTupleHeader) PageGetItem(page,
															  PageGetItemId(page, offsets[row]));
		const char *data = (const char *) tuple + tuple->t_hoff;
		RadikQualResult verdict;

		if (!radik_row_at_cached_offsets(tuple, max_attnum))
			return -1;
		verdict = simple_clauses_verdict(clauses, nclauses, data);
		if (verdict == RADIK_QUAL_ASK_EXECUTOR)
			return -1;
		/* written for every row, kept for those that pass: no branch on the verdict */
		values[npassing] = fetch_att(data + key_offset, true, key_len);
		passing[npassing] = offsets[row];
		npassing += verdict == RADIK_QUAL_TRUE;
	}
	return npassing;
}

int
radik_native_qual_select_page(const RadikNativeQual *qual, Page page,
							  const OffsetNumber *offsets, int n, const RadikColumnReader *key,
							  Datum *values, OffsetNumber *passing)
{
	AttrNumber	max_attnum;

	if (qual->simple == NULL || key->fixed_offset < 0 || !key->byval)
		return -1;
	max_attnum = Max(qual->simple_max_attnum, key->attnum);
	if (qual->nsimple == 1)
	{
		const SimpleClause one[1] = {qual->simple[0]};

		return select_page_rows(one, 1, max_attnum, page, offsets, n, key, values, passing);
	}
	if (qual->nsimple == 2)
	{
		const SimpleClause two[2] = {qual->simple[0], qual->simple[1]};

		return select_page_rows(two, 2, max_attnum, page, offsets, n, key, values, passing);
	}
	return select_page_rows(qual->simple, qual->nsimple, max_attnum, page, offsets, n, key,
							values, passing);
}
