// SPDX-License-Identifier: MIT
/*
 * -f chrome: tracks and their names, and every record kind but calls and
 * system calls (sink_chrome.c): process events and losses as instants;
 * off-CPU intervals, heap, sync and I/O calls as complete events; clock
 * samples as sample events ("ph":"P") whose stacks are the stackFrames
 * written at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/json.h"
#include "bpfcollect/names.h"
#include "bpfcollect/state.h"
#include "bpfcollect/syscalls.h"
#include "chrome_events.h"

void chrome_event_head(struct chrome_sink *c, uint32_t pid, uint32_t tid, const char *ph,
		       const char *name, const char *cat, uint64_t ktime)
{
	fputs(c->n_out++ ? ",\n" : "", c->out);
	fprintf(c->out, "{\"ph\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":", ph, pid,
		tid);
	bc_json_us(c->out, (int64_t)(ktime - c->start_ktime));
	fputs(",\"name\":", c->out);
	bc_json_string(c->out, name, (size_t)-1);
	fputs(",\"cat\":", c->out);
	bc_json_string(c->out, cat, (size_t)-1);
}

/* A metadata event: the name of a process (tid 0) or of a thread's track. */
static void name_event(struct chrome_sink *c, uint32_t pid, uint32_t tid, const char *what,
		       const char *name)
{
	fputs(c->n_out++ ? ",\n" : "", c->out);
	fprintf(c->out,
		"{\"ph\":\"M\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"name\":\"%s\",\"args\":"
		"{\"name\":",
		pid, tid, what);
	bc_json_string(c->out, name, (size_t)-1);
	fputs("}}", c->out);
}

static const char *comm_of(const struct chrome_sink *c, uint32_t pid)
{
	return bc_proc_name(c->state ? bc_state_proc(c->state, pid) : NULL);
}

/* The names of pid's process and of tid's track, as the stream knows them now. */
static void name_tracks(struct chrome_sink *c, uint32_t pid, uint32_t tid)
{
	const char *comm = comm_of(c, pid);
	char label[BC_COMM_LEN + 32], tid_text[16];

	name_event(c, pid, 0, "process_name", comm);
	snprintf(label, sizeof(label), "%s %" PRIu32 "/%s", comm, pid,
		 bc_tid_label(tid, tid_text, sizeof(tid_text)));
	name_event(c, pid, tid, "thread_name", label);
}

struct chrome_thread *chrome_thread_of(struct chrome_sink *c, const struct bc_rec_head *h)
{
	struct chrome_thread *th = bc_pidtab_find(&c->threads, h->tid);

	if (th && th->pid == h->pid)
		return th;
	if (th) /* a tid the stream now gives another process */
		bc_pidtab_remove(&c->threads, h->tid);
	th = bc_pidtab_add(&c->threads, h->tid);
	if (!th)
		return NULL;
	th->pid = h->pid;
	th->tid = h->tid;
	name_tracks(c, h->pid, h->tid);
	return th;
}

/* ---------------------------------------------------------------- processes */

static void instant(struct chrome_sink *c, const struct bc_rec_head *h, const char *name,
		    const char *cat)
{
	chrome_event_head(c, h->pid, h->tid, "i", name, cat, h->ktime);
	fputs(",\"s\":\"t\",\"args\":{", c->out);
}

static int fork_event(struct chrome_sink *c, const struct bc_rec_fork *f)
{
	bool thread = f->h.kind == BC_REC_THREAD_START;

	instant(c, &f->h, thread ? "thread start" : "fork", "process");
	fprintf(c->out, "\"child_pid\":%" PRIu32 ",\"child_tid\":%" PRIu32 "}}", f->child_pid,
		f->child_tid);
	return 0;
}

static int exec_event(struct chrome_sink *c, const struct bc_rec_exec *x)
{
	size_t n = strnlen(x->filename, sizeof(x->filename));

	instant(c, &x->h, "exec", "process");
	fputs("\"file\":", c->out);
	bc_json_string(c->out, x->filename, x->filename_len < n ? x->filename_len : n);
	fputs("}}", c->out);
	/* the process has a new name: its track and the thread's say it from here */
	name_tracks(c, x->h.pid, x->h.tid);
	return 0;
}

