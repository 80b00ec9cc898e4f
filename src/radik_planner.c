/*
 * radik_planner.c
 *	  The planner side of the RadiK Top-K custom scan: a create_upper_paths_hook that offers,
 *	  for SELECT ... FROM one_table [WHERE ...] ORDER BY keys LIMIT k [OFFSET m], a path that
 *	  yields the table's best k + m rows in order, and the function turning that path into a plan.
 *	  The grouped paths of the window and distinct stages are radik_group_paths.c's.
 *
 * The path replaces "Sort over a scan" as a whole, so it belongs to the ordered relation
 * (UPPERREL_ORDERED), carrying the query's sort pathkeys; the core Limit node that
 * grouping_planner puts above every ordered path then applies OFFSET and the count, and raises
 * PostgreSQL's own errors for a negative LIMIT or OFFSET before radik runs.  The LIMIT and OFFSET
 * expressions travel with the plan and are evaluated when the node starts, so parameters
 * (PREPARE/EXECUTE, generic plans, PL/pgSQL variables) work.  The node scans the base table
 * itself (scanrelid is the table): its scan tuple is the heap tuple, its target list the ordered
 * relation's target over the table's Vars, its quals the table's restriction clauses, run per row
 * while selecting; the plan shape of postgres_fdw's ordered foreign paths, minus the remote side.
 *
 * A set_rel_pathlist_hook offers the same node over each member of an append relation
 * (add_member_topk_path).  radik declines, leaving PostgreSQL's paths untouched, wherever it
 * could not return exactly what PostgreSQL would (query_shape_supported).  FETCH FIRST k ROWS
 * WITH TIES: the node yields its k + m rows and every row tied with the last of them
 * (radik_scan.c), and the Limit node stops where the ties end, as over a Sort (which PostgreSQL
 * cannot bound there: it sorts every row).  Workers: radik_plan_workers; costs: cost_topk_path.
 */
#include "postgres.h"

#include <math.h>

#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parsetree.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/spccache.h"

#include "radik.h"
#include "radik_brin.h"
#include "radik_declines.h"
#include "radik_device.h"
#include "radik_key_mapper.h"
#include "radik_paths.h"
#include "radik_scan.h"
#include "radik_select.h"
#include "radik_settings.h"

/* PostgreSQL's guess of the rows a LIMIT with a non-constant count wants (preprocess_limit). */
#define DEFAULT_LIMIT_FRACTION 0.10

/*
 * Rows the scan hands on and carries for each row returned: the row store also holds rows handed
 * on before the threshold settled (about 1.3-1.5 per row returned for a large k in the
 * benchmark, with the sample's threshold).
 */
#define CARRIED_ROWS_PER_ROW_RETURNED 1.5

/*
 * A member of an append relation (a partition) gets parallel workers only from this many times
 * min_parallel_table_scan_size on: each member's node starts its own workers, about 5 ms each time
 * on a 16-core host, as long as radik's scan of 450k rows.  Measured (10M rows, 64 partitions of
 * 9.5 MB, 8 workers allowed): one worker a partition took 343 ms, none 139.
 */
#define MEMBER_MIN_PARALLEL_SCANS 8

/*
 * Positions in the CustomPath's custom_private (planner-internal, never copied into a plan):
 * the sort keys (a list of lists of the RadikPlannedKey fields), the parallel workers planned
 * (an Integer), and a grouped path's groups (a list of the RadikPlannedGroups fields; NIL for
 * the plain selection).  The path's parent is the table it reads, also when the path belongs to the
 * ordered relation (as postgres_fdw's ordered paths do): create_scan_plan then hands the plan
 * the table's restriction clauses and puts a gating Result above it for the pseudoconstant
 * ones, and EXPLAIN knows the table as one the plan reads.
 */
#define PATH_PRIVATE_KEYS	0
#define PATH_PRIVATE_WORKERS 1
#define PATH_PRIVATE_GROUPS 2

static create_upper_paths_hook_type prev_create_upper_paths_hook = NULL;
static set_rel_pathlist_hook_type prev_set_rel_pathlist_hook = NULL;

static void radik_create_upper_paths(PlannerInfo *root, UpperRelationKind stage,
									 RelOptInfo *input_rel, RelOptInfo *output_rel,
									 void *extra);
static void radik_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti,
								   RangeTblEntry *rte);
static Plan *radik_plan_topk_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
								  List *tlist, List *clauses, List *custom_plans);

/* The path's methods: one callback, turning the chosen path into a CustomScan plan node. */
const CustomPathMethods radik_path_methods = {
	.CustomName = RADIK_SCAN_NAME,
	.PlanCustomPath = radik_plan_topk_path,
};

void
radik_planner_init(void)
{
	prev_create_upper_paths_hook = create_upper_paths_hook;
	create_upper_paths_hook = radik_create_upper_paths;
	prev_set_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = radik_set_rel_pathlist;
}

