/*
 * cluster_probe.cu
 *	  A one-kernel selection for small k on Hopper, built to measure, against the engine's own call
 *	  (radik_gpu_small.cuh's three launches) on the same keys in the same loop, and a bare read.
 *
 * The question: can one launch, whose blocks share their candidates through a thread block
 * cluster's distributed shared memory, bring the issue-6 batch line (16 segments of 2^20
 * float32, k = 2048 each) to 10x torch.topk (0.031 ms)?  The kernel below:
 *   1. every block of the cluster draws the same strided sample of the segment (SMALL_SAMPLE
 *      keys) and finds the same threshold as small_threshold_kernel would (block_radix_pick is
 *      deterministic), while its first tile of keys is already loading;
 *   2. each block reads its tiles of the segment (tile t goes to block t mod CLUSTER_BLOCKS) and
 *      keeps every key at or below the threshold, with its index, in its own shared memory (up
 *      to CLUSTER_CAPACITY; beyond that it only counts);
 *   3. each block sorts its candidates (a bitonic network in shared memory; a first build's
 *      cub::BlockRadixSort of 2048 slots on the bits they do not share took as long);
 *   4. after a cluster barrier every block reads the others' counts: when none overflowed and
 *      they hold at least k keys, the candidates are every key at or below the threshold, so
 *      their k smallest are the answer.  Each candidate's rank in the whole is its rank in its
 *      block plus, for every other block, how many of that block's sorted keys come before it
 *      (a binary search in a copy of that block's keys, fetched from its shared memory into
 *      this block's: a first build that searched the other blocks' memory in place took three
 *      times as long, a remote load a step; equal keys are ordered by block,
 *      then by position), and it is written straight to that rank when the rank is below k.
 *      Otherwise block 0 sets the caller's miss flag and the caller runs the three-kernel path.
 * Exactness never rests on the sample, as in radik_gpu_small.cuh: a threshold too low or too high
 * costs a second path's time, never a wrong answer.
 *
 * Measured and not put into the engine (docs/performance.md, fifteenth session): it is exact on
 * every run but no faster than the three launches; its phase marks say where the time goes.
 *
 * Fresh keys every run (engine_bench's generator), CUDA events around each, medians after
 * warm-ups.  Every run of the cluster kernel is checked against the engine's answer: keys equal
 * entry by entry, every id naming an input entry with its key.  Build: make with_llvm=no
 * test/engine/cluster_probe.  Usage: cluster_probe [segments log2_length k key_bytes reps]; the
 * defaults are the issue's batch line.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "radik_engine.h"
#include "radik_gpu_device.cuh"
#include "radik_keys.h"
#include "radik_gpu_small.cuh"

#include "bench_keys.cuh"
#include "probe_common.cuh"

/*
 * Segment 0's phase marks: thread 0 of each of its blocks writes the global timer at the start
 * and after each step (trace[block * 8 + mark]), when the caller passes trace.
 */
#define TRACE(n) \
	do { \
		if (trace && blockIdx.y == 0 && threadIdx.x == 0) \
		{ \
			unsigned long long now_; \
			asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now_)); \
			trace[cluster.block_rank() * 8 + (n)] = now_; \
		} \
	} while (0)

