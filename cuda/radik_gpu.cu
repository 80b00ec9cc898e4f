/*
 * radik_gpu.cu
 *	  The CUDA backend of the engine: device discovery, the streaming selection, the batch
 *	  selection, and the selection's host side, which runs the kernels of radik_gpu_rounds.cuh,
 *	  radik_gpu_filter.cuh, radik_gpu_dense_first.cuh, radik_gpu_small.cuh and radik_gpu_sort.cuh
 *	  through their launchers.
 *
 * Memory: one workspace per process holds the device buffers (the running best plus chunks,
 * the unsorted output, two candidate buffers, per-segment state), the two pinned host chunk
 * buffers and a stream.  It grows on demand and is kept between chunks and between selections,
 * because cudaMalloc and cudaHostAlloc cost far more than a selection of a few million keys.
 * Nothing is ever sized by k alone: every buffer is bounded by the rows pushed (plus one chunk),
 * so LIMIT ALL is safe.  A second selection opened while the cached workspace is busy gets a
 * private one, freed at close.  The device memory all workspaces hold is counted, and capped by
 * radik_gpu_set_memory_limit: a buffer that would pass the cap fails as out of memory.
 *
 * Streaming: chunks are copied asynchronously from the pinned buffer the caller filled, while the
 * caller fills the other one.  Rows accumulate on the device until they reach k + max(k, chunk),
 * then one selection cuts them back to the best k (so each row is selected over a constant
 * number of times, whatever k is).  The threshold forces that cut and reads back the k-th key.
 *
 * The door: plain C entry points (extern "C", exported), every CUDA call checked and returned as
 * RADIK_DEVICE_ERROR with CUDA's own words, no exception and no exit.  Nothing here runs at load
 * time; CUDA is first touched by radik_gpu_probe, or by radik_gpu_start_in_background on a thread
 * of its own (below).  No driver or no device is RADIK_NO_DEVICE.
 */
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <pthread.h>
#include <signal.h>

#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "radik_backend.h"
#include "radik_gpu_device.cuh"
#include "radik_gpu_switches.h"
#include "radik_gpu_rounds.cuh"
#include "radik_gpu_filter.cuh"
#include "radik_gpu_dense_first.cuh"
#include "radik_gpu_small.cuh"
#include "radik_gpu_sort.cuh"
#include "radik_gpu_max_key.cuh"

#define RADIK_EXPORT extern "C" __attribute__((visibility("default")))

using radik::SegmentState;
using radik::SelectArgs;
using radik::radix_sort_pairs;
using radik::radix_sort_temp_bytes;

/* Chunk capacity (entries) when the caller gives no estimate, and its bounds. */
#define DEFAULT_CHUNK_ENTRIES (1u << 20)
#define MIN_CHUNK_ENTRIES (1u << 16)
#define MAX_CHUNK_ENTRIES (1u << 22)

/*
 * Sorts of at least this many entries first find the bits in which their keys differ and sort
 * on those bits alone: every 8 bits fewer is one pass of the sort fewer (2^28 pairs of keys in
 * [128.6, 128.7]: 3.74 -> 3.00 ms).  A strided sample of NARROW_SORT_SAMPLE keys is read first,
 * and all the keys only when the sample leaves a pass to save.  Either way the host waits for
 * the answer before it launches the sort, about 16 us (4M uniform keys: 0.406 -> 0.422 ms);
 * below this size that would cost more than it could save.
 */
#define NARROW_SORT_MIN_ENTRIES (1u << 22)
#define NARROW_SORT_SAMPLE 2048

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

/* ---------------------------------------------------------------------------------------------
 * Errors
 */

static radik_status
cuda_fail(radik_error *err, cudaError_t e, const char *what)
{
	(void) cudaGetLastError();	/* clear a non-sticky error so the next call starts clean */
	return radik_fail(err,
					  e == cudaErrorMemoryAllocation ? RADIK_OUT_OF_MEMORY : RADIK_DEVICE_ERROR,
					  "%s: %s", what, cudaGetErrorString(e));
}

