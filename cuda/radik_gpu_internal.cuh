/*
 * radik_gpu_internal.cuh
 *	  What the host files of the CUDA backend share: the error rules, the probe's findings, the
 *	  workspace that holds a selection's buffers, and the functions one file offers the others.
 *	  Nothing here is seen outside cuda/radik_gpu_*.cu; the door is radik_engine.h.
 *
 * The error rules: every CUDA call is checked and a failure returned as a radik_status, with
 * CUDA's own words in the message (cuda_fail, CUDA_TRY); no exception, no exit.  The entry points
 * the dispatcher calls are plain C (RADIK_EXPORT).
 */
#ifndef RADIK_GPU_INTERNAL_CUH
#define RADIK_GPU_INTERNAL_CUH

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "radik_backend.h"

#define RADIK_EXPORT extern "C" __attribute__((visibility("default")))

namespace radik
{

/* ---------------------------------------------------------------------------------------------
 * Errors
 */

/* Return a failed CUDA call as RADIK_OUT_OF_MEMORY or RADIK_DEVICE_ERROR, in CUDA's words. */
inline radik_status
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
			return radik::cuda_fail(err, cuda_try_error_, #call); \
	} while (0)

#define STATUS_TRY(call) \
	do { \
		radik_status status_try_ = (call); \
		if (status_try_ != RADIK_OK) \
			return status_try_; \
	} while (0)

/* ---------------------------------------------------------------------------------------------
 * The device (radik_gpu_start.cu)
 */

/* What the probe found out about device 0; set before radik_gpu_probe first answers RADIK_OK. */
struct DeviceInfo
{
	char		name[RADIK_ERROR_MESSAGE_SIZE];
	int			multiprocessors;
	int			programmatic_launch;	/* compute capability 9.0 or later */
};

extern DeviceInfo device_info;

/* Probe the device once a process (radik_gpu_probe without the wait and the answer). */
void		probe_device(void);

/* Whether the probe has run and found a usable device; never waits for a start. */
bool		device_probed(void);

/* Join the background start's thread if one runs (the caller's thread only). */
void		wait_for_background_start(void);

/* ---------------------------------------------------------------------------------------------
 * Workspaces (radik_gpu_memory.cu)
 */

typedef struct DeviceBuffer
{
	void	   *ptr;
	size_t		bytes;
} DeviceBuffer;

/*
 * Everything a selection runs with: device buffers, pinned host buffers, a stream.  One is cached
 * per process and kept between selections; see radik_gpu_memory.cu.
 */
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
	cudaEvent_t caller_copied;	/* radik_push_keys: the caller's entries are on the device */
	unsigned long long *staging;	/* pinned: segment arrays on their way to the device */
	size_t		staging_capacity;	/* entries */
	cudaEvent_t staging_copied;
	int			staging_pending;
	unsigned int *small_miss;	/* pinned and mapped: the one-pass small selection missed */
	unsigned int *small_miss_device;
	unsigned long long *sample_bits;	/* pinned and mapped: a sample's key bits (two words) */
	unsigned long long *sample_bits_device;
} Workspace;

/* The cached workspace if it is free, else a new private one (freed by workspace_release). */
radik_status workspace_acquire(Workspace **out, radik_error *err);

/* Hand a workspace back once its stream is idle; a private one is freed. */
void		workspace_release(Workspace *ws);

/*
 * Hand a workspace back while the caller's stream may still run its selection (the device entry
 * point); a private one is freed once that stream is idle.
 */
void		workspace_release_running(Workspace *ws, cudaStream_t stream);

/* Free the cached workspace unless a selection uses it. */
void		workspace_free_cache(void);

/* Free the cached workspace unless a selection uses it or it holds no more than the limit. */
void		workspace_trim_cache(void);

/*
 * Make b hold at least bytes.  With keep > 0, the first keep bytes survive (stream-ordered copy);
 * the old allocation is freed only once the stream is idle.
 */
