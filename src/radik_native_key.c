/*
 * radik_native_key.c
 *	  Compile a double precision key expression into nodes and compute it for a row
 *	  (radik_native_key.h says which expressions and why).
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"

#include "radik_heap.h"
#include "radik_native_key.h"
#include "radik_native_nodes.h"

/* Room for the nodes and columns of a key; larger expressions run through the executor. */
#define MAX_KEY_NODES 32
#define MAX_KEY_COLUMNS 8

typedef enum KeyNodeKind
{
	KEY_COLUMN,					/* a column's value as a double (exact for real and the
								 * integers' cast, which rounds as C's conversion does) */
	KEY_CONST,
	KEY_ADD,
	KEY_SUB,
	KEY_MUL,
	KEY_DIV,
	KEY_ABS,
	KEY_NEGATE,
	KEY_FLOOR,
	KEY_CEIL,
	KEY_TRUNC,
	KEY_ROUND,					/* to the nearest integer, halves to even (rint) */
	KEY_SIGN,
	KEY_SQRT,					/* the one unary operator that fails: on a negative operand */
	KEY_CAST					/* integer or real to double precision: no node of its own (a
								 * column's value is a double already) */
} KeyNodeKind;

typedef struct KeyNode
{
	KeyNodeKind kind;
	Oid			type;			/* the SQL type of the node's value */
	int			left;			/* operands: earlier nodes */
	int			right;
	int			column;			/* KEY_COLUMN: index into columns */
	float8		constant;		/* KEY_CONST */
} KeyNode;

struct RadikNativeKey
{
	int			nnodes;			/* the last node is the key */
	KeyNode		nodes[MAX_KEY_NODES];
	int			ncolumns;
	RadikColumnReader columns[MAX_KEY_COLUMNS];

	/*
	 * radik_native_key_run_rows' scratch space, node by node and row by row, allocated once and
	 * zeroed (an operator reads its operands' values even for rows where they are not values)
	 */
	float8		(*row_values)[MaxHeapTuplesPerPage];
	uint8		(*row_states)[MaxHeapTuplesPerPage];	/* NodeResult */
};

typedef struct Compiler
{
	RadikNativeKey *key;
	Relation	rel;
} Compiler;

/* An operator's function: its kind and operand types (InvalidOid: no right operand). */
typedef struct KeyFunction
{
	Oid			funcid;
	KeyNodeKind kind;
	Oid			left_type;
	Oid			right_type;
} KeyFunction;

static const KeyFunction key_functions[] = {
	{F_FLOAT8PL, KEY_ADD, FLOAT8OID, FLOAT8OID},
	{F_FLOAT8MI, KEY_SUB, FLOAT8OID, FLOAT8OID},
	{F_FLOAT8MUL, KEY_MUL, FLOAT8OID, FLOAT8OID},
	{F_FLOAT8DIV, KEY_DIV, FLOAT8OID, FLOAT8OID},
	{F_FLOAT48PL, KEY_ADD, FLOAT4OID, FLOAT8OID},
	{F_FLOAT48MI, KEY_SUB, FLOAT4OID, FLOAT8OID},
	{F_FLOAT48MUL, KEY_MUL, FLOAT4OID, FLOAT8OID},
	{F_FLOAT48DIV, KEY_DIV, FLOAT4OID, FLOAT8OID},
	{F_FLOAT84PL, KEY_ADD, FLOAT8OID, FLOAT4OID},
	{F_FLOAT84MI, KEY_SUB, FLOAT8OID, FLOAT4OID},
	{F_FLOAT84MUL, KEY_MUL, FLOAT8OID, FLOAT4OID},
	{F_FLOAT84DIV, KEY_DIV, FLOAT8OID, FLOAT4OID},
	{F_FLOAT8ABS, KEY_ABS, FLOAT8OID, InvalidOid},	/* @ x */
	{F_ABS_FLOAT8, KEY_ABS, FLOAT8OID, InvalidOid}, /* abs(x) */
	{F_FLOAT8UM, KEY_NEGATE, FLOAT8OID, InvalidOid},
	{F_FLOOR_FLOAT8, KEY_FLOOR, FLOAT8OID, InvalidOid},
	{F_CEIL_FLOAT8, KEY_CEIL, FLOAT8OID, InvalidOid},
	{F_CEILING_FLOAT8, KEY_CEIL, FLOAT8OID, InvalidOid},
	{F_TRUNC_FLOAT8, KEY_TRUNC, FLOAT8OID, InvalidOid},
	{F_DTRUNC, KEY_TRUNC, FLOAT8OID, InvalidOid},
	{F_ROUND_FLOAT8, KEY_ROUND, FLOAT8OID, InvalidOid},
	{F_DROUND, KEY_ROUND, FLOAT8OID, InvalidOid},
	{F_SIGN_FLOAT8, KEY_SIGN, FLOAT8OID, InvalidOid},
	{F_SQRT_FLOAT8, KEY_SQRT, FLOAT8OID, InvalidOid},
	{F_DSQRT, KEY_SQRT, FLOAT8OID, InvalidOid},	/* |/ x */
	{F_FLOAT8_INT2, KEY_CAST, INT2OID, InvalidOid},
	{F_FLOAT8_INT4, KEY_CAST, INT4OID, InvalidOid},
	{F_FLOAT8_INT8, KEY_CAST, INT8OID, InvalidOid},
	{F_FLOAT8_FLOAT4, KEY_CAST, FLOAT4OID, InvalidOid},
};

