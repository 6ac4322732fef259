/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The user stack of a thread stopped in a system call, for I/O records.
 *
 * bpf_get_stack() walks frame pointers from the registers. A system call
 * sits in a libc wrapper built without them: the wrapper's caller (the
 * function that called read or open) has its return address in the
 * wrapper's frame, not under a frame pointer, and is lost; worse, a wrapper
 * that uses rbp as an ordinary register (open does) sends the walk into
 * data. So the words above sp are searched for where a call to the
 * wrapper returns (ustack_calls): the highest such word under the caller's
 * frame is the caller's return address. The caller's frame is rbp when
 * rbp still is a frame, else the frame pointer the wrapper saved.
 */
#ifndef BPFCOLLECT_USTACK_BPF_H
#define BPFCOLLECT_USTACK_BPF_H

#include "common.bpf.h"

#define USTACK_SCAN_SLOTS 32	    /* words above sp searched for the caller */
#define USTACK_FRAME_SPAN (1 << 20) /* most a frame pointer is above the last one */
#define VM_EXEC_FLAG	  0x4

static long vma_is_exec(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	*(bool *)ctx = (vma->vm_flags & VM_EXEC_FLAG) != 0;
	return 0;
}

static __always_inline __s32 rel32(const __u8 *b)
{
	return (__s32)((__u32)b[0] | (__u32)b[1] << 8 | (__u32)b[2] << 16 | (__u32)b[3] << 24);
}

/* ip is in a function starting at most 4 KiB before it: a system call wrapper is small. */
static __always_inline bool ustack_near(__u64 target, __u64 ip)
{
	return target && target <= ip && ip - target < 4096;
}

/*
 * ret is where a call to the function around ip returns to: the call
 * instruction before it (call rel32 or call *disp32(%rip)) goes there,
 * directly or through a PLT entry (jmp *GOT, with or without endbr64 and
 * bnd). A stale return address left in the wrapper's locals by an earlier
 * call to something else fails this.
 */
static __always_inline bool ustack_calls(__u64 ret, __u64 ip)
{
	__u64 target = 0, got;
	__u8 b[8], c[12];

	if (ret < 0x10000 || ret >= 0x800000000000ULL)
		return false;
	if (bpf_probe_read_user(b, sizeof(b), (void *)(ret - 8)) < 0)
		return false;
	if (b[3] == 0xe8)
		target = ret + rel32(b + 4);
	else if (b[2] == 0xff && b[3] == 0x15)
		bpf_probe_read_user(&target, sizeof(target), (void *)(ret + rel32(b + 4)));
	else
		return false;
	if (ustack_near(target, ip))
		return true;
	if (bpf_probe_read_user(c, sizeof(c), (void *)target) < 0)
		return false;
	if (c[0] == 0xff && c[1] == 0x25)
		got = target + 6 + rel32(c + 2);
	else if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa && c[4] == 0xf2 &&
		 c[5] == 0xff && c[6] == 0x25)
		got = target + 11 + rel32(c + 7);
	else if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa && c[4] == 0xff &&
		 c[5] == 0x25)
		got = target + 10 + rel32(c + 6);
	else
		return false;
	if (bpf_probe_read_user(&target, sizeof(target), (void *)got) < 0)
		return false;
	return ustack_near(target, ip);
}

/* v is where some call returns to: after a call instruction, in executable memory. */
static __always_inline bool ustack_is_return(__u64 v)
{
	bool exec = false;
	__u8 b[8];

	if (v < 0x10000 || v >= 0x800000000000ULL)
		return false;
	if (bpf_probe_read_user(b, sizeof(b), (void *)(v - 8)) < 0)
		return false;
	if (!(b[3] == 0xe8 ||				 /* call rel32 */
	      (b[2] == 0xff && b[3] == 0x15) ||		 /* call *disp32(%rip) */
	      (b[5] == 0xff && (b[6] & 0xf8) == 0x50) || /* call *disp8(%reg) */
	      (b[6] == 0xff && (b[7] & 0xf8) == 0xd0)))	 /* call *%reg */
		return false;
	if (bpf_find_vma(bpf_get_current_task_btf(), v, vma_is_exec, &exec, 0) < 0)
		return false;
	return exec;
}

/* fp is a frame pointer of the stack above slot: a return address above it. */
static __always_inline bool ustack_is_frame(__u64 fp, __u64 slot)
{
	__u64 f[2];

	if (fp <= slot || fp - slot > USTACK_FRAME_SPAN || (fp & 7))
		return false;
	if (bpf_probe_read_user(f, sizeof(f), (void *)fp) < 0)
		return false;
	/* f[0] may be anything: the frame above may be a frameless libc function's */
	return ustack_is_return(f[1]);
}

