// SPDX-License-Identifier: MIT
/*
 * swaplib LIB READY GO: dlopens LIB and calls its tgt_plugin_work, creates
 * the file READY, waits (10 s at most) until the file GO exists, and exits:
 * the window in which a test swaps LIB for something else.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int (*work)(int);
	void *h;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: swaplib LIB READY GO\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW);
	work = h ? (int (*)(int))dlsym(h, "tgt_plugin_work") : NULL;
	if (!work) {
		fprintf(stderr, "swaplib: %s\n", dlerror());
		return 1;
	}
	printf("work %d\n", work(2));
	fflush(stdout);
	fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 1000 && access(argv[3], F_OK) != 0; i++)
		usleep(10000);
	return 0;
}
