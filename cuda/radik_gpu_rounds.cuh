/*
 * radik_gpu_rounds.cuh
 *	  The kernels that steer a selection from round to round, with their launchers: the sample and
 *	  its guess of the k-th key (sample_kernel), the check of that guess after the first pass
 *	  (check_speculation_kernel), each round's choice of bin (choose_kernel), all three one block
 *	  per segment, and the histogram passes the filters do not count on their way
 *	  (histogram_kernel).  The filters themselves are in radik_gpu_filter.cuh and
 *	  radik_gpu_dense_first.cuh.
 */
#ifndef RADIK_GPU_ROUNDS_CUH
#define RADIK_GPU_ROUNDS_CUH

#include <cuda_runtime.h>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include "radik_gpu_common.cuh"

namespace radik
{

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

/* The sample of each segment of a launch, one block each. */
template <typename Key>
cudaError_t
launch_sample(const SelectArgs<Key> &a, unsigned int segments, cudaStream_t stream)
{
	sample_kernel<Key><<<dim3(1, segments), THREADS, 0, stream>>>(a);
	return cudaGetLastError();
}

/* The check of the first pass's guess, one block per segment of a launch. */
template <typename Key>
cudaError_t
launch_check_speculation(const SelectArgs<Key> &a, unsigned int segments, cudaStream_t stream)
{
	check_speculation_kernel<Key><<<dim3(1, segments), THREADS, 0, stream>>>(a);
	return cudaGetLastError();
}

/* A histogram pass (see histogram_kernel for CANDIDATES), width blocks per segment. */
template <typename Key, bool CANDIDATES>
cudaError_t
launch_histogram(const SelectArgs<Key> &a, unsigned int width, unsigned int segments,
				 cudaStream_t stream)
{
	histogram_kernel<Key, CANDIDATES><<<dim3(width, segments), THREADS, 0, stream>>>(a);
	return cudaGetLastError();
}

/* A round's choice of bin, one block per segment of a launch. */
template <typename Key>
cudaError_t
launch_choose(const SelectArgs<Key> &a, int round, unsigned int segments, cudaStream_t stream)
{
	choose_kernel<Key><<<dim3(1, segments), CHOOSE_THREADS, 0, stream>>>(a, round);
	return cudaGetLastError();
}

}								/* namespace radik */

#endif							/* RADIK_GPU_ROUNDS_CUH */
