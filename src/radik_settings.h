/*
 * radik_settings.h
 *	  radik's settings (radik.*), registered by radik_settings_init (radik_settings.c).
 */
#ifndef RADIK_SETTINGS_H
#define RADIK_SETTINGS_H

#include "postgres.h"

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
extern bool radik_brin_ranges;
extern bool radik_page_cache_reads;
extern bool radik_service_enabled;
extern int	radik_service_gpus;

/* The most GPU services a server runs (radik.service_gpus' maximum). */
#define RADIK_MAX_SERVICES 64

extern int	radik_service_slots;
extern int	radik_service_slot_kb;
extern int	radik_service_engine;	/* a radik_device */

#endif							/* RADIK_SETTINGS_H */
