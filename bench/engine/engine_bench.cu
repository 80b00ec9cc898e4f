/*
 * engine_bench.cu
 *	  Times the CUDA engine's selection on keys already on the device, and checks its answers.
 *
 * For each case (distribution, n, k, segments) the keys are generated fresh on the device before
 * every run (a hash of the index and the run's seed: never zeros, never the same data twice),
 * then one selection (sample, histograms, filters, final sort) is timed with CUDA events around
 * radik_gpu_select_on_device; the median of the timed runs after warm-up is reported.  The first
 * timed run of each case with n <= 2^28 is also checked against a full sort of the same keys
 * (cub), key for key, and every returned id must point at an input entry with that key.
 *
 * The generator is simple enough to be repeated exactly in PyTorch (torch_topk_bench.py), so
 * torch.topk is timed on the same inputs; run_bench.sh runs both and joins them.
 *
 *   engine_bench [--list] [--reps N] [--warmups N] [--max-log-n N] [--no-check] [--variants]
 *                [--unsorted] [--case ID,...]
 *
 * --list prints the cases (one per line: id dist log2(n) k segments) for the torch script.
 * --variants also times the engine without its one-pass small-k path (the general rounds, with
 * their speculative first pass), without that speculative pass either (histogram pass, then
 * filter pass, as the paper), and that with warp-aggregated (match_any) histogram atomics.
 * --unsorted also times the selection without its final sort (the k smallest in no order, what
 * torch.topk(sorted=False) returns), checked after sorting its answer outside the timing.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "radik_engine.h"
#include "radik_gpu_device.cuh"
#include "radik_gpu_switches.h"
#include "radik_keys.h"

#include "bench_keys.cuh"

#define CHECK(call) \
	do { \
		cudaError_t e_ = (call); \
		if (e_ != cudaSuccess) \
		{ \
			fprintf(stderr, "engine_bench: %s: %s (line %d)\n", #call, cudaGetErrorString(e_), \
					__LINE__); \
			return 1; \
		} \
	} while (0)

struct Case
{
	int			dist;
	int			log_n;			/* total keys 2^log_n */
	unsigned long long k;		/* per segment */
	int			segments;
};

/* Counts entries whose key differs from the reference or whose id does not hold that key. */
template <typename Key>
__global__ void
check_kernel(const Key *keys, const unsigned long long *seg_offsets, const Key *got_keys,
			 const uint64_t *got_ids, const Key *reference, const unsigned long long *out_offsets,
			 const unsigned long long *ref_offsets, unsigned long long count_per_segment,
			 int segments, unsigned long long *bad)
{
	const unsigned long long total = count_per_segment * segments;

	for (unsigned long long t = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
		 t < total; t += (unsigned long long) gridDim.x * blockDim.x)
	{
		const int	s = (int) (t / count_per_segment);
		const unsigned long long j = t % count_per_segment;
		const Key	key = got_keys[out_offsets[s] + j];
		const uint64_t id = got_ids[out_offsets[s] + j];
		const unsigned long long length = seg_offsets[s + 1] - seg_offsets[s];

		if (key != reference[ref_offsets[s] + j] || id >= length ||
			keys[seg_offsets[s] + id] != key)
			atomicAdd(bad, 1ull);
	}
}

static std::vector<Case>
all_cases(int max_log_n)
{
	std::vector<Case> cases;
	const int	log_ns[] = {20, 24, 28, 30};

	for (int dist = F32_UNIFORM; dist <= I64_UNIFORM; dist++)
		for (int log_n : log_ns)
		{
			const unsigned long long n = 1ull << log_n;
			const unsigned long long ks[] = {16, 1024, 65536, n / 4};

			if (log_n > max_log_n)
				continue;
			for (unsigned long long k : ks)
				if (k < n && (k != 65536 || n / 4 != 65536))
					cases.push_back({dist, log_n, k, 1});
		}
	/* narrow floats and int64 at 2^28, and Zipf(1.1) for exactness on heavy ties */
	if (28 <= max_log_n)
	{
		cases.push_back({F32_NARROW, 28, 512, 1});
		cases.push_back({I64_UNIFORM, 28, 1024, 1});
		cases.push_back({I64_ZIPF, 28, 1024, 1});
		cases.push_back({I64_ZIPF, 28, 65536, 1});
	}
	cases.push_back({I64_ZIPF, 24, 1024, 1});
	cases.push_back({F32_UNIFORM, 24, 2048, 16});
	return cases;
}

