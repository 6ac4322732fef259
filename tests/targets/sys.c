// SPDX-License-Identifier: MIT
/*
 * sys N: a known set of system calls, for checking syscall tracing.
 *
 *   N x getppid()                       issued with syscall(SYS_getppid)
 *   N x write() of 1 byte to /dev/null  each returns 1
 *   3 x openat() of MISSING_PATH        each fails with ENOENT
 *
 * Besides these the process makes the usual start-up calls (the dynamic
 * loader's openat/mmap, ...), one openat + close of /dev/null, and the
 * report on stdout at exit: one buffered write on fd 1 when stdout is a pipe
 * or a file (one per line on a terminal), never on the /dev/null fd.
 *
 * Each call's result is checked; any surprise exits 1, so a trace is only
 * compared against counts that really happened.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MISSING_PATH  "/nonexistent/bpfcollect-sys-target"
#define MISSING_OPENS 3

int main(int argc, char **argv)
{
	long n = 1;

	if (argc > 1) {
		char *end;

		n = strtol(argv[1], &end, 10);
		if (*argv[1] == '\0' || *end != '\0' || n < 0) {
			fprintf(stderr, "sys: bad N '%s'\n", argv[1]);
			return 2;
		}
	}

	/*
	 * syscall(SYS_getppid) rather than getppid(): the system call must
	 * happen every time, whatever the C library decides to cache.
	 */
	long ppid_calls = 0;

	for (long i = 0; i < n; i++) {
		if (syscall(SYS_getppid) < 0) {
			fprintf(stderr, "sys: getppid failed: %s\n", strerror(errno));
			return 1;
		}
		ppid_calls++;
	}

	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (devnull < 0) {
		fprintf(stderr, "sys: /dev/null: %s\n", strerror(errno));
		return 1;
	}
	long writes = 0;

	for (long i = 0; i < n; i++) {
		if (write(devnull, "x", 1) != 1) {
			fprintf(stderr, "sys: write to /dev/null failed: %s\n", strerror(errno));
			return 1;
		}
		writes++;
	}
	close(devnull);

	long failed_opens = 0;

	for (int i = 0; i < MISSING_OPENS; i++) {
		int fd = openat(AT_FDCWD, MISSING_PATH, O_RDONLY | O_CLOEXEC);

		if (fd >= 0 || errno != ENOENT) {
			fprintf(stderr, "sys: openat %s: expected ENOENT, got fd %d (%s)\n",
				MISSING_PATH, fd, strerror(errno));
			return 1;
		}
		failed_opens++;
	}

	printf("getppid %ld\nwrite_devnull %ld\nopenat_enoent %ld\nmissing_path %s\n", ppid_calls,
	       writes, failed_opens, MISSING_PATH);
	return 0;
}
