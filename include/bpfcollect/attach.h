/* SPDX-License-Identifier: MIT */
/* Attaching the generic entry/return programs to every function of the table. */
#ifndef BPFCOLLECT_ATTACH_H
#define BPFCOLLECT_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/model.h"

struct bpf_program;
struct bpf_link;

/*
 * Where the kernel arms the probes (docs/design.md, "Safety"):
 * - BC_ARM_MULTI: uprobe_multi links, one per object, kind and program, in
 *   every process, or in one process alone (bc_attach_progs.pid);
 * - BC_ARM_PERF: one perf uprobe per function and kind (kernels without
 *   uprobe_multi), likewise everywhere or in one process;
 * - BC_ARM_TREE: uprobe trace events kept to the traced processes and the
 *   children they fork (bpfcollect/tree_probes.h); the entry programs tell
 *   their function by its place (bpfcollect/probe_site.h).
 */
enum bc_arm_mode {
	BC_ARM_MULTI,
	BC_ARM_PERF,
	BC_ARM_TREE,
};

/* BC_ARM_TREE: where the trace events go, and who arms them. */
struct bc_arm_tree {
	int tracefs_fd;	       /* our tracefs (bpfcollect/tracefs.h) */
	int sites_fd;	       /* the probe_sites map */
	const uint32_t *roots; /* the traced processes: each of their threads */
	size_t n_roots;
	bool inherit; /* and the children they fork (-F on) */
};

struct bc_attachment {
	/*
	 * uprobe_multi links, one per object and kind: [0] entry, [1] return
	 * and exits. BC_ARM_TREE: [1] every keeper, [0] every program's event.
	 */
	int *link_fds[2];
	size_t n_link_fds[2];
	/* fallback: one perf uprobe per function and kind */
	struct bpf_link **links[2];
	size_t n_links[2];
	size_t n_probes; /* functions probed (entry and return count once) */
	/* BC_ARM_TREE: the trace events made (named g0, g1, ...), removed at detach */
	uint32_t n_events;
	int tracefs_fd; /* our own copy, when has_tracefs */
	bool has_tracefs;
};

/* The programs serving functions without and with captures (--arg, --retval). */
struct bc_attach_progs {
	struct bpf_program *entry;
	struct bpf_program *ret;
	struct bpf_program *entry_cap; /* sleepable: captured strings are faulted in */
	struct bpf_program *ret_cap;
	/*
	 * > 0: the probes exist for this process alone (its threads, not its
	 * children): the kernel installs no breakpoint anywhere else, so other
	 * processes running the probed code pay nothing. 0: every process.
	 */
	int pid;
	/* ids (< 64) whose functions get an entry probe only: bit id set */
	uint64_t entry_only;
	enum bc_arm_mode mode;
	const struct bc_arm_tree *tree; /* BC_ARM_TREE */
};

/*
 * Attaches entry and return to every function of funcs: a function with
 * entry captures gets entry_cap, one with a return capture ret_cap, armed
 * as progs->mode says. BC_ARM_MULTI needs the programs loaded with the
 * uprobe_multi expected attach type, the others without. On error
 * everything attached so far is detached and err holds one line.
 */
int bc_attach_functions(const struct bc_attach_progs *progs, const struct bc_functab *funcs,
			struct bc_attachment *att, char *err, size_t errlen);

/*
 * The same for another set of functions and programs, into the same
 * attachment, so that one bc_detach_functions() takes every return probe
 * away before any entry probe. On error only this set's links are gone.
 */
int bc_attach_more(const struct bc_attach_progs *progs, const struct bc_functab *funcs,
		   struct bc_attachment *att, char *err, size_t errlen);

/*
 * Detaches everything. Return probes go first, all at once: each detach
 * waits for an SRCU grace period that the return probes' pending instances
 * hold up, and a traced process that keeps calling probed functions keeps
 * making new ones, so detaching an entry link (or one return link) while
 * other return links live can wait forever. Then the trace events go, if
 * nothing else holds them (the detacher's copies: the next recording's
 * sweep removes those).
 */
void bc_detach_functions(struct bc_attachment *att);

#endif