namespace radik
{

constexpr int CLUSTER_BLOCKS = 8;		/* the portable cluster size */
constexpr int CLUSTER_THREADS = 512;
constexpr int CLUSTER_CAPACITY = 1024;	/* candidates a block holds (a power of two) */

template <typename Key>
struct ClusterShared
{
	Key			keys[CLUSTER_CAPACITY];		/* the block's candidates, sorted in step 3 */
	uint32_t	index[CLUSTER_CAPACITY];	/* their positions in the segment */
	Key			others[CLUSTER_BLOCKS][CLUSTER_CAPACITY];	/* every block's sorted keys */
	typename cub::BlockReduce<Key, CLUSTER_THREADS>::TempStorage reduce;
	unsigned int histogram[INNER_BINS];
	unsigned int chosen[3];
	unsigned int count;						/* candidates found, held or not */
	unsigned int counts[CLUSTER_BLOCKS];	/* every block's, read after the barrier */
	Key			bounds[2];
};

/* Keys per thread in a tile of the cluster kernel: 32 bytes, loaded striped across the block. */
template <typename Key>
struct ClusterTile
{
	static constexpr int ITEMS = 32 / (int) sizeof(Key);
	static constexpr int SIZE = ITEMS * CLUSTER_THREADS;
};

/*
 * Sort the block's n held candidates by (key, position) with a bitonic network in shared
 * memory, padded to a power of two with entries that sort last.  A few hundred entries: a
 * radix sort's passes over the key's bits cost more barriers than the network's stages.
 */
template <typename Key>
__device__ __forceinline__ void
sort_held(Key *keys, uint32_t *index, unsigned int n)
{
	unsigned int width = 32;

	while (width < n)
		width <<= 1;
	for (unsigned int i = n + threadIdx.x; i < width; i += CLUSTER_THREADS)
	{
		keys[i] = (Key) ~(Key) 0;
		index[i] = ~0u;			/* above every position: after a real key equal to the padding */
	}
	__syncthreads();
	for (unsigned int run = 2; run <= width; run <<= 1)
	{
		for (unsigned int gap = run >> 1; gap > 0; gap >>= 1)
		{
			for (unsigned int t = threadIdx.x; t < width / 2; t += CLUSTER_THREADS)
			{
				const unsigned int i = 2 * t - (t & (gap - 1));
				const unsigned int l = i + gap;
				const Key	ki = keys[i];
				const Key	kl = keys[l];
				const uint32_t xi = index[i];
				const uint32_t xl = index[l];
				const bool	l_first = kl < ki || (kl == ki && xl < xi);

				if (l_first == ((i & run) == 0))
				{
					keys[i] = kl;
					keys[l] = ki;
					index[i] = xl;
					index[l] = xi;
				}
			}
			__syncthreads();
		}
	}
}

/*
 * How many of the n sorted keys come before key: those below it, and (before_ties) those equal
 * to it too.  Branch-free, a fixed number of steps.
 */
template <typename Key>
__device__ __forceinline__ unsigned int
count_before(const Key *sorted, unsigned int n, Key key, bool before_ties)
{
	unsigned int position = 0;

#pragma unroll
	for (unsigned int step = CLUSTER_CAPACITY; step > 0; step >>= 1)
	{
		if (position + step <= n)
		{
			const Key	other = sorted[position + step - 1];

			if (other < key || (before_ties && other == key))
				position += step;
		}
	}
	return position;
}

extern __shared__ __align__(16) unsigned char cluster_select_shared[];

template <typename Key>
__global__ void __launch_bounds__(CLUSTER_THREADS, 2)
cluster_select_kernel(SelectArgs<Key> a, Key *sorted_keys, uint64_t *sorted_ids,
					  unsigned int *miss, unsigned long long *trace)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
	constexpr int ITEMS = ClusterTile<Key>::ITEMS;
	constexpr int TILE = ClusterTile<Key>::SIZE;
	constexpr int SAMPLE_ITEMS = SMALL_SAMPLE / CLUSTER_THREADS;
	namespace cg = cooperative_groups;
	ClusterShared<Key> &sh = *reinterpret_cast<ClusterShared<Key> *>(cluster_select_shared);
	cg::cluster_group cluster = cg::this_cluster();
	const unsigned int block = cluster.block_rank();
	const int	s = blockIdx.y + a.segment_base;
	const unsigned long long begin = a.seg_offsets[s];
	const unsigned long long length = a.seg_offsets[s + 1] - begin;
	const unsigned long long k = a.seg_ks[s] < length ? a.seg_ks[s] : length;

