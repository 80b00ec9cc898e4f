/*
 * radik_dispatch.c
 *	  The dispatcher behind radik_engine.h: checks every caller's argument once, keeps the
 *	  selection's call order, and routes each call to the CPU twin (radik_cpu.c) or the CUDA
 *	  engine (radik_gpu_*.cu) through the contract of radik_backend.h.
 *
 * Why a dispatcher at all: both backends must behave identically at the door (same argument
 * checks, same order rules, same answers for the edge cases), and checking in one place is the
 * only way to keep them from drifting apart.  The backends may therefore assume what
 * radik_backend.h promises: key_bytes is 4 or 8, calls come in order, and k >= 1.
 *
 * The edge cases the dispatcher answers itself, so that no backend ever sees them:
 *  - k = 0 selects nothing.  No backend state is opened; radik_chunk_buffer hands out a small
 *	  static scratch buffer whose contents are ignored, and radik_finish reports 0 entries.
 *  - batch segments whose k is 0 get a count of 0; the others are passed on in runs of
 *	  consecutive segments (offsets, ids and output offsets are absolute, so a run is just a
 *	  window into the caller's arrays and nothing is copied).
 *  - after any backend failure the selection is marked failed: every later call but
 *	  radik_close answers RADIK_INVALID_ARGUMENT instead of touching half-built state.
 *
 * The engine is not thread-safe: one PostgreSQL backend is one thread, and the buffer caches
 * of both backends are process-wide.
 */
#include "radik_backend.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a streaming selection stands. */
typedef enum radik_phase
{
	RADIK_PHASE_STREAMING,		/* accepting chunks */
	RADIK_PHASE_FINISHED,		/* radik_finish done; radik_result may be called */
	RADIK_PHASE_FAILED			/* a backend call failed; only radik_close is allowed */
} radik_phase;

struct radik_selection
{
	radik_device device;
	int			key_bytes;
	uint64_t	k;
	void	   *backend_state;	/* NULL when k == 0 */
	radik_phase phase;
	int			buffer_handed_out;	/* radik_chunk_buffer called since the last push */
	size_t		buffer_capacity;	/* capacity of the buffer handed out */
	uint64_t	count;			/* radik_finish's answer */
	char		device_name[RADIK_ERROR_MESSAGE_SIZE];
};

/* The ignored chunk buffer of k = 0 selections (shared: nobody ever reads it). */
#define RADIK_EMPTY_SELECTION_CAPACITY 4096
static uint64_t empty_selection_keys[RADIK_EMPTY_SELECTION_CAPACITY];
static uint64_t empty_selection_ids[RADIK_EMPTY_SELECTION_CAPACITY];

radik_status
radik_fail(radik_error *err, radik_status status, const char *fmt,...)
{
	if (err != NULL)
	{
		va_list		args;

		va_start(args, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, args);
		va_end(args);
	}
	return status;
}

/* A backend call's status; a failure leaves the selection failed for good. */
static radik_status
radik_backend_outcome(radik_selection *selection, radik_status status)
{
	if (status != RADIK_OK)
		selection->phase = RADIK_PHASE_FAILED;
	return status;
}

/* Common checks of every call on an open selection: is it usable in the wanted phase? */
static radik_status
radik_check_phase(const radik_selection *selection, radik_phase wanted, const char *call,
				  radik_error *err)
{
	if (selection == NULL)
		return radik_fail(err, RADIK_INVALID_ARGUMENT, "%s: selection is NULL", call);
	if (selection->phase == RADIK_PHASE_FAILED)
		return radik_fail(err, RADIK_INVALID_ARGUMENT,
						  "%s: the selection failed earlier and can only be closed", call);
	if (selection->phase != wanted)
		return radik_fail(err, RADIK_INVALID_ARGUMENT, "%s: called %s radik_finish", call,
						  wanted == RADIK_PHASE_STREAMING ? "after" : "before");
	return RADIK_OK;
}

