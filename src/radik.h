/*
 * radik.h
 *	  Each part's registration, called once from _PG_init (radik.c).
 *
 * Nothing registered here touches CUDA, so loading radik into the postmaster
 * (shared_preload_libraries) is safe: the GPU is started lazily, in a backend (radik_device.c).
 */
#ifndef RADIK_H
#define RADIK_H

extern void radik_settings_init(void);
extern void radik_planner_init(void);
extern void radik_scan_init(void);
extern void radik_rank_init(void);
extern void radik_jit_init(void);
extern void radik_partition_limits_init(void);
extern void radik_declines_init(void);
extern void radik_service_init(void);

#endif							/* RADIK_H */