#define CUDA_TRY(call) \
	do { \
		cudaError_t cuda_try_error_ = (call); \
		if (cuda_try_error_ != cudaSuccess) \
			return cuda_fail(err, cuda_try_error_, #call); \
	} while (0)

#define STATUS_TRY(call) \
	do { \
		radik_status status_try_ = (call); \
		if (status_try_ != RADIK_OK) \
			return status_try_; \
	} while (0)

/* ---------------------------------------------------------------------------------------------
 * Device discovery (lazy, cached per process)
 */

static int	probe_done;
static radik_status probe_status;
static char probe_message[RADIK_ERROR_MESSAGE_SIZE];
static char device_name[RADIK_ERROR_MESSAGE_SIZE];
static int	multiprocessors;
static int	programmatic_launch;	/* compute capability 9.0 or later */

static void wait_for_background_start(void);

/*
 * probe_message for a cudaGetDeviceCount that failed with e, in the words of what is missing: the
 * CUDA runtime's own message for a machine without a driver is "CUDA driver version is
 * insufficient for CUDA runtime version", which reads as a version problem.
 */
static void
describe_missing_device(cudaError_t e)
{
	int			driver_version = 0;
	int			runtime_version = 0;

	(void) cudaDriverGetVersion(&driver_version);	/* 0 when no driver is loaded */
	(void) cudaRuntimeGetVersion(&runtime_version);
	(void) cudaGetLastError();
	if (e == cudaErrorNoDevice)
		snprintf(probe_message, sizeof(probe_message), "no NVIDIA GPU is present");
	else if (e == cudaErrorInsufficientDriver && driver_version == 0)
		snprintf(probe_message, sizeof(probe_message),
				 "no NVIDIA driver is installed (or its kernel module is not loaded)");
	else if (e == cudaErrorInsufficientDriver)
		snprintf(probe_message, sizeof(probe_message),
				 "the NVIDIA driver supports CUDA %d.%d, older than the CUDA %d.%d radik was built with",
				 driver_version / 1000, driver_version % 1000 / 10,
				 runtime_version / 1000, runtime_version % 1000 / 10);
	else
		snprintf(probe_message, sizeof(probe_message), "no usable CUDA device: %s",
				 cudaGetErrorString(e));
}

/* The probe itself (once per process): device count, properties, the context. */
static void
probe_device(void)
{
	if (!probe_done)
	{
		int			count = 0;
		cudaError_t e = cudaGetDeviceCount(&count);
		cudaDeviceProp prop;

		probe_status = RADIK_OK;
		if (e != cudaSuccess)
		{
			(void) cudaGetLastError();
			probe_status = RADIK_NO_DEVICE;
			describe_missing_device(e);
		}
		else if (count == 0)
		{
			probe_status = RADIK_NO_DEVICE;
			snprintf(probe_message, sizeof(probe_message), "no NVIDIA GPU is present");
		}
		else if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess ||
				 (e = cudaSetDevice(0)) != cudaSuccess ||
				 (e = cudaFree(0)) != cudaSuccess)
		{
			(void) cudaGetLastError();
			probe_status = RADIK_NO_DEVICE;
			snprintf(probe_message, sizeof(probe_message), "the CUDA device cannot be used: %s",
					 cudaGetErrorString(e));
		}
		else
		{
			snprintf(device_name, sizeof(device_name), "%s", prop.name);
			multiprocessors = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
			programmatic_launch = prop.major >= 9;
		}
		probe_done = 1;
	}
}

