// SPDX-License-Identifier: MIT
/*
 * The RTL sink (docs/rtl.md): one scope log per process, PREFIX_PID.log.
 *
 * Lines wait in a reorder buffer and leave it sorted by (time, thread,
 * the thread's record sequence), once nothing older can arrive (the
 * ring's order differs from time order only between CPUs, by far less
 * than WINDOW_NS): so a file is in time order, and a recording converted
 * later gives the same files byte for byte. A file is made at its
 * process's first line and closed after its exit line.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpfcollect/capture_fmt.h"
#include "bpfcollect/cli.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/outfile.h"
#include "bpfcollect/rtl.h"
#include "bpfcollect/state.h"
#include "../reorder.h"
#include "rtl_sink.h"

#define WINDOW_NS   (50ull * 1000000)
#define MSG_MAX	    2048
#define ENTER_WORDS (BC_CAPTURE_RECORD_MAX / 8)

struct rtl_thread {
	uint32_t tid;
	const char **scopes; /* open scopes, outermost first (cached names) */
	size_t depth, cap;
	uint64_t enter[ENTER_WORDS]; /* its pending syscall entry */
	uint32_t enter_size;
};

struct rtl_proc {
	uint32_t pid, serial;
	const char *scope; /* "MODULE (AUTHOR) ::", for lines outside any function */
	char *exe;
	struct rtl_thread *threads;
	size_t nthreads, capthreads;
	struct bc_outfile *file; /* while open */
	size_t lines;		 /* its lines waiting in the reorder buffer */
	bool used;		 /* false: a free slot */
	bool opened, closed, exited;
	uint64_t first_ktime;
};

struct pending {
	uint64_t ktime, seq;
	uint32_t proc, tid, sub;
	char kind;
	bool marker, last; /* last: the process's exit line, its file closes after it */
	const char *scope;
	char *msg;
};

struct rtl_sink {
	struct bc_sink base;
	char prefix[PATH_MAX];
	char protect[PATH_MAX];
	bool replace, samples;
	char author[64];
	int64_t wall_offset_ns;
	uint32_t root_pid;
	const struct bc_state *state;
	/*
	 * Processes: a slot is freed once its file is closed and none of its
	 * lines wait, and serves the next, so memory stays flat however many
	 * processes come and go.
	 */
	struct rtl_proc *procs;
	size_t nprocs, capprocs;
	uint32_t *free_procs;
	size_t n_free, cap_free;
	struct bc_idmap by_pid; /* pid -> index + 1 of its current process */
	const char *root_exe;	/* the session's argv[0] */
	char **images;		/* process scopes, one per module: lines point at them */
	size_t n_images, cap_images;
	char **func_scopes; /* by function id, made at first use */
	uint8_t *func_msg;  /* by function id: 0 not looked at, 1 no, 2 + N its message arg N */
	size_t nfunc_scopes;
	struct bc_rtl_opts opts;
	struct bc_reorder q; /* of struct pending */
	uint64_t flushed_at; /* the stream time of the last flush */
	char line[BC_RTL_LINE_MAX];
	char msg[MSG_MAX];
	int error;
	/* files a full disk cut short (each ends at its last whole line), said at their close */
	int cut_errno;
	size_t cut_files;
	uint64_t cut_records; /* lines not written past the first file's */
};

/* ------------------------------------------------------------ processes */

/* The one copy of a process scope, kept to the end (as few as the modules run). */
static const char *image_scope(struct rtl_sink *t, const char *scope)
{
	for (size_t i = 0; i < t->n_images; i++)
		if (strcmp(t->images[i], scope) == 0)
			return t->images[i];
	if (BC_GROW(t->images, t->cap_images, t->n_images + 1) ||
	    !(t->images[t->n_images] = strdup(scope)))
		return NULL;
	return t->images[t->n_images++];
}

/*
 * What p runs now, as the stream says (its exec, else its name): its
 * executable and the scope of its lines outside any function.
 */
