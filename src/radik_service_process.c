/*
 * radik_service_process.c
 *	  The GPU service process: starts the GPU once and runs the selections the backends ask for in
 *	  their slots (radik_service.h describes the protocol).
 *
 * It is a child of the supervisor, forked from it, and lives outside PostgreSQL's rules for its
 * processes: it calls no function that may raise an error, allocate in a memory context or take a
 * lock.  It reads and writes the slots with atomics and barriers, runs the engine through its
 * plain-C door, wakes backends with SetLatch (a store and a kill()), and ends with _exit.  If it
 * dies anyway, nothing shared is left half-done: a slot's answer counts only once its request is
 * set back to idle, and the supervisor's new generation makes every unanswered request lost.
 *
 * Selections run one request at a time, in slot order; each has its own engine selection (the
 * engine gives a second open selection a workspace of its own, and keeps one per slot between
 * selections), so a long selection does not hold the others back between its requests.  The slots'
 * memory is page-locked for the GPU, which copies pushed keys out of a slot and results into it
 * with no copy through the engine's own buffers.  A GPU error other than running out of memory ends
 * the process after its answer (RADIK_SERVICE_EXIT_RESET): the next one starts with a fresh
 * context, which is the only cure for CUDA's sticky errors.
 *
 * A selection that fits one half comes as one SELECT request.  The SELECTs pending in a pass over
 * the slots are answered together, after the other requests of that pass: their keys are copied
 * side by side (one run per key width) and selected by one call of the engine's batch mode, whose
 * cost is about that of one selection however many it holds, instead of a selection each with
 * its own copies, launches and waits.
 */
#include "postgres.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "radik_service.h"

/* How long the process sleeps without a request before it checks that its supervisor lives. */
#define IDLE_CHECK_SECONDS 1

static RadikServiceControl *control;	/* this process's service */
static radik_selection **selections;	/* per slot; NULL: none open */
static radik_device engine_device;
static uint32 generation;
static pid_t supervisor;
static bool reset_after_answer;

/* The SELECT requests of one pass, and the memory their batch is gathered in (grown as needed). */
static int *pending;
static int	npending;
static char *batch_memory;
static Size batch_memory_bytes;

static void
copy_error(RadikServiceSlot *slot, radik_status status, const radik_error *err)
{
	slot->status = status;
	if (status != RADIK_OK)
	{
		slot->error = *err;
		if (status == RADIK_DEVICE_ERROR)
			reset_after_answer = true;
	}
}

/* Hand the entries of the slot's half to the engine, which copies them from there. */
static radik_status
push_half(int i, radik_error *err)
{
	RadikServiceSlot *slot = &control->slot[i];

	return radik_push_keys(selections[i], radik_service_half_keys(control, i, slot->half),
						   radik_service_half_ids(control, i, slot->half), slot->entries, err);
}

static void
answer(int i, RadikSlotRequest request)
{
	RadikServiceSlot *slot = &control->slot[i];
	radik_error err;
	radik_status status = RADIK_OK;

	switch (request)
	{
		case RADIK_SLOT_OPEN:
			radik_close(selections[i]);
			selections[i] = NULL;
			status = radik_open(engine_device, slot->key_bytes, slot->k,
								radik_service_half_entries(control), &selections[i], &err);
			break;
		case RADIK_SLOT_PUSH:
			status = push_half(i, &err);
			break;
		case RADIK_SLOT_THRESHOLD:
			status = radik_threshold(selections[i], &slot->kth_key, &slot->kth_valid, &err);
			break;
		case RADIK_SLOT_FINISH:
			status = radik_finish(selections[i], &slot->count, &err);
			break;
		case RADIK_SLOT_RESULT:
			{
				uint64	   *keys = (uint64 *) radik_service_slot_data(control, i);

				status = radik_result(selections[i], keys, keys + slot->count, &err);
				break;
			}
		case RADIK_SLOT_SELECT:
			/* of a key width the batches do not take (the others are answered there) */
			snprintf(err.message, sizeof(err.message), "key width must be 4 or 8 bytes, not %d",
					 slot->key_bytes);
			status = RADIK_INVALID_ARGUMENT;
			break;
		case RADIK_SLOT_IDLE:
			return;
	}
	copy_error(slot, status, &err);
}

/*
 * batch_memory of at least bytes; NULL if it cannot grow (its old memory is kept, and freed at
 * exit with the process).
 */
static char *
batch_memory_of(Size bytes)
{
	if (bytes > batch_memory_bytes)
	{
		char	   *grown = realloc(batch_memory, bytes);

		if (grown == NULL)
			return NULL;
		batch_memory = grown;
		batch_memory_bytes = bytes;
	}
	return batch_memory;
}

/*
 * Answer the pending SELECTs of key width key_bytes (their slots' statuses, counts and results):
 * their keys and ids gathered into batch memory, selected as the segments of one batch, each
 * answer written into its slot as a RESULT writes it.
 */
