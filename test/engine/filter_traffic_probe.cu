/*
 * filter_traffic_probe.cu
 *	  What the dense filter's memory traffic costs on this GPU without the engine around it.
 *
 * The engine's speculative pass for k = n/4 of 2^30 float keys reads 4.3 GB and writes the
 * quarter of the keys below the guess with their 64-bit ids (3.2 GB), and takes about 5.2 ms
 * (docs/performance.md).  This program times the same traffic in its simplest shapes, on the
 * same kind of keys (a murmur3 finaliser of the index, float uniform on [0, 1), mapped to
 * unsigned order as radik_keys.h does), regenerated before every run:
 *
 *  - read only: the filter's tile loop (16 keys a thread, the next tile loading meanwhile), no
 *    writes: the floor for reading the keys;
 *  - device copy of 3.2 GB: the floor for writing the answer;
 *  - tile select: the tile loop that also writes each key below 0.25 and its index, in warp
 *    order (one ballot per item), at room reserved for the tile by one atomic: what a filter
 *    with no more work per key than that reaches.
 *
 * CUDA events, median of 7 runs after 2 warm-ups.  Build and run on a GPU host:
 *   make with_llvm=no test/engine/filter_traffic_probe && test/engine/filter_traffic_probe
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) \
		{ \
			fprintf(stderr, "filter_traffic_probe: %s: %s\n", #call, cudaGetErrorString(e_)); \
			return 1; \
		} \
	} while (0)

constexpr int THREADS = 256;
constexpr int ITEMS = 16;
constexpr int TILE = THREADS * ITEMS;
constexpr int WARPS = THREADS / 32;

/* float uniform on [0, 1) from the index, as an unsigned key in float order (sign bit set) */
__global__ void
generate_keys(uint32_t *keys, size_t n, uint32_t seed)
{
	for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
		 i += gridDim.x * (size_t) blockDim.x)
	{
		uint32_t	x = (uint32_t) i * 0x9E3779B1u + seed * 0x85EBCA77u;

		x ^= x >> 16;
		x *= 0x85EBCA6Bu;
		x ^= x >> 13;
		x *= 0xC2B2AE35u;
		x ^= x >> 16;
		keys[i] = __float_as_uint((float) (x >> 8) * (1.0f / 16777216.0f)) | 0x80000000u;
	}
}

__device__ __forceinline__ void
load_tile(uint32_t (&items)[ITEMS], const uint32_t *keys, size_t base, size_t n)
{
#pragma unroll
	for (int j = 0; j < ITEMS; j++)
	{
		const size_t i = base + (size_t) j * THREADS + threadIdx.x;

		items[j] = i < n ? keys[i] : ~0u;
	}
}

__global__ void __launch_bounds__(THREADS)
read_only(const uint32_t *keys, size_t n, uint32_t threshold, unsigned long long *count)
{
	const size_t stride = (size_t) gridDim.x * TILE;
	uint32_t	key[ITEMS];
	unsigned int below = 0;

	load_tile(key, keys, blockIdx.x * (size_t) TILE, n);
	for (size_t base = blockIdx.x * (size_t) TILE; base < n; base += stride)
	{
		uint32_t	next[ITEMS];

		load_tile(next, keys, base + stride, n);
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
		{
			below += key[j] < threshold;
			key[j] = next[j];
		}
	}
	atomicAdd(count, (unsigned long long) below);
}

__global__ void __launch_bounds__(THREADS)
tile_select(const uint32_t *keys, size_t n, uint32_t threshold, uint32_t *out_keys,
			unsigned long long *out_ids, unsigned long long *count)
{
	__shared__ unsigned int warp_counts[WARPS];
	__shared__ unsigned long long tile_base;
	const size_t stride = (size_t) gridDim.x * TILE;
	const int	warp = threadIdx.x >> 5;
	const unsigned int lanes_below = (1u << (threadIdx.x & 31)) - 1u;
	uint32_t	key[ITEMS];

	load_tile(key, keys, blockIdx.x * (size_t) TILE, n);
	for (size_t base = blockIdx.x * (size_t) TILE; base < n; base += stride)
	{
		uint32_t	next[ITEMS];
		unsigned int mine = 0;
		unsigned int before = 0;
		unsigned int total = 0;

		load_tile(next, keys, base + stride, n);
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
			mine += key[j] < threshold;
		mine = __reduce_add_sync(0xffffffffu, mine);
		if ((threadIdx.x & 31) == 0)
			warp_counts[warp] = mine;
		__syncthreads();
		for (int w = 0; w < WARPS; w++)
		{
			before += w < warp ? warp_counts[w] : 0u;
			total += warp_counts[w];
		}
		if (threadIdx.x == 0)
			tile_base = atomicAdd(count, (unsigned long long) total);
		__syncthreads();

		unsigned long long at = tile_base + before;

#pragma unroll
		for (int j = 0; j < ITEMS; j++)
		{
			const unsigned int mask = __ballot_sync(0xffffffffu, key[j] < threshold);

			if (key[j] < threshold)
			{
				const unsigned long long to = at + __popc(mask & lanes_below);

				out_keys[to] = key[j];
				out_ids[to] = base + (size_t) j * THREADS + threadIdx.x;
			}
			at += __popc(mask);
			key[j] = next[j];
		}
		__syncthreads();		/* warp_counts and tile_base are reused */
	}
}

