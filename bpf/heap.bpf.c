// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Heap tracing (-H on): one entry and one return program serve every
 * allocator function of the target's libc; the function (enum bc_heap_fn)
 * travels as the BPF cookie. free and munmap need no result: they are
 * written at entry and have no return probe.
 *
 * Only the outermost call of a thread counts: glibc's realloc calls malloc
 * and free, malloc calls mmap for big blocks, and each of those would
 * otherwise be counted twice. Every entry with a return probe raises
 * heap_depth and every return lowers it, so nesting stays balanced. A call
 * nested in the outer one runs on a lower stack pointer: an entry at or
 * above the outer entry's means the outer call is over though its return
 * was never seen (a return probe missing or dropped), and starts afresh.
 *
 * The stack: at return the registers are the caller's (ip is the return
 * address, rbp the caller's frame), so bpf_get_stack gives the caller's
 * stack, all return addresses. At an entry the frame-pointer walk would
 * skip the caller (its return address is still at [sp], not under a
 * frame): that address replaces frame 0, the allocator's own first
 * instruction, so both give the same shape.
 */
#include "common.bpf.h"

/* A record reserved at its largest: h.size says how much of it is used. */
#define HEAP_REC_MAX (sizeof(struct bc_rec_heap) + 8 * BC_HEAP_MAX_FRAMES)

static __always_inline __u16 caller_stack(void *ctx, __u64 *ips, __u64 entry_sp)
{
	long n = bpf_get_stack(ctx, ips, 8 * BC_HEAP_MAX_FRAMES, BPF_F_USER_STACK);
	__u64 ret;

	if (n <= 0)
		return 0;
	if (entry_sp) {
		if (bpf_probe_read_user(&ret, sizeof(ret), (void *)entry_sp) < 0)
			return 0;
		ips[0] = ret;
	}
	return (__u16)((__u64)n / 8);
}

static __always_inline void emit(void *ctx, __u64 now, __u64 start, __u16 htype, __u16 fn,
				 __u64 size, __u64 addr, __u64 old_addr, __u64 pc, __u64 entry_sp)
{
	struct bc_rec_heap *rec;
	__u16 n;

	rec = record_reserve(HEAP_REC_MAX, BC_REC_HEAP, BC_LOSS_HEAP, NULL, 0, now);
	if (!rec)
		return;
	rec->start_ktime = start;
	rec->size = size;
	rec->addr = addr;
	rec->old_addr = old_addr;
	rec->pc = pc;
	rec->htype = htype;
	rec->fn = fn;
	rec->pad = 0;
	n = caller_stack(ctx, rec->ips, entry_sp);
	if (n > BC_HEAP_MAX_FRAMES)
		n = BC_HEAP_MAX_FRAMES;
	rec->n_user = n;
	rec->h.size = sizeof(*rec) + 8 * n;
	record_submit(rec);
}

SEC("uprobe")
int heap_entry(struct pt_regs *ctx)
{
	struct task_state *ts = traced_task_state_ex(true);
	__s64 id;
	__u32 fn;
	__u64 now, sp = PT_REGS_SP(ctx);

	if (!ts)
		return 0;
	id = probe_id(ctx, ts);
	if (id < 0)
		return 0;
	fn = (__u32)id;
	if (ts->heap_depth && sp >= ts->heap_sp)
		ts->heap_depth = 0;
	if (fn == BC_HEAP_FN_FREE || fn == BC_HEAP_FN_MUNMAP) {
		/* no return probe: nothing to balance */
		if (ts->heap_depth || !ctx->di)
			return 0;
		now = bpf_ktime_get_ns();
		emit(ctx, now, now, fn == BC_HEAP_FN_FREE ? BC_HEAP_FREE : BC_HEAP_MUNMAP, fn,
		     fn == BC_HEAP_FN_MUNMAP ? ctx->si : 0, ctx->di, 0, PT_REGS_IP(ctx), sp);
		return 0;
	}
	if (ts->heap_depth++)
		return 0;
	ts->heap_fn = fn;
	ts->heap_sp = sp;
	ts->heap_pc = PT_REGS_IP(ctx);
	ts->heap_args[0] = ctx->di;
	ts->heap_args[1] = ctx->si;
	ts->heap_args[2] = ctx->dx;
	ts->heap_start = bpf_ktime_get_ns();
	return 0;
}

SEC("uretprobe")
int heap_return(struct pt_regs *ctx)
{
	struct task_state *ts = traced_task_state_ex(true);
	__u64 rc = PT_REGS_RC(ctx), size = 0, addr = rc, old = 0, *a;
	__u16 htype = BC_HEAP_MALLOC;
	__u32 fn;

	/* depth 0: entered before this thread was traced (attached mid-call) */
	if (!ts || !ts->heap_depth)
		return 0;
	if (--ts->heap_depth)
		return 0;
	fn = ts->heap_fn;
	a = ts->heap_args;
	switch (fn) {
	case BC_HEAP_FN_MALLOC:
	case BC_HEAP_FN_VALLOC:
	case BC_HEAP_FN_PVALLOC:
		size = a[0];
		break;
	case BC_HEAP_FN_CALLOC:
		size = a[0] * a[1];
		break;
	case BC_HEAP_FN_ALIGNED_ALLOC:
	case BC_HEAP_FN_MEMALIGN:
		size = a[1];
		break;
	case BC_HEAP_FN_POSIX_MEMALIGN:
		/*
		 * Returns an error number; the block is in *memptr, read into
		 * the task's storage: a stack slot would make this frame 64
		 * bytes, a per-CPU one (capture_one_task says why not).
		 */
		if (rc != 0 || bpf_probe_read_user(&a[0], sizeof(a[0]), (void *)a[0]) < 0)
			return 0;
		addr = a[0];
		size = a[2];
		break;
	case BC_HEAP_FN_REALLOC:
	case BC_HEAP_FN_REALLOCARRAY:
		old = a[0];
		size = fn == BC_HEAP_FN_REALLOC ? a[1] : a[1] * a[2];
		if (!old) {
			htype = BC_HEAP_MALLOC; /* realloc(NULL, n) is malloc(n) */
		} else if (!size && !rc) {
			htype = BC_HEAP_FREE; /* realloc(p, 0) freed p */
			addr = old;
			old = 0;
		} else {
			htype = BC_HEAP_REALLOC;
		}
		break;
	case BC_HEAP_FN_MMAP:
		if (rc == (__u64)-1)
			return 0;
		htype = BC_HEAP_MMAP;
		size = a[1];
		break;
	default:
		return 0;
	}
	if (!addr)
		return 0; /* a failed allocation */
	emit(ctx, bpf_ktime_get_ns(), ts->heap_start, htype, fn, size, addr, old, ts->heap_pc, 0);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
