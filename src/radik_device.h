/*
 * radik_device.h
 *	  The GPU as PostgreSQL sees it (radik_device.c): which device a selection runs on, whether
 *	  a query would wait for the GPU to start, and engine failures as PostgreSQL errors.
 */
#ifndef RADIK_DEVICE_H
#define RADIK_DEVICE_H

#include "postgres.h"

#include "radik_compat.h"
#include "radik_engine.h"

/*
 * The engine device to use now for a table of about expected_rows rows, per radik.device: the
 * GPU when allowed and present and, under auto, the table holds at least radik.gpu_min_rows rows;
 * else the CPU twin.  The GPU is the GPU service's when it runs (*via_service set), else this
 * backend's own (radik_choose_backend_device).  Until the GPU has started, auto chooses the CPU
 * twin with *gpu_starting set.  Raises an error when radik.device = gpu and no GPU can be used.
 */
extern radik_device radik_choose_device(double expected_rows, bool *gpu_starting,
										bool *via_service);

/*
 * radik_choose_device without the service: the GPU of this backend, probed lazily on first use;
 * under auto started in the background.
 */
extern radik_device radik_choose_backend_device(double expected_rows, bool *gpu_starting);

/*
 * Would radik, run now in this backend, wait for the GPU to start?  For the planner's costs; it
 * never touches CUDA.
 */
extern bool radik_gpu_startup_pending(void);

/* Report an engine failure as a PostgreSQL error; never returns. */
extern void radik_engine_error(radik_status status, const radik_error *err) pg_attribute_noreturn();

#endif							/* RADIK_DEVICE_H */
