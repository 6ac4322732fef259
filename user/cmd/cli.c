// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/cli.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/formats.h"

static void (*message_hook)(void *arg);
static void *message_hook_arg;

void bc_set_message_hook(void (*clear)(void *arg), void *arg)
{
	message_hook = clear;
	message_hook_arg = arg;
}

void bc_message_begin(void)
{
	if (message_hook)
		message_hook(message_hook_arg);
}

/*
 * What was said already: the same error or warning met again (each pass of
 * report over a damaged experiment meets it) is said once.
 */
#define SAID_MAX 4096
static struct bc_strtab said;
static unsigned long n_errors;
static pthread_mutex_t said_lock = PTHREAD_MUTEX_INITIALIZER;

/* "bpfcollect: " kind msg, unless that very line was printed before. */
static void say(const char *kind, const char *fmt, va_list ap)
{
	char *msg = NULL, *line = NULL;
	uint32_t id;
	int fresh = 1;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	if (msg && asprintf(&line, "bpfcollect: %s%s\n", kind, msg) < 0)
		line = NULL;
	pthread_mutex_lock(&said_lock);
	/* a long-lived process meets new lines forever: past SAID_MAX, new ones are not kept */
	if (line && said.n < SAID_MAX)
		fresh = bc_strtab_intern(&said, line, strlen(line), &id) != 0;
	else if (line)
		fresh = bc_strtab_find(&said, line, strlen(line)) < 0;
	if (fresh && !*kind)
		n_errors++;
	pthread_mutex_unlock(&said_lock);
	if (fresh) {
		fflush(stdout);
		bc_message_begin();
		/* out of memory: the format alone still says what went wrong */
		fputs(line ? line : "bpfcollect: ", stderr);
		if (!line) {
			fputs(kind, stderr);
			fputs(fmt, stderr);
			fputc('\n', stderr);
		}
	}
	free(line);
	free(msg);
}

void bc_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("", fmt, ap);
	va_end(ap);
}

void bc_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("warning: ", fmt, ap);
	va_end(ap);
}

unsigned long bc_errors_said(void)
{
	unsigned long n;

	pthread_mutex_lock(&said_lock);
	n = n_errors;
	pthread_mutex_unlock(&said_lock);
	return n;
}

void bc_messages_forget(void)
{
	pthread_mutex_lock(&said_lock);
	bc_strtab_free(&said);
	pthread_mutex_unlock(&said_lock);
}

/* All of fd (a pipe) into a new *buf, at most max bytes: -EFBIG beyond. */
static int read_stream(int fd, uint64_t max, char **buf, size_t *len)
{
	size_t cap = 0;

	*buf = NULL;
	*len = 0;
	for (;;) {
		ssize_t n;

		if (*len == cap) {
			char *v;

			if (cap >= max) {
				free(*buf);
				*buf = NULL;
				return -EFBIG;
			}
			cap = cap ? cap * 2 : 65536;
			v = realloc(*buf, cap + 1);
			if (!v) {
				free(*buf);
				*buf = NULL;
				return -ENOMEM;
			}
			*buf = v;
		}
		n = read(fd, *buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(*buf);
			*buf = NULL;
			return -errno;
		}
		if (!n)
			return 0;
		*len += (size_t)n;
	}
}

/* A regular file, whole: a FIFO or device is refused. */
static int read_regular(const char *path, uint64_t max, char **buf, size_t *len)
{
	struct stat st;
	size_t done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK), rc = 0;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		rc = fstat(fd, &st) < 0 ? -errno : !S_ISREG(st.st_mode) ? -EINVAL : -EFBIG;
		goto out;
	}
	*buf = malloc((size_t)st.st_size + 1);
	if (!*buf) {
		rc = -ENOMEM;
		goto out;
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + done, (size_t)st.st_size - done);

		if (n < 0) {
			rc = -errno;
			break;
		}
		if (!n)
			break;
		done += (size_t)n;
	}
	*len = done;
out:
	close(fd);
	return rc;
}

int bc_read_regular_file(const char *path, uint64_t max, char **buf, size_t *len)
{
	if (!strcmp(path, "-"))
		return read_stream(STDIN_FILENO, max, buf, len);
	return read_regular(path, max, buf, len);
}

int bc_cmd_list_opts(FILE *out, const struct bc_cmd_opts *o)
{
	static const char *const arg_mark[] = {"", "=", "[=]"};
	struct option fmt[64];
	size_t n = 0;
	const char *p = o->shortopts;

	/* getopt's leading flags: '+' (stop at the first operand), '-', ':' (quiet) */
	while (*p == '+' || *p == '-' || *p == ':')
		p++;
	for (; *p; p++) {
		int has_arg = p[1] != ':' ? 0 : p[2] != ':' ? 1 : 2;

		fprintf(out, "-%c%s\n", *p, arg_mark[has_arg]);
		while (p[1] == ':')
			p++;
	}
	for (const struct option *l = o->longopts; l->name; l++)
		fprintf(out, "--%s%s\n", l->name, arg_mark[l->has_arg]);
	if (!o->format_opts)
		return 0;
	if (bc_format_longopts(fmt, &n, sizeof(fmt) / sizeof(fmt[0]), 0) < 0)
		return -ENOSPC;
	for (size_t i = 0; i < n; i++)
		fprintf(out, "--%s%s\n", fmt[i].name, arg_mark[fmt[i].has_arg]);
	return 0;
}