/*
 * Is this query's shape one radik answers exactly: a SELECT with ORDER BY and LIMIT/OFFSET and
 * nothing between the scan of its one relation and the sort?
 *
 * radik declines wherever it could not return exactly what PostgreSQL would: anything but plain
 * heap tables (joins, TABLESAMPLE, foreign tables, members of an append relation that are not
 * plain tables: radik_table_readable), grouping, aggregates, DISTINCT, window functions (the
 * grouped paths of radik_group_paths.c aside), set-returning functions in the target list, set
 * operations (other than the UNION ALL the planner flattens into an append relation), FOR
 * UPDATE/SHARE, a volatile LIMIT or OFFSET (the node evaluates them apart from the Limit node, so
 * both must get the same value), and sort keys that are volatile, of a type the engine cannot
 * order, or ordered by a non-default operator family or collation (supported_sort_keys).  With
 * several sort keys, or FETCH FIRST ... WITH TIES, the quals must not be volatile either, because
 * the executor may read the table twice to gather rows tied on the first key (make_topk_path).
 */
static bool
query_shape_supported(PlannerInfo *root)
{
	Query	   *parse = root->parse;

	if (parse->commandType != CMD_SELECT)
		return false;
	if (parse->limitCount == NULL && parse->limitOffset == NULL)
		return false;
	/* The node evaluates LIMIT and OFFSET apart from the Limit node: both must agree. */
	if (contain_volatile_functions(parse->limitCount) ||
		contain_volatile_functions(parse->limitOffset))
		return false;
	if (parse->hasAggs || parse->groupClause != NIL || parse->groupingSets != NIL ||
		parse->havingQual != NULL || parse->hasWindowFuncs ||
		parse->distinctClause != NIL || parse->hasTargetSRFs ||
		parse->setOperations != NULL || parse->rowMarks != NIL || root->rowMarks != NIL)
		return false;
	return root->sort_pathkeys != NIL;
}

/*
 * Is scan_rel a table or materialized view, whole (no TABLESAMPLE, not an inheritance parent)?
 * What the range table says, without opening the relation.
 */
static bool
table_kind_readable(PlannerInfo *root, RelOptInfo *scan_rel)
{
	RangeTblEntry *rte;

	if (scan_rel->rtekind != RTE_RELATION || IS_DUMMY_REL(scan_rel))
		return false;
	rte = planner_rt_fetch(scan_rel->relid, root);
	return !rte->inh && rte->tablesample == NULL &&
		(rte->relkind == RELKIND_RELATION || rte->relkind == RELKIND_MATVIEW);
}

/* Is scan_rel a plain heap table (or materialized view) that radik's node can read whole? */
bool
radik_table_readable(PlannerInfo *root, RelOptInfo *scan_rel)
{
	Relation	rel;
	bool		is_heap;

	if (!table_kind_readable(root, scan_rel))
		return false;
	/* The planner holds a lock on the table already. */
	rel = table_open(planner_rt_fetch(scan_rel->relid, root)->relid, NoLock);
	is_heap = rel->rd_rel->relam == HEAP_TABLE_AM_OID;
	table_close(rel, NoLock);
	return is_heap;
}

/*
 * The btree strategy a pathkey sorts by (BTLessStrategyNumber for ASC, BTGreaterStrategyNumber
 * for DESC); 18 gives it as a CompareType, whose ASC and DESC have the same numbers.
 */
static inline int
pathkey_strategy(const PathKey *pathkey)
{
#if PG_VERSION_NUM >= 180000
	return (int) pathkey->pk_cmptype;
#else
	return pathkey->pk_strategy;
#endif
}

/*
 * A member of ec computable from rel's own columns, or NULL.  For a member of an append relation
 * it is a child member, which 18 keeps apart from ec_members.
 */
