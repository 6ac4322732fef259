// SPDX-License-Identifier: MIT
/*
 * cetcalls N: built with -fcf-protection=full (tests/tests.mk), as CET
 * distributions build everything, so cet_add starts with endbr64; plain_add
 * is the same function without it (nocf_check). Each is called N times
 * (arguments i and 7, so every return is i + 7, the last N - 1 + 7), in ten
 * rounds of N/10 each, the loops timed by the program itself, and it prints
 * the fastest round of each:
 *
 *   cet_ns=NS plain_ns=NS last=N
 *
 * tests/integration/cost.sh checks that a probe on cet_add costs what one on
 * plain_add does (the probe goes past endbr64, which the kernel would
 * otherwise single-step on every hit), and that arguments and return
 * values are still right.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "traced.h"

/* The volatile local needs a frame: both open with push %rbp (after endbr64 for cet_add). */
TRACED int cet_add(int a, int b)
{
	volatile int on_stack = a;

	return on_stack + b;
}

NO_ENDBR TRACED int plain_add(int a, int b)
{
	volatile int on_stack = a;

	return on_stack + b;
}

static long long monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * Ten rounds, each timing both loops one after the other: the fastest
 * round of each is printed, so a burst of load on this shared machine
 * during one loop does not make it look slower.
 */
#define ROUNDS 10

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000, per = n / ROUNDS;
	long long best_cet = -1, best_plain = -1;
	volatile int last = 0;

	for (int r = 0; r < ROUNDS; r++) {
		long long t0, t1, t2;

		t0 = monotonic_ns();
		for (long i = r * per; i < (r + 1) * per; i++)
			last = cet_add((int)i, 7);
		t1 = monotonic_ns();
		for (long i = r * per; i < (r + 1) * per; i++)
			last = plain_add((int)i, 7);
		t2 = monotonic_ns();
		if (best_cet < 0 || t1 - t0 < best_cet)
			best_cet = t1 - t0;
		if (best_plain < 0 || t2 - t1 < best_plain)
			best_plain = t2 - t1;
	}
	printf("cet_ns=%lld plain_ns=%lld last=%d\n", best_cet, best_plain, last);
	return 0;
}
