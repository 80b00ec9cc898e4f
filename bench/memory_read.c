/*
 * memory_read.c: how fast 1 to 16 threads of this host read 6 GB of memory, each its share, in
 * 4kB pages: the floor under a scan of a table of that size held in shared_buffers, whatever
 * does the scanning.  Prints the best of three runs per thread count, with date and host.
 *   build and run: cc -O2 -pthread -o /tmp/memory_read bench/memory_read.c && /tmp/memory_read
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BYTES (6UL << 30)

static const char *buffer;
static int nthreads;

static double
seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Sum one thread's share, eight words at a time. */
static void *
read_share(void *arg)
{
	size_t		share = BYTES / nthreads;
	const uint64_t *words = (const uint64_t *) (buffer + (long) arg * share);
	uint64_t	sum = 0;

	for (size_t i = 0; i < share / 8; i += 8)
		sum += words[i] + words[i + 1] + words[i + 2] + words[i + 3] +
			words[i + 4] + words[i + 5] + words[i + 6] + words[i + 7];
	return (void *) (uintptr_t) sum;
}

int
main(void)
{
	static const int counts[] = {1, 2, 4, 9, 16};
	char		host[256] = "";
	char		date[64];
	time_t		now = time(NULL);
	char	   *memory = malloc(BYTES);

	if (memory == NULL)
		return 1;
	memset(memory, 1, BYTES);
	buffer = memory;
	gethostname(host, sizeof(host) - 1);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	printf("date: %s  host: %s  cores: %ld\ncommand: memory_read (bench/memory_read.c)\n\n",
		   date, host, sysconf(_SC_NPROCESSORS_ONLN));
	printf("| threads | ms for 6 GB | GB/s |\n|---:|---:|---:|\n");
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
	{
		double		best = 1e9;

		nthreads = counts[c];
		for (int run = 0; run < 3; run++)
		{
			pthread_t	threads[16];
			double		start = seconds();

			for (long i = 0; i < nthreads; i++)
				pthread_create(&threads[i], NULL, read_share, (void *) i);
			for (int i = 0; i < nthreads; i++)
				pthread_join(threads[i], NULL);
			if (seconds() - start < best)
				best = seconds() - start;
		}
		printf("| %d | %.0f | %.1f |\n", nthreads, best * 1e3, BYTES / 1e9 / best);
	}
	free(memory);
	return 0;
}