static EquivalenceMember *
member_of_rel(EquivalenceClass *ec, RelOptInfo *rel)
{
	EquivalenceMember *em;
#if PG_VERSION_NUM >= 180000
	EquivalenceMemberIterator it;

	setup_eclass_member_iterator(&it, ec, rel->relids);
	while ((em = eclass_member_iterator_next(&it)) != NULL)
	{
#else
	ListCell   *lc;

	foreach(lc, ec->ec_members)
	{
		em = lfirst_node(EquivalenceMember, lc);
#endif
		if (!em->em_is_const && !bms_is_empty(em->em_relids) &&
			bms_is_subset(em->em_relids, rel->relids))
			return em;
	}
	return NULL;
}

/*
 * The query's sort keys as expressions over input_rel, or NIL when one of them is not something
 * radik orders exactly as PostgreSQL does.  For a member of an append relation they are the
 * members the planner translated to its columns (em_is_child).
 */
static List *
supported_sort_keys(PlannerInfo *root, RelOptInfo *input_rel)
{
	List	   *keys = NIL;
	ListCell   *lc;

	foreach(lc, root->sort_pathkeys)
	{
		PathKey    *pathkey = lfirst_node(PathKey, lc);
		EquivalenceClass *ec = pathkey->pk_eclass;
		EquivalenceMember *member;
		RadikPlannedKey *key;
		Oid			opclass;
		Oid			datatype;
		const char *reason;

		if (ec->ec_has_volatile)
			return NIL;
		if (pathkey_strategy(pathkey) != BTLessStrategyNumber &&
			pathkey_strategy(pathkey) != BTGreaterStrategyNumber)
			return NIL;

		member = member_of_rel(ec, input_rel);
		if (member == NULL || contain_volatile_functions((Node *) member->em_expr))
			return NIL;

		/* Only the type's default btree order is the engine's order. */
		datatype = member->em_datatype;
		opclass = GetDefaultOpClass(datatype, BTREE_AM_OID);
		if (!OidIsValid(opclass) || get_opclass_family(opclass) != pathkey->pk_opfamily)
			return NIL;

		key = palloc0(sizeof(RadikPlannedKey));
		/*
		 * A binary-compatible relabeling (varchar sorted as text, a domain as its base type, a
		 * COLLATE clause) changes nothing radik reads, so a relabeled column is read as a column.
		 */
		key->expr = member->em_expr;
		while (IsA(key->expr, RelabelType))
			key->expr = ((RelabelType *) key->expr)->arg;
		/* an enum's opclass takes anyenum: the key's own type, under any domain, orders it */
		key->type = getBaseType(IsPolymorphicType(datatype) ? exprType((Node *) key->expr) :
								datatype);
		key->collation = ec->ec_collation;
		key->descending = pathkey_strategy(pathkey) == BTGreaterStrategyNumber;
		key->nulls_first = pathkey->pk_nulls_first;
		key->sort_operator = get_opfamily_member(pathkey->pk_opfamily, datatype, datatype,
												 pathkey_strategy(pathkey));
		if (!OidIsValid(key->sort_operator))
			return NIL;
		if (!radik_key_orderable(key->type, key->collation, key->sort_operator, &reason))
		{
			radik_decline("ORDER BY %s: %s", format_type_be(key->type), reason);
			return NIL;
		}
		keys = lappend(keys, key);
	}
	return keys;
}

/*
 * The table's restriction clauses as plain expressions, for the path's costs and checks.  The
 * pseudoconstant ones are left out: as above PostgreSQL's own scans, a gating Result above the
 * node evaluates them once (create_scan_plan).  The plan node gets the clauses again from
 * create_customscan_plan, in the order PostgreSQL's scans evaluate them (radik_plan_topk_path).
 */
List *
radik_table_quals(RelOptInfo *input_rel)
{
	return extract_actual_clauses(input_rel->baserestrictinfo, false);
}

/* A LIMIT or OFFSET expression's value as the planner sees it: -1 when unknown or NULL. */
static double
estimate_limit_value(PlannerInfo *root, Node *expr, bool *known, bool *is_null)
{
	Node	   *estimate;

	*known = false;
	*is_null = false;
	if (expr == NULL)
		return -1;
	estimate = estimate_expression_value(root, expr);
	if (!IsA(estimate, Const))
		return -1;
	*known = true;
	if (((Const *) estimate)->constisnull)
	{
		*is_null = true;
		return -1;
	}
	return (double) DatumGetInt64(((Const *) estimate)->constvalue);
}

/* How many rows the node will return: count + offset, bounded by the rows that qualify. */
static double
estimate_rows_wanted(PlannerInfo *root, double rows)
{
	Query	   *parse = root->parse;
	bool		known;
	bool		is_null;
	double		count;
	double		offset;

	count = estimate_limit_value(root, parse->limitCount, &known, &is_null);
	if (parse->limitCount == NULL || is_null)
		count = rows;			/* no LIMIT, LIMIT ALL or LIMIT NULL */
	else if (!known)
		count = rows * DEFAULT_LIMIT_FRACTION;

	offset = estimate_limit_value(root, parse->limitOffset, &known, &is_null);
	if (parse->limitOffset == NULL || is_null)
		offset = 0;
	else if (!known)
		offset = rows * DEFAULT_LIMIT_FRACTION;

	count = Max(count, 0) + Max(offset, 0);
	return clamp_row_est(Min(count, rows));
}

/*
 * Will the executor make the rows from their keys (radik_scan.c): one sort key, a plain column,
 * and no other column of the table in the target?
 */
static bool
reads_only_first_key(RelOptInfo *input_rel, List *keys, PathTarget *target)
{
	RadikPlannedKey *key = linitial(keys);
	Var		   *var = (Var *) key->expr;
	Bitmapset  *columns = NULL;

	if (list_length(keys) != 1 || !IsA(var, Var) || var->varno != input_rel->relid ||
		var->varattno <= 0 || !radik_key_type_exact(key->type))
		return false;
	pull_varattnos((Node *) target->exprs, input_rel->relid, &columns);
	columns = bms_del_member(columns, var->varattno - FirstLowInvalidHeapAttributeNumber);
	return bms_is_empty(columns);
}

/*
 * Pages read again from outside shared buffers while fetching the wanted rows in batches: each
 * batch visits up to every page once, and the part of the table beyond shared buffers is not
 * there any more when the next batch comes.
 */
static double
fetch_pages_reread(RelOptInfo *input_rel, double tuples, double wanted)
{
	double		batch_rows = radik_fetch_batch_rows(input_rel->pages, tuples);
	double		batches = ceil(wanted / batch_rows);
	double		pages_per_batch = Min(input_rel->pages, Min(wanted, batch_rows));
	double		uncached = 1.0 - (double) NBuffers / input_rel->pages;

	return batches * pages_per_batch * uncached;
}

/* Does node hold a Param other than a query parameter (PARAM_EXTERN)? */
static bool
contains_non_extern_param(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind != PARAM_EXTERN)
		return true;
	return expression_tree_walker(node, contains_non_extern_param, context);
}

