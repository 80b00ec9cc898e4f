/*
 * start_probe.cu
 *	  What a process's first GPU selection pays before its first chunk, measured in a fresh process:
 *	  the steps of the GPU's start one by one, then the engine's start waited for (as
 *	  radik.device = gpu does) or run in the background (as radik.device = auto does).
 *
 * usage: start_probe raw | sync | background [expected_rows]
 *   raw         cudaGetDeviceCount (the driver's initialisation), the context (cudaFree(0)), then
 *               cudaHostAlloc and cudaMalloc of 8 to 128 MB
 *   sync        radik_gpu_probe, then radik_gpu_open for a table of expected_rows rows (its pinned
 *               chunk buffers), then one chunk pushed and selected
 *   background  radik_gpu_start_in_background (how long the caller is held), how long until
 *               radik_gpu_starting() turns 0, then the same open and chunk
 * One mode a run: CUDA is started once a process.  Wall-clock times (CLOCK_MONOTONIC), in ms.
 * On an H200 host, each a fresh process: the driver's initialisation 100-212 ms, the context
 * 108-111 ms, 128 MB of pinned memory 59-62 ms; the background start returns to its caller after
 * 0.05 ms and has started the GPU and pinned a 50M-row table's chunk buffers after 240-280 ms.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <cuda_runtime.h>

#include "radik_backend.h"

static double
now_ms(void)
{
	timespec	t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void
check(radik_status status, const radik_error &err, const char *what)
{
	if (status != RADIK_OK)
	{
		fprintf(stderr, "start_probe: %s failed: %s\n", what, err.message);
		exit(1);
	}
}

/* Open a selection of k = 10 over expected_rows rows, push one full chunk of fresh keys, finish. */
static void
first_selection(uint64_t expected_rows)
{
	radik_error err;
	void	   *state;
	void	   *keys;
	uint64_t   *ids;
	size_t		capacity;
	uint64_t	count;
	uint32_t	x = (uint32_t) time(NULL) | 1;
	double		t0 = now_ms();

	check(radik_gpu_open(4, 10, expected_rows, &state, &err), err, "radik_gpu_open");
	double		t1 = now_ms();

	check(radik_gpu_chunk_buffer(state, &keys, &ids, &capacity, &err), err, "chunk buffer");
	for (size_t i = 0; i < capacity; i++)
	{
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;	/* xorshift: never zero */
		((uint32_t *) keys)[i] = x;
		ids[i] = i;
	}
	double		t2 = now_ms();

	check(radik_gpu_push_chunk(state, capacity, &err), err, "push");
	check(radik_gpu_finish(state, &count, &err), err, "finish");
	double		t3 = now_ms();

	radik_gpu_close(state);
	printf("open (pinned buffers) %.1f ms; chunk of %zu entries filled %.1f ms, pushed and "
		   "selected %.1f ms\n", t1 - t0, capacity, t2 - t1, t3 - t2);
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "sync";
	uint64_t	expected_rows = argc > 2 ? strtoull(argv[2], NULL, 10) : 50000000;
	radik_error err;
	double		t0 = now_ms();

	if (strcmp(mode, "raw") == 0)
	{
		int			devices;
		const size_t sizes[] = {8u << 20, 32u << 20, 64u << 20, 128u << 20};

		if (cudaGetDeviceCount(&devices) != cudaSuccess)
			return 1;
		double		t1 = now_ms();

		cudaSetDevice(0);
		cudaFree(0);
		printf("cudaGetDeviceCount %.1f ms, context %.1f ms\n", t1 - t0, now_ms() - t1);
		for (size_t bytes : sizes)
		{
			void	   *host;
			void	   *device;
			double		a = now_ms();

			if (cudaHostAlloc(&host, bytes, cudaHostAllocDefault) != cudaSuccess)
				return 1;
			double		b = now_ms();

			if (cudaMalloc(&device, bytes) != cudaSuccess)
				return 1;
			printf("cudaHostAlloc %zu MB %.1f ms, cudaMalloc %.1f ms\n", bytes >> 20, b - a,
				   now_ms() - b);
		}
		return 0;
	}
	if (strcmp(mode, "sync") == 0)
	{
		check(radik_gpu_probe(NULL, 0, &err), err, "radik_gpu_probe");
		printf("radik_gpu_probe %.1f ms\n", now_ms() - t0);
	}
	else if (strcmp(mode, "background") == 0)
	{
		check(radik_gpu_start_in_background(expected_rows, &err), err, "background start");
		double		t1 = now_ms();

		while (radik_gpu_starting())
		{
			struct timespec pause = {0, 100000};

			nanosleep(&pause, NULL);
		}
		printf("radik_gpu_start_in_background returned after %.3f ms; started after %.1f ms\n",
			   t1 - t0, now_ms() - t0);
		check(radik_gpu_probe(NULL, 0, &err), err, "radik_gpu_probe");
	}
	else
	{
		fprintf(stderr, "usage: start_probe raw | sync | background [expected_rows]\n");
		return 2;
	}
	first_selection(expected_rows);
	first_selection(expected_rows);
	return 0;
}
