/*
 * sample_sort_probe.cu
 *	  Whether a two-level sample sort of a large answer beats cub's radix sort on this GPU.
 *
 * For k = n/4 of 2^30 keys the engine sorts the answer with cub's radix sort (four 8-bit passes
 * over 2^28 pairs) and then widens the sorted 32-bit positions to 64-bit ids
 * (docs/performance.md).  A sample sort would partition the answer twice by splitters taken from
 * a sorted sample and finish each small bucket in shared memory, writing the float keys and the
 * 64-bit ids once.  The answer's float keys are very uneven over their top bits, so the buckets
 * come from splitters, not from radix digits.  This program runs the whole sort on 2^28 fresh
 * pairs (float keys uniform on [0, 0.25) with 22 random bits, as the n/4 answer has them;
 * positions 0..n-1):
 *   sample:  2^23 keys at a fixed stride, sorted by cub; every 64th is a fine splitter
 *            (2^17 of them), every 512th of those a coarse one (256);
 *   coarse:  each tile of 4096 entries is grouped by coarse bucket in shared memory (binary search
 *            over the splitters, shared counters, a block scan), one global atomic per bucket and
 *            tile reserves its slots, and neighbouring threads write neighbouring slots;
 *   fine:    the same inside each coarse bucket, into its 512 fine buckets (capacity 4096);
 *   local:   one block per fine bucket sorts it with cub::BlockRadixSort on the bits it spans
 *            (keys relative to its low splitter; 8 entries a thread up to 2048, 16 above) and
 *            writes the float keys and 64-bit ids.
 * In the same loop it runs cub's SortPairs (32-bit count, 30 bits) and the widening, as the
 * engine does.  Every run compares the two: the sorted keys must be equal entry by entry, and
 * each id must name an input entry with that key (equal keys may come in any order); a bucket
 * over its capacity is reported too.
 *
 * CUDA events, median of 10 runs after 2 warm-ups, keys regenerated before every run; then one
 * more run timed stage by stage, and the fine buckets' sizes.
 * Build and run on a GPU host:
 *   make with_llvm=no test/engine/sample_sort_probe && test/engine/sample_sort_probe
 */
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "probe_common.cuh"

static const u64 N = 1ull << 28;
static const int SAMPLE_LOG = 23;	/* 64 sample keys a fine bucket */
static const u32 SAMPLE = 1u << SAMPLE_LOG;
static const int COARSE = 256;
static const int FINE_PER = 512;
static const u32 FINE = COARSE * FINE_PER;			/* 2^17 */
static const u64 COARSE_CAP = (N / COARSE) * 5 / 4;
static const u32 FINE_CAP = 4096;
static const int THREADS = 256;
static const int ITEMS = 16;
static const u32 TILE = THREADS * ITEMS;
static const int BLOCKS_PER_SM = 4;
static const u32 STRIDE = 32;	/* bucket cursors one a 128-byte line apart */


__global__ void gen(u32 *keys, u32 *pos, u64 n, u32 seed)
{
	const u64 stride = (u64) gridDim.x * blockDim.x;
	for (u64 i = blockIdx.x * (u64) blockDim.x + threadIdx.x; i < n; i += stride)
	{
		u32 h = murmur_mix((u32) i * 0x9e3779b9u ^ seed);
		keys[i] = __float_as_uint((float) (h >> 10) * (1.0f / 16777216.0f));
		pos[i] = (u32) i;
	}
}

__global__ void take_sample(const u32 *keys, u64 n, u32 *sample)
{
	u32 s = blockIdx.x * blockDim.x + threadIdx.x;
	if (s < SAMPLE)
		sample[s] = keys[(u64) s * (n / SAMPLE)];
}

/* fine splitter j (j = 1 .. FINE-1) = sorted_sample[j * SAMPLE / FINE]; splitter 0 unused */
__global__ void pick_splitters(const u32 *sorted_sample, u32 *fine_split)
{
	u32 j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < FINE)
		fine_split[j] = j == 0 ? 0 : sorted_sample[(u64) j * (SAMPLE / FINE)];
}

