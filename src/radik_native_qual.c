/*
 * radik_native_qual.c
 *	  Run simple WHERE clauses on a row's raw column values (radik_native_qual.h).
 *
 * Supported, in an implicitly ANDed list of clauses:
 *  - comparisons (< <= = >= > <>) of the btree integer family (smallint, integer, bigint, mixed
 *    as PostgreSQL allows) and of the float family (real, double precision), whose operands are
 *    columns, constants or integer arithmetic;
 *  - integer arithmetic + - * / % (PostgreSQL's int2, int4 and int8 operators, mixed widths
 *    included), over columns, constants and such arithmetic;
 *  - col IS NULL, col IS NOT NULL.
 * Anything else (other types, functions, Params, OR, NOT, ...) makes the compile return NULL, and
 * the quals run through the executor as before.
 *
 * Exactness: every supported operator is strict, so a NULL operand makes its clause NULL, which
 * fails the row, as ExecQual's AND does.  Floats are compared through their engine keys
 * (cuda/radik_keys.h), which order them as PostgreSQL's float comparisons do: NaN equal to
 * itself and above every other value, -0 equal to +0.  Integer arithmetic is done in 64 bits
 * with the result checked against the operator's own range; an overflow, a division by zero or
 * the minimum divided by -1 answers RADIK_QUAL_ASK_EXECUTOR, so that PostgreSQL's operator
 * raises its own error for that row.  (x % -1 is 0, as in PostgreSQL.)
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/pg_am.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "common/int.h"
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "radik_extract.h"
#include "radik_keys.h"
#include "radik_native_qual.h"

/* A small expression tree, in an array; children have lower indexes than their parent. */
typedef enum NativeKind
{
	NATIVE_COLUMN,				/* a column's value */
	NATIVE_CONST,
	NATIVE_ARITH,				/* integer arithmetic */
	NATIVE_COMPARE,				/* a comparison: the clause's truth */
	NATIVE_NULL_TEST
} NativeKind;

typedef enum NativeOp
{
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
	OP_LT, OP_LE, OP_EQ, OP_GE, OP_GT, OP_NE
} NativeOp;

typedef struct NativeNode
{
	NativeKind	kind;
	bool		is_float;		/* the value is a double (else an int64) */
	NativeOp	op;
	int16		int_bytes;		/* ARITH: the operator's integer width, for its range */
	bool		is_null_test;	/* NULL_TEST: IS NULL (else IS NOT NULL) */
	int			left;
	int			right;
	int			column;			/* COLUMN, NULL_TEST: index into columns */
	Oid			column_type;
	int64		int_value;		/* CONST */
	double		float_value;
} NativeNode;

/* Room for the nodes of a qual list; more is declined, to keep the per-row work small. */
#define MAX_NATIVE_NODES 32
#define MAX_NATIVE_COLUMNS 8

struct RadikNativeQual
{
	int			nnodes;
	NativeNode	nodes[MAX_NATIVE_NODES];
	int			nclauses;
	int			clauses[MAX_NATIVE_NODES];	/* the top node of each clause */
	int			ncolumns;
	RadikColumnReader columns[MAX_NATIVE_COLUMNS];
};

typedef struct Compiler
{
	RadikNativeQual *qual;
	Relation	rel;
	Oid			float_family;
} Compiler;

static bool
is_integer_type(Oid type)
{
	return type == INT2OID || type == INT4OID || type == INT8OID;
}

static bool
is_float_type(Oid type)
{
	return type == FLOAT4OID || type == FLOAT8OID;
}

/* A new node, or -1 when there is no room. */
static int
add_node(Compiler *compiler, NativeKind kind)
{
	RadikNativeQual *qual = compiler->qual;

	if (qual->nnodes == MAX_NATIVE_NODES)
		return -1;
	memset(&qual->nodes[qual->nnodes], 0, sizeof(NativeNode));
	qual->nodes[qual->nnodes].kind = kind;
	return qual->nnodes++;
}