radik_status
radik_open(radik_device device, int key_bytes, uint64_t k, uint64_t expected_rows,
		   radik_selection **selection, radik_error *err)
{
	radik_selection *opened;
	radik_status status;

	if (selection == NULL)
		return radik_fail(err, RADIK_INVALID_ARGUMENT, "radik_open: selection pointer is NULL");
	*selection = NULL;
	if (device != RADIK_DEVICE_CPU && device != RADIK_DEVICE_GPU)
		return radik_fail(err, RADIK_INVALID_ARGUMENT, "radik_open: unknown device %d",
						  (int) device);
	if (key_bytes != 4 && key_bytes != 8)
		return radik_fail(err, RADIK_INVALID_ARGUMENT,
						  "radik_open: key width must be 4 or 8 bytes, not %d", key_bytes);

	opened = calloc(1, sizeof(*opened));
	if (opened == NULL)
		return radik_fail(err, RADIK_OUT_OF_MEMORY, "radik_open: out of host memory");
	opened->device = device;
	opened->key_bytes = key_bytes;
	opened->k = k;
	opened->phase = RADIK_PHASE_STREAMING;

	if (device == RADIK_DEVICE_GPU)
	{
		status = radik_gpu_probe(opened->device_name, sizeof(opened->device_name), err);
		if (status != RADIK_OK)
		{
			free(opened);
			return status;
		}
	}
	else
		snprintf(opened->device_name, sizeof(opened->device_name), "cpu");

	if (k > 0)
	{
		status = device == RADIK_DEVICE_GPU ?
			radik_gpu_open(key_bytes, k, expected_rows, &opened->backend_state, err) :
			radik_cpu_open(key_bytes, k, expected_rows, &opened->backend_state, err);
		if (status != RADIK_OK)
		{
			free(opened);
			return status;
		}
	}
	*selection = opened;
	return RADIK_OK;
}

radik_status
radik_chunk_buffer(radik_selection *selection, void **keys, uint64_t **ids, size_t *capacity,
				   radik_error *err)
{
	radik_status status;

	status = radik_check_phase(selection, RADIK_PHASE_STREAMING, "radik_chunk_buffer", err);
	if (status != RADIK_OK)
		return status;
	if (keys == NULL || ids == NULL || capacity == NULL)
		return radik_fail(err, RADIK_INVALID_ARGUMENT,
						  "radik_chunk_buffer: keys, ids and capacity must not be NULL");

	if (selection->backend_state == NULL)
	{
		*keys = empty_selection_keys;
		*ids = empty_selection_ids;
		*capacity = RADIK_EMPTY_SELECTION_CAPACITY;
	}
	else
	{
		status = selection->device == RADIK_DEVICE_GPU ?
			radik_gpu_chunk_buffer(selection->backend_state, keys, ids, capacity, err) :
			radik_cpu_chunk_buffer(selection->backend_state, keys, ids, capacity, err);
		if (status != RADIK_OK)
			return radik_backend_outcome(selection, status);
	}
	selection->buffer_handed_out = 1;
	selection->buffer_capacity = *capacity;
	return RADIK_OK;
}

radik_status
radik_push_chunk(radik_selection *selection, size_t n, radik_error *err)
{
	radik_status status;

	status = radik_check_phase(selection, RADIK_PHASE_STREAMING, "radik_push_chunk", err);
	if (status != RADIK_OK)
		return status;
	if (!selection->buffer_handed_out)
		return radik_fail(err, RADIK_INVALID_ARGUMENT,
						  "radik_push_chunk: no chunk buffer was asked for since the last push");
	if (n > selection->buffer_capacity)
		return radik_fail(err, RADIK_INVALID_ARGUMENT,
						  "radik_push_chunk: %zu entries exceed the chunk buffer's %zu",
						  n, selection->buffer_capacity);
	selection->buffer_handed_out = 0;
	if (selection->backend_state == NULL)
		return RADIK_OK;
	status = selection->device == RADIK_DEVICE_GPU ?
		radik_gpu_push_chunk(selection->backend_state, n, err) :
		radik_cpu_push_chunk(selection->backend_state, n, err);
	return radik_backend_outcome(selection, status);
}

