// SPDX-License-Identifier: MIT
/*
 * startstamp: when a program's main began, for start-up benchmarks.
 *
 * Prints "main_ns=N", N the CLOCK_REALTIME nanoseconds at the start of
 * main, then calls tgt_once() once, a function a recorder can probe.
 */
#include <stdio.h>
#include <time.h>

#include "traced.h"

static volatile int done;

TRACED void tgt_once(void)
{
	done++;
}

int main(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	tgt_once();
	printf("main_ns=%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return 0;
}