	if (k == 0)
		return;					/* the whole cluster: it touches no other block's memory */

	const Key  *keys = a.keys + begin;
	const unsigned long long stride = (unsigned long long) CLUSTER_BLOCKS * TILE;
	Key			key[ITEMS];

	TRACE(0);
	/* 1. the first tile loads while the threshold is found */
	load_striped<CLUSTER_THREADS>(key, keys, (unsigned long long) block * TILE, length);

	const unsigned long long wanted = small_threshold_rank(k, length);
	Key			threshold = (Key) ~(Key) 0;

	if (threadIdx.x == 0)
		sh.count = 0;
	if (length > SMALL_CAPACITY && wanted < SMALL_SAMPLE)
	{
		Key			sample[SAMPLE_ITEMS];

		load_sample<Key, CLUSTER_THREADS, SAMPLE_ITEMS>(sample, keys, length, sh.reduce,
														  sh.bounds);
		threshold = block_radix_pick<Key, CLUSTER_THREADS, SAMPLE_ITEMS>(
			sample, SMALL_SAMPLE, sh.bounds[0], sh.bounds[1], (unsigned int) wanted, 2, false,
			sh.histogram, sh.chosen).upper();
	}
	__syncthreads();
	TRACE(1);

	/* 2. this block's tiles: candidates into shared memory, one shared atomic a warp and item */
	const unsigned int lanes_below = (1u << (threadIdx.x & 31)) - 1u;

	for (unsigned long long base = (unsigned long long) block * TILE; base < length;
		 base += stride)
	{
		Key			next[ITEMS];

		load_striped<CLUSTER_THREADS>(next, keys, base + stride, length);
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
		{
			const unsigned long long i = base + (unsigned long long) j * CLUSTER_THREADS +
				threadIdx.x;
			const bool	take = i < length && key[j] <= threshold;
			const unsigned int mask = __ballot_sync(0xffffffffu, take);

			if (mask == 0)
				continue;

			const int	leader = __ffs(mask) - 1;
			unsigned int at = 0;

			if ((int) (threadIdx.x & 31) == leader)
				at = atomicAdd(&sh.count, (unsigned int) __popc(mask));
			at = __shfl_sync(0xffffffffu, at, leader) + __popc(mask & lanes_below);
			if (take && at < CLUSTER_CAPACITY)
			{
				sh.keys[at] = key[j];
				sh.index[at] = (uint32_t) i;
			}
		}
#pragma unroll
		for (int j = 0; j < ITEMS; j++)
			key[j] = next[j];
	}
	__syncthreads();
	TRACE(2);

	/* 3. sort the held candidates */
	const unsigned int count = sh.count;
	const unsigned int held = count < CLUSTER_CAPACITY ? count : CLUSTER_CAPACITY;

	sort_held<Key>(sh.keys, sh.index, held);
	TRACE(3);

	/* 4. every block's candidates sorted and counted: the verdict */
	cluster.sync();
	TRACE(4);
	if (threadIdx.x < CLUSTER_BLOCKS)
		sh.counts[threadIdx.x] = *cluster.map_shared_rank(&sh.count, threadIdx.x);
	__syncthreads();

