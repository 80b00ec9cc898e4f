/*
 * radik_gpu_max_key.cuh
 *	  The largest of a run of keys, and its launcher: a streaming selection's threshold, read once
 *	  its rows are cut back to exactly k (radik_gpu_stream.cu).
 */
#ifndef RADIK_GPU_MAX_KEY_CUH
#define RADIK_GPU_MAX_KEY_CUH

#include <cuda_runtime.h>
#include <cub/block/block_reduce.cuh>

#include "radik_gpu_common.cuh"

namespace radik
{

/* The largest of n keys, into *result (which the caller set to 0). */
template <typename Key>
__global__ void __launch_bounds__(THREADS)
max_key_kernel(const Key *keys, unsigned long long n, unsigned long long *result)
{
	using Reduce = cub::BlockReduce<unsigned long long, THREADS>;
	__shared__ typename Reduce::TempStorage reduce_storage;
	unsigned long long highest = 0;

	for (unsigned long long i = (unsigned long long) blockIdx.x * THREADS + threadIdx.x; i < n;
		 i += (unsigned long long) gridDim.x * THREADS)
		highest = (unsigned long long) keys[i] > highest ? (unsigned long long) keys[i] : highest;
	highest = Reduce(reduce_storage).Reduce(highest, Larger());
	if (threadIdx.x == 0)
		atomicMax(result, highest);
}

/* max_key_kernel over n keys, at most 4 blocks per multiprocessor; *result must be 0. */
template <typename Key>
cudaError_t
launch_max_key(const Key *keys, unsigned long long n, unsigned long long *result,
			   int multiprocessors, cudaStream_t stream)
{
	uint64_t	blocks = (n + THREADS - 1) / THREADS;

	if (blocks > (uint64_t) multiprocessors * 4)
		blocks = (uint64_t) multiprocessors * 4;
	max_key_kernel<Key><<<(unsigned int) blocks, THREADS, 0, stream>>>(keys, n, result);
	return cudaGetLastError();
}

}								/* namespace radik */

#endif							/* RADIK_GPU_MAX_KEY_CUH */
