// SPDX-License-Identifier: MIT
/*
 * cpu SECONDS: burns about SECONDS of CPU in a known call tree:
 *   main -> tgt_compute -> tgt_spin_a (2 parts of user time)
 *                       -> tgt_spin_b (1 part)
 *   main -> tgt_syscalls (getppid in a loop: mostly system time)
 * and prints the CPU time it used (getrusage: user, system, total seconds).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "traced.h"

static volatile unsigned long long sink;

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

TRACED void tgt_spin_a(unsigned long n)
{
	unsigned long long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

TRACED void tgt_spin_b(unsigned long n)
{
	unsigned long long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 2862933555777941757ULL + 3037000493ULL;
	sink = x;
}

TRACED void tgt_compute(unsigned long n)
{
	tgt_spin_a(2 * n);
	tgt_spin_b(n);
}

TRACED void tgt_syscalls(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		syscall(SYS_getppid);
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0, start = cpu_seconds();
	struct rusage ru;

	/*
	 * Slices of ~5 to ~15 ms of spinning, until 80% of the budget; then
	 * syscalls. The slices vary in length: slices of one length as long as
	 * the sampling period would keep every sample in the same phase of the
	 * slice, in one of the two functions (seen: tgt_spin_b ahead of a).
	 */
	for (unsigned long k = 0; cpu_seconds() - start < seconds * 0.8; k++)
		tgt_compute(500000 + (k * 7919) % 1000000);
	while (cpu_seconds() - start < seconds)
		tgt_syscalls(2000);
	getrusage(RUSAGE_SELF, &ru);
	printf("user %.6f\nsystem %.6f\ntotal %.6f\n",
	       (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
	       cpu_seconds() - start);
	return 0;
}