	unsigned int total = 0;
	bool		overflow = false;

#pragma unroll
	for (int b = 0; b < CLUSTER_BLOCKS; b++)
	{
		overflow |= sh.counts[b] > (unsigned int) CLUSTER_CAPACITY;
		total += sh.counts[b] < CLUSTER_CAPACITY ? sh.counts[b] : CLUSTER_CAPACITY;
	}
	if (overflow || total < k)
	{
		if (block == 0 && threadIdx.x == 0)
			*miss = 1;
	}
	else
	{
		/* the other blocks' sorted keys, copied here (searching them remotely waits a load a step) */
#pragma unroll 1
		for (int b = 0; b < CLUSTER_BLOCKS; b++)
		{
			if (b == (int) block)
				continue;

			const Key  *remote = cluster.map_shared_rank(sh.keys, b);

			for (unsigned int i = threadIdx.x; i < sh.counts[b]; i += CLUSTER_THREADS)
				sh.others[b][i] = remote[i];
		}
		__syncthreads();
		TRACE(5);

		/* each held candidate's rank in the whole: equal keys ordered by block, then position */
		Key		   *out_keys = sorted_keys + a.out_offsets[s];
		uint64_t   *out_ids = sorted_ids + a.out_offsets[s];
		const uint64_t *ids = a.ids ? a.ids + begin : nullptr;

		for (unsigned int i = threadIdx.x; i < held && i < k; i += CLUSTER_THREADS)
		{
			const Key	mine = sh.keys[i];
			unsigned long long rank = i;

#pragma unroll
			for (int b = 0; b < CLUSTER_BLOCKS; b++)
				if (b != (int) block)
					rank += count_before<Key>(sh.others[b], sh.counts[b], mine, b < (int) block);
			if (rank < k)
			{
				const uint32_t position = sh.index[i];

				out_keys[rank] = mine;
				out_ids[rank] = ids ? ids[position] : (uint64_t) position;
			}
		}
	}
	__syncthreads();
	TRACE(6);
	/* no block leaves while another may still read its shared memory */
	cluster.sync();
	TRACE(7);
#else
	if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0)
		*miss = 1;				/* never launched before Hopper: the caller checks */
#endif
}

}								/* namespace radik */

/* A read of every key, as fast as a plain grid-stride loop goes (the floor). */
template <typename Key>
__global__ void
read_kernel(const Key *keys, unsigned long long n, unsigned long long *sink)
{
	Key			acc = 0;

	for (unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (unsigned long long) gridDim.x * blockDim.x)
		acc ^= keys[i];
	if (acc == (Key) 1)
		atomicAdd(sink, 1ull);
}

/* Entries whose key differs from the reference, or whose id does not hold that key. */
template <typename Key>
__global__ void
compare_kernel(const Key *keys, unsigned long long length, const Key *got_keys,
			   const uint64_t *got_ids, const Key *want_keys, unsigned long long k, int segments,
			   unsigned long long *bad)
{
	const unsigned long long total = k * segments;

	for (unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
		 i < total; i += (unsigned long long) gridDim.x * blockDim.x)
	{
		const unsigned long long s = i / k;
		const uint64_t id = got_ids[i];

		if (got_keys[i] != want_keys[i] || id >= length || keys[s * length + id] != got_keys[i])
			atomicAdd(bad, 1ull);
	}
}

static double
median(std::vector<float> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0.0 : v[v.size() / 2];
}

