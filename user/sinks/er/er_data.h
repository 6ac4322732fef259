/* SPDX-License-Identifier: MIT */
/*
 * The `.er` writer's files on disk (er_data.c): XML appended whole elements
 * per write(), data files that only ever hold whole records. A write the
 * disk cuts short is cut back to the last whole one, so a reader (or a
 * crash, or a full disk) never meets a torn element or record.
 */
#ifndef BPFCOLLECT_ER_DATA_H
#define BPFCOLLECT_ER_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "er_strbuf.h"

#define DATA_BUF_SIZE (64 * 1024)

/* A data file and the records buffered for it. */
struct data_out {
	int fd;
	char *buf; /* DATA_BUF_SIZE, from the first record: most files of a process stay empty */
	size_t used;
	size_t buffered;  /* records in buf */
	uint64_t size;	  /* bytes on disk: always a whole number of records */
	uint64_t records; /* records on disk */
	uint64_t dropped; /* records buffered when a write failed, not on disk */
	int err;	  /* sticky: after a failed write the file is frozen */
	/*
	 * Compact files (functrace, syscalls): buf holds one block, its head
	 * first, and what it has said of each thread. rc is made with buf.
	 */
	bool compact;
	struct bc_rc_state *rc;
	size_t raw_bytes; /* the buffered records' size, not encoded */
};

/* Frees what d holds (not its fd). */
void er_data_release(struct data_out *d);

/* Appends len bytes; a write cut short is cut back to *size. 0 or -errno. */
int er_append_whole(int fd, uint64_t *size, const char *s, size_t len);
/* The text of b, appended whole (b->oom: -ENOMEM). */
int er_write_sb(int fd, uint64_t *size, const struct er_strbuf *b);
/*
 * Writes d's buffered records. On a failed write the whole records that made
 * it stay (counted), the rest are dropped (d->dropped) and d is frozen
 * (d->err, returned from then on).
 */
int er_data_flush(struct data_out *d);
/*
 * Buffers one record of size bytes (at most DATA_BUF_SIZE), flushing first
 * when full; a compact file's block takes it encoded.
 */
int er_data_append(struct data_out *d, const void *rec, size_t size);

#endif
