/*
 * radik_rank.h
 *	  The RadiK Rank node (radik_rank.c): ranking window functions computed over radik's grouped
 *	  node, in place of PostgreSQL's WindowAgg.
 */
#ifndef RADIK_RANK_H
#define RADIK_RANK_H

#include "postgres.h"

#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"

/*
 * A path in window_rel doing window's work (its functions being row_number(), rank() and
 * dense_rank(), and run_conditions its run conditions) over subpath, whose rows are in window's
 * order.
 */
extern Path *radik_make_rank_path(RelOptInfo *window_rel, WindowAggPath *window, Path *subpath,
								  List *run_conditions);

/* Is plan a RadiK Rank node? */
extern bool radik_is_rank_plan(Plan *plan);

#endif							/* RADIK_RANK_H */
