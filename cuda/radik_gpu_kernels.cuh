/*
 * radik_gpu_kernels.cuh
 *	  The kernels of the CUDA engine: an exact radix selection of the k smallest keys of many
 *	  segments at once, run entirely on the device (no host round trip between passes).
 *
 * The selection walks the key's bits from the top, one digit (8 bits) per round.  Each round
 * builds a histogram of the current digit over the segment's candidates, picks the bin that holds
 * the k-th smallest key, writes every key of a smaller bin straight to the output (they are
 * certainly selected), and keeps only the keys of the chosen bin as the next round's candidates
 * (compacted into a candidate buffer).  The round ends when the chosen bin is taken whole, or
 * when the last digit is reached, where the bin holds a single key value and the first k' of its
 * equal keys are taken (ties at the boundary are cut to exactly k).
 *
 * Why these shapes:
 *  - One pass over the input where possible: a sorted sample of 4096 keys guesses where the k-th
 *    key lies, and a speculative first pass sends keys below the guess straight to the output and
 *    keeps keys inside it as candidates, counting their first digit as it goes.  The counts then
 *    prove or disprove the guess exactly; only when it missed does a full histogram pass over the
 *    input run (the paper's two passes).  Measured on an H200: one pass instead of two to three
 *    for every small-k input, including the adversarial ones (docs/performance.md).
 *  - One kernel launch serves every segment (blockIdx.y is the segment), so a batch of many small
 *    selections costs the same launches as one large one; each segment's progress lives in a
 *    SegmentState in device memory, written by one-block kernels per segment, so the host never
 *    waits between rounds.  A round that has nothing left to do exits at once.
 *  - Adversarial inputs stay exact without the paper's float scaling: the candidates' first digit
 *    and the fallback's window start where the sample's keys first differ (skipping the leading
 *    bits they share), with keys below and above that window counted in two extra bins; if the
 *    k-th key falls outside the window, the selection goes on from the top digit among the keys
 *    of that outside bin, so a bad sample costs time, never exactness.
 *  - Histograms are hierarchical: plain (or, as a measured option, warp-aggregated with
 *    match_any) shared-memory atomics per block, then one global atomic per non-empty bin.
 *  - The filter is fused with the next round's histogram: while it copies the chosen bin's keys
 *    into the candidate buffer, it already counts their next digit, so each round reads its
 *    candidates once.  Filters are specialized by k: per-warp shared-memory write buffers when
 *    few keys are written (no block barrier per tile), a block-wide scan and buffer when many are;
 *    a dense speculative first pass has a kernel of its own (radik_gpu_dense_first.cuh), which
 *    leaves its candidates' histogram to a read of them.
 *  - Loads are striped across the block (consecutive threads, consecutive keys), several per
 *    thread, the next tile's loaded while the current one is filtered; segments may start at any
 *    offset, so no alignment is assumed.
 */
#ifndef RADIK_GPU_KERNELS_CUH
#define RADIK_GPU_KERNELS_CUH

#include <cstdint>

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

namespace radik
{

constexpr int DIGIT_BITS = 8;
constexpr int INNER_BINS = 1 << DIGIT_BITS;
constexpr int BINS = INNER_BINS + 2;	/* bin 0: below the window; BINS-1: above it */
constexpr int BELOW_BIN = 0;
constexpr int ABOVE_BIN = BINS - 1;
constexpr int THREADS = 256;
constexpr int SAMPLE_SIZE = 4096;
constexpr int CHOOSE_THREADS = 256;
constexpr int CHOOSE_ITEMS = 2;			/* CHOOSE_THREADS * CHOOSE_ITEMS >= BINS */
/* k above 1/DENSE_OUTPUT_RATIO of n: the block-wide (dense) filter; measured on an H200 */
constexpr unsigned long long DENSE_OUTPUT_RATIO = 32;

/* Bytes each thread loads per tile: 64 (16 keys of 4 bytes, 8 of 8). */
template <typename Key>
struct Tile
{
	static constexpr int ITEMS = 64 / (int) sizeof(Key);
	static constexpr int SIZE = ITEMS * THREADS;
};

/*
 * A thread's share of the ITEMS * BLOCK keys starting at base: item j is keys[base + j * BLOCK +
 * threadIdx.x] (so each load instruction of a warp reads consecutive keys), 0 past length.
 */
template <int BLOCK, typename Key, int ITEMS>
__device__ __forceinline__ void
load_striped(Key (&items)[ITEMS], const Key *keys, unsigned long long base,
			 unsigned long long length)
{
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		const unsigned long long i = base + (unsigned long long) j * BLOCK + threadIdx.x;

		items[j] = i < length ? keys[i] : (Key) 0;
	}
}

/* A thread's share of the tile starting at base, for the kernels of THREADS threads. */
template <typename Key>
__device__ __forceinline__ void
load_tile(Key (&items)[Tile<Key>::ITEMS], const Key *keys, unsigned long long base,
		  unsigned long long length)
{
	load_striped<THREADS>(items, keys, base, length);
}

enum RoundAction : int
{
	ACTION_KEEP = 0,			/* chosen bin's keys become the next round's candidates */
	ACTION_TAKE_ALL = 1,		/* chosen bin is taken whole: the segment is done */
	ACTION_TAKE_TIES = 2,		/* chosen bin is one key value: take k_remaining of it */
	ACTION_DONE = 3
};

struct SegmentState
{
	unsigned long long length;
	unsigned long long k_remaining;		/* still to select among the current candidates */
	unsigned long long out_count;		/* entries written to the output so far */
	unsigned long long candidate_count[2];
	unsigned long long tie_tickets;
	unsigned long long prefix;			/* key >> (shift + width) of the window's keys */
	unsigned long long next_prefix;
	int			shift;					/* digit of the current round */
	int			width;
	int			next_shift;
	int			next_width;
	int			source;					/* -1: the input; 0 or 1: a candidate buffer */
	int			action;
	int			chosen_bin;
	int			round;
	int			fallback;				/* the speculative pass missed: round 0 runs */
	int			fallback_shift;			/* round 0's window: where the sample's extremes differ */
	unsigned long long fallback_prefix;
	unsigned long long speculative_low;	/* speculative pass: keys below go out, keys up to */
	unsigned long long speculative_high;	/* speculative_high become candidates */
};

