/*
 * radik_gpu_absent.c
 *	  The GPU backend of a build without CUDA: every call answers RADIK_NO_DEVICE.
 *
 * The Makefile compiles this file instead of radik_gpu_*.cu when no nvcc is found, so that the
 * dispatcher (radik_dispatch.c) links the same way in every build and the PostgreSQL side needs no
 * #ifdef: asking for the GPU simply gets the normal "no device" answer, and radik falls back to
 * the CPU twin exactly as it does on a machine whose driver or GPU is missing.
 */
#include "radik_backend.h"

#include <stddef.h>

#define RADIK_WITHOUT_CUDA_MESSAGE "radik was built without CUDA"

radik_status
radik_gpu_probe(char *name, size_t name_size, radik_error *err)
{
	if (name != NULL && name_size > 0)
		name[0] = '\0';
	return radik_fail(err, RADIK_NO_DEVICE, RADIK_WITHOUT_CUDA_MESSAGE);
}

radik_status
radik_gpu_start_in_background(uint64_t expected_rows, radik_error *err)
{
	(void) expected_rows;
	return radik_fail(err, RADIK_NO_DEVICE, RADIK_WITHOUT_CUDA_MESSAGE);
}

int
radik_gpu_starting(void)
{
	return 0;
}

void
radik_gpu_wait_for_start(void)
{
}

radik_status
radik_gpu_open(int key_bytes, uint64_t k, uint64_t expected_rows, void **state,
			   radik_error *err)
{
	(void) key_bytes;
	(void) k;
	(void) expected_rows;
	if (state != NULL)
		*state = NULL;
	return radik_fail(err, RADIK_NO_DEVICE, RADIK_WITHOUT_CUDA_MESSAGE);
}

radik_status
radik_gpu_chunk_buffer(void *state, void **keys, uint64_t **ids, size_t *capacity,
					   radik_error *err)
{
	(void) state;
	(void) keys;
	(void) ids;
	(void) capacity;
	return radik_fail(err, RADIK_NO_DEVICE, RADIK_WITHOUT_CUDA_MESSAGE);
}

radik_status
radik_gpu_push_chunk(void *state, size_t n, radik_error *err)
{
	(void) state;
	(void) n;
	return radik_fail(err, RADIK_NO_DEVICE, RADIK_WITHOUT_CUDA_MESSAGE);
}

radik_status
radik_gpu_threshold(void *state, uint64_t *kth_key, int *valid, radik_error *err)
{
	(void) state;
	(void) kth_key;
	(void) valid;
	return radik_fail(err, RADIK_NO_DEVICE, RADIK_WITHOUT_CUDA_MESSAGE);
}

radik_status
radik_gpu_finish(void *state, uint64_t *count, radik_error *err)
{
	(void) state;
	(void) count;
	return radik_fail(err, RADIK_NO_DEVICE, RADIK_WITHOUT_CUDA_MESSAGE);
}

radik_status
radik_gpu_result(void *state, uint64_t *keys, uint64_t *ids, radik_error *err)
{
	(void) state;
	(void) keys;
	(void) ids;
	return radik_fail(err, RADIK_NO_DEVICE, RADIK_WITHOUT_CUDA_MESSAGE);
}

const char *
radik_gpu_device_name(void *state)
{
	(void) state;
	return "none";
}

void
radik_gpu_close(void *state)
{
	(void) state;
}

radik_status
radik_gpu_select_batch(int key_bytes, const void *keys, const uint64_t *ids,
					   const uint64_t *offsets, size_t segments, const uint64_t *ks,
					   const uint64_t *out_offsets, uint64_t *out_keys,
					   uint64_t *out_ids, uint64_t *out_counts, radik_error *err)
{
	(void) key_bytes;
	(void) keys;
	(void) ids;
	(void) offsets;
	(void) segments;
	(void) ks;
	(void) out_offsets;
	(void) out_keys;
	(void) out_ids;
	(void) out_counts;
	return radik_fail(err, RADIK_NO_DEVICE, RADIK_WITHOUT_CUDA_MESSAGE);
}

void
radik_gpu_release_cache(void)
{
}

void
radik_gpu_set_memory_limit(uint64_t bytes)
{
	(void) bytes;
}

void
radik_gpu_set_workspaces(size_t count)
{
	(void) count;
}

radik_status
radik_gpu_register_host_memory(void *ptr, size_t bytes, radik_error *err)
{
	(void) ptr;
	(void) bytes;
	return radik_fail(err, RADIK_NO_DEVICE, "radik was built without CUDA");
}

radik_status
radik_gpu_push_keys(void *state, const void *keys, const uint64_t *ids, size_t n,
					radik_error *err)
{
	(void) state;
	(void) keys;
	(void) ids;
	(void) n;
	return radik_fail(err, RADIK_NO_DEVICE, "radik was built without CUDA");
}
