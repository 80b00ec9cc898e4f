/*
 * radik_seed.h
 *	  A first key threshold for a selection, judged from a sample of the table's pages before the
 *	  scan starts.
 *
 * The extractors drop rows whose key is beyond the engine's running k-th key, but the engine has
 * one only once it holds k rows: for a large k (a million of a table's 50 million rows), the
 * first millions of rows are all copied, by the parallel workers into their queues and by the
 * leader into the engine, for nothing.  A key that at least k of the table's qualifying rows
 * reach lets the extractors drop rows from the first page on.  The sample only ever proposes
 * it: the selection checks, after the scan, that the engine did receive k rows (radik_select.c)
 * and reads the table again without it when not, so the answer never rests on the sample.
 */
#ifndef RADIK_SEED_H
#define RADIK_SEED_H

#include "postgres.h"

#include "executor/executor.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "radik_heap.h"

/*
 * Sample rel's pages (below nblocks) and look for the smallest key that, by the sample, at least
 * need rows visible to snapshot, passing qual and with a non-NULL key, reach (their engine key
 * <= it) with a confidence of radik.threshold_seed_margin standard errors.  Returns the number of
 * pages sampled (0: no sample taken, the table or k being too small for one to pay) and sets
 * *threshold to the key found, or to PG_UINT64_MAX when the sample vouches for none.
 */
extern int	radik_seed_threshold(Relation rel, Snapshot snapshot, ExprContext *econtext,
								 ExprState *qual, const RadikSortKey *key, uint64 need,
								 BlockNumber nblocks, uint64 *threshold);

#endif							/* RADIK_SEED_H */
