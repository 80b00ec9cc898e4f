/*
 * radik_brin.h
 *	  A BRIN minmax index on the first sort key as a guide to the table's block ranges
 *	  (radik_brin.c): which ranges can hold the best keys, in the order to read them.
 *
 * A selection reads the ranges best bound first and stops at the first range whose bound is
 * beyond its running threshold (radik_extract_block_ranges), so on a table laid out roughly in
 * key order ("the latest N rows" of an append-mostly table) it reads a few ranges instead of the
 * whole table.
 */
#ifndef RADIK_BRIN_H
#define RADIK_BRIN_H

#include "postgres.h"

#include "nodes/pathnodes.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "radik_extract.h"
#include "radik_heap.h"

/* The block ranges of a table, in the order to read them. */
typedef struct RadikBrinPlan
{
	RadikBlockRange *ranges;
	int			nranges;
} RadikBrinPlan;

/*
 * The ranges of rel's first nblocks blocks ordered by the best engine key each can hold, from
 * a valid BRIN minmax index on key's column, read under snapshot; NULL when no such index
 * exists, or when the summaries predict that a selection of need rows starting from threshold
 * reads more than a share of the table worth giving nworkers parallel workers up for.
 */
extern RadikBrinPlan *radik_brin_plan(Relation rel, Snapshot snapshot, const RadikSortKey *key,
									  BlockNumber nblocks, uint64 need, uint64 threshold,
									  int nworkers);

/*
 * For the planner: the share of rel's block ranges a selection of rows_wanted rows by the plain
 * column key_expr (of type key_type, sorted under collation) is expected to read in BRIN order,
 * from a minmax index on it and the column's correlation with the table's order; 1 without such
 * an index.  *nranges is set to the ranges whose summaries are read.
 */
extern double radik_brin_read_share(PlannerInfo *root, RelOptInfo *rel, Expr *key_expr,
									Oid key_type, Oid collation, double rows_wanted,
									double *nranges);

#endif							/* RADIK_BRIN_H */