/* number of split[1..COUNT-1] <= key (split ascending, COUNT a power of two): branchless */
template <int COUNT>
__device__ __forceinline__ u32 upper_index(const u32 *split, u32 key)
{
	u32 i = 0;
#pragma unroll
	for (u32 step = COUNT / 2; step >= 1; step /= 2)
		i += split[i + step] <= key ? step : 0;
	return i;
}

/*
 * Scatter entries [0, count) of (keys, pos) into fixed-capacity buckets by split (BUCKETS of
 * them), onesweep-like: the tile is first grouped by bucket in shared memory, then written so
 * that neighbouring threads write neighbouring slots of one bucket.
 */
struct ScatterSmem
{
	u32 keys[TILE], pos[TILE];
	unsigned short bucket[TILE];
};

template <int BUCKETS>
__device__ __forceinline__ void scatter_tile(const u32 *keys, const u32 *pos, u32 count,
	const u32 *split_smem, u32 *counts_smem, u32 *offs_smem, u32 *delta_smem, ScatterSmem &tile,
	u32 *cursor, u32 cap, u32 *out_keys, u32 *out_pos, u32 *overflow)
{
	using Scan = cub::BlockScan<u32, THREADS>;
	__shared__ typename Scan::TempStorage scan;
	constexpr int PER = BUCKETS / THREADS;
	u32 k[ITEMS], br[ITEMS];	/* bucket << 16 | rank in the tile's bucket */
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		u32 e = j * THREADS + threadIdx.x;
		if (e < count)
		{
			k[j] = __ldcs(keys + e);
			u32 b = upper_index<BUCKETS>(split_smem, k[j]);
			br[j] = b << 16 | atomicAdd(&counts_smem[b], 1u);
		}
	}
	__syncthreads();
	u32 c[PER], o[PER];
#pragma unroll
	for (int i = 0; i < PER; i++)
		c[i] = counts_smem[threadIdx.x * PER + i];
	Scan(scan).ExclusiveSum(c, o);
#pragma unroll
	for (int i = 0; i < PER; i++)
	{
		u32 t = threadIdx.x * PER + i;
		u32 base = c[i] ? atomicAdd(&cursor[t * STRIDE], c[i]) : 0;
		if (c[i] && base + c[i] > cap)
			*overflow = 1;
		offs_smem[t] = o[i];
		delta_smem[t] = t * cap + base - o[i];	/* output index of local slot e: delta + e */
		counts_smem[t] = 0;
	}
	__syncthreads();
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		u32 e = j * THREADS + threadIdx.x;
		if (e < count)
		{
			u32 b = br[j] >> 16;
			u32 slot = offs_smem[b] + (br[j] & 0xFFFFu);
			tile.keys[slot] = k[j];
			tile.pos[slot] = __ldcs(pos + e);
			tile.bucket[slot] = (unsigned short) b;
		}
	}
	__syncthreads();
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		u32 e = j * THREADS + threadIdx.x;
		if (e < count)
		{
			u32 t = tile.bucket[e];
			u32 out = delta_smem[t] + e;
			if (out - t * cap < cap)
			{
				out_keys[out] = tile.keys[e];
				out_pos[out] = tile.pos[e];
			}
		}
	}
	__syncthreads();	/* shared arrays reused by the next tile */
}

__global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
coarse_scatter(const u32 *keys, const u32 *pos, u64 n,
	const u32 *fine_split, u32 *coarse_cursor, u32 *coarse_keys, u32 *coarse_pos, u32 *overflow)
{
	__shared__ u32 split[COARSE], counts[COARSE], offs[COARSE], delta[COARSE];
	extern __shared__ __align__(16) unsigned char dyn[];
	ScatterSmem &smem = *reinterpret_cast<ScatterSmem *>(dyn);
	for (int t = threadIdx.x; t < COARSE; t += THREADS)
	{
		split[t] = fine_split[t * FINE_PER];
		counts[t] = 0;
	}
	__syncthreads();
	for (u64 tile = blockIdx.x; tile * TILE < n; tile += gridDim.x)
	{
		u64 first = tile * TILE;
		u32 count = (u32) (n - first < TILE ? n - first : TILE);
		scatter_tile<COARSE>(keys + first, pos + first, count, split, counts, offs, delta, smem,
							 coarse_cursor, (u32) COARSE_CAP, coarse_keys, coarse_pos, overflow);
	}
}