/* Everything a selection kernel needs, passed by value. */
template <typename Key>
struct SelectArgs
{
	const Key  *keys;			/* segment s: keys[seg_offsets[s] .. seg_offsets[s+1]) */
	const uint64_t *ids;		/* NULL: an entry's id is its index in its segment */
	const unsigned long long *seg_offsets;
	const unsigned long long *seg_ks;
	const unsigned long long *out_offsets;
	Key		   *candidate_keys[2];	/* same layout as keys */
	uint64_t   *candidate_ids[2];
	Key		   *out_keys;		/* segment s: out_keys[out_offsets[s] ...], unsorted */
	uint64_t   *out_ids;		/* (32-bit indexes from there on where narrow_out_ids) */
	SegmentState *states;
	unsigned long long *histograms;	/* [2][segments][BINS] */
	int			segments;		/* all segments of this selection */
	int			segment_base;	/* first segment of this launch (gridDim.y is limited) */
	int			warp_aggregate;	/* histogram: aggregate equal bins within a warp first */
	int			speculate;		/* first pass guesses the k-th key from a sample */
	int			narrow_out_ids;	/* output ids stored as 32-bit indexes (see store_out_id) */
};

/*
 * Store an output entry's id.  Where the ids are positions below 2^32 and the answer is large
 * (and dense: only the dense filters write narrow), run_selection has the output hold them as
 * 32-bit indexes (narrow, counted from the segment's first output slot), so that its sort moves
 * 8-byte pairs instead of 12 or 16 bytes.  (Passing the flag through the sparse filter_kernel
 * cost its small-k selections 3-10% on the H200: 2^30 float32 k = 65536 1.35 -> 1.42 ms.)
 */
__device__ __forceinline__ void
store_out_id(uint64_t *ids, unsigned long long slot, uint64_t id, int narrow)
{
	if (narrow)
		reinterpret_cast<uint32_t *>(ids)[slot] = (uint32_t) id;
	else
		ids[slot] = id;
}

template <typename Key>
__device__ __forceinline__ int
key_bin(Key key, int shift, int width, unsigned long long prefix)
{
	constexpr int KEY_BITS = (int) sizeof(Key) * 8;
	const int	top = shift + width;
	const unsigned long long high = top >= KEY_BITS ? 0ull : (unsigned long long) (key >> top);

	if (high < prefix)
		return BELOW_BIN;
	if (high > prefix)
		return ABOVE_BIN;
	return 1 + (int) ((key >> shift) & (Key) ((1u << width) - 1u));
}

struct Smaller
{
	template <typename T>
	__device__ __forceinline__ T operator()(const T &x, const T &y) const
	{
		return x < y ? x : y;
	}
};

struct Larger
{
	template <typename T>
	__device__ __forceinline__ T operator()(const T &x, const T &y) const
	{
		return x > y ? x : y;
	}
};

struct BitsOfBoth
{
	template <typename T>
	__device__ __forceinline__ T operator()(const T &x, const T &y) const
	{
		return x & y;
	}
};

struct BitsOfEither
{
	template <typename T>
	__device__ __forceinline__ T operator()(const T &x, const T &y) const
	{
		return x | y;
	}
};

__device__ __forceinline__ unsigned long long *
segment_histogram(unsigned long long *histograms, int parity, int segments, int s)
{
	return histograms + ((size_t) parity * segments + s) * BINS;
}

/* Add a block's shared-memory histogram to a global one: one atomic per non-empty bin. */
__device__ __forceinline__ void
add_block_histogram(const unsigned int *block, unsigned long long *global)
{
	for (int b = threadIdx.x; b < BINS; b += THREADS)
		if (block[b] != 0)
			atomicAdd(&global[b], (unsigned long long) block[b]);
}

/* Shared-memory histogram update, optionally aggregated over the lanes of a warp that agree. */
__device__ __forceinline__ void
count_bin(unsigned int *histogram, int bin, bool valid, int warp_aggregate)
{
	if (warp_aggregate)
	{
		const unsigned int active = __ballot_sync(0xffffffffu, valid);

		if (valid)
		{
			const unsigned int peers = __match_any_sync(active, bin);

			if ((int) (threadIdx.x & 31) == __ffs(peers) - 1)
				atomicAdd(&histogram[bin], (unsigned int) __popc(peers));
		}
	}
	else if (valid)
		atomicAdd(&histogram[bin], 1u);
}

/* Round 0's window: 8 bits ending at the highest bit where low and high differ. */
template <typename Key>
__device__ __forceinline__ void
window_of(Key low, Key high, int *shift, unsigned long long *prefix)
{
	constexpr int KEY_BITS = (int) sizeof(Key) * 8;
	const Key	differ = (Key) (low ^ high);
	int			high_bit = -1;

	if (differ != 0)
		high_bit = KEY_BITS - 1 - (sizeof(Key) == 8 ? __clzll((long long) differ) : __clz((int) differ));
	*shift = high_bit + 1 - DIGIT_BITS < 0 ? 0 : high_bit + 1 - DIGIT_BITS;
	*prefix = *shift + DIGIT_BITS >= KEY_BITS ? 0ull :
		(unsigned long long) (low >> (*shift + DIGIT_BITS));
}

/*
 * Set-up, one block per segment: sort a strided sample of SAMPLE_SIZE keys and estimate where
 * the k-th key lies.  The speculative pass (filter_kernel<Key, true>) then sends keys below the
 * sample's (r - m)-th key straight to the output and keeps keys up to its (r + m)-th as
 * candidates, where r is the k-th key's expected rank in the sample and m = 3 sqrt(r) + 3 its
 * margin; check_speculation_kernel verifies the counts exactly and falls back to a full round 0
 * (window where the sample's extremes differ, plus the two outside bins) when the guess missed.
 */
