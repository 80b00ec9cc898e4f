/*
 * radik_gpu_select.cu
 *	  The selection's host side: it uploads each segment's offsets and k, then launches the
 *	  kernels of radik_gpu_rounds.cuh, radik_gpu_filter.cuh, radik_gpu_dense_first.cuh and
 *	  radik_gpu_small.cuh for every group of up to 65535 segments, and has radik_gpu_sort.cu sort
 *	  the answer.  It never waits between rounds (each segment's progress lives on the device),
 *	  except for the verdict of the one-pass small-k path.  Also the device-side entry point
 *	  radik_gpu_select_on_device (radik_gpu_device.cuh).
 */
#include "radik_gpu_internal.cuh"
#include "radik_gpu_device.cuh"
#include "radik_gpu_switches.h"
#include "radik_gpu_rounds.cuh"
#include "radik_gpu_filter.cuh"
#include "radik_gpu_dense_first.cuh"
#include "radik_gpu_small.cuh"

using namespace radik;

/*
 * A single segment's sorted answer of at least this many entries whose ids are positions (the
 * caller gave none), in a dense selection (k > n / DENSE_OUTPUT_RATIO: the filters that write
 * it are the dense ones), keeps them as 32-bit indexes until the sort has run: cub sorts 8-byte
 * pairs instead of 12 or 16 bytes (2^28 pairs of 32-bit keys: 10.09 -> 8.27 ms, then 0.93 ms
 * to widen the indexes), and the selection writes 4 bytes less for each.  Smaller answers are
 * not worth a launch more.
 */
#define NARROW_IDS_MIN_ENTRIES (1u << 22)

/* Most segments one launch covers (gridDim.y). */
#define MAX_SEGMENTS_PER_LAUNCH 65535

/*
 * Reserve everything a selection of segments over total_in input entries with total_out output
 * entries needs in ws (except the input).  Call before taking pointers into ws's buffers.
 */
template <typename Key>
radik_status
radik::prepare_selection(Workspace *ws, uint64_t total_in, uint64_t total_out, size_t segments,
						 cudaStream_t stream, radik_error *err)
{
	const uint64_t candidates = total_in > total_out ? total_in : total_out;
	size_t		sort_bytes;

	for (int i = 0; i < 2; i++)
	{
		STATUS_TRY(buffer_reserve(&ws->candidate_keys[i], candidates * sizeof(Key), 0, stream, err));
		STATUS_TRY(buffer_reserve(&ws->candidate_ids[i], candidates * sizeof(uint64_t), 0, stream, err));
	}
	STATUS_TRY(buffer_reserve(&ws->out_keys, total_out * sizeof(Key), 0, stream, err));
	STATUS_TRY(buffer_reserve(&ws->out_ids, total_out * sizeof(uint64_t), 0, stream, err));
	STATUS_TRY(buffer_reserve(&ws->states, segments * sizeof(SegmentState), 0, stream, err));
	STATUS_TRY(buffer_reserve(&ws->histograms,
							  2 * segments * BINS * sizeof(unsigned long long), 0, stream, err));
	STATUS_TRY(buffer_reserve(&ws->segment_arrays,
							  (4 * segments + 1) * sizeof(unsigned long long), 0, stream, err));
	STATUS_TRY(buffer_reserve(&ws->scalar, 2 * sizeof(unsigned long long), 0, stream, err));
	STATUS_TRY(sort_temp_bytes<Key>(total_out, segments, &sort_bytes, err));
	STATUS_TRY(buffer_reserve(&ws->sort_temp, sort_bytes, 0, stream, err));
	return RADIK_OK;
}

/*
 * Whether the one-pass small selection (radik_gpu_small.cuh) suits every segment: lengths that
 * fit its 32-bit indexes, and a threshold whose expected candidates fill at most half of its
 * capacity (a miss is then a rare event of many sigmas; segments that fit whole always suit).
 */
static bool
small_selection_suits(size_t segments, const uint64_t *offsets, const uint64_t *ks)
{
	for (size_t s = 0; s < segments; s++)
	{
		const uint64_t length = offsets[s + 1] - offsets[s];
		const uint64_t k = ks[s] < length ? ks[s] : length;

		if (k == 0 || length <= (uint64_t) SMALL_CAPACITY)
			continue;
		if (length > UINT32_MAX)
			return false;

		const uint64_t rank = small_threshold_rank(k, length);

		if (rank >= (uint64_t) SMALL_SAMPLE ||
			(double) (rank + 2) * (double) length / SMALL_SAMPLE > SMALL_CAPACITY / 2)
			return false;
	}
	return true;
}

