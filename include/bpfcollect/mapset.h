/* SPDX-License-Identifier: MIT */
/*
 * The executable mappings each traced process has now, kept from the BPF
 * mmap/munmap records: a fork child starts with its parent's (the kernel
 * copies them without reporting a new mapping), an exec starts empty.
 */
#ifndef BPFCOLLECT_MAPSET_H
#define BPFCOLLECT_MAPSET_H

#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/model.h"

struct bc_mapset_entry {
	uint32_t pid;
	uint64_t start, end, offset;
	uint32_t prot;
	uint32_t mark; /* the last mapping snapshot that saw it (0: none) */
	char *path;
};

struct bc_mapset {
	struct bc_mapset_entry *v;
	size_t n, cap;
};

void bc_mapset_free(struct bc_mapset *s);
/* Records a new mapping of m->pid. -ENOMEM. */
int bc_mapset_add(struct bc_mapset *s, const struct bc_mapping *m);
/* Forgets the mappings of pid starting inside [start, end). */
/* pid's mapping that starts at start, or NULL. */
struct bc_mapset_entry *bc_mapset_find(struct bc_mapset *s, uint32_t pid, uint64_t start);
void bc_mapset_unmap(struct bc_mapset *s, uint32_t pid, uint64_t start, uint64_t end);
/* Forgets every mapping of pid (exec, exit). */
void bc_mapset_drop(struct bc_mapset *s, uint32_t pid);
/* Reports pid's mappings to the sink, stamped ktime. 0 or the sink's error. */
int bc_mapset_report(const struct bc_mapset *s, uint32_t pid, uint64_t ktime, struct bc_sink *sink);
/* Gives child a copy of parent's mappings and reports each to the sink, stamped ktime. */
int bc_mapset_fork(struct bc_mapset *s, uint32_t parent, uint32_t child, uint64_t ktime,
		   struct bc_sink *sink);

/* Moves pid's mappings from `from` to `to`, reporting each to the sink (an exec's new image). */
int bc_mapset_move(struct bc_mapset *from, struct bc_mapset *to, uint32_t pid, uint64_t ktime,
		   struct bc_sink *sink);

#endif
