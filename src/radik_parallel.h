/*
 * radik_parallel.h
 *	  Parallel key extraction: worker processes read their share of a table's blocks with the
 *	  key extractor (radik_extract.h) and send the (key, row id) pairs that can still be selected
 *	  to the backend running the query, which feeds them to the engine.
 *
 * Only the backend running the query talks to the engine (and so to the GPU): workers read the
 * heap and nothing else.  The leader publishes the engine's running k-th key in shared memory,
 * and the workers drop rows beyond it before sending them.
 */
#ifndef RADIK_PARALLEL_H
#define RADIK_PARALLEL_H

#include "postgres.h"

#include "access/relscan.h"
#include "nodes/params.h"
#include "nodes/primnodes.h"
#include "port/atomics.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

#include "radik_extract.h"

/* The leader's side of a parallel extraction. */
typedef struct RadikParallelScan RadikParallelScan;

/*
 * What the workers read: rel's rows visible to snapshot that pass quals (a list of plan
 * expressions over the table's Vars), with key's first sort key (key->expr's plan expression is
 * key_expr); params are the query's PARAM_EXTERN values.  Each worker sends at most nulls_limit
 * rows whose key is NULL, and with carry_rows the rows it sends whole too (radik_carry.h), until
 * told to stop; with groups, each worker keeps the best rows of each group itself and sends them
 * once it has read its blocks (radik_parallel_receive_groups), with carry_rows copies of those
 * rows too where the group key is grouped by bits (radik_groups_export).
 */
typedef struct RadikWorkersRequest
{
	Relation	rel;
	Snapshot	snapshot;
	const RadikSortKey *key;
	Expr	   *key_expr;
	List	   *quals;
	ParamListInfo params;
	int			nworkers;
	int64		nulls_limit;
	bool		carry_rows;
	const RadikGroupSpec *groups;	/* NULL: no groups */
} RadikWorkersRequest;

/*
 * Start up to request->nworkers workers.  Must be called in parallel mode.  Returns NULL when no
 * shared memory could be had for it; otherwise the leader joins the scan through
 * radik_parallel_table_scan, even when no worker could be started.
 */
extern RadikParallelScan *radik_parallel_begin(const RadikWorkersRequest *request);

/* The parallel table scan for the leader's own extractor. */
extern ParallelTableScanDesc radik_parallel_table_scan(RadikParallelScan *pscan);

/* Workers started. */
extern int	radik_parallel_workers_launched(RadikParallelScan *pscan);

/* Tell the workers the largest key still worth sending. */
extern void radik_parallel_set_threshold(RadikParallelScan *pscan, uint64 threshold);

/* Tell the workers to carry no more rows. */
extern void radik_parallel_stop_carrying(RadikParallelScan *pscan);

/*
 * For a grouped request: tell the workers to stop, a process's groups having passed their memory;
 * and whether one has (a worker stops by itself when its own groups pass it, and says so).
 */
extern void radik_parallel_stop_groups(RadikParallelScan *pscan);
extern bool radik_parallel_groups_stopped(RadikParallelScan *pscan);

/* The flag radik_parallel_stop_groups sets, to stop this process's copies of its rows by. */
extern pg_atomic_uint32 *radik_parallel_groups_stop_flag(RadikParallelScan *pscan);

/*
 * The next batch a worker sent, its arrays pointing into memory valid until the next call.
 * Returns false when no batch is waiting (then *all_done says whether every worker has
 * finished); with wait, sleeps until a batch comes or every worker has finished.
 */
extern bool radik_parallel_receive(RadikParallelScan *pscan, RadikKeyBatch *batch, bool wait,
								   bool *all_done);

/*
 * For a grouped request: the next worker's groups (radik_groups_export's bytes), which come in
 * pieces, copied into memory allocated in context once their size has come: the caller's to
 * keep.  As radik_parallel_receive otherwise: true once a worker's groups are all in.
 */
extern bool radik_parallel_receive_groups(RadikParallelScan *pscan, MemoryContext context,
										  char **data, Size *size, bool wait, bool *all_done);

/*
 * Wait for the workers to exit, add what their scans counted to counts, and release
 * everything.  An error in a worker is raised
 * here, if not before.
 */
extern void radik_parallel_end(RadikParallelScan *pscan, RadikScanCounts *counts);

#endif							/* RADIK_PARALLEL_H */
