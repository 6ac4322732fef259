// SPDX-License-Identifier: MIT
/*
 * bench N: calls bench_hot() N times in a tight loop and prints
 * "elapsed_ns=NS" for the loop alone (clock_gettime(CLOCK_MONOTONIC) just
 * before and after), so probe attach/detach and process start-up are not
 * counted. tools/bench.sh compares this number traced and untraced.
 *
 * bench N str: the same with bench_str(BENCH_STRING) instead, a function
 * whose string argument the tracers capture (tools/bench.sh, "capture").
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "traced.h"

static volatile unsigned long sink;

/*
 * The first instruction of bench_hot must be "push %rbp".
 *
 * A uprobe replaces the first instruction with int3; after the probe runs,
 * the kernel must execute the displaced instruction. x86 emulates a few
 * instructions in the kernel, "push %rbp" among them (about 1 us a hit here),
 * and single-steps the rest (lea, mov, sub, endbr64, ...) out of line, which
 * costs one more trap (about 11 us). The benchmark is meant to measure the
 * tracers, not that difference, and real functions built with frame
 * pointers start with push %rbp.
 *
 * -fno-omit-frame-pointer alone does not give that here: GCC sets up no
 * frame for a leaf function that needs no stack, and would start this one
 * with lea. The volatile local lives on the stack, so the function needs a
 * frame and opens with push %rbp; mov %rsp,%rbp. tools/bench.sh checks it
 * with objdump and warns when it does not.
 */
NO_ENDBR TRACED int bench_hot(int x)
{
	volatile int on_stack = x;

	return on_stack * 3 + 1;
}

/*
 * The string bench_str is called with: 32 bytes (and the NUL), printable and
 * without quotes or backslashes, so a capture can be compared as it is.
 * tools/bench.sh has the same text.
 */
#define BENCH_STRING "bpfcollect-bench-capture-32bytes"

_Static_assert(sizeof(BENCH_STRING) == 32 + 1, "BENCH_STRING must be 32 bytes");

/*
 * Starts with push %rbp for the same reason, by the same means, as bench_hot.
 * It reads the first byte so the string is really used.
 */
NO_ENDBR TRACED int bench_str(const char *s)
{
	const char *volatile on_stack = s;

	return on_stack[0];
}

static long long monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long calls = 1000000;

	if (argc > 3 || (argc == 3 && strcmp(argv[2], "str") != 0)) {
		fprintf(stderr, "usage: bench [N [str]]\n");
		return 2;
	}

	int str_mode = argc == 3;

	if (argc > 1) {
		char *end;

		calls = strtol(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0' || calls < 0) {
			fprintf(stderr, "bench: bad N '%s'\n", argv[1]);
			return 2;
		}
	}

	unsigned long acc = 0;
	long long start = monotonic_ns();

	if (str_mode) {
		for (long i = 0; i < calls; i++)
			acc += (unsigned long)bench_str(BENCH_STRING);
	} else {
		for (long i = 0; i < calls; i++)
			acc += (unsigned long)bench_hot((int)i);
	}

	long long elapsed = monotonic_ns() - start;

	sink = acc;
	printf("calls=%ld\nelapsed_ns=%lld\n", calls, elapsed);
	return 0;
}