static int
add_node(Compiler *compiler, KeyNodeKind kind, Oid type)
{
	RadikNativeKey *key = compiler->key;

	if (key->nnodes == MAX_KEY_NODES)
		return -1;
	memset(&key->nodes[key->nnodes], 0, sizeof(KeyNode));
	key->nodes[key->nnodes].kind = kind;
	key->nodes[key->nnodes].type = type;
	return key->nnodes++;
}

/* The index of the column attnum among the columns read, added if new; -1 without room. */
static int
column_index(Compiler *compiler, AttrNumber attnum)
{
	RadikNativeKey *key = compiler->key;

	for (int i = 0; i < key->ncolumns; i++)
		if (key->columns[i].attnum == attnum)
			return i;
	if (key->ncolumns == MAX_KEY_COLUMNS)
		return -1;
	radik_column_reader_init(&key->columns[key->ncolumns], compiler->rel, attnum);
	return key->ncolumns++;
}

/* Compile expr, whose value must have type want; the node's index, or -1 when unsupported. */
static int
compile_node(Compiler *compiler, Expr *expr, Oid want)
{
	RadikNativeKey *key = compiler->key;
	Oid			funcid;
	List	   *args;
	int			node;

	if (exprType((Node *) expr) != want)
		return -1;
	if (IsA(expr, Var))
	{
		Var		   *var = (Var *) expr;
		int			column;

		if (var->varattno <= 0 || var->varlevelsup != 0 ||
			(column = column_index(compiler, var->varattno)) < 0 ||
			(node = add_node(compiler, KEY_COLUMN, want)) < 0)
			return -1;
		key->nodes[node].column = column;
		return node;
	}
	if (IsA(expr, Const))
	{
		Const	   *constant = (Const *) expr;

		/* a NULL constant makes the key NULL everywhere: left to the executor */
		if (constant->constisnull || (node = add_node(compiler, KEY_CONST, want)) < 0)
			return -1;
		switch (want)
		{
			case INT2OID:
				key->nodes[node].constant = DatumGetInt16(constant->constvalue);
				break;
			case INT4OID:
				key->nodes[node].constant = DatumGetInt32(constant->constvalue);
				break;
			case INT8OID:
				key->nodes[node].constant = (float8) DatumGetInt64(constant->constvalue);
				break;
			case FLOAT4OID:
				key->nodes[node].constant = DatumGetFloat4(constant->constvalue);
				break;
			default:
				key->nodes[node].constant = DatumGetFloat8(constant->constvalue);
				break;
		}
		return node;
	}
	if (IsA(expr, OpExpr))
	{
		set_opfuncid((OpExpr *) expr);
		funcid = ((OpExpr *) expr)->opfuncid;
		args = ((OpExpr *) expr)->args;
	}
	else if (IsA(expr, FuncExpr))
	{
		funcid = ((FuncExpr *) expr)->funcid;
		args = ((FuncExpr *) expr)->args;
	}
	else
		return -1;
	if (want != FLOAT8OID)
		return -1;				/* every operator here gives a double */
	for (int i = 0; i < lengthof(key_functions); i++)
	{
		const KeyFunction *function = &key_functions[i];
		int			left;
		int			right = -1;

		if (function->funcid != funcid)
			continue;
		if (list_length(args) != (OidIsValid(function->right_type) ? 2 : 1))
			return -1;
		left = compile_node(compiler, linitial(args), function->left_type);
		if (left < 0)
			return -1;
		if (function->kind == KEY_CAST)
			return left;
		if (OidIsValid(function->right_type) &&
			(right = compile_node(compiler, lsecond(args), function->right_type)) < 0)
			return -1;
		if ((node = add_node(compiler, function->kind, FLOAT8OID)) < 0)
			return -1;
		key->nodes[node].left = left;
		key->nodes[node].right = right;
		return node;
	}
	return -1;
}

