/* SPDX-License-Identifier: MIT */
/* Starting the traced command held before exec, so probes are in place first. */
#ifndef BPFCOLLECT_LAUNCH_H
#define BPFCOLLECT_LAUNCH_H

#include <stddef.h>
#include <sys/types.h>

struct bc_child {
	pid_t pid;
	int release_fd; /* write end: one byte lets the child exec */
	int error_fd;	/* read end: errno of a failed exec, EOF on success */
};

/*
 * Finds argv0 the way execvp(3) would (PATH search unless it holds a '/')
 * and writes the absolute path. -ENOENT/-EACCES with one line in err.
 */
int bc_launch_find_program(const char *argv0, char *path, size_t pathlen, char *err, size_t errlen);

/*
 * Forks a child that waits for bc_launch_release() and then execs path with
 * argv. The child gets the signal mask and dispositions the agent had at
 * start (sigmask), not the agent's blocked set.
 */
int bc_launch_prepare(const char *path, char *const argv[], const sigset_t *sigmask,
		      struct bc_child *child, char *err, size_t errlen);

/* Lets the child exec; returns 0 once exec succeeded or -errno of the failed exec. */
int bc_launch_release(struct bc_child *child, char *err, size_t errlen);

/* Kills and reaps a child that was never released (error paths). */
void bc_launch_abort(struct bc_child *child);

#endif
