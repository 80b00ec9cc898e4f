/*
 * radik_gpu_small.cuh
 *	  The one-pass selection for small k: three kernels that select and sort the k smallest keys
 *	  of each segment when k is a small share of its length.
 *
 * Most selections users ask for keep a few thousand keys of a million or more (LIMIT 10, a
 * leaderboard's top 1000, a batch of many small segments).  For them the general rounds
 * (radik_gpu_rounds.cuh, radik_gpu_filter.cuh) cost more in launches and one-block set-up kernels
 * than in reading the keys: about 20 launches, 0.15 ms for 16 segments of 2^20 keys that take
 * 15 us to read.  This path makes the same exact selection with three launches:
 *   1. small_threshold_kernel, one block per segment: the h-th smallest key of a strided sample of
 *      SMALL_SAMPLE keys, where h is the k-th key's expected rank in the sample plus a margin of
 *      3 sigma + 2, found by a radix selection in shared memory that stops at the first digit
 *      whose bin holds at most two sample keys; the bin's upper end is the threshold.
 *   2. small_filter_kernel, many blocks per segment: one read of the keys; every key at or below
 *      the threshold is appended to the segment's candidates (key and 32-bit index in the
 *      segment) through per-warp shared buffers, one global atomic per flush (an atomic per
 *      candidate serializes on the segment's counter), up to SMALL_CAPACITY of them, and counted
 *      beyond that.
 *   3. small_finish_kernel, one block per segment: when the candidates number at least k and all
 *      fit, they are every key at or below the threshold, so their k smallest are the answer:
 *      the same radix selection finds the k-th candidate's bin, k entries are gathered (the
 *      first of the equal keys at the k-th key's value, when they tie), and sorted (each
 *      counting the entries before it when k <= 128, else a block radix sort on the bits they do
 *      not share) and written out with their ids.  Otherwise the block sets the caller's miss
 *      flag (mapped host memory) and the caller runs the general selection.
 * Exactness never rests on the sample: a threshold too low or too high costs the general
 * selection's time, never a wrong answer.  The caller (run_small_selection) waits for the
 * verdict, so the path serves the selections whose caller waits for a sorted answer anyway (the
 * batch, a streaming selection's last cut).  2^20 float keys, k = 16, on an H200: 0.030 ms
 * against 0.081 for the general rounds.
 *
 * The candidates live in the second candidate buffer at the segment's own offset (a segment has
 * room for min(length, SMALL_CAPACITY) of them); the threshold, k and the count in the segment's
 * SegmentState (speculative_high, k_remaining, candidate_count[1]), which the general selection
 * sets afresh if it has to run.
 */
#ifndef RADIK_GPU_SMALL_CUH
#define RADIK_GPU_SMALL_CUH

#include <cuda_runtime.h>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>

#include "radik_gpu_common.cuh"

namespace radik
{

constexpr int SMALL_SAMPLE = 8192;
constexpr int SMALL_CAPACITY = 8192;
constexpr int SMALL_BLOCK_THREADS = 512;	/* the one-block kernels: threshold, finish */
constexpr int SMALL_FINISH_ITEMS = SMALL_CAPACITY / SMALL_BLOCK_THREADS;

/*
 * Programmatic dependent launch (Hopper): the filter is launched while the threshold kernel runs
 * and loads its first keys before it waits for the threshold; the finish is launched as the
 * filter's blocks exit.  Both are no-ops on older GPUs, where the launcher does not ask for it.
 */
__device__ __forceinline__ void
let_dependent_kernel_start()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	cudaTriggerProgrammaticLaunchCompletion();
#endif
}

__device__ __forceinline__ void
wait_for_prior_kernel()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	cudaGridDependencySynchronize();
#endif
}

/* The rank in a sample of SMALL_SAMPLE whose key bounds the candidates (>= SMALL_SAMPLE: all). */
__host__ __device__ __forceinline__ unsigned long long
small_threshold_rank(unsigned long long k, unsigned long long length)
{
	const double rank = (double) k * SMALL_SAMPLE / (double) length;

	return (unsigned long long) ceil(rank + 3.0 * sqrt(rank) + 2.0);
}

/* Where a block radix selection stopped: the chosen digits, and the keys below and in the bin. */
template <typename Key>
struct RadixPick
{
	Key			prefix;			/* the chosen digits, in place; lower bits zero */
	int			shift;			/* the last chosen digit's lowest bit */
	unsigned int below;			/* keys in lower bins, over all digits */
	unsigned int in_bin;		/* keys in the chosen bin */

