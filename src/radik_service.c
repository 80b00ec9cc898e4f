/*
 * radik_service.c
 *	  The GPU service's shared memory, its supervisor (a background worker) and
 *	  radik_service_status() (radik_service.h says what the service is and why).
 *
 * The supervisor forks the service process, reaps it, and starts another when it dies: the
 * generation goes up first, so that every backend waiting on the dead one finds its selection
 * lost, and slots a backend abandoned under an older generation are freed here (the service
 * process only serves its own generation).  A service process that found no GPU is not started
 * again: the service is absent and backends select as they do without it.  Neither the
 * postmaster nor the supervisor touches CUDA.
 */
#include "postgres.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/fork_process.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "radik.h"
#include "radik_service.h"
#include "radik_settings.h"

/* Start the next service process no sooner than this after the last one started. */
#define SERVICE_RESTART_INTERVAL_MS 1000

RadikServiceControl *radik_service_control = NULL;
char	   *radik_service_data = NULL;

static shmem_request_hook_type previous_shmem_request_hook = NULL;
static shmem_startup_hook_type previous_shmem_startup_hook = NULL;

static volatile sig_atomic_t shutdown_requested = false;
static pid_t service_pid = 0;

PG_FUNCTION_INFO_V1(radik_service_status);

static Size
control_size(void)
{
	return add_size(offsetof(RadikServiceControl, slot),
					mul_size(radik_service_slots, sizeof(RadikServiceSlot)));
}

static Size
slot_bytes(void)
{
	return (Size) radik_service_slot_kb * 1024;
}

/* The slots' data, page-aligned (the GPU copies from it). */
static Size
data_size(void)
{
	return add_size(mul_size(radik_service_slots, slot_bytes()), 4096);
}

static void
service_shmem_request(void)
{
	if (previous_shmem_request_hook)
		previous_shmem_request_hook();
	RequestAddinShmemSpace(control_size());
	RequestAddinShmemSpace(data_size());
}

static void
service_shmem_startup(void)
{
	bool		found_control;
	bool		found_data;
	char	   *data;

	if (previous_shmem_startup_hook)
		previous_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	radik_service_control = ShmemInitStruct("radik GPU service", control_size(), &found_control);
	data = ShmemInitStruct("radik GPU service slots", data_size(), &found_data);
	radik_service_data = (char *) TYPEALIGN(4096, data);
	if (!found_control)
	{
		RadikServiceControl *control = radik_service_control;

		memset(control, 0, control_size());
		pg_atomic_init_u32(&control->state, RADIK_SERVICE_STARTING);
		pg_atomic_init_u32(&control->generation, 1);
		pg_atomic_init_u64(&control->restarts, 0);
		pg_atomic_init_u64(&control->selections, 0);
		pg_atomic_init_u64(&control->busy, 0);
		pg_atomic_init_u64(&control->answering_us, 0);
		control->slots = radik_service_slots;
		control->slot_bytes = slot_bytes();
		for (int i = 0; i < control->slots; i++)
		{
			pg_atomic_init_u32(&control->slot[i].owned, 0);
			pg_atomic_init_u32(&control->slot[i].request, RADIK_SLOT_IDLE);
			pg_atomic_init_u32(&control->slot[i].abandoned, 0);
		}
		if (sem_init(&control->wake, 1, 0) != 0)
			elog(FATAL, "radik could not make the GPU service's semaphore: %m");
	}
	LWLockRelease(AddinShmemInitLock);
}

/*
 * From _PG_init: when radik is being preloaded, with radik.service on, request the shared memory
 * and register the supervisor.
 */