static int exit_event(struct chrome_sink *c, const struct bc_rec_exit *x)
{
	struct chrome_thread *th = bc_pidtab_find(&c->threads, x->h.tid);
	bool proc = x->h.kind == BC_REC_PROC_EXIT;

	if (th && th->pid == x->h.pid)
		chrome_drop_calls(c, th, x->h.ktime, "never returned: the thread exited");
	instant(c, &x->h, proc ? "exit" : "thread exit", "process");
	fprintf(c->out, "\"code\":%" PRId32 ",\"cpu_ns\":%" PRIu64 "}}", x->exit_code,
		(uint64_t)x->sum_exec);
	bc_sys_merge_forget(&c->calls, x->h.tid);
	if (bc_pidtab_exited(&c->threads, x->h.tid) < 0 ||
	    (proc && bc_pidtab_exited(&c->usage, x->h.pid) < 0))
		return -ENOMEM;
	return 0;
}

/* ---------------------------------------------------------------- waits, calls, samples */

/* `,"sf":N` for a stack, when it names any frame. -ENOMEM. */
static int stack_member(struct chrome_sink *c, const struct bc_rec_head *h, const __u64 *ips,
			size_t n, size_t n_kernel)
{
	int node = bc_stack_of(&c->names, BC_STACK_ROOT, h->pid, h->ktime, ips, n, n_kernel);

	if (node < 0)
		return node;
	if (node != BC_STACK_ROOT)
		fprintf(c->out, ",\"sf\":\"%016" PRIx64 "\"", c->names.nodes[node].id);
	return 0;
}

/* `"dur":..` of [start, end]; 0 when the clock says otherwise. */
static void duration(struct chrome_sink *c, uint64_t start, uint64_t end)
{
	fputs(",\"dur\":", c->out);
	bc_json_us(c->out, start && end >= start ? (int64_t)(end - start) : 0);
}

/*
 * A complete event of a call that began at start (0: not seen, then an
 * instant-length slice at h's time) and ended at h, with its stack.
 */
static int slice_head(struct chrome_sink *c, const struct bc_rec_head *h, const char *name,
		      const char *cat, uint64_t start, const __u64 *ips, size_t n)
{
	chrome_event_head(c, h->pid, h->tid, "X", name, cat, start ? start : h->ktime);
	duration(c, start, h->ktime);
	return stack_member(c, h, ips, n, 0);
}

static int offcpu_event(struct chrome_sink *c, const struct bc_rec_offcpu *o)
{
	bool blocked = o->state && !o->preempt;
	const char *sys = o->syscall >= 0 ? bc_syscall_name((uint32_t)o->syscall) : NULL;
	int rc;

	rc = slice_head(c, &o->h, blocked ? "off-CPU: blocked" : "off-CPU: preempted", "offcpu",
			o->off_ktime, o->ips, o->n_user);
	if (rc < 0)
		return rc;
	fprintf(c->out, ",\"args\":{\"state\":\"%c\",\"cpu\":%" PRIu32,
		bc_task_state_char(o->state), o->cpu);
	if (sys) {
		fputs(",\"syscall\":", c->out);
		bc_json_string(c->out, sys, (size_t)-1);
	}
	if (o->wake_ktime && o->wake_ktime <= o->h.ktime)
		fprintf(c->out, ",\"waker\":\"%" PRIu32 "/%" PRIu32 "\",\"runnable_ns\":%" PRIu64,
			o->waker_pid, o->waker_tid, (uint64_t)(o->h.ktime - o->wake_ktime));
	fputs("}}", c->out);
	return 0;
}

static int sample_event(struct chrome_sink *c, const struct bc_rec_profile *p)
{
	int rc;

	chrome_event_head(c, p->h.pid, p->h.tid, "P", "clock sample", "sample", p->h.ktime);
	rc = stack_member(c, &p->h, p->ips, (size_t)p->n_kernel + p->n_user, p->n_kernel);
	if (rc < 0)
		return rc;
	fprintf(c->out, ",\"args\":{\"cpu\":%" PRIu32 ",\"weight_ns\":%" PRIu64 "}}", p->cpu,
		c->profile_ns);
	return 0;
}