/*
 * How many parallel workers should extract keys with the backend running the query, provided the
 * query may run in parallel mode at all and the workers can evaluate the quals and the sort keys
 * (parallel safe, and no Param but the query's own parameters, which are sent along).  The node
 * stays out of any Gather and starts them itself (radik_parallel.c), so the planner only records
 * how many and asks the executor for parallel mode.
 *
 * The table's parallel_workers option rules, as for any parallel scan.  Otherwise radik asks for
 * one worker per min_parallel_table_scan_size of table, up to max_parallel_workers_per_gather,
 * where PostgreSQL's own rule (compute_parallel_worker) adds a worker only each time the table
 * triples: key extraction is a streaming scan whose workers send back almost nothing, so every
 * worker adds its full share (measured on 50M rows, 16 cores: 0, 2, 4, 8 and 15 workers took
 * 780, 313, 175, 118 and 77 ms), while the rows a parallel Sort plan sends through a Gather
 * make PostgreSQL's plans gain less from each worker.
 */
int
radik_plan_workers(PlannerInfo *root, RelOptInfo *input_rel, List *quals, List *exprs)
{
	if (!root->glob->parallelModeOK || !input_rel->consider_parallel ||
		max_parallel_workers_per_gather <= 0)
		return 0;
	if (!is_parallel_safe(root, (Node *) exprs) || !is_parallel_safe(root, (Node *) quals))
		return 0;
	if (contains_non_extern_param((Node *) quals, NULL) ||
		contains_non_extern_param((Node *) exprs, NULL))
		return 0;
	if (input_rel->rel_parallel_workers != -1)
		return Min(input_rel->rel_parallel_workers, max_parallel_workers_per_gather);
	/*
	 * Too small a table for any worker.  compute_parallel_worker checks this for a base relation
	 * only (a Parallel Append spreads small members over workers it starts once); radik's node on
	 * a member starts workers for that member alone, so a member needs MEMBER_MIN_PARALLEL_SCANS
	 * times min_parallel_table_scan_size before its scan outlasts their start.
	 */
	if (input_rel->reloptkind == RELOPT_OTHER_MEMBER_REL &&
		input_rel->pages < (double) MEMBER_MIN_PARALLEL_SCANS * min_parallel_table_scan_size)
		return 0;
	if (compute_parallel_worker(input_rel, input_rel->pages, -1,
								max_parallel_workers_per_gather) == 0)
		return 0;
	return (int) Min((double) max_parallel_workers_per_gather,
					 Max(1.0, input_rel->pages / Max(min_parallel_table_scan_size, 1)));
}

/*
 * The share of the per-row work the backend running the query does itself, as cost_seqscan
 * counts it for a parallel plan: each worker one share, the leader what is left of its time
 * after serving the workers.
 */
double
radik_parallel_divisor(int workers)
{
	double		divisor = workers;

	if (parallel_leader_participation)
	{
		double		leader_share = 1.0 - 0.3 * workers;

		if (leader_share > 0)
			divisor += leader_share;
	}
	return divisor;
}

/*
 * Fill in the path's costs, meant to be honest against the Sort paths next to it, so that
 * add_path picks the faster plan.  Both pay for reading the table and running the quals (with
 * workers, the per-row part shared among the processes as cost_seqscan shares it, plus
 * parallel_setup_cost); PostgreSQL's top-N heapsort then pays about
 * 2 * cpu_operator_cost * log2(2k) per row (cost_sort).  radik pays radik.key_cost per row, a
 * fixed radik.selection_cost per query, radik.gpu_startup_cost once per backend before it has
 * started the GPU (only under radik.device = gpu, where the query waits for the start, and on
 * machines with an NVIDIA device; under auto the GPU starts in the background while the CPU twin
 * selects), and returning its k rows: those the scan carried whole within work_mem at about the
 * cost of a row made from its key, the rest fetched by TID (with several sort keys, also fetching
 * and sorting the rows tied on the first key; when only the sort key's column is read, the rows
 * are made from their keys and nothing is fetched).  radik.force makes radik's path the only one
 * wherever radik can answer (radik_add_path).
 *
 * gpu_startup_share is the part of radik.gpu_startup_cost this path pays (the members of an
 * append relation share it).
 */
