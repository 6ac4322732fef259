// SPDX-License-Identifier: MIT
/* Output streams that end at a whole record when the disk fills (see outwrite.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outwrite.h"

/*
 * Record ends kept at most; with that many waiting, stdio's buffer is
 * pushed out, after which they need no keeping (only records of a few
 * bytes each come near it).
 */
#define BOUNDS_MAX 4096
/*
 * Record ends kept from what is in the file already: the cut falls back on
 * them when the closing bytes do not fit after the last one.
 */
#define BOUNDS_BEHIND 4
#define TAIL_MAX      64

struct bound {
	uint64_t off;	  /* bytes of the stream before it */
	uint64_t records; /* records before it */
};

struct bc_outwrite {
	int fd;
	bool own_fd;
	off_t base;	  /* the file offset of the stream's first byte; -1: not a regular file */
	uint64_t done;	  /* bytes of the stream in the file */
	uint64_t pos;	  /* bytes of the stream stdio handed over (past a cut: not written) */
	uint64_t end;	  /* pos (and stdio's pending bytes) at the last record end */
	uint64_t records; /* records counted */
	struct bound *b;  /* ascending: up to BOUNDS_BEHIND at or before done, then those past it */
	size_t n, cap;
	char tail[TAIL_MAX];
	size_t tail_len;
	uint64_t tail_from; /* the tail closes record ends from this offset on */
	int err;
	bool whole;    /* cut back to a record end and closed: valid for its format */
	uint64_t kept; /* once stopped: the records the file holds */
};

static bool out_of_space(int err)
{
	return err == -ENOSPC || err == -EDQUOT || err == -EFBIG;
}

/* Writes len bytes; *put of them made it. 0 or -errno. */
static int write_all(int fd, const char *buf, size_t len, size_t *put)
{
	*put = 0;
	while (*put < len) {
		ssize_t n = write(fd, buf + *put, len - *put);

		if (n > 0)
			*put += (size_t)n;
		else if (n < 0 && errno != EINTR)
			return -errno;
		else if (n == 0)
			return -EIO;
	}
	return 0;
}

/* The file ends at the stream's offset off, then t bytes of the tail. 0 or -errno. */
static int end_at(struct bc_outwrite *w, uint64_t off, size_t t)
{
	off_t at = w->base + (off_t)off;
	size_t put;

	/* cut first: the torn record's blocks are free again for the tail */
	if (ftruncate(w->fd, at) < 0)
		return -errno;
	if (!t)
		return 0;
	if (lseek(w->fd, at, SEEK_SET) < 0 || write_all(w->fd, w->tail, t, &put) < 0) {
		/* a part of the tail is no end either */
		if (ftruncate(w->fd, at) < 0) {
		}
		return -ENOSPC;
	}
	return 0;
}

/*
 * Cuts the file back to the last record end it holds whole (and its tail),
 * or the one before when the tail does not fit there. Only what this
 * stream wrote is cut, and only while it is the file's end (a standard
 * output another process appends to stays as it is).
 */
static void cut(struct bc_outwrite *w)
{
	struct stat st;

	if (w->base < 0 || fstat(w->fd, &st) < 0 || st.st_size != w->base + (off_t)w->done)
		return;
	for (size_t i = w->n; i-- > 0;) {
		const struct bound *b = &w->b[i];
		size_t t = b->off >= w->tail_from ? w->tail_len : 0;

		if (b->off > w->done || end_at(w, b->off, t) < 0)
			continue;
		w->whole = true;
		w->kept = b->records;
		w->done = b->off + t;
		return;
	}
}

/* Writing stops at err; for want of space, the file is cut back to a record end. */
static void stop(struct bc_outwrite *w, int err)
{
	w->err = err;
	for (size_t i = 0; i < w->n && w->b[i].off <= w->done; i++)
		w->kept = w->b[i].records;
	if (out_of_space(err))
		cut(w);
}

/* Drops the record ends the cut no longer needs: all but a few at or before done. */
static void trim(struct bc_outwrite *w)
{
	size_t last = 0, first;

	while (last + 1 < w->n && w->b[last + 1].off <= w->done)
		last++;
	first = last >= BOUNDS_BEHIND ? last - (BOUNDS_BEHIND - 1) : 0;
	if (first) {
		memmove(w->b, w->b + first, (w->n - first) * sizeof(*w->b));
		w->n -= first;
	}
}

