/*
 * radik_service.c
 *	  The GPU service's shared memory, its supervisor (a background worker) and
 *	  radik_service_status() (radik_service.h says what the service is and why).
 *
 * The supervisor forks a service process per GPU, reaps them, and starts another when one dies:
 * that service's generation goes up first, so that every backend waiting on the dead one finds
 * its selection lost, and slots a backend abandoned under an older generation are freed here (the
 * service process only serves its own generation).  A service process that found no GPU is not
 * started again: the service is absent and backends select as they do without it.  Neither the
 * postmaster nor the supervisor touches CUDA.
 */
#include "postgres.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
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
#include "storage/fd.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"
#include "utils/timestamp.h"

#include "radik.h"
#include "radik_service.h"
#include "radik_settings.h"

/* Start the next service process no sooner than this after the last one started. */
#define SERVICE_RESTART_INTERVAL_MS 1000

static RadikServiceControl *service_array[RADIK_MAX_SERVICES];
RadikServiceControl **radik_services = service_array;
int			radik_service_count = 0;

static shmem_request_hook_type previous_shmem_request_hook = NULL;
static shmem_startup_hook_type previous_shmem_startup_hook = NULL;

static volatile sig_atomic_t shutdown_requested = false;

/*
 * In the supervisor: each service's process (0 while none runs) and when it was last started (0
 * before its first start).
 */
static pid_t service_pids[RADIK_MAX_SERVICES];
static TimestampTz service_started_at[RADIK_MAX_SERVICES];

PG_FUNCTION_INFO_V1(radik_service_status);

/*
 * How many services to run, decided once in the postmaster without touching CUDA: one per GPU the
 * server sees (the entries of CUDA_VISIBLE_DEVICES when it is set, else the GPUs the NVIDIA driver
 * lists in /proc/driver/nvidia/gpus), at most radik.service_gpus when that is above 0; at least
 * one, which says so when there is no GPU.  The CPU engine runs radik.service_gpus services (one
 * when 0), for testing.
 */
static int
count_services(void)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	int			gpus = 0;

	if (radik_service_engine == RADIK_DEVICE_CPU)
		gpus = Max(radik_service_gpus, 1);
	else if (visible != NULL)
	{
		gpus = *visible != '\0';
		for (const char *c = visible; *c; c++)
			gpus += *c == ',';
	}
	else
	{
		DIR		   *dir = AllocateDir("/proc/driver/nvidia/gpus");
		struct dirent *entry;

		while (dir != NULL && (entry = ReadDirExtended(dir, "/proc/driver/nvidia/gpus", LOG)) != NULL)
			gpus += entry->d_name[0] != '.';
		if (dir != NULL)
			FreeDir(dir);
	}
	if (radik_service_gpus > 0)
		gpus = Min(gpus, radik_service_gpus);
	return Min(Max(gpus, 1), RADIK_MAX_SERVICES);
}

/*
 * In a new service process, before CUDA: make the service's GPU the only one the process sees
 * (the gpu-th entry of CUDA_VISIBLE_DEVICES, or the gpu-th device).
 */
static void
show_only_gpu(int gpu)
{
	const char *visible = getenv("CUDA_VISIBLE_DEVICES");
	char		ordinal[64];

	if (visible == NULL)
		snprintf(ordinal, sizeof(ordinal), "%d", gpu);
	else
	{
		const char *c = visible;
		size_t		length;

		for (int n = 0; n < gpu && c != NULL; n++)
		{
			c = strchr(c, ',');
			if (c != NULL)
				c++;
		}
		if (c == NULL)
			c = "";
		length = strcspn(c, ",");
		snprintf(ordinal, sizeof(ordinal), "%.*s", (int) Min(length, sizeof(ordinal) - 1), c);
	}
	setenv("CUDA_VISIBLE_DEVICES", ordinal, 1);
}

static Size
control_size(void)
{
	return MAXALIGN(add_size(offsetof(RadikServiceControl, slot),
							 mul_size(radik_service_slots, sizeof(RadikServiceSlot))));
}

static Size
slot_bytes(void)
{
	return (Size) radik_service_slot_kb * 1024;
}

/* Every service's slots' data, page-aligned (the GPU copies from it). */
static Size
data_size(void)
{
	return add_size(mul_size(mul_size(radik_service_count, radik_service_slots), slot_bytes()),
					4096);
}