static void
cost_topk_path(PlannerInfo *root, RelOptInfo *input_rel, CustomPath *path, List *quals,
			   List *keys, PathTarget *target, int workers, double gpu_startup_share)
{
	RadikPlannedKey *first_key = linitial(keys);
	bool		with_ties = root->parse->limitOption == LIMIT_OPTION_WITH_TIES;
	bool		sorts_candidates = radik_keys_sort_candidates(list_length(keys), first_key->type);
	double		tuples = Max(input_rel->tuples, 1);
	double		rows = Max(input_rel->rows, 1);
	double		wanted = estimate_rows_wanted(root, rows);
	double		spc_seq_page_cost;
	QualCost	qual_cost;
	QualCost	key_cost;
	double		read_share;
	double		summaries;
	Cost		startup;
	Cost		run;

	get_tablespace_page_costs(input_rel->reltablespace, NULL, &spc_seq_page_cost);
	cost_qual_eval(&qual_cost, quals, root);
	cost_qual_eval_node(&key_cost, (Node *) first_key->expr, root);
	if (list_length(keys) > 1)
	{
		List	   *expression_keys = NIL;
		bool		later_expression = false;
		QualCost	computed_cost;
		ListCell   *lc;

		/* expression keys are all computed for every row when a later key is one (radik_scan.c) */
		foreach(lc, keys)
		{
			Expr	   *expr = ((RadikPlannedKey *) lfirst(lc))->expr;

			if (IsA(expr, Var))
				continue;
			expression_keys = lappend(expression_keys, expr);
			later_expression |= foreach_current_index(lc) > 0;
		}
		if (later_expression)
		{
			cost_qual_eval(&computed_cost, expression_keys, root);
			key_cost.startup += computed_cost.startup;
			key_cost.per_tuple += computed_cost.per_tuple;
		}
	}

	/*
	 * With a BRIN index that lets most block ranges be skipped, the backend alone reads the
	 * share of the table expected, after the index's summaries (radik_brin.h).
	 */
	read_share = radik_brin_read_share(root, input_rel, first_key->expr, first_key->type,
									   first_key->collation, wanted, &summaries);
	if (read_share * 2 * (1 + workers) > 1)
	{
		read_share = 1;
		summaries = 0;
	}

	/*
	 * Reading the table and running the quals, as a sequential scan does, and extracting and
	 * selecting the first key of every qualifying row; with workers, the per-row work is shared
	 * as in a parallel sequential scan, and the rows the workers send (about what the running
	 * k-th key lets through) a quarter of what a Gather pays per row.
	 */
	startup = ((cpu_tuple_cost + qual_cost.per_tuple) * tuples +
			   (key_cost.per_tuple + radik_key_cost) * rows) * read_share +
		(cpu_index_tuple_cost + cpu_operator_cost) * summaries;
	if (workers > 0 && read_share == 1)
	{
		double		sent = Min(rows, wanted * (1.0 + log(Max(rows / wanted, 1.0))));

		startup = startup / radik_parallel_divisor(workers) + parallel_setup_cost +
			SENT_ROW_PARALLEL_TUPLE_COSTS * parallel_tuple_cost * sent;
	}
	startup += spc_seq_page_cost * input_rel->pages * read_share + qual_cost.startup +
		key_cost.startup;
	startup += radik_selection_cost;
	if (radik_gpu_startup_pending())
		startup += radik_gpu_startup_cost * gpu_startup_share;

	/*
	 * Several keys, or a first key whose engine key only summarizes it (numeric, text, uuid, an
	 * enum): the rows tied with the k-th on the first key are candidates too (about one group of
	 * equal first keys more); they are fetched and sorted by all keys.  WITH TIES with one exact
	 * key: that group is returned too, fetched like the other rows.
	 */
	if (sorts_candidates || with_ties)
	{
		double		groups = estimate_num_groups(root, list_make1(first_key->expr), rows,
												 NULL, NULL);
		RadikSortKey summary;
		double		candidates;

		/* with a summary key, the rows whose values share the best summary tie too */
		memset(&summary, 0, sizeof(summary));
		summary.type = first_key->type;
		summary.collation = first_key->collation;
		summary.sort_operator = first_key->sort_operator;
		summary.descending = first_key->descending;
		candidates = Min(rows, wanted + Max(rows / Max(groups, 1.0),
											rows * radik_summary_tie_share(root, &summary,
																		   (Node *) first_key->expr)));

		if (sorts_candidates)
		{
			QualCost	all_keys_cost;
			List	   *exprs = NIL;
			ListCell   *lc;

			foreach(lc, keys)
				exprs = lappend(exprs, ((RadikPlannedKey *) lfirst(lc))->expr);
			cost_qual_eval(&all_keys_cost, exprs, root);
			startup += candidates * (FETCH_ROW_CPU_TUPLE_COSTS * cpu_tuple_cost +
									 all_keys_cost.per_tuple) +
				2.0 * cpu_operator_cost * candidates * log2(Max(2.0 * wanted, 2.0));
		}
		else
			startup += (candidates - wanted) * FETCH_ROW_CPU_TUPLE_COSTS * cpu_tuple_cost;
	}

	/*
	 * Fetching the selected rows by TID and projecting them; when the query reads only the one
	 * sort key's column, the executor makes the rows from their keys instead of fetching them.
	 */
	if (reads_only_first_key(input_rel, keys, target))
	{
		run = wanted * (cpu_tuple_cost + target->cost.per_tuple) + target->cost.startup;
	}
	else
	{
		double		carried = Min(wanted, radik_carry_capacity_rows(input_rel->pages, tuples) /
								  CARRIED_ROWS_PER_ROW_RETURNED);
		double		fetched = wanted - carried;

		run = carried * CARRIED_ROW_CPU_TUPLE_COSTS * cpu_tuple_cost +
			fetched * FETCH_ROW_CPU_TUPLE_COSTS * cpu_tuple_cost +
			wanted * target->cost.per_tuple + target->cost.startup;

		/*
		 * The rows not carried are fetched in batches (see radik_scan.c), each visiting up to
		 * every page of the table once.  The part of the table that cannot stay in shared
		 * buffers is read again by every batch.
		 */
		if (input_rel->pages > NBuffers && fetched > 0)
			run += fetch_pages_reread(input_rel, tuples, fetched) * spc_seq_page_cost;
	}

	/*
	 * Like a Sort path, the path claims every qualifying row, its run cost scaled to match, so
	 * that add_path compares it fairly with the Sort paths beside it; the Limit node above then
	 * charges the fraction it reads, which is the cost of the rows radik returns.
	 */
	path->path.rows = rows;
	path->path.startup_cost = startup;
	path->path.total_cost = startup + run * (rows / wanted);
}


