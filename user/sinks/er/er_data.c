// SPDX-License-Identifier: MIT
/* The `.er` writer's files on disk: whole elements, whole records (er_data.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/reccodec.h"
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

/*
 * A compact file's block, written whole: on a failed write the file is cut
 * back to its blocks before, and the block's records are dropped.
 */
static int flush_block(struct data_out *d)
{
	struct bc_rc_block_head head = {.magic = BC_RC_MAGIC,
					.len = (uint32_t)(d->used - sizeof(head)),
					.records = (uint32_t)d->buffered,
					.raw_bytes = (uint32_t)d->raw_bytes};
	uint64_t size = d->size;
	int err;

	if (d->err || !d->buffered)
		return d->err;
	memcpy(d->buf, &head, sizeof(head));
	err = er_append_whole(d->fd, &size, d->buf, d->used);
	if (err) {
		d->dropped += d->buffered;
		d->err = err;
	} else {
		d->size = size;
		d->records += d->buffered;
	}
	d->used = sizeof(head);
	d->buffered = d->raw_bytes = 0;
	bc_rc_reset(d->rc);
	return err;
}

static int append_compact(struct data_out *d, const struct bc_rec_head *h)
{
	int n, err;

	if (!d->buf) {
		d->buf = malloc(DATA_BUF_SIZE);
		d->rc = malloc(sizeof(*d->rc));
		if (!d->buf || !d->rc)
			return -ENOMEM;
		d->used = sizeof(struct bc_rc_block_head);
		bc_rc_reset(d->rc);
	}
	if (d->used + BC_RC_MAX_ENCODED(h->size) > DATA_BUF_SIZE) {
		err = flush_block(d);
		if (err)
			return err;
	}
	n = bc_rc_encode(d->rc, h, (uint8_t *)d->buf + d->used);
	if (n == -ENOSPC) {
		/* the block speaks of as many threads as it can: the next one speaks of h's */
		err = flush_block(d);
		if (err)
			return err;
		n = bc_rc_encode(d->rc, h, (uint8_t *)d->buf + d->used);
	}
	if (n < 0)
		return n;
	d->used += (size_t)n;
	d->buffered++;
	d->raw_bytes += h->size;
	return 0;
}

void er_data_release(struct data_out *d)
{
	free(d->buf);
	free(d->rc);
	d->buf = NULL;
	d->rc = NULL;
}

int er_data_flush(struct data_out *d)
{
	size_t done = 0, keep = 0;
	int err = 0;

	if (d->compact)
		return flush_block(d);
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
	if (size > DATA_BUF_SIZE / 2)
		return -EINVAL;
	if (d->compact)
		return append_compact(d, rec);
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
