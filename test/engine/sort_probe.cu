/*
 * sort_probe.cu
 *	  What cub's radix sort of a large answer costs on this GPU, by offset width and digit width.
 *
 * The engine sorts a large answer with cub::DeviceRadixSort (sort_pairs in cuda/radik_gpu.cu):
 * for k = n/4 of 2^30 float keys, 2^28 pairs of 4-byte keys with 32-bit positions (or 64-bit
 * ids) on the 30 bits where the keys differ.  cub picks its offset type from the type of the
 * count it is given and tunes its onesweep passes per offset width; this program times, on 2^28
 * fresh pairs (float keys uniform on [0, 0.25) with 22 random bits, as the n/4 answer has them;
 * 64-bit keys with 34 random bits), the sort with a 64-bit count (what the engine passed before
 * the eleventh session), with a 32-bit count (what it passes since), and with onesweep digits of
 * 8 and 10 bits at other block shapes (a policy of our own through cub's DispatchRadixSort;
 * 11-bit digits need more than the 48 kB of static shared memory at any useful block size).
 * Two lines say what other layouts would cost: pairs whose keys differ in 24 bits only (three
 * of cub's passes instead of four), and the key and its 32-bit position packed into one 8-byte
 * key sorted alone on the key's 30 bits.
 *
 * CUDA events around the sort, median of 10 runs after 2 warm-ups, keys regenerated before
 * every run; each result's keys are checked to be in order (the values are not checked).
 * Build and run on a GPU host:
 *   make with_llvm=no test/engine/sort_probe && test/engine/sort_probe
 */
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "probe_common.cuh"

static const u64 ENTRIES = 1ull << 28;
static const size_t TEMP_BYTES = 5ull << 30;

/* How generate draws its keys. */
enum KeyShape
{
	ANSWER_KEYS,				/* as described above (4-byte: 30 bits to sort; 8-byte: 34) */
	KEYS_24_BITS,				/* 4-byte keys with 24 random bits, bits 6 to 29 */
	PACKED_KEYS					/* 8-byte: the 4-byte answer key above its 32-bit position */
};

/* Keys of the given shape, and values 0 .. n-1 (the low 32 bits of them for 64-bit values). */
template <typename Key, typename Value>
__global__ void
generate(Key *keys, Value *values, u64 n, u32 seed, KeyShape shape)
{
	const u64	stride = (u64) gridDim.x * blockDim.x;

	for (u64 i = blockIdx.x * (u64) blockDim.x + threadIdx.x; i < n; i += stride)
	{
		const u32	h = murmur_mix((u32) i * 0x9e3779b9u ^ seed);
		const u32	answer_key = __float_as_uint((float) (h >> 10) * (1.0f / 16777216.0f));

		if (shape == PACKED_KEYS)
			keys[i] = (Key) (((u64) answer_key << 32) | (u32) i);
		else if (shape == KEYS_24_BITS)
			keys[i] = (Key) ((h >> 8) << 6);
		else if (sizeof(Key) == 4)
			keys[i] = (Key) answer_key;
		else
			keys[i] = (Key) ((((u64) murmur_mix(h ^ 0x1234567u) << 32) | h) >> 30);
		if constexpr (!cuda::std::is_same_v<Value, cub::NullType>)
			values[i] = (Value) i;
	}
}

template <typename Key>
__global__ void
count_out_of_order(const Key *keys, u64 n, u64 *count)
{
	const u64	stride = (u64) gridDim.x * blockDim.x;

	for (u64 i = blockIdx.x * (u64) blockDim.x + threadIdx.x; i + 1 < n; i += stride)
		if (keys[i] > keys[i + 1])
			atomicAdd(count, 1ull);
}

/* cub's sm_90 policy with the onesweep pass's digit width and block shape replaced. */
template <int DIGIT_BITS, int THREADS, int ITEMS, typename Key, typename Value, typename Offset>
struct OnesweepShape
{
	using Base = typename cub::detail::radix::policy_hub<Key, Value, Offset>::Policy900;
	struct Policy : cub::ChainedPolicy<900, Policy, Policy>, Base
	{
		using cub::ChainedPolicy<900, Policy, Policy>::Invoke;
		using ActivePolicy = Policy;
		static constexpr bool ONESWEEP = true;
		static constexpr int ONESWEEP_RADIX_BITS = DIGIT_BITS;
		using HistogramPolicy = cub::AgentRadixSortHistogramPolicy<128, 16, 1, Key, DIGIT_BITS>;
		using ExclusiveSumPolicy = cub::AgentRadixSortExclusiveSumPolicy<256, DIGIT_BITS>;
		using OnesweepPolicy = cub::AgentRadixSortOnesweepPolicy<THREADS, ITEMS, Key, 1,
			cub::RADIX_RANK_MATCH_EARLY_COUNTS_ANY, cub::BLOCK_SCAN_RAKING_MEMOIZE,
			cub::RADIX_SORT_STORE_DIRECT, DIGIT_BITS>;
	};
	using MaxPolicy = Policy;
};

template <typename Key, typename Value, typename Offset>
using CubDefault = cub::detail::radix::policy_hub<Key, Value, Offset>;

struct Buffers
{
	void	   *keys;
	void	   *sorted_keys;
	void	   *values;
	void	   *sorted_values;
	void	   *temp;
	u64		   *out_of_order;
};

