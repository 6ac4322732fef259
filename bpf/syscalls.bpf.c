// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Raw syscall entry/exit of traced processes, filtered by a per-syscall table. */
#include "capture.bpf.h"
#include "mapping.bpf.h"

#define BC_SYSCALL_SLOTS 512

/* 1 for every syscall number to record; the agent fills it (--syscalls=LIST). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BC_SYSCALL_SLOTS);
	__type(key, __u32);
	__type(value, __u8);
} syscall_filter SEC(".maps");

/* Strings to capture at entry, per syscall number (path arguments); the agent fills it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BC_SYSCALL_SLOTS);
	__type(key, __u32);
	__type(value, struct bc_capture_spec);
} syscall_captures SEC(".maps");

static __always_inline bool syscall_wanted(long nr)
{
	__u32 key = (__u32)nr;
	__u8 *on;

	if (nr < 0 || nr >= BC_SYSCALL_SLOTS)
		return false;
	on = bpf_map_lookup_elem(&syscall_filter, &key);
	return on && *on;
}

/* x86-64 numbers of the calls that do not return (exit, exit_group) or replace the image. */
#define NR_EXECVE     59
#define NR_EXIT	      60
#define NR_EXIT_GROUP 231
#define NR_EXECVEAT   322

/*
 * Whether a call's entry can wait for its exit and both go in one record:
 * not when it never returns, nor when an exec replaces the image in
 * between (its exit belongs to the new one).
 */
static __always_inline bool returns_here(long nr)
{
	return nr != NR_EXIT && nr != NR_EXIT_GROUP && nr != NR_EXECVE && nr != NR_EXECVEAT;
}

static __always_inline void fill_enter(struct bc_rec_sys_enter *rec, long nr, const __u64 *args)
{
	rec->nr = (__u32)nr;
	rec->cpu = bpf_get_smp_processor_id();
	for (int i = 0; i < BC_MAX_ARG_REGS; i++)
		rec->args[i] = args[i];
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long nr)
{
	const struct bc_capture_spec *spec;
	__u64 args[BC_MAX_ARG_REGS];
	struct bc_rec_sys_enter *rec;
	struct task_state *ts;
	struct scratch *s;
	__u32 key = (__u32)nr;
	__u64 now;

	if (!syscall_wanted(nr))
		return 0;
	ts = traced_task_state();
	if (!ts)
		return 0;
	/*
	 * A call whose exit never named it (rt_sigreturn: its exit sees the
	 * interrupted context's registers, orig_ax -1): its entry, before this
	 * call's takes its place.
	 */
	if (ts->sys.deferred)
		flush_deferred_call(ts);
	now = bpf_ktime_get_ns();
	ts->sys.nr = (__u32)nr;
	ts->sys.enter_ktime = now;
	ts->sys.retry_mask = 0;
	ts->sys.deferred = 0;
	args[0] = regs->di;
	args[1] = regs->si;
	args[2] = regs->dx;
	args[3] = regs->r10;
	args[4] = regs->r8;
	args[5] = regs->r9;

	spec = bpf_map_lookup_elem(&syscall_captures, &key);
	if ((!spec || !spec->n_entry) && returns_here(nr)) {
		/* nothing to read now: the exit writes the call whole */
		ts->sys.deferred = 1;
		ts->sys.cpu = bpf_get_smp_processor_id();
		ts->sys.depth = ts->fr.depth;
		for (int i = 0; i < BC_MAX_ARG_REGS; i++)
			ts->sys.args[i] = args[i];
		return 0;
	}
	if (spec && spec->n_entry && (s = percpu_scratch_take())) {
		/*
		 * Path arguments travel in the same record. A tracepoint program
		 * cannot fault pages in: a path in a page not touched yet (a
		 * literal in .rodata) is retried at exit, when the kernel has
		 * read it, and travels in the exit record.
		 */
		rec = (void *)s->buf;
		record_head(&rec->h, sizeof(*rec), BC_REC_SYS_ENTER, ts, ts->fr.depth, now);
		fill_enter(rec, nr, args);
		s->faulted = 0;
		capture_output(
			s, capture_items(s, sizeof(*rec), spec, 0, spec->n_entry, args, 0, false),
			BC_LOSS_SYSCALL);
		ts->sys.retry_mask = s->faulted;
		percpu_scratch_release(s);
		return 0;
	}
	rec = record_reserve(sizeof(*rec), BC_REC_SYS_ENTER, BC_LOSS_SYSCALL, ts, ts->fr.depth, now);
	if (!rec)
		return 0;
	fill_enter(rec, nr, args);
	record_submit(rec);
	return 0;
}

