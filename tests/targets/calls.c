// SPDX-License-Identifier: MIT
/*
 * calls N T: T threads each run a fixed call graph N times, so a trace can be
 * checked call by call against exact counts.
 *
 * One iteration of a thread:
 *   tgt_outer -> tgt_middle x2 -> tgt_inner x3 each   (1 + 2 + 6 calls)
 *   tgt_fact(5) -> tgt_fact(4) -> ... -> tgt_fact(1)  (5 calls, recursive)
 * and each thread enters tgt_worker once. The main thread makes one traced
 * call, tgt_run_threads, which starts and joins the workers: every thread
 * listed in the output has traced calls.
 *
 * Output (stdout, at exit): "tgt_NAME COUNT" for every traced function, then
 * "tid TID" for the main thread and for every thread created. The counts come
 * from counters bumped inside the functions, not from a formula, so they show
 * what really ran.
 *
 * The counters are per thread and summed after pthread_join(), not atomics:
 * an atomic increment is a LOCK-prefixed instruction, and when the compiler
 * makes it a function's first instruction the kernel cannot put a uprobe
 * there (x86 refuses to probe LOCK-prefixed instructions). The function then
 * silently disappears from a trace started before the program (or the attach
 * fails, for a running one). A thread-local increment is a plain add with an
 * %fs prefix, which uprobes accept.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#include "traced.h"

#define MAX_THREADS 64
#define FACT_ARG    5

enum traced_fn { FN_RUN_THREADS, FN_WORKER, FN_OUTER, FN_MIDDLE, FN_INNER, FN_FACT, FN_COUNT };

static const char *const traced_fn_names[FN_COUNT] = {
	[FN_RUN_THREADS] = "tgt_run_threads", [FN_WORKER] = "tgt_worker", [FN_OUTER] = "tgt_outer",
	[FN_MIDDLE] = "tgt_middle",	      [FN_INNER] = "tgt_inner",	  [FN_FACT] = "tgt_fact",
};

static __thread unsigned long thread_calls[FN_COUNT];

/* A macro, not a helper function: -fno-inline would make a helper one more traced call. */
#define COUNT_CALL(fn) (thread_calls[fn]++)

struct worker_arg {
	long iterations;
	pthread_barrier_t *start; /* all threads live at once: distinct tids */
	pid_t tid;
	unsigned long checksum;
	unsigned long calls[FN_COUNT]; /* the thread's counts, copied as it ends */
};

/*
 * Callers always use the value a callee returns after the call, so no call is
 * in tail position: GCC would otherwise turn the last call into a jump and the
 * callee would appear to be called by its caller's caller.
 */
TRACED unsigned long tgt_inner(unsigned long x)
{
	COUNT_CALL(FN_INNER);
	return x * 2654435761u + 1;
}

TRACED unsigned long tgt_middle(unsigned long x)
{
	COUNT_CALL(FN_MIDDLE);
	unsigned long sum = 0;

	for (int i = 0; i < 3; i++)
		sum += tgt_inner(x + i);
	return sum;
}

TRACED unsigned long tgt_outer(unsigned long x)
{
	COUNT_CALL(FN_OUTER);
	unsigned long a = tgt_middle(x);
	unsigned long b = tgt_middle(x + 1);

	return a ^ b;
}

/*
 * Counted after the recursive call: "n * tgt_fact(n - 1)" as the last thing
 * done is something GCC rewrites into a loop, which would leave one call
 * where the source has five.
 */
TRACED unsigned long tgt_fact(unsigned long n)
{
	unsigned long result = n <= 1 ? 1 : n * tgt_fact(n - 1);

	COUNT_CALL(FN_FACT);
	return result;
}

TRACED void *tgt_worker(void *opaque)
{
	struct worker_arg *arg = opaque;

	COUNT_CALL(FN_WORKER);
	arg->tid = gettid();
	pthread_barrier_wait(arg->start);
	for (long i = 0; i < arg->iterations; i++) {
		arg->checksum += tgt_outer((unsigned long)i);
		arg->checksum += tgt_fact(FACT_ARG);
	}
	memcpy(arg->calls, thread_calls, sizeof(arg->calls));
	return NULL;
}

static long parse_count(const char *text, const char *what, long min, long max)
{
	char *end;
	long value = strtol(text, &end, 10);

	if (*text == '\0' || *end != '\0' || value < min || value > max) {
		fprintf(stderr, "calls: bad %s '%s' (want %ld..%ld)\n", what, text, min, max);
		exit(2);
	}
	return value;
}

/* Runs on the main thread: starts the workers and waits for them. */
TRACED void tgt_run_threads(long iterations, long nthreads, struct worker_arg *args)
{
	pthread_t threads[MAX_THREADS];
	pthread_barrier_t start;

	COUNT_CALL(FN_RUN_THREADS);
	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (long t = 0; t < nthreads; t++) {
		args[t] = (struct worker_arg){.iterations = iterations, .start = &start};
		int err = pthread_create(&threads[t], NULL, tgt_worker, &args[t]);

		if (err) {
			fprintf(stderr, "calls: pthread_create failed (%d)\n", err);
			exit(1);
		}
	}
	for (long t = 0; t < nthreads; t++)
		pthread_join(threads[t], NULL);
	pthread_barrier_destroy(&start);
}

int main(int argc, char **argv)
{
	long iterations = argc > 1 ? parse_count(argv[1], "N", 0, 1000000000L) : 1;
	long nthreads = argc > 2 ? parse_count(argv[2], "T", 1, MAX_THREADS) : 1;
	struct worker_arg args[MAX_THREADS];

	tgt_run_threads(iterations, nthreads, args);

	for (int fn = 0; fn < FN_COUNT; fn++) {
		unsigned long total = thread_calls[fn]; /* the main thread's own */

		for (long t = 0; t < nthreads; t++)
			total += args[t].calls[fn];
		printf("%s %lu\n", traced_fn_names[fn], total);
	}
	printf("tid %d\n", gettid());
	for (long t = 0; t < nthreads; t++)
		printf("tid %d\n", args[t].tid);
	return 0;
}
