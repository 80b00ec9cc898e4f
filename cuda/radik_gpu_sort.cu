/*
 * radik_gpu_sort.cu
 *	  The final sort of a selection's answer (the selection itself leaves it unsorted), and the
 *	  workspace it needs: one segment's by cub's radix sort on the bits in which its keys differ
 *	  (the kernels and cub's sort are in radik_gpu_sort.cuh; this file decides what to run), many
 *	  segments' by cub's segmented sort (radik_gpu_segmented_sort.cu).
 */
#include "radik_gpu_internal.cuh"
#include "radik_gpu_sort.cuh"

using namespace radik;

/*
 * Sorts of at least this many entries first find the bits in which their keys differ and sort
 * on those bits alone: every 8 bits fewer is one pass of the sort fewer (2^28 pairs of keys in
 * [128.6, 128.7]: 3.74 -> 3.00 ms).  A strided sample of NARROW_SORT_SAMPLE keys is read first,
 * and all the keys only when the sample leaves a pass to save.  Either way the host waits for
 * the answer before it launches the sort, about 16 us (4M uniform keys: 0.406 -> 0.422 ms);
 * below this size that would cost more than it could save.
 */
#define NARROW_SORT_MIN_ENTRIES (1u << 22)
#define NARROW_SORT_SAMPLE 2048

/* Bytes of sort workspace for total_out entries in the given number of segments. */
template <typename Key>
radik_status
radik::sort_temp_bytes(uint64_t total_out, size_t segments, size_t *bytes, radik_error *err)
{
	*bytes = 0;
	if (total_out == 0)
		return RADIK_OK;
	if (segments == 1)
	{
		size_t		narrow_bytes = 0;

		/* 64-bit ids, or 32-bit indexes where the output is narrow (run_selection) */
		CUDA_TRY((radix_sort_temp_bytes<Key, uint64_t>(total_out, bytes)));
		CUDA_TRY((radix_sort_temp_bytes<Key, uint32_t>(total_out, &narrow_bytes)));
		if (narrow_bytes > *bytes)
			*bytes = narrow_bytes;
	}
	else
		STATUS_TRY(segmented_sort_temp_bytes<Key>(total_out, segments, bytes, err));
	return RADIK_OK;
}

/*
 * The bits in which the n keys keys[0], keys[stride], keys[2 * stride], ... differ; waits.  A
 * sample (one block) stores its answer straight into mapped host memory; a longer read reduces
 * into device memory with atomics, copied back.
 */
template <typename Key>
static radik_status
differing_bits(Workspace *ws, cudaStream_t stream, const Key *keys, uint64_t n, uint64_t stride,
			   unsigned long long *differ, radik_error *err)
{
	unsigned long long masks[2];	/* the bits all the keys have, the bits any has */

	if (n <= NARROW_SORT_SAMPLE)
	{
		if (ws->sample_bits == NULL)
		{
			STATUS_TRY(mapped_host_alloc((void **) &ws->sample_bits,
										 (void **) &ws->sample_bits_device,
										 2 * sizeof(unsigned long long), err));
		}
		CUDA_TRY(launch_key_bits<Key>(keys, n, stride, ws->sample_bits_device, 1, stream));
		CUDA_TRY(cudaStreamSynchronize(stream));
		masks[0] = ((volatile unsigned long long *) ws->sample_bits)[0];
		masks[1] = ((volatile unsigned long long *) ws->sample_bits)[1];
	}
	else
	{
		unsigned long long *device_masks = (unsigned long long *) ws->scalar.ptr;

		CUDA_TRY(cudaMemsetAsync(device_masks, 0xff, sizeof(unsigned long long), stream));
		CUDA_TRY(cudaMemsetAsync(device_masks + 1, 0, sizeof(unsigned long long), stream));
		CUDA_TRY(launch_key_bits<Key>(keys, n, stride, device_masks,
									  (uint64_t) device_info.multiprocessors * 4, stream));
		CUDA_TRY(cudaMemcpyAsync(masks, device_masks, sizeof(masks), cudaMemcpyDeviceToHost,
								 stream));
		CUDA_TRY(cudaStreamSynchronize(stream));
	}
	*differ = masks[0] ^ masks[1];
	return RADIK_OK;
}

/* Passes of cub's radix sort over the bits set in differ (its digits are 8 bits wide too). */
static int
sort_passes(unsigned long long differ)
{
	const int	bits = differ == 0 ? 1 : 64 - __builtin_clzll(differ) - __builtin_ctzll(differ);

	return (bits + DIGIT_BITS - 1) / DIGIT_BITS;
}

