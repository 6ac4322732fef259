/* SPDX-License-Identifier: MIT */
/*
 * Call stacks as paths of named functions, for the sinks that show stacks
 * (chrome's stack frames, folded's flame graph lines). A PC is named as
 * the reports and gprofng name it (bpfcollect/pcname.h), through the
 * mapping its process has at that moment in the stream's state (so a live
 * recording and its conversion name it alike) and the archived copy of
 * the file when an experiment is given. Each distinct path is a node of
 * one trie: a node is its caller's node plus one function, so a stack is
 * kept as a single number and a path's name is built once, at the end.
 */
#ifndef BPFCOLLECT_STACK_NAMES_H
#define BPFCOLLECT_STACK_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "bpfcollect/containers.h"
#include "bpfcollect/pcname.h"

struct bc_state;

/* The trie's root: the empty path. */
#define BC_STACK_ROOT 0u

struct bc_stack_node {
	uint32_t parent; /* BC_STACK_ROOT for an outermost frame */
	uint32_t fn;	 /* into bc_stack_names.fns */
	/*
	 * A hash of the path's names: the same path has the same id whatever
	 * order the stacks came in (a live recording, its conversion).
	 */
	uint64_t id;
};

/* Zero it, then set state (and exp); free with bc_stack_names_free(). */
struct bc_stack_names {
	const struct bc_state *state; /* whose mappings name user PCs; NULL: none named */
	const char *exp;	      /* the experiment whose archives/ and kallmodsyms to use */
	struct bc_pcnamer namer;
	struct bc_ksyms ks;
	bool ks_read;
	struct bc_fnindex fns;	     /* (name, object) of every function named */
	struct bc_stack_node *nodes; /* nodes[0] is the root */
	size_t n_nodes, cap_nodes;
	struct bc_idmap children; /* parent << 32 | fn -> node */
};

void bc_stack_names_free(struct bc_stack_names *sn);

/* The function (name, object) as its index; -ENOMEM. */
int bc_stack_fn(struct bc_stack_names *sn, const char *name, const char *object);
/* The node of parent's path plus fn; -ENOMEM. */
int bc_stack_child(struct bc_stack_names *sn, uint32_t parent, uint32_t fn);

/*
 * The node of a recorded stack of pid at when: ips[0..n) leaf first, the
 * kernel's n_kernel frames before the user's. The leaf is named at its pc,
 * callers at pc - 1 (a call that ends a function stays in it); frames in a
 * PLT stub or in no kernel function are left out, as gprofng leaves them.
 * root is the node the path hangs from (BC_STACK_ROOT, or a process's own
 * node). Returns the node, or -ENOMEM.
 */
int bc_stack_of(struct bc_stack_names *sn, uint32_t root, uint32_t pid, uint64_t when,
		const __u64 *ips, size_t n, size_t n_kernel);

static inline const struct bc_fnkey *bc_stack_node_fn(const struct bc_stack_names *sn,
						      uint32_t node)
{
	return &sn->fns.v[sn->nodes[node].fn];
}

/* Whether a function is the kernel's (its object is vmlinux or a module). */
bool bc_stack_fn_is_kernel(const struct bc_fnkey *fn);

#endif /* BPFCOLLECT_STACK_NAMES_H */
