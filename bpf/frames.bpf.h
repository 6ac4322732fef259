/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The traced-function frames of a thread or a goroutine (struct frames)
 * and how the stack shows some are over though their return never came:
 * longjmp, an exception, a signal handler leaving by siglongjmp, a Go
 * panic recovered further up. Such a frame is closed with a return record
 * at the first event that shows it, with the time it had, rather than left
 * as "never returned".
 */
#ifndef BPFCOLLECT_FRAMES_BPF_H
#define BPFCOLLECT_FRAMES_BPF_H

#include "common.bpf.h"

/*
 * entry_func's top bit: the frame ends at one of its function's return
 * sites (probes on its ret instructions and tail jumps), never at a
 * uretprobe.
 */
#define FRAME_BY_SITE 0x80000000u
/* Frames closed with a record, at most, per event; deeper ones are dropped. */
#define MAX_CLOSED 8

enum pop_at {
	POP_AT_RETURN, /* sp: the caller's, the return address popped */
	POP_AT_ENTRY,  /* sp: where the new call's return address is */
	POP_AT_EXIT,   /* sp: the thread's, in its exit system call */
};

/* Closes fr's frame at depth (the new depth): a return record at now, no return value. */
static __noinline void close_left(struct task_state *ts, struct frames *fr, __u32 depth, __u64 now)
{
	struct bc_rec_func_return *rec;

	rec = stream_reserve(sizeof(*rec), BC_REC_FUNC_RETURN, BC_LOSS_FUNC, ts, fr, depth, now);
	if (!rec)
		return;
	rec->func_id = fr->entry_func[depth & BC_DEPTH_MASK] & ~FRAME_BY_SITE;
	rec->cpu = bpf_get_smp_processor_id();
	rec->entry_ktime = fr->entry_ktime[depth & BC_DEPTH_MASK];
	rec->retval = 0;
	record_submit(rec);
}

/* The uretprobe trampoline's address in this process: what a hijacked return address is. */
static __noinline __u64 uretprobe_trampoline(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return BPF_CORE_READ(task, mm, uprobes_state.xol_area, vaddr);
}

/*
 * Whether the top frame is over, the stack pointer being sp (see enum
 * pop_at). At an entry, a call made where the frame's own return address
 * was is a new call from its caller's level, unless that slot still holds
 * the uretprobe's trampoline: then the frame made a tail call, and its
 * uretprobe will fire when the callee returns.
 */
static __always_inline bool frame_over(struct task_state *ts, struct frames *fr, __u32 top,
				       __u64 sp, enum pop_at at)
{
	__u64 entry_sp = fr->entry_sp[top];

	if (at != POP_AT_ENTRY)
		return entry_sp + 8 < sp;
	if (sp != entry_sp)
		return sp > entry_sp;
	if (fr->entry_func[top] & FRAME_BY_SITE)
		return true;
	/* the slot, read into the thread's storage: the frame stays small */
	ts->site_key.offset = 0;
	if (bpf_probe_read_user(&ts->site_key.offset, sizeof(__u64), (void *)sp) < 0)
		return false;
	return ts->site_key.offset != uretprobe_trampoline();
}

/* Pops (closing) fr's frames that are over; the new depth. A subprogram: frames stay small. */
static __noinline __u32 pop_left(struct task_state *ts, struct frames *fr, __u64 sp, enum pop_at at,
				 __u64 now)
{
	__u32 depth = fr->depth;

	for (int i = 0; i < BC_MAX_DEPTH && depth > 0; i++) {
		if (!frame_over(ts, fr, (depth - 1) & BC_DEPTH_MASK, sp, at))
			break;
		depth--;
		if (i < MAX_CLOSED)
			close_left(ts, fr, depth, now);
	}
	return depth;
}

#endif
