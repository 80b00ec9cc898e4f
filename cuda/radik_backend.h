/*
 * radik_backend.h
 *	  Inside the engine: what each backend (the CPU twin in radik_cpu.c, the CUDA engine in
 *	  radik_gpu_*.cu) provides to the dispatcher in radik_dispatch.c.
 *
 * Each backend implements the streaming selection and the batch selection of radik_engine.h over
 * an opaque state of its own; the dispatcher checks arguments once, routes each call by the
 * device chosen at open time, and owns the public radik_selection handle.  Arguments reaching a
 * backend are already validated (key_bytes is 4 or 8, calls come in order, k >= 1).
 */
#ifndef RADIK_BACKEND_H
#define RADIK_BACKEND_H

#include "radik_engine.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RADIK_BACKEND_FUNCTIONS(prefix) \
radik_status prefix##_open(int key_bytes, uint64_t k, uint64_t expected_rows, void **state, \
						   radik_error *err); \
radik_status prefix##_chunk_buffer(void *state, void **keys, uint64_t **ids, size_t *capacity, \
								   radik_error *err); \
radik_status prefix##_push_chunk(void *state, size_t n, radik_error *err); \
radik_status prefix##_threshold(void *state, uint64_t *kth_key, int *valid, radik_error *err); \
radik_status prefix##_finish(void *state, uint64_t *count, radik_error *err); \
radik_status prefix##_result(void *state, uint64_t *keys, uint64_t *ids, radik_error *err); \
const char *prefix##_device_name(void *state); \
void		prefix##_close(void *state); \
radik_status prefix##_select_batch(int key_bytes, const void *keys, const uint64_t *ids, \
								   const uint64_t *offsets, size_t segments, const uint64_t *ks, \
								   const uint64_t *out_offsets, uint64_t *out_keys, \
								   uint64_t *out_ids, uint64_t *out_counts, radik_error *err); \
void		prefix##_release_cache(void);

RADIK_BACKEND_FUNCTIONS(radik_cpu)
RADIK_BACKEND_FUNCTIONS(radik_gpu)

/*
 * The GPU backend's side of radik_set_gpu_memory_limit, radik_set_gpu_workspaces,
 * radik_register_host_memory and radik_push_keys (the dispatcher feeds the CPU twin's chunk
 * buffers itself).
 */
void		radik_gpu_set_memory_limit(uint64_t bytes);
void		radik_gpu_set_workspaces(size_t count);
radik_status radik_gpu_register_host_memory(void *ptr, size_t bytes, radik_error *err);
radik_status radik_gpu_push_keys(void *state, const void *keys, const uint64_t *ids, size_t n,
								 radik_error *err);

/* Write a formatted message into err (NULL allowed) and return status. */
radik_status radik_fail(radik_error *err, radik_status status, const char *fmt,...)
#ifdef __GNUC__
			__attribute__((format(printf, 3, 4)))
#endif
			;

#ifdef __cplusplus
}
#endif

#endif							/* RADIK_BACKEND_H */