/* The CPU twin's radik_push_keys: through its chunk buffers. */
static radik_status
radik_cpu_push_keys(void *state, int key_bytes, const unsigned char *keys, const uint64_t *ids,
					size_t n, radik_error *err)
{
	size_t		done = 0;

	while (done < n)
	{
		void	   *chunk_keys;
		uint64_t   *chunk_ids;
		size_t		capacity;
		size_t		size;
		radik_status status;

		status = radik_cpu_chunk_buffer(state, &chunk_keys, &chunk_ids, &capacity, err);
		if (status != RADIK_OK)
			return status;
		size = n - done < capacity ? n - done : capacity;
		memcpy(chunk_keys, keys + done * key_bytes, size * key_bytes);
		memcpy(chunk_ids, ids + done, size * sizeof(uint64_t));
		status = radik_cpu_push_chunk(state, size, err);
		if (status != RADIK_OK)
			return status;
		done += size;
	}
	return RADIK_OK;
}

radik_status
radik_push_keys(radik_selection *selection, const void *keys, const uint64_t *ids, size_t n,
				radik_error *err)
{
	radik_status status;

	status = radik_check_phase(selection, RADIK_PHASE_STREAMING, "radik_push_keys", err);
	if (status != RADIK_OK)
		return status;
	if (selection->buffer_handed_out)
		return radik_fail(err, RADIK_INVALID_ARGUMENT,
						  "radik_push_keys: called between radik_chunk_buffer and radik_push_chunk");
	if (n > 0 && (keys == NULL || ids == NULL))
		return radik_fail(err, RADIK_INVALID_ARGUMENT,
						  "radik_push_keys: keys and ids must not be NULL");
	if (selection->backend_state == NULL || n == 0)
		return RADIK_OK;
	status = selection->device == RADIK_DEVICE_GPU ?
		radik_gpu_push_keys(selection->backend_state, keys, ids, n, err) :
		radik_cpu_push_keys(selection->backend_state, selection->key_bytes, keys, ids, n, err);
	return radik_backend_outcome(selection, status);
}

radik_status
radik_threshold(radik_selection *selection, uint64_t *kth_key, int *valid, radik_error *err)
{
	radik_status status;

	status = radik_check_phase(selection, RADIK_PHASE_STREAMING, "radik_threshold", err);
	if (status != RADIK_OK)
		return status;
	if (kth_key == NULL || valid == NULL)
		return radik_fail(err, RADIK_INVALID_ARGUMENT,
						  "radik_threshold: kth_key and valid must not be NULL");
	*kth_key = 0;
	*valid = 0;
	if (selection->backend_state == NULL)
		return RADIK_OK;		/* k = 0: there is no k-th key */
	status = selection->device == RADIK_DEVICE_GPU ?
		radik_gpu_threshold(selection->backend_state, kth_key, valid, err) :
		radik_cpu_threshold(selection->backend_state, kth_key, valid, err);
	return radik_backend_outcome(selection, status);
}

radik_status
radik_finish(radik_selection *selection, uint64_t *count, radik_error *err)
{
	radik_status status;

	status = radik_check_phase(selection, RADIK_PHASE_STREAMING, "radik_finish", err);
	if (status != RADIK_OK)
		return status;
	if (count == NULL)
		return radik_fail(err, RADIK_INVALID_ARGUMENT, "radik_finish: count must not be NULL");
	*count = 0;
	selection->buffer_handed_out = 0;
	if (selection->backend_state != NULL)
	{
		status = selection->device == RADIK_DEVICE_GPU ?
			radik_gpu_finish(selection->backend_state, count, err) :
			radik_cpu_finish(selection->backend_state, count, err);
		if (status != RADIK_OK)
			return radik_backend_outcome(selection, status);
	}
	selection->count = *count;
	selection->phase = RADIK_PHASE_FINISHED;
	return RADIK_OK;
}

radik_status
radik_result(radik_selection *selection, uint64_t *keys, uint64_t *ids, radik_error *err)
{
	radik_status status;

	status = radik_check_phase(selection, RADIK_PHASE_FINISHED, "radik_result", err);
	if (status != RADIK_OK)
		return status;
	if (selection->count == 0 || (keys == NULL && ids == NULL))
		return RADIK_OK;
	status = selection->device == RADIK_DEVICE_GPU ?
		radik_gpu_result(selection->backend_state, keys, ids, err) :
		radik_cpu_result(selection->backend_state, keys, ids, err);
	return radik_backend_outcome(selection, status);
}

