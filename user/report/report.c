// SPDX-License-Identifier: MIT
/*
 * The report aggregator: a sink that turns the event stream into
 * per-function, per-syscall, per-thread and per-process statistics.
 * Semantics are described in include/bpfcollect/report.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "bpfcollect/containers.h"
#include "bpfcollect/report.h"
#include "bpfcollect/shadow_stack.h"

/* Errno values a syscall returns as -errno are in [1, 4095]. */
#define MAX_ERRNO 4095

/* ---------------------------------------------------------------- state */

struct thread {
	struct bc_thread_stats stats;
	bool exited; /* its exit seen: a fork naming its tid again is another thread */
	/* Frame tags are indices into report->funcs. */
	struct bc_shadow_stack stack;
};

struct bc_report {
	struct bc_sink sink; /* first: the sink ops cast back to the report */

	struct bc_func_stats *funcs;
	size_t nfuncs, funcs_cap;
	struct bc_idmap func_index; /* func_id -> index into funcs */

	struct bc_sys_stats *sys;
	size_t nsys, sys_cap;
	struct bc_idmap sys_index; /* nr -> index into sys */

	struct thread *threads;
	size_t nthreads, threads_cap;
	struct bc_idmap thread_index; /* thread_key() -> index into threads */

	struct bc_proc_stats *procs;
	size_t nprocs, procs_cap;
	bool *proc_exited; /* per procs[]: its exit seen, so a fork reusing its pid is another */
	size_t exited_cap;
	size_t pids_reused;	    /* processes that took the pid of one that had exited */
	uint32_t root_pid;	    /* the launched or first attached process */
	struct bc_idmap proc_index; /* pid -> index into procs */

	struct bc_report_totals totals;
};

/* ---------------------------------------------------------------- lookups */

/*
 * Index maps store NO_INDEX for an id whose stats could not be allocated, so
 * a failed insert needs no deletion from the map: the next event retries.
 */
#define NO_INDEX UINT32_MAX

/* Index of func_id's stats, created on first sight. -errno. */
static int func_stats_idx(struct bc_report *r, uint32_t func_id, const struct bc_func *func,
			  uint32_t *idx)
{
	struct bc_func_stats *fs;
	char *name = NULL, *object = NULL;
	uint32_t *slot;
	int err;

	err = bc_idmap_get_or_add(&r->func_index, func_id, NO_INDEX, &slot);
	if (err)
		return err;
	if (*slot != NO_INDEX) {
		*idx = *slot;
		return 0;
	}
	err = BC_GROW(r->funcs, r->funcs_cap, r->nfuncs + 1);
	if (err)
		return err;
	/* Copies: the function table may be gone before the report is printed. */
	err = bc_func_label_dup(func, func_id, &name, &object);
	if (err)
		return err;
	fs = &r->funcs[r->nfuncs];
	memset(fs, 0, sizeof(*fs));
	fs->func_id = func_id;
	fs->name = name;
	fs->object = object;
	*slot = (uint32_t)r->nfuncs++;
	*idx = *slot;
	return 0;
}

static struct bc_sys_stats *sys_stats_get(struct bc_report *r, uint32_t nr, const char *name)
{
	struct bc_sys_stats *ss;
	uint32_t *slot;
	char *copy = NULL;

	if (bc_idmap_get_or_add(&r->sys_index, nr, NO_INDEX, &slot))
		return NULL;
	if (*slot != NO_INDEX)
		return &r->sys[*slot];
	if (BC_GROW(r->sys, r->sys_cap, r->nsys + 1))
		return NULL;
	if (name)
		copy = strdup(name);
	else if (asprintf(&copy, "syscall_%u", nr) < 0)
		copy = NULL;
	if (!copy)
		return NULL;
	ss = &r->sys[r->nsys];
	memset(ss, 0, sizeof(*ss));
	ss->nr = nr;
	ss->name = copy;
	*slot = (uint32_t)r->nsys++;
	return ss;
}

static struct bc_proc_stats *proc_get(struct bc_report *r, uint32_t pid)
{
	struct bc_proc_stats *ps;
	uint32_t *slot;