static int proc_image(struct rtl_sink *t, struct rtl_proc *p, const char *exe)
{
	char module[64], scope[256];
	const char *shared;
	char *e = strdup(exe);

	bc_rtl_module(exe, module, sizeof(module));
	snprintf(scope, sizeof(scope), "%s (%s) ::", p->pid ? module : "kernel", t->author);
	shared = image_scope(t, scope);
	if (!e || !shared) {
		free(e);
		return -ENOMEM;
	}
	p->scope = shared;
	free(p->exe);
	p->exe = e;
	return 0;
}

/* p's own memory, and its file if still open (the end of a failed recording). */
static void proc_clear(struct rtl_proc *p)
{
	if (p->file) {
		bc_outfile_abort(p->file);
		free(p->file);
	}
	for (size_t k = 0; k < p->nthreads; k++)
		free(p->threads[k].scopes);
	free(p->threads);
	free(p->exe);
	memset(p, 0, sizeof(*p));
}

/* Frees slot i once its process is done: file closed, no line of it waiting. */
static void proc_release_if_done(struct rtl_sink *t, uint32_t i)
{
	struct rtl_proc *p = &t->procs[i];
	uint32_t *cur;

	if (!p->used || !p->closed || p->lines)
		return;
	cur = bc_idmap_find(&t->by_pid, p->pid);
	if (cur && *cur == i + 1)
		bc_idmap_remove(&t->by_pid, p->pid);
	proc_clear(p);
	t->free_procs[t->n_free++] = i; /* room made when the slot was taken */
}

static struct rtl_proc *proc_new(struct rtl_sink *t, uint32_t pid)
{
	const struct bc_proc *sp = bc_state_proc(t->state, pid), *up = sp;
	const char *exe;
	struct rtl_proc *p;

	/* a fork child runs its parent's image until it execs: the nearest exec up the tree */
	for (int hops = 0; up && !up->exe && up->ppid && up->ppid != up->pid && hops < 64; hops++)
		up = bc_state_proc(t->state, up->ppid);
	exe = up && up->exe ? up->exe : sp && sp->comm[0] ? sp->comm : "unknown";
	uint32_t *i;

	if (!pid)
		exe = "kernel";
	else if (pid == t->root_pid && !(sp && sp->exe) && t->root_exe)
		exe = t->root_exe;
	if ((!t->n_free && BC_GROW(t->procs, t->capprocs, t->nprocs + 1)) ||
	    BC_GROW(t->free_procs, t->cap_free, t->nprocs + 1) ||
	    bc_idmap_get_or_add(&t->by_pid, pid, 0, &i))
		return NULL;
	p = &t->procs[t->n_free ? t->free_procs[t->n_free - 1] : t->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->used = true;
	p->serial = sp && sp->serial ? sp->serial : 1;
	if (proc_image(t, p, exe) < 0) {
		proc_clear(p);
		return NULL;
	}
	if (t->n_free)
		t->n_free--;
	else
		t->nprocs++;
	*i = (uint32_t)(p - t->procs) + 1;
	return p;
}

/* pid's process: a new one once the one before exited and the stream made another. */
static struct rtl_proc *proc_of(struct rtl_sink *t, uint32_t pid)
{
	uint32_t *i = bc_idmap_find(&t->by_pid, pid);
	struct rtl_proc *p = i && *i ? &t->procs[*i - 1] : NULL;
	const struct bc_proc *sp;

	if (p && p->exited && (sp = bc_state_proc(t->state, pid)) && sp->serial > p->serial)
		p = NULL;
	return p ? p : proc_new(t, pid);
}

static struct rtl_thread *thread_of(struct rtl_proc *p, uint32_t tid)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == tid)
			return &p->threads[i];
	if (BC_GROW(p->threads, p->capthreads, p->nthreads + 1))
		return NULL;
	memset(&p->threads[p->nthreads], 0, sizeof(*p->threads));
	p->threads[p->nthreads].tid = tid;
	return &p->threads[p->nthreads++];
}

