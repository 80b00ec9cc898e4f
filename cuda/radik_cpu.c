/*
 * radik_cpu.c
 *	  The CPU twin of radik's GPU engine: the same exact top-k selection, in plain C, for every
 *	  machine without a usable GPU (CI, most users) and as the reference the GPU is tested against.
 *
 * It answers exactly what the GPU engine answers: the min(k, n) entries with the smallest keys,
 * sorted by key ascending, entries with equal keys at the boundary cut so that exactly that many
 * come back (which of the tied entries survive is unspecified, as in PostgreSQL).
 *
 * Why it is built this way:
 *  - Same algorithm family as the GPU (RadiK): the k-th key is found by most-significant-digit
 *	  radix selection, 8 bits at a time: histogram the current digit, find the bucket where the
 *	  running count crosses k, keep only that bucket's keys for the next digit.  Keys below the
 *	  bucket are certainly in, keys above are certainly out.  With random data each digit shrinks
 *	  the live set 256-fold, so a selection costs about two passes over the data whatever k is,
 *	  and the twin exercises the same digit arithmetic (and the same tie rule) as the kernels, so
 *	  a disagreement between them points at a real bug rather than at two different definitions.
 *  - Streaming with a running threshold: the scan pushes chunks into a fixed-capacity buffer
 *	  (RADIK_CPU_CHUNK_CAPACITY entries, malloc'd once per process and reused, see the chunk
 *	  cache below).  Each chunk is filtered against the current k-th key T: only keys strictly
 *	  below T can improve the answer (the best k already hold k keys <= T, so a new key equal
 *	  to T can only tie), and those are appended to the candidate set.  When the candidates
 *	  reach 2k (at least k plus one cache-sized window; or as soon as there are more than k
 *	  and no threshold yet) they are cut back to exactly k by one radix selection, which also
 *	  lowers T.  Memory stays O(k + chunk), and the steady-state cost per row is one comparison
 *	  in a vectorised loop (see the chunk filter).
 *  - k may be astronomically large (LIMIT ALL arrives as a huge k), so nothing is ever sized by
 *	  k: candidate arrays grow geometrically with the rows actually pushed.
 *  - Candidates always hold 64-bit keys (a 4-byte key is widened on entry) so that one code path
 *	  serves both widths; only the chunk filter, which touches every row, is width-specific.
 *  - finish sorts the surviving k entries by a least-significant-digit radix sort (8-bit digits,
 *	  digits on which all keys agree are skipped), insertion sort for a handful of entries.
 *  - Batch selection runs each segment through the same streaming machinery, reading the
 *	  caller's arrays in windows of the chunk capacity, so a batch too needs only O(k + chunk)
 *	  memory per segment and shares every line of the selection code with streaming.
 *
 * No PostgreSQL header, no exit, no longjmp: every failure (only out-of-memory can happen) comes
 * back as a radik_status with a message.  Not thread-safe: the chunk cache is process-wide, and
 * a PostgreSQL backend is a single thread.
 */
#include "radik_backend.h"

#include <stdlib.h>
#include <string.h>

/* Entries per chunk buffer: 16 MiB of keys and ids, enough to amortise each push. */
#define RADIK_CPU_CHUNK_CAPACITY ((size_t) 1 << 20)

/*
 * Chunk buffers kept for reuse after their selection finished.  One: every PostgreSQL backend
 * that ever ran a CPU selection keeps it (16 MiB) until radik_release_cache or exit, and a
 * second concurrent selection in one query is rare enough to pay for its own malloc.
 */
#define RADIK_CPU_CACHED_CHUNKS 1

/* Below this many entries an insertion sort beats the radix sort's fixed cost. */
#define RADIK_CPU_INSERTION_SORT_MAX 48

/* The chunk filter tests the minimum of this many keys at once before looking at each. */
#define RADIK_CPU_FILTER_BLOCK 64