/*
 * The one-pass small selection of every segment, sorted into sorted_keys/sorted_ids; waits for
 * it.  *selected is false when some segment missed (its threshold let through fewer than k keys
 * or more than the capacity): the caller then runs the general selection.
 */
template <typename Key>
static radik_status
run_small_selection(Workspace *ws, cudaStream_t stream, SelectArgs<Key> a, size_t segments,
					uint64_t max_length, Key *sorted_keys, uint64_t *sorted_ids, bool *selected,
					radik_error *err)
{
	*selected = false;
	if (ws->small_miss == NULL)
	{
		STATUS_TRY(mapped_host_alloc((void **) &ws->small_miss, (void **) &ws->small_miss_device,
									 sizeof(unsigned int), err));
	}
	CUDA_TRY(prepare_small_finish<Key>());
	*ws->small_miss = 0;		/* no kernel of this workspace is running: the last one waited */
	for (size_t first = 0; first < segments; first += MAX_SEGMENTS_PER_LAUNCH)
	{
		const size_t here = segments - first < MAX_SEGMENTS_PER_LAUNCH ?
			segments - first : MAX_SEGMENTS_PER_LAUNCH;

		a.segment_base = (int) first;
		CUDA_TRY(launch_small_selection<Key>(a, grid_width<Key>(max_length, here,
																device_info.multiprocessors),
											 (unsigned int) here, sorted_keys, sorted_ids,
											 ws->small_miss_device,
											 device_info.programmatic_launch != 0, stream));
	}
	CUDA_TRY(cudaStreamSynchronize(stream));
	*selected = *(volatile unsigned int *) ws->small_miss == 0;
	return RADIK_OK;
}

/*
 * Select on stream: segment s of keys (offsets[s] .. offsets[s+1], host array) keeps its
 * min(ks[s], length) smallest, written unsorted to out_keys/out_ids at out_offsets[s]; then, if
 * sorted_keys is not NULL, sorted into sorted_keys/sorted_ids at the same offsets.  ws must have
 * been prepared for these sizes; its candidate buffers must not be the input.
 */