template <typename Key>
__global__ void __launch_bounds__(THREADS)
sample_kernel(SelectArgs<Key> a)
{
	constexpr int SAMPLE_ITEMS = SAMPLE_SIZE / THREADS;
	using Sort = cub::BlockRadixSort<Key, THREADS, SAMPLE_ITEMS>;
	__shared__ typename Sort::TempStorage sort_storage;
	__shared__ Key picked[4];	/* lowest, highest, speculative low, speculative high */
	const int	s = blockIdx.y + a.segment_base;
	const unsigned long long begin = a.seg_offsets[s];
	const unsigned long long length = a.seg_offsets[s + 1] - begin;
	const unsigned long long k = a.seg_ks[s] < length ? a.seg_ks[s] : length;
	Key			sample[SAMPLE_ITEMS];

	if (length == 0)
	{
		if (threadIdx.x == 0)
		{
			a.states[s].length = 0;
			a.states[s].action = ACTION_DONE;
		}
		return;
	}
#pragma unroll
	for (int j = 0; j < SAMPLE_ITEMS; j++)
	{
		const unsigned long long position = (unsigned long long) (threadIdx.x * SAMPLE_ITEMS + j);

		sample[j] = a.keys[begin + position * length / SAMPLE_SIZE];
	}
	Sort(sort_storage).Sort(sample);

	/* the expected rank of the k-th key in the sample, and a margin of 3 sigma plus one */
	const float rank = (float) k * (float) SAMPLE_SIZE / (float) length;
	const float margin = 3.0f * sqrtf(rank) + 1.0f;
	const long long low_rank = (long long) floorf(rank - margin);
	const long long high_rank = (long long) (rank + margin);

#pragma unroll
	for (int j = 0; j < SAMPLE_ITEMS; j++)
	{
		const long long position = threadIdx.x * SAMPLE_ITEMS + j;

		if (position == 0)
			picked[0] = sample[j];
		if (position == SAMPLE_SIZE - 1)
			picked[1] = sample[j];
		if (position == low_rank)
			picked[2] = sample[j];
		if (position == high_rank)
			picked[3] = sample[j];
	}
	__syncthreads();

	for (int b = threadIdx.x; b < BINS; b += THREADS)
		segment_histogram(a.histograms, 1, a.segments, s)[b] = 0;
	if (threadIdx.x == 0)
	{
		SegmentState *st = &a.states[s];
		const Key	low = low_rank < 0 ? (Key) 0 : picked[2];
		const Key	high = high_rank >= SAMPLE_SIZE ? (Key) ~(Key) 0 : picked[3];
		int			shift;
		unsigned long long prefix;

		st->length = length;
		st->k_remaining = k;
		st->out_count = 0;
		st->candidate_count[0] = 0;
		st->candidate_count[1] = 0;
		st->tie_tickets = 0;
		st->speculative_low = low;
		st->speculative_high = high;
		/* the candidates' first digit: below the sample's lowest key they fall in bin 0 */
		window_of<Key>(low_rank < 0 ? picked[0] : low, high, &shift, &prefix);
		st->next_shift = shift;
		st->next_width = DIGIT_BITS;
		st->next_prefix = prefix;
		window_of<Key>(picked[0], picked[1], &shift, &prefix);
		st->fallback_shift = shift;
		st->fallback_prefix = prefix;
		st->fallback = a.speculate ? 0 : 1;
		st->shift = shift;
		st->width = DIGIT_BITS;
		st->prefix = prefix;
		st->source = -1;
		st->action = k == 0 ? ACTION_DONE : ACTION_KEEP;
		st->chosen_bin = 0;
		st->round = 0;
	}
}

/*
 * One block per segment, after the speculative pass: if the keys sent out number at most k and
 * the candidates make up the rest, the candidates (in buffer 0, their next digit counted in
 * histogram 1 by the filter or, after a dense pass, by histogram_kernel<Key, true> next) go on
 * to round 1; otherwise everything is reset for a full round 0.
 */
template <typename Key>
__global__ void __launch_bounds__(THREADS)
check_speculation_kernel(SelectArgs<Key> a)
{
	const int	s = blockIdx.y + a.segment_base;
	SegmentState *st = &a.states[s];

	if (st->action == ACTION_DONE)
		return;

	const unsigned long long k = st->k_remaining;
	const unsigned long long out = st->out_count;
	const unsigned long long kept = st->candidate_count[0];

	const int	speculated = !st->fallback;

	__syncthreads();			/* everyone has read the state before it changes */
	if (speculated && out <= k && out + kept >= k)
	{
		if (threadIdx.x == 0)
		{
			st->k_remaining = k - out;
			if (out == k)
				st->action = ACTION_DONE;	/* the keys below the guess are exactly the answer */
		}
		return;
	}
	for (int b = threadIdx.x; b < BINS; b += THREADS)
	{
		segment_histogram(a.histograms, 0, a.segments, s)[b] = 0;
		segment_histogram(a.histograms, 1, a.segments, s)[b] = 0;
	}
	if (threadIdx.x == 0)
	{
		st->out_count = 0;
		st->candidate_count[0] = 0;
		st->candidate_count[1] = 0;
		st->tie_tickets = 0;
		st->fallback = 1;
	}
}

/*
 * A histogram the filters did not count on their way.  CANDIDATES false: round 0's over the
 * input, where the speculative pass missed (fallback).  CANDIDATES true: round 1's over the
 * candidates a dense speculative pass kept (dense_first_kernel does not count them: a
 * shared-memory atomic per kept key, in a branch most warps take, cost that pass more than
 * reading the candidates again does), where its guess held.  Later rounds' histograms come
 * from the filters.
 */