	__device__ __forceinline__ Key upper() const
	{
		return prefix | (Key) (((Key) 1 << shift) - 1);
	}
};

/*
 * Radix selection over a block's keys (ITEMS per thread, the first valid of them in blocked
 * order count, all within [low, high]): walks the digits below the bits low and high share,
 * from the top, towards the bin holding the key of the given rank (0-based).  Stops at the last
 * digit (where the bin is one key value), or earlier at a bin of at most stop_at keys, or (whole)
 * at a bin all of whose keys are at or below the rank.  Starting below the shared bits keeps
 * the first digit's keys apart: sampled and candidate keys share their leading bits, and a
 * digit where most keys fall into one bin serializes the shared-memory atomics.
 */
template <typename Key, int BLOCK, int ITEMS>
__device__ __forceinline__ RadixPick<Key>
block_radix_pick(const Key (&keys)[ITEMS], unsigned int valid, Key low, Key high,
				 unsigned int rank, unsigned int stop_at, bool whole, unsigned int *histogram,
				 unsigned int *chosen)
{
	constexpr int KEY_BITS = (int) sizeof(Key) * 8;
	constexpr int BINS_PER_LANE = INNER_BINS / 32;
	const int	lane = threadIdx.x & 31;
	const Key	differ = (Key) (low ^ high);
	RadixPick<Key> pick;

	pick.below = 0;
	if (differ == 0)
	{
		/* one key value */
		pick.prefix = low;
		pick.shift = 0;
		pick.in_bin = valid;
		return pick;
	}

	const int	top = KEY_BITS -
		(sizeof(Key) == 8 ? __clzll((long long) differ) : __clz((int) differ));
	int			shift = top > DIGIT_BITS ? top - DIGIT_BITS : 0;
	int			width = top - shift;
	Key			mask = top >= KEY_BITS ? (Key) 0 : (Key) ~(Key) 0 << top;

	pick.prefix = low & mask;
	for (;;)
	{
		const int	digit_mask = (1 << width) - 1;

		for (int b = threadIdx.x; b < INNER_BINS; b += BLOCK)
			histogram[b] = 0;
		__syncthreads();
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
		{
			const bool	counted = threadIdx.x * ITEMS + j < valid &&
				(keys[j] & mask) == pick.prefix;
			const int	bin = counted ? (int) (keys[j] >> shift) & digit_mask : -1;

			if (counted)
				atomicAdd(&histogram[bin], 1u);
		}
		__syncthreads();
		if (threadIdx.x < 32)
		{
			/* one warp finds the bin where the running count passes rank */
			unsigned int counts[BINS_PER_LANE];
			unsigned int lane_total = 0;

#pragma unroll
			for (int i = 0; i < BINS_PER_LANE; i++)
			{
				counts[i] = histogram[lane * BINS_PER_LANE + i];
				lane_total += counts[i];
			}

			unsigned int inclusive = lane_total;

#pragma unroll
			for (int d = 1; d < 32; d <<= 1)
			{
				const unsigned int other = __shfl_up_sync(0xffffffffu, inclusive, d);

				if (lane >= d)
					inclusive += other;
			}

			unsigned int before = inclusive - lane_total;

			if (before <= rank && rank < inclusive)
			{
#pragma unroll
				for (int i = 0; i < BINS_PER_LANE; i++)
				{
					if (before <= rank && rank < before + counts[i])
					{
						chosen[0] = (unsigned int) (lane * BINS_PER_LANE + i);
						chosen[1] = counts[i];
						chosen[2] = before;
					}
					before += counts[i];
				}
			}
		}
		__syncthreads();

		const unsigned int bin = chosen[0];

		pick.in_bin = chosen[1];
		pick.below += chosen[2];
		rank -= chosen[2];
		pick.prefix |= (Key) bin << shift;
		mask |= (Key) digit_mask << shift;
		pick.shift = shift;
		__syncthreads();		/* chosen[] is read before the next digit overwrites it */
		if (shift == 0 || pick.in_bin <= stop_at || (whole && rank + 1 == pick.in_bin))
			return pick;

		const int	next_shift = shift > DIGIT_BITS ? shift - DIGIT_BITS : 0;

		width = shift - next_shift;
		shift = next_shift;
	}
}