template <typename Key>
radik_status
radik::run_selection(Workspace *ws, cudaStream_t stream, const Key *keys, const uint64_t *ids,
					 size_t segments, const uint64_t *offsets, const uint64_t *ks,
					 const uint64_t *out_offsets, Key *out_keys, uint64_t *out_ids,
					 Key *sorted_keys, uint64_t *sorted_ids, radik_error *err)
{
	constexpr int KEY_BITS = (int) sizeof(Key) * 8;
	/*
	 * Round 0 (speculative pass or full window), round 1 (the window, whose outside bins may
	 * send the selection back to the top digit), then at most one round per digit.
	 */
	constexpr int ROUNDS = 2 + KEY_BITS / DIGIT_BITS;
	const radik_gpu_switches switches = radik_gpu_get_switches();
	unsigned long long *host_arrays;
	unsigned long long *device_arrays = (unsigned long long *) ws->segment_arrays.ptr;
	uint64_t	max_length = 0;
	uint64_t	total_out = 0;

	if (segments == 0)
		return RADIK_OK;

	/* offsets, ks, out_offsets, out_ends, uploaded in one copy from pinned staging */
	const size_t entries = 4 * segments + 1;

	if (ws->staging_pending)
	{
		CUDA_TRY(cudaEventSynchronize(ws->staging_copied));
		ws->staging_pending = 0;
	}
	if (ws->staging_capacity < entries)
	{
		if (ws->staging)
			CUDA_TRY(cudaFreeHost(ws->staging));
		ws->staging = NULL;
		ws->staging_capacity = 0;
		CUDA_TRY(cudaHostAlloc((void **) &ws->staging,
							   (entries < 1024 ? 1024 : entries) * sizeof(unsigned long long),
							   cudaHostAllocDefault));
		ws->staging_capacity = entries < 1024 ? 1024 : entries;
	}
	host_arrays = ws->staging;
	for (size_t s = 0; s < segments; s++)
	{
		const uint64_t length = offsets[s + 1] - offsets[s];
		const uint64_t count = ks[s] < length ? ks[s] : length;

		host_arrays[s] = offsets[s];
		host_arrays[segments + 1 + s] = ks[s];
		host_arrays[2 * segments + 1 + s] = out_offsets[s];
		host_arrays[3 * segments + 1 + s] = out_offsets[s] + count;
		if (length > max_length)
			max_length = length;
		if (out_offsets[s] + count > total_out)
			total_out = out_offsets[s] + count;
	}
	host_arrays[segments] = offsets[segments];
	CUDA_TRY(cudaMemcpyAsync(device_arrays, host_arrays, entries * sizeof(unsigned long long),
							 cudaMemcpyHostToDevice, stream));
	CUDA_TRY(cudaEventRecord(ws->staging_copied, stream));
	ws->staging_pending = 1;

	/* filter specialized by k: per-warp write buffers when few keys are written, else block-wide */
	const bool	dense = total_out * DENSE_OUTPUT_RATIO > offsets[segments] - offsets[0];
	SelectArgs<Key> a;

	a.keys = keys;
	a.ids = ids;
	a.seg_offsets = device_arrays;
	a.seg_ks = device_arrays + segments + 1;
	a.out_offsets = device_arrays + 2 * segments + 1;
	for (int i = 0; i < 2; i++)
	{
		a.candidate_keys[i] = (Key *) ws->candidate_keys[i].ptr;
		a.candidate_ids[i] = (uint64_t *) ws->candidate_ids[i].ptr;
	}
	a.out_keys = out_keys;
	a.out_ids = out_ids;
	a.states = (SegmentState *) ws->states.ptr;
	a.histograms = (unsigned long long *) ws->histograms.ptr;
	a.segments = (int) segments;
	a.warp_aggregate = switches.warp_aggregate;
	a.speculate = switches.speculation;
	/* a large sorted answer of positions: indexes in 32 bits until the sort (store_out_id) */
	a.narrow_out_ids = dense && ids == NULL && segments == 1 && sorted_keys != NULL &&
		total_out - out_offsets[0] >= NARROW_IDS_MIN_ENTRIES &&
		offsets[1] - offsets[0] <= ((uint64_t) 1 << 32);

	/* small k, sorted answer wanted (the caller waits for it anyway): try the one-pass path */
	if (sorted_keys != NULL && switches.small_selection &&
		small_selection_suits(segments, offsets, ks))
	{
		bool		selected;

		STATUS_TRY(run_small_selection<Key>(ws, stream, a, segments, max_length, sorted_keys,
											sorted_ids, &selected, err));
		if (selected)
			return RADIK_OK;
	}

	for (size_t first = 0; first < segments; first += MAX_SEGMENTS_PER_LAUNCH)
	{
		const unsigned int here = (unsigned int) (segments - first < MAX_SEGMENTS_PER_LAUNCH ?
												  segments - first : MAX_SEGMENTS_PER_LAUNCH);
		const unsigned int width = grid_width<Key>(max_length, here, device_info.multiprocessors);

		a.segment_base = (int) first;
		CUDA_TRY(launch_sample<Key>(a, here, stream));
		if (dense)
			CUDA_TRY(launch_dense_first<Key>(a, width, here, stream));
		else
			CUDA_TRY((launch_filter<Key, true>(a, 0, width, here, stream)));
		CUDA_TRY(launch_check_speculation<Key>(a, here, stream));
		/* the dense pass's candidates' next digit, where the speculation held */
		if (dense)
			CUDA_TRY((launch_histogram<Key, true>(a, width, here, stream)));
		/* a full round 0 where the speculation missed (the kernels exit at once elsewhere) */
		CUDA_TRY((launch_histogram<Key, false>(a, width, here, stream)));
	}
	for (int round = 0; round < ROUNDS; round++)
		for (size_t first = 0; first < segments; first += MAX_SEGMENTS_PER_LAUNCH)
		{
			const unsigned int here = (unsigned int) (segments - first < MAX_SEGMENTS_PER_LAUNCH ?
													  segments - first : MAX_SEGMENTS_PER_LAUNCH);
			const unsigned int width = grid_width<Key>(max_length, here,
													   device_info.multiprocessors);

			a.segment_base = (int) first;
			CUDA_TRY(launch_choose<Key>(a, round, here, stream));
			if (dense)
				CUDA_TRY(launch_filter_dense<Key>(a, round, width, here, stream));
			else
				CUDA_TRY((launch_filter<Key, false>(a, round, width, here, stream)));
		}

	if (sorted_keys == NULL || total_out == 0)
		return RADIK_OK;

	if (segments == 1)
		return sort_pairs<Key>(ws, stream, out_keys + out_offsets[0], out_ids + out_offsets[0],
							   sorted_keys + out_offsets[0], sorted_ids + out_offsets[0],
							   total_out - out_offsets[0], a.narrow_out_ids != 0, err);
	return sort_segments<Key>(ws, stream, out_keys, out_ids, sorted_keys, sorted_ids, total_out,
							  segments, device_arrays + 2 * segments + 1,
							  device_arrays + 3 * segments + 1, err);
}

