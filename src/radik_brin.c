/*
 * radik_brin.c
 *	  Block ranges ordered by what a BRIN minmax index says they can hold (radik_brin.h).
 *
 * A BRIN minmax index keeps, for each range of pages_per_range blocks, the smallest and largest
 * value of a column and whether the range holds NULLs: a delegate of the range, in the sense of
 * Dr. Top-k.  For an ascending selection a range can hold no key better than its minimum, for a
 * descending one none better than its maximum; mapped to an engine key, that is the range's
 * bound.  The selection reads the ranges by ascending bound and stops at the first whose bound
 * is beyond the k-th key of the rows read so far: no row of that range or of any later one can
 * be selected.
 *
 * Exactness rests on what PostgreSQL guarantees of the summaries, the same that a BRIN bitmap
 * scan relies on: a summary covers every row of its range that any snapshot can see (an insert
 * or a non-HOT update widens it before the row is committed; a summary never narrows when rows
 * are deleted), and a range without a summary (never summarized, or a placeholder while being
 * summarized) can hold anything.  The summaries are read after the query's snapshot is taken,
 * so they cover every row it sees.  The threshold never comes from a summary, only from rows
 * read (radik_extract.c): a summary's values may belong to rows that are dead.  So:
 *	- unsummarized ranges and placeholders get bound 0 and are read first;
 *	- with NULLS FIRST, a range holding NULLs gets bound 0 (its NULLs come before every key);
 *	- an all-NULL range with NULLS LAST, and a range summarized empty, get the largest bound:
 *	  they are read only while fewer than k rows are known (when NULLs may still be selected);
 *	- the bound is the engine key of the summary's value, so NaN, -0 and the like are ordered as
 *	  the selection orders them; where the engine key only summarizes the value (text, uuid:
 *	  radik_key_mapper.c), it is still no greater than the key of any value the range holds.
 * An index counts only when its opclass is minmax (not minmax-multi, bloom or inclusion) over
 * the key's type and orders by the type's default btree order under the sort's collation, the
 * index is valid and neither partial nor on an expression.
 *
 * Reading in bound order gives up the parallel workers (they take blocks in table order), so
 * the ranges are used only when the summaries predict a small read: taking each summarized
 * range's rows (estimated per block from the table's statistics) as spread evenly between its
 * bound and its worst key, the selection's k-th key will be about the smallest key within which
 * the ranges hold k rows, and every range whose bound is beyond it will be skipped.  Random keys
 * give every range about the same bounds, no skipping is predicted, and the table is read as it
 * is without an index.
 *
 * The planner has no summaries: it estimates the ranges read as BRIN's own cost estimate does,
 * from the column's correlation with the table's order, the ranges that hold the rows wanted
 * divided by the correlation (radik_brin_read_share).
 */
#include "postgres.h"

#include <math.h>

#include "radik_compat.h"

#include "access/brin.h"
#include "access/brin_internal.h"
#include "access/brin_revmap.h"
#include "access/brin_tuple.h"
#include "access/genam.h"
#include "catalog/pg_am.h"
#include "catalog/pg_index.h"
#include "catalog/pg_statistic.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "storage/bufmgr.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "radik_brin.h"
#include "radik_key_mapper.h"
#include "radik_settings.h"

/* Rows per block assumed for a table never analyzed. */
#define UNKNOWN_ROWS_PER_BLOCK 10

/* A range with its bound, and the worst key it can hold (PG_UINT64_MAX: unknown). */
typedef struct SummarizedRange
{
	RadikBlockRange range;
	uint64		worst;
	bool		summarized;
} SummarizedRange;

/*
 * The column of index that is a usable minmax summary of key's column (see the header), or 0.
 */
