/*
 * radik_group_select.c
 *	  Select the best rows of each group of a table (radik_select.h, radik_groups.h).
 *
 * The table is read by the key extractor as for one selection, in this process and in parallel
 * workers, but every row that passes the quals goes to its group (radik_extract_to_groups)
 * instead of to the engine: each process keeps the best rows of the groups it meets, and the
 * workers send theirs, with their group keys, once they have read their blocks; this process
 * adds them to its own groups, whose thresholds cut them again (a key grouped by bits: the
 * workers send their groups in the order of the keys, and this process merges them with its own
 * at the end, radik_groups_merge.c).  The answer is the row ids every group keeps, in no order:
 * the caller sorts them by all keys; or, where the caller asks and the sort keys are the one
 * group key then the selecting key, in their order (the set sorts its groups by their keys'
 * bits), which spares the caller that sort.
 *
 * The groups' memory is bounded as a hash aggregate's is: work_mem x hash_mem_multiplier in each
 * process.  Where the planner's estimate of the groups was wrong (or a guess) and the groups
 * pass it, every process stops reading and the selection says so (over_memory): the node then
 * returns the rows of PostgreSQL's own sorted plan, which it holds below itself (radik_scan.c).
 *
 * The groups run on the CPU whatever radik.device says: once a group holds its k rows, a row
 * costs one hash lookup and one comparison, less than handing it to a GPU, and what is left for
 * a final selection is about k rows a group.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/pg_am.h"
#include "executor/nodeHash.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "radik_extract.h"
#include "radik_groups.h"
#include "radik_parallel.h"
#include "radik_select.h"

/* Pages this process reads between two looks at the workers' queues. */
#define LEADER_PAGES_PER_CALL 16

/*
 * Read the table into set, with the workers the selection asks for; false where the groups
 * passed their memory (work_mem x hash_mem_multiplier in each process, the leader holding the
 * workers' groups too), which stops every process.
 */
static bool
read_into_groups(const RadikSelection *selection, const RadikGroupSpec *groups,
				 RadikGroupSet *set, RadikSelectStats *stats)
{
	Size		memory_limit = get_hash_memory_limit();
	bool		within_memory = true;
	Relation	rel = selection->rel;
	const RadikParallelPlan *parallel = selection->parallel;
	RadikParallelScan *workers = NULL;
	RadikExtractor extractor;
	RadikKeyBatch batch;
	ItemPointerData nulls[MaxHeapTuplesPerPage];
	uint64		unused_ids[MaxHeapTuplesPerPage];
	uint64		unused_keys[MaxHeapTuplesPerPage];
	bool		leader_scans = true;
	bool		workers_done = true;
	bool		carry_own = false;

	if (parallel != NULL && parallel->nworkers > 0 && IsInParallelMode())
	{
		RadikWorkersRequest request;

		request.rel = rel;
		request.snapshot = selection->snapshot;
		request.key = selection->key;
		request.key_expr = parallel->key_expr;
		request.quals = parallel->quals;
		request.params = parallel->params;
		request.nworkers = parallel->nworkers;
		request.nulls_limit = 0;
		request.carry_rows = selection->carry_bytes > 0;
		request.groups = groups;
		workers = radik_parallel_begin(&request);
	}
	if (workers != NULL)
	{
		stats->workers_launched = radik_parallel_workers_launched(workers);
		workers_done = stats->workers_launched == 0;
		leader_scans = parallel_leader_participation || workers_done;
		memory_limit = add_size(memory_limit,
								mul_size(memory_limit, stats->workers_launched));
	}

	radik_extract_begin(&extractor, rel, selection->snapshot,
						workers != NULL ? radik_parallel_table_scan(workers) : NULL,
						selection->econtext, selection->qual, selection->key, 0);
	radik_extract_to_groups(&extractor, set);
	if (selection->carry_bytes > 0)
		radik_groups_copy_while_reading(set, get_hash_memory_limit() / 2);

	/* rows go to the groups, not to the batch, which only has to have room */
	memset(&batch, 0, sizeof(batch));
	batch.key_bytes = extractor.key_bytes;
	batch.keys = unused_keys;
	batch.ids = unused_ids;
	batch.capacity = MaxHeapTuplesPerPage;
	batch.nulls = nulls;
	batch.nulls_capacity = MaxHeapTuplesPerPage;

	while (leader_scans || !workers_done)
	{
		char	   *data;
		Size		size;

		while (!workers_done &&
			   radik_parallel_receive_groups(workers, radik_groups_import_context(set),
											 &data, &size, !leader_scans, &workers_done))
			radik_groups_import(set, data, size);
		if (leader_scans)
		{
			leader_scans = radik_extract(&extractor, &batch, PG_UINT64_MAX,
										 LEADER_PAGES_PER_CALL);
			carry_own = !leader_scans && stats->workers_launched > 0 &&
				selection->carry_bytes > 0;
		}
		CHECK_FOR_INTERRUPTS();
		if (!radik_groups_within_memory(set, memory_limit) ||
			(workers != NULL && radik_parallel_groups_stopped(workers)))
		{
			within_memory = false;
			if (workers != NULL)
				radik_parallel_stop_groups(workers);
			break;
		}
		/* its blocks read, the rows it keeps and did not copy fetched (while workers read) */
		if (carry_own)
		{
			RadikGroupRowsSource own_rows;

			own_rows.rel = rel;
			own_rows.snapshot = selection->snapshot;
			own_rows.limit = radik_groups_room_for_copies(set);
			own_rows.stop = radik_parallel_groups_stop_flag(workers);
			radik_groups_carry_own_rows(set, &own_rows);
			carry_own = false;
		}
	}

	radik_select_stats_add_scan(stats, &extractor);
	radik_extract_end(&extractor);
	if (workers != NULL)
		radik_parallel_end(workers, &stats->scan);
	return within_memory;
}

