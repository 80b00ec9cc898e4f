/*
 * radik_native_qual.c
 *	  Run simple WHERE clauses on rows' raw column values (radik_native_qual.h).
 *
 * Supported, in an implicitly ANDed list of clauses:
 *  - comparisons (< <= = >= > <>) of the btree integer family (smallint, integer, bigint, mixed
 *    as PostgreSQL allows) and of the float family (real, double precision), whose operands are
 *    columns, constants or integer arithmetic;
 *  - integer arithmetic + - * / % (PostgreSQL's int2, int4 and int8 operators, mixed widths
 *    included), over columns, constants and such arithmetic;
 *  - col IS NULL, col IS NOT NULL;
 *  - (value IS NULL) IS NOT UNKNOWN, always true, which computes value for its errors alone (the
 *    clause the custom scan adds to compute the later sort keys of every row: radik_scan.c).
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
 *
 * Speed: the extractor hands over a heap page's visible rows at once, and each node of the
 * expression runs over all of them in a loop of its own (a column's values, then the arithmetic,
 * then the comparison), which costs a fraction of walking the tree row by row; constants are
 * filled in once.  A division or remainder by a constant, the usual "id % 10 <> 0", is done by a
 * multiplication when the dividend's magnitude fits 32 bits (divide_by_constant).  The usual
 * clauses, "column op constant" and "(column arith constant) op constant" on a fixed-width
 * column, run in one loop over the page's rows instead (run_simple_page), each column read at
 * its offset; a page where that loop meets a tuple with NULLs, an overflow or a wide dividend is
 * run node by node as above.
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

#include "radik_heap.h"
#include "radik_keys.h"
#include "radik_native_qual.h"

/* A small expression tree, in an array; children have lower indexes than their parent. */
typedef enum NativeKind
{
	NATIVE_COLUMN,				/* a column's value */
	NATIVE_CONST,
	NATIVE_ARITH,				/* integer arithmetic */
	NATIVE_COMPARE,				/* a comparison: the clause's truth */
	NATIVE_NULL_TEST,
	NATIVE_COMPUTED				/* true, unless computing its operand fails */
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
	int			left;			/* ARITH, COMPARE, COMPUTED: the operand */
	int			right;
	int			column;			/* COLUMN, NULL_TEST: index into columns */
	Oid			column_type;
	int64		int_value;		/* CONST */
	double		float_value;
} NativeNode;

/* Room for the nodes of a qual list; more is declined, to keep the per-row work small. */
#define MAX_NATIVE_NODES 32
#define MAX_NATIVE_COLUMNS 8

/* A node's value for one row: an integer or a double, per the node's is_float. */
typedef union NativeValue
{
	int64		i;
	double		f;
} NativeValue;

/* The result of evaluating a node for one row. */
typedef enum NodeResult
{
	NODE_VALUE,
	NODE_NULL,
	NODE_ERROR,
	NODE_ARITH_SLOW				/* inside run_arithmetic only: left to the general operator */
} NodeResult;

/* A clause of the usual shape, run row by row (see SimpleClause). */
typedef struct SimpleClause SimpleClause;

/* The rows evaluated at once: a heap page's worth. */
#define NATIVE_ROWS MaxHeapTuplesPerPage

struct RadikNativeQual
{
	int			nnodes;
	NativeNode	nodes[MAX_NATIVE_NODES];
	int			nclauses;
	int			clauses[MAX_NATIVE_NODES];	/* the top node of each clause */
	int			ncolumns;
	RadikColumnReader columns[MAX_NATIVE_COLUMNS];

	/* When every clause is a simple one (see SimpleClause): they, run row by row. */
	int			nsimple;
	SimpleClause *simple;
	AttrNumber	simple_max_attnum;