/* The scope name of a function, made once. */
static const char *func_scope(struct rtl_sink *t, const struct bc_func *f)
{
	char scope[1600];

	if (f->id >= t->nfunc_scopes) {
		size_t n = (size_t)f->id + 1;
		char **v = realloc(t->func_scopes, n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + t->nfunc_scopes, 0, (n - t->nfunc_scopes) * sizeof(*v));
		t->func_scopes = v;
		uint8_t *m = realloc(t->func_msg, n);

		if (!m)
			return NULL;
		memset(m + t->nfunc_scopes, 0, n - t->nfunc_scopes);
		t->func_msg = m;
		t->nfunc_scopes = n;
	}
	if (!t->func_msg[f->id]) {
		unsigned int arg = bc_rtl_message_arg(&t->opts, f->object, f->name);

		t->func_msg[f->id] = (uint8_t)(arg ? 2 + arg : 1);
	}
	if (!t->func_scopes[f->id] &&
	    bc_rtl_scope(f->object, t->author, f->name, scope, sizeof(scope)) == 0)
		t->func_scopes[f->id] = strdup(scope);
	return t->func_scopes[f->id];
}

/* ------------------------------------------------------------ the reorder buffer */

static int add_line(struct rtl_sink *t, struct rtl_proc *p, const struct bc_rec_head *h,
		    uint32_t sub, char kind, const char *scope, const char *msg, bool marker)
{
	char *copy = strdup(msg);
	struct pending *l = copy ? bc_reorder_push(&t->q, h->ktime) : NULL;

	if (!l) {
		free(copy);
		return -ENOMEM;
	}
	*l = (struct pending){.ktime = h->ktime,
			      .seq = h->seq,
			      .proc = (uint32_t)(p - t->procs),
			      .tid = h->tid,
			      .sub = sub,
			      .kind = kind,
			      .marker = marker,
			      .scope = scope,
			      .msg = copy};
	p->lines++;
	return 0;
}

static int line_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	int c = bc_reorder_key_cmp(x->ktime, x->tid, x->seq, y->ktime, y->tid, y->seq);

	if (c)
		return c;
	if (x->sub != y->sub)
		return x->sub < y->sub ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	c = strcmp(x->scope, y->scope);
	return c ? c : strcmp(x->msg, y->msg);
}

/* The first line: time 0 as wall time, the pid and the executable. */
static int open_file(struct rtl_sink *t, struct rtl_proc *p, uint64_t ktime)
{
	char path[PATH_MAX + 32], err[512], stamp[64], msg[PATH_MAX + 128];
	int64_t wall = bc_wall_ns(ktime, t->wall_offset_ns);
	time_t secs = (time_t)(wall / 1000000000);
	struct tm tm;
	int n;

	if (p->serial > 1)
		n = snprintf(path, sizeof(path), "%s_%" PRIu32 ".%" PRIu32 ".log", t->prefix,
			     p->pid, p->serial);
	else
		n = snprintf(path, sizeof(path), "%s_%" PRIu32 ".log", t->prefix, p->pid);
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	p->file = calloc(1, sizeof(*p->file));
	if (!p->file)
		return -ENOMEM;
	n = bc_outfile_open(p->file, path, t->replace ? BC_OUTFILE_REPLACE : BC_OUTFILE_CREATE,
			    t->protect[0] ? t->protect : NULL, err, sizeof(err));
	if (n < 0) {
		free(p->file);
		p->file = NULL;
		/* its lines still queued are dropped, not tried (and said) again at the end */
		p->closed = true;
		bc_error("%s", err); /* through bc_error: a status line is cleared first */
		return n;
	}
	p->opened = true;
	p->first_ktime = ktime;
	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(msg, sizeof(msg), "start %s.%09" PRId64 "Z pid %" PRIu32 " exe %s", stamp,
		 wall % 1000000000, p->pid, p->exe);
	bc_rtl_line(t->line, sizeof(t->line), 0, p->pid, '|', p->scope, msg, strlen(msg), false);
	fputs(t->line, p->file->f);
	bc_outfile_record(p->file); /* a line is a record: a full disk cuts the file at one */
	return 0;
}

/*
 * p's file, complete: renamed into place (REPLACE) and closed. One a full
 * disk cut short ends at its last whole line: the first is said at once,
 * the others at the end, and the recording goes on.
 */