void
radik_select_groups(const RadikSelection *selection, const RadikGroupSpec *groups,
					PlanState *parent, RadikSelectResult *result)
{
	RadikGroupKeys keys;
	RadikGroupSet *set;
	instr_time	start;
	uint64	   *ids;
	TupleTableSlot *saved_scantuple = selection->econtext->ecxt_scantuple;

	memset(result, 0, sizeof(*result));
	strlcpy(result->stats.device, "cpu", sizeof(result->stats.device));
	result->tids = palloc(sizeof(ItemPointerData));
	if (groups->k <= 0)
		return;
	if (selection->rel->rd_rel->relam != HEAP_TABLE_AM_OID)
		elog(ERROR, "radik grouped selection of a relation that is not a heap table");

	INSTR_TIME_SET_CURRENT(start);
	radik_group_keys_init(&keys, selection->rel, groups->exprs, groups->equality_operators,
						  groups->collations, parent);
	if (keys.econtext != NULL)
		keys.econtext->ecxt_param_list_info = selection->econtext->ecxt_param_list_info;
	set = radik_groups_create(&keys, groups->k, groups->cut, selection->key->nulls_first,
							  CurrentMemoryContext);
	if (groups->count_ties)
		radik_groups_count_ties(set, selection->key->type, selection->key->descending);
	/* past their memory, no rows: the node returns PostgreSQL's sorted plan's instead */
	result->over_memory = !read_into_groups(selection, groups, set, &result->stats);
	result->stats.groups_over_memory = result->over_memory ? 1 : 0;
	if (!result->over_memory)
	{
		result->ordered = groups->order_rows &&
			radik_groups_sorted_rows(set, groups->order_descending, groups->order_nulls_first,
									 &result->ntids, &ids,
									 groups->order_row_keys ? &result->row_keys : NULL);
		if (!result->ordered)
			result->ntids = radik_groups_rows(set, &ids);

		/*
		 * The row ids become TIDs in place: a TID takes 6 of an id's 8 bytes, so the i-th TID
		 * covers only ids already read.  With millions of rows, a second array costs more in
		 * memory first touched than in copying.
		 */
		result->tids = (ItemPointerData *) ids;
		for (int64 i = 0; i < result->ntids; i++)
		{
			uint64		id = ids[i];
			RadikCarriedRow *row = radik_groups_carried_row(id);

			if (row == NULL)
			{
				radik_unpack_tid(id, &result->tids[i]);
				continue;
			}
			if (result->carried == NULL)
				result->carried = MemoryContextAllocExtended(CurrentMemoryContext,
															 Max(result->ntids, 1) *
															 sizeof(RadikCarriedRow *),
															 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
			result->carried[i] = row;
			result->tids[i] = row->tid;
		}
		/* the workers' copies of the rows are returned as they are, after the set is gone */
		if (result->carried != NULL)
			radik_groups_keep_carried_rows(set, CurrentMemoryContext);
	}
	result->stats.groups = radik_groups_count(set);
	radik_group_keys_end(&keys);
	radik_groups_free(set);		/* the row ids are copied out */
	result->stats.rows_sent = result->row_keys.repeats != NULL ? result->row_keys.rows :
		result->ntids;
	result->stats.scan_ms = radik_elapsed_ms(start);
	selection->econtext->ecxt_scantuple = saved_scantuple;
}
