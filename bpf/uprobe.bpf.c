// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One generic entry and one generic return program serve every probed
 * function: the function id travels as the BPF cookie. The agent attaches
 * them through uprobe_multi links (or per-function perf uprobes on kernels
 * without them), setting the expected attach type before load.
 *
 * Functions with --arg/--retval captures get the *_cap variants instead:
 * sleepable, so captured strings are faulted in (see capture.bpf.h). The
 * plain programs never look at captures and stay as cheap as they can be.
 */
#include "capture.bpf.h"

/* What to capture, per function id; the agent sizes and fills it (--arg, --retval). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bc_capture_spec);
} capture_specs SEC(".maps");

/* SysV x86-64 integer argument registers (libbpf 1.1 has no PT_REGS_PARM6). */
static __always_inline void read_args(struct pt_regs *ctx, __u64 *args)
{
	args[0] = ctx->di;
	args[1] = ctx->si;
	args[2] = ctx->dx;
	args[3] = ctx->cx;
	args[4] = ctx->r8;
	args[5] = ctx->r9;
}

static __always_inline int do_entry(struct pt_regs *ctx, const bool captures)
{
	const struct bc_capture_spec *spec = NULL;
	struct bc_rec_func_entry *rec;
	struct task_state *ts;
	__u32 depth, func_id;
	struct scratch *s;
	__s64 id;
	__u64 now;

	if (entries_stopped)
		return 0;
	/* The filter first: unrelated processes running this code pay the least. */
	ts = traced_task_state_ex(true);
	if (!ts)
		return 0;
	now = bpf_ktime_get_ns();
	id = probe_id(ctx);
	if (id < 0)
		return 0;
	func_id = (__u32)id;
	depth = ts->depth;
	ts->entry_ktime[depth & BC_DEPTH_MASK] = now;
	ts->entry_sp[depth & BC_DEPTH_MASK] = PT_REGS_SP(ctx);
	ts->entry_func[depth & BC_DEPTH_MASK] = func_id;
	ts->depth = depth + 1;

	if (captures)
		spec = bpf_map_lookup_elem(&capture_specs, &func_id);
	if (captures && spec && spec->n_entry && (s = scratch_get())) {
		rec = (void *)s->buf;
		record_head(&rec->h, sizeof(*rec), BC_REC_FUNC_ENTRY, ts, depth, now);
		rec->func_id = func_id;
		rec->cpu = bpf_get_smp_processor_id();
		rec->sp = PT_REGS_SP(ctx);
		read_args(ctx, s->args);
		capture_output(s, capture_items_task(s, sizeof(*rec), spec, 0, spec->n_entry),
			       BC_LOSS_FUNC);
		return 0;
	}
	rec = record_reserve(sizeof(*rec), BC_REC_FUNC_ENTRY, BC_LOSS_FUNC, ts, depth, now);
	if (!rec)
		return 0;
	rec->func_id = func_id;
	rec->cpu = bpf_get_smp_processor_id();
	rec->sp = PT_REGS_SP(ctx);
	record_submit(rec);
	return 0;
}

static __always_inline int do_return(struct pt_regs *ctx, const bool captures)
{
	const struct bc_capture_spec *spec = NULL;
	struct bc_rec_func_return *rec;
	__u64 sp = PT_REGS_SP(ctx);
	__u64 entry_ktime = 0;
	struct task_state *ts;
	__u32 depth, func_id;
	struct scratch *s;
	__u64 now;

	ts = traced_task_state_ex(true);
	if (!ts)
		return 0;
	now = bpf_ktime_get_ns();
	/*
	 * At return the stack pointer is the entry one plus the popped return
	 * address. Frames whose entry sp lies below ours were abandoned by
	 * longjmp or an exception (their uretprobes never fire): drop them so
	 * the depth and the entry times stay right. Not once entries stop:
	 * while the probes detach a return can come with a higher stack
	 * pointer than its frame's (seen: a frame dropped as abandoned whose
	 * return this was).
	 */
	depth = ts->depth;
	for (int i = 0; i < BC_MAX_DEPTH && depth > 0 && !entries_stopped; i++) {
		if (ts->entry_sp[(depth - 1) & BC_DEPTH_MASK] + 8 >= sp)
			break;
		depth--;
	}
	/*
	 * No open frame: the function was entered before this thread was
	 * traced (attached mid-call with -P). A return without its entry
	 * would only unbalance the trace.
	 */
	if (depth == 0) {
		ts->depth = 0;
		return 0;
	}
	/*
	 * In the tree mode the return probe tells its function by its place;
	 * where it cannot (see probe_offset), its frame does: uretprobes fire
	 * in the order the calls return.
	 */
	if (sites_by_offset) {
		__s64 id = probe_id(ctx);

		func_id = id >= 0 ? (__u32)id : ts->entry_func[(depth - 1) & BC_DEPTH_MASK];
	} else {
		func_id = (__u32)bpf_get_attach_cookie(ctx);
	}
	/*
	 * Once entries stop, calls made since have no frame: the return of one
	 * comes with a stack pointer below the top frame's return point (the
	 * top frame still runs under it), or, for a tail call the top frame
	 * made, at that very point but of another function: it closes nothing.
	 */
	if (entries_stopped && (sp < ts->entry_sp[(depth - 1) & BC_DEPTH_MASK] + 8 ||
				ts->entry_func[(depth - 1) & BC_DEPTH_MASK] != func_id))
		return 0;
	depth--;
	entry_ktime = ts->entry_ktime[depth & BC_DEPTH_MASK];
	ts->depth = depth;

	if (captures)
		spec = bpf_map_lookup_elem(&capture_specs, &func_id);
	if (captures && spec && spec->n_return && (s = scratch_get())) {
		rec = (void *)s->buf;
		record_head(&rec->h, sizeof(*rec), BC_REC_FUNC_RETURN, ts, depth, now);
		rec->func_id = func_id;
		rec->cpu = bpf_get_smp_processor_id();
		rec->entry_ktime = entry_ktime;
		rec->retval = PT_REGS_RC(ctx);
		/* the registers no longer hold the arguments at return */
		for (int i = 0; i < BC_MAX_ARG_REGS; i++)
			s->args[i] = 0;
		s->retval = PT_REGS_RC(ctx);
		capture_output(
			s, capture_items_task(s, sizeof(*rec), spec, spec->n_entry, spec->n_return),
			BC_LOSS_FUNC);
		return 0;
	}
	rec = record_reserve(sizeof(*rec), BC_REC_FUNC_RETURN, BC_LOSS_FUNC, ts, depth, now);
	if (!rec)
		return 0;
	rec->func_id = func_id;
	rec->cpu = bpf_get_smp_processor_id();
	rec->entry_ktime = entry_ktime;
	rec->retval = PT_REGS_RC(ctx);
	record_submit(rec);
	return 0;
}

SEC("uprobe")
int func_entry(struct pt_regs *ctx)
{
	return do_entry(ctx, false);
}

SEC("uretprobe")
int func_return(struct pt_regs *ctx)
{
	return do_return(ctx, false);
}

SEC("uprobe.s")
int func_entry_cap(struct pt_regs *ctx)
{
	return do_entry(ctx, true);
}

SEC("uretprobe.s")
int func_return_cap(struct pt_regs *ctx)
{
	return do_return(ctx, true);
}
