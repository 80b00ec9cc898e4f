/*
 * radik_seed.c
 *	  A first key threshold for a selection, judged from a sample of the table's pages
 *	  (radik_seed.h).
 *
 * The sample is stratified: the table's blocks are cut into as many equal runs as pages are
 * sampled, and one page is drawn at random from each run.  Its rows go through the key extractor
 * like any scanned page (same snapshot, same quals, same keys), so the sample estimates exactly
 * the count the selection needs: rows the engine would receive.  Rows are counted per page, and
 * the margin is taken on the variance between pages, not between rows, because rows of a page
 * are alike when the table is stored in key order (a log table ordered by time): a sample of
 * pages then says little about where the k-th key lies, and the estimate's error is wide enough
 * that the threshold found is loose, or none is.
 *
 * For a candidate key T, with c_j the sampled rows of page j whose key is <= T, the table's
 * count is estimated as nblocks * mean(c_j), with the standard error of that mean (finite
 * population corrected); T qualifies when the estimate minus radik.threshold_seed_margin errors
 * is still at least k.  The sample's keys are walked in order from the best, so the first key
 * that qualifies is the tightest the sample vouches for.  The variance between pages is taken to
 * be at least their mean count, as for counts drawn at random (Poisson): a table whose keys
 * follow a regular pattern can make every sampled page hold the same count, a variance of zero
 * that would vouch for a key no better than the sample's own rounding (on such a table, 1 in 500
 * thresholds missed with four standard errors; none in 6000 with the floor).
 *
 * A sample costs about a page read per page (random pages: a buffer lookup and a few cache
 * misses each), so it is taken only when it is small against the table and can see enough of the
 * answer: about SEED_SAMPLE_HITS of its rows expected among the best k.
 */
#include "postgres.h"

#include <math.h>

#include "common/pg_prng.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "radik_extract.h"
#include "radik_seed.h"
#include "radik_settings.h"

/* Sampled rows expected among the best k: the precision the sample aims at. */
#define SEED_SAMPLE_HITS 128
/* Fewer expected than this and no sample is taken. */
#define SEED_MIN_HITS 64
/* Pages sampled: at least, at most, and at most this fraction of the table (1 / n). */
#define SEED_MIN_PAGES 16
#define SEED_MAX_PAGES 1024
#define SEED_MAX_TABLE_SHARE 4
/* A threshold must have at least this many sampled rows at or below it. */
#define SEED_MIN_ROWS 16

/* One sampled row: its engine key and the index of its page in the sample. */
typedef struct SampleRow
{
	uint64		key;
	int			page;
} SampleRow;

/* Pages to sample for need rows among nblocks pages; 0: no sample. */
static int
sample_pages_wanted(uint64 need, BlockNumber nblocks)
{
	double		pages = ceil((double) SEED_SAMPLE_HITS * nblocks / (double) need);

	pages = Max(pages, SEED_MIN_PAGES);
	pages = Min(pages, SEED_MAX_PAGES);
	pages = Min(pages, nblocks / SEED_MAX_TABLE_SHARE);
	if (pages < SEED_MIN_PAGES || pages * (double) need / nblocks < SEED_MIN_HITS)
		return 0;
	return (int) pages;
}

/* One block drawn at random from each of npages equal runs of the table's blocks, ascending. */
static void
draw_sample_blocks(BlockNumber nblocks, int npages, BlockNumber *blocks)
{
	for (int i = 0; i < npages; i++)
	{
		uint64		first = (uint64) nblocks * i / npages;
		uint64		last = (uint64) nblocks * (i + 1) / npages - 1;

		blocks[i] = (BlockNumber) pg_prng_uint64_range(&pg_global_prng_state, first, last);
	}
}

static inline void
swap_rows(SampleRow *a, SampleRow *b)
{
	SampleRow	t = *a;

	*a = *b;
	*b = t;
}

/* Reorder rows[0 .. n) so that its best (smallest key) m rows come first, in any order. */
static void
select_best_rows(SampleRow *rows, int64 n, int64 m)
{
	int64		lo = 0;
	int64		hi = n - 1;

	while (lo < hi)
	{
		uint64		pivot = rows[lo + (hi - lo) / 2].key;
		int64		i = lo;
		int64		j = hi;

		/* Hoare's partition: [lo, j] <= pivot <= [i, hi] */
		while (i <= j)
		{
			while (rows[i].key < pivot)
				i++;
			while (rows[j].key > pivot)
				j--;
			if (i <= j)
				swap_rows(&rows[i++], &rows[j--]);
		}
		if (m - 1 <= j)
			hi = j;
		else if (m - 1 >= i)
			lo = i;
		else
			break;
	}
}

