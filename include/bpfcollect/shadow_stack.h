/* SPDX-License-Identifier: MIT */
/*
 * The shadow call stack of one traced thread, shared by the aggregating
 * sinks (report.c, report_tree.c) so that they agree on what a call is:
 * which return closes which entry, what the inclusive and exclusive times
 * of a frame are, which frames never returned, and which frame is the
 * outermost of its function (recursion). The rules are those described in
 * include/bpfcollect/report.h.
 */
#ifndef BPFCOLLECT_SHADOW_STACK_H
#define BPFCOLLECT_SHADOW_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/containers.h"

struct bc_frame {
	uint32_t func_id;
	uint32_t tag; /* the user's: an index into its own tables */
	uint64_t entry_ktime;
	uint64_t child_ns; /* inclusive time of traced callees that returned */
	/*
	 * Inclusive time of frames of the same function that returned inside
	 * it (recursion), not counted as inclusive since this one was open:
	 * what its function's inclusive time lacks if this frame never returns
	 * (a lost return), where their exclusive time was counted. Set on the
	 * outermost frame of the function when it is dropped.
	 */
	uint64_t nested_incl_ns;
	bool outermost; /* when dropped: no other frame of its function open below it */
};

/* Zero-initialised is empty; free with bc_stack_free(). */
struct bc_shadow_stack {
	struct bc_frame *frames; /* frames[depth - 1] is the top */
	size_t depth;
	size_t cap;
	struct bc_idmap active; /* func_id -> frames of it open, to spot recursion */
};

/* A frame closed by its return. */
struct bc_frame_return {
	struct bc_frame frame;
	uint64_t incl_ns; /* return ktime - entry ktime, 0 if the clock went back */
	uint64_t excl_ns; /* incl_ns - frame.child_ns, clamped at 0 */
	bool outermost;	  /* no other frame of the function is open below it */
};

/* Told about each frame whose return never came, as it is dropped. */
typedef void (*bc_frame_drop_fn)(void *ctx, const struct bc_frame *f);

void bc_stack_free(struct bc_shadow_stack *s);

/* How many frames of func_id are open. */
uint32_t bc_stack_open(const struct bc_shadow_stack *s, uint32_t func_id);

/* The top frame, or NULL when the stack is empty. */
static inline const struct bc_frame *bc_stack_top(const struct bc_shadow_stack *s)
{
	return s->depth ? &s->frames[s->depth - 1] : NULL;
}

/* Opens a frame of func_id entered at ktime. -ENOMEM, stack intact. */
int bc_stack_push(struct bc_shadow_stack *s, uint32_t func_id, uint32_t tag, uint64_t ktime);

/*
 * A return of func_id at ktime (entry_ktime: the entry time the BPF side
 * saw, 0 if none). Closes the frame it matches (see report.h), dropping the
 * frames above it first (dropped() is called for each, top first, when not
 * NULL), fills *ret and adds the frame's inclusive time to its caller's
 * child_ns. -ENOENT when no open frame matches: the stack is left alone.
 */
int bc_stack_return(struct bc_shadow_stack *s, uint32_t func_id, uint64_t entry_ktime,
		    uint64_t ktime, bc_frame_drop_fn dropped, void *ctx,
		    struct bc_frame_return *ret);

/* Drops every open frame, top first (thread exit, exec, end of recording). */
void bc_stack_drop_all(struct bc_shadow_stack *s, bc_frame_drop_fn dropped, void *ctx);

#endif /* BPFCOLLECT_SHADOW_STACK_H */
