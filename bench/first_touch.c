/*
 * first_touch.c: what memory written for the first time costs on this host, against writing it
 * again.  The backend running a grouped query with parallel workers receives the workers' groups
 * and writes the merged rows into memory fresh from the operating system, alone, after the
 * workers are done; each 4 kB page of it is a page fault first, which under some kernels and
 * sandboxes costs several times the write.  Allocates 128 MB, writes it, writes it again, frees
 * it; prints each run's two times and the date and host.
 *   build and run: cc -O2 -o /tmp/first_touch bench/first_touch.c && /tmp/first_touch
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BYTES (128UL << 20)
#define RUNS 3

static double
milliseconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int
main(void)
{
	char		host[256] = "";
	time_t		now = time(NULL);
	char		date[64];

	gethostname(host, sizeof(host) - 1);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	printf("date: %s  host: %s  %lu MB\n", date, host, BYTES >> 20);
	for (int run = 1; run <= RUNS; run++)
	{
		double		start = milliseconds();
		char	   *p = malloc(BYTES);
		double		fresh;
		double		again;

		if (p == NULL)
			return 1;
		memset(p, 1, BYTES);
		fresh = milliseconds() - start;
		start = milliseconds();
		memset(p, 2, BYTES);
		again = milliseconds() - start;
		/* read a byte so the writes are not optimized away */
		printf("run %d: first write %.1f ms, second write %.1f ms (%d)\n", run, fresh, again,
			   p[BYTES / 2]);
		free(p);
	}
	return 0;
}