RadikNativeKey *
radik_native_key_compile(Expr *expr, Relation rel)
{
	Compiler	compiler;

	compiler.key = palloc0(sizeof(RadikNativeKey));
	compiler.rel = rel;
	if (compile_node(&compiler, expr, FLOAT8OID) < 0)
	{
		pfree(compiler.key);
		return NULL;
	}
	compiler.key->row_values = palloc0(compiler.key->nnodes * sizeof(*compiler.key->row_values));
	compiler.key->row_states = palloc0(compiler.key->nnodes * sizeof(*compiler.key->row_states));
	return compiler.key;
}

/* A column's value as a double, as the cast to double precision makes it. */
static inline float8
column_double(Oid type, Datum value)
{
	switch (type)
	{
		case INT2OID:
			return DatumGetInt16(value);
		case INT4OID:
			return DatumGetInt32(value);
		case INT8OID:
			return (float8) DatumGetInt64(value);
		case FLOAT4OID:
			return DatumGetFloat4(value);
		default:
			return DatumGetFloat8(value);
	}
}

/*
 * a op b as PostgreSQL's float8_pl, _mi, _mul and _div compute it (utils/float.h); false where
 * they raise an error.
 */
static inline bool
float_arithmetic(KeyNodeKind kind, float8 a, float8 b, float8 *result)
{
	float8		r;

	switch (kind)
	{
		case KEY_ADD:
			r = a + b;
			break;
		case KEY_SUB:
			r = a - b;
			break;
		case KEY_MUL:
			r = a * b;
			if (r == 0.0 && a != 0.0 && b != 0.0)
				return false;	/* underflow */
			break;
		default:
			if (b == 0.0 && !isnan(a))
				return false;	/* division by zero */
			r = a / b;
			if (isinf(r) && !isinf(a))
				return false;	/* overflow */
			if (r == 0.0 && a != 0.0 && !isinf(b))
				return false;	/* underflow */
			*result = r;
			return true;
	}
	if (isinf(r) && !isinf(a) && !isinf(b))
		return false;			/* overflow */
	*result = r;
	return true;
}

/*
 * A unary operator's value, as PostgreSQL's computes it (utils/adt/float.c: float8abs, float8um,
 * dfloor, dceil, dtrunc, dround, dsign, dsqrt); dsqrt's error on a negative operand is left to
 * the caller.
 */
static pg_attribute_always_inline float8
unary_value(KeyNodeKind kind, float8 a)
{
	switch (kind)
	{
		case KEY_ABS:
			return fabs(a);
		case KEY_NEGATE:
			return -a;
		case KEY_FLOOR:
			return floor(a);
		case KEY_CEIL:
			return ceil(a);
		case KEY_TRUNC:
			return a >= 0 ? floor(a) : -floor(-a);
		case KEY_ROUND:
			return rint(a);
		case KEY_SIGN:
			return a > 0 ? 1.0 : a < 0 ? -1.0 : 0.0;
		default:
			return a < 0 ? 0.0 : sqrt(a);
	}
}

/*
 * One node over n rows: a column read from each tuple, a constant, or an operator over its
 * operands' values, with the state each row's value has.  An
 * operator computes every row, whatever its operands' states (a NULL column's value is 0), so
 * that each loop runs without a branch on them; the state decides what the value means.
 */
