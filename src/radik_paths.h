/*
 * radik_paths.h
 *	  What the planner's two files share (radik_planner.c: ORDER BY ... LIMIT; radik_group_paths.c:
 *	  the best rows of each group): the sort keys and groups a path of radik's node carries, and
 *	  how such a path is made, costed pieces, and offered.
 */
#ifndef RADIK_PATHS_H
#define RADIK_PATHS_H

#include "postgres.h"

#include "nodes/pathnodes.h"

#include "radik_groups.h"

/*
 * Fetching one selected row by TID, in units of cpu_tuple_cost: the rows lie anywhere in the
 * table, so each costs cache misses on the buffer mapping, the page and the tuple, and a copy;
 * measured at about twenty times a sequential scan's cost per row.
 */
#define FETCH_ROW_CPU_TUPLE_COSTS 20.0

/*
 * Returning a row the scan carried (radik_carry.h), in units of cpu_tuple_cost: its copy while
 * the page was in hand, then a row from memory.
 */
#define CARRIED_ROW_CPU_TUPLE_COSTS 2.0

/*
 * A row a worker sends to the backend running the query, in units of parallel_tuple_cost (what
 * a Gather pays per tuple): a key and a row id (and the row, when carried) copied into a batch
 * of the worker's queue, then out of it and selected, not a tuple sent on its own.  Measured
 * (5M rows, 2 workers, k = 1000000, CPU engine): 1.2M rows sent cost the backend about 50 ms of
 * copying and selecting, about a fifth of what the planner's units say a Gather's tuple costs
 * there; counted at a quarter, for the workers' side of the copy.
 */
#define SENT_ROW_PARALLEL_TUPLE_COSTS 0.25

/* One sort key of a path, in the order the node returns its rows. */
typedef struct RadikPlannedKey
{
	Expr	   *expr;			/* over the table's Vars */
	Oid			type;
	Oid			sort_operator;
	Oid			collation;
	bool		descending;
	bool		nulls_first;
} RadikPlannedKey;

/* A grouped path's groups (radik_group_paths.c). */
typedef struct RadikPlannedGroups
{
	List	   *exprs;			/* the group keys, over the table's Vars */
	List	   *equality_operators;	/* OID list */
	List	   *collations;		/* OID list */
	int			selecting_key;	/* the sort key whose best k each group keeps */
	Expr	   *k;				/* rows (or distinct keys) per group: a constant or a Param */
	bool		k_exclusive;	/* the condition was "< k": k - 1 are kept */
	RadikGroupCut cut;
	bool		first_of_group;	/* DISTINCT ON: only each group's first row is returned */
} RadikPlannedGroups;

/* Is scan_rel a plain heap table (or materialized view) that radik's node can read whole? */
extern bool radik_table_readable(PlannerInfo *root, RelOptInfo *scan_rel);

/* The table's restriction clauses, pseudoconstant ones left out (see radik_planner.c). */
extern List *radik_table_quals(RelOptInfo *scan_rel);

/*
 * The parallel workers to plan for a node reading scan_rel whose workers would evaluate quals
 * and exprs (0 where they cannot).
 */
extern int	radik_plan_workers(PlannerInfo *root, RelOptInfo *scan_rel, List *quals, List *exprs);

/* The share of the per-row work the backend running the query does itself, with workers. */
extern double radik_parallel_divisor(int workers);

/*
 * A new path of radik's node reading scan_rel, with keys (RadikPlannedKey) in the order of
 * pathkeys, and groups (NULL: the plain selection); its costs are the caller's to set.
 */
extern CustomPath *radik_make_path(RelOptInfo *scan_rel, PathTarget *target, List *pathkeys,
								   List *keys, int workers, const RadikPlannedGroups *groups);

/* Offer path in rel; under radik.force as rel's only way to produce its rows (radik_planner.c). */
extern void radik_add_path(PlannerInfo *root, RelOptInfo *rel, CustomPath *path);

/* The grouped paths' hooks at the window and distinct stages (radik_group_paths.c). */
extern void radik_add_window_path(PlannerInfo *root, RelOptInfo *input_rel,
								  RelOptInfo *window_rel);
extern void radik_add_distinct_path(PlannerInfo *root, RelOptInfo *input_rel,
									RelOptInfo *distinct_rel);

#endif							/* RADIK_PATHS_H */
