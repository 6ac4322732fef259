/* SPDX-License-Identifier: MIT */
/*
 * The compact encoding of an experiment's function and system call traces
 * (format 4; docs/experiment-format.md, "Compact blocks"). The files are a
 * sequence of blocks, each written whole, so a live reader never sees half
 * of one. A block's records are encoded against what the block said before
 * about the same thread (its last time, sequence number, depth, CPU, stack
 * pointer, open calls), so a function event takes a tag byte and a few
 * varints. Each block starts from nothing: it decodes alone.
 */
#ifndef BPFCOLLECT_RECCODEC_H
#define BPFCOLLECT_RECCODEC_H

#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/record.h"

#define BC_RC_MAGIC   0x31424342u /* "BCB1", little-endian */
#define BC_RC_THREADS 64	  /* threads a block speaks of; then a new block */
#define BC_RC_FRAMES  32	  /* open calls a thread's state remembers, by depth */
/* The most bytes one record takes encoded: the record whole, after a tag byte. */
#define BC_RC_MAX_ENCODED(size) ((size_t)(size) + 64)

struct bc_rc_block_head {
	uint32_t magic;
	uint32_t len;	    /* encoded bytes after this head */
	uint32_t records;   /* records in them */
	uint32_t raw_bytes; /* their size decoded */
};

struct bc_rc_thread {
	uint32_t pid, tid, cpu, depth;
	uint64_t seq, ktime, sp;
	uint64_t sys_args[6];
	uint32_t frame_func[BC_RC_FRAMES];
	uint64_t frame_ktime[BC_RC_FRAMES];
};

/* What a block has said so far; the encoder and the decoder keep the same. */
struct bc_rc_state {
	struct bc_rc_thread threads[BC_RC_THREADS];
	uint32_t n;    /* threads in use */
	uint32_t last; /* the previous record's thread; BC_RC_THREADS: none yet */
};

/* Empties s for a new block. */
void bc_rc_reset(struct bc_rc_state *s);
/*
 * Encodes the record h (h->size bytes, already validated by its writer) at
 * out, which has room for BC_RC_MAX_ENCODED(h->size) bytes. Returns the bytes
 * written, or -ENOSPC when the block speaks of BC_RC_THREADS threads already
 * and h is another's: end the block and encode h in the next one.
 */
int bc_rc_encode(struct bc_rc_state *s, const struct bc_rec_head *h, uint8_t *out);
/*
 * Decodes one block's len encoded bytes (s: scratch state, reset here) into
 * records appended at out[*used..cap), each whole; out and *used 8-byte
 * aligned keep them aligned. Returns the records decoded; -EINVAL when the
 * bytes do not decode, -ENOBUFS when out lacks room (*used unchanged then).
 */
int bc_rc_decode(struct bc_rc_state *s, const uint8_t *in, size_t len, uint8_t *out, size_t cap,
		 size_t *used);

#endif
