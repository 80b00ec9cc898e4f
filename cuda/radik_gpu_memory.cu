/*
 * radik_gpu_memory.cu
 *	  The CUDA backend's memory: the workspace a selection runs with (device buffers, pinned host
 *	  buffers, a stream), the cap on the device memory they hold, and the copy of a result back.
 *
 * One workspace per process is cached: it grows on demand and is kept between chunks and between
 * selections, because cudaMalloc and cudaHostAlloc cost far more than a selection of a few
 * million keys.  Nothing is ever sized by k alone: every buffer is bounded by the rows pushed
 * (plus one chunk), so LIMIT ALL is safe.  A second selection opened while the cached workspace
 * is busy gets a private one, freed at close unless radik_gpu_set_workspaces keeps it as a spare
 * (the GPU service, with many selections open at once, keeps one per slot).  The device memory
 * all workspaces hold is counted, and capped by radik_gpu_set_memory_limit: a buffer that would
 * pass the cap fails as out of memory.
 */
#include <cstdlib>
#include <cstring>

#include "radik_gpu_internal.cuh"

/* Chunk capacity (entries) when the caller gives no estimate, and its bounds. */
#define DEFAULT_CHUNK_ENTRIES (1u << 20)
#define MIN_CHUNK_ENTRIES (1u << 16)
#define MAX_CHUNK_ENTRIES (1u << 22)

using namespace radik;

static Workspace cached_workspace;	/* zero-initialised: no constructor runs at load time */

/*
 * Idle private workspaces kept for the next selections (radik_gpu_set_workspaces keeps up to
 * spare_limit of them besides the cached one; none by default).
 */
#define MAX_SPARE_WORKSPACES 4096
static Workspace *spare_workspaces[MAX_SPARE_WORKSPACES];
static size_t spare_count;
static size_t spare_limit;

/*
 * The device memory this process's workspaces hold, and the most they may (0: no cap beyond
 * the device's own), set by radik_gpu_set_memory_limit.
 */
static size_t device_bytes_held;
static uint64_t device_bytes_limit;

static radik_status
workspace_init(Workspace *ws, radik_error *err)
{
	if (ws->ready)
		return RADIK_OK;
	CUDA_TRY(cudaStreamCreateWithFlags(&ws->stream, cudaStreamNonBlocking));
	CUDA_TRY(cudaEventCreateWithFlags(&ws->chunk_copied[0], cudaEventDisableTiming));
	CUDA_TRY(cudaEventCreateWithFlags(&ws->chunk_copied[1], cudaEventDisableTiming));
	CUDA_TRY(cudaEventCreateWithFlags(&ws->staging_copied, cudaEventDisableTiming));
	CUDA_TRY(cudaEventCreateWithFlags(&ws->caller_copied, cudaEventDisableTiming));
	ws->ready = 1;
	return RADIK_OK;
}

static void
buffer_free(DeviceBuffer *b)
{
	if (b->ptr)
		(void) cudaFree(b->ptr);
	device_bytes_held -= b->bytes;
	b->ptr = NULL;
	b->bytes = 0;
}

static void
workspace_free(Workspace *ws)
{
	if (!ws->ready)
		return;
	(void) cudaStreamSynchronize(ws->stream);
	buffer_free(&ws->work_keys);
	buffer_free(&ws->work_ids);
	buffer_free(&ws->out_keys);
	buffer_free(&ws->out_ids);
	for (int i = 0; i < 2; i++)
	{
		buffer_free(&ws->candidate_keys[i]);
		buffer_free(&ws->candidate_ids[i]);
		if (ws->pinned_keys[i])
			(void) cudaFreeHost(ws->pinned_keys[i]);
		if (ws->pinned_ids[i])
			(void) cudaFreeHost(ws->pinned_ids[i]);
		ws->pinned_keys[i] = NULL;
		ws->pinned_ids[i] = NULL;
		(void) cudaEventDestroy(ws->chunk_copied[i]);
	}
	buffer_free(&ws->states);
	buffer_free(&ws->histograms);
	buffer_free(&ws->segment_arrays);
	buffer_free(&ws->sort_temp);
	buffer_free(&ws->scalar);
	if (ws->staging)
		(void) cudaFreeHost(ws->staging);
	if (ws->small_miss)
		(void) cudaFreeHost(ws->small_miss);
	if (ws->sample_bits)
		(void) cudaFreeHost(ws->sample_bits);
	(void) cudaEventDestroy(ws->staging_copied);
	(void) cudaEventDestroy(ws->caller_copied);
	(void) cudaStreamDestroy(ws->stream);
	(void) cudaGetLastError();
	memset(ws, 0, sizeof(*ws));
}