template <typename Key, bool CANDIDATES>
__global__ void __launch_bounds__(THREADS, 3)
histogram_kernel(SelectArgs<Key> a)
{
	constexpr int ITEMS = Tile<Key>::ITEMS;
	constexpr int TILE = Tile<Key>::SIZE;
	__shared__ unsigned int histogram[BINS];
	const int	s = blockIdx.y + a.segment_base;
	const SegmentState *st = &a.states[s];

	if (st->action == ACTION_DONE || (CANDIDATES ? st->fallback : !st->fallback))
		return;

	const unsigned long long begin = a.seg_offsets[s];
	const unsigned long long length = CANDIDATES ? st->candidate_count[0] : st->length;
	const int	shift = CANDIDATES ? st->next_shift : st->shift;
	const int	width = CANDIDATES ? st->next_width : st->width;
	const unsigned long long prefix = CANDIDATES ? st->next_prefix : st->prefix;

	if ((unsigned long long) blockIdx.x * TILE >= length)
		return;
	for (int b = threadIdx.x; b < BINS; b += THREADS)
		histogram[b] = 0;
	__syncthreads();

	const Key  *keys = (CANDIDATES ? a.candidate_keys[0] : a.keys) + begin;

	for (unsigned long long base = (unsigned long long) blockIdx.x * TILE; base < length;
		 base += (unsigned long long) gridDim.x * TILE)
	{
		Key			key[ITEMS];

#pragma unroll
		for (int j = 0; j < ITEMS; j++)
		{
			const unsigned long long i = base + (unsigned long long) j * THREADS + threadIdx.x;

			key[j] = i < length ? keys[i] : (Key) 0;
		}
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
		{
			const unsigned long long i = base + (unsigned long long) j * THREADS + threadIdx.x;

			count_bin(histogram, key_bin(key[j], shift, width, prefix), i < length,
					  a.warp_aggregate);
		}
	}
	__syncthreads();
	add_block_histogram(histogram,
						segment_histogram(a.histograms, CANDIDATES ? 1 : 0, a.segments, s));
}

/*
 * One block per segment: move to this round's digit, find the bin holding the k-th smallest
 * remaining key, and decide what the filter does with it.
 */
template <typename Key>
__global__ void __launch_bounds__(CHOOSE_THREADS)
choose_kernel(SelectArgs<Key> a, int round)
{
	constexpr int KEY_BITS = (int) sizeof(Key) * 8;
	using Scan = cub::BlockScan<unsigned long long, CHOOSE_THREADS>;
	__shared__ typename Scan::TempStorage scan_storage;
	const int	s = blockIdx.y + a.segment_base;
	SegmentState *st = &a.states[s];
	int			action = st->action;

	if (round == 0 && !st->fallback)
		return;					/* the speculative pass did round 0's work */
	if (action != ACTION_KEEP)
	{
		/* the last filter took what was left (or there was nothing to do) */
		__syncthreads();
		if (threadIdx.x == 0)
			st->action = ACTION_DONE;
		return;
	}

	int			shift = st->shift;
	int			width = st->width;
	unsigned long long prefix = st->prefix;
	int			source = st->source;
	const unsigned long long k_remaining = st->k_remaining;

	if (round > 0)
	{
		/* the last filter kept a bin: its candidates and their histogram are this round's */
		shift = st->next_shift;
		width = st->next_width;
		prefix = st->next_prefix;
		source = source == 0 ? 1 : 0;
	}
	__syncthreads();

	const unsigned long long *histogram = segment_histogram(a.histograms, round & 1, a.segments, s);
	unsigned long long count[CHOOSE_ITEMS];
	unsigned long long before[CHOOSE_ITEMS];

#pragma unroll
	for (int j = 0; j < CHOOSE_ITEMS; j++)
	{
		const int	b = threadIdx.x * CHOOSE_ITEMS + j;

		count[j] = b < BINS ? histogram[b] : 0ull;
	}
	Scan(scan_storage).ExclusiveSum(count, before);

#pragma unroll
	for (int j = 0; j < CHOOSE_ITEMS; j++)
	{
		const int	b = threadIdx.x * CHOOSE_ITEMS + j;

		if (count[j] == 0 || before[j] >= k_remaining || k_remaining > before[j] + count[j])
			continue;

		/* this thread holds the bin where the running count reaches k_remaining */
		const unsigned long long need = k_remaining - before[j];
		const bool	inner = b != BELOW_BIN && b != ABOVE_BIN;

		st->shift = shift;
		st->width = width;
		st->prefix = prefix;
		st->source = source;
		st->chosen_bin = b;
		st->k_remaining = need;
		st->tie_tickets = 0;
		st->round = round;
		if (need == count[j])
			st->action = ACTION_TAKE_ALL;
		else if (inner && shift == 0)
			st->action = ACTION_TAKE_TIES;
		else
		{
			st->action = ACTION_KEEP;
			if (inner)
			{
				const int	next_shift = shift > DIGIT_BITS ? shift - DIGIT_BITS : 0;

				st->next_prefix = (prefix << width) | (unsigned long long) (b - 1);
				st->next_shift = next_shift;
				st->next_width = shift - next_shift;
			}
			else
			{
				/* outside the sampled window: start again from the top digit */
				st->next_prefix = 0;
				st->next_shift = KEY_BITS - DIGIT_BITS;
				st->next_width = DIGIT_BITS;
			}
			st->candidate_count[source == 0 ? 1 : 0] = 0;
		}
	}

	unsigned long long *next = segment_histogram(a.histograms, (round + 1) & 1, a.segments, s);

	for (int b = threadIdx.x; b < BINS; b += CHOOSE_THREADS)
		next[b] = 0;
}

/*
 * The filter of one round: keys of smaller bins go to the output, keys of the chosen bin go to
 * the output (TAKE_ALL), to the output up to k_remaining of them (TAKE_TIES), or to the other
 * candidate buffer with their next digit counted (KEEP).
 *
 * SPECULATIVE: the first pass over the input, before any histogram.  Its "bins" are: below the
 * sample's guess (out), inside it (kept), above it (dropped).  Writes to the output stop at k, so
 * a wrong guess cannot overflow; check_speculation_kernel then tells whether it held.
 *
 * Writes go through a shared-memory buffer per warp and destination (the paper's flush-efficient
 * write buffer): a warp places its survivors with one ballot per item and no block barrier, and
 * copies its buffer out with one global atomic and coalesced stores only when the buffer fills
 * up.  So a sparse pass (small k) costs nothing beyond reading its keys, and a dense one (large
 * k) one global atomic per WARP_BUFFER entries.  The next tile's keys are loaded while this one
 * is sorted out.
 */
