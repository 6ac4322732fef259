/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Capturing arguments, return values and syscall strings into the record of
 * the event itself. bpf_ringbuf_reserve() wants a constant size and a string's
 * length is known only once read, so a record with captures is built in a
 * scratch buffer and goes out in one bpf_ringbuf_output(): one record, user
 * memory read once. Records without captures keep the reserve path.
 *
 * Function captures run in sleepable programs so that a string in a page the
 * process has not touched yet (a literal in .rodata, say) is faulted in, as
 * strace or an in-process tracer would see it; bpf_probe_read_user_str() would
 * just fail there. The scratch buffer is per thread (task storage): a per-CPU
 * one could be overwritten by another task while a sleepable program sleeps.
 */
#ifndef BPFCOLLECT_CAPTURE_BPF_H
#define BPFCOLLECT_CAPTURE_BPF_H

#include "common.bpf.h"
#include "bpfcollect/capture.h"

/*
 * Offsets are masked below SCRATCH_HALF and lengths below it too, so the
 * verifier can see every write stays inside the doubled buffer.
 */
#define SCRATCH_HALF BC_CAPTURE_RECORD_MAX
#define SCRATCH_MASK (SCRATCH_HALF - 1)
#define LEN_MASK     (2 * BC_STRLEN_MAX - 1)
/* Below SCRATCH_HALF, so the masked size of a full record is never 0. */
#define RECORD_LIMIT (SCRATCH_HALF - 8)

struct scratch {
	__u32 faulted; /* bit i: reading argument i faulted (set by capture_one) */
	__u32 busy;    /* percpu_scratch only: taken */
	/* what capture_items_task reads: the uprobe programs keep them here, not on their stack */
	__u64 args[BC_MAX_ARG_REGS];
	__u64 retval;
	/* an item header at an offset below SCRATCH_HALF, then up to LEN_MASK bytes */
	__u8 buf[SCRATCH_HALF + sizeof(struct bc_cap_item) + LEN_MASK + 1];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct scratch);
} capture_scratch SEC(".maps") __weak;

extern int bpf_copy_from_user_str(void *dst, __u32 dst__sz, const void *unsafe_ptr__ign,
				  __u64 flags) __ksym __weak;
/*
 * Set by the agent where the kernel has the kfunc above (6.12): a constant
 * to the verifier, which then drops the call that older kernels cannot
 * resolve. Without it strings are probe reads, which do not fault pages in.
 */
const volatile bool have_copy_user_str __weak = false;