	if (bc_idmap_get_or_add(&r->proc_index, pid, NO_INDEX, &slot))
		return NULL;
	if (*slot != NO_INDEX)
		return &r->procs[*slot];
	if (BC_GROW(r->procs, r->procs_cap, r->nprocs + 1))
		return NULL;
	if (r->nprocs + 1 > r->exited_cap) {
		bool *v = realloc(r->proc_exited, r->procs_cap * sizeof(*v));

		if (!v)
			return NULL;
		r->proc_exited = v;
		r->exited_cap = r->procs_cap;
	}
	r->proc_exited[r->nprocs] = false;
	ps = &r->procs[r->nprocs];
	memset(ps, 0, sizeof(*ps));
	ps->pid = pid;
	*slot = (uint32_t)r->nprocs++;
	return ps;
}

/* A thread's key: its tid; a goroutine's (tid 2^30 + goid) with its process, whose goid it is. */
static uint64_t thread_key(uint32_t tid, uint32_t pid)
{
	return tid >= BC_GOROUTINE_TID_BASE ? (uint64_t)pid << 32 | tid : tid;
}

static struct thread *thread_get(struct bc_report *r, uint32_t tid, uint32_t pid)
{
	struct bc_proc_stats *ps;
	struct thread *th;
	uint32_t *slot;

	if (bc_idmap_get_or_add(&r->thread_index, thread_key(tid, pid), NO_INDEX, &slot))
		return NULL;
	if (*slot != NO_INDEX)
		return &r->threads[*slot];
	/* proc_get() works on another map: slot stays valid. */
	ps = proc_get(r, pid);
	if (!ps || BC_GROW(r->threads, r->threads_cap, r->nthreads + 1))
		return NULL;
	ps->threads++;
	th = &r->threads[r->nthreads];
	memset(th, 0, sizeof(*th));
	th->stats.tid = tid;
	th->stats.pid = pid;
	*slot = (uint32_t)r->nthreads++;
	return th;
}

/* ---------------------------------------------------------------- functions */

static int on_func_entry(struct bc_report *r, struct thread *th, const struct bc_event *ev)
{
	const struct bc_rec_func_entry *rec = (const void *)ev->rec;
	uint32_t idx;
	int err;

	err = func_stats_idx(r, rec->func_id, ev->func, &idx);
	if (err)
		return err;
	err = bc_stack_push(&th->stack, rec->func_id, idx, rec->h.ktime);
	if (err)
		return err;
	r->funcs[idx].calls++;
	r->totals.func_entries++;
	return 0;
}

/* A frame whose return never came is dropped: its time is unknown. */
/*
 * The time of its function's frames that returned inside an outermost
 * frame that did not: counted as inclusive here, as their exclusive time
 * was (else a lost return left exclusive above inclusive).
 */
static void credit_nested(struct bc_report *r, const struct bc_frame *f)
{
	if (f->outermost)
		r->funcs[f->tag].incl_ns += f->nested_incl_ns;
}

static void frame_unfinished(void *ctx, const struct bc_frame *f)
{
	struct bc_report *r = ctx;

	r->funcs[f->tag].incomplete++;
	r->totals.incomplete++;
	credit_nested(r, f);
}

static void close_all_frames(struct bc_report *r, struct thread *th)
{
	bc_stack_drop_all(&th->stack, frame_unfinished, r);
}

/*
 * A process's exit ends every call of it still open: its goroutines'
 * (they write no exit), and its threads' whose exit records were lost.
 * They never returned; none was open at detach.
 */
static void close_process(struct bc_report *r, uint32_t pid)
{
	for (size_t i = 0; i < r->nthreads; i++)
		if (r->threads[i].stats.pid == pid)
			close_all_frames(r, &r->threads[i]);
}

/* A frame still open when the recording ended: it was running, not broken. */
static void frame_open_at_end(void *ctx, const struct bc_frame *f)
{
	struct bc_report *r = ctx;

	r->funcs[f->tag].open_at_detach++;
	r->totals.open_at_detach++;
	credit_nested(r, f);
}

