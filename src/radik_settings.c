/*
 * radik_settings.c
 *	  radik's settings, registered once from _PG_init.
 *
 * Each description says what the setting does in a sentence; README.md's reference explains
 * how to choose a value.
 */
#include "postgres.h"

#include <limits.h>

#include "miscadmin.h"
#include "utils/guc.h"

#include "radik.h"
#include "radik_engine.h"
#include "radik_settings.h"

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
bool		radik_brin_ranges = true;
bool		radik_page_cache_reads = true;
bool		radik_service_enabled = true;
int			radik_service_gpus = 0;
int			radik_service_slots = 16;
int			radik_service_slot_kb = 4096;
int			radik_service_engine = RADIK_DEVICE_GPU;

static const struct config_enum_entry radik_device_options[] = {
	{"auto", RADIK_SETTING_DEVICE_AUTO, false},
	{"gpu", RADIK_SETTING_DEVICE_GPU, false},
	{"cpu", RADIK_SETTING_DEVICE_CPU, false},
	{NULL, 0, false}
};

static const struct config_enum_entry radik_service_engine_options[] = {
	{"gpu", RADIK_DEVICE_GPU, false},
	{"cpu", RADIK_DEVICE_CPU, false},
	{NULL, 0, false}
};

/*
 * The GPU service's settings, which take effect at server start: defined only when radik is in
 * shared_preload_libraries (PostgreSQL makes no such setting later).
 */
static void
service_settings_init(void)
{
	DefineCustomBoolVariable("radik.service",
							 "Runs every backend's GPU selections in one GPU service process.",
							 "Only with radik in shared_preload_libraries.  When off, or when radik is loaded otherwise, each backend that selects on the GPU holds a GPU context of its own.",
							 &radik_service_enabled,
							 true,
							 PGC_POSTMASTER,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("radik.service_gpus",
							"Sets the most GPUs the GPU service uses, one service process each.",
							"0: every GPU the server sees (CUDA_VISIBLE_DEVICES, else every GPU the NVIDIA driver lists).  With radik.service_engine = cpu, the number of services (one for 0).",
							&radik_service_gpus,
							0, 0, RADIK_MAX_SERVICES,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("radik.service_slots",
							"Sets how many selections the GPU service holds at once.",
							"A selection that finds every slot taken runs on the CPU under radik.device = auto, and waits for a slot under gpu.",
							&radik_service_slots,
							16, 1, 1024,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("radik.service_slot_size",
							"Sets the shared memory of each GPU service slot.",
							"Sixteen bytes per row: half of it is a chunk of keys on its way to the GPU, all of it the largest result (a larger k selects without the service).",
							&radik_service_slot_kb,
							4096, 64, 1024 * 1024,
							PGC_POSTMASTER,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomEnumVariable("radik.service_engine",
							 "Chooses the engine the GPU service runs: gpu, or cpu to test the service on a machine without a GPU.",
							 NULL,
							 &radik_service_engine,
							 RADIK_DEVICE_GPU,
							 radik_service_engine_options,
							 PGC_POSTMASTER,
							 GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);
}

void
radik_settings_init(void)
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
							 "auto: the GPU when one is present, else the CPU; gpu: the GPU or an error; cpu: always the CPU.",
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
							 "Charged under radik.device = gpu until the backend has started the GPU, in units of seq_page_cost (the default is about 0.4 s).",
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
							 "Paid by every query radik answers, in units of seq_page_cost; it keeps small tables on PostgreSQL's own plan.",
							 &radik_selection_cost,
							 100.0, 0.0, 1e12,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("radik.gpu_min_rows",
							 "Sets the table size below which radik.device = auto selects on the CPU.",
							 "Smaller tables are selected by the CPU engine, which gives the same answers: a GPU selection's fixed costs would not pay.",
							 &radik_gpu_min_rows,
							 1000000.0, 0.0, 1e15,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("radik.gpu_memory_limit",
							"Sets the most GPU memory a backend's selections may hold.",
							"0: no limit but the GPU's own memory.  A selection needing more runs on the CPU under radik.device = auto, and fails under gpu.  A backend with a limit selects on a GPU context of its own, not in the GPU service.",
							&radik_gpu_memory_limit_kb,
							0, 0, INT_MAX,
							PGC_USERSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("radik.threshold_seed",
							 "Lets a selection of many rows sample the table for a first key threshold.",
							 "The scan then drops rows beyond it from the start; if fewer than k rows meet it, the table is read again without it.",
							 &radik_threshold_seed,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("radik.threshold_seed_margin",
							 "Sets the confidence margin of the sampled threshold, in standard errors.",
							 "Negative values make the threshold too tight on purpose, for testing the second read.",
							 &radik_threshold_seed_margin,
							 4.0, -1000.0, 1000.0,
							 PGC_USERSET,
							 GUC_NOT_IN_SAMPLE | GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("radik.brin_ranges",
							 "Lets a selection use a BRIN minmax index on its first sort key to skip block ranges.",
							 "The ranges are read best summary first, in one process, when the summaries say few of them can hold selected rows; the rest are skipped.",
							 &radik_brin_ranges,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("radik.page_cache_reads",
							 "Lets a scan copy table pages that are not in shared buffers straight from the operating system's page cache.",
							 "Only for scans that would read the table through a ring of buffers, and only all-visible pages; others are read through shared buffers.",
							 &radik_page_cache_reads,
							 true,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	if (process_shared_preload_libraries_in_progress)
		service_settings_init();

	MarkGUCPrefixReserved("radik");
}
