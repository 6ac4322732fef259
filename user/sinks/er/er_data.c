// SPDX-License-Identifier: MIT
/* The `.er` writer's files on disk: whole elements, whole records (er_data.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/record.h"
#include "er_data.h"

/*
 * Appends len bytes with write(); if the disk fills part-way, the file is
 * cut back to *size so it never ends in a torn element.
 */
int er_append_whole(int fd, uint64_t *size, const char *s, size_t len)
{
	size_t done = 0;
	int err;

	while (done < len) {
		ssize_t n = write(fd, s + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			if (done && ftruncate(fd, (off_t)*size) < 0)
				err = -errno;
			return err;
		}
		done += n;
	}
	*size += len;
	return 0;
}

int er_write_sb(int fd, uint64_t *size, const struct er_strbuf *b)
{
	if (b->oom)
		return -ENOMEM;
	return b->len ? er_append_whole(fd, size, b->s, b->len) : 0;
}

static uint16_t rec_size(const char *p)
{
	struct bc_rec_head h;

	memcpy(&h, p, sizeof(h));
	return h.size;
}

int er_data_flush(struct data_out *d)
{
	size_t done = 0, keep = 0;
	int err = 0;

	if (d->err || !d->used)
		return d->err;
	while (done < d->used) {
		ssize_t n = write(d->fd, d->buf + done, d->used - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		done += n;
	}
	if (!err) {
		d->size += d->used;
		d->records += d->buffered;
		d->used = d->buffered = 0;
		return 0;
	}
	/* keep the records that made it whole; drop a torn one */
	d->dropped += d->buffered;
	while (keep + sizeof(struct bc_rec_head) <= done &&
	       keep + rec_size(d->buf + keep) <= done) {
		keep += rec_size(d->buf + keep);
		d->records++;
		d->dropped--;
	}
	if (keep != done && ftruncate(d->fd, (off_t)(d->size + keep)) < 0)
		err = -errno;
	d->size += keep;
	d->used = d->buffered = 0;
	d->err = err;
	return err;
}

int er_data_append(struct data_out *d, const void *rec, size_t size)
{
	int err;

	if (d->err)
		return d->err;
	if (size > DATA_BUF_SIZE)
		return -EINVAL;
	if (!d->buf && !(d->buf = malloc(DATA_BUF_SIZE)))
		return -ENOMEM;
	if (d->used + size > DATA_BUF_SIZE) {
		err = er_data_flush(d);
		if (err)
			return err;
	}
	memcpy(d->buf + d->used, rec, size);
	d->used += size;
	d->buffered++;
	return 0;
}