static int heap_event(struct chrome_sink *c, const struct bc_rec_heap *r)
{
	const char *fn = bc_heap_fn_name(r->fn);
	bool slice = r->start_ktime && r->start_ktime <= r->h.ktime;
	int rc;

	chrome_event_head(c, r->h.pid, r->h.tid, slice ? "X" : "i", fn ? fn : "heap", "heap",
			  slice ? r->start_ktime : r->h.ktime);
	if (slice)
		duration(c, r->start_ktime, r->h.ktime);
	else
		fputs(",\"s\":\"t\"", c->out);
	rc = stack_member(c, &r->h, r->ips, r->n_user, 0);
	if (rc < 0)
		return rc;
	fprintf(c->out, ",\"args\":{\"bytes\":%" PRIu64 ",\"addr\":\"0x%" PRIx64 "\"",
		(uint64_t)r->size, (uint64_t)r->addr);
	if (r->htype == BC_HEAP_REALLOC)
		fprintf(c->out, ",\"old_addr\":\"0x%" PRIx64 "\"", (uint64_t)r->old_addr);
	fputs("}}", c->out);
	return 0;
}

static int sync_event(struct chrome_sink *c, const struct bc_rec_sync *r)
{
	const char *fn = bc_sync_fn_name(r->fn);
	int rc;

	rc = slice_head(c, &r->h, fn ? fn : "sync wait", "sync", r->start_ktime, r->ips, r->n_user);
	if (rc < 0)
		return rc;
	fprintf(c->out, ",\"args\":{\"object\":\"0x%" PRIx64 "\"}}", (uint64_t)r->object);
	return 0;
}

static int io_event(struct chrome_sink *c, const struct bc_rec_io *r)
{
	bool failed = r->iotype >= BC_IO_ERROR_OFFSET;
	const char *type = bc_io_type_name(failed ? r->iotype - BC_IO_ERROR_OFFSET : r->iotype);
	const char *sys = r->nr == BC_IO_NR_INHERITED ? "inherited" : bc_syscall_name(r->nr);
	const char *fs = bc_fs_type_name(r->fstype), *path;
	size_t path_len;
	int rc;

	rc = slice_head(c, &r->h, sys ? sys : "io", "io", r->start_ktime, r->ips, r->n_user);
	if (rc < 0)
		return rc;
	fprintf(c->out,
		",\"args\":{\"type\":\"%s%s\",\"fd\":%" PRId32 ",\"bytes\":%" PRIu64
		",\"ret\":%" PRId64 ",\"fs\":",
		type ? type : "?", failed ? "_error" : "", r->fd, (uint64_t)r->nbyte,
		(int64_t)r->ret);
	bc_json_string(c->out, fs ? fs : "unknown", (size_t)-1);
	path = bc_io_path(r, &path_len);
	if (path_len) {
		fputs(",\"file\":", c->out);
		bc_json_string(c->out, path, path_len);
	}
	fputs("}}", c->out);
	return 0;
}

static int lost_event(struct chrome_sink *c, const struct bc_rec_lost *l)
{
	const char *cls = bc_loss_class_name(l->loss_class);
	char name[96];

	snprintf(name, sizeof(name), "lost %" PRIu64 " %s events", (uint64_t)l->count,
		 cls ? cls : "?");
	chrome_event_head(c, l->h.pid, l->h.tid, "i", name, "loss", l->h.ktime);
	fprintf(c->out,
		",\"s\":\"g\",\"args\":{\"count\":%" PRIu64 ",\"class\":\"%s\",\"cpu\":%" PRIu32
		"}}",
		(uint64_t)l->count, cls ? cls : "?", l->cpu);
	return 0;
}

/* a share of an interval, in percent with one decimal (over 100: several threads) */
static void percent(FILE *out, const char *name, uint64_t part, uint64_t whole, bool first)
{
	uint64_t tenths = whole ? (uint64_t)((long double)part * 1000 / whole) : 0;

	fprintf(out, "%s\"%s\":%" PRIu64 ".%" PRIu64, first ? "" : ",", name, tenths / 10,
		tenths % 10);
}

/*
 * An overview sample (-S) as a counter track of its process: the CPU it
 * used since its last sample (or since it began), user and system, and the
 * time its threads waited for a CPU, in percent of the interval.
 */