/* Entries filtered between two checks for a reduction: 1 MiB of candidates, cache-sized. */
#define RADIK_CPU_FILTER_WINDOW ((size_t) 1 << 16)

#define RADIK_CPU_DIGIT_BITS 8
#define RADIK_CPU_DIGIT_VALUES (1 << RADIK_CPU_DIGIT_BITS)
#define RADIK_CPU_DIGIT(key, shift) ((size_t) (((key) >> (shift)) & (RADIK_CPU_DIGIT_VALUES - 1)))

/* A chunk buffer: keys (8 bytes per entry whatever the key width, so any selection can reuse
 * any cached buffer) and ids. */
typedef struct radik_cpu_chunk
{
	void	   *keys;
	uint64_t   *ids;
} radik_cpu_chunk;

static radik_cpu_chunk cached_chunks[RADIK_CPU_CACHED_CHUNKS];
static int	cached_chunk_count = 0;

/*
 * The running best of one selection: at most a few times k candidate entries, unordered until
 * radik_cpu_best_sort, and the threshold T once k keys were seen.
 *
 * Invariant: when threshold_valid, the candidates hold at least k entries with keys <= threshold,
 * so every key >= threshold not yet added may be dropped.
 */
typedef struct radik_cpu_best
{
	int			key_bytes;
	uint64_t	k;
	uint64_t   *keys;
	uint64_t   *ids;
	size_t		count;
	size_t		capacity;
	uint64_t	pushed;			/* entries offered so far, kept or not */
	uint64_t	threshold;
	int			threshold_valid;
	uint64_t   *spare_keys;		/* the radix sort's other half; swapped with keys/ids */
	uint64_t   *spare_ids;
	size_t		spare_capacity;
	uint64_t   *select_keys;	/* the live bucket of a radix selection */
	uint64_t   *select_ids;
	size_t		select_capacity;
} radik_cpu_best;

/* A streaming selection's state, behind the dispatcher's void pointer. */
typedef struct radik_cpu_selection
{
	radik_cpu_best best;
	radik_cpu_chunk chunk;		/* keys NULL once given back (after finish) */
	int			finished;
} radik_cpu_selection;

/* Chunk buffers: from the cache when one is there, else freshly allocated. */
static radik_status
radik_cpu_take_chunk(radik_cpu_chunk *chunk, radik_error *err)
{
	if (cached_chunk_count > 0)
	{
		*chunk = cached_chunks[--cached_chunk_count];
		return RADIK_OK;
	}
	chunk->keys = malloc(RADIK_CPU_CHUNK_CAPACITY * sizeof(uint64_t));
	chunk->ids = malloc(RADIK_CPU_CHUNK_CAPACITY * sizeof(uint64_t));
	if (chunk->keys == NULL || chunk->ids == NULL)
	{
		free(chunk->keys);
		free(chunk->ids);
		chunk->keys = NULL;
		chunk->ids = NULL;
		return radik_fail(err, RADIK_OUT_OF_MEMORY,
						  "could not allocate a chunk buffer of %zu entries",
						  RADIK_CPU_CHUNK_CAPACITY);
	}
	return RADIK_OK;
}

static void
radik_cpu_give_back_chunk(radik_cpu_chunk *chunk)
{
	if (chunk->keys == NULL)
		return;
	if (cached_chunk_count < RADIK_CPU_CACHED_CHUNKS)
		cached_chunks[cached_chunk_count++] = *chunk;
	else
	{
		free(chunk->keys);
		free(chunk->ids);
	}
	chunk->keys = NULL;
	chunk->ids = NULL;
}

void
radik_cpu_release_cache(void)
{
	while (cached_chunk_count > 0)
	{
		cached_chunk_count--;
		free(cached_chunks[cached_chunk_count].keys);
		free(cached_chunks[cached_chunk_count].ids);
	}
}