CustomPath *
radik_make_path(RelOptInfo *scan_rel, PathTarget *target, List *pathkeys, List *keys,
				int workers, const RadikPlannedGroups *groups)
{
	CustomPath *path = makeNode(CustomPath);
	List	   *key_private = NIL;
	List	   *group_private = NIL;
	ListCell   *lc;

	foreach(lc, keys)
	{
		RadikPlannedKey *key = lfirst(lc);

		key_private = lappend(key_private,
							  lappend(list_make5(key->expr,
												 makeInteger(key->type),
												 makeInteger(key->sort_operator),
												 makeInteger(key->descending),
												 makeInteger(key->nulls_first)),
									  makeInteger(key->collation)));
	}
	if (groups != NULL)
		group_private = list_make5(groups->exprs, groups->equality_operators,
								   groups->collations, groups->k,
								   list_make4_int(groups->selecting_key, groups->k_exclusive,
												  groups->cut, groups->first_of_group));

	path->path.pathtype = T_CustomScan;
	path->path.parent = scan_rel;
	path->path.pathtarget = target;
	path->path.param_info = NULL;
	/*
	 * Never under a Gather: the node runs in the backend running the query, and starts its own
	 * workers to read the table (radik_parallel.c).
	 */
	path->path.parallel_aware = false;
	path->path.parallel_safe = false;
	path->path.parallel_workers = 0;
	path->path.pathkeys = pathkeys;
	/* The selected rows stay in memory: the node can return them backward too (cursors). */
	path->flags = CUSTOMPATH_SUPPORT_PROJECTION | CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
	path->custom_paths = NIL;
	path->custom_private = list_make3(key_private, makeInteger(workers), group_private);
	path->methods = &radik_path_methods;
	return path;
}

/*
 * A path of radik's node reading the table scan_rel and yielding its best rows in the query's
 * order with the given target, for the ordered relation or, when scan_rel is a member of an
 * append relation, for scan_rel itself; NULL where radik declines.
 */
static CustomPath *
make_topk_path(PlannerInfo *root, RelOptInfo *scan_rel, PathTarget *target,
			   double gpu_startup_share)
{
	CustomPath *path;
	List	   *keys;
	List	   *quals;
	List	   *key_exprs = NIL;
	int			workers;
	ListCell   *lc;

	keys = supported_sort_keys(root, scan_rel);
	if (keys == NIL)
		return NULL;
	quals = radik_table_quals(scan_rel);
	/* Rows tied on the first key may be gathered by a second read of the table. */
	if ((radik_keys_sort_candidates(list_length(keys), ((RadikPlannedKey *) linitial(keys))->type) ||
		 root->parse->limitOption == LIMIT_OPTION_WITH_TIES) &&
		contain_volatile_functions((Node *) quals))
		return NULL;
	/* every key: the workers compute the later ones too, for their errors (radik_scan.c) */
	foreach(lc, keys)
		key_exprs = lappend(key_exprs, ((RadikPlannedKey *) lfirst(lc))->expr);
	workers = radik_plan_workers(root, scan_rel, quals, key_exprs);
	path = radik_make_path(scan_rel, target, root->sort_pathkeys, keys, workers, NULL);
	cost_topk_path(root, scan_rel, path, quals, keys, target, workers, gpu_startup_share);
	return path;
}

/*
 * Is root the subquery planagg.c builds to read min(x) or max(x) of the query above it as
 * "SELECT x ... ORDER BY x LIMIT 1" (build_minmax_path)?  Its one target entry is named
 * "agg_target", and the query it was copied from has the aggregates.
 */
