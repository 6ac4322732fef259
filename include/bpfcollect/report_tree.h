/* SPDX-License-Identifier: MIT */
/*
 * The call-tree engine behind three report views:
 *
 *   calltree              the call tree merged over threads (uftrace graph,
 *                         gprofng -calltree)
 *   callers-callees FUNC  who calls FUNC and whom it calls (gprofng
 *                         -callers-callees, uftrace graph's callers)
 *   threads               one line per thread
 *
 * A sink (bc_calltree_sink) keeps a shadow stack per thread (shadow_stack.h,
 * the rules of report.h: which return closes which entry, dropped frames,
 * recursion) and builds one tree of call paths for all threads: a node is a
 * path of traced functions from a frame with no traced caller down to one
 * function, with the frames that ran at that path summed. Threads are merged
 * because the tree is a profile of the program, not of one thread; the
 * threads view shows how the work is spread.
 *
 * Times:
 *  - a node's inclusive time is the sum of its frames' (return ktime -
 *    entry ktime); its exclusive time subtracts the traced callees; frames
 *    whose return never came count as calls, not time;
 *  - in callers-callees, the time attributed to an edge P -> C is the
 *    inclusive time of C's frames called from P, counted only for frames
 *    that are the outermost of C on their thread, as the functions view
 *    counts inclusive time. Calls of a function already active below
 *    (recursion) add calls to their edge but no time. So, for FUNC, the
 *    callers' times sum to FUNC's inclusive time, and (without indirect
 *    recursion through another function) FUNC's exclusive time plus its
 *    callees' times sum to it too. Frames with no traced caller have the
 *    caller "<root>".
 *
 * The sink belongs to the tree: free everything with bc_calltree_free();
 * bc_sink_destroy() on the sink is a no-op. Pointers returned by the
 * accessors stay valid until the next event is fed or the tree is freed.
 */
#ifndef BPFCOLLECT_REPORT_TREE_H
#define BPFCOLLECT_REPORT_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpfcollect/model.h"

struct bc_calltree; /* opaque */

/* One call path. */
struct bc_tree_node {
	uint32_t func_id;
	const char *name;   /* symbol name, or "<unknown id N>" */
	const char *object; /* load object path; "" when unknown */
	size_t depth;	    /* 1 for functions with no traced caller */
	uint64_t calls;	    /* frames entered at this path */
	uint64_t returns;   /* of them, closed by their return: timed */
	uint64_t incl_ns;   /* sum over the returned frames */
	uint64_t excl_ns;   /* sum over the returned frames */
	bool recursive;	    /* the function is also on the path above */
};

struct bc_tree_thread {
	uint32_t pid;
	uint32_t tid;
	char comm[BC_COMM_LEN]; /* last name seen (fork, exec, exit record); "" */
	uint64_t events;	/* records this thread wrote */
	uint64_t func_calls;	/* FUNC_ENTRY records */
	uint64_t syscalls;	/* SYS_ENTER records */
	uint64_t first_ktime;	/* 0 if only known from a fork/clone record */
	uint64_t last_ktime;
	uint64_t traced_ns;	/* inclusive time of its frames with no traced caller */
	uint64_t traced_frames; /* frames summed in traced_ns */
};

struct bc_calltree_totals {
	uint64_t func_entries;
	uint64_t incomplete;	 /* frames whose return never came */
	uint64_t open_at_detach; /* frames still running when the recording ended */
	uint64_t orphan_returns; /* returns without an open entry */
	uint64_t lost_func;	 /* function events lost (LOST records, session end) */
};

struct bc_calltree *bc_calltree_new(void);
void bc_calltree_free(struct bc_calltree *t);
/* The building sink; borrowed, valid until bc_calltree_free(). */
struct bc_sink *bc_calltree_sink(struct bc_calltree *t);

const struct bc_calltree_totals *bc_calltree_totals(const struct bc_calltree *t);

/* The node at path[0] -> path[1] -> ... (func ids, outermost first); NULL if none. */
const struct bc_tree_node *bc_calltree_node(const struct bc_calltree *t, const uint32_t *path,
					    size_t n);
/* Call paths in the tree (not counting its root). */
size_t bc_calltree_nnodes(const struct bc_calltree *t);

