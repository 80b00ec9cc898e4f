/*
 * radik_parallel.c
 *	  Parallel key extraction (radik_parallel.h): the leader's side, which starts the workers and
 *	  reads what they send, and the workers' entry point.
 *
 * It is built the way PostgreSQL's own parallel operations are (a parallel btree build, a Gather
 * node): a ParallelContext whose dynamic shared memory holds a parallel table scan, the query's
 * quals and key expression as node strings, the query's parameters, and one shm_mq per worker.
 * ParallelWorkerMain gives each worker the leader's transaction, snapshots, user, GUCs and
 * locks (group locking), then calls radik_parallel_worker_main, which opens the table, compiles
 * the expressions and runs the same extractor as the leader on the blocks the parallel scan
 * hands it.  Errors in a worker reach the leader through the parallel context's error queue, as
 * for any parallel query.
 *
 * The pairs travel in batches: a message is a header (the number of keys and of NULL-key rows,
 * the bytes of carried rows) followed by the ids (8 bytes each), the carried rows (a row store's
 * bytes, radik_carry.h), the keys (4 or 8 bytes each) and the NULL-key rows' TIDs, so every
 * array lands 8-byte aligned in the receiver.  Whole rows are carried while the leader asks for
 * them: it stops the workers carrying once its own store is full.  The leader publishes the
 * engine's running k-th key in a shared atomic, read by each worker before every few pages; once
 * the selection has settled a worker sends almost nothing, and the leader mostly waits for the
 * scan to end.
 *
 * Each worker counts the buffers it reads and the WAL it writes (page pruning) into shared
 * memory, and the leader adds them to its own counts once the workers have finished, as a Gather
 * does, so that EXPLAIN (ANALYZE, BUFFERS) and pg_stat_statements count the whole scan.
 *
 * The workers never load the GPU engine: they only read the heap.
 */
#include "postgres.h"

#include "access/parallel.h"
#include "access/table.h"
#include "access/tableam.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "executor/nodeHash.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "port/atomics.h"
#include "storage/latch.h"
#include "storage/shm_mq.h"
#include "storage/shm_toc.h"
#include "storage/spin.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "radik_icu_keys.h"
#include "radik_parallel.h"

/* Keys of the shared memory table of contents. */
#define RADIK_TOC_SHARED	UINT64CONST(0x5241444B00000001)
#define RADIK_TOC_QUALS		UINT64CONST(0x5241444B00000002)
#define RADIK_TOC_KEY_EXPR	UINT64CONST(0x5241444B00000003)
#define RADIK_TOC_PARAMS	UINT64CONST(0x5241444B00000004)
#define RADIK_TOC_QUEUES	UINT64CONST(0x5241444B00000005)
#define RADIK_TOC_BUFFER_USAGE	UINT64CONST(0x5241444B00000006)
#define RADIK_TOC_WAL_USAGE	UINT64CONST(0x5241444B00000007)
#define RADIK_TOC_GROUPS	UINT64CONST(0x5241444B00000008)

/*
 * Each worker's queue to the leader, and the most rows a worker sends in one message, and the
 * bytes of carried rows (a message fits in the queue).
 */
#define RADIK_QUEUE_BYTES	(1024 * 1024)
#define RADIK_WORKER_BATCH_ROWS 8192
#define RADIK_WORKER_ROW_BYTES (256 * 1024)
StaticAssertDecl(RADIK_WORKER_ROW_BYTES <= PG_UINT32_MAX, "row bytes must fit a message header");

/*
 * A worker's groups go in pieces of at most this many bytes, after a message with their size:
 * a piece lies in the queue whole, where the leader copies it straight into the buffer it keeps
 * (a message larger than the queue would first be copied into one of shm_mq's, then again).
 */
#define RADIK_GROUPS_PIECE_BYTES (256 * 1024)
StaticAssertDecl(RADIK_GROUPS_PIECE_BYTES <= RADIK_QUEUE_BYTES / 2,
				 "a piece of groups must fit in a queue");

/* Pages a worker reads between two looks at the threshold. */
#define RADIK_WORKER_PAGES_PER_CALL 8