static int
minmax_column(Relation index, const RadikSortKey *key)
{
	Form_pg_index form = index->rd_index;
	TypeCacheEntry *typentry;

	if (index->rd_rel->relam != BRIN_AM_OID || !form->indisvalid ||
		!heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, NULL))
		return 0;
	typentry = lookup_type_cache(key->type, TYPECACHE_LT_OPR);
	for (int i = 0; i < form->indnkeyatts; i++)
	{
		/* the same column, type and collation (the summaries' min and max are the collation's) */
		if (form->indkey.values[i] != key->attnum || index->rd_opcintype[i] != key->type ||
			index->rd_indcollation[i] != key->collation)
			continue;
		if (index_getprocid(index, i + 1, BRIN_PROCNUM_OPCINFO) != F_BRIN_MINMAX_OPCINFO)
			continue;
		if (get_opfamily_member(index->rd_opfamily[i], key->type, key->type,
								BTLessStrategyNumber) != typentry->lt_opr ||
			!OidIsValid(typentry->lt_opr))
			continue;
		return i + 1;
	}
	return 0;
}

/* The range starting at start, from its summary tuple (NULL: none). */
static void
summarize_range(SummarizedRange *out, BlockNumber start, BlockNumber end,
				const BrinMemTuple *summary, int column, const RadikSortKey *key,
				RadikKeyMapper *mapper)
{
	const BrinValues *values;

	out->range.start = start;
	out->range.end = end;
	out->range.bound = 0;
	out->worst = PG_UINT64_MAX;
	out->summarized = false;
	if (summary == NULL || summary->bt_placeholder)
		return;
	out->summarized = true;
#ifdef BRIN_EMPTY_RANGE_MASK
	if (summary->bt_empty_range)
	{
		out->range.bound = PG_UINT64_MAX;
		return;
	}
#endif
	values = &summary->bt_columns[column - 1];
	if (values->bv_allnulls)
	{
		out->range.bound = key->nulls_first ? 0 : PG_UINT64_MAX;
		return;
	}
	/* bv_values: the minimum, then the maximum */
	out->range.bound = radik_mapper_key(mapper, values->bv_values[key->descending ? 1 : 0]);
	out->worst = radik_mapper_key(mapper, values->bv_values[key->descending ? 0 : 1]);
	if (values->bv_hasnulls && key->nulls_first)
	{
		out->range.bound = 0;
		out->worst = PG_UINT64_MAX;
	}
}

/* Order ranges by bound, then by place in the table. */
static int
compare_ranges(const void *a, const void *b)
{
	const SummarizedRange *ra = a;
	const SummarizedRange *rb = b;

	if (ra->range.bound != rb->range.bound)
		return ra->range.bound < rb->range.bound ? -1 : 1;
	if (ra->range.start != rb->range.start)
		return ra->range.start < rb->range.start ? -1 : 1;
	return 0;
}

/*
 * The rows of the summarized ranges whose key is at most t, were each range's rows spread evenly
 * between its bound and its worst key.
 */
static double
rows_within(const SummarizedRange *ranges, int nranges, double rows_per_block, uint64 t)
{
	double		rows = 0;

	for (int i = 0; i < nranges && ranges[i].range.bound <= t; i++)
	{
		const SummarizedRange *r = &ranges[i];
		double		share = 1;

		if (!r->summarized || r->worst == PG_UINT64_MAX)
			continue;			/* what it holds is unknown */
		if (t < r->worst)
			share = (double) (t - r->range.bound) / (double) (r->worst - r->range.bound);
		rows += share * rows_per_block * (r->range.end - r->range.start);
	}
	return rows;
}

/*
 * The ranges a selection of need rows starting from threshold is predicted to read: those whose
 * bound is at most the smallest key below which the summaries hold need rows (rows_within).
 * ranges are sorted by bound.
 */
