/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A Go function's frames belong to its goroutine, not to the thread that
 * runs it: goroutines move between threads, and a thread runs many. So Go
 * probes (return sites only: Go reads every return address, a uretprobe
 * would kill it) keep their frames per process and runtime.g, which Go's
 * register ABI (1.17+) keeps in R14 at every entry and return.
 *
 * A goroutine's stack moves when it grows (copied whole to a new place):
 * stack pointers are kept as distances below the stack's top, g.stack.hi,
 * so the frames stay right. A g reused for a new goroutine (another goid)
 * starts with no frames.
 */
#ifndef BPFCOLLECT_GOROUTINE_BPF_H
#define BPFCOLLECT_GOROUTINE_BPF_H

#include "frames.bpf.h"

/* Where a stack pointer kept as a distance below g.stack.hi counts from: far above any. */
#define GO_SP_TOP (1ULL << 62)
/* runtime.g starts with its stack: {lo, hi} */
#define GO_STACK_HI_OFFSET 8

/*
 * Frames per goroutine seen. Not preallocated: each is 2.6 KiB. Entries of
 * goroutines that ended are reused when their g is, and all go with the
 * recording; a goroutine past the limit is not traced (its calls lost).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct go_key);
	__type(value, struct frames);
} go_frames SEC(".maps") __weak;

/* All zero: what a new goroutine's frames start from (too big for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct frames);
} go_blank SEC(".maps") __weak;

/*
 * The frames of the goroutine running this Go probe, created at an entry
 * (create), NULL when there are none or g cannot be read. goid_offset:
 * where runtime.g keeps the goroutine id in this binary. Into ts->go_read:
 * [0] the goid, [1] g.stack.hi.
 */
static __noinline struct frames *go_frames_of(struct pt_regs *ctx, struct task_state *ts,
					      __u32 goid_offset, bool create)
{
	struct frames *fr;
	__u32 zero = 0;

	ts->go_key.tgid = bpf_get_current_pid_tgid() >> 32;
	ts->go_key.pad = 0;
	ts->go_key.g = ctx->r14;
	if (!ts->go_key.g ||
	    bpf_probe_read_user(&ts->go_read[0], sizeof(__u64),
				(void *)(ts->go_key.g + goid_offset)) < 0 ||
	    bpf_probe_read_user(&ts->go_read[1], sizeof(__u64),
				(void *)(ts->go_key.g + GO_STACK_HI_OFFSET)) < 0)
		return NULL;
	fr = bpf_map_lookup_elem(&go_frames, &ts->go_key);
	if (!fr && create) {
		fr = bpf_map_lookup_elem(&go_blank, &zero);
		if (!fr || bpf_map_update_elem(&go_frames, &ts->go_key, fr, BPF_NOEXIST) < 0) {
			count_lost(BC_LOSS_FUNC);
			return NULL;
		}
		fr = bpf_map_lookup_elem(&go_frames, &ts->go_key);
	}
	if (!fr)
		return NULL;
	if (fr->goid != ts->go_read[0] || !fr->tid) {
		/* a new goroutine on this g: its own frames and sequence */
		fr->goid = ts->go_read[0];
		fr->tid = BC_GOROUTINE_TID_BASE + (__u32)ts->go_read[0];
		fr->seq = 0;
		fr->depth = 0;
	}
	return fr;
}

/* sp as a distance below the goroutine's stack top (see above); 0 when outside it. */
static __always_inline __u64 go_sp(struct task_state *ts, __u64 sp)
{
	__u64 hi = ts->go_read[1];

	return sp <= hi && hi - sp < GO_SP_TOP ? GO_SP_TOP - (hi - sp) : 0;
}

#endif
