// SPDX-License-Identifier: MIT
/*
 * heap N K SIZE [--wait]: known heap traffic, so a heap trace can be checked
 * call by call. Its work (tgt_work):
 *   tgt_alloc      N x malloc(SIZE), then frees all but the last K: K leaks
 *   tgt_grow       calloc(4, 64) grown by realloc to 1000 then 5000, freed
 *   tgt_aligned    posix_memalign(64, 4096), freed
 *   tgt_big        malloc(1 MiB): glibc mmaps it, freed (munmap inside free)
 *   tgt_map        mmap 64 KiB anonymous, munmap'd
 * It prints "allocs A", "bytes B", "frees F", "leaks K", "leaked_bytes L"
 * (A counts the malloc-type calls, calloc and posix_memalign included;
 * B their bytes; a realloc is neither), "reallocs R", "realloc_bytes",
 * "mmaps M", "mmap_bytes", then "pid P".
 *
 * With --wait it first prints "ready" and loops freeing what it allocates
 * (malloc(48), free) until SIGUSR1, does its work, prints "done" and then
 * loops again until SIGUSR2: what a trace attached in between must see is
 * the work plus balanced 48-byte pairs.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "traced.h"

static volatile sig_atomic_t go, stop;
static unsigned long allocs, bytes, frees, reallocs, mmaps;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		go = 1;
	else
		stop = 1;
}

/* Read by nobody, but volatile: every block escapes, so GCC cannot elide a malloc/free pair. */
void *volatile keep;

TRACED static void *tgt_alloc(int n, int k, size_t size)
{
	void **v = calloc((size_t)n, sizeof(*v));

	allocs++;
	bytes += (size_t)n * sizeof(*v);
	for (int i = 0; i < n; i++) {
		v[i] = malloc(size);
		memset(v[i], i, size);
		allocs++;
		bytes += size;
	}
	for (int i = 0; i < n - k; i++) {
		free(v[i]);
		frees++;
	}
	return v; /* the leaked blocks stay reachable from here: v itself is freed below */
}

TRACED static void tgt_grow(void)
{
	char *p = calloc(4, 64);

	allocs++;
	bytes += 4 * 64;
	p = realloc(p, 1000);
	p = realloc(p, 5000);
	reallocs += 2;
	p[4999] = 1;
	keep = p;
	free(p);
	frees++;
}

TRACED static void tgt_aligned(void)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, 4096) == 0) {
		allocs++;
		bytes += 4096;
		memset(p, 1, 4096);
		keep = p;
		free(p);
		frees++;
	}
}

TRACED static void tgt_big(void)
{
	char *p = malloc(1 << 20);

	allocs++;
	bytes += 1 << 20;
	p[0] = p[(1 << 20) - 1] = 1;
	keep = p; /* escapes: GCC may not elide the malloc/free pair */
	free(p);
	frees++;
}

TRACED static void tgt_map(void)
{
	char *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p != MAP_FAILED) {
		mmaps++;
		p[0] = 1;
		munmap(p, 65536);
	}
}

TRACED static void tgt_work(int n, int k, size_t size)
{
	void **v = tgt_alloc(n, k, size);

	keep = v[n - 1];
	free(v);
	frees++;
	tgt_grow();
	tgt_aligned();
	tgt_big();
	tgt_map();
	__asm__ volatile("" ::: "memory"); /* no tail call: tgt_work stays on the stack */
}

TRACED static void tgt_idle(void)
{
	struct timespec ts = {0, 2000000};
	void *p = malloc(48);

	memset(p, 0, 48);
	keep = p;
	free(p);
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, k = argc > 2 ? atoi(argv[2]) : 3;
	size_t size = argc > 3 ? (size_t)atol(argv[3]) : 100;
	int wait = argc > 4 && !strcmp(argv[4], "--wait");

	if (n < 1 || k < 0 || k > n || size < 1) {
		fprintf(stderr, "usage: heap N K SIZE [--wait]\n");
		return 2;
	}
	if (wait) {
		signal(SIGUSR1, on_signal);
		signal(SIGUSR2, on_signal);
		printf("ready\n");
		fflush(stdout);
		while (!go)
			tgt_idle();
	}
	tgt_work(n, k, size);
	printf("allocs %lu\nbytes %lu\nfrees %lu\nleaks %d\nleaked_bytes %zu\nreallocs %lu\n"
	       "realloc_bytes %d\nmmaps %lu\nmmap_bytes %d\npid %d\n",
	       allocs, bytes, frees, k, (size_t)k * size, reallocs, 1000 + 5000, mmaps, 65536,
	       (int)getpid());
	if (wait) {
		printf("done\n");
		fflush(stdout);
		while (!stop)
			tgt_idle();
	}
	return 0;
}
