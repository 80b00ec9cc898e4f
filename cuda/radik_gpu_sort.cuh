/*
 * radik_gpu_sort.cuh
 *	  The device side of a selection's final sort, with its launchers: cub's radix sort of key/id
 *	  pairs with the offset width it runs fastest with, the bits in which a run of keys differ
 *	  (key_bits_kernel: the sort needs to look at those alone), and the widening of 32-bit indexes
 *	  into 64-bit ids after a narrow answer is sorted (widen_ids_kernel).  radik_gpu_sort.cu
 *	  decides which to run.
 */
#ifndef RADIK_GPU_SORT_CUH
#define RADIK_GPU_SORT_CUH

#include <cuda_runtime.h>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>

#include "radik_gpu_common.cuh"

namespace radik
{

/*
 * cub's radix sort of count pairs, with 32-bit offsets where count fits them: cub tunes its passes
 * per offset width, and with 32-bit offsets they take 23 items a thread instead of 17 for 4-byte
 * keys and values (2^28 such pairs on 30 bits: 7.28 ms against 8.37 on the H200).  temp NULL:
 * *temp_bytes gets the size of workspace the call needs.
 */
template <typename Key, typename Value>
cudaError_t
radix_sort_pairs(void *temp, size_t *temp_bytes, const Key *keys, Key *sorted_keys,
				 const Value *values, Value *sorted_values, uint64_t count, int begin_bit,
				 int end_bit, cudaStream_t stream)
{
	if (count <= UINT32_MAX)
		return cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, keys, sorted_keys, values,
											   sorted_values, (uint32_t) count, begin_bit,
											   end_bit, stream);
	return cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, keys, sorted_keys, values,
										   sorted_values, count, begin_bit, end_bit, stream);
}

/* Workspace radix_sort_pairs needs for any count up to total_out (its size grows with count). */
template <typename Key, typename Value>
cudaError_t
radix_sort_temp_bytes(uint64_t total_out, size_t *bytes)
{
	size_t		wide_bytes = 0;
	cudaError_t	status;

	status = radix_sort_pairs<Key, Value>(nullptr, bytes, nullptr, nullptr, nullptr, nullptr,
										  total_out < UINT32_MAX ? total_out : UINT32_MAX, 0,
										  (int) sizeof(Key) * 8, 0);
	if (status != cudaSuccess || total_out <= UINT32_MAX)
		return status;
	status = radix_sort_pairs<Key, Value>(nullptr, &wide_bytes, nullptr, nullptr, nullptr,
										  nullptr, total_out, 0, (int) sizeof(Key) * 8, 0);
	if (wide_bytes > *bytes)
		*bytes = wide_bytes;
	return status;
}

/*
 * The bits all n keys keys[0], keys[stride], ... have, and'ed into result[0] (which the caller set
 * to all ones), and the bits any of them has, or'ed into result[1] (set to 0).  Where the two
 * differ is all that a sort of the keys needs to look at.  A grid of one block stores its answer
 * instead (result may then be mapped host memory, which the caller need not set).
 */
template <typename Key>
__global__ void __launch_bounds__(THREADS)
key_bits_kernel(const Key *keys, unsigned long long n, unsigned long long stride,
				unsigned long long *result)
{
	using Reduce = cub::BlockReduce<unsigned long long, THREADS>;
	__shared__ typename Reduce::TempStorage reduce_storage;
	unsigned long long all = ~0ull;
	unsigned long long any = 0;

#pragma unroll 8
	for (unsigned long long i = (unsigned long long) blockIdx.x * THREADS + threadIdx.x; i < n;
		 i += (unsigned long long) gridDim.x * THREADS)
	{
		const unsigned long long key = keys[i * stride];

		all &= key;
		any |= key;
	}
	all = Reduce(reduce_storage).Reduce(all, BitsOfBoth());
	__syncthreads();			/* the storage is reused */
	any = Reduce(reduce_storage).Reduce(any, BitsOfEither());
	if (threadIdx.x == 0 && gridDim.x == 1)
	{
		result[0] = all;
		result[1] = any;
	}
	else if (threadIdx.x == 0)
	{
		atomicAnd(&result[0], all);
		atomicOr(&result[1], any);
	}
}

/* 64-bit ids from the 32-bit indexes a narrow output sorted (store_out_id).  (Static: defined in
 * a header, and not a template.) */
static __global__ void __launch_bounds__(THREADS)
widen_ids_kernel(const uint32_t *indexes, uint64_t *ids, unsigned long long n)
{
	for (unsigned long long i = (unsigned long long) blockIdx.x * THREADS + threadIdx.x; i < n;
		 i += (unsigned long long) gridDim.x * THREADS)
		ids[i] = indexes[i];
}

/*
 * key_bits_kernel over the n keys keys[0], keys[stride], ..., at most max_blocks blocks (1: the
 * one block stores its answer, see key_bits_kernel).
 */
template <typename Key>
cudaError_t
launch_key_bits(const Key *keys, unsigned long long n, unsigned long long stride,
				unsigned long long *result, uint64_t max_blocks, cudaStream_t stream)
{
	uint64_t	blocks = (n + THREADS - 1) / THREADS;

	if (blocks > max_blocks)
		blocks = max_blocks;
	key_bits_kernel<Key><<<(unsigned int) blocks, THREADS, 0, stream>>>(keys, n, stride, result);
	return cudaGetLastError();
}

/* widen_ids_kernel over count indexes, at most 8 blocks per multiprocessor. */
static inline cudaError_t
launch_widen_ids(const uint32_t *indexes, uint64_t *ids, uint64_t count, int multiprocessors,
				 cudaStream_t stream)
{
	const uint64_t blocks = (count + THREADS - 1) / THREADS;

	widen_ids_kernel<<<(unsigned int) (blocks < (uint64_t) multiprocessors * 8 ?
									   blocks : (uint64_t) multiprocessors * 8),
		THREADS, 0, stream>>>(indexes, ids, count);
	return cudaGetLastError();
}

}								/* namespace radik */

#endif							/* RADIK_GPU_SORT_CUH */
