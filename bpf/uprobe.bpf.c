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
#include "goroutine.bpf.h"

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

/* Go's register ABI (1.17+): the first integer arguments. */
static __always_inline void read_go_args(struct pt_regs *ctx, __u64 *args)
{
	args[0] = ctx->ax;
	args[1] = ctx->bx;
	args[2] = ctx->cx;
	args[3] = ctx->di;
	args[4] = ctx->si;
	args[5] = ctx->r8;
}

/*
 * A return: from a uretprobe, or from a return site (sp then given as it
 * will be once the ret has run). func_id: the function's, -1 unknown.
 */
static __always_inline int do_return(struct pt_regs *ctx, const bool captures,
				     struct task_state *ts, struct frames *fr, __s64 func_id,
				     __u64 sp, __u64 now)
{
	const struct bc_capture_spec *spec = NULL;
	struct bc_rec_func_return *rec;
	__u64 entry_ktime = 0;
	__u32 depth, id;
	struct scratch *s;

	/*
	 * Frames whose entry sp lies below ours were abandoned by longjmp or
	 * an exception (their returns never come): closed here, so the depth
	 * and the entry times stay right. Not once entries stop: while the
	 * probes detach a return can come with a higher stack pointer than its
	 * frame's (seen: a frame dropped as abandoned whose return this was).
	 */
	depth = fr->depth;
	if (!entries_stopped)
		depth = pop_left(ts, fr, sp, POP_AT_RETURN, now);
	/*
	 * No open frame: the function was entered before this thread was
	 * traced (attached mid-call with -P). A return without its entry
	 * would only unbalance the trace.
	 */
	if (depth == 0) {
		fr->depth = 0;
		return 0;
	}
	/* unknown (see probe_offset): the frame's, uretprobes firing in the order calls return */
	id = func_id >= 0 ? (__u32)func_id
			  : fr->entry_func[(depth - 1) & BC_DEPTH_MASK] & ~FRAME_BY_SITE;
	/*
	 * Once entries stop, calls made since have no frame: the return of one
	 * comes with a stack pointer below the top frame's return point (the
	 * top frame still runs under it), or, for a tail call the top frame
	 * made, at that very point but of another function: it closes nothing.
	 */
	if (entries_stopped &&
	    (sp < fr->entry_sp[(depth - 1) & BC_DEPTH_MASK] + 8 ||
	     (fr->entry_func[(depth - 1) & BC_DEPTH_MASK] & ~FRAME_BY_SITE) != id))
		return 0;
	depth--;
	entry_ktime = fr->entry_ktime[depth & BC_DEPTH_MASK];
	fr->depth = depth;

	if (captures)
		spec = bpf_map_lookup_elem(&capture_specs, &id);
	if (captures && spec && spec->n_return && (s = scratch_get())) {
		rec = (void *)s->buf;
		stream_head(&rec->h, sizeof(*rec), BC_REC_FUNC_RETURN, ts, fr, depth, now);
		rec->func_id = id;
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
	rec = stream_reserve(sizeof(*rec), BC_REC_FUNC_RETURN, BC_LOSS_FUNC, ts, fr, depth, now);
	if (!rec)
		return 0;
	rec->func_id = id;
	rec->cpu = bpf_get_smp_processor_id();
	rec->entry_ktime = entry_ktime;
	rec->retval = PT_REGS_RC(ctx);
	record_submit(rec);
	return 0;
}

/*
 * A function's entry: its frame pushed onto fr (a goroutine's when go) and
 * its record. sp: as the frames keep it.
 */
static __always_inline int push_entry(struct pt_regs *ctx, const bool captures,
				      struct task_state *ts, struct frames *fr, __u64 sp, __u64 now,
				      const bool go)
{
	const struct bc_capture_spec *spec = NULL;
	struct bc_rec_func_entry *rec;
	__u32 depth, func_id;
	struct scratch *s;

	func_id = ts->site.id;
	depth = pop_left(ts, fr, sp, POP_AT_ENTRY, now);
	fr->entry_ktime[depth & BC_DEPTH_MASK] = now;
	fr->entry_sp[depth & BC_DEPTH_MASK] = sp;
	fr->entry_func[depth & BC_DEPTH_MASK] =
		func_id |
		((ts->site.kind & BC_SITE_KIND_MASK) != BC_SITE_ENTRY ? FRAME_BY_SITE : 0);
	fr->depth = depth + 1;

	if (captures)
		spec = bpf_map_lookup_elem(&capture_specs, &func_id);
	if (captures && spec && spec->n_entry && (s = scratch_get())) {
		rec = (void *)s->buf;
		stream_head(&rec->h, sizeof(*rec), BC_REC_FUNC_ENTRY, ts, fr, depth, now);
		rec->func_id = func_id;
		rec->cpu = bpf_get_smp_processor_id();
		rec->sp = PT_REGS_SP(ctx);
		if (go)
			read_go_args(ctx, s->args);
		else
			read_args(ctx, s->args);
		capture_output(s, capture_items_task(s, sizeof(*rec), spec, 0, spec->n_entry),
			       BC_LOSS_FUNC);
		return 0;
	}
	rec = stream_reserve(sizeof(*rec), BC_REC_FUNC_ENTRY, BC_LOSS_FUNC, ts, fr, depth, now);
	if (!rec)
		return 0;
	rec->func_id = func_id;
	rec->cpu = bpf_get_smp_processor_id();
	rec->sp = PT_REGS_SP(ctx);
	record_submit(rec);
	return 0;
}

/*
 * A Go function's entry or exit: its frames are its goroutine's, their
 * stack pointers distances below the goroutine stack's top.
 */
static __always_inline int do_go(struct pt_regs *ctx, const bool captures, struct task_state *ts,
				 __u64 now)
{
	bool exit = (ts->site.kind & BC_SITE_KIND_MASK) == BC_SITE_GO_EXIT;
	struct frames *fr;
	__u64 sp;

	/* once entries stop, a return still closes its frame (do_return) */
	if (!exit && entries_stopped)
		return 0;
	fr = go_frames_of(ctx, ts, ts->site.kind >> BC_SITE_KIND_BITS, !exit);
	if (!fr)
		return 0;
	sp = go_sp(ts, PT_REGS_SP(ctx));
	if (!sp)
		return 0;
	if (exit)
		return do_return(ctx, captures, ts, fr, ts->site.id, sp + 8, now);
	return push_entry(ctx, captures, ts, fr, sp, now, true);
}

/* An entry probe: a function's entry, or one of its return sites. */
static __always_inline int do_entry(struct pt_regs *ctx, const bool captures)
{
	struct task_state *ts;
	__u32 kind;
	__u64 now;

	/* The filter first: unrelated processes running this code pay the least. */
	ts = traced_task_state_ex(true);
	if (!ts || !probe_site(ctx, ts))
		return 0;
	now = bpf_ktime_get_ns();
	kind = ts->site.kind & BC_SITE_KIND_MASK;
	if (kind >= BC_SITE_GO_ENTRY)
		return do_go(ctx, captures, ts, now);
	/* at a ret (or a tail jump) the return address is at sp: sp + 8 once it has run */
	if (kind == BC_SITE_EXIT)
		return do_return(ctx, captures, ts, &ts->fr, ts->site.id, PT_REGS_SP(ctx) + 8, now);
	if (entries_stopped)
		return 0;
	return push_entry(ctx, captures, ts, &ts->fr, PT_REGS_SP(ctx), now, false);
}

/* A uretprobe. */
static __always_inline int on_uretprobe(struct pt_regs *ctx, const bool captures)
{
	struct task_state *ts = traced_task_state_ex(true);

	if (!ts)
		return 0;
	return do_return(ctx, captures, ts, &ts->fr, probe_id(ctx, ts), PT_REGS_SP(ctx),
			 bpf_ktime_get_ns());
}

SEC("uprobe")
int func_entry(struct pt_regs *ctx)
{
	return do_entry(ctx, false);
}

SEC("uretprobe")
int func_return(struct pt_regs *ctx)
{
	return on_uretprobe(ctx, false);
}

SEC("uprobe.s")
int func_entry_cap(struct pt_regs *ctx)
{
	return do_entry(ctx, true);
}

SEC("uretprobe.s")
int func_return_cap(struct pt_regs *ctx)
{
	return on_uretprobe(ctx, true);
}
