/* SPDX-License-Identifier: MIT */
/* The processes the agent waits for: the launched one and its followed descendants. */
#ifndef BPFCOLLECT_LIVESET_H
#define BPFCOLLECT_LIVESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bc_live_set {
	uint32_t *pids;
	size_t n, cap;
};

/* Adds pid (once). 0 or -ENOMEM. */
int bc_live_add(struct bc_live_set *s, uint32_t pid);
void bc_live_remove(struct bc_live_set *s, uint32_t pid);
bool bc_live_has(const struct bc_live_set *s, uint32_t pid);
void bc_live_free(struct bc_live_set *s);

/*
 * True when pid no longer runs: gone, or a zombie nobody reaped yet. procfs
 * is the proc mount to look in ("/proc"; tests may point elsewhere).
 */
bool bc_pid_finished(const char *procfs, uint32_t pid);

#endif