/* What ustack_syscall() works on: per CPU, being too big for the BPF stack. */
struct ustack_work {
	__u64 sp, bp, ip;	       /* the thread's user registers */
	__u64 scan[USTACK_SCAN_SLOTS]; /* the words above sp */
	__u64 ips[BC_IO_MAX_FRAMES];   /* out: ips[0] the pc, then return addresses */
};

/* The search of the words above sp, one bpf_loop() step per word. */
struct ustack_scan {
	struct ustack_work *w;
	bool bp_frame;	/* rbp is a frame above sp: not clobbered */
	__u32 slots;	/* words read */
	__u64 saved_fp; /* the highest frame pointer seen saved so far */
	__u64 slot;	/* the return address chosen; 0: none */
	__u64 fp;	/* and the frame the walk goes on from */
};

static long ustack_scan_slot(__u32 i, void *ctx)
{
	struct ustack_scan *s = ctx;
	struct ustack_work *w = s->w;
	__u64 at, v;

	if (i >= s->slots || i >= USTACK_SCAN_SLOTS)
		return 1;
	at = w->sp + 8 * i;
	v = w->scan[i];
	if (s->bp_frame && at >= w->bp)
		return 1; /* the caller's frames: the walk has them */
	/*
	 * The wrapper's locals may hold stale return addresses of earlier
	 * calls, even to the same wrapper from elsewhere; its own return
	 * address is the highest word of its frame, under the caller's frame
	 * (rbp, or the frame pointer the wrapper saved under it).
	 */
	if (ustack_calls(v, w->ip)) {
		if (s->bp_frame) {
			s->slot = at;
			s->fp = w->bp;
		} else if (s->saved_fp > at) {
			s->slot = at;
			s->fp = s->saved_fp;
		}
		return 0;
	}
	/* a frame pointer the wrapper saved before using rbp for data */
	if (!s->bp_frame && v > at && v - at <= USTACK_FRAME_SPAN && ustack_is_frame(v, at))
		s->saved_fp = v;
	return 0;
}

/*
 * The number of frames put in w->ips: the pc, the wrapper's caller, then
 * the frame-pointer walk. A global function: the verifier checks it once,
 * not at every place a record is written.
 */
__noinline int ustack_syscall(struct ustack_work *w)
{
	struct ustack_scan scan = {};
	__u64 fp, ret = 0;
	__u32 n = 0;
	int i;

	if (!w)
		return 0;
	fp = w->bp;
	w->ips[n++] = w->ip;
	scan.bp_frame = ustack_is_frame(fp, w->sp);
	/* a wrapper that keeps a frame: the walk from rbp starts at its caller */
	if (scan.bp_frame && bpf_probe_read_user(&ret, sizeof(ret), (void *)(fp + 8)) == 0 &&
	    ustack_calls(ret, w->ip))
		goto walk;
	/*
	 * The common case, cheap: a wrapper without locals (read, write,
	 * pread64, close ... on their fast path) has its return address at sp.
	 */
	if (bpf_probe_read_user(&ret, sizeof(ret), (void *)w->sp) == 0 &&
	    ustack_calls(ret, w->ip)) {
		w->ips[n++] = ret;
		if (!scan.bp_frame)
			fp = 0;
		goto walk;
	}
	/* near the top of the stack the whole window may not be mapped */
	scan.slots = USTACK_SCAN_SLOTS;
	if (bpf_probe_read_user(w->scan, sizeof(w->scan), (void *)w->sp) < 0) {
		scan.slots = 8;
		if (bpf_probe_read_user(w->scan, 8 * 8, (void *)w->sp) < 0)
			goto walk;
	}
	scan.w = w;
	bpf_loop(USTACK_SCAN_SLOTS, ustack_scan_slot, &scan, 0);
	if (scan.slot && bpf_probe_read_user(&ret, sizeof(ret), (void *)scan.slot) == 0) {
		w->ips[n++] = ret;
		fp = scan.fp;
	} else if (!scan.bp_frame) {
		fp = 0;
	}
walk:
	for (i = 0; i < BC_IO_MAX_FRAMES; i++) {
		__u64 f[2];

		if (!fp || n >= BC_IO_MAX_FRAMES ||
		    bpf_probe_read_user(f, sizeof(f), (void *)fp) < 0 || !f[1])
			break;
		w->ips[n & (BC_IO_MAX_FRAMES - 1)] = f[1];
		n++;
		if (f[0] <= fp || f[0] - fp > USTACK_FRAME_SPAN)
			break;
		fp = f[0];
	}
	return n;
}

#endif /* BPFCOLLECT_USTACK_BPF_H */