/* tiles of each coarse bucket, prefix-summed (one block of COARSE threads) */
__global__ void coarse_tiles(const u32 *coarse_cursor, u32 *tile_start)
{
	using Scan = cub::BlockScan<u32, COARSE>;
	__shared__ typename Scan::TempStorage scan;
	u32 c = min(coarse_cursor[threadIdx.x * STRIDE], (u32) COARSE_CAP);
	u32 tiles = (c + TILE - 1) / TILE, start, total;
	Scan(scan).ExclusiveSum(tiles, start, total);
	tile_start[threadIdx.x] = start;
	if (threadIdx.x == COARSE - 1)
		tile_start[COARSE] = total;
}

__global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM) fine_scatter(const u32 *coarse_cursor,
	const u32 *tile_start_g, const u32 *coarse_keys, const u32 *coarse_pos, const u32 *fine_split,
	u32 *fine_cursor, u32 *fine_keys, u32 *fine_pos, u32 *overflow)
{
	__shared__ u32 tile_start[COARSE + 1], split[FINE_PER], counts[FINE_PER], offs[FINE_PER],
		delta[FINE_PER];
	extern __shared__ __align__(16) unsigned char dyn[];
	ScatterSmem &smem = *reinterpret_cast<ScatterSmem *>(dyn);
	__shared__ int loaded;
	for (int t = threadIdx.x; t <= COARSE; t += THREADS)
		tile_start[t] = tile_start_g[t];
	for (int t = threadIdx.x; t < FINE_PER; t += THREADS)
		counts[t] = 0;
	if (threadIdx.x == 0)
		loaded = -1;
	__syncthreads();
	const u32 total = tile_start[COARSE];
	for (u32 g = blockIdx.x; g < total; g += gridDim.x)
	{
		/* coarse bucket c: tile_start[c] <= g < tile_start[c+1] */
		u32 lo = 0, hi = COARSE;
		while (hi - lo > 1)
		{
			u32 mid = (lo + hi) / 2;
			if (tile_start[mid] <= g)
				lo = mid;
			else
				hi = mid;
		}
		const u32 c = lo;
		if (loaded != (int) c)
		{
			__syncthreads();
			for (int t = threadIdx.x; t < FINE_PER; t += THREADS)
				split[t] = fine_split[c * FINE_PER + t];	/* split[0] unused by upper_index */
			__syncthreads();
			if (threadIdx.x == 0) loaded = (int) c;
			__syncthreads();
		}
		const u32 in_bucket = min(coarse_cursor[c * STRIDE], (u32) COARSE_CAP);
		const u32 first = (g - tile_start[c]) * TILE;
		const u32 count = min(in_bucket - first, TILE);
		scatter_tile<FINE_PER>(coarse_keys + c * COARSE_CAP + first,
							   coarse_pos + c * COARSE_CAP + first, count, split, counts, offs,
							   delta, smem, fine_cursor + c * FINE_PER * STRIDE, FINE_CAP,
							   fine_keys + (u64) c * FINE_PER * FINE_CAP,
							   fine_pos + (u64) c * FINE_PER * FINE_CAP, overflow);
	}
}

__global__ void compact_counts(const u32 *fine_cursor, u32 *fine_count)
{
	u32 j = blockIdx.x * blockDim.x + threadIdx.x;
	if (j < FINE)
		fine_count[j] = min(fine_cursor[j * STRIDE], FINE_CAP);
}