/* Grow an array of 64-bit values to hold at least wanted entries, keeping its contents. */
static int
radik_cpu_grow(uint64_t **array, size_t wanted)
{
	uint64_t   *grown;

	if (wanted > SIZE_MAX / sizeof(uint64_t))
		return 0;
	grown = realloc(*array, wanted * sizeof(uint64_t));
	if (grown == NULL)
		return 0;
	*array = grown;
	return 1;
}

/* The next capacity for at least wanted entries: geometric growth, never sized by k. */
static size_t
radik_cpu_next_capacity(size_t current, size_t wanted)
{
	size_t		capacity = current < 1024 ? 1024 : current;

	while (capacity < wanted)
		capacity = capacity > SIZE_MAX / 2 ? wanted : capacity * 2;
	return capacity;
}

static radik_status
radik_cpu_reserve_candidates(radik_cpu_best *best, size_t more, radik_error *err)
{
	size_t		wanted;
	size_t		capacity;

	if (more > SIZE_MAX - best->count)
		return radik_fail(err, RADIK_OUT_OF_MEMORY, "too many candidate entries");
	wanted = best->count + more;
	if (wanted <= best->capacity)
		return RADIK_OK;
	capacity = radik_cpu_next_capacity(best->capacity, wanted);
	if (!radik_cpu_grow(&best->keys, capacity) || !radik_cpu_grow(&best->ids, capacity))
		return radik_fail(err, RADIK_OUT_OF_MEMORY,
						  "could not allocate room for %zu candidate entries", capacity);
	best->capacity = capacity;
	return RADIK_OK;
}

static void
radik_cpu_best_init(radik_cpu_best *best, int key_bytes, uint64_t k)
{
	memset(best, 0, sizeof(*best));
	best->key_bytes = key_bytes;
	best->k = k;
}

/* Start a new selection in the same arrays (the batch reuses one radik_cpu_best). */
static void
radik_cpu_best_restart(radik_cpu_best *best, uint64_t k)
{
	best->k = k;
	best->count = 0;
	best->pushed = 0;
	best->threshold = 0;
	best->threshold_valid = 0;
}

static void
radik_cpu_best_free(radik_cpu_best *best)
{
	free(best->keys);
	free(best->ids);
	free(best->spare_keys);
	free(best->spare_ids);
	free(best->select_keys);
	free(best->select_ids);
	memset(best, 0, sizeof(*best));
}

/*
 * Count the digit at shift of keys[0..n).  Four interleaved tables: keys that arrive in order
 * share a digit for long runs, and incrementing one counter again and again stalls on its own
 * previous store.
 */
static void
radik_cpu_histogram(const uint64_t *keys, size_t n, int shift,
					size_t histogram[RADIK_CPU_DIGIT_VALUES])
{
	size_t		partial[4][RADIK_CPU_DIGIT_VALUES];
	size_t		i;
	size_t		bucket;

	memset(partial, 0, sizeof(partial));
	for (i = 0; i + 4 <= n; i += 4)
	{
		partial[0][RADIK_CPU_DIGIT(keys[i], shift)]++;
		partial[1][RADIK_CPU_DIGIT(keys[i + 1], shift)]++;
		partial[2][RADIK_CPU_DIGIT(keys[i + 2], shift)]++;
		partial[3][RADIK_CPU_DIGIT(keys[i + 3], shift)]++;
	}
	for (; i < n; i++)
		partial[0][RADIK_CPU_DIGIT(keys[i], shift)]++;
	for (bucket = 0; bucket < RADIK_CPU_DIGIT_VALUES; bucket++)
		histogram[bucket] = partial[0][bucket] + partial[1][bucket] + partial[2][bucket] +
			partial[3][bucket];
}

/*
 * Cut the candidates back to exactly k (count > k) by radix selection, most significant digit
 * first, and make the k-th key the new threshold.
 *
 * Each digit costs one histogram and one partition pass over the live entries: entries whose
 * digit is below the bucket where the running count crosses k are certainly kept and go
 * straight to the front of the candidate arrays; entries in that bucket move to the selection
 * scratch (while the next digit is counted) and are decided by the following digits; entries
 * above it are dropped.  With random keys the live bucket shrinks 256-fold per digit, so a
 * reduction reads the candidates about twice.  A digit that all live keys share costs only its
 * histogram.
 */
