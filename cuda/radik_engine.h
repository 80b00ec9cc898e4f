/*
 * radik_engine.h
 *	  The door between radik's PostgreSQL side (src/) and its selection engine (cuda/).
 *
 * Everything that crosses this door is plain C: pointers, lengths, a key width, k, and a status
 * code with a message buffer.  The engine includes no PostgreSQL header and never exits, throws
 * or longjmps; every failure comes back as a radik_status plus a message in radik_error, which
 * the PostgreSQL side turns into an ereport.  The same functions serve the GPU engine and its
 * CPU twin: the caller picks one with radik_device at open time.
 *
 * Keys are unsigned integers (32 or 64 bits) whose unsigned order is the wanted order; see
 * radik_keys.h for the maps from PostgreSQL values.  Each key travels with a 64-bit id chosen by
 * the caller (the SQL side packs a heap TID into it).  A selection returns the min(k, n) entries
 * with the smallest keys, sorted by key; entries with equal keys at the boundary are cut so that
 * exactly that many come back.
 *
 * Two ways in:
 *  - streaming (one selection fed chunk by chunk while the table is scanned): radik_open, then
 *    radik_chunk_buffer / radik_push_chunk (or radik_push_keys, from the caller's own memory) as
 *    often as needed, radik_finish, radik_result, radik_close.  The engine keeps only the running
 *    best k between chunks; radik_threshold hands back the current k-th key so the caller can
 *    skip rows that cannot qualify.  Chunk
 *    buffers belong to the engine (pinned host memory for the GPU) and are reused across chunks
 *    and across selections in the same process.
 *  - batch (many independent inputs, segments of host arrays, selected at once):
 *    radik_select_batch.  The GPU service runs the small selections it finds waiting together
 *    through it (src/radik_service_process.c); bench/engine times the GPU selection under it.
 *    The top k rows per group do not: they run on the CPU (src/radik_group_select.c says why).
 *
 * No CUDA is touched until the first GPU call in the calling process (never at load time: the
 * postmaster forks its backends and CUDA does not survive a fork).  The engine runs on its
 * caller's thread, except a GPU start the caller asks to have done in the background.  A missing
 * GPU or driver is the normal answer RADIK_NO_DEVICE, not an error.
 */
#ifndef RADIK_ENGINE_H
#define RADIK_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum radik_status
{
	RADIK_OK = 0,
	RADIK_NO_DEVICE,			/* no usable GPU (no driver, no device, built without CUDA) */
	RADIK_INVALID_ARGUMENT,		/* a caller's mistake: bad key width, call out of order, ... */
	RADIK_OUT_OF_MEMORY,		/* host, pinned or device memory could not be had */
	RADIK_DEVICE_ERROR			/* a CUDA call failed; the message holds CUDA's own words */
} radik_status;

typedef enum radik_device
{
	RADIK_DEVICE_CPU = 0,		/* the CPU twin */
	RADIK_DEVICE_GPU = 1		/* the CUDA engine */
} radik_device;

#define RADIK_ERROR_MESSAGE_SIZE 256

typedef struct radik_error
{
	char		message[RADIK_ERROR_MESSAGE_SIZE];
} radik_error;

/*
 * Is a GPU usable in this process?  Creates the CUDA context on first call (lazily, in the
 * caller's process) and caches the answer.  On RADIK_OK, name receives the device's name.
 */
radik_status radik_gpu_probe(char *name, size_t name_size, radik_error *err);

/*
 * Start the GPU without waiting for it: what radik_gpu_probe does, plus the pinned chunk buffers
 * of a selection of about expected_rows rows, on a thread of the engine's own; returns at once.
 * While it runs the caller may do anything but call the GPU engine: radik_gpu_probe (and so
 * radik_open and radik_select_batch on the GPU) and radik_release_cache wait for it to end.
 * RADIK_OK also when the GPU was already probed or a start is under way; an error only when
 * the thread cannot be made (then nothing was started).  The thread blocks every signal.
 */
radik_status radik_gpu_start_in_background(uint64_t expected_rows, radik_error *err);

/* 1 while a background start runs, else 0 (then radik_gpu_probe answers at once).  Never waits. */
int			radik_gpu_starting(void);

/* Wait for a background start to end, if one runs; starts nothing.  Call before exiting. */
void		radik_gpu_wait_for_start(void);

/* An open streaming selection. */
typedef struct radik_selection radik_selection;

/*
 * Open a selection of the k smallest keys of key_bytes (4 or 8) width.  expected_rows is a hint
 * for sizing buffers (0 if unknown).  k may exceed the number of keys eventually pushed.
 */