RADIK_EXPORT radik_status
radik_gpu_probe(char *name, size_t name_size, radik_error *err)
{
	wait_for_background_start();
	probe_device();
	if (name != NULL && name_size > 0)
		snprintf(name, name_size, "%s", probe_status == RADIK_OK ? device_name : "");
	if (probe_status != RADIK_OK)
		return radik_fail(err, probe_status, "%s", probe_message);
	return RADIK_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Workspaces
 */

typedef struct DeviceBuffer
{
	void	   *ptr;
	size_t		bytes;
} DeviceBuffer;

typedef struct Workspace
{
	int			ready;			/* stream and events exist */
	int			in_use;
	cudaStream_t stream;
	DeviceBuffer work_keys;		/* streaming: best so far + new chunks; batch: the input */
	DeviceBuffer work_ids;
	DeviceBuffer out_keys;		/* a selection's unsorted output */
	DeviceBuffer out_ids;
	DeviceBuffer candidate_keys[2];	/* candidate_*[0] also receives the sorted result */
	DeviceBuffer candidate_ids[2];
	DeviceBuffer states;
	DeviceBuffer histograms;
	DeviceBuffer segment_arrays;	/* offsets, ks, out_offsets, out_ends */
	DeviceBuffer sort_temp;
	DeviceBuffer scalar;
	void	   *pinned_keys[2];
	uint64_t   *pinned_ids[2];
	size_t		pinned_capacity;	/* entries of each pinned buffer (keys in 8-byte slots) */
	cudaEvent_t chunk_copied[2];
	int			chunk_pending[2];
	unsigned long long *staging;	/* pinned: segment arrays on their way to the device */
	size_t		staging_capacity;	/* entries */
	cudaEvent_t staging_copied;
	int			staging_pending;
	unsigned int *small_miss;	/* pinned and mapped: the one-pass small selection missed */
	unsigned int *small_miss_device;
	unsigned long long *sample_bits;	/* pinned and mapped: a sample's key bits (two words) */
	unsigned long long *sample_bits_device;
} Workspace;

static Workspace cached_workspace;	/* zero-initialised: no constructor runs at load time */

/*
 * The device memory this process's workspaces hold, and the most they may (0: no cap beyond
 * the device's own), set by radik_gpu_set_memory_limit.
 */
static size_t device_bytes_held;
static uint64_t device_bytes_limit;

RADIK_EXPORT void
radik_gpu_set_memory_limit(uint64_t bytes)
{
	device_bytes_limit = bytes;
}

static radik_status
workspace_init(Workspace *ws, radik_error *err)
{
	if (ws->ready)
		return RADIK_OK;
	CUDA_TRY(cudaStreamCreateWithFlags(&ws->stream, cudaStreamNonBlocking));
	CUDA_TRY(cudaEventCreateWithFlags(&ws->chunk_copied[0], cudaEventDisableTiming));
	CUDA_TRY(cudaEventCreateWithFlags(&ws->chunk_copied[1], cudaEventDisableTiming));
	CUDA_TRY(cudaEventCreateWithFlags(&ws->staging_copied, cudaEventDisableTiming));
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
	(void) cudaStreamDestroy(ws->stream);
	(void) cudaGetLastError();
	memset(ws, 0, sizeof(*ws));
}

/* The cached workspace if it is free, else a new private one (freed by workspace_release). */
static radik_status
workspace_acquire(Workspace **out, radik_error *err)
{
	Workspace  *ws = &cached_workspace;

	if (ws->in_use)
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

static void
workspace_release(Workspace *ws)
{
	if (ws == NULL)
		return;
	(void) cudaStreamSynchronize(ws->stream);
	(void) cudaGetLastError();
	ws->chunk_pending[0] = ws->chunk_pending[1] = 0;
	ws->in_use = 0;
	if (ws != &cached_workspace)
	{
		workspace_free(ws);
		free(ws);
	}
}

/*
 * Make b hold at least bytes.  With keep > 0, the first keep bytes survive (stream-ordered copy);
 * the old allocation is freed only once the stream is idle.
 */
static radik_status
buffer_reserve(DeviceBuffer *b, size_t bytes, size_t keep, cudaStream_t stream, radik_error *err)
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

/* ---------------------------------------------------------------------------------------------
 * The selection launcher
 */

/* Bytes of sort workspace for total_out entries in the given number of segments. */
template <typename Key>
static radik_status
sort_temp_bytes(uint64_t total_out, size_t segments, size_t *bytes, radik_error *err)
{
	*bytes = 0;
	if (total_out == 0)
		return RADIK_OK;
	if (segments == 1)
	{
		size_t		narrow_bytes = 0;

		/* 64-bit ids, or 32-bit indexes where the output is narrow (run_selection) */
		CUDA_TRY((radix_sort_temp_bytes<Key, uint64_t>(total_out, bytes)));
		CUDA_TRY((radix_sort_temp_bytes<Key, uint32_t>(total_out, &narrow_bytes)));
		if (narrow_bytes > *bytes)
			*bytes = narrow_bytes;
	}
	else
		CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(nullptr, *bytes, (const Key *) nullptr,
													 (Key *) nullptr, (const uint64_t *) nullptr,
													 (uint64_t *) nullptr, (int64_t) total_out,
													 (int64_t) segments,
													 (const unsigned long long *) nullptr,
													 (const unsigned long long *) nullptr));
	return RADIK_OK;
}

/*
 * Reserve everything a selection of segments over total_in input entries with total_out output
 * entries needs in ws (except the input).  Call before taking pointers into ws's buffers.
 */
template <typename Key>
static radik_status
prepare_selection(Workspace *ws, uint64_t total_in, uint64_t total_out, size_t segments,
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
							  2 * segments * radik::BINS * sizeof(unsigned long long), 0, stream, err));
	STATUS_TRY(buffer_reserve(&ws->segment_arrays,
							  (4 * segments + 1) * sizeof(unsigned long long), 0, stream, err));
	STATUS_TRY(buffer_reserve(&ws->scalar, 2 * sizeof(unsigned long long), 0, stream, err));
	STATUS_TRY(sort_temp_bytes<Key>(total_out, segments, &sort_bytes, err));
	STATUS_TRY(buffer_reserve(&ws->sort_temp, sort_bytes, 0, stream, err));
	return RADIK_OK;
}

