// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Raw syscall entry/exit of traced processes, filtered by a per-syscall table. */
#include "common.bpf.h"

#define BC_SYSCALL_SLOTS 512

/* 1 for every syscall number to record; the agent fills it (--syscalls=LIST). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BC_SYSCALL_SLOTS);
	__type(key, __u32);
	__type(value, __u8);
} syscall_filter SEC(".maps");

static __always_inline bool syscall_wanted(long nr)
{
	__u32 key = (__u32)nr;
	__u8 *on;

	if (nr < 0 || nr >= BC_SYSCALL_SLOTS)
		return false;
	on = bpf_map_lookup_elem(&syscall_filter, &key);
	return on && *on;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long nr)
{
	struct bc_rec_sys_enter *rec;
	struct task_state *ts;
	__u64 now;

	if (!syscall_wanted(nr))
		return 0;
	ts = traced_task_state();
	if (!ts)
		return 0;
	now = bpf_ktime_get_ns();
	ts->sys_nr = (__u32)nr;
	ts->sys_enter_ktime = now;

	rec = record_reserve(sizeof(*rec), BC_REC_SYS_ENTER, BC_LOSS_SYSCALL, ts, ts->depth, now);
	if (!rec)
		return 0;
	rec->nr = (__u32)nr;
	rec->cpu = bpf_get_smp_processor_id();
	rec->args[0] = regs->di;
	rec->args[1] = regs->si;
	rec->args[2] = regs->dx;
	rec->args[3] = regs->r10;
	rec->args[4] = regs->r8;
	rec->args[5] = regs->r9;
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

	if (!syscall_wanted(nr))
		return 0;
	ts = traced_task_state();
	if (!ts)
		return 0;
	now = bpf_ktime_get_ns();
	if (ts->sys_enter_ktime && ts->sys_nr == (__u32)nr)
		enter_ktime = ts->sys_enter_ktime;
	ts->sys_enter_ktime = 0;

	rec = record_reserve(sizeof(*rec), BC_REC_SYS_EXIT, BC_LOSS_SYSCALL, ts, ts->depth, now);
	if (!rec)
		return 0;
	rec->nr = (__u32)nr;
	rec->cpu = bpf_get_smp_processor_id();
	rec->ret = ret;
	rec->enter_ktime = enter_ktime;
	record_submit(rec);
	return 0;
}
