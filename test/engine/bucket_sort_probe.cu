/*
 * bucket_sort_probe.cu
 *	  What the last pass of a sample sort of a large answer would cost on this GPU.
 *
 * For k = n/4 of 2^30 keys the engine sorts the answer with cub's radix sort: four passes of
 * 8 bits over 2^28 pairs and a widening of the positions to 64-bit ids (docs/performance.md).  A
 * sample sort would instead partition the answer into buckets of one block's tile and finish each
 * bucket in shared memory, writing the keys and the 64-bit ids once.  This program times that
 * last pass alone: 2^28 (4-byte key, 32-bit position) pairs already grouped into buckets of a
 * tile whose keys differ in their low 12 to 24 bits, each bucket loaded by one block, sorted with
 * cub::BlockRadixSort on those bits and written as float keys and 64-bit ids (2 GB read, 3 GB
 * written); and, for comparison, two 1 GB device copies (4 GB moved against the pass's 5 GB).
 *
 * CUDA events around the kernel, median of 10 runs after 2 warm-ups, keys regenerated before
 * every run; every bucket's keys are checked to be in order (the ids are not checked).
 * Build and run on a GPU host:
 *   make with_llvm=no test/engine/bucket_sort_probe && test/engine/bucket_sort_probe
 */
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "probe_common.cuh"

static const u64 ENTRIES = 1ull << 28;

/*
 * Entry i is in bucket i / tile; its key is random in the low low_bits, with the bucket number
 * above them (cut off at 32 bits where buckets and low bits need more: the sort and the check
 * look at each bucket's low bits only).
 */
__global__ void
generate(u32 *keys, u32 *positions, u64 n, u32 tile, int low_bits, u32 seed)
{
	const u64	stride = (u64) gridDim.x * blockDim.x;

	for (u64 i = blockIdx.x * (u64) blockDim.x + threadIdx.x; i < n; i += stride)
	{
		const u32	h = murmur_mix((u32) i * 0x9e3779b9u ^ seed);

		keys[i] = ((u32) (i / tile) << low_bits) | (h & ((1u << low_bits) - 1));
		positions[i] = h ^ (u32) i;
	}
}

/* One block a bucket: load it, sort it on its low bits, write float keys and 64-bit ids. */
template <int THREADS, int ITEMS, int RADIX_BITS>
__global__ void __launch_bounds__(THREADS)
sort_buckets(const u32 *keys, const u32 *positions, float *sorted_keys, u64 *sorted_ids,
			 int low_bits)
{
	using Sort = cub::BlockRadixSort<u32, THREADS, ITEMS, u32, RADIX_BITS>;
	__shared__ typename Sort::TempStorage sort_storage;
	const u64	base = (u64) blockIdx.x * THREADS * ITEMS;
	u32			key[ITEMS];
	u32			position[ITEMS];

#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		key[j] = __ldcs(keys + base + j * THREADS + threadIdx.x);
		position[j] = __ldcs(positions + base + j * THREADS + threadIdx.x);
	}
	Sort(sort_storage).SortBlockedToStriped(key, position, 0, low_bits);
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		__stcs(sorted_keys + base + j * THREADS + threadIdx.x, __uint_as_float(key[j]));
		__stcs(sorted_ids + base + j * THREADS + threadIdx.x, (u64) position[j]);
	}
}

/* Entries out of order within their bucket of tile entries. */
__global__ void
count_out_of_order(const float *keys, u64 n, u32 tile, u64 *count)
{
	const u64	stride = (u64) gridDim.x * blockDim.x;

	for (u64 i = blockIdx.x * (u64) blockDim.x + threadIdx.x; i + 1 < n; i += stride)
		if ((i + 1) % tile != 0 && __float_as_uint(keys[i]) > __float_as_uint(keys[i + 1]))
			atomicAdd(count, 1ull);
}

struct Buffers
{
	u32		   *keys;
	u32		   *positions;
	float	   *sorted_keys;
	u64		   *sorted_ids;
	u64		   *out_of_order;
};

static float
median(std::vector<float> times)
{
	std::sort(times.begin(), times.end());
	return times[times.size() / 2];
}