template <typename Key>
static int
check_case(const Case &c, const void *keys, const uint64_t *offsets, const uint64_t *out_offsets,
		   const void *got_keys, const uint64_t *got_ids, unsigned long long *mismatches)
{
	const unsigned long long n = 1ull << c.log_n;
	const unsigned long long length = n / c.segments;
	const unsigned long long count = std::min<unsigned long long>(c.k, length);
	Key		   *sorted = NULL;
	void	   *temp = NULL;
	size_t		temp_bytes = 0;
	unsigned long long *device_arrays = NULL;
	std::vector<unsigned long long> host_arrays(3 * c.segments + 1);

	for (int s = 0; s <= c.segments; s++)
		host_arrays[s] = offsets[s];
	for (int s = 0; s < c.segments; s++)
		host_arrays[c.segments + 1 + s] = out_offsets[s];
	for (int s = 0; s < c.segments; s++)
		host_arrays[2 * c.segments + 1 + s] = offsets[s];
	CHECK(cudaMalloc(&sorted, n * sizeof(Key)));
	CHECK(cudaMalloc(&device_arrays, host_arrays.size() * sizeof(unsigned long long) + 8));
	CHECK(cudaMemcpy(device_arrays, host_arrays.data(),
					 host_arrays.size() * sizeof(unsigned long long), cudaMemcpyHostToDevice));
	if (c.segments == 1)
	{
		CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, (const Key *) keys, sorted, n));
		CHECK(cudaMalloc(&temp, temp_bytes));
		CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, (const Key *) keys, sorted, n));
	}
	else
	{
		CHECK(cub::DeviceSegmentedSort::SortKeys(temp, temp_bytes, (const Key *) keys, sorted,
												 (int64_t) n, (int64_t) c.segments, device_arrays,
												 device_arrays + 1));
		CHECK(cudaMalloc(&temp, temp_bytes));
		CHECK(cub::DeviceSegmentedSort::SortKeys(temp, temp_bytes, (const Key *) keys, sorted,
												 (int64_t) n, (int64_t) c.segments, device_arrays,
												 device_arrays + 1));
	}
	unsigned long long *bad = (unsigned long long *) device_arrays + host_arrays.size();

	CHECK(cudaMemset(bad, 0, sizeof(unsigned long long)));
	check_kernel<Key><<<1024, 256>>>((const Key *) keys, device_arrays, (const Key *) got_keys,
									 got_ids, sorted, device_arrays + c.segments + 1,
									 device_arrays + 2 * c.segments + 1, count, c.segments, bad);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(mismatches, bad, sizeof(unsigned long long), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(sorted));
	CHECK(cudaFree(temp));
	CHECK(cudaFree(device_arrays));
	return 0;
}

/* Sorts an unsorted answer (segment s's count entries at out_offsets[s]) in place, by key. */
template <typename Key>
static int
sort_answer(const Case &c, const uint64_t *out_offsets, unsigned long long count, void *got_keys,
			uint64_t *got_ids)
{
	const unsigned long long total = count * c.segments;
	Key		   *keys_copy = NULL;
	uint64_t   *ids_copy = NULL;
	void	   *temp = NULL;
	size_t		temp_bytes = 0;
	unsigned long long *bounds = NULL;
	std::vector<unsigned long long> host_bounds(c.segments + 1);

	for (int s = 0; s < c.segments; s++)
		host_bounds[s] = out_offsets[s];
	host_bounds[c.segments] = total;
	CHECK(cudaMalloc(&keys_copy, total * sizeof(Key)));
	CHECK(cudaMalloc(&ids_copy, total * sizeof(uint64_t)));
	CHECK(cudaMalloc(&bounds, host_bounds.size() * sizeof(unsigned long long)));
	CHECK(cudaMemcpy(bounds, host_bounds.data(), host_bounds.size() * sizeof(unsigned long long),
					 cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(keys_copy, got_keys, total * sizeof(Key), cudaMemcpyDeviceToDevice));
	CHECK(cudaMemcpy(ids_copy, got_ids, total * sizeof(uint64_t), cudaMemcpyDeviceToDevice));
	for (int pass = 0; pass < 2; pass++)
	{
		CHECK(cub::DeviceSegmentedSort::SortPairs(temp, temp_bytes, (const Key *) keys_copy,
												  (Key *) got_keys, (const uint64_t *) ids_copy,
												  got_ids, (int64_t) total, (int64_t) c.segments,
												  bounds, bounds + 1));
		if (pass == 0)
			CHECK(cudaMalloc(&temp, temp_bytes));
	}
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(keys_copy));
	CHECK(cudaFree(ids_copy));
	CHECK(cudaFree(bounds));
	CHECK(cudaFree(temp));
	return 0;
}

