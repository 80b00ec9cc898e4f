/*
 * radik_service_client.c
 *	  A backend's side of the GPU service: a selection held in a slot of shared memory, with the
 *	  engine door's calls (radik_engine.h) as requests to the service process.
 *
 * The backend writes its keys straight into the slot's halves, one half filled while the service
 * takes the other, and waits for each answer on its latch, so a cancel or a terminate is served
 * while it waits.  Leaving a selection with every request answered gives the slot back at once;
 * leaving it with a request in flight (an error, a cancel) abandons the slot without waiting: the
 * service frees it once that request is done.  A slot is also abandoned when the backend exits
 * holding one.  A selection whose service process died, or whose service stopped, answers
 * RADIK_DEVICE_ERROR: radik_feed.c then selects again on the CPU under radik.device = auto.
 *
 * The service hears of a selection only at its first push, which waits in its half until the
 * selection asks for more than that: a selection whose keys all came in that one push is asked
 * for whole, in one SELECT request that the service runs in a batch with the others it finds
 * (radik_service.h), instead of an OPEN, a PUSH, a FINISH and a RESULT.  A second push or a
 * threshold sends the OPEN and that first push first, as before.
 */
#include "postgres.h"

#include <limits.h>
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
	RadikServiceControl *service;
	int			slot;
	uint32		generation;
	int			key_bytes;
	int			fill_half;		/* the half handed out for the next chunk */
	bool		push_pending;	/* a push was asked and not yet waited for */
	bool		lost;			/* the service process holding it ended */
	bool		opened;			/* the service holds an engine selection for it */
	int			held_half;		/* the half of the first push, not yet sent; -1: none */
	size_t		held_entries;
	bool		selected;		/* answered whole (SELECT): its result is in the slot */
};

/*
 * The slots this backend holds, per service and slot (service n's slot i at n * slots + i); NULL
 * until its first selection in a service.
 */
static bool *held_slots = NULL;

RadikServiceState
radik_service_state(void)
{
	RadikServiceState state = RADIK_SERVICE_ABSENT;

	for (int n = 0; n < radik_service_count; n++)
	{
		RadikServiceState one = pg_atomic_read_u32(&radik_services[n]->state);

		if (one == RADIK_SERVICE_READY)
			return one;
		if (one == RADIK_SERVICE_STARTING)
			state = one;
	}
	return state;
}

const char *
radik_service_device_name(const RadikServiceSelection *selection)
{
	return selection->service->device;
}

static bool *
held_slot(RadikServiceControl *service, int i)
{
	return &held_slots[(Size) service->gpu * service->slots + i];
}

/* At exit: abandon every slot this backend still holds. */
static void
abandon_slots_at_exit(int code, Datum arg)
{
	for (int n = 0; n < radik_service_count; n++)
	{
		RadikServiceControl *service = radik_services[n];

		for (int i = 0; i < service->slots; i++)
		{
			if (*held_slot(service, i))
			{
				pg_atomic_write_u32(&service->slot[i].abandoned, 1);
				sem_post(&service->wake);
				*held_slot(service, i) = false;
			}
		}
	}
}

static radik_status
refuse(radik_error *err, const char *message)
{
	strlcpy(err->message, message, sizeof(err->message));
	return RADIK_NO_DEVICE;
}

/*
 * Take a free slot of the ready service with the fewest taken (*service); -1 if every one is
 * taken (*service is then the ready service with the fewest, or NULL if none is ready).
 */
static int
take_slot(RadikServiceControl **service)
{
	bool		tried[RADIK_MAX_SERVICES] = {false};

	for (;;)
	{
		RadikServiceControl *least = NULL;
		int			least_taken = INT_MAX;

		for (int n = 0; n < radik_service_count; n++)
		{
			int			taken;

			if (tried[n] || pg_atomic_read_u32(&radik_services[n]->state) != RADIK_SERVICE_READY)
				continue;
			taken = radik_service_slots_taken(radik_services[n]);
			if (taken < least_taken)
			{
				least = radik_services[n];
				least_taken = taken;
			}
		}
		if (least == NULL)
			return -1;
		if (*service == NULL)
			*service = least;
		tried[least->gpu] = true;
		for (int k = 0; k < least->slots; k++)
		{
			int			i = (MyProcPid + k) % least->slots;
			uint32		expected = 0;

			if (pg_atomic_read_u32(&least->slot[i].owned) == 0 &&
				pg_atomic_compare_exchange_u32(&least->slot[i].owned, &expected, 1))
			{
				*service = least;
				return i;
			}
		}
	}
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
	RadikServiceControl *service = selection->service;

	return pg_atomic_read_u32(&service->generation) == selection->generation &&
		pg_atomic_read_u32(&service->state) == RADIK_SERVICE_READY;
}