static ssize_t ow_write(void *cookie, const char *buf, size_t size)
{
	struct bc_outwrite *w = cookie;
	size_t put;
	int rc;

	/* cut short for want of space: counted, not written (the file is whole as it is) */
	if (out_of_space(w->err)) {
		w->pos += size;
		return (ssize_t)size;
	}
	if (w->err) {
		errno = -w->err;
		return -1;
	}
	rc = write_all(w->fd, buf, size, &put);
	w->done += put;
	w->pos += put;
	if (rc < 0) {
		stop(w, rc);
		if (out_of_space(rc)) {
			w->pos += size - put;
			return (ssize_t)size;
		}
		errno = -rc;
		return -1;
	}
	trim(w);
	return (ssize_t)size;
}

static int ow_close(void *cookie)
{
	struct bc_outwrite *w = cookie;
	int rc = 0;

	if (w->own_fd && w->fd >= 0)
		rc = close(w->fd);
	w->fd = -1;
	return rc;
}

static int grow(struct bc_outwrite *w)
{
	size_t cap = w->cap ? w->cap * 2 : 16;
	struct bound *b;

	if (w->cap >= BOUNDS_MAX || !(b = realloc(w->b, cap * sizeof(*b))))
		return -ENOMEM;
	w->b = b;
	w->cap = cap;
	return 0;
}

FILE *bc_outwrite_open(int fd, bool own_fd, struct bc_outwrite **wp)
{
	cookie_io_functions_t io = {.write = ow_write, .close = ow_close};
	struct bc_outwrite *w = calloc(1, sizeof(*w));
	struct stat st;
	FILE *f;
	int fl;

	if (!w || grow(w) < 0) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = fd;
	w->own_fd = own_fd;
	w->base = -1;
	w->tail_from = UINT64_MAX;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (fl = fcntl(fd, F_GETFL)) >= 0)
		/* O_APPEND (a shell's >>): every write lands at the end, whatever the offset */
		w->base = fl & O_APPEND ? st.st_size : lseek(fd, 0, SEEK_CUR);
	w->b[w->n++] = (struct bound){0, 0}; /* nothing written is whole too */
	f = fopencookie(w, "w", io);
	if (!f) {
		bc_outwrite_free(w);
		return NULL;
	}
	/* a terminal sees each line as it is made, as it does on stdio's own stdout */
	if (isatty(fd))
		setvbuf(f, NULL, _IOLBF, 0);
	*wp = w;
	return f;
}

void bc_outwrite_free(struct bc_outwrite *w)
{
	if (!w)
		return;
	free(w->b);
	free(w);
}

void bc_outwrite_end(struct bc_outwrite *w, FILE *f, bool record)
{
	uint64_t off = w->pos + __fpending(f);

	if (record && off > w->end)
		w->records++;
	w->end = off;
	if (w->err)
		return;
	if (w->b[w->n - 1].off != off && w->n == w->cap && grow(w) < 0) {
		/* no room for another: out to the file, where the ends need none */
		fflush(f);
		trim(w);
		if (w->err)
			return;
	}
	if (w->b[w->n - 1].off == off)
		w->b[w->n - 1].records = w->records;
	else
		w->b[w->n++] = (struct bound){off, w->records};
}

void bc_outwrite_tail(struct bc_outwrite *w, FILE *f, const char *tail)
{
	size_t len = tail ? strlen(tail) : 0;

	if (w->err)
		return;
	w->tail_len = len < TAIL_MAX ? len : 0;
	memcpy(w->tail, tail ? tail : "", w->tail_len);
	w->tail_from = w->pos + __fpending(f);
}

int bc_outwrite_errno(const struct bc_outwrite *w)
{
	return w->err;
}

bool bc_outwrite_full(const struct bc_outwrite *w)
{
	return out_of_space(w->err);
}

bool bc_outwrite_whole(const struct bc_outwrite *w)
{
	return w->whole;
}

uint64_t bc_outwrite_unwritten(const struct bc_outwrite *w)
{
	return w->err ? w->records - w->kept : 0;
}

int bc_outwrite_fd(const struct bc_outwrite *w)
{
	return w->fd;
}