radik_status
radik::workspace_acquire(Workspace **out, radik_error *err)
{
	Workspace  *ws = &cached_workspace;

	if (ws->in_use && spare_count > 0)
		ws = spare_workspaces[--spare_count];
	else if (ws->in_use)
	{
		ws = (Workspace *) calloc(1, sizeof(Workspace));
		if (ws == NULL)
			return radik_fail(err, RADIK_OUT_OF_MEMORY, "out of host memory for a GPU workspace");
	}
	radik_status status = workspace_init(ws, err);

	if (status != RADIK_OK)
	{
		if (ws != &cached_workspace)
		{
			workspace_free(ws);
			free(ws);
		}
		return status;
	}
	ws->in_use = 1;
	*out = ws;
	return RADIK_OK;
}

/* Keep an idle private workspace as a spare if there is room, else free it. */
static void
keep_or_free(Workspace *ws)
{
	if (ws->ready && spare_count < spare_limit)
		spare_workspaces[spare_count++] = ws;
	else
	{
		workspace_free(ws);
		free(ws);
	}
}

static void
free_spares(void)
{
	while (spare_count > 0)
	{
		Workspace  *ws = spare_workspaces[--spare_count];

		workspace_free(ws);
		free(ws);
	}
}

void
radik::workspace_release(Workspace *ws)
{
	if (ws == NULL)
		return;
	(void) cudaStreamSynchronize(ws->stream);
	(void) cudaGetLastError();
	ws->chunk_pending[0] = ws->chunk_pending[1] = 0;
	ws->in_use = 0;
	if (ws != &cached_workspace)
		keep_or_free(ws);
}

void
radik::workspace_release_running(Workspace *ws, cudaStream_t stream)
{
	ws->in_use = 0;
	if (ws != &cached_workspace)
	{
		(void) cudaStreamSynchronize(stream);
		keep_or_free(ws);
	}
}

void
radik::workspace_free_cache(void)
{
	if (!cached_workspace.in_use)
		workspace_free(&cached_workspace);
	free_spares();
}

void
radik::workspace_trim_cache(void)
{
	if (device_bytes_limit > 0 && device_bytes_held > device_bytes_limit)
	{
		free_spares();
		if (!cached_workspace.in_use)
			workspace_free(&cached_workspace);
	}
}

radik_status
radik::buffer_reserve(DeviceBuffer *b, size_t bytes, size_t keep, cudaStream_t stream,
					  radik_error *err)
{
	void	   *fresh = NULL;
	size_t		grown = bytes;

	if (b->bytes >= bytes)
		return RADIK_OK;
	if (keep > 0 && grown < b->bytes * 2)
		grown = b->bytes * 2;	/* growing while streaming: double, to copy rarely */
	CUDA_TRY(cudaStreamSynchronize(stream));
	if (keep == 0)
		buffer_free(b);			/* free first, so the peak is the new size alone */
	if (device_bytes_limit > 0 && device_bytes_held + grown > device_bytes_limit)
	{
		if (device_bytes_held + bytes > device_bytes_limit)
			return radik_fail(err, RADIK_OUT_OF_MEMORY,
							  "%zu bytes of GPU memory are needed, %zu are held, and the "
							  "limit is %llu", bytes, device_bytes_held,
							  (unsigned long long) device_bytes_limit);
		grown = bytes;			/* the doubling alone would pass the limit */
	}
	if (cudaMalloc(&fresh, grown) != cudaSuccess)
	{
		(void) cudaGetLastError();
		fresh = NULL;
		if (grown > bytes)
		{
			grown = bytes;
			CUDA_TRY(cudaMalloc(&fresh, grown));
		}
		else
			return radik_fail(err, RADIK_OUT_OF_MEMORY,
							  "cannot allocate %zu bytes of GPU memory", bytes);
	}
	device_bytes_held += grown;
	if (keep > 0 && b->ptr != NULL)
	{
		cudaError_t e = cudaMemcpyAsync(fresh, b->ptr, keep, cudaMemcpyDeviceToDevice, stream);

		if (e == cudaSuccess)
			e = cudaStreamSynchronize(stream);
		if (e != cudaSuccess)
		{
			(void) cudaFree(fresh);
			device_bytes_held -= grown;
			return cuda_fail(err, e, "copying a growing buffer");
		}
		buffer_free(b);
	}
	b->ptr = fresh;
	b->bytes = grown;
	return RADIK_OK;
}

/*
 * Pinned host memory that kernels write to directly (the one-pass path's miss flag, a sample's
 * key bits).  The caller's pointers are NULL; both are set together or, on failure, neither, so
 * that a later call allocates again instead of handing a kernel a NULL device pointer.
 */