template <int THREADS, int ITEMS, int RADIX_BITS>
static int
time_buckets(const Buffers &b, int low_bits)
{
	const u32	tile = THREADS * ITEMS;
	std::vector<float> times;
	cudaEvent_t start, stop;
	u64			out_of_order;

	CHECK_CUDA(cudaEventCreate(&start));
	CHECK_CUDA(cudaEventCreate(&stop));
	for (int run = 0; run < 12; run++)
	{
		float		ms;

		generate<<<2048, 256>>>(b.keys, b.positions, ENTRIES, tile, low_bits, 11 + run);
		CHECK_CUDA(cudaEventRecord(start));
		sort_buckets<THREADS, ITEMS, RADIX_BITS><<<(unsigned int) (ENTRIES / tile), THREADS>>>(
			b.keys, b.positions, b.sorted_keys, b.sorted_ids, low_bits);
		CHECK_CUDA(cudaEventRecord(stop));
		CHECK_CUDA(cudaEventSynchronize(stop));
		CHECK_CUDA(cudaGetLastError());
		CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
		if (run >= 2)
			times.push_back(ms);
	}
	CHECK_CUDA(cudaMemset(b.out_of_order, 0, sizeof(u64)));
	count_out_of_order<<<2048, 256>>>(b.sorted_keys, ENTRIES, tile, b.out_of_order);
	CHECK_CUDA(cudaMemcpy(&out_of_order, b.out_of_order, sizeof(u64), cudaMemcpyDeviceToHost));
	printf("buckets of %5u (%3d x %2d), %d-bit digits, keys differing in %2d bits: %.3f ms%s\n",
		   tile, THREADS, ITEMS, RADIX_BITS, low_bits, median(times),
		   out_of_order ? " NOT IN ORDER" : "");
	return out_of_order != 0;
}

static int
time_copies(const Buffers &b)
{
	std::vector<float> times;
	cudaEvent_t start, stop;

	CHECK_CUDA(cudaEventCreate(&start));
	CHECK_CUDA(cudaEventCreate(&stop));
	for (int run = 0; run < 12; run++)
	{
		float		ms;

		CHECK_CUDA(cudaEventRecord(start));
		CHECK_CUDA(cudaMemcpyAsync(b.sorted_keys, b.keys, ENTRIES * 4, cudaMemcpyDeviceToDevice));
		CHECK_CUDA(cudaMemcpyAsync(b.sorted_ids, b.positions, ENTRIES * 4,
								   cudaMemcpyDeviceToDevice));
		CHECK_CUDA(cudaEventRecord(stop));
		CHECK_CUDA(cudaEventSynchronize(stop));
		CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
		if (run >= 2)
			times.push_back(ms);
	}
	printf("two 1 GB device copies (2 GB read, 2 GB written): %.3f ms\n", median(times));
	return 0;
}

int
main(void)
{
	Buffers		b;
	int			failed = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	CHECK_CUDA(cudaMalloc(&b.keys, ENTRIES * 4));
	CHECK_CUDA(cudaMalloc(&b.positions, ENTRIES * 4));
	CHECK_CUDA(cudaMalloc(&b.sorted_keys, ENTRIES * 4));
	CHECK_CUDA(cudaMalloc(&b.sorted_ids, ENTRIES * 8));
	CHECK_CUDA(cudaMalloc(&b.out_of_order, sizeof(u64)));

	failed |= time_copies(b);
	failed |= time_buckets<256, 16, 4>(b, 16);
	failed |= time_buckets<256, 16, 6>(b, 16);
	failed |= time_buckets<256, 16, 5>(b, 16);
	failed |= time_buckets<512, 16, 4>(b, 16);
	failed |= time_buckets<128, 16, 6>(b, 16);
	failed |= time_buckets<256, 32, 4>(b, 16);
	failed |= time_buckets<256, 32, 6>(b, 16);
	failed |= time_buckets<256, 16, 6>(b, 12);
	failed |= time_buckets<512, 16, 4>(b, 20);
	failed |= time_buckets<256, 16, 6>(b, 24);
	return failed;
}