static pg_attribute_always_inline void
run_node_rows(RadikNativeKey *key, int index, KeyNodeKind kind, HeapTupleData *tuples,
			  int n)
{
	const KeyNode *node = &key->nodes[index];
	float8	   *out = key->row_values[index];
	uint8	   *state = key->row_states[index];
	const float8 *a = node->left >= 0 ? key->row_values[node->left] : NULL;
	const uint8 *a_state = node->left >= 0 ? key->row_states[node->left] : NULL;
	const float8 *b = node->right >= 0 ? key->row_values[node->right] : NULL;
	const uint8 *b_state = node->right >= 0 ? key->row_states[node->right] : NULL;

	switch (kind)
	{
		case KEY_COLUMN:
			for (int r = 0; r < n; r++)
			{
				bool		isnull;
				Datum		datum = radik_read_column(&key->columns[node->column], &tuples[r],
													  &isnull);

				out[r] = isnull ? 0.0 : column_double(node->type, datum);
				state[r] = isnull ? NODE_NULL : NODE_VALUE;
			}
			break;
		case KEY_CONST:
			for (int r = 0; r < n; r++)
			{
				out[r] = node->constant;
				state[r] = NODE_VALUE;
			}
			break;
		case KEY_ABS:
		case KEY_NEGATE:
		case KEY_FLOOR:
		case KEY_CEIL:
		case KEY_TRUNC:
		case KEY_ROUND:
		case KEY_SIGN:
			for (int r = 0; r < n; r++)
			{
				out[r] = unary_value(kind, a[r]);
				state[r] = a_state[r];
			}
			break;
		case KEY_SQRT:
			for (int r = 0; r < n; r++)
			{
				out[r] = unary_value(kind, a[r]);
				state[r] = a_state[r] != NODE_VALUE ? a_state[r] :
					a[r] < 0 ? NODE_ERROR : NODE_VALUE;
			}
			break;
		default:
			for (int r = 0; r < n; r++)
			{
				uint8		operands = operands_result(a_state[r], b_state[r]);
				bool		computed = float_arithmetic(kind, a[r], b[r], &out[r]);

				state[r] = operands != NODE_VALUE ? operands :
					computed ? NODE_VALUE : NODE_ERROR;
			}
			break;
	}
}

void
radik_native_key_run_rows(RadikNativeKey *key, HeapTupleData *tuples, int n,
						  float8 *values, RadikNativeKeyResult *results)
{
	const int	last = key->nnodes - 1;

	Assert(n <= MaxHeapTuplesPerPage);
	for (int i = 0; i < key->nnodes; i++)
	{
		/* each kind with its own loop (the kind a constant in it) */
		switch (key->nodes[i].kind)
		{
			case KEY_COLUMN:
				run_node_rows(key, i, KEY_COLUMN, tuples, n);
				break;
			case KEY_CONST:
				run_node_rows(key, i, KEY_CONST, tuples, n);
				break;
			case KEY_ADD:
				run_node_rows(key, i, KEY_ADD, tuples, n);
				break;
			case KEY_SUB:
				run_node_rows(key, i, KEY_SUB, tuples, n);
				break;
			case KEY_MUL:
				run_node_rows(key, i, KEY_MUL, tuples, n);
				break;
			case KEY_DIV:
				run_node_rows(key, i, KEY_DIV, tuples, n);
				break;
			case KEY_ABS:
				run_node_rows(key, i, KEY_ABS, tuples, n);
				break;
			case KEY_NEGATE:
				run_node_rows(key, i, KEY_NEGATE, tuples, n);
				break;
			case KEY_FLOOR:
				run_node_rows(key, i, KEY_FLOOR, tuples, n);
				break;
			case KEY_CEIL:
				run_node_rows(key, i, KEY_CEIL, tuples, n);
				break;
			case KEY_TRUNC:
				run_node_rows(key, i, KEY_TRUNC, tuples, n);
				break;
			case KEY_ROUND:
				run_node_rows(key, i, KEY_ROUND, tuples, n);
				break;
			case KEY_SIGN:
				run_node_rows(key, i, KEY_SIGN, tuples, n);
				break;
			case KEY_SQRT:
				run_node_rows(key, i, KEY_SQRT, tuples, n);
				break;
			case KEY_CAST:
				Assert(false);	/* compiled into its operand */
				break;
		}
	}
	for (int r = 0; r < n; r++)
	{
		values[r] = key->row_values[last][r];
		results[r] = key->row_states[last][r] == NODE_VALUE ? RADIK_NATIVE_KEY_VALUE :
			key->row_states[last][r] == NODE_NULL ? RADIK_NATIVE_KEY_NULL :
			RADIK_NATIVE_KEY_ASK_EXECUTOR;
	}
}

RadikNativeKeyResult
radik_native_key_run(RadikNativeKey *key, HeapTuple tuple, float8 *value)
{
	RadikNativeKeyResult result;

	radik_native_key_run_rows(key, tuple, 1, value, &result);
	return result;
}
