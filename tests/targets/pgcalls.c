// SPDX-License-Identifier: MIT
/*
 * pgcalls N: built with -pg (tests/tests.mk), as uftrace wants programs
 * built, calls pg_hot() N times and prints "elapsed_ns=NS calls=N" for the
 * loop alone. tools/bench-cost.sh traces the same binary with uftrace (in
 * process, through mcount) and with bpfcollect (uprobes), each against the
 * binary untraced, whose mcount is glibc's. pg_hot opens with push %rbp
 * (its frame holds a volatile local), the instruction a uprobe emulates.
 * A -pg program writes gmon.out into its working directory at exit.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "traced.h"

TRACED long pg_hot(long x)
{
	volatile long on_stack = x;

	return on_stack + 1;
}

static long long monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	volatile long sum = 0;
	long long t0, t1;

	t0 = monotonic_ns();
	for (long i = 0; i < n; i++)
		sum = sum + pg_hot(i);
	t1 = monotonic_ns();
	printf("elapsed_ns=%lld calls=%ld\n", t1 - t0, n);
	return sum == (n * (n + 1)) / 2 ? 0 : 1;
}
