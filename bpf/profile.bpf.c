// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Clock profiling (-p): a cpu-clock perf event on every CPU fires once per
 * period of CPU time and runs this program on whatever thread it
 * interrupted. Only threads of traced processes produce a record, with
 * their kernel and user call stacks; any other thread costs one task
 * storage lookup (and a hash lookup while it has no storage).
 */
#include "common.bpf.h"

/* The record: its 40-byte head, then room for both stacks. */
struct profile_scratch {
	__u64 words[5 + 2 * BC_PROFILE_MAX_FRAMES + 1];
};

/* One sample in flight per CPU: perf_event programs do not nest on a CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct profile_scratch);
} profile_scratch SEC(".maps");

#define STACK_BYTES (BC_PROFILE_MAX_FRAMES * 8)

SEC("perf_event")
int profile_sample(struct bpf_perf_event_data *ctx)
{
	struct profile_scratch *s;
	struct bc_rec_profile *rec;
	struct task_state *ts;
	__u64 *ips;
	__u32 zero = 0, size;
	long nk, nu;

	ts = traced_task_state();
	if (!ts)
		return 0;
	s = bpf_map_lookup_elem(&profile_scratch, &zero);
	if (!s)
		return 0;
	rec = (void *)s;
	ips = &s->words[5];
	nk = bpf_get_stack(ctx, &ips[0], STACK_BYTES, 0);
	if (nk < 0)
		nk = 0;
	nk /= 8;
	if (nk > BC_PROFILE_MAX_FRAMES)
		nk = BC_PROFILE_MAX_FRAMES;
	nu = bpf_get_stack(ctx, &ips[nk & 0x7f], STACK_BYTES, BPF_F_USER_STACK);
	if (nu < 0)
		nu = 0;
	nu /= 8;
	if (nu > BC_PROFILE_MAX_FRAMES)
		nu = BC_PROFILE_MAX_FRAMES;
	if (nk + nu == 0)
		return 0;
	size = sizeof(struct bc_rec_profile) + 8 * (__u32)(nk + nu);
	/* seq 0: samples are not part of the thread's event sequence (no gap when lost) */
	record_head(&rec->h, size, BC_REC_PROFILE, NULL, ts->fr.depth, bpf_ktime_get_ns());
	rec->cpu = bpf_get_smp_processor_id();
	rec->n_kernel = (__u16)nk;
	rec->n_user = (__u16)nu;
	if (size > sizeof(*s))
		return 0;
	if (bpf_ringbuf_output(&events, s, size, wake_flag()) < 0)
		count_lost(BC_LOSS_SAMPLE);
	return 0;
}