	/* Scratch space, node by node and row by row ([node][row]), allocated once. */
	NativeValue (*values)[NATIVE_ROWS];
	uint8		(*results)[NATIVE_ROWS];	/* NodeResult */
	Datum		(*column_values)[NATIVE_ROWS];
	bool		(*column_nulls)[NATIVE_ROWS];
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
	if (IsA(clause, BooleanTest) && ((BooleanTest *) clause)->booltesttype == IS_NOT_UNKNOWN &&
		IsA(((BooleanTest *) clause)->arg, NullTest))
	{
		NullTest   *test = (NullTest *) ((BooleanTest *) clause)->arg;
		int			operand;

		if (test->nulltesttype != IS_NULL || test->argisrow)
			return -1;
		operand = compile_value(compiler, test->arg);
		if (operand < 0 || (node = add_node(compiler, NATIVE_COMPUTED)) < 0)
			return -1;
		qual->nodes[node].left = operand;
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

static void compile_simple(RadikNativeQual *qual);

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
	compiler.qual->values = palloc(compiler.qual->nnodes * sizeof(*compiler.qual->values));
	compiler.qual->results = palloc(compiler.qual->nnodes * sizeof(*compiler.qual->results));
	compiler.qual->column_values = palloc(Max(compiler.qual->ncolumns, 1) *
										  sizeof(*compiler.qual->column_values));
	compiler.qual->column_nulls = palloc(Max(compiler.qual->ncolumns, 1) *
										 sizeof(*compiler.qual->column_nulls));
	/* constants have the same value in every row: filled in once, here */
	for (int i = 0; i < compiler.qual->nnodes; i++)
	{
		const NativeNode *node = &compiler.qual->nodes[i];

		if (node->kind != NATIVE_CONST)
			continue;
		for (int row = 0; row < NATIVE_ROWS; row++)
		{
			compiler.qual->results[i][row] = NODE_VALUE;
			if (node->is_float)
				compiler.qual->values[i][row].f = node->float_value;
			else
				compiler.qual->values[i][row].i = node->int_value;
		}
	}
	compile_simple(compiler.qual);
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

/*
 * An operator's outcome from its operands': both operands are evaluated, as the executor
 * evaluates every argument before calling a function, so an error in either is raised; else a
 * NULL operand makes the (strict) operator's result NULL.
 */
static inline NodeResult
operands_result(uint8 left, uint8 right)
{
	if (left == NODE_ERROR || right == NODE_ERROR)
		return NODE_ERROR;
	if (left == NODE_NULL || right == NODE_NULL)
		return NODE_NULL;
	return NODE_VALUE;
}

/*
 * Division by a constant: a / d and a % d by multiplication (D. Lemire, O. Kaser, N. Kurz, "Faster
 * remainder by direct computation", 2019: for 32-bit n and d >= 2, with M = floor((2^64 - 1) / d)
 * + 1, n / d = (M * n) >> 64 exactly).  Applies to dividends whose magnitude fits 32 bits; the
 * others divide in hardware.  Signs as C's (and PostgreSQL's) truncating division.
 */
typedef struct ConstantDivisor
{
	uint64		magnitude;		/* |d|, 2 .. 2^32 - 1; 0 when not used */
	uint64		multiplier;
	bool		negative;
} ConstantDivisor;

static inline ConstantDivisor
constant_divisor(int64 d)
{
	ConstantDivisor divisor = {0, 0, false};
	uint64		magnitude = d < 0 ? (uint64) 0 - (uint64) d : (uint64) d;

#ifdef PG_INT128_TYPE
	if (magnitude >= 2 && magnitude <= PG_UINT32_MAX)
	{
		divisor.magnitude = magnitude;
		divisor.multiplier = PG_UINT64_MAX / magnitude + 1;
		divisor.negative = d < 0;
	}
#endif
	return divisor;
}

/* a / d (want_quotient) or a % d, when |a| fits 32 bits; false otherwise. */
static inline bool
divide_by_constant(const ConstantDivisor *divisor, int64 a, bool want_quotient, int64 *result)
{
	uint64		n = a < 0 ? (uint64) 0 - (uint64) a : (uint64) a;
	uint64		q;

	if (n > PG_UINT32_MAX)
		return false;
#ifdef PG_INT128_TYPE
	q = (uint64) (((uint128) divisor->multiplier * n) >> 64);
#else
	q = n / divisor->magnitude;	/* not reached: constant_divisor declines */
#endif
	if (want_quotient)
		*result = (a < 0) != divisor->negative ? -(int64) q : (int64) q;
	else
	{
		uint64		r = n - q * divisor->magnitude;

		*result = a < 0 ? -(int64) r : (int64) r;
	}
	return true;
}

/* Evaluate an arithmetic node over rows 0 .. n. */
static void
run_arithmetic(const RadikNativeQual *qual, int node_index, int n)
{
	const NativeNode *node = &qual->nodes[node_index];
	const NativeOp op = node->op;
	const int16 bytes = node->int_bytes;
	const NativeValue *restrict left = qual->values[node->left];
	const NativeValue *restrict right = qual->values[node->right];
	const uint8 *restrict left_results = qual->results[node->left];
	const uint8 *restrict right_results = qual->results[node->right];
	NativeValue *restrict values = qual->values[node_index];
	uint8	   *restrict results = qual->results[node_index];
	ConstantDivisor divisor = {0, 0, false};

	if ((op == OP_DIV || op == OP_MOD) && qual->nodes[node->right].kind == NATIVE_CONST)
		divisor = constant_divisor(qual->nodes[node->right].int_value);

	if (divisor.magnitude != 0)
	{
		/*
		 * By a constant: a loop without branches for the rows whose dividend fits 32 bits (all
		 * of them, mostly), then the general operator for the rest.  The divisor is not 0 or
		 * -1, and the right operand a constant: the result is the left operand's.
		 */
		const bool	want_quotient = op == OP_DIV;
		bool		others = false;

		for (int row = 0; row < n; row++)
		{
			int64		value = 0;
			const bool	fast = divide_by_constant(&divisor, left[row].i, want_quotient, &value) &&
				fits(value, bytes);

			values[row].i = value;
			results[row] = fast ? left_results[row] : NODE_ARITH_SLOW;
			others |= !fast;
		}
		if (!others)
			return;
		for (int row = 0; row < n; row++)
			if (results[row] == NODE_ARITH_SLOW)
			{
				NodeResult	result = operands_result(left_results[row], right_results[row]);

				if (result == NODE_VALUE &&
					!arithmetic(op, bytes, left[row].i, right[row].i, &values[row].i))
					result = NODE_ERROR;
				results[row] = (uint8) result;
			}
		return;
	}
	for (int row = 0; row < n; row++)
	{
		NodeResult	result = operands_result(left_results[row], right_results[row]);

		if (result == NODE_VALUE &&
			!arithmetic(op, bytes, left[row].i, right[row].i, &values[row].i))
			result = NODE_ERROR;
		results[row] = (uint8) result;
	}
}

/*
 * One loop per comparison operator, so that the loop body has no switch; KEY_OF (defined where
 * it is used) gives the value compared.
 */
#define COMPARE_ROWS(operator) \
	for (int row = 0; row < n; row++) \
		values[row].i = KEY_OF(left[row]) operator KEY_OF(right[row])
#define COMPARE_ROWS_BY_OP(op) \
	switch (op) \
	{ \
		case OP_LT: COMPARE_ROWS(<); break; \
		case OP_LE: COMPARE_ROWS(<=); break; \
		case OP_EQ: COMPARE_ROWS(==); break; \
		case OP_GE: COMPARE_ROWS(>=); break; \
		case OP_GT: COMPARE_ROWS(>); break; \
		default: COMPARE_ROWS(!=); break; \
	}

/* Evaluate a comparison node over rows 0 .. n: values[row].i is 1 when it holds. */
static void
run_comparison(const RadikNativeQual *qual, int node_index, int n)
{
	const NativeNode *node = &qual->nodes[node_index];
	const NativeValue *restrict left = qual->values[node->left];
	const NativeValue *restrict right = qual->values[node->right];
	const uint8 *restrict left_results = qual->results[node->left];
	const uint8 *restrict right_results = qual->results[node->right];
	NativeValue *restrict values = qual->values[node_index];
	uint8	   *restrict results = qual->results[node_index];

	for (int row = 0; row < n; row++)
		results[row] = (uint8) operands_result(left_results[row], right_results[row]);

	/* floats compare through their engine keys, integers as signed values */
	if (node->is_float)
	{
#define KEY_OF(value) radik_key_from_float8((value).f)
		COMPARE_ROWS_BY_OP(node->op);
#undef KEY_OF
	}
	else
	{
#define KEY_OF(value) ((value).i)
		COMPARE_ROWS_BY_OP(node->op);
#undef KEY_OF
	}
}

/* Evaluate a column node over rows 0 .. n from the columns read. */
static void
run_column(const RadikNativeQual *qual, int node_index, int n)
{
	const NativeNode *node = &qual->nodes[node_index];
	const Datum *restrict datums = qual->column_values[node->column];
	const bool *restrict nulls = qual->column_nulls[node->column];
	NativeValue *restrict values = qual->values[node_index];
	uint8	   *restrict results = qual->results[node_index];

	for (int row = 0; row < n; row++)
		results[row] = nulls[row] ? NODE_NULL : NODE_VALUE;
	/* (a NULL's Datum is 0 here: see read_columns) */
	switch (node->column_type)
	{
		case INT2OID:
			for (int row = 0; row < n; row++)
				values[row].i = DatumGetInt16(datums[row]);
			break;
		case INT4OID:
			for (int row = 0; row < n; row++)
				values[row].i = DatumGetInt32(datums[row]);
			break;
		case INT8OID:
			for (int row = 0; row < n; row++)
				values[row].i = nulls[row] ? 0 : DatumGetInt64(datums[row]);
			break;
		case FLOAT4OID:
			for (int row = 0; row < n; row++)
				values[row].f = DatumGetFloat4(datums[row]);
			break;
		default:
			for (int row = 0; row < n; row++)
				values[row].f = nulls[row] ? 0.0 : DatumGetFloat8(datums[row]);
			break;
	}
}

/*
 * Run the quals on the rows whose columns read_columns has read, rows 0 .. n, into verdicts[].
 * Node by node over all the rows (children come before their parents in the array), so that
 * each loop is short and branch-predictable, and a division by a constant is set up once.
 * Every node is evaluated for every row: nothing here has side effects, and an error is only a
 * result (NODE_ERROR).  Constants were filled in once at compile time.
 */
static void
run_rows(const RadikNativeQual *qual, int n, RadikQualResult *verdicts)
{
	for (int i = 0; i < qual->nnodes; i++)
	{
		const NativeNode *node = &qual->nodes[i];

		switch (node->kind)
		{
			case NATIVE_COLUMN:
				run_column(qual, i, n);
				break;
			case NATIVE_CONST:
				break;
			case NATIVE_ARITH:
				run_arithmetic(qual, i, n);
				break;
			case NATIVE_COMPARE:
				run_comparison(qual, i, n);
				break;
			case NATIVE_NULL_TEST:
				for (int row = 0; row < n; row++)
				{
					qual->results[i][row] = NODE_VALUE;
					qual->values[i][row].i =
						qual->column_nulls[node->column][row] == node->is_null_test;
				}
				break;
			case NATIVE_COMPUTED:
				for (int row = 0; row < n; row++)
				{
					qual->results[i][row] = qual->results[node->left][row] == NODE_ERROR ?
						NODE_ERROR : NODE_VALUE;
					qual->values[i][row].i = 1;
				}
				break;
		}
	}

	/*
	 * As ExecQual's AND: a false or NULL clause fails the row; but a clause that would raise an
	 * error must be left to the executor unless an earlier clause already failed the row (the
	 * executor stops at the first false clause too, in the same order).
	 */
	for (int row = 0; row < n; row++)
		verdicts[row] = RADIK_QUAL_TRUE;
	for (int c = qual->nclauses - 1; c >= 0; c--)
	{
		/* the clauses from last to first: an earlier clause's verdict overrides a later one's */
		const uint8 *restrict results = qual->results[qual->clauses[c]];
		const NativeValue *restrict values = qual->values[qual->clauses[c]];

		for (int row = 0; row < n; row++)
		{
			if (results[row] == NODE_ERROR)
				verdicts[row] = RADIK_QUAL_ASK_EXECUTOR;
			else if (results[row] == NODE_NULL || values[row].i == 0)
				verdicts[row] = RADIK_QUAL_FALSE;
		}
	}
}

/* Read the columns the quals use from tuple into row row of the scratch space. */
static inline void
read_columns(const RadikNativeQual *qual, HeapTuple tuple, int row)
{
	for (int c = 0; c < qual->ncolumns; c++)
	{
		bool		isnull;
		Datum		value = radik_read_column(&qual->columns[c], tuple, &isnull);

		qual->column_values[c][row] = isnull ? (Datum) 0 : value;
		qual->column_nulls[c][row] = isnull;
	}
}

RadikQualResult
radik_native_qual_run(const RadikNativeQual *qual, HeapTuple tuple)
{
	RadikQualResult verdict;

	read_columns(qual, tuple, 0);
	run_rows(qual, 1, &verdict);
	return verdict;
}

/*
 * a op b without a branch: truth_table (comparison_truth_table) has bit 0 set when a < b must
 * hold, bit 1 when a > b, bit 2 when a = b.
 */
#define COMPARED(truth_table, a, b) \
	((((truth_table) >> (((a) > (b)) + 2 * ((a) == (b)))) & 1) != 0)

static inline uint8
comparison_truth_table(NativeOp op)
{
	switch (op)
	{
		case OP_LT: return 1;
		case OP_LE: return 1 | 4;
		case OP_EQ: return 4;
		case OP_GE: return 2 | 4;
		case OP_GT: return 2;
		default: return 1 | 2;	/* <> */
	}
}

/*
 * The usual clause, "column op constant" or "(column arith constant) op constant", with a
 * fixed-width column at a fixed offset: run in one loop over the rows, reading the column
 * straight from each tuple, instead of node by node (see run_simple_page).
 */
struct SimpleClause
{
	int32		offset;			/* the column's offset in a tuple without NULLs */
	Oid			column_type;
	bool		is_float;
	bool		has_arith;		/* (column arith_op arith_value) is compared */
	NativeOp	arith_op;
	int16		arith_bytes;
	int64		arith_value;
	ConstantDivisor divisor;	/* arith_value's, for / and %; magnitude 0: none */
	uint8		truth_table;	/* the comparison (see COMPARED), the column on the left */
	int64		int_value;		/* the constant compared with */
	uint64		float_key;		/* a float constant's engine key */
};

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
static void
compile_simple(RadikNativeQual *qual)
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
static bool
run_simple_page(const RadikNativeQual *qual, Page page, const OffsetNumber *offsets, int n,
				RadikQualResult *verdicts)
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

void
radik_native_qual_run_page(const RadikNativeQual *qual, Page page, BlockNumber block,
						   const OffsetNumber *offsets, int n, RadikQualResult *verdicts)
{
	HeapTupleData tuple;

	Assert(n <= NATIVE_ROWS);
	if (qual->simple != NULL && run_simple_page(qual, page, offsets, n, verdicts))
		return;
	tuple.t_tableOid = InvalidOid;
	for (int row = 0; row < n; row++)
	{
		ItemId		lp = PageGetItemId(page, offsets[row]);

		tuple.t_data = (HeapTupleHeader) PageGetItem(page, lp);
		tuple.t_len = ItemIdGetLength(lp);
		ItemPointerSet(&tuple.t_self, block, offsets[row]);
		read_columns(qual, &tuple, row);
	}
	run_rows(qual, n, verdicts);
}