constexpr int WARPS = THREADS / 32;
constexpr int WARP_BUFFER = 128;

template <typename Key>
struct FilterShared
{
	Key			keys[WARPS][2][WARP_BUFFER];	/* [.][0]: to the output, [.][1]: candidates */
	uint64_t	ids[WARPS][2][WARP_BUFFER];
	unsigned int histogram[BINS];
};

/*
 * One warp copies count entries of its buffer to dest_keys/dest_ids from the next free slot
 * (those at or beyond limit are only counted).  Id: 64-bit ids here, 32-bit indexes in the
 * one-pass small-k path.
 */
template <typename Key, typename Id>
__device__ __forceinline__ void
flush_warp_buffer(const Key *buffer_keys, const Id *buffer_ids, unsigned int count,
				  unsigned long long *counter, Key *dest_keys, Id *dest_ids,
				  unsigned long long limit)
{
	const int	lane = threadIdx.x & 31;
	unsigned long long base = 0;

	__syncwarp();
	if (lane == 0)
		base = atomicAdd(counter, (unsigned long long) count);
	base = __shfl_sync(0xffffffffu, base, 0);
	for (unsigned int i = lane; i < count; i += 32)
		if (base + i < limit)
		{
			dest_keys[base + i] = buffer_keys[i];
			dest_ids[base + i] = buffer_ids[i];
		}
	__syncwarp();
}

/*
 * What a block of either filter takes from its segment's state before its first tile: this
 * round's bins, where its keys come from and where its survivors go.  A filter asks
 * filter_block_due whether it has work, then read_filter_pass fills this, and the filter copies
 * action into a variable of its own.  Both measured with ptxas -v: one function that fills this
 * only on the paths where the block has work, or an inner loop that reads action from here,
 * cost the filters up to four registers and the branch-free sorting of a tile's keys.
 */
template <typename Key>
struct FilterPass
{
	int			segment;
	SegmentState *st;
	int			action;			/* what the chosen bin's keys become */
	unsigned long long length;	/* keys to read: the input's or the source buffer's count */
	int			shift;
	int			width;
	unsigned long long prefix;
	int			chosen;			/* bins below it go out, the chosen one is taken or kept */
	Key			speculative_low;
	Key			speculative_high;
	unsigned long long out_limit;	/* a speculative pass writes no more than k */
	unsigned long long k_remaining;
	int			next_shift;		/* the kept keys' digit, counted for the next round */
	int			next_width;
	unsigned long long next_prefix;
	int			target;			/* candidate buffer the kept keys go to */
	const Key  *keys;
	const uint64_t *ids;		/* NULL: an entry's id is its index */
	Key		   *out_keys;
	uint64_t   *out_ids;
	Key		   *keep_keys;
	uint64_t   *keep_ids;
};

/*
 * Whether this block of a filter pass has work: its segment is not done, this pass is its own
 * this round, and its first tile lies within the keys.
 */
template <typename Key, bool SPECULATIVE>
__device__ __forceinline__ bool
filter_block_due(const SelectArgs<Key> &a, int round)
{
	const int	s = blockIdx.y + a.segment_base;
	const SegmentState *st = &a.states[s];
	const int	action = st->action;

	if (action == ACTION_DONE || (SPECULATIVE && st->fallback) ||
		(!SPECULATIVE && round == 0 && !st->fallback))
		return false;

	const int	source = SPECULATIVE ? -1 : st->source;
	const unsigned long long length = source < 0 ? st->length : st->candidate_count[source];

	return (unsigned long long) blockIdx.x * Tile<Key>::SIZE < length;
}

/* Fill f for a block that filter_block_due let through (the loads they share are read once). */
template <typename Key, bool SPECULATIVE>
__device__ __forceinline__ void
read_filter_pass(const SelectArgs<Key> &a, FilterPass<Key> &f)
{
	const int	s = blockIdx.y + a.segment_base;
	SegmentState *st = &a.states[s];
	const int	source = SPECULATIVE ? -1 : st->source;
	const unsigned long long begin = a.seg_offsets[s];

	f.segment = s;
	f.st = st;
	f.action = st->action;
	f.length = source < 0 ? st->length : st->candidate_count[source];
	f.shift = st->shift;
	f.width = st->width;
	f.prefix = st->prefix;
	f.chosen = SPECULATIVE ? 1 : st->chosen_bin;
	f.speculative_low = (Key) st->speculative_low;
	f.speculative_high = (Key) st->speculative_high;
	f.out_limit = SPECULATIVE ? st->k_remaining : ~0ull;
	f.k_remaining = st->k_remaining;
	f.next_shift = st->next_shift;
	f.next_width = st->next_width;
	f.next_prefix = st->next_prefix;
	f.target = source == 0 ? 1 : 0;
	/* (no run-time index into the parameter arrays: that would copy them to local memory) */
	f.keys = source < 0 ? a.keys + begin :
		(source == 0 ? a.candidate_keys[0] : a.candidate_keys[1]) + begin;
	f.ids = source < 0 ? (a.ids ? a.ids + begin : nullptr) :
		(source == 0 ? a.candidate_ids[0] : a.candidate_ids[1]) + begin;
	f.out_keys = a.out_keys + a.out_offsets[s];
	f.out_ids = a.out_ids + a.out_offsets[s];
	f.keep_keys = (f.target == 0 ? a.candidate_keys[0] : a.candidate_keys[1]) + begin;
	f.keep_ids = (f.target == 0 ? a.candidate_ids[0] : a.candidate_ids[1]) + begin;
}