/* Wait for the answer to the slot's request; its status. */
static radik_status
wait_for_answer(RadikServiceSelection *selection, radik_error *err)
{
	RadikServiceSlot *slot = &selection->service->slot[selection->slot];

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
	RadikServiceSlot *slot = &selection->service->slot[selection->slot];

	slot->status = RADIK_OK;
	pg_write_barrier();
	pg_atomic_write_u32(&slot->request, request);
	sem_post(&selection->service->wake);
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
	RadikServiceControl *control = NULL;
	RadikServiceSelection *opened;
	RadikServiceSlot *slot;
	int			i;

	*busy = false;
	*selection = NULL;
	if (k > 2 * radik_service_half_entries(radik_services[0]))
		return refuse(err, "k is more than a GPU service slot holds");
	if (held_slots == NULL)
	{
		held_slots = MemoryContextAllocZero(TopMemoryContext,
											mul_size(radik_service_count * sizeof(bool),
													 radik_services[0]->slots));
		on_shmem_exit(abandon_slots_at_exit, (Datum) 0);
	}
	for (;;)
	{
		control = NULL;
		i = take_slot(&control);
		if (i >= 0)
			break;
		if (control == NULL)
			return refuse(err, "the radik GPU service is not running");
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
	*held_slot(control, i) = true;
	opened->service = control;
	opened->slot = i;
	opened->key_bytes = key_bytes;
	opened->generation = pg_atomic_read_u32(&control->generation);
	slot = &control->slot[i];
	slot->generation = opened->generation;
	slot->owner_pid = MyProcPid;
	slot->owner_latch = MyLatch;
	slot->key_bytes = key_bytes;
	slot->k = k;
	opened->held_half = -1;
	*selection = opened;
	pg_atomic_fetch_add_u64(&control->selections, 1);
	return RADIK_OK;
}

/* Ask for request over the keys of the first push, which waited in their half until now. */
static radik_status
ask_over_held_push(RadikServiceSelection *selection, RadikSlotRequest request, radik_error *err)
{
	RadikServiceSlot *slot = &selection->service->slot[selection->slot];

	slot->half = selection->held_half;
	slot->entries = selection->held_entries;
	selection->held_half = -1;
	return ask(selection, request, err);
}

/*
 * Have the service open the engine selection, and push the first push's keys that waited in
 * their half (the rest of the selection's requests go the usual way).
 */
static radik_status
open_in_service(RadikServiceSelection *selection, radik_error *err)
{
	radik_status status;

	if (selection->opened)
		return RADIK_OK;
	status = ask(selection, RADIK_SLOT_OPEN, err);
	if (status != RADIK_OK)
		return status;
	selection->opened = true;
	if (selection->held_half < 0)
		return RADIK_OK;
	return ask_over_held_push(selection, RADIK_SLOT_PUSH, err);
}

radik_status
radik_service_chunk_buffer(RadikServiceSelection *selection, void **keys, uint64 **ids,
						   size_t *capacity, radik_error *err)
{
	if (selection->lost)
		return lost(selection, err);
	*keys = radik_service_half_keys(selection->service, selection->slot, selection->fill_half);
	*ids = radik_service_half_ids(selection->service, selection->slot, selection->fill_half);
	*capacity = radik_service_half_entries(selection->service);
	return RADIK_OK;
}

radik_status
radik_service_push_chunk(RadikServiceSelection *selection, size_t n, radik_error *err)
{
	RadikServiceSlot *slot = &selection->service->slot[selection->slot];
	radik_status status = settle(selection, err);

	if (status != RADIK_OK)
		return status;
	if (!selection->opened && selection->held_half < 0)
	{
		/* the first push waits in its half: it may be the whole selection */
		selection->held_half = selection->fill_half;
		selection->held_entries = n;
		selection->fill_half ^= 1;
		return RADIK_OK;
	}
	status = open_in_service(selection, err);
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
	RadikServiceSlot *slot = &selection->service->slot[selection->slot];
	radik_status status = open_in_service(selection, err);

	*valid = 0;
	if (status != RADIK_OK)
		return status;
	status = ask(selection, RADIK_SLOT_THRESHOLD, err);
	*kth_key = slot->kth_key;
	*valid = status == RADIK_OK && slot->kth_valid;
	return status;
}

radik_status
radik_service_finish(RadikServiceSelection *selection, uint64 *count, radik_error *err)
{
	RadikServiceSlot *slot = &selection->service->slot[selection->slot];
	radik_status status;

	*count = 0;
	if (!selection->opened)
	{
		/* every key came in the first push (or none did): the whole selection at once */
		if (selection->lost)
			return lost(selection, err);
		if (selection->held_half < 0)
		{
			slot->count = 0;
			selection->selected = true;
			return RADIK_OK;
		}
		status = ask_over_held_push(selection, RADIK_SLOT_SELECT, err);
		selection->selected = status == RADIK_OK;
	}
	else
		status = ask(selection, RADIK_SLOT_FINISH, err);
	*count = status == RADIK_OK ? slot->count : 0;
	return status;
}

radik_status
radik_service_result(RadikServiceSelection *selection, uint64 *keys, uint64 *ids,
					 radik_error *err)
{
	RadikServiceSlot *slot = &selection->service->slot[selection->slot];
	uint64	   *data = (uint64 *) radik_service_slot_data(selection->service, selection->slot);
	radik_status status = selection->selected ? RADIK_OK :
		ask(selection, RADIK_SLOT_RESULT, err);

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
	slot = &selection->service->slot[selection->slot];
	*held_slot(selection->service, selection->slot) = false;
	if (!selection->lost && !selection->push_pending &&
		pg_atomic_read_u32(&slot->request) == RADIK_SLOT_IDLE)
	{
		/*
		 * Every request answered: the slot is given back at once.  The service closes the engine
		 * selection left in it when the slot's next owner opens one.
		 */
		pg_memory_barrier();
		pg_atomic_write_u32(&slot->owned, 0);
	}
	else
	{
		pg_atomic_write_u32(&slot->abandoned, 1);
		sem_post(&selection->service->wake);
	}
	pfree(selection);
}
