// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Sync tracing (-s on|US): one entry and one return program serve every
 * waiting function of the target's libc (pthread_mutex_lock,
 * pthread_cond_wait and timedwait, pthread_join, sem_wait and timedwait,
 * pthread_rwlock_rdlock and wrlock); the function (enum bc_sync_fn) travels
 * as the BPF cookie. A call is a wait from its entry to its return, written
 * only when it lasts sync_threshold_ns or more: an uncontended lock costs a
 * record of nothing. As in heap.bpf.c only the outermost call of a thread
 * counts, nesting is told by the stack pointer, and the stack is taken at
 * return: the caller's, all return addresses.
 */
#include "common.bpf.h"

/* -s: waits shorter than this are not written. */
const volatile __u64 sync_threshold_ns = 0;

#define SYNC_REC_MAX (sizeof(struct bc_rec_sync) + 8 * BC_SYNC_MAX_FRAMES)

SEC("uprobe")
int sync_entry(struct pt_regs *ctx)
{
	struct task_state *ts = traced_task_state_ex(true);
	__s64 id;
	__u32 fn;
	__u64 sp = PT_REGS_SP(ctx);

	if (!ts)
		return 0;
	id = probe_id(ctx, ts);
	if (id < 0)
		return 0;
	fn = (__u32)id;
	if (ts->sync_depth && sp >= ts->sync_sp)
		ts->sync_depth = 0;
	if (ts->sync_depth++)
		return 0;
	ts->sync_fn = fn;
	ts->sync_sp = sp;
	ts->sync_pc = PT_REGS_IP(ctx);
	/* the condition waits give the mutex second: gprofng's object is the mutex */
	/* two plain loads: the verifier refuses a load through a computed ctx offset */
	__u64 di = ctx->di, si = ctx->si;

	ts->sync_object = fn == BC_SYNC_FN_COND_WAIT || fn == BC_SYNC_FN_COND_TIMEDWAIT ? si : di;
	ts->sync_start = bpf_ktime_get_ns();
	return 0;
}

SEC("uretprobe")
int sync_return(struct pt_regs *ctx)
{
	struct task_state *ts = traced_task_state_ex(true);
	struct bc_rec_sync *rec;
	__u64 now;
	long n;

	if (!ts || !ts->sync_depth)
		return 0;
	if (--ts->sync_depth)
		return 0;
	now = bpf_ktime_get_ns();
	if (now - ts->sync_start < sync_threshold_ns)
		return 0;
	rec = record_reserve(SYNC_REC_MAX, BC_REC_SYNC, BC_LOSS_SYNC, NULL, 0, now);
	if (!rec)
		return 0;
	rec->start_ktime = ts->sync_start;
	rec->object = ts->sync_object;
	rec->pc = ts->sync_pc;
	rec->fn = (__u16)ts->sync_fn;
	rec->pad = 0;
	n = bpf_get_stack(ctx, rec->ips, 8 * BC_SYNC_MAX_FRAMES, BPF_F_USER_STACK);
	n = n > 0 ? (__u64)n / 8 : 0;
	if (n > BC_SYNC_MAX_FRAMES)
		n = BC_SYNC_MAX_FRAMES;
	rec->n_user = (__u16)n;
	rec->h.size = sizeof(*rec) + 8 * n;
	record_submit(rec);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
