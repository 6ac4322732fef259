/* SPDX-License-Identifier: MIT */
/*
 * The stream behind every output file (bpfcollect/outfile.h): a stdio
 * stream whose writes go to a file descriptor, and which knows where the
 * records end that have not all reached the file yet. When a write fails
 * for want of space (ENOSPC, EDQUOT, EFBIG), the file is cut back to the
 * last record end it holds, the format's closing bytes are written after
 * it, and from then on what is written is counted, not written: the file
 * stays valid for its format instead of ending in a torn record (a JSON
 * document without its end), and the writer learns how many records it
 * lacks.
 */
#ifndef BPFCOLLECT_OUTWRITE_H
#define BPFCOLLECT_OUTWRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct bc_outwrite;

/*
 * A stream writing to fd, and in *w what it knows (freed by
 * bc_outwrite_free, after fclose). own_fd: fclose closes fd. NULL with
 * errno set.
 */
FILE *bc_outwrite_open(int fd, bool own_fd, struct bc_outwrite **w);
void bc_outwrite_free(struct bc_outwrite *w);

/*
 * What f (w's stream) holds so far ends whole records; record: what was
 * written since the last end is one record (counted when not empty).
 */
void bc_outwrite_end(struct bc_outwrite *w, FILE *f, bool record);
/* Bytes that close the format after any record end from here on ("" or NULL: none). */
void bc_outwrite_tail(struct bc_outwrite *w, FILE *f, const char *tail);

/* The -errno writing stopped at; 0 while it goes on. */
int bc_outwrite_errno(const struct bc_outwrite *w);
/* Whether it stopped for want of space (ENOSPC, EDQUOT, EFBIG): writes are counted since. */
bool bc_outwrite_full(const struct bc_outwrite *w);
/* Whether the file was cut back to a record end (and closed by the tail): it is valid. */
bool bc_outwrite_whole(const struct bc_outwrite *w);
/* Records counted that the file does not hold: those past its cut. */
uint64_t bc_outwrite_unwritten(const struct bc_outwrite *w);
/* The descriptor written to (fsync). */
int bc_outwrite_fd(const struct bc_outwrite *w);

#endif
