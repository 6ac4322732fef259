// SPDX-License-Identifier: MIT
/*
 * spawnload RATE SECONDS [MAX]: a busy machine's short processes, bounded.
 *
 * Starts RATE short-lived processes per second on average (at random
 * times, as independent clients would) for SECONDS seconds, never more
 * than MAX in all (default RATE * SECONDS), half by fork() + exec of
 * /bin/true and half by posix_spawn() of a shell that counts to 400 (dash
 * vforks; the count gives clock samples in short-lived processes), the mix
 * a shell loop and a build system make. It paces itself
 * on CLOCK_MONOTONIC and reaps every child before it starts the next, so
 * there is never more than one alive; when the machine cannot keep up the
 * rate simply drops.
 *
 * Last line: "spawned N in S.SSS s", N the processes it started.
 * Exit status 0, or 1 when a child could not be started at all.
 */
#define _GNU_SOURCE
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int start_one(unsigned long i)
{
	pid_t pid;
	int status;

	if (i % 2) {
		char *argv[] = {"sh", "-c", "i=0; while [ $i -lt 400 ]; do i=$((i+1)); done", NULL};

		if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ))
			return -1;
	} else {
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
	}
	return waitpid(pid, &status, 0) == pid ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: spawnload RATE SECONDS [MAX]\n");
		return 2;
	}
	double rate = atof(argv[1]), seconds = atof(argv[2]);
	unsigned long max =
		argc > 3 ? strtoul(argv[3], NULL, 10) : (unsigned long)(rate * seconds + 0.5);
	if (rate <= 0 || seconds <= 0) {
		fprintf(stderr, "spawnload: RATE and SECONDS must be positive\n");
		return 2;
	}
	double start = now(), end = start + seconds, due = start;
	unsigned long n = 0;
	unsigned int seed = (unsigned int)getpid();

	while (n < max) {
		double t = now();

		if (t >= end)
			break;
		if (due > t) {
			struct timespec ts = {
				.tv_sec = (time_t)(due - t),
				.tv_nsec = (long)((due - t - (double)(time_t)(due - t)) * 1e9)};
			nanosleep(&ts, NULL);
			continue;
		}
		if (start_one(n) < 0) {
			perror("spawnload: starting a child");
			return 1;
		}
		n++;
		/* Poisson arrivals: a fixed period would beat with the profiler's clock */
		due += -log(1.0 - (double)rand_r(&seed) / ((double)RAND_MAX + 1.0)) / rate;
	}
	printf("spawned %lu in %.3f s\n", n, now() - start);
	return 0;
}
