/*
 * radik_gpu_dense_first.cuh
 *	  The speculative first pass when k is a sizeable share of n (the dense case), and its
 *	  launcher: one read of the input that writes every key below the sample's guess to the output
 *	  and keeps the keys inside the guess as the next round's candidates, with as few instructions
 *	  a key as a plain select.
 *
 * Why a kernel of its own: for k = n/4 of 2^30 float keys this pass writes 2^28 keys and ids, and
 * the general block-wide filter (filter_dense_kernel) took 5.2 ms for it on an H200 where a bare
 * kernel that reads the keys and writes the same 2^28 keys and ids takes 2.2 ms: it was bound by
 * its instructions (about 3 warp instructions a key: a block scan, a shared staging buffer and its
 * flushes, per-key branches for ties and rounds this pass never has).  The first pass needs
 * less than a general round: there are no ties to cut (the chosen "bin" is the guess's range),
 * so each tile costs two barriers and, per key, two comparisons, two ballots and one store path:
 *  - the block counts its tile's outgoing and kept keys (one warp reduction of packed counts),
 *    thread 0 reserves room for both with one global atomic each, and every warp writes its
 *    keys straight from registers in warp order (lanes that write a key get consecutive slots);
 *  - outgoing and kept keys share that store path, its destination chosen per lane;
 *  - the shared counts and bases alternate between two slots by tile, so a tile needs no
 *    barrier at its end;
 *  - full tiles load and test without bounds checks, only the last (partial) tile checks;
 *  - whether the caller gave ids, and whether the output holds them in 32 bits (store_out_id),
 *    is decided once per block, not per key;
 *  - the kept keys' next digit is not counted here (histogram_kernel<Key, true> reads them
 *    again: a shared atomic per kept key sat in a branch that most warps take).
 * The speculative pass's contract is otherwise that of filter_kernel<Key, true>: keys below
 * speculative_low go to the output (only the first k_remaining are written, the rest counted),
 * keys up to speculative_high become candidates in buffer 0, and check_speculation_kernel then
 * proves or discards the guess.
 */
#ifndef RADIK_GPU_DENSE_FIRST_CUH
#define RADIK_GPU_DENSE_FIRST_CUH

#include <cuda_runtime.h>

#include "radik_gpu_filter.cuh"

namespace radik
{

struct DenseFirstShared
{
	unsigned int warp_counts[2][WARPS];	/* per tile parity: outgoing | (outgoing + kept) << 16 */
	unsigned long long tile_base[2][2];	/* per tile parity: [0] output slot, [1] candidate slot */
};

/* What every tile of a block uses, set once per block. */
template <typename Key>
struct DenseFirstPass
{
	Key			low;			/* keys below go out */
	Key			high;			/* keys from low up to here are kept */
	unsigned long long length;
	unsigned long long out_limit;	/* output slots at or beyond are only counted */
	unsigned long long *out_count;
	unsigned long long *keep_count;
	const Key  *keys;
	const uint64_t *ids;
	Key		   *out_keys;
	uint64_t   *out_ids;
	Key		   *keep_keys;
	uint64_t   *keep_ids;
};

/* A thread's share of a tile that lies wholly within the keys (see load_tile). */
template <typename Key>
__device__ __forceinline__ void
load_full_tile(Key (&items)[Tile<Key>::ITEMS], const Key *keys, unsigned long long base)
{
	const Key  *mine = keys + base + threadIdx.x;

#pragma unroll
	for (int j = 0; j < Tile<Key>::ITEMS; j++)
		items[j] = mine[j * THREADS];
}

/*
 * One tile: count, reserve, write.  FULL: every item lies within the keys.  HAS_IDS: ids come
 * from p.ids, else an entry's id is its index.  NARROW: outgoing indexes are stored in 32 bits
 * (store_out_id; only without ids).
 */
template <typename Key, bool FULL, bool HAS_IDS, bool NARROW>
__device__ __forceinline__ void
dense_first_tile(const Key (&key)[Tile<Key>::ITEMS], unsigned long long base,
				 const DenseFirstPass<Key> &p, DenseFirstShared &sh, int parity)
{
	constexpr int ITEMS = Tile<Key>::ITEMS;
	constexpr int TILE = Tile<Key>::SIZE;
	const int	warp = threadIdx.x >> 5;
	const unsigned int lanes_below = (1u << (threadIdx.x & 31)) - 1u;
	const unsigned int valid_items = FULL ? (unsigned int) TILE :
		(unsigned int) (p.length - base < TILE ? p.length - base : TILE);
	unsigned int mine = 0;

	static_assert(Tile<Key>::SIZE < 0x10000, "a tile's counts are packed in 16 bits");
	/* outgoing keys in the low half, outgoing and kept ones in the high half (a tile < 2^16) */
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		const bool	valid = FULL || (unsigned int) (j * THREADS) + threadIdx.x < valid_items;

		mine += (valid && key[j] < p.low) ? 1u : 0u;
		mine += (valid && key[j] <= p.high) ? 0x10000u : 0u;
	}
	mine = __reduce_add_sync(0xffffffffu, mine);
	if ((threadIdx.x & 31) == 0)
		sh.warp_counts[parity][warp] = mine;
	__syncthreads();

