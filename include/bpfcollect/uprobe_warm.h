/* SPDX-License-Identifier: MIT */
/*
 * Paying the first uprobe registration's RCU grace period in the
 * background while the BPF programs load (user/agent/uprobe_warm.c).
 */
#ifndef BPFCOLLECT_UPROBE_WARM_H
#define BPFCOLLECT_UPROBE_WARM_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BC_UPROBE_WARM_MAX 32 /* probes registered at most (one every few ms of loading) */

struct bc_uprobe_warm {
	pthread_t thread;
	bool started;
	int prog_fd; /* the empty program the warm-up link runs; -1 when none */
	int go[2];   /* closing go[1]: the real probes come now */
	char exe[PATH_MAX];
	uint64_t offset;
	/*
	 * Its links, kept until the end: closing one while a traced process
	 * has return probes pending waits as long as it keeps calling probed
	 * functions, so they go after the return probes (bc_uprobe_warm_free).
	 */
	int links[BC_UPROBE_WARM_MAX];
	size_t n_links;
};

/* Starts the thread; without uprobe_multi links or our own mapping, does nothing. */
void bc_uprobe_warm_start(struct bc_uprobe_warm *w);
/* The real probes come now: the thread stops registering. */
void bc_uprobe_warm_release(struct bc_uprobe_warm *w);
/* Waits for the thread: then w->links are all it made. */
void bc_uprobe_warm_wait(struct bc_uprobe_warm *w);
/* Removes its probes (after the return probes went); safe when it never started, or twice. */
void bc_uprobe_warm_free(struct bc_uprobe_warm *w);

#endif
