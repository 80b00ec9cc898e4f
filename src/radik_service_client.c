/*
 * radik_service_client.c
 *	  A backend's side of the GPU service: a selection held in a slot of shared memory, with the
 *	  engine door's calls (radik_engine.h) as requests to the service process.
 *
 * The backend writes its keys straight into the slot's halves, one half filled while the service
 * takes the other, and waits for each answer on its latch, so a cancel or a terminate is served
 * while it waits.  Leaving a selection, normally or on an error, abandons the slot without
 * waiting: the service frees it once any request in flight is done.  A slot is also abandoned
 * when the backend exits holding one.  A selection whose service process died, or whose service
 * stopped, answers RADIK_DEVICE_ERROR: radik_feed.c then selects again on the CPU under
 * radik.device = auto.
 */
#include "postgres.h"

#include <semaphore.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

#include "radik_service.h"

/* How long a backend sleeps between looks at a slot or the service, at most. */
#define WAIT_STEP_MS 1000
#define SLOT_WAIT_STEP_MS 10

struct RadikServiceSelection
{
	int			slot;
	uint32		generation;
	int			key_bytes;
	int			fill_half;		/* the half handed out for the next chunk */
	bool		push_pending;	/* a push was asked and not yet waited for */
	bool		lost;			/* the service process holding it ended */
};

/* The slots this backend holds (per slot; NULL until its first selection in the service). */
static bool *held_slots = NULL;

RadikServiceState
radik_service_state(void)
{
	if (radik_service_control == NULL)
		return RADIK_SERVICE_ABSENT;
	return (RadikServiceState) pg_atomic_read_u32(&radik_service_control->state);
}

const char *
radik_service_device_name(void)
{
	return radik_service_control->device;
}

/* At exit: abandon every slot this backend still holds. */
static void
abandon_slots_at_exit(int code, Datum arg)
{
	RadikServiceControl *control = radik_service_control;

	for (int i = 0; i < control->slots; i++)
	{
		if (held_slots[i])
		{
			pg_atomic_write_u32(&control->slot[i].abandoned, 1);
			sem_post(&control->wake);
			held_slots[i] = false;
		}
	}
}

static radik_status
refuse(radik_error *err, const char *message)
{
	strlcpy(err->message, message, sizeof(err->message));
	return RADIK_NO_DEVICE;
}

/* Take a free slot; -1 if every one is taken. */
static int
take_slot(void)
{
	RadikServiceControl *control = radik_service_control;
	int			start = MyProcPid % control->slots;

	for (int n = 0; n < control->slots; n++)
	{
		int			i = (start + n) % control->slots;
		uint32		expected = 0;

		if (pg_atomic_read_u32(&control->slot[i].owned) == 0 &&
			pg_atomic_compare_exchange_u32(&control->slot[i].owned, &expected, 1))
			return i;
	}
	return -1;
}

static radik_status
lost(RadikServiceSelection *selection, radik_error *err)
{
	selection->lost = true;
	snprintf(err->message, sizeof(err->message),
			 "the radik GPU service process ended during the selection");
	return RADIK_DEVICE_ERROR;
}

/* Is the service process that took the selection still the one running? */
static bool
service_alive(RadikServiceSelection *selection)
{
	RadikServiceControl *control = radik_service_control;

	return pg_atomic_read_u32(&control->generation) == selection->generation &&
		pg_atomic_read_u32(&control->state) == RADIK_SERVICE_READY;
}