static radik_status
radik_cpu_best_reduce(radik_cpu_best *best, radik_error *err)
{
	uint64_t   *live_keys = best->keys;
	uint64_t   *live_ids = best->ids;
	size_t		live_count = best->count;
	uint64_t	wanted = best->k;	/* how many of the live entries to keep */
	size_t		kept = 0;		/* entries already decided, at the front of best->keys/ids */
	uint64_t	prefix = 0;
	uint64_t	kth;
	size_t		histogram[RADIK_CPU_DIGIT_VALUES];
	int			counted = 0;	/* histogram already holds the current digit's counts */
	int			shift;

	for (shift = RADIK_CPU_DIGIT_BITS * (best->key_bytes - 1); shift >= 0;
		 shift -= RADIK_CPU_DIGIT_BITS)
	{
		size_t		next_histogram[RADIK_CPU_DIGIT_VALUES];
		int			next_shift = shift - RADIK_CPU_DIGIT_BITS;
		size_t		below = 0;
		size_t		bucket = 0;
		size_t		bucket_count = 0;
		size_t		i;

		if (!counted)
			radik_cpu_histogram(live_keys, live_count, shift, histogram);
		counted = 0;
		while (below + histogram[bucket] < wanted)
			below += histogram[bucket++];
		wanted -= below;
		prefix |= (uint64_t) bucket << shift;
		if (histogram[bucket] == live_count)
			continue;			/* every live key has this digit: nothing decided yet */

		if (live_keys == best->keys && histogram[bucket] + 1 > best->select_capacity)
		{
			size_t		capacity = radik_cpu_next_capacity(best->select_capacity,
														   histogram[bucket] + 1);

			if (!radik_cpu_grow(&best->select_keys, capacity) ||
				!radik_cpu_grow(&best->select_ids, capacity))
				return radik_fail(err, RADIK_OUT_OF_MEMORY,
								  "could not allocate room for %zu selection entries",
								  capacity);
			best->select_capacity = capacity;
		}

		/*
		 * Partition, without branches (which side an entry goes is a coin toss when k is a
		 * good part of the candidates): every entry is written to both places and only the
		 * right side's count advances.  Writes never overtake reads: kept entries go to
		 * best->keys at or below the read position (or, once live entries are in the
		 * scratch, over entries already moved out; best->keys has room beyond k since
		 * count > k), bucket entries to the scratch at or below the read position (which
		 * has room for one more than the bucket).
		 */
		memset(next_histogram, 0, sizeof(next_histogram));
		for (i = 0; i < live_count; i++)
		{
			uint64_t	key = live_keys[i];
			uint64_t	id = live_ids[i];
			size_t		digit = RADIK_CPU_DIGIT(key, shift);
			size_t		in_bucket = digit == bucket;

			best->keys[kept] = key;
			best->ids[kept] = id;
			kept += digit < bucket;
			best->select_keys[bucket_count] = key;
			best->select_ids[bucket_count] = id;
			bucket_count += in_bucket;
			if (next_shift >= 0)
				next_histogram[RADIK_CPU_DIGIT(key, next_shift)] += in_bucket;
		}
		live_keys = best->select_keys;
		live_ids = best->select_ids;
		live_count = bucket_count;
		if (next_shift >= 0)
		{
			memcpy(histogram, next_histogram, sizeof(histogram));
			counted = 1;
		}

		if (wanted == live_count)
			break;				/* the whole bucket is kept */
	}

	/*
	 * Keep the first wanted live entries.  Either the loop ran out of digits (all live keys
	 * equal prefix: the boundary ties, cut here) or the whole bucket is kept.
	 */
	kth = prefix;
	if (live_keys == best->keys)
	{
		/* no partition happened: every candidate equals prefix */
		kept = (size_t) wanted;
	}
	else
	{
		size_t		i;

		kth = 0;
		for (i = 0; i < wanted; i++)
		{
			uint64_t	key = live_keys[i];

			kth = key > kth ? key : kth;
			best->keys[kept] = key;
			best->ids[kept] = live_ids[i];
			kept++;
		}
	}
	best->count = kept;			/* == k */
	best->threshold = kth;
	best->threshold_valid = 1;
	return RADIK_OK;
}