static int close_file(struct rtl_sink *t, struct rtl_proc *p)
{
	char err[PATH_MAX + 256];
	bool full = bc_outfile_full(p->file);
	uint64_t lost = bc_outfile_unwritten(p->file);
	int rc = 0;

	p->closed = true;
	if (p->file) {
		rc = bc_outfile_commit(p->file, err, sizeof(err));
		bc_outfile_abort(p->file);
		free(p->file);
		p->file = NULL;
	}
	if (rc < 0 && full) {
		if (!t->cut_files++)
			bc_error("%s", err); /* through bc_error: a status line is cleared first */
		else
			t->cut_records += lost;
		t->cut_errno = t->cut_errno ? t->cut_errno : rc;
		rc = 0;
	}
	return rc;
}

static int write_line(struct rtl_sink *t, const struct pending *l)
{
	struct rtl_proc *p = &t->procs[l->proc];
	int rc;

	if (p->closed)
		return 0; /* after its exit: nothing more belongs to it */
	if (!p->opened && (rc = open_file(t, p, l->ktime)) < 0)
		return rc;
	bc_rtl_line(t->line, sizeof(t->line), (l->ktime - p->first_ktime) / 1000000, l->tid,
		    l->kind, l->scope, l->msg, strlen(l->msg), l->marker);
	if (fputs(t->line, p->file->f) < 0)
		return bc_io_errno();
	bc_outfile_record(p->file);
	if (!l->last)
		return 0;
	return close_file(t, p);
}

static int emit_line(void *ctx, void *item)
{
	struct rtl_sink *t = ctx;
	struct pending *l = item;
	int rc = write_line(t, l);

	free(l->msg);
	t->procs[l->proc].lines--;
	proc_release_if_done(t, l->proc);
	return rc;
}

static void drop_line(void *item)
{
	free(((struct pending *)item)->msg);
}

/* Writes what can no longer be overtaken (everything when all). */
static int flush(struct rtl_sink *t, bool all)
{
	return bc_reorder_flush(&t->q, all, emit_line, t);
}

/* ------------------------------------------------------------ events */

/* A --rtl-message function: its calls are messages, not scopes. */
static bool is_message_fn(struct rtl_sink *t, const struct bc_func *f)
{
	return func_scope(t, f) && t->func_msg[f->id] > 1;
}

/*
 * A call of a --rtl-message function: a `|` line in the caller's scope
 * whose message is the string argument, as the program wrote it: one
 * starting with { or } is a logical scope's mark (not escaped). Its return
 * makes no line.
 */
static int message_line(struct rtl_sink *t, struct rtl_proc *p, struct rtl_thread *th,
			const struct bc_event *ev)
{
	const struct bc_rec_head *h = ev->rec;
	unsigned int arg = t->func_msg[ev->func->id] - 2u;
	const struct bc_cap_item *item;
	const uint8_t *data;
	struct bc_cap_iter it;
	size_t len = 0;

	bc_cap_iter_init(&it, h, h->size, bc_cap_fixed_size(h->kind));
	while (bc_cap_iter_next(&it, &item, &data)) {
		if (item->source != BC_SRC_ARG || item->index + 1u != arg)
			continue;
		len = item->len < sizeof(t->msg) - 1 ? item->len : sizeof(t->msg) - 1;
		memcpy(t->msg, data, len);
		break;
	}
	/* a C string: up to its NUL */
	t->msg[len] = '\0';
	return add_line(t, p, h, 0, '|', th->depth ? th->scopes[th->depth - 1] : p->scope, t->msg,
			true);
}

/* `}` for every scope th still has open, innermost first, with why (repaired, or open at detach).
 */
static int repair(struct rtl_sink *t, struct rtl_proc *p, struct rtl_thread *th,
		  const struct bc_rec_head *h, uint32_t *sub, const char *why)
{
	struct bc_rec_head at = *h;
	int rc = 0;

	at.tid = th->tid;
	while (th->depth && !rc)
		rc = add_line(t, p, &at, (*sub)++, '}', th->scopes[--th->depth], why, false);
	return rc;
}

