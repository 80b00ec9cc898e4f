/*
 * radik_gpu_common.cuh
 *	  What the selection kernels of the CUDA engine share: the digit and tile sizes, a segment's
 *	  state (SegmentState), a selection's arguments (SelectArgs), the device functions of more
 *	  than one kernel family, and the grid width of a pass.  The kernels make together an exact
 *	  radix selection of the k smallest keys of many segments at once, run entirely on the device
 *	  (no host round trip between passes); radik_gpu_select.cu launches them.
 *
 * The selection walks the key's bits from the top, one digit (8 bits) per round.  Each round
 * builds a histogram of the current digit over the segment's candidates, picks the bin that holds
 * the k-th smallest key, writes every key of a smaller bin straight to the output (they are
 * certainly selected), and keeps only the keys of the chosen bin as the next round's candidates
 * (compacted into a candidate buffer).  The round ends when the chosen bin is taken whole, or
 * when the last digit is reached, where the bin holds a single key value and the first k' of its
 * equal keys are taken (ties at the boundary are cut to exactly k).
 *
 * Where possible a speculative first pass, guided by a sorted sample, replaces the first
 * histogram pass (SAMPLE_SIZE); one launch serves every segment, whose progress lives on the
 * device (SegmentState); a window that skips the bits the sample's keys share keeps adversarial
 * inputs exact (key_bin); histograms are counted per block, then added once per bin
 * (add_block_histogram); filters are fused with the next round's histogram and specialized by k
 * (DENSE_OUTPUT_RATIO); loads are striped across the block (load_striped).
 */
#ifndef RADIK_GPU_COMMON_CUH
#define RADIK_GPU_COMMON_CUH

#include <cstddef>
#include <cstdint>

namespace radik
{

constexpr int DIGIT_BITS = 8;
constexpr int INNER_BINS = 1 << DIGIT_BITS;
constexpr int BINS = INNER_BINS + 2;	/* bin 0: below the window; BINS-1: above it */
constexpr int BELOW_BIN = 0;
constexpr int ABOVE_BIN = BINS - 1;
constexpr int THREADS = 256;

/*
 * One pass over the input where possible: a sorted sample of SAMPLE_SIZE keys guesses where the
 * k-th key lies, and a speculative first pass sends keys below the guess straight to the output
 * and keeps keys inside it as candidates, counting their first digit as it goes.  The counts then
 * prove or disprove the guess exactly; only when it missed does a full histogram pass over the
 * input run (the paper's two passes).  Measured on an H200: one pass instead of two to three for
 * every small-k input, including the adversarial ones (2^30 float keys, k = 16: 1.27 ms against
 * 3.73 for the two passes).
 */
constexpr int SAMPLE_SIZE = 4096;
constexpr int CHOOSE_THREADS = 256;
constexpr int CHOOSE_ITEMS = 2;			/* CHOOSE_THREADS * CHOOSE_ITEMS >= BINS */

/*
 * The filter is fused with the next round's histogram: while it copies the chosen bin's keys into
 * the candidate buffer, it already counts their next digit, so each round reads its candidates
 * once.  Filters are specialized by k: per-warp shared-memory write buffers when few keys are
 * written (no block barrier per tile), a block-wide scan and buffer when many are, for k above
 * 1/DENSE_OUTPUT_RATIO of n (measured on an H200).  A dense speculative first pass has a kernel of
 * its own (radik_gpu_dense_first.cuh), which leaves its candidates' histogram to a read of them.
 */
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
 * threadIdx.x] (so each load instruction of a warp reads consecutive keys), 0 past length.  The
 * kernels load several keys per thread this way, the next tile's while the current one is
 * filtered; segments may start at any offset, so no alignment is assumed.
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

/*
 * A segment's progress, in device memory.  One kernel launch serves every segment (blockIdx.y is
 * the segment), so a batch of many small selections costs the same launches as one large one;
 * the states are written by one-block kernels per segment, so the host never waits between
 * rounds.  A round that has nothing left to do exits at once.
 */
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
 * The bin of key in a round's window: 1 + the width bits at shift for a key whose bits above the
 * window equal prefix, BELOW_BIN or ABOVE_BIN for the others.  Adversarial inputs stay exact
 * without the paper's float scaling: the candidates' first digit and the fallback's window start
 * where the sample's keys first differ (skipping the leading bits they share), with keys below and
 * above that window counted in the two extra bins; if the k-th key falls outside the window, the
 * selection goes on from the top digit among the keys of that outside bin, so a bad sample costs
 * time, never exactness.
 */
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

/*
 * Add a block's shared-memory histogram to a global one: one atomic per non-empty bin.
 * Histograms are hierarchical: plain shared-memory atomics per block, then this.  Aggregating
 * equal bins within a warp first (match_any, the warp_aggregate switch) was slower everywhere on
 * an H200: 2^30 float keys in two passes, 8.87 against 3.73 ms.
 */
__device__ __forceinline__ void
add_block_histogram(const unsigned int *block, unsigned long long *global)
{
	for (int b = threadIdx.x; b < BINS; b += THREADS)
		if (block[b] != 0)
			atomicAdd(&global[b], (unsigned long long) block[b]);
}

/*
 * One warp copies count entries of its buffer to dest_keys/dest_ids from the next free slot
 * (those at or beyond limit are only counted).  Id: 64-bit ids in filter_kernel, 32-bit indexes
 * in small_filter_kernel.
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
 * Blocks per segment of a pass over segments of up to max_length keys: as many as fit at once (3
 * per multiprocessor) over the launch's segments, each streaming its tiles, and no more than the
 * longest segment has tiles.
 */
template <typename Key>
inline unsigned int
grid_width(uint64_t max_length, size_t segments_in_launch, int multiprocessors)
{
	const uint64_t tiles = (max_length + Tile<Key>::SIZE - 1) / Tile<Key>::SIZE;
	uint64_t	wanted = ((uint64_t) multiprocessors * 3 + segments_in_launch - 1) /
		segments_in_launch;

	if (wanted > tiles)
		wanted = tiles;
	if (wanted < 1)
		wanted = 1;
	return (unsigned int) wanted;
}

}								/* namespace radik */

#endif							/* RADIK_GPU_COMMON_CUH */