const char *
radik_selection_device_name(const radik_selection *selection)
{
	if (selection == NULL)
		return "none";
	return selection->device_name;
}

void
radik_close(radik_selection *selection)
{
	if (selection == NULL)
		return;
	if (selection->backend_state != NULL)
	{
		if (selection->device == RADIK_DEVICE_GPU)
			radik_gpu_close(selection->backend_state);
		else
			radik_cpu_close(selection->backend_state);
	}
	free(selection);
}

radik_status
radik_select_batch(radik_device device, int key_bytes, const void *keys,
				   const uint64_t *ids, const uint64_t *offsets, size_t segments,
				   const uint64_t *ks, const uint64_t *out_offsets,
				   uint64_t *out_keys, uint64_t *out_ids, uint64_t *out_counts,
				   radik_error *err)
{
	radik_status status;
	size_t		s;
	size_t		run_start;
	uint64_t	total_keys;

	if (device != RADIK_DEVICE_CPU && device != RADIK_DEVICE_GPU)
		return radik_fail(err, RADIK_INVALID_ARGUMENT, "radik_select_batch: unknown device %d",
						  (int) device);
	if (key_bytes != 4 && key_bytes != 8)
		return radik_fail(err, RADIK_INVALID_ARGUMENT,
						  "radik_select_batch: key width must be 4 or 8 bytes, not %d",
						  key_bytes);
	if (device == RADIK_DEVICE_GPU)
	{
		char		device_name[RADIK_ERROR_MESSAGE_SIZE];

		status = radik_gpu_probe(device_name, sizeof(device_name), err);
		if (status != RADIK_OK)
			return status;
	}
	if (segments == 0)
		return RADIK_OK;
	if (offsets == NULL || ks == NULL || out_offsets == NULL || out_counts == NULL ||
		out_keys == NULL || out_ids == NULL)
		return radik_fail(err, RADIK_INVALID_ARGUMENT,
						  "radik_select_batch: offsets, ks, out_offsets, out_keys, out_ids and out_counts must not be NULL");
	for (s = 0; s < segments; s++)
		if (offsets[s + 1] < offsets[s])
			return radik_fail(err, RADIK_INVALID_ARGUMENT,
							  "radik_select_batch: offsets decrease at segment %zu", s);
	total_keys = offsets[segments] - offsets[0];
	if (total_keys > 0 && keys == NULL)
		return radik_fail(err, RADIK_INVALID_ARGUMENT, "radik_select_batch: keys is NULL");

	/* Segments with k = 0 are answered here; runs of the others go to the backend. */
	run_start = 0;
	for (s = 0; s <= segments; s++)
	{
		if (s < segments && ks[s] != 0)
			continue;
		if (s > run_start)
		{
			status = device == RADIK_DEVICE_GPU ?
				radik_gpu_select_batch(key_bytes, keys, ids, offsets + run_start, s - run_start,
									   ks + run_start, out_offsets + run_start, out_keys,
									   out_ids, out_counts + run_start, err) :
				radik_cpu_select_batch(key_bytes, keys, ids, offsets + run_start, s - run_start,
									   ks + run_start, out_offsets + run_start, out_keys,
									   out_ids, out_counts + run_start, err);
			if (status != RADIK_OK)
				return status;
		}
		if (s < segments)
			out_counts[s] = 0;
		run_start = s + 1;
	}
	return RADIK_OK;
}

void
radik_set_gpu_memory_limit(uint64_t bytes)
{
	radik_gpu_set_memory_limit(bytes);
}

void
radik_set_gpu_workspaces(size_t count)
{
	radik_gpu_set_workspaces(count);
}

radik_status
radik_register_host_memory(void *ptr, size_t bytes, radik_error *err)
{
	if (ptr == NULL || bytes == 0)
		return radik_fail(err, RADIK_INVALID_ARGUMENT,
						  "radik_register_host_memory: no memory given");
	return radik_gpu_register_host_memory(ptr, bytes, err);
}

void
radik_release_cache(void)
{
	radik_cpu_release_cache();
	radik_gpu_release_cache();
}