/* What the leader tells every worker, and what the workers report back. */
typedef struct RadikParallelShared
{
	Oid			relid;
	Oid			key_type;
	Oid			key_collation;
	Oid			key_sort_operator;
	bool		key_descending;
	bool		key_nulls_first;
	AttrNumber	key_attnum;
	int64		nulls_limit;
	bool		grouped;		/* RADIK_TOC_GROUPS holds the group keys */
	int64		group_k;
	RadikGroupCut group_cut;
	bool		group_count_ties;	/* radik_groups_count_ties, with the key above */

	pg_atomic_uint64 threshold; /* keys above it are not worth sending */
	pg_atomic_uint32 carry_rows;	/* send the rows whole too (radik_carry.h) */
	pg_atomic_uint32 groups_over_memory;	/* a process's groups passed their memory: stop */

	slock_t		mutex;			/* protects the totals below */
	RadikScanCounts counts;

	/* the leader's ICU table of the key's collation, which the workers take instead of their own */
	bool		has_icu_table;
	RadikIcuTable icu_table;

	/* the parallel table scan follows, MAXALIGN'd */
} RadikParallelShared;

#define SHARED_TABLE_SCAN(shared) \
	((ParallelTableScanDesc) ((char *) (shared) + MAXALIGN(sizeof(RadikParallelShared))))

/* The head of one message. */
typedef struct RadikBatchHeader
{
	uint32		count;			/* (key, id) pairs */
	uint32		nnulls;			/* TIDs of rows whose key is NULL */
	uint32		row_bytes;		/* carried rows */
	uint32		padding;		/* keeps what follows 8-byte aligned */
} RadikBatchHeader;

/* A worker's groups, as their pieces come in. */
typedef struct GroupsInPieces
{
	char	   *data;			/* NULL until their size has come */
	Size		size;
	Size		received;
} GroupsInPieces;

struct RadikParallelScan
{
	ParallelContext *pcxt;
	RadikParallelShared *shared;
	int			key_bytes;
	BufferUsage *buffer_usage;	/* each worker's, in shared memory */
	WalUsage   *wal_usage;
	int			nqueues;		/* one per launched worker */
	shm_mq_handle **queues;		/* NULL once its worker has finished */
	int			nactive;
	int			next_queue;		/* where the next round of polling starts */
	int			last_queue;		/* the queue of the last message received */
	RadikRowStore message_rows; /* the carried rows of the last message received */
	GroupsInPieces *groups;		/* a grouped request: each queue's groups so far */
};

PGDLLEXPORT void radik_parallel_worker_main(dsm_segment *seg, shm_toc *toc);

/* Put a copy of string in the parallel context's shared memory under key. */
static void
store_string(ParallelContext *pcxt, uint64 key, const char *string)
{
	char	   *space = shm_toc_allocate(pcxt->toc, strlen(string) + 1);

	strcpy(space, string);
	shm_toc_insert(pcxt->toc, key, space);
}

/*
 * The group keys as a node string: a list of the expressions, the equality operators and the
 * collations.
 */
static char *
group_keys_string(const RadikGroupSpec *groups)
{
	List	   *operators = NIL;
	List	   *collations = NIL;

	for (int i = 0; i < list_length(groups->exprs); i++)
	{
		operators = lappend_oid(operators, groups->equality_operators[i]);
		collations = lappend_oid(collations, groups->collations[i]);
	}
	return nodeToString(list_make3(groups->exprs, operators, collations));
}

/*
 * Put the ICU table of key's collation where the workers find it: each worker is a new process,
 * which would otherwise ask ICU for the table again (tens of milliseconds) on every query.
 */
static void
share_icu_table(RadikParallelShared *shared, const RadikSortKey *key)
{
	const RadikIcuTable *table = radik_key_icu_table(key);

	shared->has_icu_table = table != NULL;
	if (table != NULL)
		memcpy(&shared->icu_table, table, sizeof(RadikIcuTable));
}