template <typename Key, bool SPECULATIVE>
__global__ void __launch_bounds__(THREADS, 3)
filter_kernel(SelectArgs<Key> a, int round)
{
	constexpr int ITEMS = Tile<Key>::ITEMS;
	constexpr int TILE = Tile<Key>::SIZE;
	__shared__ FilterShared<Key> sh;
	FilterPass<Key> f;

	if (!filter_block_due<Key, SPECULATIVE>(a, round))
		return;
	read_filter_pass<Key, SPECULATIVE>(a, f);

	const int	action = f.action;	/* a copy of its own: see FilterPass */

	unsigned long long *keep_counter = &f.st->candidate_count[f.target];
	const int	warp = threadIdx.x >> 5;
	const unsigned int lanes_below = (1u << (threadIdx.x & 31)) - 1u;
	Key		   *out_buffer_keys = sh.keys[warp][0];
	uint64_t   *out_buffer_ids = sh.ids[warp][0];
	Key		   *keep_buffer_keys = sh.keys[warp][1];
	uint64_t   *keep_buffer_ids = sh.ids[warp][1];
	unsigned int staged_out = 0;	/* warp-uniform fill levels of this warp's buffers */
	unsigned int staged_kept = 0;

	for (int b = threadIdx.x; b < BINS; b += THREADS)
		sh.histogram[b] = 0;
	__syncthreads();

	const unsigned long long stride = (unsigned long long) gridDim.x * TILE;
	Key			key[ITEMS];

	load_tile(key, f.keys, (unsigned long long) blockIdx.x * TILE, f.length);
	for (unsigned long long base = (unsigned long long) blockIdx.x * TILE; base < f.length;
		 base += stride)
	{
		Key			next[ITEMS];	/* the next tile's keys, loading while this one is sorted out */

		load_tile(next, f.keys, base + stride, f.length);
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
		{
			const unsigned long long i = base + (unsigned long long) j * THREADS + threadIdx.x;
			const int	b = SPECULATIVE ?
				(key[j] < f.speculative_low ? 0 : key[j] <= f.speculative_high ? 1 : 2) :
				key_bin(key[j], f.shift, f.width, f.prefix);
			int			kind = 0;	/* 0 dropped, 1 out, 2 tie, 3 kept */

			if (i < f.length)
			{
				if (b < f.chosen)
					kind = 1;
				else if (b == f.chosen)
					kind = action == ACTION_TAKE_ALL ? 1 : action == ACTION_TAKE_TIES ? 2 : 3;
			}
			if (__ballot_sync(0xffffffffu, kind != 0) == 0)
				continue;		/* the common case of a sparse pass */

			if (action == ACTION_TAKE_TIES)
			{
				/* ties: claim tickets, the first k_remaining tickets are taken */
				const unsigned int tie_mask = __ballot_sync(0xffffffffu, kind == 2);

				if (tie_mask != 0)
				{
					unsigned long long ticket = 0;

					if ((threadIdx.x & 31) == 0)
						ticket = atomicAdd(&f.st->tie_tickets,
										   (unsigned long long) __popc(tie_mask));
					ticket = __shfl_sync(0xffffffffu, ticket, 0);
					if (kind == 2)
						kind = ticket + __popc(tie_mask & lanes_below) < f.k_remaining ? 1 : 0;
				}
			}

			const unsigned int out_mask = __ballot_sync(0xffffffffu, kind == 1);

			if (out_mask != 0)
			{
				if (staged_out + __popc(out_mask) > WARP_BUFFER)
				{
					flush_warp_buffer(out_buffer_keys, out_buffer_ids, staged_out, &f.st->out_count,
									  f.out_keys, f.out_ids, f.out_limit);
					staged_out = 0;
				}
				if (kind == 1)
				{
					const unsigned int at = staged_out + __popc(out_mask & lanes_below);

					out_buffer_keys[at] = key[j];
					out_buffer_ids[at] = f.ids ? f.ids[i] : (uint64_t) i;
				}
				staged_out += __popc(out_mask);
			}

			const unsigned int keep_mask = __ballot_sync(0xffffffffu, kind == 3);

			if (keep_mask != 0)
			{
				if (staged_kept + __popc(keep_mask) > WARP_BUFFER)
				{
					flush_warp_buffer(keep_buffer_keys, keep_buffer_ids, staged_kept, keep_counter,
									  f.keep_keys, f.keep_ids, ~0ull);
					staged_kept = 0;
				}
				if (kind == 3)
				{
					const unsigned int at = staged_kept + __popc(keep_mask & lanes_below);

					keep_buffer_keys[at] = key[j];
					keep_buffer_ids[at] = f.ids ? f.ids[i] : (uint64_t) i;
					atomicAdd(&sh.histogram[key_bin(key[j], f.next_shift, f.next_width,
													f.next_prefix)], 1u);
				}
				staged_kept += __popc(keep_mask);
			}
		}
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
			key[j] = next[j];
	}
	if (staged_out != 0)
		flush_warp_buffer(out_buffer_keys, out_buffer_ids, staged_out, &f.st->out_count, f.out_keys,
						  f.out_ids, f.out_limit);
	if (staged_kept != 0)
		flush_warp_buffer(keep_buffer_keys, keep_buffer_ids, staged_kept, keep_counter, f.keep_keys,
						  f.keep_ids, ~0ull);
	__syncthreads();

	if (action == ACTION_KEEP)
		add_block_histogram(sh.histogram,
							segment_histogram(a.histograms, SPECULATIVE ? 1 : (f.st->round + 1) & 1,
											  a.segments, f.segment));
}

/*
 * The same filter for passes that write much (k a sizeable share of n): a tile's survivors are
 * placed by one block-wide scan and appended to a block-wide shared-memory buffer per
 * destination, copied out with one global atomic when it fills up (a tile with more survivors
 * than the buffer holds writes straight to global memory).  Per-warp buffers would need a global
 * atomic every WARP_BUFFER entries, which serializes on the output counter when most keys are
 * written; this version pays barriers per tile instead.  The launcher picks one by k / n.  It
 * serves the rounds after the first (which may cut ties); a dense speculative first pass has
 * dense_first_kernel (radik_gpu_dense_first.cuh).
 */