/* buckets of more than MIN_COUNT and at most ITEMS_ * THREADS entries; others skipped */
template <int ITEMS_, int RADIX_BITS>
__global__ void __launch_bounds__(THREADS, 3)
local_sort(const u32 *fine_count, const u32 *fine_offsets, const u32 *fine_split,
		   const u32 *fine_keys, const u32 *fine_pos, float *out_keys, u64 *out_ids, u32 min_count)
{
	using Sort = cub::BlockRadixSort<u32, THREADS, ITEMS_, u32, RADIX_BITS>;
	__shared__ typename Sort::TempStorage temp;
	const u32 j = blockIdx.x;
	const u32 count = fine_count[j];
	if (count <= min_count || count > ITEMS_ * THREADS)
		return;
	const u32 lo = j == 0 ? 0 : fine_split[j];
	/* keys < lo + span */
	const u32 span = j + 1 < FINE ? fine_split[j + 1] - lo : 0xFFFFFFFFu - lo;
	const int bits = span == 0 ? 1 : min(32, 33 - __clz(span));	/* one more than span needs */
	const u64 base = (u64) j * FINE_CAP;
	u32 k[ITEMS_], v[ITEMS_];
#pragma unroll
	for (int i = 0; i < ITEMS_; i++)
	{
		u32 e = i * THREADS + threadIdx.x;
		k[i] = e < count ? __ldcs(fine_keys + base + e) - lo : 0xFFFFFFFFu;
		v[i] = e < count ? __ldcs(fine_pos + base + e) : 0;
	}
	Sort(temp).SortBlockedToStriped(k, v, 0, bits);
	const u64 out = fine_offsets[j];
#pragma unroll
	for (int i = 0; i < ITEMS_; i++)
	{
		u32 e = i * THREADS + threadIdx.x;
		if (e < count)
		{
			out_keys[out + e] = __uint_as_float(k[i] + lo);
			out_ids[out + e] = v[i];
		}
	}
}

/* the positions cub sorted, as the 64-bit ids the engine returns */
__global__ void widen(const u32 *in, u64 *out, u64 n)
{
	const u64 stride = (u64) gridDim.x * blockDim.x;
	for (u64 i = blockIdx.x * (u64) blockDim.x + threadIdx.x; i < n; i += stride)
		out[i] = in[i];
}

/*
 * bad[0]: entries whose key differs from cub's; bad[1]: entries whose id does not name an input
 * entry with that key
 */
__global__ void compare(const float *keys, const u32 *cub_keys, const u64 *ids, const u32 *input,
						u64 n, u64 *bad)
{
	const u64 stride = (u64) gridDim.x * blockDim.x;
	for (u64 i = blockIdx.x * (u64) blockDim.x + threadIdx.x; i < n; i += stride)
	{
		if (__float_as_uint(keys[i]) != cub_keys[i])
			atomicAdd(&bad[0], 1ull);
		if (ids[i] >= n || input[ids[i]] != __float_as_uint(keys[i]))
			atomicAdd(&bad[1], 1ull);
	}
}

struct Work
{
	u32 *keys, *pos, *sample, *sorted_sample, *fine_split, *coarse_cursor, *coarse_keys,
		*coarse_pos, *tile_start, *fine_cursor, *fine_count, *fine_offsets, *fine_keys, *fine_pos,
		*overflow;
	void *sample_temp, *scan_temp;
	size_t sample_temp_bytes, scan_temp_bytes;
	float *out_keys;
	u64 *out_ids;
};

/* The sample sort of w.keys / w.pos; with stage != NULL, events 0..5 recorded between stages. */
static int sample_sort(Work &w, int sms, cudaEvent_t *stage)
{
#define STAGE(i) do { if (stage) CHECK_CUDA(cudaEventRecord(stage[i])); } while (0)
	STAGE(0);
	take_sample<<<SAMPLE / 256, 256>>>(w.keys, N, w.sample);
	CHECK_CUDA(cub::DeviceRadixSort::SortKeys(w.sample_temp, w.sample_temp_bytes, w.sample,
											  w.sorted_sample, SAMPLE));
	pick_splitters<<<FINE / 256, 256>>>(w.sorted_sample, w.fine_split);
	CHECK_CUDA(cudaMemsetAsync(w.coarse_cursor, 0, COARSE * STRIDE * 4));
	CHECK_CUDA(cudaMemsetAsync(w.fine_cursor, 0, FINE * STRIDE * 4));
	CHECK_CUDA(cudaMemsetAsync(w.overflow, 0, 4));
	STAGE(1);
	coarse_scatter<<<sms * BLOCKS_PER_SM, THREADS, sizeof(ScatterSmem)>>>(
		w.keys, w.pos, N, w.fine_split, w.coarse_cursor, w.coarse_keys, w.coarse_pos, w.overflow);
	STAGE(2);
	coarse_tiles<<<1, COARSE>>>(w.coarse_cursor, w.tile_start);
	fine_scatter<<<sms * BLOCKS_PER_SM, THREADS, sizeof(ScatterSmem)>>>(
		w.coarse_cursor, w.tile_start, w.coarse_keys, w.coarse_pos, w.fine_split, w.fine_cursor,
		w.fine_keys, w.fine_pos, w.overflow);
	compact_counts<<<FINE / 256, 256>>>(w.fine_cursor, w.fine_count);
	CHECK_CUDA(cub::DeviceScan::ExclusiveSum(w.scan_temp, w.scan_temp_bytes, w.fine_count,
											 w.fine_offsets, FINE));
	STAGE(3);
	local_sort<8, 6><<<FINE, THREADS>>>(w.fine_count, w.fine_offsets, w.fine_split, w.fine_keys,
										w.fine_pos, w.out_keys, w.out_ids, 0);
	STAGE(4);
	local_sort<16, 6><<<FINE, THREADS>>>(w.fine_count, w.fine_offsets, w.fine_split, w.fine_keys,
										 w.fine_pos, w.out_keys, w.out_ids, 8 * THREADS);
	STAGE(5);
#undef STAGE
	return 0;
}

