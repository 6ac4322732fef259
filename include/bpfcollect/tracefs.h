/* SPDX-License-Identifier: MIT */
/*
 * Uprobe trace events through a tracefs of the agent's own
 * (user/agent/tracefs.c). Functions return 0 or -errno.
 */
#ifndef BPFCOLLECT_TRACEFS_H
#define BPFCOLLECT_TRACEFS_H

#include <stdint.h>

/*
 * A descriptor of tracefs's root: the mounted one, else one mounted for us
 * alone (the agent's mount namespace becomes its own). -errno if neither.
 */
int bc_tracefs_open(void);
/* Adds the uprobe event bpfcollect_AGENTPID/event at path:offset; its id (> 0), or -errno. */
int bc_tracefs_uprobe_add(int tfd, const char *event, const char *path, uint64_t offset);
/* Removes it (its perf events closed first). */
int bc_tracefs_uprobe_remove(int tfd, const char *event);
/* Removes the events of agents that are gone (killed before they could). */
void bc_tracefs_sweep(int tfd);

#endif
