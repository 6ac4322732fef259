// SPDX-License-Identifier: MIT
/*
 * neighbour: a process that is, or is not, traced, looking at its own libc.
 *
 *   neighbour peek AFTER THEN WAIT
 *     waits until file AFTER exists ("-": no wait), prints the first byte
 *     of its own malloc and free as "malloc XX free XX" (cc: a uprobe's
 *     breakpoint is in this process), creates file THEN ("-": none), then
 *     waits until file WAIT exists ("-": none). At most 60 s each wait.
 *   neighbour loop SECONDS
 *     malloc(64)/free pairs until SECONDS of its own CPU time have passed;
 *     prints "pairs_per_cpu_second N".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void wait_for(const char *path)
{
	for (int i = 0; strcmp(path, "-") && i < 6000 && access(path, F_OK) != 0; i++)
		usleep(10000);
}

static unsigned first_byte(const char *name)
{
	/* the function itself, not a PLT entry: what a uprobe would change */
	const unsigned char *code = dlsym(RTLD_DEFAULT, name);

	return code ? code[0] : 0;
}

static int peek(const char *after, const char *then, const char *wait)
{
	wait_for(after);
	printf("malloc %02x free %02x\n", first_byte("malloc"), first_byte("free"));
	fflush(stdout);
	if (strcmp(then, "-")) {
		int fd = open(then, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd < 0) {
			perror(then);
			return 1;
		}
		close(fd);
	}
	wait_for(wait);
	return 0;
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int loop(double seconds)
{
	double start = cpu_seconds(), used = 0;
	unsigned long pairs = 0;

	while (used < seconds) {
		for (int i = 0; i < 1000; i++) {
			void *volatile p = malloc(64);

			free(p);
		}
		pairs += 1000;
		used = cpu_seconds() - start;
	}
	printf("pairs_per_cpu_second %.0f\n", (double)pairs / used);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "peek"))
		return peek(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "loop") && atof(argv[2]) > 0)
		return loop(atof(argv[2]));
	fprintf(stderr, "usage: neighbour peek AFTER THEN WAIT | neighbour loop SECONDS\n");
	return 2;
}
