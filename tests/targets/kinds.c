// SPDX-License-Identifier: MIT
/*
 * kinds DIR: makes one record of every kind a recording can hold, in a
 * few tens of milliseconds of CPU. Its functions (tgt_*) are traced
 * calls; tgt_spin burns CPU for clock samples; a second thread waits on a
 * mutex main holds (sync, off-CPU) and exits (thread start and exit);
 * tgt_alloc calls malloc, calloc, realloc and free (heap); tgt_files
 * writes and reads DIR/kinds.out (I/O, syscalls); a forked child calls
 * tgt_child and exits (fork, exit, a descendant). Prints "pid P".
 *
 * kinds DIR LINGER_MS: then stays LINGER_MS more before it exits, asleep,
 * so an overview sampler (-S) that runs behind still finds it alive: with
 * heap probes in every process, the agent's own mallocs trap too, and on a
 * slow machine it met the process only after its end (no usage record).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "traced.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

TRACED static void tgt_spin(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		for (int i = 0; i < 10000; i++)
			sink += (unsigned long)i * 7;
}

TRACED static void *tgt_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock); /* main holds it ~30 ms */
	pthread_mutex_unlock(&lock);
	return NULL;
}

TRACED static void tgt_alloc(void)
{
	for (int i = 0; i < 8; i++) {
		char *a = malloc(64 + (size_t)i);
		char *b = calloc(4, 32);

		a = realloc(a, 4096);
		sink += (unsigned long)(a != NULL) + (unsigned long)(b != NULL);
		free(a);
		free(b);
	}
}

TRACED static int tgt_files(const char *dir)
{
	char path[4096], buf[256];
	int fd;

	snprintf(path, sizeof(path), "%s/kinds.out", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	for (int i = 0; i < 4; i++)
		if (write(fd, "kinds\n", 6) != 6)
			break;
	close(fd);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}

TRACED static void tgt_child(void)
{
	tgt_spin(5);
}

int main(int argc, char **argv)
{
	struct timespec hold = {0, 30 * 1000000};
	pthread_t waiter;
	pid_t child;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: kinds DIR [LINGER_MS]\n");
		return 2;
	}
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	pthread_mutex_lock(&lock);
	if (pthread_create(&waiter, NULL, tgt_waiter, NULL))
		return 1;
	nanosleep(&hold, NULL);
	pthread_mutex_unlock(&lock);
	pthread_join(waiter, NULL);
	tgt_alloc();
	if (tgt_files(argv[1]) < 0)
		return 1;
	tgt_spin(60);
	child = fork();
	if (child == 0) {
		tgt_child();
		_exit(0);
	}
	if (child < 0 || waitpid(child, NULL, 0) != child)
		return 1;
	if (argc == 3) {
		long ms = atol(argv[2]);

		hold = (struct timespec){ms / 1000, (ms % 1000) * 1000000};
		nanosleep(&hold, NULL);
	}
	return 0;
}