static __always_inline struct scratch *scratch_get(void)
{
	return bpf_task_storage_get(&capture_scratch, bpf_get_current_task_btf(), 0,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
}

/*
 * Non-sleepable programs (the syscall tracepoints) cannot allocate a task's
 * scratch buffer there, so they use a per-CPU one. The program can still be
 * preempted by another task running it on this CPU: `busy` is taken
 * atomically, and whoever finds it taken does without captures.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} percpu_scratch SEC(".maps") __weak;

static __always_inline struct scratch *percpu_scratch_take(void)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&percpu_scratch, &zero);

	if (!s || __sync_lock_test_and_set(&s->busy, 1))
		return NULL;
	return s;
}

/* A plain store: only the owner writes it back (BPF has no store-release). */
static __always_inline void percpu_scratch_release(struct scratch *s)
{
	asm volatile("" ::: "memory");
	*(volatile __u32 *)&s->busy = 0;
}

/*
 * Appends item `spec_index` of spec at off; returns the new offset. args are
 * the six integer argument registers; retval the return value (return side).
 */
static __always_inline __u32 capture_one(struct scratch *s, __u32 off,
					 const struct bc_capture_item_spec *is, __u32 spec_index,
					 const __u64 *args, __u64 retval, const bool sleepable)
{
	struct bc_cap_item *item;
	__u64 value = 0, len = 0, max_len;
	long n;

	off &= SCRATCH_MASK;
	item = (void *)&s->buf[off];
	/* The header first: less to keep across the read, so a small frame (capture_one_task). */
	item->source = is->source;
	item->index = is->index;
	item->type = is->type;
	item->flags = 0;
	item->spec = spec_index;
	item->pad = 0;
	if (is->source == BC_SRC_RETVAL)
		value = retval;
	else if (is->source == BC_SRC_ARG && is->index < BC_MAX_ARG_REGS)
		value = args[is->index & 7];

	max_len = is->max_len;
	if (max_len > BC_STRLEN_MAX)
		max_len = BC_STRLEN_MAX;
	/* Never past the largest record: later items get what room is left. */
	if (off + sizeof(*item) + max_len > RECORD_LIMIT) {
		if (off + sizeof(*item) >= RECORD_LIMIT)
			return off;
		max_len = RECORD_LIMIT - off - sizeof(*item);
		item->flags |= BC_CAPF_TRUNCATED;
	}

	switch (is->type) {
	case BC_CAP_INT:
		*(__u64 *)(item + 1) = value;
		len = 8;
		break;
	case BC_CAP_STR:
		if (!value) {
			item->flags |= BC_CAPF_NULL;
			break;
		}
		/*
		 * Room for one byte more than kept (plus the NUL): a string that
		 * fills it was cut. Both calls return the length with the NUL.
		 */
		if (sleepable && have_copy_user_str)
			n = bpf_copy_from_user_str(item + 1, (max_len + 2) & LEN_MASK,
						   (void *)value, 0);
		else
			n = bpf_probe_read_user_str(item + 1, (max_len + 2) & LEN_MASK,
						    (void *)value);
		if (n < 0) {
			item->flags |= BC_CAPF_FAULT;
		} else if (n - 1 > (long)max_len) {
			len = max_len;
			item->flags |= BC_CAPF_TRUNCATED;
		} else {
			len = n > 0 ? n - 1 : 0;
		}
		break;
	case BC_CAP_BUF:
		if (!value) {
			item->flags |= BC_CAPF_NULL;
			break;
		}
		len = max_len;
		if (is->len_arg < BC_MAX_ARG_REGS) {
			__u64 want = args[is->len_arg & 7];

			if (want > max_len)
				item->flags |= BC_CAPF_TRUNCATED;
			else
				len = want;
		}
		len &= LEN_MASK;
		if (len && (sleepable ? bpf_copy_from_user(item + 1, len, (void *)value)
				      : bpf_probe_read_user(item + 1, len, (void *)value)) < 0) {
			item->flags |= BC_CAPF_FAULT;
			len = 0;
		}
		break;
	default:
		/* BC_CAP_FP: xmm registers are not visible to uprobe programs. */
		item->flags |= BC_CAPF_FAULT;
		break;
	}
	if ((item->flags & BC_CAPF_FAULT) && item->source == BC_SRC_ARG)
		s->faulted |= 1U << (item->index & 7);
	item->len = len;
	return off + sizeof(*item) + ((len + 7) & ~7ULL);
}

/*
 * The uprobe programs' captures, in subprograms whose frames stay below 64
 * bytes, as the programs' own frames do. Since 6.13 the kernel runs a
 * kprobe-type program's frame of 64 bytes or more on a per-CPU stack, and
 * nothing keeps another task off that CPU's copy while a sleepable program
 * sleeps (a page fault, the first allocation of a thread's scratch): seen
 * here, a thread's capture record went out late with another thread's
 * buffer, its own lost. The arguments and the return value wait in the
 * task's scratch instead of on the stack; tests/integration/bpf_frames.sh
 * checks every frame's size.
 */
static __noinline __u32 capture_one_task(struct scratch *s, __u32 off,
					 const struct bc_capture_spec *spec, __u32 k)
{
	k &= BC_MAX_CAPTURES - 1;
	return capture_one(s, off, &spec->items[k], k, s->args, s->retval, true);
}

/*
 * Appends items [first, first + n) of spec; returns the record's new size.
 * in_task: a sleepable program's, each item read by capture_one_task, the
 * arguments and the return value from the scratch (args, retval unused).
 */
static __always_inline __u32 capture_items(struct scratch *s, __u32 off,
					   const struct bc_capture_spec *spec, __u32 first, __u32 n,
					   const __u64 *args, __u64 retval, const bool in_task)
{
	const struct bc_capture_item_spec *is;

	for (__u32 i = 0; i < BC_MAX_CAPTURES; i++) {
		__u32 k = first + i;

		if (i >= n || k >= BC_MAX_CAPTURES)
			break;
		/*
		 * Opaque to the compiler, so it indexes from the masked value
		 * instead of a pointer running from items[first], whose start
		 * the verifier cannot bound.
		 */
		k &= BC_MAX_CAPTURES - 1;
		asm volatile("" : "+r"(k));
		is = &spec->items[k & (BC_MAX_CAPTURES - 1)];
		/* What the kernel writes (accept's peer) is read at exit, by the retry path. */
		if (is->at_exit) {
			s->faulted |= 1U << (is->index & 7);
			continue;
		}
		if (in_task)
			off = capture_one_task(s, off, spec, k);
		else
			off = capture_one(s, off, is, k, args, retval, false);
	}
	return off;
}

/* capture_items for sleepable programs, with s->args and s->retval. */
static __noinline __u32 capture_items_task(struct scratch *s, __u32 off,
					   const struct bc_capture_spec *spec, __u32 first, __u32 n)
{
	return capture_items(s, off, spec, first, n, NULL, 0, true);
}

/* Appends the items of spec whose argument's bit is set in mask (a retry). */
static __always_inline __u32 capture_items_masked(struct scratch *s, __u32 off,
						  const struct bc_capture_spec *spec, __u32 mask,
						  const __u64 *args)
{
	for (__u32 k = 0; k < BC_MAX_CAPTURES; k++) {
		const struct bc_capture_item_spec *is = &spec->items[k];

		if (k >= spec->n_entry)
			break;
		if (is->source == BC_SRC_ARG && (mask & (1U << (is->index & 7))))
			off = capture_one(s, off, is, k, args, 0, false);
	}
	return off;
}

/* Sends the record built at the start of the scratch buffer. */
static __always_inline void capture_output(struct scratch *s, __u32 size, __u32 loss_class)
{
	size &= SCRATCH_MASK;
	((struct bc_rec_head *)s->buf)->size = size;
	if (size < sizeof(struct bc_rec_head) ||
	    bpf_ringbuf_output(&events, s->buf, size, wake_flag()) < 0)
		count_lost(loss_class);
}

#endif /* BPFCOLLECT_CAPTURE_BPF_H */