/* The index of column attnum among the columns read, added if new; -1 when there is no room. */
static int
column_index(Compiler *compiler, AttrNumber attnum)
{
	RadikNativeQual *qual = compiler->qual;

	for (int i = 0; i < qual->ncolumns; i++)
		if (qual->columns[i].attnum == attnum)
			return i;
	if (qual->ncolumns == MAX_NATIVE_COLUMNS)
		return -1;
	radik_column_reader_init(&qual->columns[qual->ncolumns], compiler->rel, attnum);
	return qual->ncolumns++;
}

/*
 * The integer operator a function is, with the width of its result; false if it is not one we
 * run.
 */
static bool
integer_arithmetic(Oid funcid, NativeOp *op, int16 *bytes)
{
	switch (funcid)
	{
		case F_INT2PL: *op = OP_ADD; *bytes = 2; return true;
		case F_INT2MI: *op = OP_SUB; *bytes = 2; return true;
		case F_INT2MUL: *op = OP_MUL; *bytes = 2; return true;
		case F_INT2DIV: *op = OP_DIV; *bytes = 2; return true;
		case F_INT2MOD: *op = OP_MOD; *bytes = 2; return true;
		case F_INT4PL: *op = OP_ADD; *bytes = 4; return true;
		case F_INT4MI: *op = OP_SUB; *bytes = 4; return true;
		case F_INT4MUL: *op = OP_MUL; *bytes = 4; return true;
		case F_INT4DIV: *op = OP_DIV; *bytes = 4; return true;
		case F_INT4MOD: *op = OP_MOD; *bytes = 4; return true;
		case F_INT8PL: *op = OP_ADD; *bytes = 8; return true;
		case F_INT8MI: *op = OP_SUB; *bytes = 8; return true;
		case F_INT8MUL: *op = OP_MUL; *bytes = 8; return true;
		case F_INT8DIV: *op = OP_DIV; *bytes = 8; return true;
		case F_INT8MOD: *op = OP_MOD; *bytes = 8; return true;
		/* mixed widths: the result has the wider type */
		case F_INT24PL: case F_INT42PL: *op = OP_ADD; *bytes = 4; return true;
		case F_INT24MI: case F_INT42MI: *op = OP_SUB; *bytes = 4; return true;
		case F_INT24MUL: case F_INT42MUL: *op = OP_MUL; *bytes = 4; return true;
		case F_INT24DIV: case F_INT42DIV: *op = OP_DIV; *bytes = 4; return true;
		case F_INT48PL: case F_INT84PL: case F_INT28PL: case F_INT82PL:
			*op = OP_ADD; *bytes = 8; return true;
		case F_INT48MI: case F_INT84MI: case F_INT28MI: case F_INT82MI:
			*op = OP_SUB; *bytes = 8; return true;
		case F_INT48MUL: case F_INT84MUL: case F_INT28MUL: case F_INT82MUL:
			*op = OP_MUL; *bytes = 8; return true;
		case F_INT48DIV: case F_INT84DIV: case F_INT28DIV: case F_INT82DIV:
			*op = OP_DIV; *bytes = 8; return true;
		default: return false;
	}
}

/* The comparison an operator is in a btree family, <> as the negator of =; false if none. */
static bool
comparison(Oid opno, Oid family, NativeOp *op)
{
	Oid			negator;

	switch (get_op_opfamily_strategy(opno, family))
	{
		case BTLessStrategyNumber: *op = OP_LT; return true;
		case BTLessEqualStrategyNumber: *op = OP_LE; return true;
		case BTEqualStrategyNumber: *op = OP_EQ; return true;
		case BTGreaterEqualStrategyNumber: *op = OP_GE; return true;
		case BTGreaterStrategyNumber: *op = OP_GT; return true;
		default:
			break;
	}
	negator = get_negator(opno);
	if (OidIsValid(negator) &&
		get_op_opfamily_strategy(negator, family) == BTEqualStrategyNumber)
	{
		*op = OP_NE;
		return true;
	}
	return false;
}

