// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Off-CPU intervals of traced threads (-k, -a, --offcpu). At switch-out the
 * thread's state, syscall and user stack go into its task storage; a wakeup
 * notes when and by whom it was made runnable; at switch-in one record
 * carries the whole interval. One record per interval, written when it is
 * complete, keeps the ring traffic at one reserve per context switch and
 * lets a reader account each record alone.
 *
 * Untraced threads cost one task storage lookup per switch and, while they
 * have no storage, one hash lookup (none under -a, where the filter is a
 * comparison).
 */
#include "common.bpf.h"

/* Loaded only when off-CPU data is wanted; this guards the wakeup side too. */
const volatile bool sched_enabled = false;

#define PF_KTHREAD 0x00200000

/* The record under construction: head, fixed fields, the deepest stack. */
struct offcpu_scratch {
	__u64 words[(sizeof(struct bc_rec_offcpu) / 8) + BC_OFFCPU_MAX_FRAMES];
};

/* sched_switch does not nest on a CPU: one scratch record each. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_scratch);
} offcpu_scratch SEC(".maps");

/* The thread leaving the CPU is current: remember where it stopped. */
static __always_inline void switch_out(void *ctx, struct task_struct *prev, bool preempt,
				       unsigned int prev_state, __u64 now)
{
	struct task_state *ts = traced_task_state();
	struct pt_regs *regs;
	long n;

	if (!ts)
		return;
	ts->off_ktime = now;
	ts->wake_ktime = 0;
	ts->waker = 0;
	ts->off_state = prev_state;
	ts->off_preempt = preempt;
	ts->off_syscall = -1;
	ts->off_n_user = 0;
	ts->sum_exec = prev->se.sum_exec_runtime;
	if (prev->flags & PF_KTHREAD)
		return;
	/* orig_ax is the syscall number inside one, -1 when it left user code. */
	regs = (struct pt_regs *)bpf_task_pt_regs(prev);
	if (regs)
		ts->off_syscall = (__s32)BPF_CORE_READ(regs, orig_ax);
	n = bpf_get_stack(ctx, ts->off_ips, sizeof(ts->off_ips), BPF_F_USER_STACK);
	if (n > 0)
		ts->off_n_user = (__u32)(n / 8);
}

/* The thread coming in is not current: its interval, from its own storage. */
static __always_inline void switch_in(struct task_struct *next, __u64 now)
{
	struct task_state *ts = bpf_task_storage_get(&task_states, next, 0, 0);
	struct bc_rec_offcpu *rec;
	struct offcpu_scratch *s;
	__u32 zero = 0, n, size;

	if (!ts || !ts->traced || !ts->off_ktime)
		return;
	s = bpf_map_lookup_elem(&offcpu_scratch, &zero);
	if (!s)
		goto done;
	rec = (struct bc_rec_offcpu *)s;
	n = ts->off_n_user;
	if (n > BC_OFFCPU_MAX_FRAMES)
		n = BC_OFFCPU_MAX_FRAMES;
	size = sizeof(*rec) + 8 * n;
	rec->h.size = size;
	rec->h.kind = BC_REC_OFFCPU;
	rec->h.depth = ts->fr.depth;
	rec->h.pid = next->tgid;
	rec->h.tid = next->pid;
	rec->h.seq = 0;
	rec->h.ktime = now;
	rec->off_ktime = ts->off_ktime;
	rec->wake_ktime = ts->wake_ktime;
	rec->sum_exec = ts->sum_exec;
	rec->waker_pid = ts->waker >> 32;
	rec->waker_tid = (__u32)ts->waker;
	rec->state = ts->off_state;
	rec->syscall = ts->off_syscall;
	rec->cpu = bpf_get_smp_processor_id();
	rec->n_user = n;
	rec->preempt = ts->off_preempt;
	rec->pad = 0;
	__builtin_memcpy(rec->ips, ts->off_ips, sizeof(ts->off_ips));
	if (size > sizeof(*s))
		goto done;
	if (bpf_ringbuf_output(&events, s, size, wake_flag()) < 0)
		count_lost(BC_LOSS_SCHED);
done:
	ts->off_ktime = 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u64 now;

	if (!sched_enabled)
		return 0;
	now = bpf_ktime_get_ns();
	switch_out(ctx, prev, preempt, prev_state, now);
	switch_in(next, now);
	return 0;
}

/* A blocked traced thread made runnable: the end of its sleep, the start of its wait for CPU. */
static __always_inline void woken(struct task_struct *p)
{
	struct task_state *ts;

	if (!sched_enabled)
		return;
	ts = bpf_task_storage_get(&task_states, p, 0, 0);
	if (!ts || !ts->traced || !ts->off_ktime || ts->wake_ktime)
		return;
	ts->wake_ktime = bpf_ktime_get_ns();
	ts->waker = bpf_get_current_pid_tgid();
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(sched_wakeup, struct task_struct *p)
{
	woken(p);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