static int on_func_return(struct bc_report *r, struct thread *th, const struct bc_event *ev)
{
	const struct bc_rec_func_return *rec = (const void *)ev->rec;
	struct bc_func_stats *fs;
	struct bc_frame_return fr;
	uint32_t idx;
	int err;

	r->totals.func_returns++;
	err = func_stats_idx(r, rec->func_id, ev->func, &idx);
	if (err)
		return err;
	fs = &r->funcs[idx];
	if (bc_stack_return(&th->stack, rec->func_id, rec->entry_ktime, rec->h.ktime,
			    frame_unfinished, r, &fr) < 0) {
		fs->orphan_returns++;
		r->totals.orphan_returns++;
		return 0;
	}
	fs->returns++;
	fs->excl_ns += fr.excl_ns;
	if (fr.outermost) {
		if (!fs->incl_frames || fr.incl_ns < fs->min_incl_ns)
			fs->min_incl_ns = fr.incl_ns;
		if (fr.incl_ns > fs->max_incl_ns)
			fs->max_incl_ns = fr.incl_ns;
		fs->incl_ns += fr.incl_ns;
		fs->incl_frames++;
	}
	return 0;
}

/* ---------------------------------------------------------------- syscalls */

static int on_sys_enter(struct bc_report *r, const struct bc_event *ev)
{
	const struct bc_rec_sys_enter *rec = (const void *)ev->rec;
	struct bc_sys_stats *ss = sys_stats_get(r, rec->nr, ev->sys_name);

	if (!ss)
		return -ENOMEM;
	ss->calls++;
	r->totals.sys_enters++;
	return 0;
}

