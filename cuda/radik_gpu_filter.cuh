/*
 * radik_gpu_filter.cuh
 *	  The filters of a selection, each one read of a round's keys that sends them to the output,
 *	  to the next round's candidates or nowhere, with their launchers: filter_kernel, with per-warp
 *	  write buffers, for passes that write few keys (small k; also the speculative first pass), and
 *	  filter_dense_kernel, with block-wide buffers, for the rounds that write many.  The dense
 *	  speculative first pass has a kernel of its own (radik_gpu_dense_first.cuh).
 */
#ifndef RADIK_GPU_FILTER_CUH
#define RADIK_GPU_FILTER_CUH

#include <cuda_runtime.h>
#include <cub/block/block_scan.cuh>

#include "radik_gpu_common.cuh"

namespace radik
{

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

/* A filter pass (see filter_kernel for SPECULATIVE), width blocks per segment. */
template <typename Key, bool SPECULATIVE>
cudaError_t
launch_filter(const SelectArgs<Key> &a, int round, unsigned int width, unsigned int segments,
			  cudaStream_t stream)
{
	filter_kernel<Key, SPECULATIVE><<<dim3(width, segments), THREADS, 0, stream>>>(a, round);
	return cudaGetLastError();
}

/* A dense round's filter pass, width blocks per segment. */
template <typename Key>
cudaError_t
launch_filter_dense(const SelectArgs<Key> &a, int round, unsigned int width, unsigned int segments,
					cudaStream_t stream)
{
	filter_dense_kernel<Key><<<dim3(width, segments), THREADS, 0, stream>>>(a, round);
	return cudaGetLastError();
}

}								/* namespace radik */

#endif							/* RADIK_GPU_FILTER_CUH */
