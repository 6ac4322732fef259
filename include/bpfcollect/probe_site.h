/* SPDX-License-Identifier: MIT */
/*
 * Probes armed in the traced processes alone (user/agent/tree_probes.c):
 * every probe of one object and one program is a probe point of one uprobe
 * trace event, so all of them share the event's one BPF cookie, the
 * event's number. The entry programs tell the probe by its place: the file
 * offset of the address it hit, looked up with the event's number in the
 * probe_sites map, which the agent fills before it arms anything.
 *
 * Shared by bpf/ (vmlinux.h) and user/ (<linux/types.h>).
 */
#ifndef BPFCOLLECT_PROBE_SITE_H
#define BPFCOLLECT_PROBE_SITE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

struct bc_site_key {
	__u32 event; /* the trace event's number, its probes' BPF cookie */
	__u32 pad;
	__u64 offset; /* file offset of the probed instruction */
};

/*
 * What a probe is: a function's entry (its return a uretprobe's), one of
 * its exits (a return site), or the entry of a function that returns at
 * its return sites. A Go function's entry and exits pair per goroutine
 * (bpf/goroutine.bpf.h); their kind carries, above BC_SITE_KIND_BITS, where
 * runtime.g keeps the goroutine id in the function's binary.
 */
enum bc_site_kind {
	BC_SITE_ENTRY = 0,
	BC_SITE_EXIT = 1,
	BC_SITE_ENTRY_EXITS = 2,
	BC_SITE_GO_ENTRY = 3,
	BC_SITE_GO_EXIT = 4,
};

#define BC_SITE_KIND_BITS 8
#define BC_SITE_KIND_MASK ((1u << BC_SITE_KIND_BITS) - 1)

struct bc_site {
	__u32 id;   /* what the cookie carries in the other modes: function id, heap or sync fn */
	__u32 kind; /* enum bc_site_kind, and for Go the goid's offset above BC_SITE_KIND_BITS */
};

/*
 * The other modes: the cookie is the function id and the kind above it
 * (return sites run the entry programs, which must tell them apart).
 */
#define BC_COOKIE_KIND_SHIFT 32

#endif
