/*
 * radik_gpu_stream.cu
 *	  The streaming selection on the GPU (radik_open ... radik_close): one selection fed chunk by
 *	  chunk while the caller scans its table.  Chunks are copied asynchronously from the pinned
 *	  buffer the caller filled while the caller fills the other one, or straight from the caller's
 *	  own memory (radik_push_keys, which waits for its copy).  Rows accumulate on the
 *	  device until they reach k + max(k, chunk), then one selection cuts them back to the best k
 *	  (so each row is selected a constant number of times, whatever k is).  The threshold forces
 *	  that cut and reads back the k-th key.
 */
#include <cstdlib>

#include "radik_gpu_internal.cuh"
#include "radik_gpu_max_key.cuh"

using namespace radik;

typedef struct GpuSelection
{
	Workspace  *ws;
	int			key_bytes;
	uint64_t	k;
	size_t		chunk_capacity;
	int			current;		/* pinned buffer handed out next */
	uint64_t	count;			/* entries in ws->work_* on the device */
	uint64_t	result_count;
} GpuSelection;

RADIK_EXPORT radik_status
radik_gpu_open(int key_bytes, uint64_t k, uint64_t expected_rows, void **state, radik_error *err)
{
	GpuSelection *sel;
	radik_status status;
	size_t		chunk = chunk_entries(expected_rows);

	*state = NULL;
	STATUS_TRY(radik_gpu_probe(NULL, 0, err));
	sel = (GpuSelection *) calloc(1, sizeof(GpuSelection));
	if (sel == NULL)
		return radik_fail(err, RADIK_OUT_OF_MEMORY, "out of host memory for a GPU selection");
	sel->key_bytes = key_bytes;
	sel->k = k;
	/* A cache held from before a lower limit is given back, not kept above it. */
	workspace_trim_cache();
	status = workspace_acquire(&sel->ws, err);
	if (status == RADIK_OK)
		status = reserve_pinned(sel->ws, chunk, err);
	if (status != RADIK_OK)
	{
		workspace_release(sel->ws);
		free(sel);
		return status;
	}
	sel->chunk_capacity = sel->ws->pinned_capacity;
	*state = sel;
	return RADIK_OK;
}

RADIK_EXPORT radik_status
radik_gpu_chunk_buffer(void *state, void **keys, uint64_t **ids, size_t *capacity,
					   radik_error *err)
{
	GpuSelection *sel = (GpuSelection *) state;
	Workspace  *ws = sel->ws;
	const int	i = sel->current;

	if (ws->chunk_pending[i])
	{
		/* the copy out of this buffer must be done before the caller refills it */
		CUDA_TRY(cudaEventSynchronize(ws->chunk_copied[i]));
		ws->chunk_pending[i] = 0;
	}
	*keys = ws->pinned_keys[i];
	*ids = ws->pinned_ids[i];
	*capacity = sel->chunk_capacity;
	return RADIK_OK;
}

/*
 * Select the best k of the device's rows (ws->work_*, more than k of them) into ws->out_*,
 * unsorted; with sort, also into ws->candidate_*[0] in order.
 */
template <typename Key>
static radik_status
select_pushed_rows(GpuSelection *sel, bool sort, radik_error *err)
{
	Workspace  *ws = sel->ws;
	const uint64_t offsets[2] = {0, sel->count};
	const uint64_t out_offsets[1] = {0};
	const uint64_t ks[1] = {sel->k};

	/* prepared before any pointer into ws's buffers is taken */
	STATUS_TRY(prepare_selection<Key>(ws, sel->count, sel->k, 1, ws->stream, err));
	return run_selection<Key>(ws, ws->stream, (const Key *) ws->work_keys.ptr,
							  (const uint64_t *) ws->work_ids.ptr, 1, offsets, ks, out_offsets,
							  (Key *) ws->out_keys.ptr, (uint64_t *) ws->out_ids.ptr,
							  sort ? (Key *) ws->candidate_keys[0].ptr : NULL,
							  sort ? (uint64_t *) ws->candidate_ids[0].ptr : NULL, err);
}