static int
predict_reads(const SummarizedRange *ranges, int nranges, double rows_per_block, uint64 need,
			  uint64 threshold)
{
	int			reads = 0;

	if (rows_within(ranges, nranges, rows_per_block, threshold) >= (double) need)
	{
		uint64		low = 0;
		uint64		high = threshold;

		/* the smallest t within which need rows lie: rows_within(high) >= need throughout */
		while (low < high)
		{
			uint64		middle = low + (high - low) / 2;

			if (rows_within(ranges, nranges, rows_per_block, middle) >= (double) need)
				high = middle;
			else
				low = middle + 1;
		}
		threshold = high;
	}
	for (int i = 0; i < nranges && ranges[i].range.bound <= threshold; i++)
		reads++;
	return reads;
}

RadikBrinPlan *
radik_brin_plan(Relation rel, Snapshot snapshot, const RadikSortKey *key, BlockNumber nblocks,
				uint64 need, uint64 threshold, int nworkers)
{
	List	   *indexes;
	ListCell   *lc;
	Relation	index = NULL;
	int			column = 0;
	BrinDesc   *desc;
	BrinRevmap *revmap;
	BlockNumber pages_per_range;
	BrinMemTuple *memtuple;
	BrinTuple  *copy = NULL;
	Size		copy_size = 0;
	Buffer		buffer = InvalidBuffer;
	RadikKeyMapper mapper;
	SummarizedRange *ranges;
	int			nranges;
	double		rows_per_block;
	int			predicted_reads;
	RadikBrinPlan *plan;
	MemoryContext context;
	MemoryContext old_context;

	if (key->attnum <= 0 || nblocks == 0 || rel->rd_rel->relam != HEAP_TABLE_AM_OID)
		return NULL;
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		Relation	candidate = index_open(lfirst_oid(lc), AccessShareLock);

		column = minmax_column(candidate, key);
		if (column > 0)
		{
			index = candidate;
			break;
		}
		index_close(candidate, AccessShareLock);
	}
	list_free(indexes);
	if (index == NULL)
		return NULL;

	/* The summaries are deformed in a context of their own, dropped at the end. */
	context = AllocSetContextCreate(CurrentMemoryContext, "radik brin",
									ALLOCSET_DEFAULT_SIZES);
	old_context = MemoryContextSwitchTo(context);
	radik_key_mapper_init(&mapper, key);
	desc = brin_build_desc(index);
	memtuple = brin_new_memtuple(desc);
#if PG_VERSION_NUM >= 170000
	revmap = brinRevmapInitialize(index, &pages_per_range);
#else
	revmap = brinRevmapInitialize(index, &pages_per_range, snapshot);
#endif
	nranges = (nblocks + pages_per_range - 1) / pages_per_range;
	MemoryContextSwitchTo(old_context);
	ranges = palloc(nranges * sizeof(SummarizedRange));
	MemoryContextSwitchTo(context);

	for (int i = 0; i < nranges; i++)
	{
		BlockNumber start = (BlockNumber) i * pages_per_range;
		BlockNumber end = Min(start + pages_per_range, nblocks);
		OffsetNumber offset;
		Size		size;
		BrinTuple  *tuple;
		BrinMemTuple *summary = NULL;

		if (i % 1024 == 0)
			CHECK_FOR_INTERRUPTS();
#if PG_VERSION_NUM >= 170000
		tuple = brinGetTupleForHeapBlock(revmap, start, &buffer, &offset, &size,
										 BUFFER_LOCK_SHARE);
#else
		tuple = brinGetTupleForHeapBlock(revmap, start, &buffer, &offset, &size,
										 BUFFER_LOCK_SHARE, snapshot);
#endif
		if (tuple != NULL)
		{
			copy = brin_copy_tuple(tuple, size, copy, &copy_size);
			LockBuffer(buffer, BUFFER_LOCK_UNLOCK);
			summary = brin_deform_tuple(desc, copy, memtuple);
		}
		summarize_range(&ranges[i], start, end, summary, column, key, &mapper);
	}
	if (BufferIsValid(buffer))
		ReleaseBuffer(buffer);
	brinRevmapTerminate(revmap);
	MemoryContextSwitchTo(old_context);
	MemoryContextDelete(context);
	index_close(index, AccessShareLock);

	qsort(ranges, nranges, sizeof(SummarizedRange), compare_ranges);
	if (rel->rd_rel->relpages > 0 && rel->rd_rel->reltuples > 0)
		rows_per_block = rel->rd_rel->reltuples / rel->rd_rel->relpages;
	else
		rows_per_block = UNKNOWN_ROWS_PER_BLOCK;

	/* worth it when the reads predicted are well under each process's share of the table */
	predicted_reads = predict_reads(ranges, nranges, rows_per_block, need, threshold);
	if ((double) predicted_reads * 2 * (1 + nworkers) > nranges)
	{
		pfree(ranges);
		return NULL;
	}
	plan = palloc(sizeof(RadikBrinPlan));
	plan->nranges = nranges;
	plan->ranges = palloc(nranges * sizeof(RadikBlockRange));
	for (int i = 0; i < nranges; i++)
		plan->ranges[i] = ranges[i].range;
	pfree(ranges);
	return plan;
}

