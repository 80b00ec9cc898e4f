/*
 * radik_gpu_device.cuh
 *	  The CUDA engine's internal entry points for callers whose keys already live on the device:
 *	  the benchmark (bench/engine/engine_bench.cu) and, later, any caller that builds its keys on
 *	  the GPU.  The PostgreSQL side never uses this header; it goes through radik_engine.h.
 */
#ifndef RADIK_GPU_DEVICE_CUH
#define RADIK_GPU_DEVICE_CUH

#include <cuda_runtime.h>

#include "radik_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Select, on stream, the ks[s] smallest of segment s = keys[offsets[s] .. offsets[s+1]) for every
 * segment, sorted by key (unless a measuring build turned the sort off: radik_gpu_switches.h),
 * into out_keys/out_ids at out_offsets[s] (device arrays of key_bytes wide keys and 64-bit ids).
 * keys and ids are device pointers (ids NULL: an entry's id is its index in its segment);
 * offsets, ks and out_offsets are host arrays.  Uses the process's cached device workspace (so
 * no selection may be open at the same time, and successive calls must use the same stream).
 * Returns without waiting for the stream, except where the selection itself must wait: the
 * one-pass small-k path (for its verdict) and a single segment's answer of 2^22 entries or more
 * (for the bits its sort needs, sort_bit_range in radik_gpu_sort.cu).  So the call cannot be
 * captured into a CUDA graph.
 */
radik_status radik_gpu_select_on_device(int key_bytes, const void *keys, const uint64_t *ids,
										size_t segments, const uint64_t *offsets,
										const uint64_t *ks, const uint64_t *out_offsets,
										void *out_keys, uint64_t *out_ids, cudaStream_t stream,
										radik_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* RADIK_GPU_DEVICE_CUH */
