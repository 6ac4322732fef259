// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor: the least a uprobe tracer can do per hit, to measure the
 * others against. Entry and return each write one 32-byte record (time,
 * pid/tid, the cookie, which side) into a ring buffer, without waking the
 * reader; nothing else: no filter, no per-thread state, no stack. With
 * --syscalls, one such record per system call of the process instead.
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

/* One record per system call, at its exit, of one process: the floor of a syscall tracer. */
SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys, struct pt_regs *regs, long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct floor_rec *r;

	if (id >> 32 != floor_tgid)
		return 0;
	r = bpf_ringbuf_reserve(&floor_ring, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&floor_lost, 1);
		return 0;
	}
	r->ktime = bpf_ktime_get_ns();
	r->pid_tgid = id;
	r->cookie = regs->orig_ax;
	r->is_return = 2;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
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