constexpr int WRITE_BUFFER = 1024;

template <typename Key>
struct DenseFilterShared
{
	Key			keys[2][WRITE_BUFFER];	/* [0]: to the output, [1]: to the candidates */
	uint64_t	ids[2][WRITE_BUFFER];
	unsigned int histogram[BINS];
	unsigned int staged[2];
	unsigned long long base[2];
	unsigned long long direct_base[2];
	unsigned long long tie_base;
	unsigned long long ties_allowed;
};

/* Copy both write buffers to global memory and empty them (every thread of the block calls). */
template <typename Key>
__device__ __forceinline__ void
flush_write_buffers(DenseFilterShared<Key> &sh, SegmentState *st, int target, Key *out_keys,
					uint64_t *out_ids, Key *keep_keys, uint64_t *keep_ids,
					unsigned long long out_limit, int narrow_out_ids)
{
	__syncthreads();
	if (threadIdx.x == 0)
	{
		sh.base[0] = sh.staged[0] ? atomicAdd(&st->out_count, (unsigned long long) sh.staged[0]) : 0;
		sh.base[1] = sh.staged[1] ?
			atomicAdd(&st->candidate_count[target], (unsigned long long) sh.staged[1]) : 0;
	}
	__syncthreads();
	for (unsigned int i = threadIdx.x; i < sh.staged[0]; i += THREADS)
	{
		const unsigned long long to = sh.base[0] + i;

		if (to < out_limit)
		{
			out_keys[to] = sh.keys[0][i];
			store_out_id(out_ids, to, sh.ids[0][i], narrow_out_ids);
		}
	}
	for (unsigned int i = threadIdx.x; i < sh.staged[1]; i += THREADS)
	{
		keep_keys[sh.base[1] + i] = sh.keys[1][i];
		keep_ids[sh.base[1] + i] = sh.ids[1][i];
	}
	__syncthreads();
	if (threadIdx.x == 0)
		sh.staged[0] = sh.staged[1] = 0;
	__syncthreads();
}

template <typename Key>
__global__ void __launch_bounds__(THREADS, 3)
filter_dense_kernel(SelectArgs<Key> a, int round)
{
	constexpr int ITEMS = Tile<Key>::ITEMS;
	constexpr int TILE = Tile<Key>::SIZE;
	constexpr int FIELD = 21;	/* packed per-tile counts: out | ties << 21 | kept << 42 */
	constexpr unsigned long long FIELD_MASK = (1ull << FIELD) - 1;
	using Scan = cub::BlockScan<unsigned long long, THREADS>;
	__shared__ typename Scan::TempStorage scan_storage;
	__shared__ DenseFilterShared<Key> sh;
	FilterPass<Key> f;

	if (!filter_block_due<Key, false>(a, round))
		return;
	read_filter_pass<Key, false>(a, f);

	const int	action = f.action;	/* a copy of its own: see FilterPass */

	for (int b = threadIdx.x; b < BINS; b += THREADS)
		sh.histogram[b] = 0;
	if (threadIdx.x == 0)
		sh.staged[0] = sh.staged[1] = 0;

	const unsigned long long stride = (unsigned long long) gridDim.x * TILE;
	Key			key[ITEMS];

	load_tile(key, f.keys, (unsigned long long) blockIdx.x * TILE, f.length);
	for (unsigned long long base = (unsigned long long) blockIdx.x * TILE; base < f.length;
		 base += stride)
	{
		Key			next[ITEMS];	/* the next tile's keys, loading while this one is sorted out */
		unsigned int kinds = 0;		/* 2 bits per item: 0 dropped, 1 out, 2 tie, 3 kept */
		unsigned long long mine = 0;

		load_tile(next, f.keys, base + stride, f.length);
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
		{
			const unsigned long long i = base + (unsigned long long) j * THREADS + threadIdx.x;
			const int	b = key_bin(key[j], f.shift, f.width, f.prefix);
			int			kind = 0;

			if (i < f.length)
			{
				if (b < f.chosen)
					kind = 1;
				else if (b == f.chosen)
					kind = action == ACTION_TAKE_ALL ? 1 : action == ACTION_TAKE_TIES ? 2 : 3;
			}
			kinds |= (unsigned int) kind << (2 * j);
			mine += kind == 1 ? 1ull : kind == 2 ? (1ull << FIELD) :
				kind == 3 ? (1ull << (2 * FIELD)) : 0ull;
		}

		if (!__syncthreads_or(mine != 0))
		{
#pragma unroll
			for (int j = 0; j < ITEMS; j++)
				key[j] = next[j];
			continue;			/* nothing to write in this tile */
		}

		unsigned long long rank;
		unsigned long long total;

		Scan(scan_storage).ExclusiveSum(mine, rank, total);

		const unsigned long long outs = total & FIELD_MASK;
		const unsigned long long ties = (total >> FIELD) & FIELD_MASK;
		const unsigned long long kept = total >> (2 * FIELD);
		const bool	outs_direct = outs > WRITE_BUFFER;
		const bool	kept_direct = kept > WRITE_BUFFER;

		if ((!outs_direct && sh.staged[0] + outs > WRITE_BUFFER) ||
			(!kept_direct && sh.staged[1] + kept > WRITE_BUFFER))
			flush_write_buffers(sh, f.st, f.target, f.out_keys, f.out_ids, f.keep_keys, f.keep_ids,
								f.out_limit, a.narrow_out_ids);
		if (threadIdx.x == 0)
		{
			unsigned long long allowed = 0;

			if (ties != 0)
			{
				const unsigned long long ticket = atomicAdd(&f.st->tie_tickets, ties);

				allowed = ticket >= f.k_remaining ? 0 :
					(f.k_remaining - ticket < ties ? f.k_remaining - ticket : ties);
			}
			sh.ties_allowed = allowed;
			sh.tie_base = allowed ? atomicAdd(&f.st->out_count, allowed) : 0;
			sh.direct_base[0] = outs_direct ? atomicAdd(&f.st->out_count, outs) : 0;
			sh.direct_base[1] = kept_direct ? atomicAdd(&f.st->candidate_count[f.target], kept) : 0;
		}
		__syncthreads();

		unsigned long long out_rank = rank & FIELD_MASK;
		unsigned long long tie_rank = (rank >> FIELD) & FIELD_MASK;
		unsigned long long keep_rank = rank >> (2 * FIELD);
		const unsigned long long allowed = sh.ties_allowed;
		const unsigned int staged_out = sh.staged[0];
		const unsigned int staged_kept = sh.staged[1];

#pragma unroll
		for (int j = 0; j < ITEMS; j++)
		{
			const unsigned long long i = base + (unsigned long long) j * THREADS + threadIdx.x;
			const int	kind = (int) ((kinds >> (2 * j)) & 3u);

			if (kind == 0)
				continue;

			const uint64_t id = f.ids ? f.ids[i] : (uint64_t) i;

			if (kind == 1)
			{
				if (!outs_direct)
				{
					sh.keys[0][staged_out + out_rank] = key[j];
					sh.ids[0][staged_out + out_rank] = id;
				}
				else if (sh.direct_base[0] + out_rank < f.out_limit)
				{
					f.out_keys[sh.direct_base[0] + out_rank] = key[j];
					store_out_id(f.out_ids, sh.direct_base[0] + out_rank, id, a.narrow_out_ids);
				}
				out_rank++;
			}
			else if (kind == 2)
			{
				if (tie_rank < allowed)
				{
					f.out_keys[sh.tie_base + tie_rank] = key[j];
					store_out_id(f.out_ids, sh.tie_base + tie_rank, id, a.narrow_out_ids);
				}
				tie_rank++;
			}
			else
			{
				if (!kept_direct)
				{
					sh.keys[1][staged_kept + keep_rank] = key[j];
					sh.ids[1][staged_kept + keep_rank] = id;
				}
				else
				{
					f.keep_keys[sh.direct_base[1] + keep_rank] = key[j];
					f.keep_ids[sh.direct_base[1] + keep_rank] = id;
				}
				keep_rank++;
				atomicAdd(&sh.histogram[key_bin(key[j], f.next_shift, f.next_width,
												f.next_prefix)], 1u);
			}
		}
		__syncthreads();		/* scan storage and the shared counts are reused next tile */
		if (threadIdx.x == 0)
		{
			if (!outs_direct)
				sh.staged[0] += (unsigned int) outs;
			if (!kept_direct)
				sh.staged[1] += (unsigned int) kept;
		}
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
			key[j] = next[j];
	}
	flush_write_buffers(sh, f.st, f.target, f.out_keys, f.out_ids, f.keep_keys, f.keep_ids,
						f.out_limit, a.narrow_out_ids);

	if (action == ACTION_KEEP)
		add_block_histogram(sh.histogram, segment_histogram(a.histograms, (f.st->round + 1) & 1,
															a.segments, f.segment));
}