void
radik_service_init(void)
{
	BackgroundWorker worker;

	if (!process_shared_preload_libraries_in_progress || !radik_service_enabled)
		return;

	previous_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = service_shmem_request;
	previous_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = service_shmem_startup;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = 1;
	strlcpy(worker.bgw_library_name, "radik", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "radik_service_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, "radik GPU service", BGW_MAXLEN);
	strlcpy(worker.bgw_type, "radik GPU service", BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

static void
handle_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	shutdown_requested = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

static void
handle_sigchld(SIGNAL_ARGS)
{
	int			save_errno = errno;

	SetLatch(MyLatch);
	errno = save_errno;
}

/* In the new service process: die with the supervisor, take default signal handling. */
static void
become_service_process(pid_t supervisor)
{
	sigset_t	all;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != supervisor)
		_exit(0);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	radik_service_process_main(radik_service_engine);
}

static void
start_service_process(void)
{
	pid_t		supervisor = getpid();
	pid_t		pid;

	pg_atomic_write_u32(&radik_service_control->state, RADIK_SERVICE_STARTING);
	pid = fork_process();
	if (pid == 0)
		become_service_process(supervisor);
	if (pid < 0)
	{
		ereport(LOG,
				(errmsg("radik could not start its GPU service process: %m")));
		return;
	}
	service_pid = pid;
	radik_service_control->service_pid = pid;
}

/* Wake every backend that holds a slot: its selection may be lost. */
static void
wake_slot_owners(void)
{
	RadikServiceControl *control = radik_service_control;

	for (int i = 0; i < control->slots; i++)
		if (pg_atomic_read_u32(&control->slot[i].owned) && control->slot[i].owner_latch != NULL)
			SetLatch(control->slot[i].owner_latch);
}

/* Free the slots their owners abandoned under a service process that is gone. */
static void
free_stale_slots(void)
{
	RadikServiceControl *control = radik_service_control;
	uint32		generation = pg_atomic_read_u32(&control->generation);

	for (int i = 0; i < control->slots; i++)
	{
		RadikServiceSlot *slot = &control->slot[i];

		if (!pg_atomic_read_u32(&slot->owned) || !pg_atomic_read_u32(&slot->abandoned))
			continue;
		pg_read_barrier();
		if (slot->generation == generation)
			continue;			/* the service process frees it */
		pg_atomic_write_u32(&slot->request, RADIK_SLOT_IDLE);
		pg_atomic_write_u32(&slot->abandoned, 0);
		pg_write_barrier();
		pg_atomic_write_u32(&slot->owned, 0);
	}
}

/* Reap the service process if it ended; true if it did. */
static bool
reap_service_process(void)
{
	int			status;
	pid_t		pid;

	if (service_pid == 0)
		return false;
	pid = waitpid(service_pid, &status, WNOHANG);
	if (pid != service_pid)
		return false;
	service_pid = 0;
	radik_service_control->service_pid = 0;
	pg_atomic_fetch_add_u32(&radik_service_control->generation, 1);
	if (WIFEXITED(status) && WEXITSTATUS(status) == RADIK_SERVICE_EXIT_ABSENT)
	{
		pg_atomic_write_u32(&radik_service_control->state, RADIK_SERVICE_ABSENT);
		ereport(LOG,
				(errmsg("radik GPU service found no GPU; backends select without it"),
				 errdetail("%s", radik_service_control->device)));
	}
	else
	{
		pg_atomic_write_u32(&radik_service_control->state, RADIK_SERVICE_STARTING);
		if (WIFSIGNALED(status))
			ereport(LOG,
					(errmsg("radik GPU service process %d was terminated by signal %d; starting another",
							(int) pid, WTERMSIG(status))));
		else
			ereport(LOG,
					(errmsg("radik GPU service process %d exited with exit code %d; starting another",
							(int) pid, WEXITSTATUS(status))));
	}
	wake_slot_owners();
	return true;
}

void
radik_service_main(Datum arg)
{
	TimestampTz last_start = 0;
	bool		started = false;

	pqsignal(SIGTERM, handle_sigterm);
	pqsignal(SIGCHLD, handle_sigchld);
	BackgroundWorkerUnblockSignals();

	for (;;)
	{
		long		wait_ms = 1000;

		if (shutdown_requested)
			break;
		reap_service_process();
		free_stale_slots();
		if (service_pid == 0 &&
			pg_atomic_read_u32(&radik_service_control->state) != RADIK_SERVICE_ABSENT)
		{
			TimestampTz now = GetCurrentTimestamp();

			if (!started ||
				TimestampDifferenceExceeds(last_start, now, SERVICE_RESTART_INTERVAL_MS))
			{
				if (started)
					pg_atomic_fetch_add_u64(&radik_service_control->restarts, 1);
				start_service_process();
				started = true;
				last_start = now;
			}
			else
				wait_ms = SERVICE_RESTART_INTERVAL_MS / 10;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, wait_ms,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}

	pg_atomic_write_u32(&radik_service_control->state, RADIK_SERVICE_STOPPED);
	if (service_pid != 0)
	{
		(void) kill(service_pid, SIGKILL);
		(void) waitpid(service_pid, NULL, 0);
		radik_service_control->service_pid = 0;
	}
	pg_atomic_fetch_add_u32(&radik_service_control->generation, 1);
	wake_slot_owners();
	proc_exit(0);
}

static const char *
state_name(RadikServiceState state)
{
	switch (state)
	{
		case RADIK_SERVICE_STARTING:
			return "starting";
		case RADIK_SERVICE_READY:
			return "ready";
		case RADIK_SERVICE_ABSENT:
			return "absent";
		case RADIK_SERVICE_STOPPED:
			return "stopped";
	}
	return "unknown";
}

/*
 * radik_service_status(): where the GPU service stands, one row; NULL columns but state
 * ('off') when radik is not preloaded with radik.service on.
 */
Datum
radik_service_status(PG_FUNCTION_ARGS)
{
	RadikServiceControl *control = radik_service_control;
	TupleDesc	tupdesc;
	Datum		values[9];
	bool		nulls[9];
	int			in_use = 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	memset(nulls, true, sizeof(nulls));
	if (control == NULL)
	{
		values[0] = CStringGetTextDatum("off");
		nulls[0] = false;
		PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
	}
	for (int i = 0; i < control->slots; i++)
		in_use += pg_atomic_read_u32(&control->slot[i].owned) != 0;
	memset(nulls, false, sizeof(nulls));
	values[0] = CStringGetTextDatum(state_name(pg_atomic_read_u32(&control->state)));
	values[1] = Int32GetDatum(control->service_pid);
	nulls[1] = control->service_pid == 0;
	values[2] = CStringGetTextDatum(control->device);
	nulls[2] = control->device[0] == '\0';
	values[3] = Int32GetDatum(control->slots);
	values[4] = Int32GetDatum(in_use);
	values[5] = Int64GetDatum((int64) pg_atomic_read_u64(&control->selections));
	values[6] = Int64GetDatum((int64) pg_atomic_read_u64(&control->busy));
	values[7] = Int64GetDatum((int64) pg_atomic_read_u64(&control->restarts));
	values[8] = Float8GetDatum(pg_atomic_read_u64(&control->answering_us) / 1000.0);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
