/* SPDX-License-Identifier: MIT */
/*
 * A table of per-process entries found by pid, whose memory stays flat
 * however many processes come and go: a process said to have exited is
 * kept while the last BC_PIDTAB_KEEP_EXITED exits are (its late records,
 * a child asking after its parent), then its entry is released and its
 * slot serves the next process. The shared state and the experiment trees
 * keep their processes in one.
 *
 * Entries are `size` bytes, zeroed when added; a pointer to one is valid
 * until the next add. Slots 0..n-1 may be walked with bc_pidtab_at(): a
 * free slot reads as zeroes.
 */
#ifndef BPFCOLLECT_PIDTAB_H
#define BPFCOLLECT_PIDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/containers.h"

#define BC_PIDTAB_KEEP_EXITED 256

struct bc_pidtab_slot {
	uint32_t pid;
	uint32_t gen; /* moves up each time the slot takes a process */
	bool used;
};

/* An exit remembered: the slot, and which of its processes exited. */
struct bc_pidtab_exit {
	uint32_t slot, gen;
};

struct bc_pidtab {
	unsigned char *entries;
	struct bc_pidtab_slot *slots;
	size_t size, n, cap;  /* entry size; slots used so far; allocated */
	uint32_t *free_slots; /* indexes of free slots, each below n */
	size_t n_free;
	struct bc_pidtab_exit exits[BC_PIDTAB_KEEP_EXITED]; /* a ring, oldest at exits_head */
	size_t exits_head, n_exits;
	struct bc_idmap by_pid; /* pid -> slot + 1 */
	/* Called on an entry before it is released (its strings, its writer); may be NULL. */
	void (*release)(void *entry, void *ctx);
	void *ctx;
};

void bc_pidtab_init(struct bc_pidtab *t, size_t size, void (*release)(void *entry, void *ctx),
		    void *ctx);
/* Releases every entry still held, then the table. */
void bc_pidtab_free(struct bc_pidtab *t);
/* pid's entry, or NULL. */
void *bc_pidtab_find(const struct bc_pidtab *t, uint32_t pid);
/* A new zeroed entry for pid; NULL when pid has one, or no memory. */
void *bc_pidtab_add(struct bc_pidtab *t, uint32_t pid);
/* Releases pid's entry now, if it has one. */
void bc_pidtab_remove(struct bc_pidtab *t, uint32_t pid);
/*
 * pid's process exited: its entry is released after BC_PIDTAB_KEEP_EXITED
 * more exits, unless it was removed or re-added before. 0 or -ENOMEM.
 */
int bc_pidtab_exited(struct bc_pidtab *t, uint32_t pid);
/* Slot i (< t->n): an entry, or zeroes. */
void *bc_pidtab_at(const struct bc_pidtab *t, size_t i);

#endif /* BPFCOLLECT_PIDTAB_H */