/* 64-bit ids from the 32-bit indexes a narrow output sorted (store_out_id); static, as the
 * probes that include this header link the engine too. */
static __global__ void __launch_bounds__(THREADS)
widen_ids_kernel(const uint32_t *indexes, uint64_t *ids, unsigned long long n)
{
	for (unsigned long long i = (unsigned long long) blockIdx.x * THREADS + threadIdx.x; i < n;
		 i += (unsigned long long) gridDim.x * THREADS)
		ids[i] = indexes[i];
}

/* The largest of n keys, into *result (which the caller set to 0). */
template <typename Key>
__global__ void __launch_bounds__(THREADS)
max_key_kernel(const Key *keys, unsigned long long n, unsigned long long *result)
{
	using Reduce = cub::BlockReduce<unsigned long long, THREADS>;
	__shared__ typename Reduce::TempStorage reduce_storage;
	unsigned long long highest = 0;

	for (unsigned long long i = (unsigned long long) blockIdx.x * THREADS + threadIdx.x; i < n;
		 i += (unsigned long long) gridDim.x * THREADS)
		highest = (unsigned long long) keys[i] > highest ? (unsigned long long) keys[i] : highest;
	highest = Reduce(reduce_storage).Reduce(highest, Larger());
	if (threadIdx.x == 0)
		atomicMax(result, highest);
}

/*
 * The bits all n keys keys[0], keys[stride], ... have, and'ed into result[0] (which the caller set
 * to all ones), and the bits any of them has, or'ed into result[1] (set to 0).  Where the two
 * differ is all that a sort of the keys needs to look at.  A grid of one block stores its answer
 * instead (result may then be mapped host memory, which the caller need not set).
 */
template <typename Key>
__global__ void __launch_bounds__(THREADS)
key_bits_kernel(const Key *keys, unsigned long long n, unsigned long long stride,
				unsigned long long *result)
{
	using Reduce = cub::BlockReduce<unsigned long long, THREADS>;
	__shared__ typename Reduce::TempStorage reduce_storage;
	unsigned long long all = ~0ull;
	unsigned long long any = 0;

#pragma unroll 8
	for (unsigned long long i = (unsigned long long) blockIdx.x * THREADS + threadIdx.x; i < n;
		 i += (unsigned long long) gridDim.x * THREADS)
	{
		const unsigned long long key = keys[i * stride];

		all &= key;
		any |= key;
	}
	all = Reduce(reduce_storage).Reduce(all, BitsOfBoth());
	__syncthreads();			/* the storage is reused */
	any = Reduce(reduce_storage).Reduce(any, BitsOfEither());
	if (threadIdx.x == 0 && gridDim.x == 1)
	{
		result[0] = all;
		result[1] = any;
	}
	else if (threadIdx.x == 0)
	{
		atomicAnd(&result[0], all);
		atomicOr(&result[1], any);
	}
}

}								/* namespace radik */

#endif							/* RADIK_GPU_KERNELS_CUH */
