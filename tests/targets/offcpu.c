// SPDX-License-Identifier: MIT
/*
 * offcpu [MS]: spends its time in three known ways, in this order, so a
 * kernel experiment can be checked against what it did:
 *   tgt_sleep     3 x nanosleep(MS)             blocked in clock_nanosleep
 *   tgt_pipe_wait read() on a pipe that a thread  blocked in read
 *                 writes to after 2 x MS
 *   tgt_spin      spins MS of its own CPU time    on CPU (or preempted)
 * and prints what each took (wall milliseconds, measured around the calls)
 * and its CPU time: "sleep_ms N", "pipe_ms N", "spin_ms N", "cpu_ms N",
 * "pid N", "writer_tid N".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "traced.h"

static volatile unsigned long long sink;
static int pipe_fds[2];
static long delay_ms = 100;
static volatile pid_t writer_tid;

static double now_ms(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) < 0)
		;
}

TRACED void tgt_sleep(long ms)
{
	sleep_ms(ms);
}

TRACED char tgt_pipe_wait(void)
{
	char c = 0;

	while (read(pipe_fds[0], &c, 1) < 0)
		;
	return c;
}

TRACED void tgt_spin(long ms)
{
	double start = now_ms(CLOCK_THREAD_CPUTIME_ID);
	unsigned long long x = sink;

	while (now_ms(CLOCK_THREAD_CPUTIME_ID) - start < (double)ms)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

static void *writer(void *arg)
{
	(void)arg;
	writer_tid = (pid_t)syscall(SYS_gettid);
	sleep_ms(2 * delay_ms);
	if (write(pipe_fds[1], "x", 1) != 1)
		abort();
	return NULL;
}

int main(int argc, char **argv)
{
	double t0, t1, t2, t3;
	pthread_t th;

	if (argc > 1)
		delay_ms = atol(argv[1]);
	if (delay_ms <= 0 || pipe(pipe_fds) < 0)
		return 2;
	t0 = now_ms(CLOCK_MONOTONIC);
	for (int i = 0; i < 3; i++)
		tgt_sleep(delay_ms);
	t1 = now_ms(CLOCK_MONOTONIC);
	if (pthread_create(&th, NULL, writer, NULL))
		return 2;
	tgt_pipe_wait();
	t2 = now_ms(CLOCK_MONOTONIC);
	pthread_join(th, NULL);
	double spin_start = now_ms(CLOCK_MONOTONIC);

	tgt_spin(delay_ms);
	t3 = now_ms(CLOCK_MONOTONIC);
	printf("sleep_ms %.0f\npipe_ms %.0f\nspin_ms %.0f\ncpu_ms %.0f\npid %d\nwriter_tid %d\n",
	       t1 - t0, t2 - t1, t3 - spin_start, now_ms(CLOCK_PROCESS_CPUTIME_ID), getpid(),
	       (int)writer_tid);
	return 0;
}