/*
 * The call whole, at its exit: one record for its entry and exit. The
 * entry's sequence number is taken now, just before the exit's, so a
 * thread's numbers still rise in the order its records reach the agent.
 */
static __always_inline int write_call(struct task_state *ts, long nr, long ret, __u64 enter_ktime,
				      __u64 now)
{
	struct bc_rec_syscall *rec;

	++ts->sys.seq;
	rec = record_reserve(sizeof(*rec), BC_REC_SYSCALL, BC_LOSS_SYSCALL, ts, ts->fr.depth, now);
	if (!rec) {
		count_lost(BC_LOSS_SYSCALL); /* two events lost: the entry and the exit */
		return 0;
	}
	rec->nr = (__u32)nr;
	rec->cpu = bpf_get_smp_processor_id();
	rec->ret = ret;
	rec->enter_ktime = enter_ktime;
	rec->enter_cpu = ts->sys.cpu;
	rec->enter_depth = ts->sys.depth;
	for (int i = 0; i < BC_MAX_ARG_REGS; i++)
		rec->args[i] = ts->sys.args[i];
	record_submit(rec);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	long nr = regs->orig_ax;
	struct bc_rec_sys_exit *rec;
	struct task_state *ts;
	__u64 now, enter_ktime = 0;
	__u32 retry = 0, deferred = 0, key = (__u32)nr;

	if (!syscall_wanted(nr))
		return 0;
	ts = traced_task_state();
	if (!ts)
		return 0;
	now = bpf_ktime_get_ns();
	if (ts->sys.enter_ktime && ts->sys.nr == (__u32)nr) {
		enter_ktime = ts->sys.enter_ktime;
		retry = ts->sys.retry_mask;
		deferred = ts->sys.deferred;
	}
	ts->sys.enter_ktime = 0;
	ts->sys.retry_mask = 0;
	ts->sys.deferred = 0;
	if (deferred)
		return write_call(ts, nr, ret, enter_ktime, now);

	if (retry) {
		/* Paths the entry could not read: the kernel has faulted them in by now. */
		const struct bc_capture_spec *spec = bpf_map_lookup_elem(&syscall_captures, &key);
		struct scratch *s = spec ? percpu_scratch_take() : NULL;

		if (spec && s) {
			__u64 args[BC_MAX_ARG_REGS] = {regs->di,  regs->si, regs->dx,
						       regs->r10, regs->r8, regs->r9};

			rec = (void *)s->buf;
			record_head(&rec->h, sizeof(*rec), BC_REC_SYS_EXIT, ts, ts->fr.depth, now);
			rec->nr = (__u32)nr;
			rec->cpu = bpf_get_smp_processor_id();
			rec->ret = ret;
			rec->enter_ktime = enter_ktime;
			capture_output(s, capture_items_masked(s, sizeof(*rec), spec, retry, args),
				       BC_LOSS_SYSCALL);
			percpu_scratch_release(s);
			return 0;
		}
	}
	rec = record_reserve(sizeof(*rec), BC_REC_SYS_EXIT, BC_LOSS_SYSCALL, ts, ts->fr.depth, now);
	if (!rec)
		return 0;
	rec->nr = (__u32)nr;
	rec->cpu = bpf_get_smp_processor_id();
	rec->ret = ret;
	rec->enter_ktime = enter_ktime;
	record_submit(rec);
	return 0;
}