template <typename Key, typename Value, typename Offset, typename Hub>
static cudaError_t
sort(const Buffers &b, size_t *temp_bytes, int begin_bit, int end_bit)
{
	cub::DoubleBuffer<Key> keys((Key *) b.keys, (Key *) b.sorted_keys);
	cub::DoubleBuffer<Value> values((Value *) b.values, (Value *) b.sorted_values);

	return cub::DispatchRadixSort<cub::SortOrder::Ascending, Key, Value, Offset,
								  cub::detail::identity_decomposer_t, Hub>::
		Dispatch(*temp_bytes ? b.temp : nullptr, *temp_bytes, keys, values, (Offset) ENTRIES,
				 begin_bit, end_bit, false, 0);
}

template <typename Key, typename Value, typename Offset, typename Hub>
static int
time_sort(const char *label, const Buffers &b, KeyShape shape = ANSWER_KEYS)
{
	const int	begin_bit = shape == PACKED_KEYS ? 32 : shape == KEYS_24_BITS ? 6 : 0;
	const int	end_bit = shape == PACKED_KEYS ? 62 : sizeof(Key) == 4 ? 30 : 34;
	size_t		temp_bytes = 0;
	std::vector<float> times;
	cudaEvent_t start, stop;
	u64			out_of_order;

	CHECK_CUDA((sort<Key, Value, Offset, Hub>(b, &temp_bytes, begin_bit, end_bit)));
	if (temp_bytes > TEMP_BYTES)
	{
		printf("%-34s needs %zu bytes of workspace, skipped\n", label, temp_bytes);
		return 0;
	}
	CHECK_CUDA(cudaEventCreate(&start));
	CHECK_CUDA(cudaEventCreate(&stop));
	for (int run = 0; run < 12; run++)
	{
		float		ms;

		generate<<<1024, 256>>>((Key *) b.keys, (Value *) b.values, ENTRIES, 77 + run, shape);
		CHECK_CUDA(cudaEventRecord(start));
		CHECK_CUDA((sort<Key, Value, Offset, Hub>(b, &temp_bytes, begin_bit, end_bit)));
		CHECK_CUDA(cudaEventRecord(stop));
		CHECK_CUDA(cudaEventSynchronize(stop));
		CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
		if (run >= 2)
			times.push_back(ms);
	}
	CHECK_CUDA(cudaMemset(b.out_of_order, 0, sizeof(u64)));
	count_out_of_order<<<1024, 256>>>((const Key *) b.sorted_keys, ENTRIES, b.out_of_order);
	CHECK_CUDA(cudaMemcpy(&out_of_order, b.out_of_order, sizeof(u64), cudaMemcpyDeviceToHost));
	std::sort(times.begin(), times.end());
	printf("%-34s 2^28 entries on %d bits: median %.3f ms (min %.3f, max %.3f)%s\n", label,
		   end_bit - begin_bit,
		   times[times.size() / 2], times.front(), times.back(),
		   out_of_order ? " NOT IN ORDER" : "");
	return out_of_order != 0;
}

int
main(void)
{
	Buffers		b;
	int			failed = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	CHECK_CUDA(cudaMalloc(&b.keys, ENTRIES * 8));
	CHECK_CUDA(cudaMalloc(&b.sorted_keys, ENTRIES * 8));
	CHECK_CUDA(cudaMalloc(&b.values, ENTRIES * 8));
	CHECK_CUDA(cudaMalloc(&b.sorted_values, ENTRIES * 8));
	CHECK_CUDA(cudaMalloc(&b.temp, TEMP_BYTES));
	CHECK_CUDA(cudaMalloc(&b.out_of_order, sizeof(u64)));

	failed |= time_sort<u32, u32, u64, CubDefault<u32, u32, u64>>("4+4 bytes, 64-bit count", b);
	failed |= time_sort<u32, u32, u32, CubDefault<u32, u32, u32>>("4+4 bytes, 32-bit count", b);
	failed |= time_sort<u64, u32, u64, CubDefault<u64, u32, u64>>("8+4 bytes, 64-bit count", b);
	failed |= time_sort<u64, u32, u32, CubDefault<u64, u32, u32>>("8+4 bytes, 32-bit count", b);
	failed |= time_sort<u32, u64, u64, CubDefault<u32, u64, u64>>("4+8 bytes, 64-bit count", b);
	failed |= time_sort<u32, u64, u32, CubDefault<u32, u64, u32>>("4+8 bytes, 32-bit count", b);
	failed |= time_sort<u32, u32, u32, OnesweepShape<8, 384, 23, u32, u32, u32>>(
		"4+4, 32-bit, 8-bit digits 384x23", b);
	failed |= time_sort<u32, u32, u32, OnesweepShape<8, 512, 20, u32, u32, u32>>(
		"4+4, 32-bit, 8-bit digits 512x20", b);
	failed |= time_sort<u32, u32, u32, OnesweepShape<10, 256, 23, u32, u32, u32>>(
		"4+4, 32-bit, 10-bit digits 256x23", b);
	failed |= time_sort<u32, u32, u32, OnesweepShape<10, 256, 19, u32, u32, u32>>(
		"4+4, 32-bit, 10-bit digits 256x19", b);
	failed |= time_sort<u32, u32, u32, CubDefault<u32, u32, u32>>("4+4 bytes, 32-bit, 24 bits", b,
																	KEYS_24_BITS);
	failed |= time_sort<u64, cub::NullType, u32, CubDefault<u64, cub::NullType, u32>>(
		"8 bytes key|position alone, 32-bit", b, PACKED_KEYS);
	return failed;
}