	unsigned int before = 0;
	unsigned int total = 0;

#pragma unroll
	for (int w = 0; w < WARPS; w++)
	{
		const unsigned int count = sh.warp_counts[parity][w];

		before += w < warp ? count : 0u;
		total += count;
	}
	if (threadIdx.x == 0)
	{
		const unsigned int outs = total & 0xffffu;
		const unsigned int kept = (total >> 16) - outs;

		sh.tile_base[parity][0] = outs ? atomicAdd(p.out_count, (unsigned long long) outs) : 0;
		sh.tile_base[parity][1] = kept ? atomicAdd(p.keep_count, (unsigned long long) kept) : 0;
	}
	__syncthreads();

	const unsigned long long out_base = sh.tile_base[parity][0];
	const unsigned long long keep_base = sh.tile_base[parity][1];
	/* slots of this tile's output below the limit (a missed guess may overflow k) */
	const unsigned long long out_left = out_base >= p.out_limit ? 0 : p.out_limit - out_base;
	const unsigned int out_room = out_left >= TILE ? (unsigned int) TILE : (unsigned int) out_left;
	Key		   *const out_keys = p.out_keys + out_base;
	uint64_t   *const out_ids = p.out_ids + out_base;
	/* (a narrow output's slots are 4 bytes wide from the segment's first one: store_out_id) */
	uint32_t   *const out_indexes = reinterpret_cast<uint32_t *>(p.out_ids) + out_base;
	Key		   *const keep_keys = p.keep_keys + keep_base;
	uint64_t   *const keep_ids = p.keep_ids + keep_base;
	unsigned int out_at = before & 0xffffu;
	unsigned int keep_at = (before >> 16) - out_at;
	const unsigned long long first = base + threadIdx.x;

	/*
	 * Outgoing and kept keys share one store path (its destination chosen per lane), so a warp
	 * whose lanes hold both kinds does not run two: most warps do, with k = n/4.
	 */
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		const bool	valid = FULL || (unsigned int) (j * THREADS) + threadIdx.x < valid_items;
		const bool	out = valid && key[j] < p.low;
		const bool	written = valid && key[j] <= p.high;	/* outgoing or kept */
		const unsigned int out_mask = __ballot_sync(0xffffffffu, out);
		const unsigned int keep_mask = __ballot_sync(0xffffffffu, written) & ~out_mask;
		const unsigned long long index = first + (unsigned long long) (j * THREADS);

		if (written)
		{
			const unsigned int slot = (out ? out_at : keep_at) +
				__popc((out ? out_mask : keep_mask) & lanes_below);

			if (!out || slot < out_room)
			{
				const uint64_t id = HAS_IDS ? p.ids[index] : (uint64_t) index;

				(out ? out_keys : keep_keys)[slot] = key[j];
				if (NARROW && out)
					out_indexes[slot] = (uint32_t) id;
				else
					(out ? out_ids : keep_ids)[slot] = id;
			}
		}
		out_at += __popc(out_mask);
		keep_at += __popc(keep_mask);
	}
}

/* A block's tiles, the next one loading while this one is written. */
template <typename Key, bool HAS_IDS, bool NARROW>
__device__ __forceinline__ void
dense_first_tiles(const DenseFirstPass<Key> &p, DenseFirstShared &sh)
{
	constexpr int ITEMS = Tile<Key>::ITEMS;
	constexpr int TILE = Tile<Key>::SIZE;
	const unsigned long long stride = (unsigned long long) gridDim.x * TILE;
	unsigned long long base = (unsigned long long) blockIdx.x * TILE;
	int			parity = 0;
	Key			key[ITEMS];

	if (base + TILE <= p.length)
		load_full_tile(key, p.keys, base);
	else
		load_tile(key, p.keys, base, p.length);
	for (; base < p.length; base += stride)
	{
		Key			next[ITEMS];

		if (base + stride + TILE <= p.length)
			load_full_tile(next, p.keys, base + stride);
		else
			load_tile(next, p.keys, base + stride, p.length);
		if (base + TILE <= p.length)
			dense_first_tile<Key, true, HAS_IDS, NARROW>(key, base, p, sh, parity);
		else
			dense_first_tile<Key, false, HAS_IDS, NARROW>(key, base, p, sh, parity);
		parity ^= 1;
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
			key[j] = next[j];
	}
}

template <typename Key>
__global__ void __launch_bounds__(THREADS, 3)
dense_first_kernel(SelectArgs<Key> a)
{
	__shared__ DenseFirstShared sh;
	FilterPass<Key> f;
	DenseFirstPass<Key> p;

	if (!filter_block_due<Key, true>(a, 0))
		return;
	read_filter_pass<Key, true>(a, f);
	p.low = f.speculative_low;
	p.high = f.speculative_high;
	p.length = f.length;
	p.out_limit = f.out_limit;
	p.out_count = &f.st->out_count;
	p.keep_count = &f.st->candidate_count[f.target];
	p.keys = f.keys;
	p.ids = f.ids;
	p.out_keys = f.out_keys;
	p.out_ids = f.out_ids;
	p.keep_keys = f.keep_keys;
	p.keep_ids = f.keep_ids;

	if (p.ids != nullptr)
		dense_first_tiles<Key, true, false>(p, sh);
	else if (a.narrow_out_ids)
		dense_first_tiles<Key, false, true>(p, sh);
	else
		dense_first_tiles<Key, false, false>(p, sh);
}

/* The dense speculative first pass, width blocks per segment. */
template <typename Key>
cudaError_t
launch_dense_first(const SelectArgs<Key> &a, unsigned int width, unsigned int segments,
				   cudaStream_t stream)
{
	dense_first_kernel<Key><<<dim3(width, segments), THREADS, 0, stream>>>(a);
	return cudaGetLastError();
}

}								/* namespace radik */

#endif							/* RADIK_GPU_DENSE_FIRST_CUH */
