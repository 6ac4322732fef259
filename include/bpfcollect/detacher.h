/* SPDX-License-Identifier: MIT */
/*
 * The detacher: a small process that holds a second reference to every
 * uprobe link of a recording, so that an agent killed outright (SIGKILL,
 * the OOM killer) is gone at once and the probes still go away in the
 * safe order.
 *
 * Why: releasing a uprobe link waits for an SRCU grace period that the
 * pending instances of return probes hold; the kernel ends those leases
 * on a timer that every new return-probe hit of the task pushes back. An
 * agent detaches every return link at once, then the rest, and that
 * finishes. A killed agent's links are released by the kernel one by one
 * in its exit, an entry link or one return link among others first: that
 * release waits as long as the traced process keeps calling probed
 * functions, with the agent in D state and every other uprobe detach on
 * the machine waiting behind it.
 *
 * With the detacher holding references, the killed agent's releases are
 * not the last ones and return at once. The detacher sees the agent's end
 * (its socket closes), stops the entry programs from recording
 * (entries_stopped), closes every return link at once, then the others,
 * and exits. A recording that ends normally tells it to let go first, and
 * detaches as before (docs/reliability.md).
 */
#ifndef BPFCOLLECT_DETACHER_H
#define BPFCOLLECT_DETACHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bc_detacher {
	pid_t pid; /* 0: none running */
	int sock;  /* -1: none */
};

/*
 * Starts the detacher. entries_stopped: the programs' flag; self: where
 * they read the detacher's pid, not to trace it under -a (both in their
 * mmapped .bss, shared with the detacher across fork). 0 or -errno: the
 * recording goes on without one.
 */
int bc_detacher_start(struct bc_detacher *d, volatile uint32_t *entries_stopped,
		      volatile uint32_t *self);

/* Hands it references to links: returns true for return-probe links. 0 or -errno. */
int bc_detacher_hand(struct bc_detacher *d, const int *fds, size_t n, bool returns);

/* The agent detaches itself: the detacher drops its references and exits. Idempotent. */
void bc_detacher_release(struct bc_detacher *d);

/*
 * The agent goes without waiting for the detach: the detacher takes the
 * links away in the safe order, as for a killed agent, in the background;
 * the agent's own references are no longer the last ones, so dropping
 * them returns at once. For links that take a grace period each to go.
 * Idempotent.
 */
void bc_detacher_leave(struct bc_detacher *d);

#endif /* BPFCOLLECT_DETACHER_H */