int main()
{
	setvbuf(stdout, NULL, _IONBF, 0);
	int sms;
	CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	Work w = {};
	CHECK_CUDA(cudaMalloc(&w.keys, N * 4));
	CHECK_CUDA(cudaMalloc(&w.pos, N * 4));
	CHECK_CUDA(cudaMalloc(&w.sample, SAMPLE * 4));
	CHECK_CUDA(cudaMalloc(&w.sorted_sample, SAMPLE * 4));
	CHECK_CUDA(cudaMalloc(&w.fine_split, FINE * 4));
	CHECK_CUDA(cudaMalloc(&w.coarse_cursor, COARSE * STRIDE * 4));
	CHECK_CUDA(cudaMalloc(&w.coarse_keys, COARSE * COARSE_CAP * 4));
	CHECK_CUDA(cudaMalloc(&w.coarse_pos, COARSE * COARSE_CAP * 4));
	CHECK_CUDA(cudaMalloc(&w.tile_start, (COARSE + 1) * 4));
	CHECK_CUDA(cudaMalloc(&w.fine_cursor, FINE * STRIDE * 4));
	CHECK_CUDA(cudaMalloc(&w.fine_count, FINE * 4));
	CHECK_CUDA(cudaMalloc(&w.fine_offsets, FINE * 4));
	CHECK_CUDA(cudaMalloc(&w.fine_keys, (u64) FINE * FINE_CAP * 4));
	CHECK_CUDA(cudaMalloc(&w.fine_pos, (u64) FINE * FINE_CAP * 4));
	CHECK_CUDA(cudaMalloc(&w.overflow, 4));
	CHECK_CUDA(cudaMalloc(&w.out_keys, N * 4));
	CHECK_CUDA(cudaMalloc(&w.out_ids, N * 8));
	CHECK_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, w.sample_temp_bytes, w.sample,
											  w.sorted_sample, SAMPLE));
	CHECK_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, w.scan_temp_bytes, w.fine_count,
											 w.fine_offsets, FINE));
	CHECK_CUDA(cudaMalloc(&w.sample_temp, w.sample_temp_bytes));
	CHECK_CUDA(cudaMalloc(&w.scan_temp, w.scan_temp_bytes));
	CHECK_CUDA(cudaFuncSetAttribute(coarse_scatter, cudaFuncAttributeMaxDynamicSharedMemorySize,
									(int) sizeof(ScatterSmem)));
	CHECK_CUDA(cudaFuncSetAttribute(fine_scatter, cudaFuncAttributeMaxDynamicSharedMemorySize,
									(int) sizeof(ScatterSmem)));

	/* what the engine does now: cub's sort with a 32-bit count, then the widening */
	u32 *cub_keys, *cub_pos;
	u64 *cub_ids, *bad;
	void *cub_temp = nullptr;
	size_t cub_temp_bytes = 0;
	CHECK_CUDA(cudaMalloc(&cub_keys, N * 4));
	CHECK_CUDA(cudaMalloc(&cub_pos, N * 4));
	CHECK_CUDA(cudaMalloc(&cub_ids, N * 8));
	CHECK_CUDA(cudaMalloc(&bad, 16));
	CHECK_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, cub_temp_bytes, w.keys, cub_keys, w.pos,
											   cub_pos, (u32) N, 0, 30));
	CHECK_CUDA(cudaMalloc(&cub_temp, cub_temp_bytes));

	cudaEvent_t start, middle, end;
	CHECK_CUDA(cudaEventCreate(&start));
	CHECK_CUDA(cudaEventCreate(&middle));
	CHECK_CUDA(cudaEventCreate(&end));
	std::vector<float> sample_ms, cub_ms;
	int failures = 0;
	for (int run = 0; run < 12; run++)
	{
		gen<<<2048, 256>>>(w.keys, w.pos, N, 5 + run);
		CHECK_CUDA(cudaEventRecord(start));
		if (sample_sort(w, sms, NULL))
			return 1;
		CHECK_CUDA(cudaEventRecord(middle));
		CHECK_CUDA(cub::DeviceRadixSort::SortPairs(cub_temp, cub_temp_bytes, w.keys, cub_keys,
												   w.pos, cub_pos, (u32) N, 0, 30));
		widen<<<sms * 8, 256>>>(cub_pos, cub_ids, N);
		CHECK_CUDA(cudaEventRecord(end));
		CHECK_CUDA(cudaEventSynchronize(end));
		CHECK_CUDA(cudaGetLastError());
		float a, b;
		CHECK_CUDA(cudaEventElapsedTime(&a, start, middle));
		CHECK_CUDA(cudaEventElapsedTime(&b, middle, end));
		if (run >= 2)
		{
			sample_ms.push_back(a);
			cub_ms.push_back(b);
		}
		u32 overflow;
		u64 wrong[2];
		CHECK_CUDA(cudaMemcpy(&overflow, w.overflow, 4, cudaMemcpyDeviceToHost));
		CHECK_CUDA(cudaMemset(bad, 0, 16));
		compare<<<2048, 256>>>(w.out_keys, cub_keys, w.out_ids, w.keys, N, bad);
		CHECK_CUDA(cudaMemcpy(wrong, bad, 16, cudaMemcpyDeviceToHost));
		if (overflow || wrong[0] || wrong[1])
		{
			printf("run %d: bucket over capacity %u, keys differing %llu, ids wrong %llu\n", run,
				   overflow, wrong[0], wrong[1]);
			failures++;
		}
	}
	std::sort(sample_ms.begin(), sample_ms.end());
	std::sort(cub_ms.begin(), cub_ms.end());
	printf("2^28 pairs: sample sort %.3f ms (min %.3f); cub, 32-bit count, + widening %.3f ms "
		   "(min %.3f); %d run(s) wrong\n", sample_ms[5], sample_ms[0], cub_ms[5], cub_ms[0],
		   failures);

	cudaEvent_t stage[6];
	for (cudaEvent_t &e : stage)
		CHECK_CUDA(cudaEventCreate(&e));
	gen<<<2048, 256>>>(w.keys, w.pos, N, 99);
	if (sample_sort(w, sms, stage))
		return 1;
	CHECK_CUDA(cudaEventSynchronize(stage[5]));
	float ms[5];
	for (int i = 0; i < 5; i++)
		CHECK_CUDA(cudaEventElapsedTime(&ms[i], stage[i], stage[i + 1]));
	printf("stages (ms): sample and splitters %.3f, coarse scatter %.3f, fine scatter %.3f, "
		   "local sort <= 2048 %.3f, > 2048 %.3f\n", ms[0], ms[1], ms[2], ms[3], ms[4]);
	std::vector<u32> sizes(FINE);
	CHECK_CUDA(cudaMemcpy(sizes.data(), w.fine_count, FINE * 4, cudaMemcpyDeviceToHost));
	std::sort(sizes.begin(), sizes.end());
	printf("fine bucket sizes: min %u, median %u, max %u (capacity %u)\n", sizes[0],
		   sizes[FINE / 2], sizes[FINE - 1], FINE_CAP);
	return failures > 0;
}