double
radik_brin_read_share(PlannerInfo *root, RelOptInfo *rel, Expr *key_expr, Oid key_type,
					  Oid collation, double rows_wanted, double *nranges)
{
	Var		   *var = (Var *) key_expr;
	RangeTblEntry *rte;
	BlockNumber pages_per_range = 0;
	HeapTuple	statistics;
	double		correlation = 0;
	double		ranges;
	double		rows_per_range;
	double		reads;
	ListCell   *lc;

	*nranges = 0;
	if (!radik_brin_ranges || !IsA(key_expr, Var) || var->varno != rel->relid ||
		rel->rtekind != RTE_RELATION || rel->pages == 0 || rel->tuples <= 0 || rel->rows <= 0)
		return 1;
	foreach(lc, rel->indexlist)
	{
		IndexOptInfo *index = lfirst(lc);

		if (index->relam != BRIN_AM_OID || index->indpred != NIL)
			continue;
		for (int i = 0; i < index->nkeycolumns && pages_per_range == 0; i++)
		{
			if (index->indexkeys[i] != var->varattno || index->opcintype[i] != key_type ||
				index->indexcollations[i] != collation ||
				get_opfamily_proc(index->opfamily[i], key_type, key_type,
								  BRIN_PROCNUM_OPCINFO) != F_BRIN_MINMAX_OPCINFO)
				continue;
			{
				Relation	index_rel = index_open(index->indexoid, NoLock);

				pages_per_range = BrinGetPagesPerRange(index_rel);
				index_close(index_rel, NoLock);
			}
		}
		if (pages_per_range > 0)
			break;
	}
	if (pages_per_range == 0)
		return 1;

	rte = planner_rt_fetch(rel->relid, root);
	statistics = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(rte->relid),
								 Int16GetDatum(var->varattno), BoolGetDatum(rte->inh));
	if (HeapTupleIsValid(statistics))
	{
		AttStatsSlot slot;

		if (get_attstatsslot(&slot, statistics, STATISTIC_KIND_CORRELATION, InvalidOid,
							 ATTSTATSSLOT_NUMBERS))
		{
			if (slot.nnumbers > 0)
				correlation = fabs(slot.numbers[0]);
			free_attstatsslot(&slot);
		}
		ReleaseSysCache(statistics);
	}
	if (correlation <= 0)
		return 1;

	ranges = ceil(rel->pages / (double) pages_per_range);
	*nranges = ranges;
	/* the qualifying rows the wanted ones are among, in as many ranges, and the last range */
	rows_per_range = rel->tuples / ranges;
	reads = ceil(rows_wanted * (rel->tuples / rel->rows) / rows_per_range) + 1;
	return Min(ranges, reads / correlation) / ranges;
}