/* The tree's root: no function, depth 0, every path starts below it. */
const struct bc_tree_node *bc_calltree_root(const struct bc_calltree *t);
/* node's children, in no particular order, into a malloc'ed *v. -ENOMEM. */
int bc_calltree_children(const struct bc_calltree *t, const struct bc_tree_node *node,
			 const struct bc_tree_node ***v, size_t *n);

/* Functions called, in first-seen order. */
size_t bc_calltree_nfuncs(const struct bc_calltree *t);
/* The name of the i-th, its id in *func_id; NULL past the end. */
const char *bc_calltree_func_at(const struct bc_calltree *t, size_t i, uint32_t *func_id);

/* Threads, in first-seen order; one per (pid, tid). */
size_t bc_calltree_nthreads(const struct bc_calltree *t);
const struct bc_tree_thread *bc_calltree_thread_at(const struct bc_calltree *t, size_t i);
const struct bc_tree_thread *bc_calltree_thread(const struct bc_calltree *t, uint32_t pid,
						uint32_t tid);
/* What relative times count from: the session start, else the first event. */
uint64_t bc_calltree_start_ktime(const struct bc_calltree *t);

/* One caller or callee line of callers-callees (see the top comment). */
struct bc_cc_edge {
	uint32_t func_id;   /* undefined for <root> */
	const char *name;   /* "<root>" for frames with no traced caller */
	bool root;	    /* the <root> pseudo caller */
	uint64_t calls;	    /* calls of the callee along this edge */
	uint64_t recursive; /* of them, calls of an already active function */
	uint64_t timed;	    /* frames whose inclusive time is in time_ns */
	uint64_t time_ns;   /* attributed time */
};

struct bc_callers_callees {
	uint32_t func_id;
	const char *name;
	const char *object;
	uint64_t calls;		    /* as in the functions view (struct bc_func_stats) */
	uint64_t returns;	    /* frames summed in excl_ns */
	uint64_t excl_ns;	    /* every returned frame */
	uint64_t incl_ns;	    /* outermost frames only */
	uint64_t incl_frames;	    /* frames summed in incl_ns */
	struct bc_cc_edge *callers; /* by time, then calls (descending), then name */
	size_t ncallers;
	struct bc_cc_edge *callees; /* same order */
	size_t ncallees;
};

/* Fills cc for func_id; -ENOENT if it was never called, -ENOMEM. Free with the next. */
int bc_calltree_callers_callees(const struct bc_calltree *t, uint32_t func_id,
				struct bc_callers_callees *cc);
void bc_callers_callees_free(struct bc_callers_callees *cc);

/* ---------------------------------------------------------------- printing */

/* The deepest level of the call tree printed; what lies below is one line. */
#define BC_CALLTREE_DEPTH_SHOWN 32

/*
 * `calltree`: one line per node, Total (inclusive time), Calls, Name
 * indented with "+-" and "| " as gprofng's -calltree; children by inclusive
 * time, then calls (descending), then name. At most `per_level` children
 * of each node (0: all), the rest summed on one "(N more)" line (unless
 * N would be 1: then that node is shown). Levels down to
 * BC_CALLTREE_DEPTH_SHOWN; below a node there, one line "(N deeper levels
 * folded)" with its children's time and calls (indentation grows with
 * depth: deep recursion would make the output grow with its square). Then
 * notes about dropped frames, orphan returns and lost events. -errno.
 */
int bc_calltree_print(const struct bc_calltree *t, FILE *out, size_t per_level);

/*
 * `callers-callees GLOB`: for each function whose name matches GLOB
 * (fnmatch), by inclusive time: a title line (calls, inclusive, exclusive
 * time, object), then the callers, the "*NAME" line with the function's
 * exclusive time, and the callees, each with its attributed time and calls.
 * -errno; a GLOB matching nothing prints a line saying so.
 */
int bc_calltree_print_callers_callees(const struct bc_calltree *t, FILE *out, const char *glob);

/*
 * `threads`: one line per thread sorted by pid then tid: PID, TID, Events,
 * Calls, Syscalls, First and Last (seconds since start_ktime), Lifetime
 * (last - first), In functions (traced_ns), Command (last, "-" unknown).
 * "-" marks what was never measured. Then a totals line. -errno.
 */
int bc_calltree_print_threads(const struct bc_calltree *t, FILE *out);

#endif /* BPFCOLLECT_REPORT_TREE_H */
