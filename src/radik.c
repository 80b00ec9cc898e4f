/*
 * radik.c
 *	  Module entry point: _PG_init registers the settings and each part's hooks and methods.
 *
 * It must not touch CUDA: when radik is in shared_preload_libraries it runs in the postmaster,
 * which forks every backend, and a CUDA context does not survive a fork (the GPU service's process
 * starts the GPU, radik_service.c, or else a backend does, radik_device.c).
 */
#include "postgres.h"

#include "fmgr.h"

#include "radik.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	radik_settings_init();
	radik_planner_init();
	radik_scan_init();
	radik_rank_init();
	radik_jit_init();
	radik_partition_limits_init();
	radik_declines_init();
	radik_service_init();
}
