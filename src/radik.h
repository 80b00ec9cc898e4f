/*
 * radik.h
 *	  What radik's PostgreSQL-side files share: its settings, each part's init function, and the
 *	  CPU prefetch hint both readers of heap pages use (radik_extract.c, radik_fetch.c).
 *
 * _PG_init (radik.c) registers the settings and calls each part's init; nothing here touches
 * CUDA, so loading radik into the postmaster (shared_preload_libraries) is safe.
 */
#ifndef RADIK_H
#define RADIK_H

#include "postgres.h"

#include "radik_compat.h"
#include "radik_engine.h"

/* radik.device */
typedef enum RadikDeviceSetting
{
	RADIK_SETTING_DEVICE_AUTO,
	RADIK_SETTING_DEVICE_GPU,
	RADIK_SETTING_DEVICE_CPU
} RadikDeviceSetting;

extern bool radik_enabled;
extern bool radik_force;
extern int	radik_device_setting;
extern double radik_gpu_startup_cost;
extern double radik_key_cost;
extern double radik_selection_cost;
extern double radik_gpu_min_rows;
extern int	radik_gpu_memory_limit_kb;
extern bool radik_threshold_seed;
extern double radik_threshold_seed_margin;

/*
 * Ask the CPU to bring the line at address into its cache, without waiting: a hint, which never
 * faults.  RADIK_PREFETCH_STRIDE is the CPU's cache line (PG_CACHE_LINE_SIZE is 128, a padding
 * size, not the line).  The lines are asked into the outer caches (locality 1: prefetcht2 on
 * x86), not into L1: on the GPU host's Xeon that let a scan keep more lines in flight, 6-7%
 * faster than locality 3 for a 50M-row scan alone or with 2 workers (prefetchnta, locality 0,
 * was 70% slower; no prefetch 45% slower).  Build with COPT=-DRADIK_PREFETCH_LOCALITY=n (or
 * -DRADIK_NO_PREFETCH) to compare.
 */
#define RADIK_PREFETCH_STRIDE 64
#ifndef RADIK_PREFETCH_LOCALITY
#define RADIK_PREFETCH_LOCALITY 1
#endif
#if (defined(__GNUC__) || defined(__clang__)) && !defined(RADIK_NO_PREFETCH)
#define radik_prefetch_for_read(address) __builtin_prefetch(address, 0, RADIK_PREFETCH_LOCALITY)
#else
#define radik_prefetch_for_read(address) ((void) 0)
#endif

/* Each part's registration, called once from _PG_init. */
extern void radik_planner_init(void);
extern void radik_scan_init(void);
extern void radik_jit_init(void);

/*
 * The engine device to use now for a table of about expected_rows rows, per radik.device: the
 * GPU when allowed and present (probing it lazily on first use in this backend) and, under auto,
 * the table holds at least radik.gpu_min_rows rows; else the CPU twin.  Under auto the GPU is
 * started in the background, and until it has started the CPU twin is chosen with
 * *gpu_starting set.  Raises an error when radik.device = gpu and no GPU can be used.
 */
extern radik_device radik_choose_device(double expected_rows, bool *gpu_starting);

/*
 * Would radik, run now in this backend, wait for the GPU to start?  For the planner's costs; it
 * never touches CUDA.
 */
extern bool radik_gpu_startup_pending(void);

/* Report an engine failure as a PostgreSQL error; never returns. */
extern void radik_engine_error(radik_status status, const radik_error *err) pg_attribute_noreturn();

#endif							/* RADIK_H */
