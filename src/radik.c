/*
 * radik.c
 *	  Module entry point and settings.
 *
 * _PG_init registers radik's settings and calls each part's init (the planner's path hooks, the
 * custom scan methods, the hook that retakes the JIT decision).  It must not touch CUDA: when
 * radik is in shared_preload_libraries it runs in the postmaster, which forks every backend, and
 * a CUDA context does not survive a fork.  The GPU is probed lazily, in the backend that first
 * needs it (radik_choose_device), and under radik.device = auto started there in the background.
 */
#include "postgres.h"

#include <limits.h>
#include <unistd.h>

#include "fmgr.h"
#include "storage/ipc.h"
#include "utils/guc.h"

#include "radik.h"

PG_MODULE_MAGIC;

bool		radik_enabled = true;
bool		radik_force = false;
int			radik_device_setting = RADIK_SETTING_DEVICE_AUTO;
double		radik_gpu_startup_cost = 300000.0;
double		radik_key_cost = 0.0025;
double		radik_selection_cost = 100.0;
double		radik_gpu_min_rows = 1000000.0;
int			radik_gpu_memory_limit_kb = 0;
bool		radik_threshold_seed = true;
double		radik_threshold_seed_margin = 4.0;

static const struct config_enum_entry radik_device_options[] = {
	{"auto", RADIK_SETTING_DEVICE_AUTO, false},
	{"gpu", RADIK_SETTING_DEVICE_GPU, false},
	{"cpu", RADIK_SETTING_DEVICE_CPU, false},
	{NULL, 0, false}
};

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

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomBoolVariable("radik.enabled",
							 "Lets the planner answer ORDER BY ... LIMIT queries with radik's top-k scan.",
							 "When off, radik adds no paths and PostgreSQL plans every query as usual.",
							 &radik_enabled,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("radik.device",
							 "Chooses where radik runs its selections: auto, gpu or cpu.",
							 "auto uses the GPU when one is present and the CPU otherwise; gpu insists on the GPU and fails without one; cpu always uses the CPU.",
							 &radik_device_setting,
							 RADIK_SETTING_DEVICE_AUTO,
							 radik_device_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("radik.force",
							 "Makes the planner choose radik wherever it can answer the query, whatever the costs.",
							 "Meant for testing; leave it off in production.",
							 &radik_force,
							 false,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("radik.gpu_startup_cost",
							 "Sets the planner's estimate of the one-time cost of starting the GPU in a backend.",
							 "Charged under radik.device = gpu by backends that have not started the GPU yet (under auto a query never waits for the start: the GPU starts in the background while the CPU selects), in the units of seq_page_cost; the default stands for about 0.4 s (creating a CUDA context and pinning buffers), at roughly a microsecond per unit for sequential scans and sorts of cached tables.",
							 &radik_gpu_startup_cost,
							 300000.0, 0.0, 1e12,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("radik.key_cost",
							 "Sets the planner's estimate of the cost of extracting one key and selecting it.",
							 "In the units of cpu_operator_cost's scale (seq_page_cost = 1).",
							 &radik_key_cost,
							 0.0025, 0.0, 1e6,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("radik.selection_cost",
							 "Sets the planner's estimate of the fixed cost of one radik selection.",
							 "Paid by every query radik answers, even with the GPU started (opening the selection, launching it, reading its result), in the units of seq_page_cost; it keeps small tables on PostgreSQL's own plan.",
							 &radik_selection_cost,
							 100.0, 0.0, 1e12,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("radik.gpu_min_rows",
							 "Sets the table size below which radik.device = auto selects on the CPU.",
							 "A GPU selection has fixed costs (pinned buffers, kernel launches, copies) that a small table does not repay; such tables are selected by the CPU twin, which gives the same answers.  Estimated from the table's statistics and its current size.",
							 &radik_gpu_min_rows,
							 1000000.0, 0.0, 1e15,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("radik.gpu_memory_limit",
							"Sets the most GPU memory a backend's selections may hold.",
							"0 means no limit beyond the GPU's own memory.  A selection that would need more fails as when the GPU is out of memory: under radik.device = auto it is run again on the CPU, under gpu it is an error.",
							&radik_gpu_memory_limit_kb,
							0, 0, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("radik.threshold_seed",
							 "Lets a selection of many rows sample the table for a first key threshold.",
							 "Rows beyond the threshold are dropped from the start of the scan instead of once k rows have been seen.  The sample only proposes it: when fewer than k rows meet it, the table is read again without it.",
							 &radik_threshold_seed,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("radik.threshold_seed_margin",
							 "Sets the confidence margin of the sampled threshold, in standard errors.",
							 "A developer option: negative values make the threshold too tight on purpose, so that the table is read again, for testing.",
							 &radik_threshold_seed_margin,
							 4.0, -1000.0, 1000.0,
							 PGC_USERSET,
							 GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	MarkGUCPrefixReserved("radik");

	radik_planner_init();
	radik_scan_init();
	radik_jit_init();
}

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
 * usually asks for (docs/performance.md, "Sixteenth session").  Returns true when it left the
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

radik_device
radik_choose_device(double expected_rows, bool *gpu_starting)
{
	char		name[128];
	radik_error err;

	*gpu_starting = false;
	if (radik_device_setting == RADIK_SETTING_DEVICE_CPU)
		return RADIK_DEVICE_CPU;
	if (radik_device_setting == RADIK_SETTING_DEVICE_AUTO && expected_rows < radik_gpu_min_rows)
		return RADIK_DEVICE_CPU;

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
		(gpu_state != GPU_UNKNOWN && gpu_state != GPU_STARTING))
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