static bool
planning_minmax_subquery(PlannerInfo *root)
{
	TargetEntry *tle;

	if (root->parent_root == NULL || !root->parent_root->parse->hasAggs ||
		root->parse->hasAggs || list_length(root->processed_tlist) != 1)
		return false;
	tle = linitial_node(TargetEntry, root->processed_tlist);
	return tle->resname != NULL && strcmp(tle->resname, "agg_target") == 0;
}

/*
 * Offer path in rel; under radik.force (for testing) as rel's only way to produce its rows,
 * except for min() and max(): radik.force asks for radik where radik can answer, not instead of
 * the index that reads one row for them (planagg.c builds their "ORDER BY x LIMIT 1" over the
 * members of a partitioned table).
 */
void
radik_add_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *path)
{
	if (radik_force && !planning_minmax_subquery(root))
	{
		/*
		 * For a member of an append relation, so that whichever plan the planner builds over the
		 * members (Merge Append, or a Sort over an Append) reads radik's node.
		 */
		rel->pathlist = NIL;
		rel->partial_pathlist = NIL;
	}
	add_path(rel, &path->path);
}

/* At the ordered stage: the query reads one plain table, and radik's node can replace the Sort. */
static void
add_ordered_topk_path(PlannerInfo *root, RelOptInfo *input_rel, RelOptInfo *ordered_rel)
{
	PathTarget *target = root->upper_targets[UPPERREL_ORDERED];
	CustomPath *path;

	if (target == NULL || !query_shape_supported(root) ||
		input_rel->reloptkind != RELOPT_BASEREL || !radik_table_readable(root, input_rel))
		return;
	path = make_topk_path(root, input_rel, target, 1.0);
	if (path != NULL)
		radik_add_path(root, ordered_rel, path);
}

/*
 * How many members of member_rel's topmost append relation radik's node may read (not those
 * pruned, nor those that are not tables): they share the GPU's start in the costs, when a query
 * would wait for it (radik.device = gpu).  Each member counts them all, so the count only reads
 * the range table (opening every member's relation here took 55 ms of planning with 1000
 * partitions); a member of another table access method, rarely met, is counted too and only
 * lowers the share.
 */
static int
count_readable_members(PlannerInfo *root, RelOptInfo *member_rel)
{
	int			members = 0;

	for (int i = 1; i < root->simple_rel_array_size; i++)
	{
		RelOptInfo *other = root->simple_rel_array[i];

		if (other != NULL && other->reloptkind == RELOPT_OTHER_MEMBER_REL &&
			bms_equal(other->top_parent_relids, member_rel->top_parent_relids) &&
			table_kind_readable(root, other))
			members++;
	}
	return Max(members, 1);
}

/*
 * A member of the append relation that is the query's one relation (a partition, an inheritance
 * child, a UNION ALL arm): radik's node over the member, in the query's order, beside the
 * member's own paths.  The planner plans such a query's members one by one; each member that is
 * a plain heap table gets the node, yielding its own best k + m rows (and their ties) in order;
 * PostgreSQL's Merge Append then merges the members' rows and the Limit node above stops after
 * k + m.  The best k + m rows of the whole are among the union of each member's best k + m (and
 * each member's rows tied with its last hold every row tied with the whole's last), so any plan
 * that reads the members' nodes, Merge Append or a Sort over an Append, returns PostgreSQL's
 * rows; members radik cannot read keep their Sort.  Partition pruning, at plan time and at run
 * time, works as for any member path.
 */
static void
add_member_topk_path(PlannerInfo *root, RelOptInfo *member_rel)
{
	CustomPath *path;

	if (member_rel->reloptkind != RELOPT_OTHER_MEMBER_REL ||
		!bms_equal(member_rel->top_parent_relids, root->all_baserels) ||
		!query_shape_supported(root) || !radik_table_readable(root, member_rel))
		return;
	/* The planner orders the members' rows by the query's pathkeys: they must be the sort's. */
	if (compare_pathkeys(root->query_pathkeys, root->sort_pathkeys) != PATHKEYS_EQUAL)
		return;
	/* the members share the GPU's start, where the query would wait for it (else it is free) */
	path = make_topk_path(root, member_rel, member_rel->reltarget,
						  radik_gpu_startup_pending() ?
						  1.0 / count_readable_members(root, member_rel) : 1.0);
	if (path != NULL)
		radik_add_path(root, member_rel, path);
}

static void
radik_create_upper_paths(PlannerInfo *root, UpperRelationKind stage, RelOptInfo *input_rel,
						 RelOptInfo *output_rel, void *extra)
{
	if (prev_create_upper_paths_hook)
		prev_create_upper_paths_hook(root, stage, input_rel, output_rel, extra);

	if (!radik_enabled)
		return;
	if (stage == UPPERREL_ORDERED)
		add_ordered_topk_path(root, input_rel, output_rel);
	else if (stage == UPPERREL_WINDOW)
		radik_add_window_path(root, input_rel, output_rel);
	else if (stage == UPPERREL_DISTINCT)
		radik_add_distinct_path(root, input_rel, output_rel);
}

static void
radik_set_rel_pathlist(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	if (prev_set_rel_pathlist_hook)
		prev_set_rel_pathlist_hook(root, rel, rti, rte);

	if (radik_enabled)
		add_member_topk_path(root, rel);
}