static void
service_shmem_request(void)
{
	if (previous_shmem_request_hook)
		previous_shmem_request_hook();
	RequestAddinShmemSpace(mul_size(radik_service_count, control_size()));
	RequestAddinShmemSpace(data_size());
}

static void
init_service(RadikServiceControl *service, int gpu, char *data)
{
	memset(service, 0, control_size());
	service->gpu = gpu;
	pg_atomic_init_u32(&service->state, RADIK_SERVICE_STARTING);
	pg_atomic_init_u32(&service->generation, 1);
	pg_atomic_init_u64(&service->restarts, 0);
	pg_atomic_init_u64(&service->selections, 0);
	pg_atomic_init_u64(&service->busy, 0);
	pg_atomic_init_u64(&service->answering_us, 0);
	pg_atomic_init_u64(&service->batches, 0);
	pg_atomic_init_u64(&service->batched, 0);
	service->slots = radik_service_slots;
	service->slot_bytes = slot_bytes();
	service->data = data;
	for (int i = 0; i < service->slots; i++)
	{
		pg_atomic_init_u32(&service->slot[i].owned, 0);
		pg_atomic_init_u32(&service->slot[i].request, RADIK_SLOT_IDLE);
		pg_atomic_init_u32(&service->slot[i].abandoned, 0);
	}
	if (sem_init(&service->wake, 1, 0) != 0)
		elog(FATAL, "radik could not make the GPU service's semaphore: %m");
}

