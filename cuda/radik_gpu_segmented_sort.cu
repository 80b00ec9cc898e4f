/*
 * radik_gpu_segmented_sort.cu
 *	  The final sort of a selection of many segments: cub's segmented sort of each segment's
 *	  answer, and the workspace it needs.  A file of its own because cub's segmented sort is most
 *	  of the CUDA build (about 39 of its 72 seconds on one core), so that make -j compiles it
 *	  beside everything else.  The workspace query passes const segment offsets and the sort
 *	  non-const ones, so cub instantiates its kernels for both types; only the second set runs.
 */
#include <cub/device/device_segmented_sort.cuh>

#include "radik_gpu_internal.cuh"

using namespace radik;

template <typename Key>
radik_status
radik::segmented_sort_temp_bytes(uint64_t total_out, size_t segments, size_t *bytes,
								 radik_error *err)
{
	CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(nullptr, *bytes, (const Key *) nullptr,
												 (Key *) nullptr, (const uint64_t *) nullptr,
												 (uint64_t *) nullptr, (int64_t) total_out,
												 (int64_t) segments,
												 (const unsigned long long *) nullptr,
												 (const unsigned long long *) nullptr));
	return RADIK_OK;
}

template <typename Key>
radik_status
radik::sort_segments(Workspace *ws, cudaStream_t stream, const Key *keys, const uint64_t *ids,
					 Key *sorted_keys, uint64_t *sorted_ids, uint64_t total_out, size_t segments,
					 unsigned long long *begins, unsigned long long *ends, radik_error *err)
{
	size_t		temp_bytes = ws->sort_temp.bytes;

	CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(ws->sort_temp.ptr, temp_bytes, keys, sorted_keys,
												 ids, sorted_ids, (int64_t) total_out,
												 (int64_t) segments, begins, ends, stream));
	return RADIK_OK;
}

/* The two key widths, for the other files (the definitions above stay in this one). */
#define RADIK_SEGMENTED_SORT_INSTANCES(Key) \
	template radik_status radik::segmented_sort_temp_bytes<Key>(uint64_t, size_t, size_t *, \
																radik_error *); \
	template radik_status radik::sort_segments<Key>(Workspace *, cudaStream_t, const Key *, \
													const uint64_t *, Key *, uint64_t *, uint64_t, \
													size_t, unsigned long long *, \
													unsigned long long *, radik_error *);
RADIK_SEGMENTED_SORT_INSTANCES(uint32_t)
RADIK_SEGMENTED_SORT_INSTANCES(uint64_t)