/*
 * The strided sample of SMALL_SAMPLE of the length keys, held by a block of BLOCK threads (ITEMS
 * each, blocked: thread t holds sample keys t * ITEMS ...; any order serves a selection), and its
 * smallest and largest key in bounds[0] and bounds[1], read by every thread after the barrier.
 */
template <typename Key, int BLOCK, int ITEMS>
__device__ __forceinline__ void
load_sample(Key (&sample)[ITEMS], const Key *keys, unsigned long long length,
			typename cub::BlockReduce<Key, BLOCK>::TempStorage &reduce_storage, Key *bounds)
{
	using Reduce = cub::BlockReduce<Key, BLOCK>;

	static_assert(BLOCK * ITEMS == SMALL_SAMPLE, "the sample fills the block");
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		const unsigned long long position = (unsigned long long) (threadIdx.x * ITEMS + j);

		sample[j] = keys[position * length / SMALL_SAMPLE];
	}
	Key			low = sample[0];
	Key			high = sample[0];

#pragma unroll
	for (int j = 1; j < ITEMS; j++)
	{
		low = sample[j] < low ? sample[j] : low;
		high = sample[j] > high ? sample[j] : high;
	}
	low = Reduce(reduce_storage).Reduce(low, Smaller());
	__syncthreads();
	high = Reduce(reduce_storage).Reduce(high, Larger());
	if (threadIdx.x == 0)
	{
		bounds[0] = low;
		bounds[1] = high;
	}
	__syncthreads();
}

template <typename Key>
__global__ void __launch_bounds__(SMALL_BLOCK_THREADS)
small_threshold_kernel(SelectArgs<Key> a)
{
	constexpr int ITEMS = SMALL_SAMPLE / SMALL_BLOCK_THREADS;
	using Reduce = cub::BlockReduce<Key, SMALL_BLOCK_THREADS>;
	__shared__ unsigned int histogram[INNER_BINS];
	__shared__ unsigned int chosen[3];
	__shared__ typename Reduce::TempStorage reduce_storage;
	__shared__ Key bounds[2];
	const int	s = blockIdx.y + a.segment_base;
	SegmentState *st = &a.states[s];
	const unsigned long long begin = a.seg_offsets[s];
	const unsigned long long length = a.seg_offsets[s + 1] - begin;
	const unsigned long long k = a.seg_ks[s] < length ? a.seg_ks[s] : length;
	const unsigned long long wanted = small_threshold_rank(k, length);
	Key			threshold = (Key) ~(Key) 0;

	let_dependent_kernel_start();
	if (k > 0 && length > SMALL_CAPACITY && wanted < SMALL_SAMPLE)
	{
		Key			sample[ITEMS];

		load_sample<Key, SMALL_BLOCK_THREADS, ITEMS>(sample, a.keys + begin, length,
													   reduce_storage, bounds);
		threshold = block_radix_pick<Key, SMALL_BLOCK_THREADS, ITEMS>(
			sample, SMALL_SAMPLE, bounds[0], bounds[1], (unsigned int) wanted, 2, false, histogram,
			chosen).upper();
	}
	if (threadIdx.x == 0)
	{
		st->length = length;
		st->k_remaining = k;
		st->speculative_high = threshold;
		st->candidate_count[1] = 0;
	}
}

/* Per-warp shared buffers of the filter: candidates leave in groups, one global atomic each. */
constexpr int SMALL_WARP_BUFFER = 64;

template <typename Key>
struct SmallFilterShared
{
	Key			keys[THREADS / 32][SMALL_WARP_BUFFER];
	uint32_t	index[THREADS / 32][SMALL_WARP_BUFFER];
};

