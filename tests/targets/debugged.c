// SPDX-License-Identifier: MIT
/*
 * debugged SECONDS GO: a process to debug and trace at once. Prints
 * "ready", waits until the file GO exists (its debugger is set), then calls
 * tgt_tick and tgt_other every 2 ms for SECONDS seconds and prints "ticks
 * N", the calls of tgt_tick it made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "traced.h"

static volatile unsigned long sink;

TRACED void tgt_tick(unsigned long i)
{
	sink += i;
}

TRACED void tgt_other(unsigned long i)
{
	sink ^= i;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;
	struct timespec start, now, pause = {0, 2000000};
	unsigned long ticks = 0;

	printf("ready\n");
	fflush(stdout);
	while (argc > 2 && access(argv[2], F_OK) != 0)
		nanosleep(&pause, NULL);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		tgt_tick(ticks++);
		tgt_other(ticks);
		nanosleep(&pause, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
	printf("ticks %lu\n", ticks);
	return 0;
}