/* The number of output entries of a layout (largest out_offsets[s] + min(ks[s], length)). */
static uint64_t
output_extent(size_t segments, const uint64_t *offsets, const uint64_t *ks,
			  const uint64_t *out_offsets)
{
	uint64_t	extent = 0;

	for (size_t s = 0; s < segments; s++)
	{
		const uint64_t length = offsets[s + 1] - offsets[s];
		const uint64_t count = ks[s] < length ? ks[s] : length;

		if (out_offsets[s] + count > extent)
			extent = out_offsets[s] + count;
	}
	return extent;
}

template <typename Key>
static radik_status
select_on_device(Workspace *ws, const Key *keys, const uint64_t *ids, size_t segments,
				 const uint64_t *offsets, const uint64_t *ks, const uint64_t *out_offsets,
				 Key *sorted_keys, uint64_t *sorted_ids, cudaStream_t stream, radik_error *err)
{
	const uint64_t total_out = output_extent(segments, offsets, ks, out_offsets);

	STATUS_TRY(prepare_selection<Key>(ws, offsets[segments], total_out, segments, stream, err));
	/* unsorted (a measuring switch): the caller's buffers take the selection's own answer */
	if (!radik_gpu_get_switches().sorted_output)
		return run_selection<Key>(ws, stream, keys, ids, segments, offsets, ks, out_offsets,
								  sorted_keys, sorted_ids, NULL, NULL, err);
	return run_selection<Key>(ws, stream, keys, ids, segments, offsets, ks, out_offsets,
							  (Key *) ws->out_keys.ptr, (uint64_t *) ws->out_ids.ptr,
							  sorted_keys, sorted_ids, err);
}

/* The two key widths, for the other files (the definitions above stay in this one). */
#define RADIK_SELECT_INSTANCES(Key) \
	template radik_status radik::prepare_selection<Key>(Workspace *, uint64_t, uint64_t, size_t, \
														cudaStream_t, radik_error *); \
	template radik_status radik::run_selection<Key>(Workspace *, cudaStream_t, const Key *, \
													const uint64_t *, size_t, const uint64_t *, \
													const uint64_t *, const uint64_t *, Key *, \
													uint64_t *, Key *, uint64_t *, radik_error *);
RADIK_SELECT_INSTANCES(uint32_t)
RADIK_SELECT_INSTANCES(uint64_t)

RADIK_EXPORT radik_status
radik_gpu_select_on_device(int key_bytes, const void *keys, const uint64_t *ids, size_t segments,
						   const uint64_t *offsets, const uint64_t *ks,
						   const uint64_t *out_offsets, void *out_keys, uint64_t *out_ids,
						   cudaStream_t stream, radik_error *err)
{
	Workspace  *ws;
	radik_status status;

	STATUS_TRY(radik_gpu_probe(NULL, 0, err));
	if (segments == 0)
		return RADIK_OK;
	STATUS_TRY(workspace_acquire(&ws, err));
	if (key_bytes == 4)
		status = select_on_device<uint32_t>(ws, (const uint32_t *) keys, ids, segments, offsets,
											ks, out_offsets, (uint32_t *) out_keys, out_ids,
											stream, err);
	else
		status = select_on_device<uint64_t>(ws, (const uint64_t *) keys, ids, segments, offsets,
											ks, out_offsets, (uint64_t *) out_keys, out_ids,
											stream, err);
	/* keep the stream running: the caller times it; the workspace is free for the next call */
	workspace_release_running(ws, stream);
	return status;
}