static int count_errno(struct bc_sys_stats *ss, int err)
{
	struct bc_errno_count *v;

	for (size_t i = 0; i < ss->n_errnos; i++) {
		if (ss->errnos[i].err == err) {
			ss->errnos[i].count++;
			return 0;
		}
	}
	/* Distinct errnos per syscall are a handful: grow one at a time. */
	v = realloc(ss->errnos, (ss->n_errnos + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	v[ss->n_errnos++] = (struct bc_errno_count){.err = err, .count = 1};
	ss->errnos = v;
	return 0;
}

static int on_sys_exit(struct bc_report *r, const struct bc_event *ev)
{
	const struct bc_rec_sys_exit *rec = (const void *)ev->rec;
	struct bc_sys_stats *ss = sys_stats_get(r, rec->nr, ev->sys_name);

	if (!ss)
		return -ENOMEM;
	ss->exits++;
	r->totals.sys_exits++;
	if (rec->enter_ktime && rec->h.ktime >= rec->enter_ktime) {
		uint64_t ns = rec->h.ktime - rec->enter_ktime;

		if (!ss->timed || ns < ss->min_ns)
			ss->min_ns = ns;
		if (ns > ss->max_ns)
			ss->max_ns = ns;
		ss->total_ns += ns;
		ss->timed++;
	}
	if (rec->ret < 0 && rec->ret >= -MAX_ERRNO) {
		ss->errors++;
		return count_errno(ss, (int)-rec->ret);
	}
	return 0;
}

/* ---------------------------------------------------------------- tasks */

/*
 * A fork/clone names a task before it writes anything: remember it. A pid
 * or tid whose owner exited is another process's or thread's now (-a runs
 * long enough for the kernel to hand pids out again): counted apart.
 */
static int on_fork(struct bc_report *r, const struct bc_event *ev)
{
	const struct bc_rec_fork *rec = (const void *)ev->rec;
	uint32_t *slot = bc_idmap_find(&r->thread_index, rec->child_tid);

	if (slot && *slot != NO_INDEX && r->threads[*slot].exited)
		bc_idmap_remove(&r->thread_index, rec->child_tid);
	slot = bc_idmap_find(&r->proc_index, rec->child_pid);
	if (ev->rec->kind == BC_REC_PROC_FORK && slot && *slot != NO_INDEX &&
	    r->proc_exited[*slot]) {
		bc_idmap_remove(&r->proc_index, rec->child_pid);
		r->pids_reused++;
	}
	return thread_get(r, rec->child_tid, rec->child_pid) ? 0 : -ENOMEM;
}

/* Frames of an image that is gone can never return. */
static void on_exec(struct bc_report *r, struct thread *th, const struct bc_event *ev)
{
	const struct bc_rec_exec *rec = (const void *)ev->rec;
	const uint32_t *slot;

	close_all_frames(r, th);
	/* A non-leader thread that execs takes over the leader's tid. */
	slot = bc_idmap_find(&r->thread_index, rec->old_tid);
	if (slot && *slot != NO_INDEX)
		close_all_frames(r, &r->threads[*slot]);
}

static void on_lost(struct bc_report *r, const struct bc_event *ev)
{
	const struct bc_rec_lost *rec = (const void *)ev->rec;

	/* bc_decode() checked loss_class. */
	r->totals.lost[rec->loss_class] += rec->count;
}

/* Per-thread and per-process counts; returns the writing thread. */
static struct thread *account_task(struct bc_report *r, const struct bc_rec_head *h)
{
	struct thread *th = thread_get(r, h->tid, h->pid);
	struct bc_proc_stats *ps;

	if (!th)
		return NULL;
	ps = proc_get(r, th->stats.pid);
	if (!ps)
		return NULL;
	th->stats.events++;
	if (!th->stats.first_ktime)
		th->stats.first_ktime = h->ktime;
	th->stats.last_ktime = h->ktime;
	ps->events++;
	if (!ps->first_ktime)
		ps->first_ktime = h->ktime;
	ps->last_ktime = h->ktime;
	return th;
}

/* ---------------------------------------------------------------- sink */

static int report_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct bc_report *r = (struct bc_report *)s;
	const struct bc_rec_head *h = ev->rec;
	struct thread *th;

	r->totals.events++;
	/* Loss records come from the agent, not from a traced task. */
	if (h->kind == BC_REC_LOST) {
		on_lost(r, ev);
		return 0;
	}
	/* Names of processes seen first mid-life: about a process, no thread's event. */
	if (h->kind == BC_REC_PROC_NAME)
		return 0;
	th = account_task(r, h);
	if (!th)
		return -ENOMEM;

	switch (h->kind) {
	case BC_REC_FUNC_ENTRY:
		return on_func_entry(r, th, ev);
	case BC_REC_FUNC_RETURN:
		return on_func_return(r, th, ev);
	case BC_REC_SYS_ENTER:
		return on_sys_enter(r, ev);
	case BC_REC_SYS_EXIT:
		return on_sys_exit(r, ev);
	case BC_REC_PROC_FORK:
	case BC_REC_THREAD_START:
		return on_fork(r, ev);
	case BC_REC_PROC_EXEC:
		on_exec(r, th, ev);
		return 0;
	case BC_REC_THREAD_EXIT:
	case BC_REC_PROC_EXIT:
		/* The tid may be reused: its next owner starts a fresh stack. */
		close_all_frames(r, th);
		th->exited = true;
		if (ev->rec->kind == BC_REC_PROC_EXIT) {
			uint32_t *slot = bc_idmap_find(&r->proc_index, ev->rec->pid);

			close_process(r, ev->rec->pid);
			if (slot && *slot != NO_INDEX)
				r->proc_exited[*slot] = true;
		}
		return 0;
	default:
		return 0;
	}
}

static int report_end(struct bc_sink *s, const struct bc_session_end *end)
{
	struct bc_report *r = (struct bc_report *)s;

	/* its exit status known, the root ended: its calls never returned, whatever was lost */
	if (end && end->exit_status >= 0 && r->root_pid)
		close_process(r, r->root_pid);
	for (size_t i = 0; i < r->nthreads; i++)
		bc_stack_drop_all(&r->threads[i].stack, frame_open_at_end, r);
	/*
	 * The agent writes LOST records and also sums the same losses into
	 * the session end: take the larger, never the sum.
	 */
	for (int c = 0; end && c < BC_LOSS_NR; c++)
		if (end->lost[c] > r->totals.lost[c])
			r->totals.lost[c] = end->lost[c];
	return 0;
}

static int report_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct bc_report *r = (struct bc_report *)s;

	/* a tree's subexperiments begin too: the founder's root is the one */
	if (!r->root_pid)
		r->root_pid = sess->root_pid;
	return 0;
}

static const struct bc_sink_ops report_sink_ops = {
	.name = "report", .begin = report_begin, .event = report_event, .end = report_end,
	/* No destroy: the report owns the sink (see report.h). */
};

/* ---------------------------------------------------------------- API */