/* Cut the device's rows back to the best k (unsorted), in place of the work buffer. */
template <typename Key>
static radik_status
compact(GpuSelection *sel, radik_error *err)
{
	Workspace  *ws = sel->ws;
	DeviceBuffer swap;

	STATUS_TRY(select_pushed_rows<Key>(sel, false, err));
	swap = ws->work_keys;
	ws->work_keys = ws->out_keys;
	ws->out_keys = swap;
	swap = ws->work_ids;
	ws->work_ids = ws->out_ids;
	ws->out_ids = swap;
	sel->count = sel->k;
	return RADIK_OK;
}

static radik_status
compact_any(GpuSelection *sel, radik_error *err)
{
	return sel->key_bytes == 4 ? compact<uint32_t>(sel, err) : compact<uint64_t>(sel, err);
}

/*
 * Append n entries at host memory keys/ids to the device's rows (an asynchronous copy, after
 * which copied is recorded), then cut back once the rows reach k + max(k, chunk): each row is
 * selected over O(1) times.
 */
static radik_status
append_rows(GpuSelection *sel, const void *keys, const uint64_t *ids, size_t n,
			cudaEvent_t copied, radik_error *err)
{
	Workspace  *ws = sel->ws;
	const size_t kb = (size_t) sel->key_bytes;
	const uint64_t needed = sel->count + n;
	const uint64_t slack = sel->k > sel->chunk_capacity ? sel->k : sel->chunk_capacity;

	STATUS_TRY(buffer_reserve(&ws->work_keys, needed * kb, sel->count * kb, ws->stream, err));
	STATUS_TRY(buffer_reserve(&ws->work_ids, needed * sizeof(uint64_t),
							  sel->count * sizeof(uint64_t), ws->stream, err));
	CUDA_TRY(cudaMemcpyAsync((char *) ws->work_keys.ptr + sel->count * kb, keys, n * kb,
							 cudaMemcpyHostToDevice, ws->stream));
	CUDA_TRY(cudaMemcpyAsync((uint64_t *) ws->work_ids.ptr + sel->count, ids,
							 n * sizeof(uint64_t), cudaMemcpyHostToDevice, ws->stream));
	CUDA_TRY(cudaEventRecord(copied, ws->stream));
	sel->count = needed;
	if (sel->count > sel->k && sel->count - sel->k >= slack)
		STATUS_TRY(compact_any(sel, err));
	return RADIK_OK;
}

RADIK_EXPORT radik_status
radik_gpu_push_chunk(void *state, size_t n, radik_error *err)
{
	GpuSelection *sel = (GpuSelection *) state;
	Workspace  *ws = sel->ws;
	const int	i = sel->current;

	if (n == 0)
		return RADIK_OK;
	/* radik_gpu_chunk_buffer hands this buffer out again once its copy is done */
	ws->chunk_pending[i] = 1;
	sel->current = 1 - i;
	return append_rows(sel, ws->pinned_keys[i], ws->pinned_ids[i], n, ws->chunk_copied[i], err);
}

/*
 * The caller's entries go to the device in pieces of a chunk buffer's size, each cut back as a
 * pushed chunk is; the call returns once the last piece is copied, leaving its cut to run.
 */
RADIK_EXPORT radik_status
radik_gpu_push_keys(void *state, const void *keys, const uint64_t *ids, size_t n,
					radik_error *err)
{
	GpuSelection *sel = (GpuSelection *) state;
	const size_t kb = (size_t) sel->key_bytes;

	for (size_t done = 0; done < n;)
	{
		const size_t piece = n - done < sel->chunk_capacity ? n - done : sel->chunk_capacity;

		STATUS_TRY(append_rows(sel, (const char *) keys + done * kb, ids + done, piece,
							   sel->ws->caller_copied, err));
		done += piece;
	}
	CUDA_TRY(cudaEventSynchronize(sel->ws->caller_copied));
	return RADIK_OK;
}

