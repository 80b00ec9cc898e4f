/*
 * radik_gpu_start.cu
 *	  The CUDA backend's start: the probe of the device (once a process, lazily: never at load
 *	  time, since the postmaster forks its backends and CUDA does not survive a fork), and the
 *	  same start run on a thread of the engine's own, so that a process's first selection need not
 *	  wait for it.  No driver or no device is RADIK_NO_DEVICE, in words that say what is missing.
 */
#include <cstdio>
#include <cstring>

#include <pthread.h>
#include <signal.h>

#include "radik_gpu_internal.cuh"

using namespace radik;

DeviceInfo	radik::device_info;

static int	probe_done;
static radik_status probe_status;
static char probe_message[RADIK_ERROR_MESSAGE_SIZE];

/*
 * probe_message for a cudaGetDeviceCount that failed with e, in the words of what is missing: the
 * CUDA runtime's own message for a machine without a driver is "CUDA driver version is
 * insufficient for CUDA runtime version", which reads as a version problem.
 */
static void
describe_missing_device(cudaError_t e)
{
	int			driver_version = 0;
	int			runtime_version = 0;

	(void) cudaDriverGetVersion(&driver_version);	/* 0 when no driver is loaded */
	(void) cudaRuntimeGetVersion(&runtime_version);
	(void) cudaGetLastError();
	if (e == cudaErrorNoDevice)
		snprintf(probe_message, sizeof(probe_message), "no NVIDIA GPU is present");
	else if (e == cudaErrorInsufficientDriver && driver_version == 0)
		snprintf(probe_message, sizeof(probe_message),
				 "no NVIDIA driver is installed (or its kernel module is not loaded)");
	else if (e == cudaErrorInsufficientDriver)
		snprintf(probe_message, sizeof(probe_message),
				 "the NVIDIA driver supports CUDA %d.%d, older than the CUDA %d.%d radik was built with",
				 driver_version / 1000, driver_version % 1000 / 10,
				 runtime_version / 1000, runtime_version % 1000 / 10);
	else
		snprintf(probe_message, sizeof(probe_message), "no usable CUDA device: %s",
				 cudaGetErrorString(e));
}

