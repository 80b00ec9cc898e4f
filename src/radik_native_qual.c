/*
 * radik_native_qual.c
 *	  Compile simple WHERE clauses into a small expression tree and run it on rows' raw column
 *	  values (radik_native_qual.h), node by node over a page's rows; the usual clauses run row by
 *	  row instead (radik_native_simple.c).
 *
 * Supported, in an implicitly ANDed list of clauses:
 *  - comparisons (< <= = >= > <>) of the btree integer family (smallint, integer, bigint, mixed
 *    as PostgreSQL allows) and of the float family (real, double precision), whose operands are
 *    columns, constants or integer arithmetic;
 *  - integer arithmetic + - * / % (PostgreSQL's int2, int4 and int8 operators, mixed widths
 *    included), over columns, constants and such arithmetic;
 *  - col IS NULL, col IS NOT NULL;
 *  - a text or varchar column [NOT] LIKE a constant pattern of literal text and % (the match is
 *    radik_native_like.c's; a compressed or TOASTed value is left to the executor);
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
 * column, run in one loop over the page's rows instead (radik_native_simple.c), each column read at
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
#include "nodes/nodeFuncs.h"
#include "nodes/primnodes.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "radik_compat.h"
#include "radik_keys.h"
#include "radik_native_nodes.h"
#include "radik_native_qual.h"

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

/* Compile text_column [NOT] LIKE 'pattern'; the node's index, or -1 when unsupported. */
static int
compile_like(Compiler *compiler, OpExpr *opexpr)
{
	RadikNativeQual *qual = compiler->qual;
	Expr	   *arg = linitial(opexpr->args);
	Const	   *pattern = lsecond(opexpr->args);
	Var		   *var;
	Oid			column_type;
	int			column;
	int			node;
	RadikLikePattern *like;

	while (IsA(arg, RelabelType))	/* varchar, or a domain, as text */
		arg = ((RelabelType *) arg)->arg;
	if (!IsA(arg, Var) || !IsA(pattern, Const) || pattern->constisnull ||
		pattern->consttype != TEXTOID)
		return -1;
	var = (Var *) arg;
	column_type = getBaseType(var->vartype);
	if (var->varattno <= 0 || var->varlevelsup != 0 ||
		(column_type != TEXTOID && column_type != VARCHAROID))
		return -1;
	like = radik_like_compile(DatumGetTextPP(pattern->constvalue), opexpr->inputcollid);
	if (like == NULL)
		return -1;
	column = column_index(compiler, var->varattno);
	if (column < 0 || (node = add_node(compiler, NATIVE_LIKE)) < 0)
		return -1;
	qual->nodes[node].column = column;
	qual->nodes[node].like = like;
	qual->nodes[node].not_like = opexpr->opfuncid == F_TEXTNLIKE;
	return node;
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
	if (IsA(clause, OpExpr) &&
		(((OpExpr *) clause)->opfuncid == F_TEXTLIKE ||
		 ((OpExpr *) clause)->opfuncid == F_TEXTNLIKE))
		return compile_like(compiler, (OpExpr *) clause);
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
	radik_native_compile_simple(compiler.qual);
	return compiler.qual;
}

bool
radik_native_qual_matches_text(const RadikNativeQual *qual)
{
	for (int i = 0; i < qual->nnodes; i++)
		if (qual->nodes[i].kind == NATIVE_LIKE)
			return true;
	return false;
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
 * Evaluate a LIKE node over rows 0 .. n: values[row].i is 1 when the row's value matches (does
 * not, for NOT LIKE).  A compressed or TOASTed value is an "error": the executor decides its row.
 */
static void
run_like(const RadikNativeQual *qual, int node_index, int n)
{
	const NativeNode *node = &qual->nodes[node_index];
	const Datum *restrict datums = qual->column_values[node->column];
	const bool *restrict nulls = qual->column_nulls[node->column];
	NativeValue *restrict values = qual->values[node_index];
	uint8	   *restrict results = qual->results[node_index];

	for (int row = 0; row < n; row++)
	{
		const struct varlena *value = (const struct varlena *) DatumGetPointer(datums[row]);

		if (nulls[row])
			results[row] = NODE_NULL;
		else if (VARATT_IS_EXTERNAL(value) || VARATT_IS_COMPRESSED(value))
			results[row] = NODE_ERROR;
		else
		{
			results[row] = NODE_VALUE;
			values[row].i = radik_like_match(node->like, VARDATA_ANY(value),
											 VARSIZE_ANY_EXHDR(value)) != node->not_like;
		}
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
			case NATIVE_LIKE:
				run_like(qual, i, n);
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

void
radik_native_qual_run_page(const RadikNativeQual *qual, Page page, BlockNumber block,
						   const OffsetNumber *offsets, int n, RadikQualResult *verdicts)
{
	HeapTupleData tuple;

	Assert(n <= NATIVE_ROWS);
	if (qual->simple != NULL && radik_native_run_simple_page(qual, page, offsets, n, verdicts))
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
