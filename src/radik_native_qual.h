/*
 * radik_native_qual.h
 *	  WHERE clauses simple enough to run on a row's raw column values, without a slot or the
 *	  expression evaluator: comparisons and integer arithmetic over numeric columns and
 *	  constants, and IS [NOT] NULL.
 *
 * The key extractor reads the key column straight from each tuple; a qual like
 * "WHERE id % 10 <> 0" or "WHERE price > 100 AND qty IS NOT NULL" is then most of the work left
 * per row when it goes through a slot and function calls.  A native qual gives exactly
 * PostgreSQL's answer or declines a row: on anything that would raise an error (overflow,
 * division by zero) the row is handed back to the expression evaluator, which raises
 * PostgreSQL's own error.
 */
#ifndef RADIK_NATIVE_QUAL_H
#define RADIK_NATIVE_QUAL_H

#include "postgres.h"

#include "access/htup.h"
#include "nodes/pg_list.h"
#include "storage/block.h"
#include "storage/bufpage.h"
#include "utils/relcache.h"

#include "radik_heap.h"
#include "radik_native_nodes.h"

/*
 * The native form of quals (an implicitly ANDed list of plan expressions over rel's columns),
 * or NULL when one of them is not of a supported shape.
 */
extern RadikNativeQual *radik_native_qual_compile(List *quals, Relation rel);

/* Does the qual match text (a LIKE node), which costs more per row than the other nodes? */
extern bool radik_native_qual_matches_text(const RadikNativeQual *qual);

/*
 * Run them on the tuples at offsets[0 .. n) of a heap page of rel (block), n at most
 * MaxHeapTuplesPerPage, at once: verdicts[i] for offsets[i].  Much cheaper per row than one call
 * per row: each operation runs over all the rows in a loop of its own.
 */
extern void radik_native_qual_run_page(const RadikNativeQual *qual, Page page, BlockNumber block,
									   const OffsetNumber *offsets, int n,
									   RadikQualResult *verdicts);

/*
 * The quals and the key column together, in one loop over the tuples at offsets[0 .. n) of a
 * heap page: for each row that passes, in order, its key column's value (key, a by-value column
 * at a fixed offset) into values and its offset into passing; returns how many passed.  Returns
 * -1, with nothing to use, where a row needs the general path (a tuple with NULLs or fewer
 * columns, arithmetic that would fail) or the quals are not all simple ones.
 */
extern int	radik_native_qual_select_page(const RadikNativeQual *qual, Page page,
										  const OffsetNumber *offsets, int n,
										  const RadikColumnReader *key, Datum *values,
										  OffsetNumber *passing);

#endif							/* RADIK_NATIVE_QUAL_H */