template <typename Key>
__global__ void __launch_bounds__(THREADS)
small_filter_kernel(SelectArgs<Key> a)
{
	constexpr int ITEMS = Tile<Key>::ITEMS;
	constexpr int TILE = Tile<Key>::SIZE;
	__shared__ SmallFilterShared<Key> sh;
	const int	s = blockIdx.y + a.segment_base;
	const unsigned long long begin = a.seg_offsets[s];
	const unsigned long long length = a.seg_offsets[s + 1] - begin;
	const Key  *keys = a.keys + begin;
	const unsigned long long stride = (unsigned long long) gridDim.x * TILE;
	Key			key[ITEMS];

	/* the first tile loads while the threshold kernel is still running */
	load_tile(key, keys, (unsigned long long) blockIdx.x * TILE, length);
	wait_for_prior_kernel();

	SegmentState *st = &a.states[s];

	if (st->k_remaining == 0)
		return;

	const Key	threshold = (Key) st->speculative_high;
	Key		   *candidate_keys = a.candidate_keys[1] + begin;
	uint32_t   *candidate_index = (uint32_t *) (a.candidate_ids[1] + begin);
	unsigned long long *count = &st->candidate_count[1];
	const int	warp = threadIdx.x >> 5;
	const unsigned int lanes_below = (1u << (threadIdx.x & 31)) - 1u;
	Key		   *staged_keys = sh.keys[warp];
	uint32_t   *staged_index = sh.index[warp];
	unsigned int staged = 0;	/* warp-uniform */

	for (unsigned long long base = (unsigned long long) blockIdx.x * TILE; base < length;
		 base += stride)
	{
		Key			next[ITEMS];	/* the next tile's keys, loading while this one is tested */

		load_tile(next, keys, base + stride, length);
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
		{
			const unsigned long long i = base + (unsigned long long) j * THREADS + threadIdx.x;
			const bool	take = i < length && key[j] <= threshold;
			const unsigned int mask = __ballot_sync(0xffffffffu, take);

			if (mask == 0)
				continue;
			if (staged + __popc(mask) > SMALL_WARP_BUFFER)
			{
				flush_warp_buffer(staged_keys, staged_index, staged, count, candidate_keys,
								  candidate_index, SMALL_CAPACITY);
				staged = 0;
			}
			if (take)
			{
				const unsigned int at = staged + __popc(mask & lanes_below);

				staged_keys[at] = key[j];
				staged_index[at] = (uint32_t) i;
			}
			staged += __popc(mask);
		}
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
			key[j] = next[j];
	}
	if (staged != 0)
		flush_warp_buffer(staged_keys, staged_index, staged, count, candidate_keys,
						  candidate_index, SMALL_CAPACITY);
}

/*
 * The finish's shared memory: the k chosen entries, then (reusing it once they are in registers)
 * the sort of however many items per thread k needs.  Beyond the static limit for 8-byte keys.
 */
template <typename Key, int ITEMS>
using SmallSort = cub::BlockRadixSort<Key, SMALL_BLOCK_THREADS, ITEMS, uint32_t>;

template <typename Key>
union SmallFinishShared
{
	struct
	{
		Key			keys[SMALL_CAPACITY];
		uint32_t	index[SMALL_CAPACITY];
	}			chosen;
	typename SmallSort<Key, 1>::TempStorage sort1;
	typename SmallSort<Key, 2>::TempStorage sort2;
	typename SmallSort<Key, 4>::TempStorage sort4;
	typename SmallSort<Key, 8>::TempStorage sort8;
	typename SmallSort<Key, 16>::TempStorage sort16;
};

/* Sort the count entries of sh.chosen on bits [0, end_bit) and write them out with their ids. */
template <typename Key, int ITEMS>
__device__ __forceinline__ void
sort_chosen(SmallFinishShared<Key> &sh, typename SmallSort<Key, ITEMS>::TempStorage &storage,
			unsigned int count, int end_bit, Key *out_keys, uint64_t *out_ids,
			const uint64_t *ids)
{
	Key			key[ITEMS];
	uint32_t	index[ITEMS];

	/* blocked: the padding (largest key) sorts after every entry, even one equal to it */
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		const unsigned int i = threadIdx.x * ITEMS + j;

		key[j] = i < count ? sh.chosen.keys[i] : (Key) ~(Key) 0;
		index[j] = i < count ? sh.chosen.index[i] : 0u;
	}
	__syncthreads();			/* the sort's storage overlays the chosen entries */
	SmallSort<Key, ITEMS>(storage).SortBlockedToStriped(key, index, 0, end_bit);
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		const unsigned int rank = j * SMALL_BLOCK_THREADS + threadIdx.x;

		if (rank < count)
		{
			out_keys[rank] = key[j];
			out_ids[rank] = ids ? ids[index[j]] : (uint64_t) index[j];
		}
	}
}

/*
 * For a few entries (at most SMALL_RANK_SORT): each thread counts the entries before its own,
 * reading them all from shared memory (one broadcast each): no passes, no barriers.
 */
constexpr unsigned int SMALL_RANK_SORT = 128;

