/*
 * radik_device.c
 *	  The GPU as PostgreSQL sees it: which engine device a selection runs on, through the GPU
 *	  service or in the backend, the GPU's start in a backend, and engine failures as PostgreSQL
 *	  errors.
 *
 * CUDA is never touched in the postmaster.  With radik preloaded and radik.service on, the GPU
 * service (radik_service.h) holds the only CUDA context, started with the server, and selections
 * on the GPU go there; while it starts (or starts again after its process died), selections run
 * on the CPU twin under radik.device = auto and wait for it under gpu.  Without the service, a
 * backend probes the GPU the first time a selection wants it: under auto that first selection
 * starts the GPU on a thread of the engine's own and runs on the CPU twin meanwhile, so no query
 * waits for the start; under gpu the query waits, and fails without a GPU.
 */
#include "postgres.h"

#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/wait_event.h"

#include "radik_device.h"
#include "radik_service.h"
#include "radik_settings.h"

/* The GPU probe's answer in this backend: unknown until first asked. */
typedef enum GpuState
{
	GPU_UNKNOWN,
	GPU_STARTING,				/* started in the background (radik.device = auto) */
	GPU_PRESENT,
	GPU_ABSENT
} GpuState;

static GpuState gpu_state = GPU_UNKNOWN;
static char gpu_absent_reason[RADIK_ERROR_MESSAGE_SIZE];

/* Before the backend exits: a GPU start still running in the background must end first. */
static void
wait_for_gpu_start(int code, Datum arg)
{
	radik_gpu_wait_for_start();
}

/*
 * Under radik.device = auto, the first selection that wants the GPU starts it in the background
 * and runs on the CPU twin; so do the selections after it until the GPU has started.  A query
 * then never waits for the GPU's start (about a quarter of a second, most of it the driver's
 * initialisation and the CUDA context: a session's first query took five times as long as its
 * second), and the CPU twin gives the same answers at nearly the same speed for the k a query
 * usually asks for, since reading the table is most of its time.  Returns true when it left the
 * GPU starting, false when the GPU should be probed now (a start could not be made, or the
 * machine has no NVIDIA device node, where the probe answers at once).
 */
static bool
start_gpu_in_background(double expected_rows)
{
	static bool exit_callback_registered = false;
	radik_error err;

	if (access("/dev/nvidiactl", F_OK) != 0)
		return false;
	if (!exit_callback_registered)
	{
		on_proc_exit(wait_for_gpu_start, (Datum) 0);
		exit_callback_registered = true;
	}
	if (radik_gpu_start_in_background((uint64) Max(expected_rows, 0.0), &err) != RADIK_OK)
	{
		ereport(DEBUG1,
				(errmsg_internal("radik could not start the GPU in the background: %s",
								 err.message)));
		return false;
	}
	return true;
}

/* Under radik.device = gpu: wait while the GPU service starts; its state after. */
static RadikServiceState
wait_for_service(void)
{
	RadikServiceState state;

	while ((state = radik_service_state()) == RADIK_SERVICE_STARTING)
	{
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	return state;
}

radik_device
radik_choose_device(double expected_rows, bool *gpu_starting, bool *via_service)
{
	RadikServiceState service;

	*gpu_starting = false;
	*via_service = false;
	if (radik_device_setting == RADIK_SETTING_DEVICE_CPU)
		return RADIK_DEVICE_CPU;
	if (radik_device_setting == RADIK_SETTING_DEVICE_AUTO && expected_rows < radik_gpu_min_rows)
		return RADIK_DEVICE_CPU;

	/* radik.gpu_memory_limit caps a backend's own GPU memory: such a backend keeps its own */
	service = radik_gpu_memory_limit_kb == 0 ? radik_service_state() : RADIK_SERVICE_ABSENT;
	if (service == RADIK_SERVICE_STARTING)
	{
		if (radik_device_setting == RADIK_SETTING_DEVICE_AUTO)
		{
			*gpu_starting = true;
			return RADIK_DEVICE_CPU;
		}
		service = wait_for_service();
	}
	if (service == RADIK_SERVICE_READY)
	{
		*via_service = true;
		return RADIK_DEVICE_GPU;
	}
	return radik_choose_backend_device(expected_rows, gpu_starting);
}

radik_device
radik_choose_backend_device(double expected_rows, bool *gpu_starting)
{
	char		name[128];
	radik_error err;

	*gpu_starting = false;

	if (gpu_state == GPU_UNKNOWN && radik_device_setting == RADIK_SETTING_DEVICE_AUTO &&
		start_gpu_in_background(expected_rows))
		gpu_state = GPU_STARTING;
	if (gpu_state == GPU_STARTING)
	{
		if (radik_device_setting == RADIK_SETTING_DEVICE_AUTO && radik_gpu_starting())
		{
			*gpu_starting = true;
			return RADIK_DEVICE_CPU;
		}
		gpu_state = GPU_UNKNOWN;	/* ended (or radik.device = gpu waits): the probe answers */
	}
	if (gpu_state == GPU_UNKNOWN)
	{
		radik_status status = radik_gpu_probe(name, sizeof(name), &err);

		if (status == RADIK_OK)
			gpu_state = GPU_PRESENT;
		else
		{
			gpu_state = GPU_ABSENT;
			strlcpy(gpu_absent_reason, err.message, sizeof(gpu_absent_reason));
		}
	}

	if (gpu_state == GPU_PRESENT)
		return RADIK_DEVICE_GPU;

	if (radik_device_setting == RADIK_SETTING_DEVICE_GPU)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("radik.device is \"gpu\" but no GPU can be used"),
				 errdetail("%s", gpu_absent_reason),
				 errhint("Set radik.device to \"auto\" or \"cpu\" to select on the CPU.")));
	return RADIK_DEVICE_CPU;
}

/*
 * True while radik.device = gpu, this backend has not started the GPU yet, and the machine has
 * an NVIDIA device node: the query would wait for the start.  (Under auto no query waits: the
 * GPU starts in the background while the CPU twin selects.)  The node is looked for with
 * access(), not with a CUDA call, so that planning never starts the GPU; without one the probe
 * would find nothing, and radik would run on the CPU with nothing to start.
 */
bool
radik_gpu_startup_pending(void)
{
	if (radik_device_setting != RADIK_SETTING_DEVICE_GPU ||
		(gpu_state != GPU_UNKNOWN && gpu_state != GPU_STARTING) ||
		radik_service_state() == RADIK_SERVICE_READY)
		return false;
	return access("/dev/nvidiactl", F_OK) == 0;
}

void
radik_engine_error(radik_status status, const radik_error *err)
{
	ereport(ERROR,
			(errcode(status == RADIK_OUT_OF_MEMORY ? ERRCODE_OUT_OF_MEMORY :
					 status == RADIK_INVALID_ARGUMENT ? ERRCODE_INTERNAL_ERROR :
					 ERRCODE_SYSTEM_ERROR),
			 errmsg("radik selection failed"),
			 errdetail("%s", err->message)));
}
