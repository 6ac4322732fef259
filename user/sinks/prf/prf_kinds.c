// SPDX-License-Identifier: MIT
/* PRF records of the kinds that need no pairing: off-CPU, samples, heap, sync, I/O, usage. */
#include <inttypes.h>
#include <stdio.h>

#include "bpfcollect/names.h"
#include "bpfcollect/syscalls.h"
#include "prf_sink.h"

/*
 * One interval off CPU, written when the thread is back: like a return
 * record, its OPT starts with the time it began (the switch-out).
 */
int prf_sched_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev)
{
	const struct bc_rec_offcpu *o = (const void *)ev->rec;
	uint64_t sleep, wait;
	size_t n = prf_opt_entry_time(p, o->off_ktime);

	bc_offcpu_split(o, &sleep, &wait);
	bc_prf_put_be64(p->opt + n, sleep);
	bc_prf_put_be64(p->opt + n + 8, wait);
	bc_prf_put_be64(p->opt + n + 16, ((uint64_t)o->state << 32) | (uint32_t)o->syscall);
	bc_prf_put_be64(p->opt + n + 24, ((uint64_t)o->waker_pid << 32) | o->waker_tid);
	return prf_emit(p, t, 0, 0, BC_PRF_EV_SCHED_OFFCPU, o->h.ktime, 0, false, "sched",
			o->state && !o->preempt ? "blocked" : "preempted", n + 32);
}

/* cpu (4), kernel and user frame counts (2 each), then the frames, leaf first, as fit. */
int prf_sample_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev)
{
	const struct bc_rec_profile *r = (const void *)ev->rec;
	size_t frames = (size_t)r->n_kernel + r->n_user, n = 8;

	bc_prf_put_be64(p->opt,
			((uint64_t)r->cpu << 32) | ((uint32_t)r->n_kernel << 16) | r->n_user);
	for (size_t i = 0; i < frames && n + 8 <= BC_PRF_OPT_MAX; i++, n += 8)
		bc_prf_put_be64(p->opt + n, r->ips[i]);
	return prf_emit(p, t, 0, 0, BC_PRF_EV_SAMPLE, r->h.ktime, 0, false, "profile",
			r->n_kernel ? "kernel" : "user", n);
}

/* The first return address of a stack (the caller), 0 without one. */
static uint64_t caller_of(const __u64 *ips, size_t n)
{
	return n ? ips[0] : 0;
}

int prf_heap_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev)
{
	const struct bc_rec_heap *r = (const void *)ev->rec;
	size_t n = prf_opt_entry_time(p, r->start_ktime);

	bc_prf_put_be64(p->opt + n, r->size);
	bc_prf_put_be64(p->opt + n + 8, r->addr);
	bc_prf_put_be64(p->opt + n + 16, r->old_addr);
	bc_prf_put_be64(p->opt + n + 24, caller_of(r->ips, r->n_user));
	return prf_emit(p, t, 0, 0, BC_PRF_EV_HEAP, r->h.ktime, 0, false, "heap",
			bc_heap_fn_name(r->fn), n + 32);
}

int prf_sync_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev)
{
	const struct bc_rec_sync *r = (const void *)ev->rec;
	size_t n = prf_opt_entry_time(p, r->start_ktime);

	bc_prf_put_be64(p->opt + n, r->object);
	bc_prf_put_be64(p->opt + n + 8, r->h.ktime - r->start_ktime);
	bc_prf_put_be64(p->opt + n + 16, caller_of(r->ips, r->n_user));
	return prf_emit(p, t, 0, 0, BC_PRF_EV_SYNC, r->h.ktime, 0, false, "sync",
			bc_sync_fn_name(r->fn), n + 24);
}

int prf_io_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev)
{
	const struct bc_rec_io *r = (const void *)ev->rec;
	bool failed = r->ret < 0 && r->ret >= -4095;
	const char *sys = r->nr == BC_IO_NR_INHERITED ? "inherited" : bc_syscall_name(r->nr);
	size_t n = prf_opt_entry_time(p, r->start_ktime), path_len;
	const char *path = bc_io_path(r, &path_len);
	char opr[32];

	bc_prf_put_be64(p->opt + n, (uint64_t)r->ret);
	bc_prf_put_be64(p->opt + n + 8, r->nbyte);
	bc_prf_put_be64(p->opt + n + 16, ((uint64_t)(uint32_t)r->fd << 32) | (uint32_t)r->ofd);
	bc_prf_put_be64(p->opt + n + 24, ((uint64_t)r->iotype << 32) | r->fstype);
	n = prf_opt_text(p, n + 32, path, path_len);
	if (!sys)
		snprintf(opr, sizeof(opr), "syscall_%" PRIu32, r->nr);
	return prf_emit(p, t, 0, 0, BC_PRF_EV_IO, r->h.ktime, failed ? (uint64_t)-r->ret : 0,
			failed, "io", sys ? sys : opr, n);
}

/* rtime, utime, stime, wait, sleep (ns), voluntary and involuntary switches, faults. */
int prf_usage_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev)
{
	const struct bc_rec_usage *u = (const void *)ev->rec;
	const __u64 v[] = {u->rtime, u->utime, u->stime, u->wait, u->sleep,
			   u->vctx,  u->ictx,  u->minf,	 u->majf};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		bc_prf_put_be64(p->opt + 8 * i, v[i]);
	return prf_emit(p, t, 0, 0, BC_PRF_EV_PROC_USAGE, u->h.ktime, 0, false, "process", "usage",
			sizeof(v));
}