/*
 * Append the entries of keys[0..n) (4- or 8-byte keys) that can still be selected: all of them
 * before a threshold exists, else those strictly below it (limit).  ids NULL means entry i's id
 * is first_id + i.  Room for n more candidates must have been reserved.
 *
 * Keys are looked at in blocks: first a count of the block's keys below the limit (a loop
 * without branches, which the compiler vectorises for 4-byte keys), so that a block without
 * candidates, the common case once the threshold is tight, costs almost nothing.  A block with
 * few candidates appends them with a branch, so the other entries' ids are never read; a block
 * with many appends every entry and advances the output only past candidates, because a branch
 * taken at random would be mispredicted half the time.  One definition serves both key widths.
 */
#define RADIK_CPU_DEFINE_FILTER(name, key_type) \
static size_t \
name(const key_type *keys, const uint64_t *ids, uint64_t first_id, size_t n, int bounded, \
	 uint64_t bound, uint64_t *out_keys, uint64_t *out_ids) \
{ \
	size_t		kept = 0; \
	size_t		i; \
	key_type	limit = (key_type) bound; \
\
	if (!bounded) \
	{ \
		for (i = 0; i < n; i++) \
			out_keys[i] = keys[i]; \
		if (ids != NULL) \
			memcpy(out_ids, ids, n * sizeof(uint64_t)); \
		else \
			for (i = 0; i < n; i++) \
				out_ids[i] = first_id + i; \
		return n; \
	} \
	for (i = 0; i + RADIK_CPU_FILTER_BLOCK <= n; i += RADIK_CPU_FILTER_BLOCK) \
	{ \
		const key_type *block = keys + i; \
		unsigned int hits = 0; \
		size_t		j; \
\
		for (j = 0; j < RADIK_CPU_FILTER_BLOCK; j++) \
			hits += block[j] < limit; \
		if (hits == 0) \
			continue; \
		if (hits < RADIK_CPU_FILTER_BLOCK / 4) \
		{ \
			for (j = i; j < i + RADIK_CPU_FILTER_BLOCK; j++) \
				if (keys[j] < limit) \
				{ \
					out_keys[kept] = keys[j]; \
					out_ids[kept] = ids != NULL ? ids[j] : first_id + j; \
					kept++; \
				} \
		} \
		else \
		{ \
			for (j = i; j < i + RADIK_CPU_FILTER_BLOCK; j++) \
			{ \
				out_keys[kept] = keys[j];	/* kept <= j: within the reserved room */ \
				out_ids[kept] = ids != NULL ? ids[j] : first_id + j; \
				kept += keys[j] < limit; \
			} \
		} \
	} \
	for (; i < n; i++) \
		if (keys[i] < limit) \
		{ \
			out_keys[kept] = keys[i]; \
			out_ids[kept] = ids != NULL ? ids[i] : first_id + i; \
			kept++; \
		} \
	return kept; \
}

RADIK_CPU_DEFINE_FILTER(radik_cpu_filter32, uint32_t)
RADIK_CPU_DEFINE_FILTER(radik_cpu_filter64, uint64_t)

/*
 * How many candidates beyond k to collect before cutting back to k: k (so a reduction reads
 * at most two candidates per new one), but at least one filter window, so that a small k is
 * not cut back for every few rows.  A larger slack saves reductions but loosens the threshold
 * in between, which lets more rows through the filter: measured, that costs more than the
 * reductions save.  Memory stays below 2k + 2 windows + chunk entries.
 */
