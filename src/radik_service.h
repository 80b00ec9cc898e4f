/*
 * radik_service.h
 *	  The GPU service: one process that owns the only CUDA context on the GPU and runs the
 *	  selections of every backend, fed through slots in the server's shared memory.
 *
 * Why: a backend that selects on the GPU itself holds a CUDA context and a workspace (about half a
 * gigabyte of GPU memory) until it exits, and starts the GPU again in every new connection.  With
 * radik in shared_preload_libraries and radik.service on, a background worker (the supervisor)
 * forks the service process, which starts the GPU once and answers the backends' requests; the
 * backends write their keys into a slot of shared memory and wait on their latch for the answer.
 *
 * There is one service process per GPU the server sees (radik.service_gpus), each with its own
 * slots; a backend takes a slot of the one with the fewest taken.  The supervisor never touches
 * CUDA.  The service process is its child, not the postmaster's: when it dies, even by kill -9, the
 * supervisor notices, bumps the generation (the backends whose selections it held find their answer
 * lost and select again on the CPU under radik.device = auto), and starts a new one; a background
 * worker dying by a signal would make the postmaster restart the whole server.  The service process
 * calls nothing of PostgreSQL that could raise an error or take a lock: it reads and writes the
 * slots with atomics and wakes backends with SetLatch, and it ends with _exit.
 *
 * Protocol of a slot: a backend takes a free slot (owned 0 -> 1), writes a request's arguments,
 * then the request (release), and posts the service's semaphore; the service answers in the
 * slot and sets the request back to idle (release), then the owner's latch.  One request at a
 * time per slot; the keys of a push are in one of the slot's two halves, so the backend fills the
 * other meanwhile.  A selection whose keys all fit one half is asked for in one request (SELECT,
 * with no OPEN before it); the service runs the SELECTs it finds pending in one pass as one
 * selection of the engine's batch mode, and writes each answer into its slot as RESULT does.  A
 * backend done with a slot and every request answered frees it (owned 0): the service closes the
 * selection left in it at the slot's next open.  A backend leaving with a
 * request in flight (an error, a cancel) sets abandoned instead; the service then closes the
 * slot's selection and frees it.
 */
#ifndef RADIK_SERVICE_H
#define RADIK_SERVICE_H

#include "postgres.h"

#include <semaphore.h>

#include "port/atomics.h"
#include "storage/latch.h"

#include "radik_compat.h"
#include "radik_engine.h"
#include "radik_settings.h"

/* Where the service stands (RadikServiceControl.state). */
typedef enum RadikServiceState
{
	RADIK_SERVICE_STARTING,		/* its process is starting the GPU */
	RADIK_SERVICE_READY,		/* answering requests */
	RADIK_SERVICE_ABSENT,		/* no GPU could be used: backends select as without the service */
	RADIK_SERVICE_STOPPED		/* the server is shutting down */
} RadikServiceState;

/* A slot's request (RadikServiceSlot.request). */
typedef enum RadikSlotRequest
{
	RADIK_SLOT_IDLE,			/* nothing asked, or answered */
	RADIK_SLOT_OPEN,
	RADIK_SLOT_PUSH,
	RADIK_SLOT_THRESHOLD,
	RADIK_SLOT_FINISH,
	RADIK_SLOT_RESULT,
	RADIK_SLOT_SELECT			/* the whole selection, keys in one half: count and result */
} RadikSlotRequest;

typedef struct RadikServiceSlot
{
	pg_atomic_uint32 owned;		/* 1 from a backend's taking it until the service frees it */
	pg_atomic_uint32 request;	/* RadikSlotRequest */
	pg_atomic_uint32 abandoned; /* the owner is done with it */
	uint32		generation;		/* the service generation the owner opened it under */
	int			owner_pid;
	Latch	   *owner_latch;

	/* arguments */
	int			key_bytes;
	uint64		k;
	int			half;			/* of a push: which half holds the entries */
	uint64		entries;		/* of a push */

	/* answers */
	int			status;			/* radik_status */
	radik_error error;
	uint64		kth_key;
	int			kth_valid;
	uint64		count;			/* of a finish or a select */
} RadikServiceSlot;