static int on_process_exit(struct rtl_sink *t, struct rtl_proc *p, const struct bc_event *ev)
{
	const struct bc_rec_head *h = ev->rec;
	uint32_t sub = 0;
	int rc = 0;

	for (size_t i = 0; i < p->nthreads && !rc; i++) {
		struct rtl_thread *th = &p->threads[i];

		if (h->kind == BC_REC_PROC_EXIT || th->tid == h->tid)
			rc = repair(t, p, th, h, &sub, "repaired: the thread ended inside");
	}
	if (rc || rtl_message(ev, NULL, false, t->msg, sizeof(t->msg)))
		return rc;
	rc = add_line(t, p, h, sub, '|', p->scope, t->msg, false);
	if (!rc && h->kind == BC_REC_PROC_EXIT) {
		p->exited = true;
		/* the root's file stays open for the losses the recording counts at its end */
		((struct pending *)bc_reorder_last(&t->q))->last = p->pid != t->root_pid;
	}
	return rc;
}

static int rtl_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct rtl_sink *t = (struct rtl_sink *)s;
	const struct bc_rec_head *h = ev->rec;
	struct rtl_proc *p = proc_of(t, h->pid);
	struct rtl_thread *th = p ? thread_of(p, h->tid) : NULL;
	const struct bc_rec_sys_enter *enter = NULL;
	const char *scope;
	int rc = 0;

	if (!th)
		return -ENOMEM;
	if (h->kind == BC_REC_SYS_ENTER) {
		th->enter_size = h->size <= sizeof(th->enter) ? h->size : 0;
		memcpy(th->enter, h, th->enter_size);
		return 0;
	}
	if (h->kind == BC_REC_PROC_EXEC) {
		const struct bc_rec_exec *x = (const void *)h;
		char file[sizeof(x->filename) + 1];

		snprintf(file, sizeof(file), "%.*s", (int)x->filename_len, x->filename);
		/* a new image has no frames open: the old ones never return */
		th->depth = 0;
		rc = proc_image(t, p, file);
	}
	if (rc)
		return rc;
	if (h->kind == BC_REC_PROC_EXIT || h->kind == BC_REC_THREAD_EXIT)
		rc = on_process_exit(t, p, ev);
	else if (ev->func && is_message_fn(t, ev->func))
		rc = h->kind == BC_REC_FUNC_ENTRY ? message_line(t, p, th, ev) : 0;
	else if (h->kind == BC_REC_FUNC_ENTRY && ev->func) {
		scope = func_scope(t, ev->func);
		if (!scope || BC_GROW(th->scopes, th->cap, th->depth + 1))
			return -ENOMEM;
		th->scopes[th->depth++] = scope;
		rtl_message(ev, NULL, false, t->msg, sizeof(t->msg));
		rc = add_line(t, p, h, 0, '{', scope, t->msg, false);
	} else if (h->kind == BC_REC_FUNC_RETURN && ev->func) {
		uint32_t sub = 0;

		scope = func_scope(t, ev->func);
		/* frames a longjmp or an exception left (their returns never come) */
		while (!rc && th->depth > (size_t)h->depth + 1)
			rc = add_line(t, p, h, sub++, '}', th->scopes[--th->depth],
				      "repaired: left without a return (longjmp or exception)",
				      false);
		/* the stream pairs returns with entries; a stray one closes nothing */
		if (rc || !th->depth || th->scopes[th->depth - 1] != scope)
			return rc;
		th->depth--;
		rtl_message(ev, NULL, false, t->msg, sizeof(t->msg));
		rc = add_line(t, p, h, sub, '}', scope, t->msg, false);
	} else {
		if (h->kind == BC_REC_SYS_EXIT && th->enter_size) {
			const struct bc_rec_sys_enter *e = (const void *)th->enter;

			if (e->nr == ((const struct bc_rec_sys_exit *)(const void *)h)->nr)
				enter = e;
		}
		if (!rtl_message(ev, enter, t->samples, t->msg, sizeof(t->msg)))
			rc = add_line(t, p, h, 0, '|',
				      th->depth ? th->scopes[th->depth - 1] : p->scope, t->msg,
				      false);
		if (h->kind == BC_REC_SYS_EXIT)
			th->enter_size = 0;
	}
	/*
	 * Lines leave once they can no longer be overtaken: checked every
	 * window of stream time, so a short process's file closes soon after
	 * its exit (files open stay few however many processes come and go).
	 */
	if (!rc && (bc_reorder_due(&t->q) || t->q.newest >= t->flushed_at + WINDOW_NS)) {
		t->flushed_at = t->q.newest;
		rc = flush(t, false);
	}
	return rc;
}

