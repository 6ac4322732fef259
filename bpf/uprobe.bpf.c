// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One generic entry and one generic return program serve every probed
 * function: the function id travels as the BPF cookie. The agent attaches
 * them through uprobe_multi links (or per-function perf uprobes on kernels
 * without them), setting the expected attach type before load.
 */
#include "common.bpf.h"

SEC("uprobe")
int func_entry(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct bc_rec_func_entry *rec;
	struct task_state *ts;
	__u32 depth;

	ts = traced_task_state();
	if (!ts)
		return 0;
	depth = ts->depth;
	ts->entry_ktime[depth & BC_DEPTH_MASK] = now;
	ts->entry_sp[depth & BC_DEPTH_MASK] = PT_REGS_SP(ctx);
	ts->depth = depth + 1;

	rec = record_reserve(sizeof(*rec), BC_REC_FUNC_ENTRY, BC_LOSS_FUNC, ts, depth, now);
	if (!rec)
		return 0;
	rec->func_id = (__u32)bpf_get_attach_cookie(ctx);
	rec->cpu = bpf_get_smp_processor_id();
	rec->sp = PT_REGS_SP(ctx);
	record_submit(rec);
	return 0;
}

SEC("uretprobe")
int func_return(struct pt_regs *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct bc_rec_func_return *rec;
	__u64 sp = PT_REGS_SP(ctx);
	__u64 entry_ktime = 0;
	struct task_state *ts;
	__u32 depth;

	ts = traced_task_state();
	if (!ts)
		return 0;
	/*
	 * At return the stack pointer is the entry one plus the popped return
	 * address. Frames whose entry sp lies below ours were abandoned by
	 * longjmp or an exception (their uretprobes never fire): drop them so
	 * the depth and the entry times stay right.
	 */
	depth = ts->depth;
	for (int i = 0; i < BC_MAX_DEPTH && depth > 0; i++) {
		if (ts->entry_sp[(depth - 1) & BC_DEPTH_MASK] + 8 >= sp)
			break;
		depth--;
	}
	if (depth > 0) {
		depth--;
		entry_ktime = ts->entry_ktime[depth & BC_DEPTH_MASK];
	}
	ts->depth = depth;

	rec = record_reserve(sizeof(*rec), BC_REC_FUNC_RETURN, BC_LOSS_FUNC, ts, depth, now);
	if (!rec)
		return 0;
	rec->func_id = (__u32)bpf_get_attach_cookie(ctx);
	rec->cpu = bpf_get_smp_processor_id();
	rec->entry_ktime = entry_ktime;
	rec->retval = PT_REGS_RC(ctx);
	record_submit(rec);
	return 0;
}