/*
 * The columns of tlist holding the DISTINCT ON expressions of clauses (their sort group
 * references label them, as in any plan built for an exact target list), with the clauses'
 * equality operators and the expressions' collations: three lists.
 */
static List *
distinct_on_columns(List *clauses, List *tlist)
{
	List	   *columns = NIL;
	List	   *operators = NIL;
	List	   *collations = NIL;
	ListCell   *lc;

	foreach(lc, clauses)
	{
		SortGroupClause *clause = lfirst_node(SortGroupClause, lc);
		TargetEntry *tle = get_sortgroupclause_tle(clause, tlist);

		columns = lappend_int(columns, tle->resno);
		operators = lappend_oid(operators, clause->eqop);
		collations = lappend_oid(collations, exprCollation((Node *) tle->expr));
	}
	return list_make3(columns, operators, collations);
}

/*
 * PlanCustomPath: the CustomScan node for the chosen path (layout in radik_scan.h).  tlist is the
 * path's target, built by create_scan_plan; clauses are the table's restriction clauses, which
 * create_customscan_plan has put in the order PostgreSQL's own scans evaluate them
 * (order_qual_clauses: row-level security's first, then the cheapest), so that a row
 * PostgreSQL's Filter rejects before reaching a clause that would fail never raises that
 * clause's error here either.  The pseudoconstant ones are left to the gating Result above.
 */
static Plan *
radik_plan_topk_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
					 List *clauses, List *custom_plans)
{
	Query	   *parse = root->parse;
	CustomScan *cscan = makeNode(CustomScan);
	List	   *key_private = list_nth(best_path->custom_private, PATH_PRIVATE_KEYS);
	int			workers = intVal(list_nth(best_path->custom_private, PATH_PRIVATE_WORKERS));
	List	   *group_private = list_nth(best_path->custom_private, PATH_PRIVATE_GROUPS);
	bool		with_ties = parse->limitOption == LIMIT_OPTION_WITH_TIES;
	Node	   *limit_count;
	Node	   *limit_offset;
	List	   *key_exprs = NIL;
	List	   *types = NIL;
	List	   *operators = NIL;
	List	   *descending = NIL;
	List	   *nulls_first = NIL;
	List	   *collations = NIL;
	List	   *groups = NIL;
	List	   *group_exprs = NIL;
	ListCell   *lc;

	/*
	 * A grouped path's one child is PostgreSQL's own sorted plan of the same rows, which the node
	 * returns where its groups pass their memory: the node's target list is the child's, so that
	 * a row of either fits the plan above.
	 */
	Assert(custom_plans == NIL || group_private != NIL);
	if (custom_plans != NIL)
		tlist = copyObject(((Plan *) linitial(custom_plans))->targetlist);

	limit_offset = (Node *) makeConst(INT8OID, -1, InvalidOid, sizeof(int64), Int64GetDatum(0),
									  false, FLOAT8PASSBYVAL);
	if (group_private != NIL)
	{
		/* a grouped path: its count is the rows each group keeps, with no offset */
		limit_count = copyObject(list_nth(group_private, 3));
		group_exprs = copyObject(linitial(group_private));
		groups = list_make3(lsecond(group_private), lthird(group_private),
							list_nth(group_private, 4));
		if (list_nth_int(list_nth(group_private, 4), RADIK_GROUP_FIRST_OF_GROUP))
			groups = list_concat(groups, distinct_on_columns(parse->distinctClause, tlist));
		with_ties = false;
	}
	else
	{
		limit_count = parse->limitCount != NULL ? copyObject(parse->limitCount) :
			(Node *) makeNullConst(INT8OID, -1, InvalidOid);
		if (parse->limitOffset != NULL)
			limit_offset = copyObject(parse->limitOffset);
	}

	foreach(lc, key_private)
	{
		List	   *fields = lfirst(lc);

		key_exprs = lappend(key_exprs, copyObject(linitial(fields)));
		types = lappend_oid(types, (Oid) intVal(lsecond(fields)));
		operators = lappend_oid(operators, (Oid) intVal(lthird(fields)));
		descending = lappend_int(descending, intVal(lfourth(fields)));
		nulls_first = lappend_int(nulls_first, intVal(list_nth(fields, 4)));
		collations = lappend_oid(collations, (Oid) intVal(list_nth(fields, 5)));
	}

	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = extract_actual_clauses(clauses, false);
	cscan->scan.scanrelid = rel->relid;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = list_concat(list_concat(list_make2(limit_count, limit_offset), key_exprs),
									  group_exprs);
	cscan->custom_private = list_make5(types, operators, descending, nulls_first, collations);
	cscan->custom_private = lappend(cscan->custom_private, list_make2_int(workers, with_ties));
	cscan->custom_private = lappend(cscan->custom_private, groups);

	/* The executor enters parallel mode for the query, as it does for a Gather. */
	if (workers > 0)
		root->glob->parallelModeNeeded = true;
	cscan->custom_scan_tlist = NIL;
	cscan->methods = &radik_scan_methods;
	return &cscan->scan.plan;
}