struct bc_report *bc_report_new(void)
{
	struct bc_report *r = calloc(1, sizeof(*r));

	if (r)
		r->sink.ops = &report_sink_ops;
	return r;
}

void bc_report_free(struct bc_report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nfuncs; i++) {
		free((char *)r->funcs[i].name);
		free((char *)r->funcs[i].object);
	}
	free(r->funcs);
	bc_idmap_free(&r->func_index);
	for (size_t i = 0; i < r->nsys; i++) {
		free((char *)r->sys[i].name);
		free(r->sys[i].errnos);
	}
	free(r->sys);
	bc_idmap_free(&r->sys_index);
	for (size_t i = 0; i < r->nthreads; i++) {
		bc_stack_free(&r->threads[i].stack);
	}
	free(r->threads);
	bc_idmap_free(&r->thread_index);
	free(r->procs);
	free(r->proc_exited);
	bc_idmap_free(&r->proc_index);
	free(r);
}

struct bc_sink *bc_report_sink(struct bc_report *r)
{
	return &r->sink;
}

/* Index stored for id, or -1 when absent (or NO_INDEX). */
static ssize_t lookup(const struct bc_idmap *m, uint32_t id, size_t n)
{
	const uint32_t *slot = bc_idmap_find(m, id);

	return slot && *slot < n ? (ssize_t)*slot : -1;
}

const struct bc_func_stats *bc_report_func(const struct bc_report *r, uint32_t func_id)
{
	ssize_t i = lookup(&r->func_index, func_id, r->nfuncs);

	return i < 0 ? NULL : &r->funcs[i];
}

const struct bc_sys_stats *bc_report_sys(const struct bc_report *r, uint32_t nr)
{
	ssize_t i = lookup(&r->sys_index, nr, r->nsys);

	return i < 0 ? NULL : &r->sys[i];
}

const struct bc_thread_stats *bc_report_thread(const struct bc_report *r, uint32_t tid)
{
	ssize_t i = lookup(&r->thread_index, tid, r->nthreads);

	return i < 0 ? NULL : &r->threads[i].stats;
}

const struct bc_proc_stats *bc_report_process(const struct bc_report *r, uint32_t pid)
{
	ssize_t i = lookup(&r->proc_index, pid, r->nprocs);

	return i < 0 ? NULL : &r->procs[i];
}

const struct bc_report_totals *bc_report_totals(const struct bc_report *r)
{
	return &r->totals;
}

size_t bc_report_nfuncs(const struct bc_report *r)
{
	return r->nfuncs;
}

const struct bc_func_stats *bc_report_func_at(const struct bc_report *r, size_t i)
{
	return i < r->nfuncs ? &r->funcs[i] : NULL;
}

size_t bc_report_nsys(const struct bc_report *r)
{
	return r->nsys;
}

const struct bc_sys_stats *bc_report_sys_at(const struct bc_report *r, size_t i)
{
	return i < r->nsys ? &r->sys[i] : NULL;
}

size_t bc_report_nthreads(const struct bc_report *r)
{
	return r->nthreads;
}

const struct bc_thread_stats *bc_report_thread_at(const struct bc_report *r, size_t i)
{
	return i < r->nthreads ? &r->threads[i].stats : NULL;
}

size_t bc_report_nprocesses(const struct bc_report *r)
{
	return r->nprocs;
}

size_t bc_report_pids_reused(const struct bc_report *r)
{
	return r->pids_reused;
}

const struct bc_proc_stats *bc_report_process_at(const struct bc_report *r, size_t i)
{
	return i < r->nprocs ? &r->procs[i] : NULL;
}

uint64_t bc_func_stats_avg_incl(const struct bc_func_stats *f)
{
	return f->incl_frames ? f->incl_ns / f->incl_frames : 0;
}

uint64_t bc_sys_stats_avg(const struct bc_sys_stats *s)
{
	return s->timed ? s->total_ns / s->timed : 0;
}

uint64_t bc_sys_stats_errno_count(const struct bc_sys_stats *s, int err)
{
	for (size_t i = 0; i < s->n_errnos; i++)
		if (s->errnos[i].err == err)
			return s->errnos[i].count;
	return 0;
}