static uint64_t
radik_cpu_slack(uint64_t k)
{
	return k > RADIK_CPU_FILTER_WINDOW ? k : RADIK_CPU_FILTER_WINDOW;
}

/*
 * Offer n entries (at most one chunk's worth, to keep memory bounded) to the running best.
 *
 * The entries are filtered a window at a time, and the candidates cut back after any window
 * that used up the slack: with rows that keep improving the answer (a table stored in the
 * opposite of the wanted order) the threshold then tightens within the chunk, not after it.
 */
static radik_status
radik_cpu_best_add(radik_cpu_best *best, const void *keys, const uint64_t *ids,
				   uint64_t first_id, size_t n, radik_error *err)
{
	radik_status status;
	size_t		done;

	if (n == 0)
		return RADIK_OK;
	status = radik_cpu_reserve_candidates(best, n, err);
	if (status != RADIK_OK)
		return status;
	for (done = 0; done < n; done += RADIK_CPU_FILTER_WINDOW)
	{
		size_t		window = n - done < RADIK_CPU_FILTER_WINDOW ? n - done :
			RADIK_CPU_FILTER_WINDOW;
		const uint64_t *window_ids = ids != NULL ? ids + done : NULL;
		size_t		added;

		if (best->key_bytes == 4)
			added = radik_cpu_filter32((const uint32_t *) keys + done, window_ids,
									   first_id + done, window, best->threshold_valid,
									   best->threshold, best->keys + best->count,
									   best->ids + best->count);
		else
			added = radik_cpu_filter64((const uint64_t *) keys + done, window_ids,
									   first_id + done, window, best->threshold_valid,
									   best->threshold, best->keys + best->count,
									   best->ids + best->count);
		best->count += added;
		best->pushed += window;

		/* Cut back when the slack is used up, or at once when a first threshold can be had. */
		if (best->count > best->k &&
			(!best->threshold_valid || best->count - best->k >= radik_cpu_slack(best->k)))
		{
			status = radik_cpu_best_reduce(best, err);
			if (status != RADIK_OK)
				return status;
		}
	}
	return RADIK_OK;
}

/* The current k-th key (valid once k entries were offered). */
static radik_status
radik_cpu_best_threshold(radik_cpu_best *best, uint64_t *kth_key, int *valid, radik_error *err)
{
	*valid = 0;
	*kth_key = 0;
	if (best->pushed < best->k)
		return RADIK_OK;
	if (best->count > best->k)
	{
		radik_status status = radik_cpu_best_reduce(best, err);

		if (status != RADIK_OK)
			return status;
	}
	else if (!best->threshold_valid)
	{
		/* exactly k entries offered and kept: the k-th is the largest */
		uint64_t	largest = 0;
		size_t		i;

		for (i = 0; i < best->count; i++)
			largest = best->keys[i] > largest ? best->keys[i] : largest;
		best->threshold = largest;
		best->threshold_valid = 1;
	}
	*kth_key = best->threshold;
	*valid = 1;
	return RADIK_OK;
}

static void
radik_cpu_insertion_sort(uint64_t *keys, uint64_t *ids, size_t n)
{
	size_t		i;

	for (i = 1; i < n; i++)
	{
		uint64_t	key = keys[i];
		uint64_t	id = ids[i];
		size_t		j = i;

		while (j > 0 && keys[j - 1] > key)
		{
			keys[j] = keys[j - 1];
			ids[j] = ids[j - 1];
			j--;
		}
		keys[j] = key;
		ids[j] = id;
	}
}