/*
 * Pinned host memory that kernels write to directly (the one-pass path's miss flag, a sample's
 * key bits).  The caller's pointers are NULL; both are set together or, on failure, neither, so
 * that a later call allocates again instead of handing a kernel a NULL device pointer.
 */
static radik_status
mapped_host_alloc(void **host, void **device, size_t bytes, radik_error *err)
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

		if (k == 0 || length <= (uint64_t) radik::SMALL_CAPACITY)
			continue;
		if (length > UINT32_MAX)
			return false;

		const uint64_t rank = radik::small_threshold_rank(k, length);

		if (rank >= (uint64_t) radik::SMALL_SAMPLE ||
			(double) (rank + 2) * (double) length / radik::SMALL_SAMPLE > radik::SMALL_CAPACITY / 2)
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
	CUDA_TRY(radik::prepare_small_finish<Key>());
	*ws->small_miss = 0;		/* no kernel of this workspace is running: the last one waited */
	for (size_t first = 0; first < segments; first += MAX_SEGMENTS_PER_LAUNCH)
	{
		const size_t here = segments - first < MAX_SEGMENTS_PER_LAUNCH ?
			segments - first : MAX_SEGMENTS_PER_LAUNCH;

		a.segment_base = (int) first;
		CUDA_TRY(radik::launch_small_selection<Key>(a, radik::grid_width<Key>(max_length, here,
																			   multiprocessors),
													(unsigned int) here, sorted_keys, sorted_ids,
													ws->small_miss_device,
													programmatic_launch != 0, stream));
	}
	CUDA_TRY(cudaStreamSynchronize(stream));
	*selected = *(volatile unsigned int *) ws->small_miss == 0;
	return RADIK_OK;
}

/*
 * The bits in which the n keys keys[0], keys[stride], keys[2 * stride], ... differ; waits.  A
 * sample (one block) stores its answer straight into mapped host memory; a longer read reduces
 * into device memory with atomics, copied back.
 */
template <typename Key>
static radik_status
differing_bits(Workspace *ws, cudaStream_t stream, const Key *keys, uint64_t n, uint64_t stride,
			   unsigned long long *differ, radik_error *err)
{
	unsigned long long masks[2];	/* the bits all the keys have, the bits any has */

	if (n <= NARROW_SORT_SAMPLE)
	{
		if (ws->sample_bits == NULL)
		{
			STATUS_TRY(mapped_host_alloc((void **) &ws->sample_bits,
										 (void **) &ws->sample_bits_device,
										 2 * sizeof(unsigned long long), err));
		}
		CUDA_TRY(radik::launch_key_bits<Key>(keys, n, stride, ws->sample_bits_device, 1, stream));
		CUDA_TRY(cudaStreamSynchronize(stream));
		masks[0] = ((volatile unsigned long long *) ws->sample_bits)[0];
		masks[1] = ((volatile unsigned long long *) ws->sample_bits)[1];
	}
	else
	{
		unsigned long long *device_masks = (unsigned long long *) ws->scalar.ptr;

		CUDA_TRY(cudaMemsetAsync(device_masks, 0xff, sizeof(unsigned long long), stream));
		CUDA_TRY(cudaMemsetAsync(device_masks + 1, 0, sizeof(unsigned long long), stream));
		CUDA_TRY(radik::launch_key_bits<Key>(keys, n, stride, device_masks,
											 (uint64_t) multiprocessors * 4, stream));
		CUDA_TRY(cudaMemcpyAsync(masks, device_masks, sizeof(masks), cudaMemcpyDeviceToHost,
								 stream));
		CUDA_TRY(cudaStreamSynchronize(stream));
	}
	*differ = masks[0] ^ masks[1];
	return RADIK_OK;
}