/*
 * The bits [*begin_bit, *end_bit) outside which the count keys never differ, for a sort of them
 * (cub's radix sort takes that range; the order on it is the order on the whole keys).  Large
 * inputs only (NARROW_SORT_MIN_ENTRIES), others get every bit.  A strided sample of the keys is
 * read first: where its keys already differ across as many digits as the key has (uniform keys),
 * so do all of them and the whole read is skipped.  *end_bit == 0: all the keys are equal, no
 * sort needed.  ws->scalar must hold two words (prepare_selection).
 */
template <typename Key>
static radik_status
sort_bit_range(Workspace *ws, cudaStream_t stream, const Key *keys, uint64_t count,
			   int *begin_bit, int *end_bit, radik_error *err)
{
	constexpr int KEY_BITS = (int) sizeof(Key) * 8;
	unsigned long long differ = 0;

	*begin_bit = 0;
	*end_bit = KEY_BITS;
	if (count < NARROW_SORT_MIN_ENTRIES)
		return RADIK_OK;
	STATUS_TRY(differing_bits<Key>(ws, stream, keys, NARROW_SORT_SAMPLE,
								   count / NARROW_SORT_SAMPLE, &differ, err));
	if (sort_passes(differ) == KEY_BITS / DIGIT_BITS)
		return RADIK_OK;
	STATUS_TRY(differing_bits<Key>(ws, stream, keys, count, 1, &differ, err));
	if (differ == 0)
		*end_bit = 0;			/* all equal: already in order */
	else
	{
		*begin_bit = __builtin_ctzll(differ);
		*end_bit = 64 - __builtin_clzll(differ);
	}
	return RADIK_OK;
}

/*
 * Sort count pairs by key into sorted_keys/sorted_ids, on the bits where the keys differ
 * (sort_bit_range); keys all equal are copied as they are.  ws->sort_temp must be sized for count.
 * narrow: ids holds 32-bit indexes (store_out_id); they are sorted into the second candidate
 * buffer (free once a selection is done, and never a caller's destination) and widened into
 * sorted_ids.
 */
template <typename Key>
radik_status
radik::sort_pairs(Workspace *ws, cudaStream_t stream, const Key *keys, const uint64_t *ids,
				  Key *sorted_keys, uint64_t *sorted_ids, uint64_t count, bool narrow,
				  radik_error *err)
{
	size_t		temp_bytes = ws->sort_temp.bytes;
	const uint32_t *indexes = (const uint32_t *) ids;
	uint32_t   *sorted_indexes = (uint32_t *) ws->candidate_ids[1].ptr;
	int			begin_bit;
	int			end_bit;

	STATUS_TRY(sort_bit_range<Key>(ws, stream, keys, count, &begin_bit, &end_bit, err));
	if (end_bit == 0)
	{
		CUDA_TRY(cudaMemcpyAsync(sorted_keys, keys, count * sizeof(Key), cudaMemcpyDeviceToDevice,
								 stream));
		if (!narrow)
		{
			CUDA_TRY(cudaMemcpyAsync(sorted_ids, ids, count * sizeof(uint64_t),
									 cudaMemcpyDeviceToDevice, stream));
			return RADIK_OK;
		}
		sorted_indexes = (uint32_t *) indexes;	/* widened below as they are */
	}
	else if (!narrow)
	{
		CUDA_TRY(radix_sort_pairs(ws->sort_temp.ptr, &temp_bytes, keys, sorted_keys, ids,
								  sorted_ids, count, begin_bit, end_bit, stream));
		return RADIK_OK;
	}
	else
		CUDA_TRY(radix_sort_pairs(ws->sort_temp.ptr, &temp_bytes, keys, sorted_keys, indexes,
								  sorted_indexes, count, begin_bit, end_bit, stream));

	CUDA_TRY(launch_widen_ids(sorted_indexes, sorted_ids, count, device_info.multiprocessors,
							  stream));
	return RADIK_OK;
}

/* The two key widths, for the other files (the definitions above stay in this one). */
#define RADIK_SORT_INSTANCES(Key) \
	template radik_status radik::sort_temp_bytes<Key>(uint64_t, size_t, size_t *, radik_error *); \
	template radik_status radik::sort_pairs<Key>(Workspace *, cudaStream_t, const Key *, \
												 const uint64_t *, Key *, uint64_t *, uint64_t, \
												 bool, radik_error *);
RADIK_SORT_INSTANCES(uint32_t)
RADIK_SORT_INSTANCES(uint64_t)