radik_status buffer_reserve(DeviceBuffer *b, size_t bytes, size_t keep, cudaStream_t stream,
							radik_error *err);

/* Pinned host memory that kernels write to directly; both pointers set together, or neither. */
radik_status mapped_host_alloc(void **host, void **device, size_t bytes, radik_error *err);

/* Entries of each pinned chunk buffer for a selection of about expected_rows (0: unknown). */
size_t		chunk_entries(uint64_t expected_rows);

/* Make ws's two pinned chunk buffers hold at least entries each. */
radik_status reserve_pinned(Workspace *ws, size_t entries, radik_error *err);

/* Copy count entries of device arrays to the caller, widening 32-bit keys; waits. */
radik_status copy_result(int key_bytes, const void *device_keys, const uint64_t *device_ids,
						 uint64_t count, uint64_t *keys, uint64_t *ids, cudaStream_t stream,
						 radik_error *err);

/* ---------------------------------------------------------------------------------------------
 * The selection (radik_gpu_select.cu) and its final sort (radik_gpu_sort.cu, and
 * radik_gpu_segmented_sort.cu for many segments), for 32- and 64-bit keys (Key uint32_t or
 * uint64_t)
 */

/*
 * Reserve everything a selection of segments over total_in input entries with total_out output
 * entries needs in ws (except the input).  Call before taking pointers into ws's buffers.
 */
template <typename Key>
radik_status prepare_selection(Workspace *ws, uint64_t total_in, uint64_t total_out,
							   size_t segments, cudaStream_t stream, radik_error *err);

/*
 * Select on stream: segment s of keys (offsets[s] .. offsets[s+1], host array) keeps its
 * min(ks[s], length) smallest, written unsorted to out_keys/out_ids at out_offsets[s]; then, if
 * sorted_keys is not NULL, sorted into sorted_keys/sorted_ids at the same offsets.  ws must have
 * been prepared for these sizes; its candidate buffers must not be the input.
 */
template <typename Key>
radik_status run_selection(Workspace *ws, cudaStream_t stream, const Key *keys,
						   const uint64_t *ids, size_t segments, const uint64_t *offsets,
						   const uint64_t *ks, const uint64_t *out_offsets, Key *out_keys,
						   uint64_t *out_ids, Key *sorted_keys, uint64_t *sorted_ids,
						   radik_error *err);

/* Bytes of sort workspace for total_out entries in the given number of segments. */
template <typename Key>
radik_status sort_temp_bytes(uint64_t total_out, size_t segments, size_t *bytes,
							 radik_error *err);

/*
 * Sort count pairs by key into sorted_keys/sorted_ids.  ws->sort_temp must be sized for count.
 * narrow: ids holds 32-bit indexes (store_out_id), widened into sorted_ids.
 */
template <typename Key>
radik_status sort_pairs(Workspace *ws, cudaStream_t stream, const Key *keys, const uint64_t *ids,
						Key *sorted_keys, uint64_t *sorted_ids, uint64_t count, bool narrow,
						radik_error *err);

/* Bytes of workspace sort_segments needs for total_out entries in the given number of segments. */
template <typename Key>
radik_status segmented_sort_temp_bytes(uint64_t total_out, size_t segments, size_t *bytes,
									   radik_error *err);

/*
 * Sort each of segments runs of pairs by key: segment s is [begins[s], ends[s]) of keys/ids
 * (device arrays), total_out entries in all.  ws->sort_temp must be sized for them.
 */
template <typename Key>
radik_status sort_segments(Workspace *ws, cudaStream_t stream, const Key *keys,
						   const uint64_t *ids, Key *sorted_keys, uint64_t *sorted_ids,
						   uint64_t total_out, size_t segments, unsigned long long *begins,
						   unsigned long long *ends, radik_error *err);

}								/* namespace radik */

#endif							/* RADIK_GPU_INTERNAL_CUH */