/* Passes of cub's radix sort over the bits set in differ (its digits are 8 bits wide too). */
static int
sort_passes(unsigned long long differ)
{
	const int	bits = differ == 0 ? 1 : 64 - __builtin_clzll(differ) - __builtin_ctzll(differ);

	return (bits + radik::DIGIT_BITS - 1) / radik::DIGIT_BITS;
}

/*
 * The bits [*begin_bit, *end_bit) outside which the count keys never differ, for a sort of them
 * (cub's radix sort takes that range; the order on it is the order on the whole keys).  Large
 * inputs only (NARROW_SORT_MIN_ENTRIES), others get every bit.  A strided sample of the keys is
 * read first: where its keys already differ across as many digits as the key has (uniform keys),
 * so do all of them and the whole read is skipped.  *end_bit == 0: all the keys are equal, no
 * sort needed.  ws->scalar must hold two words (prepare_selection).
 */
template <typename Key>
static radik_status
sort_bit_range(Workspace *ws, cudaStream_t stream, const Key *keys, uint64_t count,
			   int *begin_bit, int *end_bit, radik_error *err)
{
	constexpr int KEY_BITS = (int) sizeof(Key) * 8;
	unsigned long long differ = 0;

	*begin_bit = 0;
	*end_bit = KEY_BITS;
	if (count < NARROW_SORT_MIN_ENTRIES)
		return RADIK_OK;
	STATUS_TRY(differing_bits<Key>(ws, stream, keys, NARROW_SORT_SAMPLE,
								   count / NARROW_SORT_SAMPLE, &differ, err));
	if (sort_passes(differ) == KEY_BITS / radik::DIGIT_BITS)
		return RADIK_OK;
	STATUS_TRY(differing_bits<Key>(ws, stream, keys, count, 1, &differ, err));
	if (differ == 0)
		*end_bit = 0;			/* all equal: already in order */
	else
	{
		*begin_bit = __builtin_ctzll(differ);
		*end_bit = 64 - __builtin_clzll(differ);
	}
	return RADIK_OK;
}

/*
 * Sort count pairs by key into sorted_keys/sorted_ids, on the bits where the keys differ
 * (sort_bit_range); keys all equal are copied as they are.  ws->sort_temp must be sized for count.
 * narrow: ids holds 32-bit indexes (store_out_id); they are sorted into the second candidate
 * buffer (free once a selection is done, and never a caller's destination) and widened into
 * sorted_ids.
 */
template <typename Key>
static radik_status
sort_pairs(Workspace *ws, cudaStream_t stream, const Key *keys, const uint64_t *ids,
		   Key *sorted_keys, uint64_t *sorted_ids, uint64_t count, bool narrow, radik_error *err)
{
	size_t		temp_bytes = ws->sort_temp.bytes;
	const uint32_t *indexes = (const uint32_t *) ids;
	uint32_t   *sorted_indexes = (uint32_t *) ws->candidate_ids[1].ptr;
	int			begin_bit;
	int			end_bit;

	STATUS_TRY(sort_bit_range<Key>(ws, stream, keys, count, &begin_bit, &end_bit, err));
	if (end_bit == 0)
	{
		CUDA_TRY(cudaMemcpyAsync(sorted_keys, keys, count * sizeof(Key), cudaMemcpyDeviceToDevice,
								 stream));
		if (!narrow)
		{
			CUDA_TRY(cudaMemcpyAsync(sorted_ids, ids, count * sizeof(uint64_t),
									 cudaMemcpyDeviceToDevice, stream));
			return RADIK_OK;
		}
		sorted_indexes = (uint32_t *) indexes;	/* widened below as they are */
	}
	else if (!narrow)
	{
		CUDA_TRY(radix_sort_pairs(ws->sort_temp.ptr, &temp_bytes, keys, sorted_keys, ids,
								  sorted_ids, count, begin_bit, end_bit, stream));
		return RADIK_OK;
	}
	else
		CUDA_TRY(radix_sort_pairs(ws->sort_temp.ptr, &temp_bytes, keys, sorted_keys, indexes,
								  sorted_indexes, count, begin_bit, end_bit, stream));

	CUDA_TRY(radik::launch_widen_ids(sorted_indexes, sorted_ids, count, multiprocessors, stream));
	return RADIK_OK;
}