/* Compile a value-producing expression; the node's index, or -1 when unsupported. */
static int
compile_value(Compiler *compiler, Expr *expr)
{
	RadikNativeQual *qual = compiler->qual;
	int			node;

	if (IsA(expr, Var))
	{
		Var		   *var = (Var *) expr;
		int			column;

		if (var->varattno <= 0 || var->varlevelsup != 0 ||
			!(is_integer_type(var->vartype) || is_float_type(var->vartype)))
			return -1;
		column = column_index(compiler, var->varattno);
		if (column < 0 || (node = add_node(compiler, NATIVE_COLUMN)) < 0)
			return -1;
		qual->nodes[node].column = column;
		qual->nodes[node].column_type = var->vartype;
		qual->nodes[node].is_float = is_float_type(var->vartype);
		return node;
	}
	if (IsA(expr, Const))
	{
		Const	   *constant = (Const *) expr;

		if (constant->constisnull ||
			!(is_integer_type(constant->consttype) || is_float_type(constant->consttype)) ||
			(node = add_node(compiler, NATIVE_CONST)) < 0)
			return -1;
		switch (constant->consttype)
		{
			case INT2OID:
				qual->nodes[node].int_value = DatumGetInt16(constant->constvalue);
				break;
			case INT4OID:
				qual->nodes[node].int_value = DatumGetInt32(constant->constvalue);
				break;
			case INT8OID:
				qual->nodes[node].int_value = DatumGetInt64(constant->constvalue);
				break;
			case FLOAT4OID:
				qual->nodes[node].float_value = DatumGetFloat4(constant->constvalue);
				qual->nodes[node].is_float = true;
				break;
			case FLOAT8OID:
				qual->nodes[node].float_value = DatumGetFloat8(constant->constvalue);
				qual->nodes[node].is_float = true;
				break;
		}
		return node;
	}
	if (IsA(expr, OpExpr))
	{
		OpExpr	   *opexpr = (OpExpr *) expr;
		NativeOp	op;
		int16		bytes;
		int			left;
		int			right;

		if (list_length(opexpr->args) != 2 || !integer_arithmetic(opexpr->opfuncid, &op, &bytes))
			return -1;
		left = compile_value(compiler, linitial(opexpr->args));
		right = compile_value(compiler, lsecond(opexpr->args));
		if (left < 0 || right < 0 || qual->nodes[left].is_float || qual->nodes[right].is_float ||
			(node = add_node(compiler, NATIVE_ARITH)) < 0)
			return -1;
		qual->nodes[node].op = op;
		qual->nodes[node].int_bytes = bytes;
		qual->nodes[node].left = left;
		qual->nodes[node].right = right;
		return node;
	}
	return -1;
}

/* Compile one clause; the index of its top node, or -1 when unsupported. */
static int
compile_clause(Compiler *compiler, Expr *clause)
{
	RadikNativeQual *qual = compiler->qual;
	int			node;

	if (IsA(clause, NullTest))
	{
		NullTest   *test = (NullTest *) clause;
		Var		   *var = (Var *) test->arg;
		int			column;

		if (test->argisrow || !IsA(var, Var) || var->varattno <= 0 || var->varlevelsup != 0)
			return -1;
		column = column_index(compiler, var->varattno);
		if (column < 0 || (node = add_node(compiler, NATIVE_NULL_TEST)) < 0)
			return -1;
		qual->nodes[node].column = column;
		qual->nodes[node].is_null_test = test->nulltesttype == IS_NULL;
		return node;
	}
	if (IsA(clause, OpExpr))
	{
		OpExpr	   *opexpr = (OpExpr *) clause;
		Oid			left_type;
		Oid			right_type;
		NativeOp	op;
		bool		is_float;
		int			left;
		int			right;

		if (list_length(opexpr->args) != 2)
			return -1;
		left_type = exprType(linitial(opexpr->args));
		right_type = exprType(lsecond(opexpr->args));
		if (is_integer_type(left_type) && is_integer_type(right_type) &&
			comparison(opexpr->opno, INTEGER_BTREE_FAM_OID, &op))
			is_float = false;
		else if (is_float_type(left_type) && is_float_type(right_type) &&
				 OidIsValid(compiler->float_family) &&
				 comparison(opexpr->opno, compiler->float_family, &op))
			is_float = true;
		else
			return -1;
		left = compile_value(compiler, linitial(opexpr->args));
		right = compile_value(compiler, lsecond(opexpr->args));
		if (left < 0 || right < 0 || qual->nodes[left].is_float != is_float ||
			qual->nodes[right].is_float != is_float ||
			(node = add_node(compiler, NATIVE_COMPARE)) < 0)
			return -1;
		qual->nodes[node].op = op;
		qual->nodes[node].is_float = is_float;
		qual->nodes[node].left = left;
		qual->nodes[node].right = right;
		return node;
	}
	return -1;
}

