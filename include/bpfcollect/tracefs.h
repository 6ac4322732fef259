/* SPDX-License-Identifier: MIT */
/*
 * Uprobe trace events through a tracefs of the agent's own
 * (user/agent/tracefs.c). Functions return 0 or -errno.
 */
#ifndef BPFCOLLECT_TRACEFS_H
#define BPFCOLLECT_TRACEFS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A descriptor of tracefs's root: the mounted one, else one mounted for us
 * alone (the agent's mount namespace becomes its own). -errno if neither.
 */
int bc_tracefs_open(void);
/* Adds the uprobe event bpfcollect_AGENTPID/event at path:offset; its id (> 0), or -errno. */
int bc_tracefs_uprobe_add(int tfd, const char *event, const char *path, uint64_t offset);
/*
 * Adds a probe point at path:offset to the event, making it if new: a
 * uprobe, or with retprobe a uretprobe (every point of one event the
 * same). The points of one event share its perf events and their program.
 */
int bc_tracefs_uprobe_append(int tfd, const char *event, const char *path, uint64_t offset,
			     bool retprobe);
/* The event's id (> 0), for perf_event_open's config, or -errno. */
int bc_tracefs_event_id(int tfd, const char *event);
/* Removes it with all its probe points (its perf events closed first). */
int bc_tracefs_uprobe_remove(int tfd, const char *event);
/* Removes the events of agents that are gone (killed before they could); how many. */
int bc_tracefs_sweep(int tfd);
/*
 * Removes agent_pid's events, its perf events closed (the detacher's last
 * step when the agent was killed); how many, or -errno.
 */
int bc_tracefs_remove_agent(int agent_pid);

#endif