radik_status radik_open(radik_device device, int key_bytes, uint64_t k, uint64_t expected_rows,
						radik_selection **selection, radik_error *err);

/*
 * The buffers to fill with the next chunk: keys (uint32_t or uint64_t, per key_bytes) and ids,
 * room for *capacity entries.  They stay valid until the next radik_push_chunk.
 */
radik_status radik_chunk_buffer(radik_selection *selection, void **keys, uint64_t **ids,
								size_t *capacity, radik_error *err);

/*
 * Submit the first n entries of the current chunk buffer.  The GPU engine copies and selects
 * asynchronously, so the caller can fill the next buffer meanwhile.
 */
radik_status radik_push_chunk(radik_selection *selection, size_t n, radik_error *err);

/*
 * The current k-th smallest key among everything pushed so far.  *valid is 0 until k keys have
 * been pushed.  Any key greater than this can never be selected any more; a key equal to it may
 * still be (ties).  May wait for pending chunks to be selected.
 */
radik_status radik_threshold(radik_selection *selection, uint64_t *kth_key, int *valid,
							 radik_error *err);

/*
 * Submit n entries from the caller's own arrays (keys as in a chunk buffer: uint32_t or uint64_t
 * per key_bytes), any number of them, instead of filling chunk buffers; not between
 * radik_chunk_buffer and radik_push_chunk.  The entries are copied before the call returns, so
 * the caller may overwrite them at once.  The GPU engine copies them to the device straight from
 * the caller's memory (at full speed when it was registered with radik_register_host_memory);
 * the CPU twin copies them through its chunk buffers.
 */
radik_status radik_push_keys(radik_selection *selection, const void *keys, const uint64_t *ids,
							 size_t n, radik_error *err);

/* Finish the selection; *count receives min(k, keys pushed). */
radik_status radik_finish(radik_selection *selection, uint64_t *count, radik_error *err);

/* Copy the finished result, sorted by key ascending, into the caller's arrays (either may be
 * NULL).  keys holds uint64_t values whatever the key width. */
radik_status radik_result(radik_selection *selection, uint64_t *keys, uint64_t *ids,
						  radik_error *err);

/* Where the selection runs: "cpu", or the GPU's name. */
const char *radik_selection_device_name(const radik_selection *selection);

/* Release a selection (any state, NULL allowed).  Never fails. */
void		radik_close(radik_selection *selection);

/*
 * Batch selection over host arrays: segment s holds keys[offsets[s] .. offsets[s+1]) and wants
 * the ks[s] smallest; its result goes to out_ids/out_keys at out_offsets[s], out_counts[s]
 * receiving min(ks[s], segment length).  ids may be NULL (then an entry's id is its index in
 * its segment).  out_offsets must leave room for min(ks[s], segment length) entries each.
 */
radik_status radik_select_batch(radik_device device, int key_bytes, const void *keys,
								const uint64_t *ids, const uint64_t *offsets, size_t segments,
								const uint64_t *ks, const uint64_t *out_offsets,
								uint64_t *out_keys, uint64_t *out_ids, uint64_t *out_counts,
								radik_error *err);

/*
 * Cap the GPU memory this process's selections may hold at once, in bytes (0, the default: no cap
 * beyond the device's own).  A GPU call that would need more fails with RADIK_OUT_OF_MEMORY, as
 * when the device itself is out of memory; a cache held from before is given back at the next
 * radik_open.  Touches no CUDA state: it may be called before any GPU call.
 */
void		radik_set_gpu_memory_limit(uint64_t bytes);

/*
 * Page-lock bytes of the caller's memory at ptr for the life of the process, so that the GPU reads
 * (radik_push_keys) and writes (radik_result) it directly, as it does its own pinned buffers.
 * For a process that feeds the engine from memory it keeps, such as the server's shared memory.
 * RADIK_NO_DEVICE without a GPU; RADIK_DEVICE_ERROR when the memory cannot be locked (the memory
 * then still works, at the speed of ordinary memory).
 */
radik_status radik_register_host_memory(void *ptr, size_t bytes, radik_error *err);

/*
 * Keep up to count GPU workspaces (a stream, device buffers and pinned chunk buffers each) between
 * selections instead of one (the default).  Each selection open at the same time needs its own; a
 * process that runs many at once (the GPU service) reuses them instead of allocating and freeing
 * one per selection, which costs far more than a small selection.  Touches no CUDA state.
 */
void		radik_set_gpu_workspaces(size_t count);

/* Give back every cached buffer and device allocation of this process (for tests and exit). */
void		radik_release_cache(void);

#ifdef __cplusplus
}
#endif

#endif							/* RADIK_ENGINE_H */
