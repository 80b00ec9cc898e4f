/*
 * probe_common.cuh
 *	  What the standalone GPU programs of test/engine (the probes, and engine_bench's key
 *	  generator) share: the check of a CUDA call and the hash their generated keys come from.
 */
#ifndef RADIK_PROBE_COMMON_CUH
#define RADIK_PROBE_COMMON_CUH

#include <cstdint>
#include <cstdio>

/* Print where a CUDA call failed and return 1 from the calling function. */
#define CHECK_CUDA(call) \
	do { \
		cudaError_t check_error_ = (call); \
		if (check_error_ != cudaSuccess) \
		{ \
			printf("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(check_error_)); \
			return 1; \
		} \
	} while (0)

using u32 = uint32_t;
using u64 = unsigned long long;

/* murmur3's 32-bit finaliser */
__device__ __forceinline__ u32
murmur_mix(u32 h)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

#endif							/* RADIK_PROBE_COMMON_CUH */