static void
service_shmem_startup(void)
{
	bool		found_control;
	bool		found_data;
	char	   *controls;
	char	   *data;

	if (previous_shmem_startup_hook)
		previous_shmem_startup_hook();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	controls = ShmemInitStruct("radik GPU service", mul_size(radik_service_count, control_size()),
							   &found_control);
	data = ShmemInitStruct("radik GPU service slots", data_size(), &found_data);
	data = (char *) TYPEALIGN(4096, data);
	for (int n = 0; n < radik_service_count; n++)
	{
		radik_services[n] = (RadikServiceControl *) (controls + n * control_size());
		if (!found_control)
			init_service(radik_services[n], n,
						 data + (Size) n * radik_service_slots * slot_bytes());
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

	radik_service_count = count_services();
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
become_service_process(RadikServiceControl *service, pid_t supervisor)
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
	if (radik_service_engine == RADIK_DEVICE_GPU)
		show_only_gpu(service->gpu);
	radik_service_process_main(service, radik_service_engine);
}

static void
start_service_process(int n)
{
	RadikServiceControl *service = radik_services[n];
	pid_t		supervisor = getpid();
	pid_t		pid;

	pg_atomic_write_u32(&service->state, RADIK_SERVICE_STARTING);
	pid = fork_process();
	if (pid == 0)
		become_service_process(service, supervisor);
	if (pid < 0)
	{
		ereport(LOG,
				(errmsg("radik could not start its GPU service process: %m")));
		return;
	}
	service_pids[n] = pid;
	service->service_pid = pid;
}

/* Wake every backend that holds a slot of the service: its selection may be lost. */
static void
wake_slot_owners(RadikServiceControl *service)
{
	for (int i = 0; i < service->slots; i++)
		if (pg_atomic_read_u32(&service->slot[i].owned) && service->slot[i].owner_latch != NULL)
			SetLatch(service->slot[i].owner_latch);
}

/* Free the slots their owners abandoned under a service process that is gone. */
static void
free_stale_slots(RadikServiceControl *service)
{
	uint32		generation = pg_atomic_read_u32(&service->generation);

	for (int i = 0; i < service->slots; i++)
	{
		RadikServiceSlot *slot = &service->slot[i];

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

/* Reap service n's process if it ended. */
static void
reap_service_process(int n)
{
	RadikServiceControl *service = radik_services[n];
	int			status;
	pid_t		pid;

	if (service_pids[n] == 0)
		return;
	pid = waitpid(service_pids[n], &status, WNOHANG);
	if (pid != service_pids[n])
		return;
	service_pids[n] = 0;
	service->service_pid = 0;
	pg_atomic_fetch_add_u32(&service->generation, 1);
	if (WIFEXITED(status) && WEXITSTATUS(status) == RADIK_SERVICE_EXIT_ABSENT)
	{
		pg_atomic_write_u32(&service->state, RADIK_SERVICE_ABSENT);
		ereport(LOG,
				(errmsg("radik GPU service %d found no GPU; backends select without it", n),
				 errdetail("%s", service->device)));
	}
	else
	{
		pg_atomic_write_u32(&service->state, RADIK_SERVICE_STARTING);
		if (WIFSIGNALED(status))
			ereport(LOG,
					(errmsg("radik GPU service process %d was terminated by signal %d; starting another",
							(int) pid, WTERMSIG(status))));
		else
			ereport(LOG,
					(errmsg("radik GPU service process %d exited with exit code %d; starting another",
							(int) pid, WEXITSTATUS(status))));
	}
	wake_slot_owners(service);
}

/* Start service n's process if none runs and it is time; false if it must wait. */
static bool
start_if_due(int n)
{
	TimestampTz now;

	if (service_pids[n] != 0 ||
		pg_atomic_read_u32(&radik_services[n]->state) == RADIK_SERVICE_ABSENT)
		return true;
	now = GetCurrentTimestamp();
	if (service_started_at[n] != 0)
	{
		if (!TimestampDifferenceExceeds(service_started_at[n], now, SERVICE_RESTART_INTERVAL_MS))
			return false;
		pg_atomic_fetch_add_u64(&radik_services[n]->restarts, 1);
	}
	start_service_process(n);
	service_started_at[n] = now;
	return true;
}

void
radik_service_main(Datum arg)
{
	pqsignal(SIGTERM, handle_sigterm);
	pqsignal(SIGCHLD, handle_sigchld);
	BackgroundWorkerUnblockSignals();

	while (!shutdown_requested)
	{
		long		wait_ms = 1000;

		for (int n = 0; n < radik_service_count; n++)
		{
			reap_service_process(n);
			free_stale_slots(radik_services[n]);
			if (!start_if_due(n))
				wait_ms = SERVICE_RESTART_INTERVAL_MS / 10;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, wait_ms,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}

	for (int n = 0; n < radik_service_count; n++)
	{
		RadikServiceControl *service = radik_services[n];

		pg_atomic_write_u32(&service->state, RADIK_SERVICE_STOPPED);
		if (service_pids[n] != 0)
		{
			(void) kill(service_pids[n], SIGKILL);
			(void) waitpid(service_pids[n], NULL, 0);
			service->service_pid = 0;
		}
		pg_atomic_fetch_add_u32(&service->generation, 1);
		wake_slot_owners(service);
	}
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
 * radik_service_status(): where each GPU service stands, one row per service; one row with state
 * 'off' and NULL columns when radik is not preloaded with radik.service on.
 */
Datum
radik_service_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		values[12];
	bool		nulls[12];

	InitMaterializedSRF(fcinfo, 0);
	if (radik_service_count == 0)
	{
		memset(nulls, true, sizeof(nulls));
		values[1] = CStringGetTextDatum("off");
		nulls[1] = false;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		return (Datum) 0;
	}
	for (int n = 0; n < radik_service_count; n++)
	{
		RadikServiceControl *service = radik_services[n];

		memset(nulls, false, sizeof(nulls));
		values[0] = Int32GetDatum(service->gpu);
		values[1] = CStringGetTextDatum(state_name(pg_atomic_read_u32(&service->state)));
		values[2] = Int32GetDatum(service->service_pid);
		nulls[2] = service->service_pid == 0;
		values[3] = CStringGetTextDatum(service->device);
		nulls[3] = service->device[0] == '\0';
		values[4] = Int32GetDatum(service->slots);
		values[5] = Int32GetDatum(radik_service_slots_taken(service));
		values[6] = Int64GetDatum((int64) pg_atomic_read_u64(&service->selections));
		values[7] = Int64GetDatum((int64) pg_atomic_read_u64(&service->busy));
		values[8] = Int64GetDatum((int64) pg_atomic_read_u64(&service->restarts));
		values[9] = Float8GetDatum(pg_atomic_read_u64(&service->answering_us) / 1000.0);
		values[10] = Int64GetDatum((int64) pg_atomic_read_u64(&service->batches));
		values[11] = Int64GetDatum((int64) pg_atomic_read_u64(&service->batched));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
