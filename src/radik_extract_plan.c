/*
 * radik_extract_plan.c
 *	  How the extractor runs a scan's quals and computes its key (radik_extract.h): natively on
 *	  raw column values, through the executor, or the key read first and the quals after it.
 */
#include "postgres.h"

#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "radik_extract.h"

/*
 * Might the quals raise an error, or have an effect, that depends on a row's values?  Their
 * functions must not be volatile, and be leakproof (which promises no error that depends on the
 * arguments) or LIKE and ILIKE against a pattern that is not a column (whose errors depend on the
 * pattern alone, so the first row tested raises them, as in PostgreSQL's scan).  Such quals can
 * be left out for rows that cannot be selected without hiding an error PostgreSQL would raise.
 */
static bool
qual_may_fail_on_values(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, FuncExpr) || IsA(node, OpExpr))
	{
		Oid			func;
		List	   *args;

		if (IsA(node, FuncExpr))
		{
			func = ((FuncExpr *) node)->funcid;
			args = ((FuncExpr *) node)->args;
		}
		else
		{
			set_opfuncid((OpExpr *) node);
			func = ((OpExpr *) node)->opfuncid;
			args = ((OpExpr *) node)->args;
		}
		if (func_volatile(func) == PROVOLATILE_VOLATILE)
			return true;
		switch (func)
		{
			case F_TEXTLIKE:
			case F_TEXTNLIKE:
			case F_TEXTICLIKE:
			case F_TEXTICNLIKE:
			case F_BPCHARLIKE:
			case F_BPCHARNLIKE:
			case F_BPCHARICLIKE:
			case F_BPCHARICNLIKE:
			case F_NAMELIKE:
			case F_NAMENLIKE:
				if (list_length(args) != 2 || !IsA(lsecond(args), Const))
					return true;
				break;
			default:
				if (!get_func_leakproof(func))
					return true;
		}
	}
	else if (!IsA(node, Var) && !IsA(node, Const) && !IsA(node, BoolExpr) &&
			 !IsA(node, NullTest) && !IsA(node, BooleanTest) && !IsA(node, RelabelType) &&
			 !IsA(node, List))
		return true;
	return expression_tree_walker(node, qual_may_fail_on_values, context);
}

bool
radik_extract_key_read_first(List *quals, const RadikSortKey *key)
{
	return quals != NIL && key->attnum > 0 && !qual_may_fail_on_values((Node *) quals, NULL);
}

RadikNativeQual *
radik_extract_native_quals(List *quals, Relation rel, const RadikSortKey *key)
{
	RadikNativeQual *native = radik_native_qual_compile(quals, rel);

	if (native != NULL && radik_native_qual_matches_text(native) && radik_extract_key_read_first(quals, key))
		return NULL;
	return native;
}

RadikNativeKey *
radik_extract_native_key(const RadikSortKey *key, Relation rel)
{
	if (key->attnum > 0 || key->type != FLOAT8OID)
		return NULL;
	return radik_native_key_compile(key->expr->expr, rel);
}