RadikParallelScan *
radik_parallel_begin(const RadikWorkersRequest *request)
{
	Relation	rel = request->rel;
	Snapshot	snapshot = request->snapshot;
	const RadikSortKey *key = request->key;
	List	   *quals = request->quals;
	ParamListInfo params = request->params;
	int			nworkers = request->nworkers;
	RadikParallelScan *pscan;
	ParallelContext *pcxt;
	RadikParallelShared *shared;
	char	   *quals_string = quals != NIL ? nodeToString(quals) : NULL;
	char	   *key_string = key->attnum <= 0 ? nodeToString(request->key_expr) : NULL;
	char	   *groups_string = request->groups != NULL ? group_keys_string(request->groups) : NULL;
	Size		shared_size;
	Size		params_size = 0;
	char	   *queue_space;
	BufferUsage *buffer_usage;
	WalUsage   *wal_usage;

	Assert(nworkers > 0 && IsInParallelMode());
	Assert(key->attnum > 0 || request->key_expr != NULL);

	pcxt = CreateParallelContext("radik", "radik_parallel_worker_main", nworkers);

	shared_size = add_size(MAXALIGN(sizeof(RadikParallelShared)),
						   table_parallelscan_estimate(rel, snapshot));
	shm_toc_estimate_chunk(&pcxt->estimator, shared_size);
	if (quals_string != NULL)
		shm_toc_estimate_chunk(&pcxt->estimator, strlen(quals_string) + 1);
	if (key_string != NULL)
		shm_toc_estimate_chunk(&pcxt->estimator, strlen(key_string) + 1);
	if (groups_string != NULL)
		shm_toc_estimate_chunk(&pcxt->estimator, strlen(groups_string) + 1);
	if (params != NULL)
	{
		params_size = EstimateParamListSpace(params);
		shm_toc_estimate_chunk(&pcxt->estimator, params_size);
	}
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(RADIK_QUEUE_BYTES, nworkers));
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(sizeof(BufferUsage), nworkers));
	shm_toc_estimate_chunk(&pcxt->estimator, mul_size(sizeof(WalUsage), nworkers));
	shm_toc_estimate_keys(&pcxt->estimator, 8);

	InitializeParallelDSM(pcxt);
	if (pcxt->seg == NULL)
	{
		/* no dynamic shared memory to be had: the caller goes alone */
		DestroyParallelContext(pcxt);
		return NULL;
	}

	shared = shm_toc_allocate(pcxt->toc, shared_size);
	memset(shared, 0, sizeof(RadikParallelShared));
	shared->relid = RelationGetRelid(rel);
	shared->key_type = key->type;
	shared->key_collation = key->collation;
	shared->key_sort_operator = key->sort_operator;
	shared->key_descending = key->descending;
	shared->key_nulls_first = key->nulls_first;
	shared->key_attnum = key->attnum;
	shared->nulls_limit = request->nulls_limit;
	shared->grouped = request->groups != NULL;
	if (shared->grouped)
	{
		shared->group_k = request->groups->k;
		shared->group_cut = request->groups->cut;
		shared->group_count_ties = request->groups->count_ties;
	}
	share_icu_table(shared, key);
	pg_atomic_init_u64(&shared->threshold, PG_UINT64_MAX);
	pg_atomic_init_u32(&shared->carry_rows, request->carry_rows ? 1 : 0);
	pg_atomic_init_u32(&shared->groups_over_memory, 0);
	SpinLockInit(&shared->mutex);
	table_parallelscan_initialize(rel, SHARED_TABLE_SCAN(shared), snapshot);
	SHARED_TABLE_SCAN(shared)->phs_syncscan = false;
	shm_toc_insert(pcxt->toc, RADIK_TOC_SHARED, shared);

	if (quals_string != NULL)
		store_string(pcxt, RADIK_TOC_QUALS, quals_string);
	if (key_string != NULL)
		store_string(pcxt, RADIK_TOC_KEY_EXPR, key_string);
	if (groups_string != NULL)
		store_string(pcxt, RADIK_TOC_GROUPS, groups_string);
	if (params != NULL)
	{
		char	   *space = shm_toc_allocate(pcxt->toc, params_size);

		shm_toc_insert(pcxt->toc, RADIK_TOC_PARAMS, space);
		SerializeParamList(params, &space);
	}

	queue_space = shm_toc_allocate(pcxt->toc, mul_size(RADIK_QUEUE_BYTES, nworkers));
	for (int i = 0; i < nworkers; i++)
	{
		shm_mq	   *mq = shm_mq_create(queue_space + (Size) i * RADIK_QUEUE_BYTES,
									   RADIK_QUEUE_BYTES);

		shm_mq_set_receiver(mq, MyProc);
	}
	shm_toc_insert(pcxt->toc, RADIK_TOC_QUEUES, queue_space);

	buffer_usage = shm_toc_allocate(pcxt->toc, mul_size(sizeof(BufferUsage), nworkers));
	memset(buffer_usage, 0, mul_size(sizeof(BufferUsage), nworkers));
	shm_toc_insert(pcxt->toc, RADIK_TOC_BUFFER_USAGE, buffer_usage);
	wal_usage = shm_toc_allocate(pcxt->toc, mul_size(sizeof(WalUsage), nworkers));
	memset(wal_usage, 0, mul_size(sizeof(WalUsage), nworkers));
	shm_toc_insert(pcxt->toc, RADIK_TOC_WAL_USAGE, wal_usage);

	LaunchParallelWorkers(pcxt);

	/* The launched workers are the first nworkers_launched (as ExecParallelCreateReaders). */
	pscan = palloc0(sizeof(RadikParallelScan));
	pscan->pcxt = pcxt;
	pscan->shared = shared;
	pscan->buffer_usage = buffer_usage;
	pscan->wal_usage = wal_usage;
	pscan->key_bytes = radik_key_bytes(key);
	pscan->nqueues = pcxt->nworkers_launched;
	pscan->nactive = pscan->nqueues;
	pscan->queues = palloc0(Max(pscan->nqueues, 1) * sizeof(shm_mq_handle *));
	if (request->groups != NULL)
		pscan->groups = palloc0(Max(pscan->nqueues, 1) * sizeof(GroupsInPieces));
	for (int i = 0; i < pscan->nqueues; i++)
		pscan->queues[i] = shm_mq_attach((shm_mq *) (queue_space + (Size) i * RADIK_QUEUE_BYTES),
										 pcxt->seg, pcxt->worker[i].bgwhandle);
	return pscan;
}