/* One GPU's service: its process and its slots. */
typedef struct RadikServiceControl
{
	int			gpu;			/* its index among the GPUs the server sees */
	pg_atomic_uint32 state;		/* RadikServiceState */
	pg_atomic_uint32 generation;	/* bumped whenever a service process ends */
	pg_atomic_uint64 restarts;	/* service processes started after the first */
	pg_atomic_uint64 selections;	/* selections opened */
	pg_atomic_uint64 busy;		/* selections that found every slot taken */
	pg_atomic_uint64 answering_us;	/* time the service process spent answering requests */
	pg_atomic_uint64 batches;	/* runs of the engine's batch mode for SELECT requests */
	pg_atomic_uint64 batched;	/* the SELECT requests they answered */
	int			service_pid;	/* 0 while none runs */
	int			slots;
	Size		slot_bytes;		/* data bytes of one slot: two halves */
	char	   *data;			/* the slots' data */
	sem_t		wake;			/* posted by a backend after every request */
	char		device[RADIK_ERROR_MESSAGE_SIZE];	/* the GPU's name, or why there is none */
	RadikServiceSlot slot[FLEXIBLE_ARRAY_MEMBER];
} RadikServiceControl;

/*
 * The services' shared memory, when radik is preloaded with radik.service on: radik_services[0]
 * to [radik_service_count - 1]; radik_service_count is 0 otherwise.
 */
extern RadikServiceControl **radik_services;
extern int	radik_service_count;

/* The data of a service's slot i: two halves of slot_bytes / 2 (keys as uint64, then ids). */
static inline char *
radik_service_slot_data(RadikServiceControl *service, int i)
{
	return service->data + (Size) i * service->slot_bytes;
}

/* Entries a half holds (16 bytes each: a key and an id). */
static inline size_t
radik_service_half_entries(RadikServiceControl *service)
{
	return service->slot_bytes / 2 / (2 * sizeof(uint64));
}

/* The keys of half h of service's slot i (of the slot's key width). */
static inline char *
radik_service_half_keys(RadikServiceControl *service, int i, int h)
{
	return radik_service_slot_data(service, i) + (Size) h * (service->slot_bytes / 2);
}

/* Their ids, after room for a half's keys. */
static inline uint64 *
radik_service_half_ids(RadikServiceControl *service, int i, int h)
{
	return (uint64 *) (radik_service_half_keys(service, i, h) +
					   radik_service_half_entries(service) * sizeof(uint64));
}

/* How many of a service's slots are taken now. */
static inline int
radik_service_slots_taken(RadikServiceControl *service)
{
	int			taken = 0;

	for (int i = 0; i < service->slots; i++)
		taken += pg_atomic_read_u32(&service->slot[i].owned) != 0;
	return taken;
}

/* The supervisor's entry point (a background worker's bgw_function_name). */
extern PGDLLEXPORT void radik_service_main(Datum arg);

/* The service process's loop (radik_service_process.c); never returns. */
extern void radik_service_process_main(RadikServiceControl *service, int engine_device)
			pg_attribute_noreturn();

/* Exit codes of the service process the supervisor tells apart. */
#define RADIK_SERVICE_EXIT_ABSENT 2 /* no GPU: do not start another */
#define RADIK_SERVICE_EXIT_RESET 3	/* a GPU error: start a fresh one */

/* ---- the backends' side (radik_service_client.c) ---- */

typedef struct RadikServiceSelection RadikServiceSelection;

/*
 * Is a service there to ask, as far as this backend can tell without waiting?  Ready when one is,
 * else starting when one is, else absent.
 */
extern RadikServiceState radik_service_state(void);

/*
 * Open a selection in the service.  RADIK_NO_DEVICE when it cannot take it: *busy then says
 * whether every slot was taken (with wait_for_slot false) rather than k being too large for a
 * slot or the service being gone.
 */
extern radik_status radik_service_open(int key_bytes, uint64 k, bool wait_for_slot,
									   RadikServiceSelection **selection, bool *busy,
									   radik_error *err);
extern radik_status radik_service_chunk_buffer(RadikServiceSelection *selection, void **keys,
											   uint64 **ids, size_t *capacity, radik_error *err);
extern radik_status radik_service_push_chunk(RadikServiceSelection *selection, size_t n,
											 radik_error *err);
extern radik_status radik_service_threshold(RadikServiceSelection *selection, uint64 *kth_key,
											int *valid, radik_error *err);
extern radik_status radik_service_finish(RadikServiceSelection *selection, uint64 *count,
										 radik_error *err);
extern radik_status radik_service_result(RadikServiceSelection *selection, uint64 *keys,
										 uint64 *ids, radik_error *err);
extern const char *radik_service_device_name(const RadikServiceSelection *selection);
extern void radik_service_close(RadikServiceSelection *selection);

#endif							/* RADIK_SERVICE_H */