static int
compare_rows_by_key(const void *a, const void *b)
{
	uint64		ka = ((const SampleRow *) a)->key;
	uint64		kb = ((const SampleRow *) b)->key;

	return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/*
 * The tightest of the sorted rows' keys that the sample vouches for (see the header comment),
 * or PG_UINT64_MAX.  counts has npages zeroed entries.
 */
static uint64
tightest_vouched_key(const SampleRow *rows, int64 nrows, int npages, BlockNumber nblocks,
					 uint64 need, int64 *counts)
{
	double		sum_squares = 0;
	double		correction = 1.0 - (double) npages / nblocks;

	for (int64 r = 0; r < nrows; r++)
	{
		double		mean;
		double		variance;
		double		estimate;
		double		error;

		sum_squares += 2 * counts[rows[r].page] + 1;
		counts[rows[r].page]++;
		/* a threshold takes in every row with its key */
		if (r + 1 < nrows && rows[r + 1].key == rows[r].key)
			continue;
		if (r + 1 < SEED_MIN_ROWS)
			continue;

		mean = (double) (r + 1) / npages;
		variance = Max(sum_squares / npages - mean * mean, 0.0) * npages / (npages - 1);
		/* no less than counting noise: see the file header */
		variance = Max(variance, mean);
		estimate = mean * nblocks;
		error = sqrt(variance / npages * correction) * nblocks;
		if (estimate - radik_threshold_seed_margin * error >= (double) need)
			return rows[r].key;
	}
	return PG_UINT64_MAX;
}

int
radik_seed_threshold(Relation rel, Snapshot snapshot, ExprContext *econtext, ExprState *qual,
					 const RadikSortKey *key, uint64 need, BlockNumber nblocks,
					 uint64 *threshold)
{
	int			npages = radik_threshold_seed ? sample_pages_wanted(need, nblocks) : 0;
	MemoryContext sample_context;
	MemoryContext caller_context;
	BlockNumber *blocks;
	RadikExtractor extractor;
	RadikKeyBatch batch;
	SampleRow  *rows;
	int64		expected_hits;
	int64		nbest;
	int			page;

	*threshold = PG_UINT64_MAX;
	if (npages == 0)
		return 0;

	sample_context = AllocSetContextCreate(CurrentMemoryContext, "radik threshold seed",
										   ALLOCSET_DEFAULT_SIZES);
	caller_context = MemoryContextSwitchTo(sample_context);

	blocks = palloc(npages * sizeof(BlockNumber));
	draw_sample_blocks(nblocks, npages, blocks);
	radik_extract_begin(&extractor, rel, snapshot, NULL, econtext, qual, key, 0);
	if (!radik_extract_only_blocks(&extractor, blocks, npages))
	{
		radik_extract_end(&extractor);
		MemoryContextSwitchTo(caller_context);
		MemoryContextDelete(sample_context);
		return 0;
	}

	/* Room for every sampled page's rows: one call reads them all. */
	batch.key_bytes = extractor.key_bytes;
	batch.capacity = (size_t) npages * MaxHeapTuplesPerPage;
	batch.keys = palloc(batch.capacity * sizeof(uint64));
	batch.ids = palloc(batch.capacity * sizeof(uint64));
	batch.count = 0;
	batch.nulls = palloc(MaxHeapTuplesPerPage * sizeof(ItemPointerData));
	batch.nulls_capacity = MaxHeapTuplesPerPage;
	batch.nnulls = 0;
	batch.rows = NULL;
	while (radik_extract(&extractor, &batch, PG_UINT64_MAX, npages))
		;
	radik_extract_end(&extractor);

	/* Each row's page, as an index into blocks (the rows come page by page, in block order). */
	rows = palloc(Max(batch.count, 1) * sizeof(SampleRow));
	page = 0;
	for (size_t i = 0; i < batch.count; i++)
	{
		BlockNumber block = radik_packed_tid_block(batch.ids[i]);

		while (blocks[page] != block)
			page++;
		rows[i].key = batch.key_bytes == 4 ? ((uint32 *) batch.keys)[i] :
			((uint64 *) batch.keys)[i];
		rows[i].page = page;
	}

	/*
	 * Only the best rows can give a useful threshold: a few times the rows expected among the
	 * best need.  Put them first and sort them.
	 */
	expected_hits = (int64) ceil((double) npages * need / nblocks);
	nbest = Min((int64) batch.count, 8 * expected_hits);
	select_best_rows(rows, batch.count, nbest);
	qsort(rows, nbest, sizeof(SampleRow), compare_rows_by_key);
	*threshold = tightest_vouched_key(rows, nbest, npages, nblocks, need,
									  palloc0(npages * sizeof(int64)));

	MemoryContextSwitchTo(caller_context);
	MemoryContextDelete(sample_context);
	return npages;
}
