/*
 * memory_read.c: how fast 1 to 16 threads of this host read 6 GB of memory in 4kB pages, each
 * its share, in two ways: summing 8-byte words (a plain loop) and copying it 8 kB at a time into
 * a small buffer of the thread's own, as radik does with each page it copies from the page cache
 * (the C library's memcpy: wide loads, many cache lines in flight).  The faster of the two is the
 * floor under any scan of a table of that size held in memory, whatever does the scanning.
 * Prints the best of three runs per thread count and way, with date and host.
 *   build and run: cc -O2 -pthread -o /tmp/memory_read bench/memory_read.c && /tmp/memory_read
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define BYTES (6UL << 30)
#define PAGE_BYTES 8192

static const char *buffer;
static int	nthreads;

static double
seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Sum one thread's share, eight words at a time. */
static void *
sum_share(void *arg)
{
	size_t		share = BYTES / nthreads;
	const uint64_t *words = (const uint64_t *) (buffer + (long) arg * share);
	uint64_t	sum = 0;

	for (size_t i = 0; i < share / 8; i += 8)
		sum += words[i] + words[i + 1] + words[i + 2] + words[i + 3] +
			words[i + 4] + words[i + 5] + words[i + 6] + words[i + 7];
	return (void *) (uintptr_t) sum;
}

/* Copy one thread's share a page at a time into two pages of its own, as a page copy does. */
static void *
copy_share(void *arg)
{
	size_t		share = BYTES / nthreads / PAGE_BYTES * PAGE_BYTES;
	const char *from = buffer + (long) arg * share;
	static __thread char pages[2][PAGE_BYTES] __attribute__((aligned(64)));
	uint64_t	sum = 0;

	for (size_t offset = 0; offset < share; offset += PAGE_BYTES)
	{
		char	   *to = pages[(offset / PAGE_BYTES) % 2];

		memcpy(to, from + offset, PAGE_BYTES);
		__asm__ volatile("" : : "r"(to) : "memory");	/* the copy must happen */
		sum += (unsigned char) to[(offset / PAGE_BYTES) % PAGE_BYTES];
	}
	return (void *) (uintptr_t) sum;
}

static double
best_of_three(void *(*reader) (void *))
{
	double		best = 1e9;

	for (int run = 0; run < 3; run++)
	{
		pthread_t	threads[16];
		double		start = seconds();

		for (long i = 0; i < nthreads; i++)
			pthread_create(&threads[i], NULL, reader, (void *) i);
		for (int i = 0; i < nthreads; i++)
			pthread_join(threads[i], NULL);
		if (seconds() - start < best)
			best = seconds() - start;
	}
	return best;
}

int
main(void)
{
	static const int counts[] = {1, 2, 4, 9, 16};
	char		host[256] = "";
	char		date[64];
	time_t		now = time(NULL);
	char	   *memory = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
							  -1, 0);

	if (memory == MAP_FAILED)
		return 1;
	madvise(memory, BYTES, MADV_NOHUGEPAGE);	/* 4kB pages, as shared_buffers by default */
	memset(memory, 1, BYTES);
	buffer = memory;
	gethostname(host, sizeof(host) - 1);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	printf("date: %s  host: %s  cores: %ld\ncommand: memory_read (bench/memory_read.c)\n\n",
		   date, host, sysconf(_SC_NPROCESSORS_ONLN));
	printf("| threads | summing words, ms | GB/s | copying pages, ms | GB/s |\n"
		   "|---:|---:|---:|---:|---:|\n");
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
	{
		double		sum_s,
					copy_s;

		nthreads = counts[c];
		sum_s = best_of_three(sum_share);
		copy_s = best_of_three(copy_share);
		printf("| %d | %.0f | %.1f | %.0f | %.1f |\n", nthreads, sum_s * 1e3, BYTES / 1e9 / sum_s,
			   copy_s * 1e3, BYTES / 1e9 / copy_s);
	}
	munmap(memory, BYTES);
	return 0;
}