int
main()
{
	const size_t n = (size_t) 1 << 30;
	const size_t room = n / 4 + n / 16;	/* the keys below 0.25, with room to spare */
	const uint32_t threshold = 0x80000000u | 0x3E800000u;	/* 0.25f in key order */
	int			multiprocessors = 0;
	uint32_t   *keys;
	uint32_t   *out_keys;
	unsigned long long *out_ids;
	unsigned long long *count;
	cudaEvent_t start;
	cudaEvent_t stop;
	cudaDeviceProp prop;

	CHECK(cudaGetDeviceProperties(&prop, 0));
	multiprocessors = prop.multiProcessorCount;
	CHECK(cudaMalloc(&keys, n * sizeof(uint32_t)));
	CHECK(cudaMalloc(&out_keys, room * sizeof(uint32_t)));
	CHECK(cudaMalloc(&out_ids, room * sizeof(unsigned long long)));
	CHECK(cudaMalloc(&count, sizeof(unsigned long long)));
	CHECK(cudaEventCreate(&start));
	CHECK(cudaEventCreate(&stop));
	printf("# filter_traffic_probe on %s: 2^30 float keys, k about n/4, median of 7 runs\n",
		   prop.name);

	auto time_it = [&](const char *name, auto launch) -> int {
		std::vector<float> times;
		unsigned long long counted = 0;

		for (int run = 0; run < 9; run++)
		{
			float		ms;

			generate_keys<<<4096, THREADS>>>(keys, n, (uint32_t) run + 3);
			CHECK(cudaMemset(count, 0, sizeof(unsigned long long)));
			CHECK(cudaDeviceSynchronize());
			CHECK(cudaEventRecord(start));
			launch();
			CHECK(cudaEventRecord(stop));
			CHECK(cudaEventSynchronize(stop));
			CHECK(cudaGetLastError());
			CHECK(cudaEventElapsedTime(&ms, start, stop));
			if (run >= 2)
				times.push_back(ms);
		}
		CHECK(cudaMemcpy(&counted, count, sizeof(counted), cudaMemcpyDeviceToHost));
		std::sort(times.begin(), times.end());
		printf("%-44s %8.3f ms  (keys below 0.25 counted: %llu)\n", name, times[times.size() / 2],
			   counted);
		return 0;
	};

	for (int blocks_per_sm : {3, 8})
	{
		const unsigned int grid = (unsigned int) (multiprocessors * blocks_per_sm);
		char		name[64];

		snprintf(name, sizeof(name), "read only, %d blocks a multiprocessor", blocks_per_sm);
		if (time_it(name, [&] { read_only<<<grid, THREADS>>>(keys, n, threshold, count); }))
			return 1;
		snprintf(name, sizeof(name), "tile select, %d blocks a multiprocessor", blocks_per_sm);
		if (time_it(name, [&] {
				tile_select<<<grid, THREADS>>>(keys, n, threshold, out_keys, out_ids, count);
			}))
			return 1;
	}
	if (time_it("device copy of 2^28 x 12 bytes", [&] {
			(void) cudaMemcpyAsync(out_ids, keys, (n / 4) * sizeof(unsigned long long),
								   cudaMemcpyDeviceToDevice);
			(void) cudaMemcpyAsync(out_keys, keys + n / 2, (n / 4) * sizeof(uint32_t),
								   cudaMemcpyDeviceToDevice);
		}))
		return 1;
	return 0;
}
