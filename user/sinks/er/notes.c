// SPDX-License-Identifier: MIT
/*
 * EXP/notes: free text gprofng prints at the top of `display text -header`
 * (collect -C COMMENT writes it). Appended one comment per line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/infile.h"
#include "bpfcollect/archive.h"
#include "bpfcollect/outmode.h"
#include "bpfcollect/symutil.h"

static int notes_path(const char *exp_path, char *path, size_t len)
{
	return snprintf(path, len, "%s/notes", exp_path) >= (int)len ? -ENAMETOOLONG : 0;
}

/* Whether the file at fd (size bytes) ends without a newline. */
static bool ends_open(int fd, off_t size)
{
	char c;

	return size > 0 && pread(fd, &c, 1, size - 1) == 1 && c != '\n';
}

int bc_notes_write(const char *exp_path, const char *const *comments, size_t n, char *err,
		   size_t errlen)
{
	char path[PATH_MAX], *text = NULL, *p;
	size_t len = 1; /* a newline to close a last line someone left open */
	struct stat st;
	int fd, ret = 0;

	if (notes_path(exp_path, path, sizeof(path))) {
		bc_set_err(err, errlen, "%s/notes: path too long", exp_path);
		return -ENAMETOOLONG;
	}
	for (size_t i = 0; i < n; i++) {
		size_t l = comments[i] ? strlen(comments[i]) : 0;

		if (l > SIZE_MAX / 2 - len) {
			bc_set_err(err, errlen, "%s: comments too long", path);
			return -E2BIG;
		}
		len += l + 1;
	}
	if (!n)
		return 0;
	fd = bc_out_openat(AT_FDCWD, path,
			   O_RDWR | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0) {
		ret = -errno;
		bc_set_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		bc_set_err(err, errlen, "cannot write %s: not a regular file", path);
		ret = -EINVAL;
		goto out;
	}
	text = p = malloc(len);
	if (!text) {
		bc_set_err(err, errlen, "%s: out of memory", path);
		ret = -ENOMEM;
		goto out;
	}
	if (ends_open(fd, st.st_size))
		*p++ = '\n';
	for (size_t i = 0; i < n; i++) {
		/* one comment, one line: control characters (but tabs) become spaces */
		for (const char *c = comments[i] ? comments[i] : ""; *c; c++)
			*p++ = ((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f ? ' ' : *c;
		*p++ = '\n';
	}
	/* one write: concurrent writers append whole lines */
	for (char *w = text; w < p && !ret;) {
		ssize_t done = write(fd, w, (size_t)(p - w));

		if (done < 0 && errno != EINTR)
			ret = -errno;
		else if (done > 0)
			w += done;
	}
	if (ret)
		bc_set_err(err, errlen, "cannot write %s: %s", path, strerror(-ret));
out:
	if (close(fd) && !ret) {
		ret = -errno;
		bc_set_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
	}
	free(text);
	return ret;
}

char *bc_notes_read(const char *exp_path)
{
	char path[PATH_MAX], *buf = NULL;
	size_t len = 0;
	struct stat st;
	int fd, e = ENOENT;

	if (notes_path(exp_path, path, sizeof(path))) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	/* a FIFO planted under that name must not hang us, nor a link lead elsewhere */
	fd = bc_in_openat(AT_FDCWD, path, false, &st);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	buf = malloc(BC_NOTES_MAX + 1);
	if (!buf) {
		e = ENOMEM;
		goto out;
	}
	e = ENODATA; /* empty */
	while (len < BC_NOTES_MAX) {
		ssize_t n = read(fd, buf + len, BC_NOTES_MAX - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			e = errno;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (!len || !*buf) {
		free(buf);
		buf = NULL;
	}
out:
	close(fd);
	if (!buf)
		errno = e;
	return buf;
}