radik_status
radik::mapped_host_alloc(void **host, void **device, size_t bytes, radik_error *err)
{
	void	   *allocated = NULL;
	cudaError_t e = cudaHostAlloc(&allocated, bytes, cudaHostAllocMapped);

	if (e != cudaSuccess)
		return cuda_fail(err, e, "cudaHostAlloc(cudaHostAllocMapped)");
	e = cudaHostGetDevicePointer(device, allocated, 0);
	if (e != cudaSuccess)
	{
		(void) cudaFreeHost(allocated);
		*device = NULL;
		return cuda_fail(err, e, "cudaHostGetDevicePointer");
	}
	*host = allocated;
	return RADIK_OK;
}

size_t
radik::chunk_entries(uint64_t expected_rows)
{
	if (expected_rows == 0)
		return DEFAULT_CHUNK_ENTRIES;
	return expected_rows < MIN_CHUNK_ENTRIES ? MIN_CHUNK_ENTRIES :
		expected_rows > MAX_CHUNK_ENTRIES ? MAX_CHUNK_ENTRIES : (size_t) expected_rows;
}

radik_status
radik::reserve_pinned(Workspace *ws, size_t entries, radik_error *err)
{
	if (ws->pinned_capacity >= entries)
		return RADIK_OK;
	CUDA_TRY(cudaStreamSynchronize(ws->stream));
	for (int i = 0; i < 2; i++)
	{
		if (ws->pinned_keys[i])
			CUDA_TRY(cudaFreeHost(ws->pinned_keys[i]));
		if (ws->pinned_ids[i])
			CUDA_TRY(cudaFreeHost(ws->pinned_ids[i]));
		ws->pinned_keys[i] = NULL;
		ws->pinned_ids[i] = NULL;
	}
	ws->pinned_capacity = 0;
	for (int i = 0; i < 2; i++)
	{
		CUDA_TRY(cudaHostAlloc(&ws->pinned_keys[i], entries * sizeof(uint64_t), cudaHostAllocDefault));
		CUDA_TRY(cudaHostAlloc((void **) &ws->pinned_ids[i], entries * sizeof(uint64_t),
							   cudaHostAllocDefault));
	}
	ws->pinned_capacity = entries;
	return RADIK_OK;
}

radik_status
radik::copy_result(int key_bytes, const void *device_keys, const uint64_t *device_ids,
				   uint64_t count, uint64_t *keys, uint64_t *ids, cudaStream_t stream,
				   radik_error *err)
{
	if (ids != NULL && count > 0)
		CUDA_TRY(cudaMemcpyAsync(ids, device_ids, count * sizeof(uint64_t),
								 cudaMemcpyDeviceToHost, stream));
	if (keys != NULL && count > 0)
	{
		if (key_bytes == 8)
			CUDA_TRY(cudaMemcpyAsync(keys, device_keys, count * sizeof(uint64_t),
									 cudaMemcpyDeviceToHost, stream));
		else
		{
			uint32_t   *narrow = (uint32_t *) malloc(count * sizeof(uint32_t));
			cudaError_t e;

			if (narrow == NULL)
				return radik_fail(err, RADIK_OUT_OF_MEMORY, "out of host memory for a result");
			e = cudaMemcpyAsync(narrow, device_keys, count * sizeof(uint32_t),
								cudaMemcpyDeviceToHost, stream);
			if (e == cudaSuccess)
				e = cudaStreamSynchronize(stream);
			if (e != cudaSuccess)
			{
				free(narrow);
				return cuda_fail(err, e, "cudaMemcpyAsync(result keys)");
			}
			for (uint64_t j = 0; j < count; j++)
				keys[j] = narrow[j];
			free(narrow);
		}
	}
	CUDA_TRY(cudaStreamSynchronize(stream));
	return RADIK_OK;
}

RADIK_EXPORT void
radik_gpu_set_memory_limit(uint64_t bytes)
{
	device_bytes_limit = bytes;
}

RADIK_EXPORT void
radik_gpu_set_workspaces(size_t count)
{
	/* the cached workspace is the first of count */
	spare_limit = count > 1 ? count - 1 : 0;
	if (spare_limit > MAX_SPARE_WORKSPACES)
		spare_limit = MAX_SPARE_WORKSPACES;
}

/*
 * Registered memory is never unregistered: the caller keeps it for the life of the process, and
 * the process's end unlocks it.
 */
RADIK_EXPORT radik_status
radik_gpu_register_host_memory(void *ptr, size_t bytes, radik_error *err)
{
	STATUS_TRY(radik_gpu_probe(NULL, 0, err));
	CUDA_TRY(cudaHostRegister(ptr, bytes, cudaHostRegisterDefault));
	return RADIK_OK;
}

RADIK_EXPORT void
radik_gpu_release_cache(void)
{
	wait_for_background_start();
	if (!device_probed())
		return;					/* CUDA was never touched: nothing to give back */
	workspace_free_cache();
}
