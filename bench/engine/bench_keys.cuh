/*
 * bench_keys.cuh
 *	  The keys the engine's benchmark (engine_bench) times on: generated on the device from a hash
 *	  of the index and the run's seed, so never zeros and never the same data twice, and simple
 *	  enough to be repeated exactly in PyTorch (torch_topk_bench.py).
 */
#ifndef RADIK_BENCH_KEYS_CUH
#define RADIK_BENCH_KEYS_CUH

#include <cstdint>

#include "radik_keys.h"

enum Distribution
{
	F32_UNIFORM,				/* float32 uniform on [0, 1) */
	F32_NARROW,					/* float32 uniform on [128.6, 128.7]: top 12 bits shared */
	I64_UNIFORM,				/* int64 uniform over all values */
	I64_ZIPF,					/* int64 Zipf(1.1): floor(u^-10), heavy ties at small values */
	DISTRIBUTIONS
};

static const char *const distribution_names[DISTRIBUTIONS] = {
	"f32-uniform", "f32-128.6-128.7", "i64-uniform", "i64-zipf1.1"
};

static inline int
key_bytes_of(int dist)
{
	return dist == F32_UNIFORM || dist == F32_NARROW ? 4 : 8;
}

/* murmur3's finaliser over a 32-bit counter: reproducible in PyTorch with int64 arithmetic */
__device__ __forceinline__ uint32_t
mix32(uint32_t i, uint32_t seed)
{
	uint32_t	h = i * 0x9E3779B1u + seed * 0x85EBCA77u;

	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

__global__ void
generate_kernel(int dist, unsigned long long n, uint32_t seed, void *keys)
{
	for (unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (unsigned long long) gridDim.x * blockDim.x)
	{
		if (dist == F32_UNIFORM || dist == F32_NARROW)
		{
			const float u = (float) (mix32((uint32_t) i, seed) >> 8) * (1.0f / 16777216.0f);
			const float v = dist == F32_UNIFORM ? u : __fadd_rn(__fmul_rn(u, 0.1f), 128.6f);

			((uint32_t *) keys)[i] = radik_key_from_float4(v);
		}
		else if (dist == I64_UNIFORM)
		{
			const uint64_t hi = mix32((uint32_t) (2 * i), seed);
			const uint64_t lo = mix32((uint32_t) (2 * i + 1), seed);

			((uint64_t *) keys)[i] = radik_key_from_int64((int64_t) ((hi << 32) | lo));
		}
		else
		{
			const double u = (double) ((mix32((uint32_t) i, seed) >> 8) + 1) * (1.0 / 16777216.0);
			double		v = floor(pow(u, -10.0));

			if (v > 4.0e18)
				v = 4.0e18;
			((uint64_t *) keys)[i] = radik_key_from_int64((int64_t) v);
		}
	}
}

#endif							/* RADIK_BENCH_KEYS_CUH */