/*
 * Select on stream: segment s of keys (offsets[s] .. offsets[s+1], host array) keeps its
 * min(ks[s], length) smallest, written unsorted to out_keys/out_ids at out_offsets[s]; then, if
 * sorted_keys is not NULL, sorted into sorted_keys/sorted_ids at the same offsets.  ws must have
 * been prepared for these sizes; its candidate buffers must not be the input.
 */
template <typename Key>
static radik_status
run_selection(Workspace *ws, cudaStream_t stream, const Key *keys, const uint64_t *ids,
			  size_t segments, const uint64_t *offsets, const uint64_t *ks,
			  const uint64_t *out_offsets, Key *out_keys, uint64_t *out_ids,
			  Key *sorted_keys, uint64_t *sorted_ids, radik_error *err)
{
	constexpr int KEY_BITS = (int) sizeof(Key) * 8;
	/*
	 * Round 0 (speculative pass or full window), round 1 (the window, whose outside bins may
	 * send the selection back to the top digit), then at most one round per digit.
	 */
	constexpr int ROUNDS = 2 + KEY_BITS / radik::DIGIT_BITS;
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
	const bool	dense = total_out * radik::DENSE_OUTPUT_RATIO > offsets[segments] - offsets[0];
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
		const unsigned int width = radik::grid_width<Key>(max_length, here, multiprocessors);

		a.segment_base = (int) first;
		CUDA_TRY(radik::launch_sample<Key>(a, here, stream));
		if (dense)
			CUDA_TRY(radik::launch_dense_first<Key>(a, width, here, stream));
		else
			CUDA_TRY((radik::launch_filter<Key, true>(a, 0, width, here, stream)));
		CUDA_TRY(radik::launch_check_speculation<Key>(a, here, stream));
		/* the dense pass's candidates' next digit, where the speculation held */
		if (dense)
			CUDA_TRY((radik::launch_histogram<Key, true>(a, width, here, stream)));
		/* a full round 0 where the speculation missed (the kernels exit at once elsewhere) */
		CUDA_TRY((radik::launch_histogram<Key, false>(a, width, here, stream)));
	}
	for (int round = 0; round < ROUNDS; round++)
		for (size_t first = 0; first < segments; first += MAX_SEGMENTS_PER_LAUNCH)
		{
			const unsigned int here = (unsigned int) (segments - first < MAX_SEGMENTS_PER_LAUNCH ?
													  segments - first : MAX_SEGMENTS_PER_LAUNCH);
			const unsigned int width = radik::grid_width<Key>(max_length, here, multiprocessors);

			a.segment_base = (int) first;
			CUDA_TRY(radik::launch_choose<Key>(a, round, here, stream));
			if (dense)
				CUDA_TRY(radik::launch_filter_dense<Key>(a, round, width, here, stream));
			else
				CUDA_TRY((radik::launch_filter<Key, false>(a, round, width, here, stream)));
		}

	if (sorted_keys == NULL || total_out == 0)
		return RADIK_OK;

	size_t		temp_bytes = ws->sort_temp.bytes;

	if (segments == 1)
		STATUS_TRY(sort_pairs<Key>(ws, stream, out_keys + out_offsets[0], out_ids + out_offsets[0],
								   sorted_keys + out_offsets[0], sorted_ids + out_offsets[0],
								   total_out - out_offsets[0], a.narrow_out_ids != 0, err));
	else
		CUDA_TRY(cub::DeviceSegmentedSort::SortPairs(ws->sort_temp.ptr, temp_bytes,
													 out_keys, sorted_keys, out_ids, sorted_ids,
													 (int64_t) total_out, (int64_t) segments,
													 device_arrays + 2 * segments + 1,
													 device_arrays + 3 * segments + 1, stream));
	return RADIK_OK;
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
	if (!radik_gpu_get_switches().sorted_output)	/* the caller's buffers take the unsorted answer */
		return run_selection<Key>(ws, stream, keys, ids, segments, offsets, ks, out_offsets,
								  sorted_keys, sorted_ids, NULL, NULL, err);
	return run_selection<Key>(ws, stream, keys, ids, segments, offsets, ks, out_offsets,
							  (Key *) ws->out_keys.ptr, (uint64_t *) ws->out_ids.ptr,
							  sorted_keys, sorted_ids, err);
}

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
	ws->in_use = 0;
	if (ws != &cached_workspace)
	{
		(void) cudaStreamSynchronize(stream);
		workspace_free(ws);
		free(ws);
	}
	return status;
}

