// SPDX-License-Identifier: MIT
/*
 * exitcode STATUS: exits with STATUS (0..255).
 * exitcode sig:    kills itself with SIGTERM.
 *
 * Checks that the recorder reports how the traced program ended and passes
 * its exit status on.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traced.h"

/* One traced function on the way out, so the trace is not empty. */
TRACED __attribute__((noreturn)) void tgt_terminate_self(void)
{
	/*
	 * An ignored or blocked SIGTERM survives exec, and a parent (a shell,
	 * a test runner) may have left it so: restore the default first, or
	 * the process would go on living.
	 */
	sigset_t term;

	signal(SIGTERM, SIG_DFL);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &term, NULL);
	kill(getpid(), SIGTERM);
	/* Not reached: the signal is delivered before kill() returns. */
	_exit(125);
}

TRACED __attribute__((noreturn)) void tgt_exit_with(int status)
{
	exit(status);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: exitcode STATUS|sig\n");
		return 2;
	}
	if (strcmp(argv[1], "sig") == 0)
		tgt_terminate_self();

	char *end;
	long status = strtol(argv[1], &end, 10);

	if (*argv[1] == '\0' || *end != '\0' || status < 0 || status > 255) {
		fprintf(stderr, "exitcode: bad status '%s' (want 0..255 or sig)\n", argv[1]);
		return 2;
	}
	tgt_exit_with((int)status);
}
