// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor: the least a uprobe tracer can do per hit, to measure the
 * others against. Entry and return each write one 32-byte record (time,
 * pid/tid, the cookie, which side) into a ring buffer, without waking the
 * reader; nothing else: no filter, no per-thread state, no stack. With
 * --syscalls, one such record per system call of the process instead;
 * with --syscalls-timed, that record carries the call's entry time too.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct floor_rec {
	__u64 ktime;
	__u64 pid_tgid;
	__u64 cookie;
	__u64 is_return;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} floor_ring SEC(".maps");

__u64 floor_lost = 0;

static __always_inline int put(struct pt_regs *ctx, __u64 is_return)
{
	struct floor_rec *r = bpf_ringbuf_reserve(&floor_ring, sizeof(*r), 0);

	if (!r) {
		__sync_fetch_and_add(&floor_lost, 1);
		return 0;
	}
	r->ktime = bpf_ktime_get_ns();
	r->pid_tgid = bpf_get_current_pid_tgid();
	r->cookie = bpf_get_attach_cookie(ctx);
	r->is_return = is_return;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/* floor --syscalls: the process whose system calls are recorded (set once it exists) */
__u32 floor_tgid = 0;

/* A system call's record, at its exit: cookie is its number, or its entry's time. */
static __always_inline int put_sys(__u64 id, __u64 cookie)
{
	struct floor_rec *r = bpf_ringbuf_reserve(&floor_ring, sizeof(*r), 0);

	if (!r) {
		__sync_fetch_and_add(&floor_lost, 1);
		return 0;
	}
	r->ktime = bpf_ktime_get_ns();
	r->pid_tgid = id;
	r->cookie = cookie;
	r->is_return = 2;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

/* One record per system call, at its exit, of one process: the floor of a syscall tracer. */
SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys, struct pt_regs *regs, long ret)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (id >> 32 != floor_tgid)
		return 0;
	return put_sys(id, regs->orig_ax);
}

/*
 * floor --syscalls-timed: the least a tracer does that times each call: the
 * entry's time kept in task storage, one record at the exit that carries it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} floor_entry_time SEC(".maps");

SEC("tp_btf/sys_enter")
int BPF_PROG(floor_sys_enter, struct pt_regs *regs, long nr)
{
	__u64 *t;

	if (bpf_get_current_pid_tgid() >> 32 != floor_tgid)
		return 0;
	t = bpf_task_storage_get(&floor_entry_time, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (t)
		*t = bpf_ktime_get_ns();
	return 0;
}

/* The record of --syscalls-timed: cookie is the entry's time, not the call's number. */
SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_timed, struct pt_regs *regs, long ret)
{
	__u64 id = bpf_get_current_pid_tgid(), *t;

	if (id >> 32 != floor_tgid)
		return 0;
	t = bpf_task_storage_get(&floor_entry_time, bpf_get_current_task_btf(), 0, 0);
	return put_sys(id, t ? *t : 0);
}

SEC("uprobe")
int floor_entry(struct pt_regs *ctx)
{
	return put(ctx, 0);
}

SEC("uretprobe")
int floor_return(struct pt_regs *ctx)
{
	return put(ctx, 1);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