/* ---------------------------------------------------------------------------------------------
 * Streaming selection
 */

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

static radik_status
reserve_pinned(Workspace *ws, size_t entries, radik_error *err)
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

/* Entries of each pinned chunk buffer for a selection of about expected_rows (0: unknown). */
static size_t
chunk_entries(uint64_t expected_rows)
{
	if (expected_rows == 0)
		return DEFAULT_CHUNK_ENTRIES;
	return expected_rows < MIN_CHUNK_ENTRIES ? MIN_CHUNK_ENTRIES :
		expected_rows > MAX_CHUNK_ENTRIES ? MAX_CHUNK_ENTRIES : (size_t) expected_rows;
}

/* ---------------------------------------------------------------------------------------------
 * Starting the GPU in the background
 *
 * A process's first GPU selection used to begin with the GPU's start: the driver's
 * initialisation and the CUDA context (about 200 ms on the H200 host), then the pinned chunk
 * buffers (cudaHostAlloc, about 0.4 ms a MB: 50-65 ms for the 128 MB of a large table's), which
 * made a session's first query five times slower than its second (20M rows, 8 workers: 290-330
 * ms against 60).  radik_gpu_start_in_background does the same work on a thread of its own and
 * returns at once, so that the caller can select on the CPU meanwhile.
 *
 * The thread calls nothing but CUDA and this file's start-up code (probe_device, the cached
 * workspace's stream and pinned buffers); it is created with every signal blocked, so the
 * caller's signal handlers keep running on the caller's thread (and CUDA's own threads, created
 * from it, inherit the mask).  Every entry point that touches CUDA or what the thread writes
 * (radik_gpu_probe, which radik_open and radik_select_batch call first, and
 * radik_gpu_release_cache) joins the thread before it goes on; the selection calls need a
 * selection, which only an open after the probe makes.  So nothing of the engine runs beside
 * the start.  A process must not exit while the thread runs: the caller joins it first
 * (radik_gpu_wait_for_start; the PostgreSQL side does so in an on_proc_exit callback).  The join
 * has no time limit: a driver that hangs in its start would hold the backend's exit, as it held
 * the query that started it before.
 */

static pthread_t start_thread;
static int	start_thread_running;	/* created and not yet joined (the caller's thread only) */
static int	start_thread_done;	/* set by the thread as it ends (atomic loads and stores) */
static size_t start_chunk_entries;