RadikNativeQual *
radik_native_qual_compile(List *quals, Relation rel)
{
	Compiler	compiler;
	ListCell   *lc;
	Oid			float_opclass = GetDefaultOpClass(FLOAT8OID, BTREE_AM_OID);

	compiler.qual = palloc0(sizeof(RadikNativeQual));
	compiler.rel = rel;
	compiler.float_family = OidIsValid(float_opclass) ? get_opclass_family(float_opclass) :
		InvalidOid;
	foreach(lc, quals)
	{
		int			top = compile_clause(&compiler, (Expr *) lfirst(lc));

		if (top < 0)
		{
			pfree(compiler.qual);
			return NULL;
		}
		compiler.qual->clauses[compiler.qual->nclauses++] = top;
	}
	return compiler.qual;
}

/* Does v fit the integer operator's result type? */
static inline bool
fits(int64 v, int16 bytes)
{
	if (bytes == 2)
		return v >= PG_INT16_MIN && v <= PG_INT16_MAX;
	if (bytes == 4)
		return v >= PG_INT32_MIN && v <= PG_INT32_MAX;
	return true;
}

static inline bool
fits_int32(int64 v)
{
	return v >= PG_INT32_MIN && v <= PG_INT32_MAX;
}

/*
 * Integer arithmetic as PostgreSQL's operator of that width computes it; false where the
 * operator would raise an error.
 */
static inline bool
arithmetic(NativeOp op, int16 bytes, int64 a, int64 b, int64 *result)
{
	switch (op)
	{
		case OP_ADD:
			if (pg_add_s64_overflow(a, b, result))
				return false;
			break;
		case OP_SUB:
			if (pg_sub_s64_overflow(a, b, result))
				return false;
			break;
		case OP_MUL:
			if (pg_mul_s64_overflow(a, b, result))
				return false;
			break;
		case OP_DIV:
			if (b == 0 || (b == -1 && a == PG_INT64_MIN))
				return false;
			if (b == -1)
				*result = -a;	/* fits() below catches -PG_INT32_MIN and the like */
			else if (fits_int32(a) && fits_int32(b))
				*result = (int32) a / (int32) b;	/* a 32-bit division is cheaper */
			else
				*result = a / b;
			break;
		case OP_MOD:
			if (b == 0)
				return false;
			if (b == -1)
				*result = 0;
			else if (fits_int32(a) && fits_int32(b))
				*result = (int32) a % (int32) b;
			else
				*result = a % b;
			break;
		default:
			return false;
	}
	return fits(*result, bytes);
}

static inline bool
compare(NativeOp op, uint64 a, uint64 b)
{
	switch (op)
	{
		case OP_LT: return a < b;
		case OP_LE: return a <= b;
		case OP_EQ: return a == b;
		case OP_GE: return a >= b;
		case OP_GT: return a > b;
		case OP_NE: return a != b;
		default: return false;
	}
}