/* Sort the candidates by key: LSD radix sort through the spare arrays. */
static radik_status
radik_cpu_best_sort(radik_cpu_best *best, radik_error *err)
{
	size_t		n = best->count;
	int			digits = best->key_bytes;
	size_t	   (*histograms)[RADIK_CPU_DIGIT_VALUES];
	size_t		i;
	int			digit;

	if (n <= RADIK_CPU_INSERTION_SORT_MAX)
	{
		radik_cpu_insertion_sort(best->keys, best->ids, n);
		return RADIK_OK;
	}
	if (n > best->spare_capacity)
	{
		/* exactly n: the sort is the last step, nothing will grow after it */
		if (!radik_cpu_grow(&best->spare_keys, n) || !radik_cpu_grow(&best->spare_ids, n))
			return radik_fail(err, RADIK_OUT_OF_MEMORY,
							  "could not allocate room to sort %zu entries", n);
		best->spare_capacity = n;
	}
	histograms = calloc(digits, sizeof(*histograms));
	if (histograms == NULL)
		return radik_fail(err, RADIK_OUT_OF_MEMORY, "could not allocate sort histograms");

	/* one pass counts every digit */
	for (i = 0; i < n; i++)
	{
		uint64_t	key = best->keys[i];

		for (digit = 0; digit < digits; digit++)
			histograms[digit][RADIK_CPU_DIGIT(key, digit * RADIK_CPU_DIGIT_BITS)]++;
	}

	for (digit = 0; digit < digits; digit++)
	{
		size_t	   *histogram = histograms[digit];
		int			shift = digit * RADIK_CPU_DIGIT_BITS;
		size_t		start = 0;
		size_t		bucket;
		uint64_t   *swap_pointer;
		size_t		swap_capacity;

		if (histogram[RADIK_CPU_DIGIT(best->keys[0], shift)] == n)
			continue;			/* all keys share this digit: the pass would change nothing */
		for (bucket = 0; bucket < RADIK_CPU_DIGIT_VALUES; bucket++)
		{
			size_t		size = histogram[bucket];

			histogram[bucket] = start;
			start += size;
		}
		for (i = 0; i < n; i++)
		{
			uint64_t	key = best->keys[i];
			size_t		to = histogram[RADIK_CPU_DIGIT(key, shift)]++;

			best->spare_keys[to] = key;
			best->spare_ids[to] = best->ids[i];
		}
		swap_pointer = best->keys;
		best->keys = best->spare_keys;
		best->spare_keys = swap_pointer;
		swap_pointer = best->ids;
		best->ids = best->spare_ids;
		best->spare_ids = swap_pointer;
		swap_capacity = best->capacity;
		best->capacity = best->spare_capacity;
		best->spare_capacity = swap_capacity;
	}
	free(histograms);
	return RADIK_OK;
}

/* Cut to min(k, offered) and sort: the finished answer is best->keys/ids[0..count). */
static radik_status
radik_cpu_best_finish(radik_cpu_best *best, radik_error *err)
{
	if (best->count > best->k)
	{
		radik_status status = radik_cpu_best_reduce(best, err);

		if (status != RADIK_OK)
			return status;
	}
	return radik_cpu_best_sort(best, err);
}

/* Streaming selection: the backend functions of radik_backend.h. */

radik_status
radik_cpu_open(int key_bytes, uint64_t k, uint64_t expected_rows, void **state,
			   radik_error *err)
{
	radik_cpu_selection *selection;
	radik_status status;

	(void) expected_rows;		/* buffers grow with the rows actually pushed */
	selection = calloc(1, sizeof(*selection));
	if (selection == NULL)
		return radik_fail(err, RADIK_OUT_OF_MEMORY, "could not allocate a CPU selection");
	radik_cpu_best_init(&selection->best, key_bytes, k);
	status = radik_cpu_take_chunk(&selection->chunk, err);
	if (status != RADIK_OK)
	{
		free(selection);
		return status;
	}
	*state = selection;
	return RADIK_OK;
}

radik_status
radik_cpu_chunk_buffer(void *state, void **keys, uint64_t **ids, size_t *capacity,
					   radik_error *err)
{
	radik_cpu_selection *selection = state;

	(void) err;
	*keys = selection->chunk.keys;
	*ids = selection->chunk.ids;
	*capacity = RADIK_CPU_CHUNK_CAPACITY;
	return RADIK_OK;
}