/* Wait for the answer to the slot's request; its status. */
static radik_status
wait_for_answer(RadikServiceSelection *selection, radik_error *err)
{
	RadikServiceSlot *slot = &radik_service_control->slot[selection->slot];

	for (;;)
	{
		if (pg_atomic_read_u32(&slot->request) == RADIK_SLOT_IDLE)
		{
			pg_read_barrier();
			if (slot->status != RADIK_OK)
				*err = slot->error;
			return (radik_status) slot->status;
		}
		if (!service_alive(selection))
			return lost(selection, err);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, WAIT_STEP_MS,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Ask the service for request (its arguments already in the slot). */
static void
post_request(RadikServiceSelection *selection, RadikSlotRequest request)
{
	RadikServiceSlot *slot = &radik_service_control->slot[selection->slot];

	slot->status = RADIK_OK;
	pg_write_barrier();
	pg_atomic_write_u32(&slot->request, request);
	sem_post(&radik_service_control->wake);
}

/* Before a new request: the last push answered, and the service still the same. */
static radik_status
settle(RadikServiceSelection *selection, radik_error *err)
{
	if (selection->lost)
		return lost(selection, err);
	if (selection->push_pending)
	{
		selection->push_pending = false;
		return wait_for_answer(selection, err);
	}
	return RADIK_OK;
}

static radik_status
ask(RadikServiceSelection *selection, RadikSlotRequest request, radik_error *err)
{
	radik_status status = settle(selection, err);

	if (status != RADIK_OK)
		return status;
	post_request(selection, request);
	return wait_for_answer(selection, err);
}

radik_status
radik_service_open(int key_bytes, uint64 k, bool wait_for_slot,
				   RadikServiceSelection **selection, bool *busy, radik_error *err)
{
	RadikServiceControl *control = radik_service_control;
	RadikServiceSelection *opened;
	RadikServiceSlot *slot;
	radik_status status;
	int			i;

	*busy = false;
	*selection = NULL;
	if (k > 2 * radik_service_half_entries())
		return refuse(err, "k is more than a GPU service slot holds");
	if (held_slots == NULL)
	{
		held_slots = MemoryContextAllocZero(TopMemoryContext, control->slots * sizeof(bool));
		on_shmem_exit(abandon_slots_at_exit, (Datum) 0);
	}
	for (;;)
	{
		if (radik_service_state() != RADIK_SERVICE_READY)
			return refuse(err, "the radik GPU service is not running");
		i = take_slot();
		if (i >= 0)
			break;
		if (!wait_for_slot)
		{
			pg_atomic_fetch_add_u64(&control->busy, 1);
			*busy = true;
			return refuse(err, "every slot of the radik GPU service is taken");
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 SLOT_WAIT_STEP_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}

	opened = MemoryContextAllocExtended(TopMemoryContext, sizeof(RadikServiceSelection),
										MCXT_ALLOC_NO_OOM | MCXT_ALLOC_ZERO);
	if (opened == NULL)
	{
		pg_atomic_write_u32(&control->slot[i].owned, 0);
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	}
	held_slots[i] = true;
	opened->slot = i;
	opened->key_bytes = key_bytes;
	opened->generation = pg_atomic_read_u32(&control->generation);
	slot = &control->slot[i];
	slot->generation = opened->generation;
	slot->owner_pid = MyProcPid;
	slot->owner_latch = MyLatch;
	slot->key_bytes = key_bytes;
	slot->k = k;
	*selection = opened;
	pg_atomic_fetch_add_u64(&control->selections, 1);

	status = ask(opened, RADIK_SLOT_OPEN, err);
	return status;
}

radik_status
radik_service_chunk_buffer(RadikServiceSelection *selection, void **keys, uint64 **ids,
						   size_t *capacity, radik_error *err)
{
	size_t		entries = radik_service_half_entries();
	char	   *half = radik_service_slot_data(selection->slot) +
		(Size) selection->fill_half * (radik_service_control->slot_bytes / 2);

	if (selection->lost)
		return lost(selection, err);
	*keys = half;
	*ids = (uint64 *) (half + entries * sizeof(uint64));
	*capacity = entries;
	return RADIK_OK;
}

radik_status
radik_service_push_chunk(RadikServiceSelection *selection, size_t n, radik_error *err)
{
	RadikServiceSlot *slot = &radik_service_control->slot[selection->slot];
	radik_status status = settle(selection, err);

	if (status != RADIK_OK)
		return status;
	slot->half = selection->fill_half;
	slot->entries = n;
	post_request(selection, RADIK_SLOT_PUSH);
	selection->push_pending = true;
	selection->fill_half ^= 1;
	return RADIK_OK;
}

radik_status
radik_service_threshold(RadikServiceSelection *selection, uint64 *kth_key, int *valid,
						radik_error *err)
{
	RadikServiceSlot *slot = &radik_service_control->slot[selection->slot];
	radik_status status = ask(selection, RADIK_SLOT_THRESHOLD, err);

	*kth_key = slot->kth_key;
	*valid = status == RADIK_OK && slot->kth_valid;
	return status;
}

radik_status
radik_service_finish(RadikServiceSelection *selection, uint64 *count, radik_error *err)
{
	RadikServiceSlot *slot = &radik_service_control->slot[selection->slot];
	radik_status status = ask(selection, RADIK_SLOT_FINISH, err);

	*count = status == RADIK_OK ? slot->count : 0;
	return status;
}

radik_status
radik_service_result(RadikServiceSelection *selection, uint64 *keys, uint64 *ids,
					 radik_error *err)
{
	RadikServiceSlot *slot = &radik_service_control->slot[selection->slot];
	uint64	   *data = (uint64 *) radik_service_slot_data(selection->slot);
	radik_status status = ask(selection, RADIK_SLOT_RESULT, err);

	if (status != RADIK_OK)
		return status;
	if (keys != NULL)
		memcpy(keys, data, slot->count * sizeof(uint64));
	if (ids != NULL)
		memcpy(ids, data + slot->count, slot->count * sizeof(uint64));
	return RADIK_OK;
}

void
radik_service_close(RadikServiceSelection *selection)
{
	RadikServiceSlot *slot;

	if (selection == NULL)
		return;
	slot = &radik_service_control->slot[selection->slot];
	held_slots[selection->slot] = false;
	pg_atomic_write_u32(&slot->abandoned, 1);
	sem_post(&radik_service_control->wake);
	pfree(selection);
}