ParallelTableScanDesc
radik_parallel_table_scan(RadikParallelScan *pscan)
{
	return SHARED_TABLE_SCAN(pscan->shared);
}

int
radik_parallel_workers_launched(RadikParallelScan *pscan)
{
	return pscan->nqueues;
}

void
radik_parallel_set_threshold(RadikParallelScan *pscan, uint64 threshold)
{
	pg_atomic_write_u64(&pscan->shared->threshold, threshold);
}

void
radik_parallel_stop_carrying(RadikParallelScan *pscan)
{
	pg_atomic_write_u32(&pscan->shared->carry_rows, 0);
}

/* Point batch at the arrays of one message. */
static void
parse_message(RadikParallelScan *pscan, char *data, Size nbytes, RadikKeyBatch *batch)
{
	RadikBatchHeader header;
	Size		expected;

	memcpy(&header, data, sizeof(header));
	expected = sizeof(header) + (Size) header.count * (sizeof(uint64) + pscan->key_bytes) +
		header.row_bytes + (Size) header.nnulls * sizeof(ItemPointerData);
	if (nbytes != expected)
		elog(ERROR, "radik parallel worker sent a message of %zu bytes, expected %zu",
			 nbytes, expected);

	batch->key_bytes = pscan->key_bytes;
	batch->ids = (uint64 *) (data + sizeof(header));
	pscan->message_rows.data = (char *) (batch->ids + header.count);
	pscan->message_rows.used = pscan->message_rows.capacity = pscan->message_rows.limit =
		header.row_bytes;
	batch->rows = header.row_bytes > 0 ? &pscan->message_rows : NULL;
	batch->keys = pscan->message_rows.data + header.row_bytes;
	batch->count = batch->capacity = header.count;
	batch->nulls = (ItemPointerData *) ((char *) batch->keys +
										(Size) header.count * pscan->key_bytes);
	batch->nnulls = batch->nulls_capacity = header.nnulls;
}

/*
 * The next message from any worker's queue, in turn: true with it in *data (*size bytes, valid
 * until the next receive); false when none is waiting (with wait, only once every worker is done).
 * *all_done tells whether every worker has finished.
 */