static void *
start_in_background(void *unused)
{
	radik_error err;
	Workspace  *ws;

	(void) unused;
	probe_device();
	if (probe_status == RADIK_OK && workspace_acquire(&ws, &err) == RADIK_OK)
	{
		/* a failure here is only a missed head start: radik_gpu_open tries again */
		(void) reserve_pinned(ws, start_chunk_entries, &err);
		workspace_release(ws);
	}
	__atomic_store_n(&start_thread_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void
wait_for_background_start(void)
{
	if (!start_thread_running)
		return;
	(void) pthread_join(start_thread, NULL);
	start_thread_running = 0;
}

RADIK_EXPORT radik_status
radik_gpu_start_in_background(uint64_t expected_rows, radik_error *err)
{
	sigset_t	all;
	sigset_t	caller_mask;
	int			rc;

	if (start_thread_running || probe_done)
		return RADIK_OK;
	start_chunk_entries = chunk_entries(expected_rows);
	__atomic_store_n(&start_thread_done, 0, __ATOMIC_RELEASE);
	sigfillset(&all);
	if ((rc = pthread_sigmask(SIG_SETMASK, &all, &caller_mask)) != 0)
		return radik_fail(err, RADIK_DEVICE_ERROR, "could not block signals for the GPU start: %s",
						  strerror(rc));
	rc = pthread_create(&start_thread, NULL, start_in_background, NULL);
	(void) pthread_sigmask(SIG_SETMASK, &caller_mask, NULL);
	if (rc != 0)
		return radik_fail(err, RADIK_DEVICE_ERROR, "could not start a thread for the GPU start: %s",
						  strerror(rc));
	start_thread_running = 1;
	return RADIK_OK;
}

RADIK_EXPORT int
radik_gpu_starting(void)
{
	if (!start_thread_running)
		return 0;
	if (!__atomic_load_n(&start_thread_done, __ATOMIC_ACQUIRE))
		return 1;
	wait_for_background_start();	/* it has ended: the join does not wait */
	return 0;
}

RADIK_EXPORT void
radik_gpu_wait_for_start(void)
{
	wait_for_background_start();
}

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
	if (device_bytes_limit > 0 && device_bytes_held > device_bytes_limit &&
		!cached_workspace.in_use)
		workspace_free(&cached_workspace);
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

RADIK_EXPORT radik_status
radik_gpu_push_chunk(void *state, size_t n, radik_error *err)
{
	GpuSelection *sel = (GpuSelection *) state;
	Workspace  *ws = sel->ws;
	const int	i = sel->current;
	const size_t kb = (size_t) sel->key_bytes;
	const uint64_t needed = sel->count + n;
	const uint64_t slack = sel->k > sel->chunk_capacity ? sel->k : sel->chunk_capacity;

	if (n == 0)
		return RADIK_OK;
	STATUS_TRY(buffer_reserve(&ws->work_keys, needed * kb, sel->count * kb, ws->stream, err));
	STATUS_TRY(buffer_reserve(&ws->work_ids, needed * sizeof(uint64_t),
							  sel->count * sizeof(uint64_t), ws->stream, err));
	CUDA_TRY(cudaMemcpyAsync((char *) ws->work_keys.ptr + sel->count * kb, ws->pinned_keys[i],
							 n * kb, cudaMemcpyHostToDevice, ws->stream));
	CUDA_TRY(cudaMemcpyAsync((uint64_t *) ws->work_ids.ptr + sel->count, ws->pinned_ids[i],
							 n * sizeof(uint64_t), cudaMemcpyHostToDevice, ws->stream));
	CUDA_TRY(cudaEventRecord(ws->chunk_copied[i], ws->stream));
	ws->chunk_pending[i] = 1;
	sel->current = 1 - i;
	sel->count = needed;
	/* cut back once the rows reach k + max(k, chunk): each row is selected over O(1) times */
	if (sel->count > sel->k && sel->count - sel->k >= slack)
		STATUS_TRY(compact_any(sel, err));
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
		CUDA_TRY(radik::launch_max_key<uint32_t>((const uint32_t *) ws->work_keys.ptr, sel->count,
												 device_highest, multiprocessors, ws->stream));
	else
		CUDA_TRY(radik::launch_max_key<uint64_t>((const uint64_t *) ws->work_keys.ptr, sel->count,
												 device_highest, multiprocessors, ws->stream));
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

/* Copy count sorted entries of device arrays to the caller, widening 32-bit keys. */
static radik_status
copy_result(int key_bytes, const void *device_keys, const uint64_t *device_ids, uint64_t count,
			uint64_t *keys, uint64_t *ids, cudaStream_t stream, radik_error *err)
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
	return device_name;
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

/* ---------------------------------------------------------------------------------------------
 * Batch selection over host arrays
 */

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

RADIK_EXPORT void
radik_gpu_release_cache(void)
{
	wait_for_background_start();
	if (!probe_done || probe_status != RADIK_OK)
		return;					/* CUDA was never touched: nothing to give back */
	if (!cached_workspace.in_use)
		workspace_free(&cached_workspace);
}