static int usage_counter(struct chrome_sink *c, const struct bc_rec_usage *u)
{
	struct chrome_usage *prev = bc_pidtab_find(&c->usage, u->h.pid);
	uint64_t since = prev ? prev->ktime : u->create;

	if (!prev) {
		prev = bc_pidtab_add(&c->usage, u->h.pid);
		if (!prev)
			return -ENOMEM;
	}
	if (u->h.ktime > since && u->utime >= prev->utime && u->stime >= prev->stime &&
	    u->wait >= prev->wait) {
		uint64_t span = u->h.ktime - since;

		chrome_event_head(c, u->h.pid, 0, "C", "CPU %", "usage", u->h.ktime);
		fputs(",\"args\":{", c->out);
		percent(c->out, "user", u->utime - prev->utime, span, true);
		percent(c->out, "system", u->stime - prev->stime, span, false);
		percent(c->out, "waiting for a CPU", u->wait - prev->wait, span, false);
		fputs("}}", c->out);
	}
	*prev = (struct chrome_usage){u->h.ktime, u->utime, u->stime, u->wait};
	return 0;
}

int chrome_other_event(struct chrome_sink *c, const struct bc_event *ev)
{
	const struct bc_rec_head *h = ev->rec;
	const void *r = h;

	if (h->kind == BC_REC_USAGE)
		return usage_counter(c, r);
	if (h->kind == BC_REC_PROC_NAME) {
		name_tracks(c, h->pid, h->tid);
		return 0;
	}
	if (h->kind == BC_REC_LOST)
		return lost_event(c, r);
	if (!chrome_thread_of(c, h))
		return -ENOMEM;
	switch (h->kind) {
	case BC_REC_PROC_FORK:
	case BC_REC_THREAD_START:
		return fork_event(c, r);
	case BC_REC_PROC_EXEC:
		return exec_event(c, r);
	case BC_REC_THREAD_EXIT:
	case BC_REC_PROC_EXIT:
		return exit_event(c, r);
	case BC_REC_OFFCPU:
		return offcpu_event(c, r);
	case BC_REC_PROFILE:
		return sample_event(c, r);
	case BC_REC_HEAP:
		return heap_event(c, r);
	case BC_REC_SYNC:
		return sync_event(c, r);
	case BC_REC_IO:
		return io_event(c, r);
	}
	return 0;
}

static int cmp_node_id(const void *a, const void *b, void *arg)
{
	const struct bc_stack_node *nodes = arg;
	uint64_t x = nodes[*(const uint32_t *)a].id, y = nodes[*(const uint32_t *)b].id;

	return x < y ? -1 : x > y;
}

int chrome_write_frames(struct chrome_sink *c)
{
	const struct bc_stack_names *sn = &c->names;
	uint32_t *order = sn->n_nodes > 1 ? calloc(sn->n_nodes - 1, sizeof(*order)) : NULL;

	if (sn->n_nodes > 1 && !order)
		return -ENOMEM;
	/* by id, so the file does not depend on the order stacks came in */
	for (size_t i = 1; i < sn->n_nodes; i++)
		order[i - 1] = (uint32_t)i;
	if (order)
		qsort_r(order, sn->n_nodes - 1, sizeof(*order), cmp_node_id, sn->nodes);
	fputs("\"stackFrames\":{", c->file);
	for (size_t k = 0; k + 1 < sn->n_nodes; k++) {
		const struct bc_stack_node *node = &sn->nodes[order[k]];
		const struct bc_fnkey *fn = bc_stack_node_fn(sn, order[k]);
		const char *name = bc_sym_display(fn->name);

		if (bc_stack_fn_is_kernel(fn) && !strncmp(name, "vmlinux`", 8))
			name += 8; /* its category says vmlinux */
		fprintf(c->file, "%s\n\"%016" PRIx64 "\":{\"name\":", k ? "," : "", node->id);
		bc_json_string(c->file, name, (size_t)-1);
		fputs(",\"category\":", c->file);
		bc_json_string(c->file, fn->object, (size_t)-1);
		if (node->parent != BC_STACK_ROOT)
			fprintf(c->file, ",\"parent\":\"%016" PRIx64 "\"",
				sn->nodes[node->parent].id);
		fputc('}', c->file);
	}
	fputs("}", c->file);
	free(order);
	return 0;
}