template <typename Key>
__device__ __forceinline__ void
rank_chosen(const SmallFinishShared<Key> &sh, unsigned int count, Key *out_keys,
			uint64_t *out_ids, const uint64_t *ids)
{
	const unsigned int i = threadIdx.x;

	if (i >= count)
		return;

	const Key	key = sh.chosen.keys[i];
	unsigned int rank = 0;

	for (unsigned int j = 0; j < count; j++)
	{
		const Key	other = sh.chosen.keys[j];

		rank += other < key || (other == key && j < i);
	}
	out_keys[rank] = key;
	out_ids[rank] = ids ? ids[sh.chosen.index[i]] : (uint64_t) sh.chosen.index[i];
}

extern __shared__ __align__(16) unsigned char small_finish_shared[];

template <typename Key>
__global__ void __launch_bounds__(SMALL_BLOCK_THREADS)
small_finish_kernel(SelectArgs<Key> a, Key *sorted_keys, uint64_t *sorted_ids,
					unsigned int *miss)
{
	constexpr int KEY_BITS = (int) sizeof(Key) * 8;
	constexpr int ITEMS = SMALL_FINISH_ITEMS;
	using Reduce = cub::BlockReduce<Key, SMALL_BLOCK_THREADS>;
	SmallFinishShared<Key> &sh = *reinterpret_cast<SmallFinishShared<Key> *>(small_finish_shared);
	__shared__ unsigned int histogram[INNER_BINS];
	__shared__ unsigned int chosen[3];
	__shared__ unsigned int taken;
	__shared__ unsigned int ties_taken;
	__shared__ typename Reduce::TempStorage reduce_storage;
	__shared__ Key lowest;
	const int	s = blockIdx.y + a.segment_base;

	wait_for_prior_kernel();

	const SegmentState *st = &a.states[s];
	const unsigned long long k = st->k_remaining;
	const unsigned long long count = st->candidate_count[1];

	if (k == 0)
		return;
	if (count < k || count > SMALL_CAPACITY)
	{
		if (threadIdx.x == 0)
			*miss = 1;
		return;
	}

	const unsigned long long begin = a.seg_offsets[s];
	const Key  *candidate_keys = a.candidate_keys[1] + begin;
	const uint32_t *candidate_index = (const uint32_t *) (a.candidate_ids[1] + begin);
	Key			key[ITEMS];
	Key			smallest = (Key) ~(Key) 0;

#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		const unsigned int i = threadIdx.x * ITEMS + j;

		key[j] = i < count ? candidate_keys[i] : (Key) ~(Key) 0;
		smallest = key[j] < smallest ? key[j] : smallest;
	}
	smallest = Reduce(reduce_storage).Reduce(smallest, Smaller());
	if (threadIdx.x == 0)
	{
		lowest = smallest;
		taken = 0;
		ties_taken = 0;
	}

	/* the k-th smallest candidate's bin: below it everything is taken, in it `need` keys */
	__syncthreads();
	const RadixPick<Key> pick = block_radix_pick<Key, SMALL_BLOCK_THREADS, ITEMS>(
		key, (unsigned int) count, lowest, (Key) st->speculative_high, (unsigned int) k - 1, 0,
		true, histogram, chosen);
	const Key	top = pick.upper();
	const Key	bin_mask = (Key) ~(Key) (((Key) 1 << pick.shift) - 1);
	const unsigned int need = (unsigned int) k - pick.below;

	/* gather the k entries (any order: they are sorted next), one shared atomic per warp */
	const unsigned int lanes_below = (1u << (threadIdx.x & 31)) - 1u;