static void
select_batch(int key_bytes)
{
	size_t		segments = 0;
	uint64		entries = 0;
	uint64		kept = 0;
	Size		bytes;
	char	   *memory;
	radik_error err;
	radik_status status;

	for (int p = 0; p < npending; p++)
	{
		RadikServiceSlot *slot = &control->slot[pending[p]];

		if (slot->key_bytes != key_bytes)
			continue;
		segments++;
		entries += slot->entries;
		kept += Min(slot->k, slot->entries);
	}
	if (segments == 0)
		return;

	/* keys, ids, then per segment its offset, k and result offset, then results and counts */
	bytes = entries * (key_bytes + sizeof(uint64)) + (3 * segments + 1) * sizeof(uint64) +
		kept * 2 * sizeof(uint64) + segments * sizeof(uint64);
	memory = batch_memory_of(MAXALIGN(bytes) + sizeof(uint64));
	if (memory == NULL)
	{
		snprintf(err.message, sizeof(err.message),
				 "out of host memory for a batch of %zu selections", segments);
		status = RADIK_OUT_OF_MEMORY;
	}
	else
	{
		uint64	   *ids = (uint64 *) memory;
		uint64	   *offsets = ids + entries;
		uint64	   *ks = offsets + segments + 1;
		uint64	   *out_offsets = ks + segments;
		uint64	   *out_keys = out_offsets + segments;
		uint64	   *out_ids = out_keys + kept;
		uint64	   *out_counts = out_ids + kept;
		char	   *keys = (char *) (out_counts + segments);
		size_t		s = 0;

		offsets[0] = 0;
		for (int p = 0; p < npending; p++)
		{
			int			i = pending[p];
			RadikServiceSlot *slot = &control->slot[i];

			if (slot->key_bytes != key_bytes)
				continue;
			memcpy(keys + offsets[s] * key_bytes, radik_service_half_keys(control, i, slot->half),
				   slot->entries * key_bytes);
			memcpy(ids + offsets[s], radik_service_half_ids(control, i, slot->half),
				   slot->entries * sizeof(uint64));
			ks[s] = slot->k;
			out_offsets[s] = s == 0 ? 0 : out_offsets[s - 1] + out_counts[s - 1];
			out_counts[s] = Min(slot->k, slot->entries);
			offsets[s + 1] = offsets[s] + slot->entries;
			s++;
		}
		status = radik_select_batch(engine_device, key_bytes, keys, ids, offsets, segments, ks,
									out_offsets, out_keys, out_ids, out_counts, &err);
		s = 0;
		for (int p = 0; p < npending && status == RADIK_OK; p++)
		{
			int			i = pending[p];
			RadikServiceSlot *slot = &control->slot[i];
			uint64	   *answer = (uint64 *) radik_service_slot_data(control, i);

			if (slot->key_bytes != key_bytes)
				continue;
			slot->count = out_counts[s];
			memcpy(answer, out_keys + out_offsets[s], slot->count * sizeof(uint64));
			memcpy(answer + slot->count, out_ids + out_offsets[s], slot->count * sizeof(uint64));
			s++;
		}
		pg_atomic_fetch_add_u64(&control->batches, 1);
		pg_atomic_fetch_add_u64(&control->batched, segments);
	}
	for (int p = 0; p < npending; p++)
	{
		RadikServiceSlot *slot = &control->slot[pending[p]];

		if (slot->key_bytes == key_bytes)
			copy_error(slot, status, &err);
	}
}

/* Close the slot's selection and give the slot back. */
static void
free_slot(int i)
{
	RadikServiceSlot *slot = &control->slot[i];

	radik_close(selections[i]);
	selections[i] = NULL;
	pg_atomic_write_u32(&slot->request, RADIK_SLOT_IDLE);
	pg_atomic_write_u32(&slot->abandoned, 0);
	pg_write_barrier();
	pg_atomic_write_u32(&slot->owned, 0);
}

/* Add the time from started to ended to the service's time answering. */
static void
count_answering(const struct timespec *started, const struct timespec *ended)
{
	pg_atomic_fetch_add_u64(&control->answering_us,
							(ended->tv_sec - started->tv_sec) * 1000000 +
							(ended->tv_nsec - started->tv_nsec) / 1000);
}

/*
 * Hand slot i's answer to its owner; after a GPU error, end the process (see above) once no
 * SELECT of this pass waits for its answer.
 */
static void
answered(int i)
{
	RadikServiceSlot *slot = &control->slot[i];

	pg_write_barrier();
	pg_atomic_write_u32(&slot->request, RADIK_SLOT_IDLE);
	SetLatch(slot->owner_latch);
	if (reset_after_answer && npending == 0)
		_exit(RADIK_SERVICE_EXIT_RESET);
}