/* The probe itself (once per process): device count, properties, the context. */
void
radik::probe_device(void)
{
	if (!probe_done)
	{
		int			count = 0;
		cudaError_t e = cudaGetDeviceCount(&count);
		cudaDeviceProp prop;

		probe_status = RADIK_OK;
		if (e != cudaSuccess)
		{
			(void) cudaGetLastError();
			probe_status = RADIK_NO_DEVICE;
			describe_missing_device(e);
		}
		else if (count == 0)
		{
			probe_status = RADIK_NO_DEVICE;
			snprintf(probe_message, sizeof(probe_message), "no NVIDIA GPU is present");
		}
		else if ((e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess ||
				 (e = cudaSetDevice(0)) != cudaSuccess ||
				 (e = cudaFree(0)) != cudaSuccess)
		{
			(void) cudaGetLastError();
			probe_status = RADIK_NO_DEVICE;
			snprintf(probe_message, sizeof(probe_message), "the CUDA device cannot be used: %s",
					 cudaGetErrorString(e));
		}
		else
		{
			snprintf(device_info.name, sizeof(device_info.name), "%s", prop.name);
			device_info.multiprocessors = prop.multiProcessorCount > 0 ?
				prop.multiProcessorCount : 1;
			device_info.programmatic_launch = prop.major >= 9;
		}
		probe_done = 1;
	}
}

bool
radik::device_probed(void)
{
	return probe_done && probe_status == RADIK_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Starting the GPU in the background
 *
 * The GPU's start is the driver's initialisation and the CUDA context (about 200 ms on an H200
 * host), then the pinned chunk buffers (cudaHostAlloc, about 0.4 ms a MB: 50-65 ms for the 128
 * MB of a large table's).  A process's first query that waited for it ran five times slower
 * than its second (20M rows, 8 workers: 290-330 ms against 60).  radik_gpu_start_in_background
 * does the same work on a thread of its own and returns at once, so that the caller can select
 * on the CPU meanwhile.
 *
 * The thread calls nothing but CUDA and the start-up code (probe_device, the cached workspace's
 * stream and pinned buffers); it is created with every signal blocked, so the caller's signal
 * handlers keep running on the caller's thread (and CUDA's own threads, created from it,
 * inherit the mask).  Every entry point that touches CUDA or what the thread writes
 * (radik_gpu_probe, which radik_open and radik_select_batch call first, radik_gpu_release_cache)
 * joins the thread before it goes on; the selection calls need a selection, which only an open
 * after the probe makes.  So nothing of the engine runs beside the start.  A process must not
 * exit while the thread runs: the caller joins it first (radik_gpu_wait_for_start; the
 * PostgreSQL side does so in an on_proc_exit callback).  The join has no time limit: a driver
 * that hangs in its start would hold the backend's exit, as it would hold a query that waited
 * for the start.
 */

static pthread_t start_thread;
static int	start_thread_running;	/* created and not yet joined (the caller's thread only) */
static int	start_thread_done;	/* set by the thread as it ends (atomic loads and stores) */
static size_t start_chunk_entries;

static void *
start_in_background(void *unused)
{
	radik_error err;
	Workspace  *ws;

	(void) unused;
	probe_device();
	if (probe_status == RADIK_OK && workspace_acquire(&ws, &err) == RADIK_OK)
	{
		/* a failure here is only a missed head start: radik_gpu_open tries again */
		(void) reserve_pinned(ws, start_chunk_entries, &err);
		workspace_release(ws);
	}
	__atomic_store_n(&start_thread_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

void
radik::wait_for_background_start(void)
{
	if (!start_thread_running)
		return;
	(void) pthread_join(start_thread, NULL);
	start_thread_running = 0;
}

RADIK_EXPORT radik_status
radik_gpu_probe(char *name, size_t name_size, radik_error *err)
{
	wait_for_background_start();
	probe_device();
	if (name != NULL && name_size > 0)
		snprintf(name, name_size, "%s", probe_status == RADIK_OK ? device_info.name : "");
	if (probe_status != RADIK_OK)
		return radik_fail(err, probe_status, "%s", probe_message);
	return RADIK_OK;
}

RADIK_EXPORT radik_status
radik_gpu_start_in_background(uint64_t expected_rows, radik_error *err)
{
	sigset_t	all;
	sigset_t	caller_mask;
	int			rc;

	if (start_thread_running || probe_done)
		return RADIK_OK;
	start_chunk_entries = chunk_entries(expected_rows);
	__atomic_store_n(&start_thread_done, 0, __ATOMIC_RELEASE);
	sigfillset(&all);
	if ((rc = pthread_sigmask(SIG_SETMASK, &all, &caller_mask)) != 0)
		return radik_fail(err, RADIK_DEVICE_ERROR, "could not block signals for the GPU start: %s",
						  strerror(rc));
	rc = pthread_create(&start_thread, NULL, start_in_background, NULL);
	(void) pthread_sigmask(SIG_SETMASK, &caller_mask, NULL);
	if (rc != 0)
		return radik_fail(err, RADIK_DEVICE_ERROR, "could not start a thread for the GPU start: %s",
						  strerror(rc));
	start_thread_running = 1;
	return RADIK_OK;
}

RADIK_EXPORT int
radik_gpu_starting(void)
{
	if (!start_thread_running)
		return 0;
	if (!__atomic_load_n(&start_thread_done, __ATOMIC_ACQUIRE))
		return 1;
	wait_for_background_start();	/* it has ended: the join does not wait */
	return 0;
}

RADIK_EXPORT void
radik_gpu_wait_for_start(void)
{
	wait_for_background_start();
}
