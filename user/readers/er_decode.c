// SPDX-License-Identifier: MIT
/*
 * The `.er` reader's decoding of compact files (format 4: functrace,
 * syscalls; bpfcollect/reccodec.h): block by block, every block untrusted,
 * into memory, or past a limit into a temporary file the reader maps, so a
 * long trace is read with no more memory than an older one whose records
 * were mapped straight from the experiment.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpfcollect/containers.h"
#include "bpfcollect/reccodec.h"
#include "er_replay.h"

/* The largest a block may say it decodes to: 19 bytes a byte at best (a return in 3). */
#define BLOCK_GROWTH_MAX 32

/* Where the decoded records go: buf (its first len bytes), and what went to fd before. */
struct decoding {
	struct bc_rc_state rc;
	unsigned char *buf;
	size_t len, cap;
	uint64_t mem_max;
	int fd;		  /* the temporary file, -1 until the records outgrow mem_max */
	uint64_t spilled; /* bytes written to it */
};

static uint64_t mem_max(void)
{
	const char *v = getenv("BPFCOLLECT_DECODE_MEM");
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return BC_ER_DECODE_MEM_DEFAULT;
	n = strtoull(v, &end, 10);
	return *end ? BC_ER_DECODE_MEM_DEFAULT : n;
}

/* An unnamed file in $TMPDIR, or /var/tmp (disk, where /tmp may be memory); -1 if none. */
static int temp_file(void)
{
	const char *dirs[] = {getenv("TMPDIR"), "/var/tmp", "/tmp"};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		int fd = dirs[i] && *dirs[i] ? open(dirs[i], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)
					     : -1;

		if (fd >= 0)
			return fd;
	}
	return -1;
}

static int write_all(int fd, const unsigned char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The buffer to the temporary file, once the records outgrow memory (where
 * no file can be made they stay in memory). 0, or -errno of a failed write.
 */
static int spill(struct decoding *x)
{
	int err;

	if (x->fd < 0 && x->spilled + x->len > x->mem_max)
		x->fd = temp_file();
	if (x->fd < 0 || !x->len)
		return 0;
	err = write_all(x->fd, x->buf, x->len);
	if (err)
		return err;
	x->spilled += x->len;
	x->len = 0;
	return 0;
}

/*
 * One block's records, decoded at the end of x->buf; a block that does not
 * decode is skipped (the next one starts where its head says). 1: the file
 * ends here (torn or unframed), 0: go on, -ENOMEM.
 */
static int decode_block(struct bc_er_reader *r, enum bc_er_file f, struct decoding *x,
			const unsigned char *p, uint64_t *off)
{
	struct bc_er_file_stats *st = &r->info->files[f];
	const char *name = bc_er_file_name(f);
	uint64_t rest = st->bytes - *off;
	struct bc_rc_block_head head;
	size_t used = x->len;
	int n;

	if (rest < sizeof(head))
		goto torn;
	memcpy(&head, p + *off, sizeof(head));
	if (head.magic != BC_RC_MAGIC) {
		st->truncated_bytes = rest;
		st->stopped = true;
		bc_er_note(r->info, "%s: no block at offset %llu; last %llu bytes skipped", name,
			   (unsigned long long)*off, (unsigned long long)rest);
		return 1;
	}
	if (head.len > rest - sizeof(head))
		goto torn;
	if (head.raw_bytes <= (uint64_t)head.len * BLOCK_GROWTH_MAX) {
		if (BC_GROW(x->buf, x->cap, x->len + head.raw_bytes) < 0)
			return -ENOMEM;
		n = bc_rc_decode(&x->rc, p + *off + sizeof(head), head.len, x->buf,
				 x->len + head.raw_bytes, &used);
		if (n >= 0 && (uint32_t)n == head.records && used == x->len + head.raw_bytes) {
			x->len = used;
			*off += sizeof(head) + head.len;
			return 0;
		}
	}
	st->bad_records += head.records;
	bc_er_note(r->info, "%s: the block at offset %llu does not decode; its %u records skipped",
		   name, (unsigned long long)*off, head.records);
	*off += sizeof(head) + head.len;
	return 0;
torn:
	st->truncated_bytes = rest;
	bc_er_note(r->info, "%s: last block torn at offset %llu; %llu bytes ignored", name,
		   (unsigned long long)*off, (unsigned long long)rest);
	return 1;
}

/* The records that went to the temporary file, and what is left in memory, mapped as one. */
static int map_spilled(struct bc_er_data *d, struct decoding *x)
{
	void *m;
	int err;

	err = write_all(x->fd, x->buf, x->len);
	if (err)
		return err;
	x->spilled += x->len;
	m = mmap(NULL, x->spilled, PROT_READ, MAP_PRIVATE, x->fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	d->base = m;
	d->len = x->spilled;
	return 0;
}

int bc_er_decode_compact(struct bc_er_reader *r, enum bc_er_file f, const unsigned char *p)
{
	struct bc_er_data *d = &r->rp.data[f];
	struct decoding *x = calloc(1, sizeof(*x));
	uint64_t off = 0;
	int err = 0;

	if (!x)
		return -ENOMEM;
	x->fd = -1;
	x->mem_max = mem_max();
	while (off < r->info->files[f].bytes && !err) {
		err = decode_block(r, f, x, p, &off);
		if (err >= 0) {
			int e = spill(x);

			err = e ? e : err;
		}
	}
	if (err >= 0 && x->spilled) {
		err = map_spilled(d, x);
		free(x->buf);
	} else if (err >= 0) {
		d->decoded = x->buf;
		d->base = x->buf;
		d->len = x->len;
	} else {
		free(x->buf);
	}
	if (x->fd >= 0)
		close(x->fd);
	free(x);
	return err < 0 ? err : 0;
}