static void
serve_slots(void)
{
	for (int i = 0; i < control->slots; i++)
	{
		RadikServiceSlot *slot = &control->slot[i];
		uint32		request;
		bool		abandoned;
		struct timespec started;
		struct timespec ended;

		if (!pg_atomic_read_u32(&slot->owned))
			continue;
		abandoned = pg_atomic_read_u32(&slot->abandoned) != 0;
		request = pg_atomic_read_u32(&slot->request);
		pg_read_barrier();
		if (slot->generation != generation)
			continue;			/* taken under a process before this one: the supervisor's */
		if (abandoned)
		{
			free_slot(i);
			continue;
		}
		if (request == RADIK_SLOT_IDLE)
			continue;
		if (request == RADIK_SLOT_SELECT && (slot->key_bytes == 4 || slot->key_bytes == 8))
		{
			/* answered with the others of this pass, below; no selection of its own */
			radik_close(selections[i]);
			selections[i] = NULL;
			pending[npending++] = i;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &started);
		answer(i, (RadikSlotRequest) request);
		clock_gettime(CLOCK_MONOTONIC, &ended);
		count_answering(&started, &ended);
		answered(i);
	}
	if (npending > 0)
	{
		struct timespec started;
		struct timespec ended;

		clock_gettime(CLOCK_MONOTONIC, &started);
		select_batch(4);
		select_batch(8);
		clock_gettime(CLOCK_MONOTONIC, &ended);
		count_answering(&started, &ended);
		for (int p = 0; p < npending; p++)
			answered(pending[p]);
		npending = 0;
		if (reset_after_answer)
			_exit(RADIK_SERVICE_EXIT_RESET);
	}
}

/*
 * Page-lock the slots' memory (whole pages of the server's shared memory around it), so that the
 * GPU copies keys out of a slot and results into it directly.  Should the driver refuse, the
 * copies still work, through its own staging buffers.
 */
static void
register_slots(void)
{
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);
	uintptr_t	start = (uintptr_t) control->data & ~(page - 1);
	uintptr_t	end = ((uintptr_t) control->data + (Size) control->slots * control->slot_bytes +
					   page - 1) & ~(page - 1);
	radik_error err;

	(void) radik_register_host_memory((void *) start, end - start, &err);
}

/*
 * Start the engine: probe the GPU (the CUDA context) and run one tiny selection, so that the
 * workspace of a slot's chunks is made before the first backend asks.
 */
static radik_status
start_engine(char *name, size_t name_size, radik_error *err)
{
	radik_selection *selection = NULL;
	void	   *keys;
	uint64_t   *ids;
	size_t		capacity;
	uint64_t	count;
	uint64_t	key;
	uint64_t	id;
	radik_status status;

	if (engine_device == RADIK_DEVICE_GPU)
	{
		status = radik_gpu_probe(name, name_size, err);
		if (status != RADIK_OK)
			return status;
	}
	else
		strlcpy(name, "cpu", name_size);

	status = radik_open(engine_device, 8, 1, radik_service_half_entries(control), &selection, err);
	if (status == RADIK_OK)
		status = radik_chunk_buffer(selection, &keys, &ids, &capacity, err);
	if (status == RADIK_OK)
	{
		((uint64_t *) keys)[0] = 1;
		ids[0] = 1;
		status = radik_push_chunk(selection, 1, err);
	}
	if (status == RADIK_OK)
		status = radik_finish(selection, &count, err);
	if (status == RADIK_OK)
		status = radik_result(selection, &key, &id, err);
	radik_close(selection);
	return status;
}

void
radik_service_process_main(RadikServiceControl *service, int device)
{
	char		name[RADIK_ERROR_MESSAGE_SIZE];
	radik_error err;
	radik_status status;

	control = service;
	engine_device = (radik_device) device;
	generation = pg_atomic_read_u32(&control->generation);
	supervisor = getppid();
	selections = calloc(control->slots, sizeof(radik_selection *));
	pending = calloc(control->slots, sizeof(int));
	if (selections == NULL || pending == NULL)
		_exit(RADIK_SERVICE_EXIT_RESET);

	/* every slot may hold an open selection, each with its own workspace: keep them all */
	radik_set_gpu_workspaces(control->slots);
	status = start_engine(name, sizeof(name), &err);
	if (status != RADIK_OK)
	{
		strlcpy(control->device, err.message, sizeof(control->device));
		pg_write_barrier();
		_exit(status == RADIK_NO_DEVICE ? RADIK_SERVICE_EXIT_ABSENT : RADIK_SERVICE_EXIT_RESET);
	}
	if (engine_device == RADIK_DEVICE_GPU)
		register_slots();
	strlcpy(control->device, name, sizeof(control->device));
	pg_write_barrier();
	pg_atomic_write_u32(&control->state, RADIK_SERVICE_READY);

	for (;;)
	{
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += IDLE_CHECK_SECONDS;
		if (sem_timedwait(&control->wake, &until) != 0 && errno != ETIMEDOUT && errno != EINTR)
			_exit(RADIK_SERVICE_EXIT_RESET);
		if (getppid() != supervisor)
			_exit(0);
		serve_slots();
	}
}
