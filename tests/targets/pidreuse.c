// SPDX-License-Identifier: MIT
/*
 * pidreuse: two processes with the same pid, one after the other.
 *
 * Forks child A, which calls tgt_first() 3 times and exits; once it is
 * reaped, sets the kernel's last pid (/proc/sys/kernel/ns_last_pid, root
 * only) to A - 1 and forks child B, which gets A's pid unless another
 * process on the machine took it first. B calls tgt_second() 5 times when
 * it has A's pid, else exits 1 at once and the pair is tried again (at
 * most 100 times). Writes, the last line telling which fork got which pid
 * (forks counted from 1, as _fN.er names them):
 *   reused PID fork A_FORK fork B_FORK
 * Exit status 0, or 1 when the pid was never reused.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "traced.h"

static volatile unsigned long work_done;

TRACED void tgt_first(void)
{
	work_done++;
}

TRACED void tgt_second(void)
{
	work_done++;
}

static int reap(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int set_last_pid(pid_t pid)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%d", (int)pid) > 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

int main(void)
{
	int forks = 0;

	for (int attempt = 0; attempt < 100; attempt++) {
		pid_t a, b;

		fflush(stdout);
		a = fork();
		if (a < 0)
			return 1;
		if (a == 0) {
			for (int i = 0; i < 3; i++)
				tgt_first();
			_exit(0);
		}
		forks++;
		if (reap(a) != 0 || set_last_pid(a - 1) < 0)
			return 1;
		b = fork();
		if (b < 0)
			return 1;
		if (b == 0) {
			if (getpid() != a)
				_exit(1);
			for (int i = 0; i < 5; i++)
				tgt_second();
			_exit(0);
		}
		forks++;
		if (reap(b) == 0) {
			printf("reused %d fork %d fork %d\n", (int)a, forks - 1, forks);
			return 0;
		}
	}
	fprintf(stderr, "pidreuse: the pid was never reused\n");
	return 1;
}
