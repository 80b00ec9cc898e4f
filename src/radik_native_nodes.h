/*
 * radik_native_nodes.h
 *	  The compiled form of native quals, shared by the file that compiles and runs them node by
 *	  node (radik_native_qual.c) and the one that runs the usual clauses row by row
 *	  (radik_native_simple.c), with the integer arithmetic and comparisons both compute.
 *
 * The others use radik_native_qual.h, which includes this for the type of a compiled qual and
 * its verdicts.
 */
#ifndef RADIK_NATIVE_NODES_H
#define RADIK_NATIVE_NODES_H

#include "postgres.h"

#include "common/int.h"
#include "storage/bufpage.h"

#include "radik_heap.h"
#include "radik_native_like.h"

/* What a native qual says about one row. */
typedef enum RadikQualResult
{
	RADIK_QUAL_FALSE,			/* the row fails the quals (false or NULL) */
	RADIK_QUAL_TRUE,			/* the row passes */
	RADIK_QUAL_ASK_EXECUTOR		/* would raise an error: let ExecQual decide (and raise it) */
} RadikQualResult;

typedef struct RadikNativeQual RadikNativeQual;

/* A small expression tree, in an array; children have lower indexes than their parent. */
typedef enum NativeKind
{
	NATIVE_COLUMN,				/* a column's value */
	NATIVE_CONST,
	NATIVE_ARITH,				/* integer arithmetic */
	NATIVE_COMPARE,				/* a comparison: the clause's truth */
	NATIVE_NULL_TEST,
	NATIVE_LIKE,				/* a text column [NOT] LIKE a constant pattern */
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
	bool		not_like;		/* LIKE: NOT LIKE */
	const RadikLikePattern *like;	/* LIKE */
	int			left;			/* ARITH, COMPARE, COMPUTED: the operand */
	int			right;
	int			column;			/* COLUMN, NULL_TEST, LIKE: index into columns */
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
 * straight from each tuple, instead of node by node (radik_native_simple.c).
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

/* Fill qual->simple when every clause is a simple one (radik_native_simple.c). */
extern void radik_native_compile_simple(RadikNativeQual *qual);

/*
 * Run the simple clauses on the tuples at offsets[0 .. n) of page, row by row; false, for the
 * general path to run the page, at the first row that needs it.
 */
extern bool radik_native_run_simple_page(const RadikNativeQual *qual, Page page,
										 const OffsetNumber *offsets, int n,
										 RadikQualResult *verdicts);

#endif							/* RADIK_NATIVE_NODES_H */
