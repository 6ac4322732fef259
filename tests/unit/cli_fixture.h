/* SPDX-License-Identifier: MIT */
/*
 * Running a subcommand (bc_cmd_report, bc_cmd_convert, ...) as the binary
 * would, in a child process: its standard output and error go to files the
 * test reads back, its exit status is kept, and a child still running after
 * its time is killed (a reader that hangs on a planted FIFO fails the test
 * instead of hanging the suite). The child is a fork, so what the command
 * sets (getopt's state, demangling, warnings seen) never reaches the test.
 */
#ifndef BC_TEST_CLI_FIXTURE_H
#define BC_TEST_CLI_FIXTURE_H

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/cli.h"

#define RAN_ARGS_MAX 32

struct ran {
	int status; /* exit status, or 128 + the signal that ended it */
	char *out, *err;
	size_t outlen, errlen;
};

static inline char *ran_slurp(int fd, size_t *len)
{
	struct stat st;
	char *buf;

	assert_int_equal(fstat(fd, &st), 0);
	buf = calloc(1, (size_t)st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	*len = (size_t)st.st_size;
	return buf;
}

/* A temporary file, already unlinked: only its descriptor names it. */
static inline int ran_tmpfile(void)
{
	char path[] = "/tmp/bc-test-cli-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	return fd;
}

/*
 * Runs fn with the arguments that follow (argv[0] first, a NULL last) in a
 * child killed after secs seconds; what it printed and how it ended in *r.
 */
static inline void run_cli(struct ran *r, unsigned int secs, int (*fn)(int, char **), ...)
{
	char *argv[RAN_ARGS_MAX + 1];
	int argc = 0, out = ran_tmpfile(), err = ran_tmpfile(), wstatus;
	va_list ap;
	pid_t pid;

	va_start(ap, fn);
	while (argc < RAN_ARGS_MAX && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	memset(r, 0, sizeof(*r));
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int rc;

		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
		alarm(secs);
		rc = fn(argc, argv);
		fflush(NULL);
		_exit(rc);
	}
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	r->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	r->out = ran_slurp(out, &r->outlen);
	r->err = ran_slurp(err, &r->errlen);
	close(out);
	close(err);
}

static inline void ran_free(struct ran *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

/* How many times needle occurs in hay. */
static inline size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* Lines in s (the last one counts without its newline too). */
static inline size_t lines_of(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Fails with what the command said unless it ended with status want. */
static inline void expect_status(const struct ran *r, int want)
{
	if (r->status != want)
		fail_msg("exit status %d, not %d; stderr:\n%s", r->status, want, r->err);
}

#endif /* BC_TEST_CLI_FIXTURE_H */