template <typename Key>
static int
run(int segments, int log_length, unsigned long long k, int reps, int warmups)
{
	const unsigned long long length = 1ull << log_length;
	const unsigned long long n = length * segments;
	Key		   *keys;
	Key		   *engine_keys;
	Key		   *cluster_keys;
	uint64_t   *engine_ids;
	uint64_t   *cluster_ids;
	unsigned long long *device_arrays;
	unsigned long long *scratch;
	unsigned int *miss;
	unsigned long long *trace;
	cudaStream_t stream;
	cudaEvent_t marks[6];
	std::vector<uint64_t> offsets(segments + 1), ks(segments), out_offsets(segments);
	std::vector<unsigned long long> host_arrays(3 * segments + 1);
	std::vector<float> engine_ms, cluster_ms, read_ms, phase[8];
	unsigned long long wrong = 0;
	unsigned int misses = 0;
	radik_error err;

	for (int s = 0; s <= segments; s++)
		offsets[s] = (uint64_t) s * length;
	for (int s = 0; s < segments; s++)
	{
		ks[s] = k;
		out_offsets[s] = (uint64_t) s * k;
	}
	for (int s = 0; s <= segments; s++)
		host_arrays[s] = offsets[s];
	for (int s = 0; s < segments; s++)
	{
		host_arrays[segments + 1 + s] = k;
		host_arrays[2 * segments + 1 + s] = out_offsets[s];
	}
	CHECK_CUDA(cudaStreamCreate(&stream));
	CHECK_CUDA(cudaMalloc(&keys, n * sizeof(Key)));
	CHECK_CUDA(cudaMalloc(&engine_keys, k * segments * sizeof(Key)));
	CHECK_CUDA(cudaMalloc(&cluster_keys, k * segments * sizeof(Key)));
	CHECK_CUDA(cudaMalloc(&engine_ids, k * segments * sizeof(uint64_t)));
	CHECK_CUDA(cudaMalloc(&cluster_ids, k * segments * sizeof(uint64_t)));
	CHECK_CUDA(cudaMalloc(&device_arrays, host_arrays.size() * sizeof(unsigned long long)));
	CHECK_CUDA(cudaMalloc(&scratch, 2 * sizeof(unsigned long long)));
	CHECK_CUDA(cudaMalloc(&trace, 64 * sizeof(unsigned long long)));
	CHECK_CUDA(cudaHostAlloc(&miss, sizeof(unsigned int), cudaHostAllocMapped));
	CHECK_CUDA(cudaMemcpy(device_arrays, host_arrays.data(),
						  host_arrays.size() * sizeof(unsigned long long), cudaMemcpyHostToDevice));
	for (int i = 0; i < 6; i++)
		CHECK_CUDA(cudaEventCreate(&marks[i]));

	const size_t shared_bytes = sizeof(radik::ClusterShared<Key>);
	unsigned int *miss_device;
	radik::SelectArgs<Key> a = {};
	cudaLaunchConfig_t launch = {};
	cudaLaunchAttribute cluster_dims;

	CHECK_CUDA(cudaHostGetDevicePointer((void **) &miss_device, miss, 0));
	CHECK_CUDA(cudaFuncSetAttribute(radik::cluster_select_kernel<Key>,
									cudaFuncAttributeMaxDynamicSharedMemorySize,
									(int) shared_bytes));
	a.keys = keys;
	a.ids = nullptr;
	a.seg_offsets = device_arrays;
	a.seg_ks = device_arrays + segments + 1;
	a.out_offsets = device_arrays + 2 * segments + 1;
	a.segments = segments;
	a.segment_base = 0;
	cluster_dims.id = cudaLaunchAttributeClusterDimension;
	cluster_dims.val.clusterDim.x = radik::CLUSTER_BLOCKS;
	cluster_dims.val.clusterDim.y = 1;
	cluster_dims.val.clusterDim.z = 1;
	launch.gridDim = dim3(radik::CLUSTER_BLOCKS, (unsigned int) segments);
	launch.blockDim = dim3(radik::CLUSTER_THREADS);
	launch.dynamicSmemBytes = shared_bytes;
	launch.stream = stream;
	launch.attrs = &cluster_dims;
	launch.numAttrs = 1;

	int			max_clusters = 0;

	CHECK_CUDA(cudaOccupancyMaxActiveClusters(&max_clusters, radik::cluster_select_kernel<Key>,
											  &launch));
	printf("# %d segments of 2^%d, k %llu, %zu-byte keys: shared %zu bytes, %d clusters at once\n",
		   segments, log_length, k, sizeof(Key), shared_bytes, max_clusters);

	for (int rep = 0; rep < warmups + reps; rep++)
	{
		float		ms[3];

		generate_kernel<<<4096, 256, 0, stream>>>(sizeof(Key) == 4 ? F32_UNIFORM : I64_UNIFORM, n,
												  (uint32_t) (rep + 1), keys);
		CHECK_CUDA(cudaGetLastError());
		CHECK_CUDA(cudaMemsetAsync(cluster_keys, 0xff, k * segments * sizeof(Key), stream));
		CHECK_CUDA(cudaMemsetAsync(scratch, 0, 2 * sizeof(unsigned long long), stream));
		CHECK_CUDA(cudaStreamSynchronize(stream));
		*miss = 0;

		CHECK_CUDA(cudaEventRecord(marks[0], stream));
		if (radik_gpu_select_on_device((int) sizeof(Key), keys, NULL, (size_t) segments,
									   offsets.data(), ks.data(), out_offsets.data(),
									   engine_keys, engine_ids, stream, &err) != RADIK_OK)
		{
			printf("engine: %s\n", err.message);
			return 1;
		}
		CHECK_CUDA(cudaEventRecord(marks[1], stream));
		CHECK_CUDA(cudaEventRecord(marks[2], stream));
		CHECK_CUDA(cudaLaunchKernelEx(&launch, radik::cluster_select_kernel<Key>, a, cluster_keys,
									  cluster_ids, miss_device, trace));
		CHECK_CUDA(cudaEventRecord(marks[3], stream));
		CHECK_CUDA(cudaEventRecord(marks[4], stream));
		read_kernel<Key><<<132 * 8, 256, 0, stream>>>(keys, n, scratch);
		CHECK_CUDA(cudaEventRecord(marks[5], stream));
		compare_kernel<Key><<<256, 256, 0, stream>>>(keys, length, cluster_keys, cluster_ids,
													  engine_keys, k, segments, scratch + 1);
		CHECK_CUDA(cudaStreamSynchronize(stream));
		for (int i = 0; i < 3; i++)
			CHECK_CUDA(cudaEventElapsedTime(&ms[i], marks[2 * i], marks[2 * i + 1]));

		unsigned long long bad;

		CHECK_CUDA(cudaMemcpy(&bad, scratch + 1, sizeof(bad), cudaMemcpyDeviceToHost));
		{
			unsigned long long t[64];

			CHECK_CUDA(cudaMemcpy(t, trace, sizeof(t), cudaMemcpyDeviceToHost));
			for (int p = 1; p < 8; p++)
			{
				double		d = 0;

				for (int b = 0; b < radik::CLUSTER_BLOCKS; b++)
					d = std::max(d, (double) (t[b * 8 + p] - t[b * 8 + p - 1]) / 1000.0);
				phase[p].push_back((float) d);
			}
		}
		misses += *(volatile unsigned int *) miss != 0;
		if (*(volatile unsigned int *) miss == 0)
			wrong += bad != 0;
		if (rep >= warmups)
		{
			engine_ms.push_back(ms[0]);
			cluster_ms.push_back(ms[1]);
			read_ms.push_back(ms[2]);
		}
	}
	printf("engine %.4f ms, cluster kernel %.4f ms, bare read %.4f ms (median of %d); "
		   "%u miss(es), %llu wrong run(s)\n",
		   median(engine_ms), median(cluster_ms), median(read_ms), reps, misses, wrong);
	printf("segment 0's phases, the slowest block, us: threshold %.2f, filter %.2f, sort %.2f, "
		   "barrier %.2f, copy %.2f, ranks %.2f, last barrier %.2f\n", median(phase[1]),
		   median(phase[2]), median(phase[3]), median(phase[4]), median(phase[5]), median(phase[6]),
		   median(phase[7]));
	return wrong != 0;
}

int
main(int argc, char **argv)
{
	const int	segments = argc > 1 ? atoi(argv[1]) : 16;
	const int	log_length = argc > 2 ? atoi(argv[2]) : 20;
	const unsigned long long k = argc > 3 ? strtoull(argv[3], NULL, 10) : 2048;
	const int	key_bytes = argc > 4 ? atoi(argv[4]) : 4;
	const int	reps = argc > 5 ? atoi(argv[5]) : 50;

	return key_bytes == 8 ? run<uint64_t>(segments, log_length, k, reps, 5) :
		run<uint32_t>(segments, log_length, k, reps, 5);
}