static bool
receive_message(RadikParallelScan *pscan, void **data, Size *size, bool wait, bool *all_done)
{
	for (;;)
	{
		for (int polled = 0; polled < pscan->nqueues; polled++)
		{
			int			i = pscan->next_queue;
			shm_mq_result result;

			pscan->next_queue = (i + 1) % pscan->nqueues;
			if (pscan->queues[i] == NULL)
				continue;
			result = shm_mq_receive(pscan->queues[i], size, data, true);
			if (result == SHM_MQ_SUCCESS)
			{
				pscan->last_queue = i;
				*all_done = false;
				return true;
			}
			if (result == SHM_MQ_DETACHED)
			{
				/* finished (or failed: its error comes through the parallel context) */
				shm_mq_detach(pscan->queues[i]);
				pscan->queues[i] = NULL;
				pscan->nactive--;
			}
		}

		*all_done = pscan->nactive == 0;
		if (!wait || *all_done)
			return false;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, 0, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

void
radik_parallel_stop_groups(RadikParallelScan *pscan)
{
	pg_atomic_write_u32(&pscan->shared->groups_over_memory, 1);
}

bool
radik_parallel_groups_stopped(RadikParallelScan *pscan)
{
	return pg_atomic_read_u32(&pscan->shared->groups_over_memory) != 0;
}

pg_atomic_uint32 *
radik_parallel_groups_stop_flag(RadikParallelScan *pscan)
{
	return &pscan->shared->groups_over_memory;
}

bool
radik_parallel_receive(RadikParallelScan *pscan, RadikKeyBatch *batch, bool wait,
					   bool *all_done)
{
	void	   *data;
	Size		nbytes;

	if (!receive_message(pscan, &data, &nbytes, wait, all_done))
		return false;
	parse_message(pscan, data, nbytes, batch);
	return true;
}

bool
radik_parallel_receive_groups(RadikParallelScan *pscan, MemoryContext context, char **data,
							  Size *size, bool wait, bool *all_done)
{
	void	   *message;
	Size		nbytes;

	while (receive_message(pscan, &message, &nbytes, wait, all_done))
	{
		GroupsInPieces *groups = &pscan->groups[pscan->last_queue];

		CHECK_FOR_INTERRUPTS();
		if (groups->data == NULL)
		{
			if (nbytes != sizeof(Size))
				elog(ERROR, "radik parallel worker sent groups without their size");
			memcpy(&groups->size, message, sizeof(Size));
			if (groups->size == 0 || groups->size > MaxAllocHugeSize)
				elog(ERROR, "radik parallel worker sent groups of %zu bytes", groups->size);
			groups->data = MemoryContextAllocHuge(context, groups->size);
			groups->received = 0;
			continue;
		}
		if (nbytes > groups->size - groups->received)
			elog(ERROR, "radik parallel worker sent more groups than the %zu bytes it announced",
				 groups->size);
		memcpy(groups->data + groups->received, message, nbytes);
		groups->received += nbytes;
		if (groups->received == groups->size)
		{
			*data = groups->data;
			*size = groups->size;
			groups->data = NULL;
			return true;
		}
	}
	return false;
}

void
radik_parallel_end(RadikParallelScan *pscan, RadikScanCounts *counts)
{
	for (int i = 0; i < pscan->nqueues; i++)
	{
		if (pscan->queues[i] != NULL)
			shm_mq_detach(pscan->queues[i]);
		pscan->queues[i] = NULL;
	}
	WaitForParallelWorkersToFinish(pscan->pcxt);
	for (int i = 0; i < pscan->pcxt->nworkers_launched; i++)
		InstrAccumParallelQuery(&pscan->buffer_usage[i], &pscan->wal_usage[i]);
	radik_scan_counts_add(counts, &pscan->shared->counts);
	DestroyParallelContext(pscan->pcxt);
	pfree(pscan->queues);
	pfree(pscan);
}

/*
 * Send batch, with the rows it carried into rows, to the leader and empty both; false when the
 * leader has gone away.
 */
static bool
send_batch(shm_mq_handle *queue, RadikKeyBatch *batch, RadikRowStore *rows)
{
	RadikBatchHeader header;
	shm_mq_iovec iov[5];

	header.count = (uint32) batch->count;
	header.nnulls = (uint32) batch->nnulls;
	header.row_bytes = (uint32) rows->used;
	header.padding = 0;
	iov[0].data = (const char *) &header;
	iov[0].len = sizeof(header);
	iov[1].data = (const char *) batch->ids;
	iov[1].len = batch->count * sizeof(uint64);
	iov[2].data = rows->data;
	iov[2].len = rows->used;
	iov[3].data = (const char *) batch->keys;
	iov[3].len = batch->count * batch->key_bytes;
	iov[4].data = (const char *) batch->nulls;
	iov[4].len = batch->nnulls * sizeof(ItemPointerData);
	batch->count = 0;
	batch->nnulls = 0;
	rows->used = 0;
	return shm_mq_sendv(queue, iov, 5, false, true) == SHM_MQ_SUCCESS;
}

/*
 * A worker of a grouped request: offer the rows of its blocks to groups of its own, then send
 * the rows they keep, with their group keys, in one message.  Once its groups pass the memory
 * of a hash table (work_mem x hash_mem_multiplier), or another process's have, it stops and
 * sends nothing: the leader answers with the plan below its node (radik_group_select.c).
 */
static void
extract_groups(RadikExtractor *extractor, Relation rel, char *groups_string,
			   ParamListInfo params, RadikParallelShared *shared, shm_mq_handle *queue)
{
	List	   *parts = (List *) stringToNode(groups_string);
	List	   *exprs = linitial(parts);
	int			nkeys = list_length(exprs);
	Oid		   *operators = palloc(nkeys * sizeof(Oid));
	Oid		   *collations = palloc(nkeys * sizeof(Oid));
	RadikGroupKeys keys;
	RadikGroupSet *set;
	RadikKeyBatch batch;
	ItemPointerData nulls[MaxHeapTuplesPerPage];
	uint64		unused_ids[MaxHeapTuplesPerPage];
	uint64		unused_keys[MaxHeapTuplesPerPage];
	RadikGroupRowsSource rows;
	char	   *data;
	Size		size;

	for (int i = 0; i < nkeys; i++)
	{
		operators[i] = list_nth_oid(lsecond(parts), i);
		collations[i] = list_nth_oid(lthird(parts), i);
	}
	radik_group_keys_init(&keys, rel, exprs, operators, collations, NULL);
	if (keys.econtext != NULL)
		keys.econtext->ecxt_param_list_info = params;
	set = radik_groups_create(&keys, shared->group_k, shared->group_cut,
							  shared->key_nulls_first, CurrentMemoryContext);
	if (shared->group_count_ties)
		radik_groups_count_ties(set, shared->key_type, shared->key_descending);
	radik_extract_to_groups(extractor, set);
	if (pg_atomic_read_u32(&shared->carry_rows) != 0)
		radik_groups_copy_while_reading(set, get_hash_memory_limit() / 2);

	/* rows go to the groups, not to the batch, which only has to have room */
	memset(&batch, 0, sizeof(batch));
	batch.key_bytes = extractor->key_bytes;
	batch.keys = unused_keys;
	batch.ids = unused_ids;
	batch.capacity = MaxHeapTuplesPerPage;
	batch.nulls = nulls;
	batch.nulls_capacity = MaxHeapTuplesPerPage;
	while (radik_extract(extractor, &batch, PG_UINT64_MAX, RADIK_WORKER_PAGES_PER_CALL))
	{
		if (!radik_groups_within_memory(set, get_hash_memory_limit()))
			pg_atomic_write_u32(&shared->groups_over_memory, 1);
		if (pg_atomic_read_u32(&shared->groups_over_memory) != 0)
		{
			radik_group_keys_end(&keys);
			return;
		}
	}
	/*
	 * With the rows whole where the leader wants them: within the memory the groups left unused
	 * (so the leader holds no more than the groups could have taken) and one message's bytes,
	 * stopping when the leader stops the groups.
	 */
	rows.rel = rel;
	rows.snapshot = extractor->scan->rs_snapshot;
	rows.limit = radik_groups_room_for_copies(set);
	rows.stop = &shared->groups_over_memory;
	data = radik_groups_export(set, pg_atomic_read_u32(&shared->carry_rows) != 0 ? &rows : NULL,
							   &size);
	radik_group_keys_end(&keys);
	if (size > 0 && shm_mq_send(queue, sizeof(Size), &size, false, true) == SHM_MQ_SUCCESS)
	{
		for (Size sent = 0; sent < size; sent += RADIK_GROUPS_PIECE_BYTES)
		{
			if (shm_mq_send(queue, Min(RADIK_GROUPS_PIECE_BYTES, size - sent), data + sent,
							false, true) != SHM_MQ_SUCCESS)
				break;			/* the leader has gone away */
		}
	}
}

/*
 * A worker: extract the blocks the parallel scan hands out and send the pairs worth having to
 * the leader (or, for a grouped request, the best rows of its groups).  Called by
 * ParallelWorkerMain with the leader's transaction state in place.
 */
void
radik_parallel_worker_main(dsm_segment *seg, shm_toc *toc)
{
	RadikParallelShared *shared = shm_toc_lookup(toc, RADIK_TOC_SHARED, false);
	char	   *queue_space = shm_toc_lookup(toc, RADIK_TOC_QUEUES, false);
	char	   *quals_string = shm_toc_lookup(toc, RADIK_TOC_QUALS, true);
	char	   *key_string = shm_toc_lookup(toc, RADIK_TOC_KEY_EXPR, true);
	char	   *params_space = shm_toc_lookup(toc, RADIK_TOC_PARAMS, true);
	BufferUsage *buffer_usage = shm_toc_lookup(toc, RADIK_TOC_BUFFER_USAGE, false);
	WalUsage   *wal_usage = shm_toc_lookup(toc, RADIK_TOC_WAL_USAGE, false);
	shm_mq	   *mq;
	shm_mq_handle *queue;
	Relation	rel;
	EState	   *estate;
	ExprContext *econtext;
	ExprState  *qual = NULL;
	RadikSortKey key;
	RadikExtractor extractor;
	RadikKeyBatch batch;
	RadikRowStore rows;
	bool		more;

	mq = (shm_mq *) (queue_space + (Size) ParallelWorkerNumber * RADIK_QUEUE_BYTES);
	shm_mq_set_sender(mq, MyProc);
	queue = shm_mq_attach(mq, seg, NULL);
	InstrStartParallelQuery();

	/* The leader holds this lock too; group locking lets the worker share it. */
	rel = table_open(shared->relid, AccessShareLock);

	estate = CreateExecutorState();
	if (params_space != NULL)
		estate->es_param_list_info = RestoreParamList(&params_space);
	econtext = CreateExprContext(estate);
	if (quals_string != NULL)
		qual = ExecInitQual((List *) stringToNode(quals_string), NULL);

	if (shared->has_icu_table)
		radik_icu_table_adopt(shared->key_collation, &shared->icu_table);
	memset(&key, 0, sizeof(key));
	key.type = shared->key_type;
	key.collation = shared->key_collation;
	key.sort_operator = shared->key_sort_operator;
	key.descending = shared->key_descending;
	key.nulls_first = shared->key_nulls_first;
	key.attnum = shared->key_attnum;
	if (key_string != NULL)
		key.expr = ExecInitExpr((Expr *) stringToNode(key_string), NULL);

	radik_extract_begin(&extractor, rel, NULL, SHARED_TABLE_SCAN(shared), econtext, qual, &key,
						shared->nulls_limit);
	if (shared->grouped)
	{
		extract_groups(&extractor, rel, shm_toc_lookup(toc, RADIK_TOC_GROUPS, false),
					   estate->es_param_list_info, shared, queue);
		goto done;
	}
	batch.key_bytes = extractor.key_bytes;
	batch.capacity = batch.nulls_capacity = RADIK_WORKER_BATCH_ROWS;
	batch.keys = palloc(RADIK_WORKER_BATCH_ROWS * sizeof(uint64));
	batch.ids = palloc(RADIK_WORKER_BATCH_ROWS * sizeof(uint64));
	batch.nulls = palloc(RADIK_WORKER_BATCH_ROWS * sizeof(ItemPointerData));
	batch.count = batch.nnulls = 0;
	rows.data = palloc(RADIK_WORKER_ROW_BYTES);
	rows.used = 0;
	rows.capacity = rows.limit = RADIK_WORKER_ROW_BYTES;

	do
	{
		/* The rows carried so far go with the batch, even once the leader wants no more. */
		batch.rows = pg_atomic_read_u32(&shared->carry_rows) != 0 ? &rows : NULL;
		more = radik_extract(&extractor, &batch, pg_atomic_read_u64(&shared->threshold),
							 RADIK_WORKER_PAGES_PER_CALL);
		if ((!more || !radik_batch_has_room(&batch)) &&
			(batch.count > 0 || batch.nnulls > 0) && !send_batch(queue, &batch, &rows))
			break;				/* the leader has gone: it is failing or cancelled */
	} while (more);

done:
	SpinLockAcquire(&shared->mutex);
	radik_extract_count(&extractor, &shared->counts);
	SpinLockRelease(&shared->mutex);

	radik_extract_end(&extractor);
	table_close(rel, AccessShareLock);
	FreeExprContext(econtext, true);
	FreeExecutorState(estate);
	InstrEndParallelQuery(&buffer_usage[ParallelWorkerNumber], &wal_usage[ParallelWorkerNumber]);
	shm_mq_detach(queue);
}
