/*
 * radik_gpu_switches.c
 *	  The CUDA engine's switches (radik_gpu_switches.h): the shipped choices and, built with
 *	  RADIK_GPU_SWITCHES for the engine's programs (test/engine, bench/engine), setters that
 *	  change them.
 *
 * A C file of its own, so that radik.so and the programs that measure and test the engine link
 * the same CUDA objects: only this file is compiled twice.  The shipped choices, measured on an
 * H200 with bench/engine/engine_bench --variants:
 *  - the one-pass small-k path first: 2^20 float keys, k = 16: 0.030 ms against 0.081 for the
 *    general rounds;
 *  - the speculative first pass: 2^30 float keys, k = 16: 1.27 ms against 3.73 for two passes;
 *  - plain histogram atomics: in those two passes 3.73 ms, against 8.87 aggregated over a warp;
 *  - a sorted answer, which radik_engine.h promises.
 */
#include "radik_gpu_switches.h"

#ifdef RADIK_GPU_SWITCHES
static radik_gpu_switches switches =
#else
static const radik_gpu_switches switches =
#endif
{
	.small_selection = 1,
	.speculation = 1,
	.warp_aggregate = 0,
	.sorted_output = 1
};

radik_gpu_switches
radik_gpu_get_switches(void)
{
	return switches;
}

#ifdef RADIK_GPU_SWITCHES
void
radik_gpu_set_small_selection(int enabled)
{
	switches.small_selection = enabled ? 1 : 0;
}

void
radik_gpu_set_speculation(int enabled)
{
	switches.speculation = enabled ? 1 : 0;
}

void
radik_gpu_set_warp_aggregate(int enabled)
{
	switches.warp_aggregate = enabled ? 1 : 0;
}

void
radik_gpu_set_sorted_output(int enabled)
{
	switches.sorted_output = enabled ? 1 : 0;
}
#endif