/* The result of evaluating a node for one row. */
typedef enum NodeResult
{
	NODE_VALUE,
	NODE_NULL,
	NODE_ERROR
} NodeResult;

/*
 * An operator's outcome from its operands': both operands are evaluated, as the executor
 * evaluates every argument before calling a function, so an error in either is raised; else a
 * NULL operand makes the (strict) operator's result NULL.
 */
static inline NodeResult
operands_result(const NodeResult *results, const NativeNode *node)
{
	if (results[node->left] == NODE_ERROR || results[node->right] == NODE_ERROR)
		return NODE_ERROR;
	if (results[node->left] == NODE_NULL || results[node->right] == NODE_NULL)
		return NODE_NULL;
	return NODE_VALUE;
}

RadikQualResult
radik_native_qual_run(const RadikNativeQual *qual, HeapTuple tuple)
{
	Datum		column_values[MAX_NATIVE_COLUMNS];
	bool		column_nulls[MAX_NATIVE_COLUMNS];
	NodeResult	results[MAX_NATIVE_NODES];
	int64		ints[MAX_NATIVE_NODES];
	double		floats[MAX_NATIVE_NODES];
	bool		passes = true;

	for (int i = 0; i < qual->ncolumns; i++)
		column_values[i] = radik_read_column(&qual->columns[i], tuple, &column_nulls[i]);

	/* Children come before their parents: one pass in order computes every node. */
	for (int i = 0; i < qual->nnodes; i++)
	{
		const NativeNode *node = &qual->nodes[i];

		results[i] = NODE_VALUE;
		switch (node->kind)
		{
			case NATIVE_COLUMN:
				if (column_nulls[node->column])
				{
					results[i] = NODE_NULL;
					break;
				}
				switch (node->column_type)
				{
					case INT2OID:
						ints[i] = DatumGetInt16(column_values[node->column]);
						break;
					case INT4OID:
						ints[i] = DatumGetInt32(column_values[node->column]);
						break;
					case INT8OID:
						ints[i] = DatumGetInt64(column_values[node->column]);
						break;
					case FLOAT4OID:
						floats[i] = DatumGetFloat4(column_values[node->column]);
						break;
					default:
						floats[i] = DatumGetFloat8(column_values[node->column]);
						break;
				}
				break;
			case NATIVE_CONST:
				ints[i] = node->int_value;
				floats[i] = node->float_value;
				break;
			case NATIVE_ARITH:
				results[i] = operands_result(results, node);
				if (results[i] == NODE_VALUE &&
					!arithmetic(node->op, node->int_bytes, ints[node->left], ints[node->right],
								&ints[i]))
					results[i] = NODE_ERROR;
				break;
			case NATIVE_COMPARE:
				results[i] = operands_result(results, node);
				if (results[i] != NODE_VALUE)
					break;
				if (node->is_float)
					ints[i] = compare(node->op, radik_key_from_float8(floats[node->left]),
									  radik_key_from_float8(floats[node->right]));
				else
					ints[i] = compare(node->op,
									  (uint64) ints[node->left] ^ (UINT64CONST(1) << 63),
									  (uint64) ints[node->right] ^ (UINT64CONST(1) << 63));
				break;
			case NATIVE_NULL_TEST:
				ints[i] = column_nulls[node->column] == node->is_null_test;
				break;
		}
	}

	/*
	 * As ExecQual's AND: a false or NULL clause fails the row; but a clause that would raise an
	 * error must be left to the executor unless an earlier clause already failed the row (the
	 * executor stops at the first false clause too, in the same order).
	 */
	for (int c = 0; c < qual->nclauses && passes; c++)
	{
		int			top = qual->clauses[c];

		if (results[top] == NODE_ERROR)
			return RADIK_QUAL_ASK_EXECUTOR;
		if (results[top] == NODE_NULL || ints[top] == 0)
			passes = false;
	}
	return passes ? RADIK_QUAL_TRUE : RADIK_QUAL_FALSE;
}