RADIK_EXPORT radik_status
radik_gpu_threshold(void *state, uint64_t *kth_key, int *valid, radik_error *err)
{
	GpuSelection *sel = (GpuSelection *) state;
	Workspace  *ws = sel->ws;
	unsigned long long highest = 0;
	unsigned long long *device_highest;

	*valid = 0;
	*kth_key = 0;
	if (sel->count < sel->k)
		return RADIK_OK;
	if (sel->count > sel->k)
		STATUS_TRY(compact_any(sel, err));
	STATUS_TRY(buffer_reserve(&ws->scalar, sizeof(unsigned long long), 0, ws->stream, err));
	device_highest = (unsigned long long *) ws->scalar.ptr;
	CUDA_TRY(cudaMemsetAsync(device_highest, 0, sizeof(unsigned long long), ws->stream));
	if (sel->key_bytes == 4)
		CUDA_TRY(launch_max_key<uint32_t>((const uint32_t *) ws->work_keys.ptr, sel->count,
										  device_highest, device_info.multiprocessors, ws->stream));
	else
		CUDA_TRY(launch_max_key<uint64_t>((const uint64_t *) ws->work_keys.ptr, sel->count,
										  device_highest, device_info.multiprocessors, ws->stream));
	CUDA_TRY(cudaMemcpyAsync(&highest, device_highest, sizeof(highest), cudaMemcpyDeviceToHost,
							 ws->stream));
	CUDA_TRY(cudaStreamSynchronize(ws->stream));
	*kth_key = highest;
	*valid = 1;
	return RADIK_OK;
}

template <typename Key>
static radik_status
finish(GpuSelection *sel, radik_error *err)
{
	Workspace  *ws = sel->ws;

	sel->result_count = sel->k < sel->count ? sel->k : sel->count;
	if (sel->result_count == 0)
		return RADIK_OK;
	if (sel->count > sel->k)
		STATUS_TRY(select_pushed_rows<Key>(sel, true, err));
	else
	{
		/* everything pushed is selected: just sort it */
		STATUS_TRY(prepare_selection<Key>(ws, sel->count, sel->count, 1, ws->stream, err));
		STATUS_TRY(sort_pairs<Key>(ws, ws->stream, (const Key *) ws->work_keys.ptr,
								   (const uint64_t *) ws->work_ids.ptr,
								   (Key *) ws->candidate_keys[0].ptr,
								   (uint64_t *) ws->candidate_ids[0].ptr, sel->count, false, err));
	}
	CUDA_TRY(cudaStreamSynchronize(ws->stream));
	return RADIK_OK;
}

RADIK_EXPORT radik_status
radik_gpu_finish(void *state, uint64_t *count, radik_error *err)
{
	GpuSelection *sel = (GpuSelection *) state;
	radik_status status;

	status = sel->key_bytes == 4 ? finish<uint32_t>(sel, err) : finish<uint64_t>(sel, err);
	*count = status == RADIK_OK ? sel->result_count : 0;
	return status;
}

RADIK_EXPORT radik_status
radik_gpu_result(void *state, uint64_t *keys, uint64_t *ids, radik_error *err)
{
	GpuSelection *sel = (GpuSelection *) state;
	Workspace  *ws = sel->ws;

	return copy_result(sel->key_bytes, ws->candidate_keys[0].ptr,
					   (const uint64_t *) ws->candidate_ids[0].ptr, sel->result_count, keys, ids,
					   ws->stream, err);
}

RADIK_EXPORT const char *
radik_gpu_device_name(void *state)
{
	(void) state;
	return device_info.name;
}

RADIK_EXPORT void
radik_gpu_close(void *state)
{
	GpuSelection *sel = (GpuSelection *) state;

	if (sel == NULL)
		return;
	workspace_release(sel->ws);
	free(sel);
}
