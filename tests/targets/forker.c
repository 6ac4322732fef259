// SPDX-License-Identifier: MIT
/*
 * forker K M: a small process tree, for checking that tracing follows forks.
 *
 *   parent ─┬─ child 1 ── grandchild
 *           ├─ child 2
 *           └─ ... child K
 *
 * Every child and the grandchild call tgt_child_work() M times and exit with
 * status 7 (CHILD_STATUS). Each process waits for its own children; the
 * parent then calls tgt_parent_work() once and exits with status 3
 * (PARENT_STATUS). K defaults to 2, M to 5.
 *
 * Output, one line per event, written with a single write() each so lines
 * from different processes never mix (their order between processes varies):
 *   parent PID
 *   child PID ppid PPID tgt_child_work M
 *   grandchild PID ppid PPID tgt_child_work M
 *   reaped PID status 7              (by whichever process waited for it)
 *   parent PID tgt_parent_work 1
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "traced.h"

#define CHILD_STATUS  7
#define PARENT_STATUS 3
#define MAX_CHILDREN  64

static volatile unsigned long work_done;

TRACED void tgt_child_work(void)
{
	work_done++;
}

TRACED void tgt_parent_work(void)
{
	work_done++;
}

/* stdio buffers would be copied by fork() and printed twice: format, then write once. */
static void say(const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	int len = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (len > 0 && write(STDOUT_FILENO, line, (size_t)len) != len)
		_exit(99);
}

static long parse_count(const char *text, const char *what, long max)
{
	char *end;
	long value = strtol(text, &end, 10);

	if (*text == '\0' || *end != '\0' || value < 0 || value > max) {
		fprintf(stderr, "forker: bad %s '%s' (want 0..%ld)\n", what, text, max);
		exit(2);
	}
	return value;
}

/* Waits for every child of this process; returns how many did not exit with CHILD_STATUS. */
static int reap_children(void)
{
	int unexpected = 0;
	int status;
	pid_t pid;

	while ((pid = wait(&status)) > 0) {
		if (WIFEXITED(status)) {
			say("reaped %d status %d\n", pid, WEXITSTATUS(status));
			if (WEXITSTATUS(status) != CHILD_STATUS)
				unexpected++;
		} else {
			say("reaped %d signal %d\n", pid,
			    WIFSIGNALED(status) ? WTERMSIG(status) : -1);
			unexpected++;
		}
	}
	return unexpected;
}

static void run_child(const char *role, long work_calls)
{
	for (long i = 0; i < work_calls; i++)
		tgt_child_work();
	say("%s %d ppid %d tgt_child_work %ld\n", role, getpid(), getppid(), work_calls);
}

int main(int argc, char **argv)
{
	long nchildren = argc > 1 ? parse_count(argv[1], "K", MAX_CHILDREN) : 2;
	long work_calls = argc > 2 ? parse_count(argv[2], "M", 1000000000L) : 5;

	say("parent %d\n", getpid());
	for (long c = 0; c < nchildren; c++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("forker: fork");
			reap_children();
			return 1;
		}
		if (pid > 0)
			continue;

		/* Child. The first one also starts the grandchild. */
		if (c == 0) {
			pid_t grandchild = fork();

			if (grandchild < 0) {
				perror("forker: fork");
				_exit(1);
			}
			if (grandchild == 0) {
				run_child("grandchild", work_calls);
				_exit(CHILD_STATUS);
			}
		}
		run_child("child", work_calls);
		_exit(reap_children() ? 1 : CHILD_STATUS);
	}

	int unexpected = reap_children();

	tgt_parent_work();
	say("parent %d tgt_parent_work 1\n", getpid());
	if (unexpected) {
		fprintf(stderr, "forker: %d children did not exit with status %d\n", unexpected,
			CHILD_STATUS);
		return 1;
	}
	return PARENT_STATUS;
}
