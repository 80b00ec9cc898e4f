/*
 * radik_gpu_switches.h
 *	  Switches that choose among the CUDA engine's paths, for measuring the paths against each
 *	  other (bench/engine/engine_bench.cu) and for testing the general rounds on inputs the
 *	  one-pass small-k path would take (test/engine/engine_test.c).
 *
 * The engine reads them at every selection through radik_gpu_get_switches.  In radik.so they are
 * fixed at the shipped choices; only a build of radik_gpu_switches.c with RADIK_GPU_SWITCHES
 * defined, which the Makefile makes for the engine's programs alone (test/engine and
 * bench/engine), has the setters.  The CUDA objects are the same in both.
 */
#ifndef RADIK_GPU_SWITCHES_H
#define RADIK_GPU_SWITCHES_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct radik_gpu_switches
{
	int			small_selection;	/* 1: the one-pass small-k path first (radik_gpu_small.cuh);
									 * 0: the general rounds only */
	int			speculation;	/* 1: the speculative first pass; 0: always the full histogram
								 * round 0 (two passes over the input) */
	int			warp_aggregate; /* histogram atomics: 0 plain, 1 aggregated over a warp with
								 * match_any */
	int			sorted_output;	/* 1: sorted; 0: the k smallest in no particular order (the
								 * selection without its final sort) */
} radik_gpu_switches;

/* The switches in force. */
radik_gpu_switches radik_gpu_get_switches(void);

#ifdef RADIK_GPU_SWITCHES
/* Set one switch (nonzero: 1) for the selections that follow; any time, no GPU call needed. */
void		radik_gpu_set_small_selection(int enabled);
void		radik_gpu_set_speculation(int enabled);
void		radik_gpu_set_warp_aggregate(int enabled);
void		radik_gpu_set_sorted_output(int enabled);
#endif

#ifdef __cplusplus
}
#endif

#endif							/* RADIK_GPU_SWITCHES_H */
