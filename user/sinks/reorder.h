/* SPDX-License-Identifier: MIT */
/*
 * A reorder buffer for the sinks that write in time order (RTL, GTF, chrome):
 * items wait until nothing older can arrive (the ring's order differs from
 * time order only between CPUs, by far less than the window), then leave
 * sorted, so a live recording and its later conversion write the same
 * bytes. Each item is a struct of the sink's whose first member is its
 * time, a uint64_t ktime.
 */
#ifndef BPFCOLLECT_SINKS_REORDER_H
#define BPFCOLLECT_SINKS_REORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Items that may wait before a flush is due, at least. */
#define BC_REORDER_BATCH 8192

struct bc_reorder {
	char *items;
	size_t n, cap, size;
	/*
	 * A flush is due at this many items: twice what the last one left, so
	 * a window that holds more than a batch (a dense stream) is not sorted
	 * again for every item that comes.
	 */
	size_t due_at;
	uint64_t newest, window_ns;
	int (*cmp)(const void *a, const void *b); /* a total order, time first */
};

void bc_reorder_init(struct bc_reorder *q, size_t size, uint64_t window_ns,
		     int (*cmp)(const void *a, const void *b));
/* Whether enough items wait for a flush to be worth its sort. */
static inline bool bc_reorder_due(const struct bc_reorder *q)
{
	return q->n >= q->due_at;
}

/* A zeroed slot at the end for an item of ktime (the caller fills it); NULL: no memory. */
void *bc_reorder_push(struct bc_reorder *q, uint64_t ktime);
/* The item pushed last; NULL when none waits. */
void *bc_reorder_last(struct bc_reorder *q);
/*
 * Hands emit, in order, every item that can no longer be overtaken (all:
 * every item); emit consumes it (frees what it owns) whatever it returns.
 * Stops at emit's first error, which it returns; the rest keeps waiting.
 */
int bc_reorder_flush(struct bc_reorder *q, bool all, int (*emit)(void *ctx, void *item), void *ctx);
/* drop(item) for every waiting item (NULL: none to call), then frees the buffer. */
void bc_reorder_free(struct bc_reorder *q, void (*drop)(void *item));

/* The order every reordering sink's items start with: time, thread, the thread's sequence. */
static inline int bc_reorder_key_cmp(uint64_t ktime_a, uint32_t tid_a, uint64_t seq_a,
				     uint64_t ktime_b, uint32_t tid_b, uint64_t seq_b)
{
	if (ktime_a != ktime_b)
		return ktime_a < ktime_b ? -1 : 1;
	if (tid_a != tid_b)
		return tid_a < tid_b ? -1 : 1;
	if (seq_a != seq_b)
		return seq_a < seq_b ? -1 : 1;
	return 0;
}

/*
 * The item of a sink that formats each record as it comes and reorders
 * the bytes (GTF, chrome): sorted by time, thread, the thread's sequence,
 * kind, then the bytes themselves, so equal streams give equal files.
 */
struct bc_reorder_rec {
	uint64_t ktime, seq;
	uint32_t tid;
	uint16_t kind;
	uint32_t len;
	uint8_t *bytes; /* owned */
};

struct bc_rec_head;

/* Queues bytes[len] (malloc'd; taken, even on failure) formatted for record h. -ENOMEM. */
int bc_reorder_rec_push(struct bc_reorder *q, const struct bc_rec_head *h, uint8_t *bytes,
			size_t len);
int bc_reorder_rec_cmp(const void *a, const void *b);
/* Frees a bc_reorder_rec's bytes (bc_reorder_free's drop). */
void bc_reorder_rec_drop(void *item);

#endif