radik_status
radik_cpu_push_chunk(void *state, size_t n, radik_error *err)
{
	radik_cpu_selection *selection = state;

	return radik_cpu_best_add(&selection->best, selection->chunk.keys, selection->chunk.ids, 0,
							  n, err);
}

radik_status
radik_cpu_threshold(void *state, uint64_t *kth_key, int *valid, radik_error *err)
{
	radik_cpu_selection *selection = state;

	return radik_cpu_best_threshold(&selection->best, kth_key, valid, err);
}

radik_status
radik_cpu_finish(void *state, uint64_t *count, radik_error *err)
{
	radik_cpu_selection *selection = state;
	radik_status status;

	radik_cpu_give_back_chunk(&selection->chunk);	/* no more pushes: let another scan have it */
	status = radik_cpu_best_finish(&selection->best, err);
	if (status != RADIK_OK)
		return status;
	selection->finished = 1;
	*count = selection->best.count;
	return RADIK_OK;
}

radik_status
radik_cpu_result(void *state, uint64_t *keys, uint64_t *ids, radik_error *err)
{
	radik_cpu_selection *selection = state;
	size_t		count = selection->best.count;

	if (!selection->finished)
		return radik_fail(err, RADIK_INVALID_ARGUMENT, "the selection is not finished");
	if (count == 0)
		return RADIK_OK;
	if (keys != NULL)
		memcpy(keys, selection->best.keys, count * sizeof(uint64_t));
	if (ids != NULL)
		memcpy(ids, selection->best.ids, count * sizeof(uint64_t));
	return RADIK_OK;
}

const char *
radik_cpu_device_name(void *state)
{
	(void) state;
	return "cpu";
}

void
radik_cpu_close(void *state)
{
	radik_cpu_selection *selection = state;

	if (selection == NULL)
		return;
	radik_cpu_give_back_chunk(&selection->chunk);
	radik_cpu_best_free(&selection->best);
	free(selection);
}

/* Batch selection: each segment streamed through one reused radik_cpu_best. */
radik_status
radik_cpu_select_batch(int key_bytes, const void *keys, const uint64_t *ids,
					   const uint64_t *offsets, size_t segments, const uint64_t *ks,
					   const uint64_t *out_offsets, uint64_t *out_keys,
					   uint64_t *out_ids, uint64_t *out_counts, radik_error *err)
{
	radik_cpu_best best;
	radik_status status = RADIK_OK;
	size_t		s;

	radik_cpu_best_init(&best, key_bytes, 1);
	for (s = 0; s < segments && status == RADIK_OK; s++)
	{
		uint64_t	start = offsets[s];
		uint64_t	length = offsets[s + 1] - offsets[s];
		uint64_t	done = 0;

		radik_cpu_best_restart(&best, ks[s]);
		while (done < length && status == RADIK_OK)
		{
			size_t		window = length - done < RADIK_CPU_CHUNK_CAPACITY ?
				(size_t) (length - done) : RADIK_CPU_CHUNK_CAPACITY;
			const void *window_keys = (const char *) keys + (start + done) * key_bytes;

			status = radik_cpu_best_add(&best, window_keys,
										ids != NULL ? ids + start + done : NULL, done,
										window, err);
			done += window;
		}
		if (status == RADIK_OK)
			status = radik_cpu_best_finish(&best, err);
		if (status == RADIK_OK && best.count > 0)
		{
			memcpy(out_keys + out_offsets[s], best.keys, best.count * sizeof(uint64_t));
			memcpy(out_ids + out_offsets[s], best.ids, best.count * sizeof(uint64_t));
		}
		if (status == RADIK_OK)
			out_counts[s] = best.count;
	}
	radik_cpu_best_free(&best);
	return status;
}
