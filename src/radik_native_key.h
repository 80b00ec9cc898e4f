/*
 * radik_native_key.h
 *	  A sort key expression of float arithmetic computed from a row's raw column values, without
 *	  the expression evaluator.
 *
 * "Nearest N by a score" orders by an expression such as abs(v - 0.5) or x * 0.3 + y * 0.7, and
 * through the executor each row then costs a slot filled with its columns and a function call per
 * operator, several times radik's whole scan of a plain column.  Expressions made only of double
 * precision arithmetic (+ - * /, mixed real and double precision operands included), abs(), unary
 * minus, the rounding functions floor(), ceil() (ceiling()), trunc() and round(), sign(), sqrt()
 * (|/), casts of integer and real columns to double precision, columns and constants are compiled
 * into a small array of nodes and run here, for a few rows of a page at a time (node by node over
 * them, so that each operator is one tight loop) or for one row.  Bucketed keys (floor(v * 10))
 * and distances (sqrt(dx * dx + dy * dy)) are of this kind.  Each operator computes what
 * PostgreSQL's computes (utils/float.h, utils/adt/float.c), in the same double precision; where
 * PostgreSQL's would raise an error (an overflow, an underflow, a division by zero, the square
 * root of a negative number) the row's key is left to the executor, which raises it.  Every
 * operator is strict, so a NULL column makes the key NULL, unless another operand's subtree would
 * fail first, as the executor evaluates every argument before calling a function.
 */
#ifndef RADIK_NATIVE_KEY_H
#define RADIK_NATIVE_KEY_H

#include "postgres.h"

#include "access/htup.h"
#include "nodes/primnodes.h"
#include "utils/relcache.h"

typedef struct RadikNativeKey RadikNativeKey;

/* What computing the key of one row gave. */
typedef enum RadikNativeKeyResult
{
	RADIK_NATIVE_KEY_VALUE,
	RADIK_NATIVE_KEY_NULL,
	RADIK_NATIVE_KEY_ASK_EXECUTOR	/* PostgreSQL raises an error for this row */
} RadikNativeKeyResult;

/*
 * The native form of expr, a double precision expression over rel's columns, palloc'd; NULL
 * where some part of it is not of the shapes above.
 */
extern RadikNativeKey *radik_native_key_compile(Expr *expr, Relation rel);

/* The key of the heap tuple, into *value where there is one. */
extern RadikNativeKeyResult radik_native_key_run(RadikNativeKey *key, HeapTuple tuple,
												 float8 *value);

/*
 * The keys of n heap tuples (at most a page's) at once, node by node over the rows rather than
 * row by row: what tuples[i] gave into results[i], its key into values[i] where there is one.
 */
extern void radik_native_key_run_rows(RadikNativeKey *key, HeapTupleData *tuples, int n,
									  float8 *values, RadikNativeKeyResult *results);

#endif							/* RADIK_NATIVE_KEY_H */