static int rtl_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct rtl_sink *t = (struct rtl_sink *)s;

	t->wall_offset_ns = sess->wall_offset_ns;
	t->root_pid = sess->root_pid;
	t->root_exe = sess->argv && sess->argv[0] ? sess->argv[0] : NULL;
	t->state = sess->state;
	return 0;
}

static int rtl_end(struct bc_sink *s, const struct bc_session_end *end)
{
	struct rtl_sink *t = (struct rtl_sink *)s;
	struct bc_rec_head at = {.ktime = end->end_ktime, .seq = UINT64_MAX};
	int rc = 0;

	/* what the recording ended inside of */
	for (size_t i = 0; i < t->nprocs && !rc; i++) {
		uint32_t sub = 0;

		for (size_t k = 0; k < t->procs[i].nthreads && !rc; k++)
			rc = repair(t, &t->procs[i], &t->procs[i].threads[k], &at, &sub,
				    "open at detach");
	}
	if (!rc)
		rc = flush(t, true);
	for (size_t i = 0; i < t->nprocs; i++) {
		struct rtl_proc *p = &t->procs[i];

		if (p->used && p->opened && !p->closed && close_file(t, p) < 0 && !rc)
			rc = -EIO;
	}
	if (t->cut_files > 1)
		bc_error("%zu more -f rtl file%s cut short by the full disk, each at its last "
			 "whole line: %" PRIu64 " records were not written in them",
			 t->cut_files - 1, t->cut_files == 2 ? " was" : "s were", t->cut_records);
	/* the files cut short were said: the command ends with their error */
	return rc ? rc : t->cut_errno;
}

static void rtl_destroy(struct bc_sink *s)
{
	struct rtl_sink *t = (struct rtl_sink *)s;

	bc_reorder_free(&t->q, drop_line);
	for (size_t i = 0; i < t->nprocs; i++)
		proc_clear(&t->procs[i]);
	free(t->procs);
	free(t->free_procs);
	for (size_t i = 0; i < t->n_images; i++)
		free(t->images[i]);
	free(t->images);
	for (size_t i = 0; i < t->nfunc_scopes; i++)
		free(t->func_scopes[i]);
	free(t->func_scopes);
	free(t->func_msg);
	bc_idmap_free(&t->by_pid);
	free(t);
}

static const struct bc_sink_ops rtl_ops = {
	.name = "rtl",
	.begin = rtl_begin,
	.event = rtl_event,
	.end = rtl_end,
	.destroy = rtl_destroy,
};

struct bc_sink *bc_rtl_sink_new(const char *prefix, bool replace, const char *protect,
				const struct bc_rtl_opts *o, char *err, size_t errlen)
{
	struct rtl_sink *t = calloc(1, sizeof(*t));

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->base.ops = &rtl_ops;
	bc_reorder_init(&t->q, sizeof(struct pending), WINDOW_NS, line_cmp);
	if (snprintf(t->prefix, sizeof(t->prefix), "%s", prefix) >= (int)sizeof(t->prefix) - 32) {
		snprintf(err, errlen, "-f rtl: the prefix '%s' is too long", prefix);
		free(t);
		return NULL;
	}
	snprintf(t->protect, sizeof(t->protect), "%s", protect ? protect : "");
	t->opts = *o;
	snprintf(t->author, sizeof(t->author), "%s",
		 o->author[0] ? o->author : BC_RTL_DEFAULT_AUTHOR);
	t->replace = replace;
	t->samples = o->samples;
	return &t->base;
}
