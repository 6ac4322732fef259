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

struct bc_attachment {
	/* uprobe_multi links, one per object and kind: [0] entry, [1] return */
	int *link_fds[2];
	size_t n_link_fds[2];
	/* fallback: one perf uprobe per function and kind */
	struct bpf_link **links[2];
	size_t n_links[2];
	size_t n_probes; /* functions probed (entry and return count once) */
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
};

/*
 * Attaches entry and return to every function of funcs: a function with
 * entry captures gets entry_cap, one with a return capture ret_cap. With
 * use_multi the programs must have been loaded with the uprobe_multi expected
 * attach type (one link per object, kind and program); otherwise
 * per-function perf uprobes carry the cookie. On error everything attached so
 * far is detached and err holds one line.
 */
int bc_attach_functions(const struct bc_attach_progs *progs, const struct bc_functab *funcs,
			bool use_multi, struct bc_attachment *att, char *err, size_t errlen);

/*
 * The same for another set of functions and programs, into the same
 * attachment, so that one bc_detach_functions() takes every return probe
 * away before any entry probe. On error only this set's links are gone.
 */
int bc_attach_more(const struct bc_attach_progs *progs, const struct bc_functab *funcs,
		   bool use_multi, struct bc_attachment *att, char *err, size_t errlen);

/*
 * Detaches everything. Return probes go first, all at once: each detach
 * waits for an SRCU grace period that the return probes' pending instances
 * hold up, and a traced process that keeps calling probed functions keeps
 * making new ones, so detaching an entry link (or one return link) while
 * other return links live can wait forever.
 */
void bc_detach_functions(struct bc_attachment *att);

#endif
