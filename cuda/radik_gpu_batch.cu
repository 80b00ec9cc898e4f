/*
 * radik_gpu_batch.cu
 *	  The batch selection on the GPU (radik_select_batch): many independent segments of host
 *	  arrays selected at once.  The keys go to the device in one copy, one selection serves every
 *	  segment (a launch per kernel covers up to 65535 of them) and the answers come back in one
 *	  copy, so many small segments cost about what one large selection does.  The GPU service
 *	  runs small selections waiting together through it (src/radik_service_process.c);
 *	  bench/engine times the selection under it on device keys.  SQL's top k rows per group run
 *	  on the CPU (src/radik_group_select.c).
 */
#include <cstdlib>
#include <cstring>

#include "radik_gpu_internal.cuh"

using namespace radik;

template <typename Key>
static radik_status
select_batch(Workspace *ws, const void *keys, const uint64_t *ids, const uint64_t *offsets,
			 size_t segments, const uint64_t *ks, const uint64_t *out_offsets,
			 uint64_t *out_keys, uint64_t *out_ids, uint64_t *out_counts, radik_error *err)
{
	const uint64_t first = offsets[0];
	const uint64_t total = offsets[segments] - first;
	uint64_t	out_first = UINT64_MAX;
	uint64_t	out_last = 0;
	uint64_t   *local = (uint64_t *) malloc((2 * segments + 1) * sizeof(uint64_t));
	uint64_t   *local_out = local + segments + 1;
	uint64_t   *host_keys = NULL;
	uint64_t   *host_ids = NULL;
	radik_status status = RADIK_OK;
	cudaStream_t stream = ws->stream;

	if (local == NULL)
		return radik_fail(err, RADIK_OUT_OF_MEMORY, "out of host memory for a batch");
	for (size_t s = 0; s < segments; s++)
	{
		const uint64_t length = offsets[s + 1] - offsets[s];
		const uint64_t count = ks[s] < length ? ks[s] : length;

		out_counts[s] = count;
		if (count > 0 && out_offsets[s] < out_first)
			out_first = out_offsets[s];
		if (count > 0 && out_offsets[s] + count > out_last)
			out_last = out_offsets[s] + count;
	}
	if (out_first == UINT64_MAX)
	{
		free(local);
		return RADIK_OK;		/* every segment is empty */
	}
	for (size_t s = 0; s <= segments; s++)
		local[s] = offsets[s] - first;
	for (size_t s = 0; s < segments; s++)
		local_out[s] = out_offsets[s] >= out_first ? out_offsets[s] - out_first : 0;

	const uint64_t out_total = out_last - out_first;

#define BATCH_TRY(call) \
	do { \
		status = (call); \
		if (status != RADIK_OK) \
			goto done; \
	} while (0)
#define BATCH_CUDA(call) \
	do { \
		cudaError_t batch_error_ = (call); \
		if (batch_error_ != cudaSuccess) \
		{ \
			status = cuda_fail(err, batch_error_, #call); \
			goto done; \
		} \
	} while (0)

	BATCH_TRY(buffer_reserve(&ws->work_keys, total * sizeof(Key), 0, stream, err));
	if (ids != NULL)
		BATCH_TRY(buffer_reserve(&ws->work_ids, total * sizeof(uint64_t), 0, stream, err));
	BATCH_TRY(prepare_selection<Key>(ws, total, out_total, segments, stream, err));
	BATCH_CUDA(cudaMemcpyAsync(ws->work_keys.ptr, (const Key *) keys + first,
							   total * sizeof(Key), cudaMemcpyHostToDevice, stream));
	if (ids != NULL)
		BATCH_CUDA(cudaMemcpyAsync(ws->work_ids.ptr, ids + first, total * sizeof(uint64_t),
								   cudaMemcpyHostToDevice, stream));
	BATCH_TRY(run_selection<Key>(ws, stream, (const Key *) ws->work_keys.ptr,
								 ids ? (const uint64_t *) ws->work_ids.ptr : NULL, segments, local,
								 ks, local_out, (Key *) ws->out_keys.ptr,
								 (uint64_t *) ws->out_ids.ptr, (Key *) ws->candidate_keys[0].ptr,
								 (uint64_t *) ws->candidate_ids[0].ptr, err));
	host_keys = (uint64_t *) malloc(out_total * sizeof(uint64_t));
	host_ids = (uint64_t *) malloc(out_total * sizeof(uint64_t));
	if (host_keys == NULL || host_ids == NULL)
	{
		status = radik_fail(err, RADIK_OUT_OF_MEMORY, "out of host memory for a batch result");
		goto done;
	}
	BATCH_TRY(copy_result(sizeof(Key), ws->candidate_keys[0].ptr,
						  (const uint64_t *) ws->candidate_ids[0].ptr, out_total, host_keys,
						  host_ids, stream, err));
	for (size_t s = 0; s < segments; s++)
		if (out_counts[s] > 0)
		{
			memcpy(out_keys + out_offsets[s], host_keys + local_out[s],
				   out_counts[s] * sizeof(uint64_t));
			memcpy(out_ids + out_offsets[s], host_ids + local_out[s],
				   out_counts[s] * sizeof(uint64_t));
		}

done:
#undef BATCH_TRY
#undef BATCH_CUDA
	free(host_keys);
	free(host_ids);
	free(local);
	return status;
}

RADIK_EXPORT radik_status
radik_gpu_select_batch(int key_bytes, const void *keys, const uint64_t *ids,
					   const uint64_t *offsets, size_t segments, const uint64_t *ks,
					   const uint64_t *out_offsets, uint64_t *out_keys, uint64_t *out_ids,
					   uint64_t *out_counts, radik_error *err)
{
	Workspace  *ws;
	radik_status status;

	STATUS_TRY(radik_gpu_probe(NULL, 0, err));
	if (segments == 0)
		return RADIK_OK;
	STATUS_TRY(workspace_acquire(&ws, err));
	status = key_bytes == 4 ?
		select_batch<uint32_t>(ws, keys, ids, offsets, segments, ks, out_offsets, out_keys,
							   out_ids, out_counts, err) :
		select_batch<uint64_t>(ws, keys, ids, offsets, segments, ks, out_offsets, out_keys,
							   out_ids, out_counts, err);
	workspace_release(ws);
	return status;
}
