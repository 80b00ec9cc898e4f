/*
 * radik_scan.h
 *	  What the planner (radik_planner.c) hands the executor (radik_scan.c) in a RadiK Top-K
 *	  CustomScan plan node.
 *
 * A plan node must survive copyObject and the plan cache, so everything travels in the node's
 * own lists: expressions in custom_exprs (so that setrefs.c adjusts their Vars and Params like
 * any scan's), and plain numbers in custom_private as OID and integer lists.
 *
 * custom_exprs: the LIMIT count (a NULL constant when there is none), the OFFSET (0 when there is
 * none), then one expression per sort key, over the scanned table's columns.
 * custom_private: four lists with one entry per sort key: the key's type (OID list), its btree
 * sort operator (OID list), descending (integer list, 0 or 1), NULLs first (integer list); then
 * a list of two integers: the parallel workers planned to extract keys (0: none), and whether
 * the query asks for FETCH FIRST ... WITH TIES (1) or not (0).
 * The node's quals are the table's WHERE clauses; scanrelid is the table.
 */
#ifndef RADIK_SCAN_H
#define RADIK_SCAN_H

#include "postgres.h"

#include "nodes/extensible.h"

#define RADIK_SCAN_NAME "RadiK Top-K"

/* Positions in custom_exprs. */
#define RADIK_EXPR_LIMIT_COUNT	0
#define RADIK_EXPR_LIMIT_OFFSET	1
#define RADIK_EXPR_FIRST_KEY	2

/* Positions in custom_private. */
#define RADIK_PRIVATE_KEY_TYPES			0
#define RADIK_PRIVATE_SORT_OPERATORS	1
#define RADIK_PRIVATE_DESCENDING		2
#define RADIK_PRIVATE_NULLS_FIRST		3
#define RADIK_PRIVATE_OPTIONS			4

/* Positions in the custom_private list at RADIK_PRIVATE_OPTIONS. */
#define RADIK_OPTION_WORKERS	0
#define RADIK_OPTION_WITH_TIES	1

extern const CustomScanMethods radik_scan_methods;

/* Rows fetched per batch by TID, for a table of these pages and tuples (under work_mem). */
extern double radik_fetch_batch_rows(double pages, double tuples);

/* Rows whose copies the scan's row store holds under work_mem (radik_carry.h), likewise. */
extern double radik_carry_capacity_rows(double pages, double tuples);

#endif							/* RADIK_SCAN_H */