#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		const unsigned int i = threadIdx.x * ITEMS + j;
		bool		take = false;

		if (i < count && key[j] <= top)
		{
			if ((key[j] & bin_mask) != pick.prefix || need == pick.in_bin)
				take = true;
			else
				take = atomicAdd(&ties_taken, 1u) < need;	/* one key value: cut the ties */
		}

		const unsigned int mask = __ballot_sync(0xffffffffu, take);
		const int	leader = mask ? __ffs(mask) - 1 : 0;
		unsigned int at = 0;

		if (mask != 0 && (int) (threadIdx.x & 31) == leader)
			at = atomicAdd(&taken, (unsigned int) __popc(mask));
		at = __shfl_sync(0xffffffffu, at, leader) + __popc(mask & lanes_below);
		if (take)
		{
			sh.chosen.keys[at] = key[j];
			sh.chosen.index[at] = candidate_index[i];
		}
	}
	__syncthreads();

	/* only the bits below those the k entries share need sorting */
	const Key	differ = (Key) (lowest ^ top);
	const int	end_bit = differ == 0 ? 1 :
		KEY_BITS - (sizeof(Key) == 8 ? __clzll((long long) differ) : __clz((int) differ));
	const unsigned int chosen_count = (unsigned int) k;
	Key		   *out_keys = sorted_keys + a.out_offsets[s];
	uint64_t   *out_ids = sorted_ids + a.out_offsets[s];
	const uint64_t *ids = a.ids ? a.ids + begin : nullptr;

	if (chosen_count <= SMALL_RANK_SORT)
		rank_chosen<Key>(sh, chosen_count, out_keys, out_ids, ids);
	else if (chosen_count <= SMALL_BLOCK_THREADS)
		sort_chosen<Key, 1>(sh, sh.sort1, chosen_count, end_bit, out_keys, out_ids, ids);
	else if (chosen_count <= 2 * SMALL_BLOCK_THREADS)
		sort_chosen<Key, 2>(sh, sh.sort2, chosen_count, end_bit, out_keys, out_ids, ids);
	else if (chosen_count <= 4 * SMALL_BLOCK_THREADS)
		sort_chosen<Key, 4>(sh, sh.sort4, chosen_count, end_bit, out_keys, out_ids, ids);
	else if (chosen_count <= 8 * SMALL_BLOCK_THREADS)
		sort_chosen<Key, 8>(sh, sh.sort8, chosen_count, end_bit, out_keys, out_ids, ids);
	else
		sort_chosen<Key, 16>(sh, sh.sort16, chosen_count, end_bit, out_keys, out_ids, ids);
}

/*
 * Let small_finish_kernel<Key> have its dynamic shared memory (SmallFinishShared is beyond the
 * static limit for 8-byte keys); done once a process per key type.
 */
template <typename Key>
cudaError_t
prepare_small_finish()
{
	static bool shared_memory_set = false;

	if (!shared_memory_set)
	{
		cudaError_t e = cudaFuncSetAttribute(small_finish_kernel<Key>,
											 cudaFuncAttributeMaxDynamicSharedMemorySize,
											 (int) sizeof(SmallFinishShared<Key>));

		if (e != cudaSuccess)
			return e;
		shared_memory_set = true;
	}
	return cudaSuccess;
}

/*
 * The three launches of the one-pass selection of a launch's segments: the threshold, one block
 * per segment; the filter, width blocks per segment; the finish, one block per segment, which
 * sorts the answer into sorted_keys/sorted_ids or sets *miss (a device pointer to mapped host
 * memory).  programmatic (compute capability 9.0 or later): the filter and the finish may start
 * before the kernel they follow has ended (let_dependent_kernel_start).  prepare_small_finish
 * must have run.
 */
template <typename Key>
cudaError_t
launch_small_selection(const SelectArgs<Key> &a, unsigned int width, unsigned int segments,
					   Key *sorted_keys, uint64_t *sorted_ids, unsigned int *miss,
					   bool programmatic, cudaStream_t stream)
{
	cudaLaunchAttribute early;
	cudaLaunchConfig_t filter_launch = {};
	cudaLaunchConfig_t finish_launch = {};
	cudaError_t e;

	early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
	early.val.programmaticStreamSerializationAllowed = 1;
	filter_launch.gridDim = dim3(width, segments);
	filter_launch.blockDim = dim3(THREADS);
	filter_launch.stream = stream;
	filter_launch.attrs = &early;
	filter_launch.numAttrs = programmatic ? 1 : 0;
	finish_launch = filter_launch;
	finish_launch.gridDim = dim3(1, segments);
	finish_launch.blockDim = dim3(SMALL_BLOCK_THREADS);
	finish_launch.dynamicSmemBytes = sizeof(SmallFinishShared<Key>);

	small_threshold_kernel<Key><<<dim3(1, segments), SMALL_BLOCK_THREADS, 0, stream>>>(a);
	if ((e = cudaGetLastError()) != cudaSuccess)
		return e;
	if ((e = cudaLaunchKernelEx(&filter_launch, small_filter_kernel<Key>, a)) != cudaSuccess)
		return e;
	return cudaLaunchKernelEx(&finish_launch, small_finish_kernel<Key>, a, sorted_keys,
							  sorted_ids, miss);
}

}								/* namespace radik */

#endif							/* RADIK_GPU_SMALL_CUH */