int
main(int argc, char **argv)
{
	int			reps = 10;
	int			warmups = 2;
	int			max_log_n = 30;
	int			list_only = 0;
	int			check = 1;
	int			variants = 0;
	int			unsorted = 0;
	std::vector<int> only;

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--list") == 0)
			list_only = 1;
		else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (strcmp(argv[i], "--max-log-n") == 0 && i + 1 < argc)
			max_log_n = atoi(argv[++i]);
		else if (strcmp(argv[i], "--no-check") == 0)
			check = 0;
		else if (strcmp(argv[i], "--variants") == 0)
			variants = 1;
		else if (strcmp(argv[i], "--unsorted") == 0)
			unsorted = 1;
		else if (strcmp(argv[i], "--warmups") == 0 && i + 1 < argc)
			warmups = atoi(argv[++i]);
		else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc)
		{
			for (char *p = strtok(argv[++i], ","); p; p = strtok(NULL, ","))
				only.push_back(atoi(p));
		}
		else
		{
			fprintf(stderr, "usage: %s [--list] [--reps N] [--warmups N] [--max-log-n N] [--no-check] [--variants] [--unsorted] [--case ID,...]\n",
					argv[0]);
			return 2;
		}
	}
	if (reps < 1)
		reps = 1;

	const std::vector<Case> cases = all_cases(max_log_n);

	if (list_only)
	{
		for (size_t i = 0; i < cases.size(); i++)
			if (only.empty() || std::find(only.begin(), only.end(), (int) i) != only.end())
				printf("%zu %s %d %llu %d\n", i, distribution_names[cases[i].dist], cases[i].log_n,
				   cases[i].k, cases[i].segments);
		return 0;
	}

	radik_error err;
	char		name[RADIK_ERROR_MESSAGE_SIZE];
	int			driver = 0;
	int			runtime = 0;

	if (radik_gpu_probe(name, sizeof(name), &err) != RADIK_OK)
	{
		fprintf(stderr, "engine_bench: no GPU: %s\n", err.message);
		return 1;
	}
	CHECK(cudaDriverGetVersion(&driver));
	CHECK(cudaRuntimeGetVersion(&runtime));
	printf("# engine_bench on %s, CUDA driver API %d, runtime %d; median of %d runs after %d warm-ups\n",
		   name, driver, runtime, reps, warmups);
	printf("# id\tinput\tn\tk\tsegments\tradik_ms\trounds_ms\ttwo_pass_ms\twarp_hist_ms\tcheck"
		   "\tunsorted_ms\n");

	size_t		max_bytes = 0;

	for (const Case &c : cases)
		max_bytes = std::max(max_bytes, ((size_t) 1 << c.log_n) * key_bytes_of(c.dist));

	void	   *keys = NULL;
	void	   *out_keys = NULL;
	uint64_t   *out_ids = NULL;
	cudaStream_t stream;
	cudaEvent_t start, stop;
	int			failures = 0;

	CHECK(cudaMalloc(&keys, max_bytes));
	CHECK(cudaStreamCreate(&stream));
	CHECK(cudaEventCreate(&start));
	CHECK(cudaEventCreate(&stop));

	for (size_t ci = 0; ci < cases.size(); ci++)
	{
		const Case &c = cases[ci];

		if (!only.empty() && std::find(only.begin(), only.end(), (int) ci) == only.end())
			continue;

		const unsigned long long n = 1ull << c.log_n;
		const unsigned long long length = n / c.segments;
		const unsigned long long count = std::min<unsigned long long>(c.k, length);
		const int	kb = key_bytes_of(c.dist);
		std::vector<uint64_t> offsets(c.segments + 1), ks(c.segments), out_offsets(c.segments);
		const char *verdict = "skipped";
		double		medians[5] = {0, 0, 0, 0, 0};

		for (int s = 0; s <= c.segments; s++)
			offsets[s] = (uint64_t) s * length;
		for (int s = 0; s < c.segments; s++)
		{
			ks[s] = c.k;
			out_offsets[s] = (uint64_t) s * count;
		}
		CHECK(cudaMalloc(&out_keys, count * c.segments * kb));
		CHECK(cudaMalloc(&out_ids, count * c.segments * sizeof(uint64_t)));

		for (int variant = 0; variant < 5; variant++)
		{
			std::vector<float> times;

			if ((variant >= 1 && variant <= 3 && !variants) || (variant == 4 && !unsorted))
				continue;
			/*
			 * 0 as shipped, 1 general rounds, 2 two passes, 3 two passes with match_any,
			 * 4 as shipped without the final sort
			 */
			radik_gpu_set_small_selection(variant == 0 || variant == 4);
			radik_gpu_set_speculation(variant <= 1 || variant == 4);
			radik_gpu_set_warp_aggregate(variant == 3);
			radik_gpu_set_sorted_output(variant != 4);
			for (int rep = 0; rep < warmups + reps; rep++)
			{
				float		ms = 0;

				generate_kernel<<<4096, 256, 0, stream>>>(c.dist, n, (uint32_t) (rep + 1), keys);
				CHECK(cudaGetLastError());
				CHECK(cudaMemsetAsync(out_keys, 0xff, count * c.segments * kb, stream));
				CHECK(cudaEventRecord(start, stream));
				if (radik_gpu_select_on_device(kb, keys, NULL, c.segments, offsets.data(),
											   ks.data(), out_offsets.data(), out_keys, out_ids,
											   stream, &err) != RADIK_OK)
				{
					fprintf(stderr, "engine_bench: case %zu: %s\n", ci, err.message);
					return 1;
				}
				CHECK(cudaEventRecord(stop, stream));
				CHECK(cudaEventSynchronize(stop));
				CHECK(cudaEventElapsedTime(&ms, start, stop));
				if (rep >= warmups)
					times.push_back(ms);
				if (rep == warmups && check && c.log_n <= 28)
				{
					unsigned long long mismatches = 0;
					int			r = variant != 4 ? 0 : kb == 4 ?
						sort_answer<uint32_t>(c, out_offsets.data(), count, out_keys, out_ids) :
						sort_answer<uint64_t>(c, out_offsets.data(), count, out_keys, out_ids);

					if (r != 0)
						return 1;
					r = kb == 4 ?
						check_case<uint32_t>(c, keys, offsets.data(), out_offsets.data(), out_keys,
											 out_ids, &mismatches) :
						check_case<uint64_t>(c, keys, offsets.data(), out_offsets.data(), out_keys,
											 out_ids, &mismatches);

					if (r != 0)
						return 1;
					if (mismatches != 0 || strcmp(verdict, "WRONG") != 0)
						verdict = mismatches == 0 ? "ok" : "WRONG";
					if (mismatches != 0)
					{
						failures++;
						fprintf(stderr, "engine_bench: case %zu: %llu wrong entries\n", ci,
								mismatches);
					}
				}
			}
			std::sort(times.begin(), times.end());
			medians[variant] = times.size() % 2 ? times[times.size() / 2] :
				(times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
		}
		radik_gpu_set_warp_aggregate(0);
		radik_gpu_set_speculation(1);
		radik_gpu_set_small_selection(1);
		radik_gpu_set_sorted_output(1);
		char		rounds[32] = "-";
		char		unsorted_ms[32] = "-";
		char		two_pass[32] = "-";
		char		warp_hist[32] = "-";

		if (variants)
		{
			snprintf(rounds, sizeof(rounds), "%.3f", medians[1]);
			snprintf(two_pass, sizeof(two_pass), "%.3f", medians[2]);
			snprintf(warp_hist, sizeof(warp_hist), "%.3f", medians[3]);
		}
		if (unsorted)
			snprintf(unsorted_ms, sizeof(unsorted_ms), "%.3f", medians[4]);
		printf("%zu\t%s\t2^%d\t%llu\t%d\t%.3f\t%s\t%s\t%s\t%s\t%s\n", ci,
			   distribution_names[c.dist], c.log_n, c.k, c.segments, medians[0], rounds, two_pass,
			   warp_hist, verdict, unsorted_ms);
		fflush(stdout);
		CHECK(cudaFree(out_keys));
		CHECK(cudaFree(out_ids));
	}
	radik_release_cache();
	CHECK(cudaFree(keys));
	printf("# %d case(s) with wrong answers\n", failures);
	return failures ? 1 : 0;
}
