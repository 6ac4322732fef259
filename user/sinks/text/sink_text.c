// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/outfile.h"
#include "bpfcollect/capture_fmt.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/names.h"
#include "bpfcollect/sink_text.h"
#include "bpfcollect/sys_merge.h"
#include "bpfcollect/syscalls.h"
#include "bpfcollect/sysdecode.h"

struct text_sink {
	struct bc_sink base;
	FILE *out;
	uint64_t start_ktime;
	struct bc_sys_merge calls;		  /* each thread's syscall in progress */
	char buf[BC_CAPTURE_RECORD_MAX * 4 + 64]; /* a record's captures, escaped */
};

static int text_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct text_sink *t = (struct text_sink *)s;

	t->start_ktime = sess->start_ktime;
	return 0;
}

/* Names from the kernel or files may hold anything: keep one token per field. */
static void put_token(FILE *out, const char *s, size_t max)
{
	size_t n = 0;

	for (; n < max && s[n]; n++)
		fputc((unsigned char)s[n] <= ' ' || s[n] == 0x7f ? '?' : s[n], out);
	if (n == 0)
		fputc('-', out);
}

/* Captured arguments and return values, as NAME=VALUE after the fixed fields. */
static void put_captures(struct text_sink *t, const struct bc_event *ev)
{
	int n = bc_format_func_captures(ev, " ", t->buf, sizeof(t->buf));

	if (n > 0)
		fprintf(t->out, " %s", t->buf);
}

static void sys_name_of(const struct bc_event *ev, uint32_t nr, char *buf, size_t len)
{
	if (ev->sys_name)
		snprintf(buf, len, "%s", ev->sys_name);
	else
		snprintf(buf, len, "syscall_%" PRIu32, nr);
}

static void put_func(struct text_sink *t, const struct bc_event *ev, uint32_t func_id)
{
	if (ev->func)
		put_token(t->out, bc_sym_display(ev->func->name), SIZE_MAX);
	else
		fprintf(t->out, "<unknown-id-%" PRIu32 ">", func_id);
}

static void func_entry_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_func_entry *e = (const void *)ev->rec;

	fputs("entry ", t->out);
	put_func(t, ev, e->func_id);
	fprintf(t->out, " cpu=%" PRIu32, e->cpu);
	put_captures(t, ev);
}

static void func_return_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_func_return *e = (const void *)ev->rec;

	fputs("return ", t->out);
	put_func(t, ev, e->func_id);
	fprintf(t->out, " ret=0x%" PRIx64, (uint64_t)e->retval);
	if (e->entry_ktime)
		fprintf(t->out, " dur=%" PRIu64, (uint64_t)(e->h.ktime - e->entry_ktime));
	put_captures(t, ev);
}

static void sys_enter_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_sys_enter *e = (const void *)ev->rec;
	char name[32];

	sys_name_of(ev, e->nr, name, sizeof(name));
	fprintf(t->out,
		"sys_enter %s args=0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64
		",0x%" PRIx64 ",0x%" PRIx64,
		name, (uint64_t)e->args[0], (uint64_t)e->args[1], (uint64_t)e->args[2],
		(uint64_t)e->args[3], (uint64_t)e->args[4], (uint64_t)e->args[5]);
	if (bc_sys_format_enter(e, e->h.size, t->buf, sizeof(t->buf)) != -EINVAL)
		fprintf(t->out, " call=%s", t->buf);
	/* Kept for the exit line, which shows the whole call (without memory, it shows less). */
	(void)bc_sys_merge_enter(&t->calls, e);
}

static void put_errno(FILE *out, int64_t ret)
{
	if (ret < 0 && ret >= -4095) {
		const char *name = strerrorname_np((int)-ret);

		fprintf(out, " err=%s", name ? name : "?");
	}
}

static void sys_exit_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_sys_exit *e = (const void *)ev->rec;
	const struct bc_rec_sys_enter *call;
	char name[32];
	size_t msize;

	sys_name_of(ev, e->nr, name, sizeof(name));
	fprintf(t->out, "sys_exit %s ret=%" PRId64, name, (int64_t)e->ret);
	put_errno(t->out, e->ret);
	if (e->enter_ktime)
		fprintf(t->out, " dur=%" PRIu64, (uint64_t)(e->h.ktime - e->enter_ktime));
	call = bc_sys_merge_exit(&t->calls, &e->h, &msize);
	if (call && bc_sys_format_enter(call, msize, t->buf, sizeof(t->buf)) != -EINVAL) {
		fprintf(t->out, " call=%s", t->buf);
		if (bc_sys_format_result(e->ret, e->nr, t->buf, sizeof(t->buf)) != -EINVAL)
			fprintf(t->out, " %s", t->buf);
	}
}

static void fork_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_fork *f = (const void *)ev->rec;

	fputs(f->h.kind == BC_REC_PROC_FORK ? "fork " : "thread ", t->out);
	put_token(t->out, f->comm, sizeof(f->comm));
	fprintf(t->out, " child_pid=%" PRIu32 " child_tid=%" PRIu32 " flags=0x%" PRIx64,
		f->child_pid, f->child_tid, (uint64_t)f->clone_flags);
}

static void exec_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_exec *x = (const void *)ev->rec;

	fputs("exec ", t->out);
	put_token(t->out, x->comm, sizeof(x->comm));
	fputs(" file=", t->out);
	put_token(t->out, x->filename, x->filename_len);
	fprintf(t->out, " old_tid=%" PRIu32, x->old_tid);
}

static void exit_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_exit *x = (const void *)ev->rec;

	bc_sys_merge_forget(&t->calls, x->h.tid);
	fputs(x->h.kind == BC_REC_PROC_EXIT ? "exit " : "thread_exit ", t->out);
	put_token(t->out, x->comm, sizeof(x->comm));
	fprintf(t->out, " code=%" PRId32, x->exit_code);
}

static void lost_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_lost *l = (const void *)ev->rec;
	const char *name = bc_loss_class_name(l->loss_class);

	fprintf(t->out, "lost %s count=%" PRIu64 " cpu=%" PRIu32, name ? name : "?",
		(uint64_t)l->count, l->cpu);
}

static void offcpu_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_offcpu *o = (const void *)ev->rec;
	const char *sys = o->syscall >= 0 ? bc_syscall_name((uint32_t)o->syscall) : NULL;
	uint64_t on = o->h.ktime;

	fprintf(t->out,
		"offcpu %s off=%" PRIu64 " state=%c wake=%" PRIu64 " waker=%" PRIu32 "/%" PRIu32
		" cpu=%" PRIu32 " frames=%u",
		o->state && !o->preempt ? "blocked" : "preempted", (uint64_t)(on - o->off_ktime),
		bc_task_state_char(o->state), o->wake_ktime ? (uint64_t)(on - o->wake_ktime) : 0,
		o->waker_pid, o->waker_tid, o->cpu, o->n_user);
	if (sys)
		fprintf(t->out, " syscall=%s", sys);
	else if (o->syscall >= 0)
		fprintf(t->out, " syscall=%" PRId32, o->syscall);
}

static void proc_name_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_proc_name *n = (const void *)ev->rec;

	fputs("process ", t->out);
	put_token(t->out, n->comm, sizeof(n->comm));
	fprintf(t->out, " ppid=%" PRIu32 "%s", n->ppid,
		n->flags & BC_PROC_KTHREAD ? " kthread" : "");
}

/* The leaf first: " stack=0x..,0x.." (n frames). */
static void put_stack(FILE *out, const __u64 *ips, size_t n)
{
	fputs(" stack=", out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s0x%" PRIx64, i ? "," : "", (uint64_t)ips[i]);
	if (!n)
		fputc('-', out);
}

static void sample_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_profile *p = (const void *)ev->rec;
	size_t n = (size_t)p->n_kernel + p->n_user;

	fprintf(t->out, "sample %s cpu=%" PRIu32 " kernel=%u user=%u",
		p->n_kernel ? "kernel" : "user", p->cpu, p->n_kernel, p->n_user);
	put_stack(t->out, p->ips, n);
}

static void heap_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_heap *r = (const void *)ev->rec;
	const char *fn = bc_heap_fn_name(r->fn);

	fputs("heap ", t->out);
	put_token(t->out, fn ? fn : "?", SIZE_MAX);
	fprintf(t->out, " size=%" PRIu64 " addr=0x%" PRIx64, (uint64_t)r->size, (uint64_t)r->addr);
	if (r->htype == BC_HEAP_REALLOC)
		fprintf(t->out, " old=0x%" PRIx64, (uint64_t)r->old_addr);
	if (r->start_ktime && r->start_ktime <= r->h.ktime)
		fprintf(t->out, " dur=%" PRIu64, (uint64_t)(r->h.ktime - r->start_ktime));
	fprintf(t->out, " pc=0x%" PRIx64, (uint64_t)r->pc);
	put_stack(t->out, r->ips, r->n_user);
}

static void sync_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_sync *r = (const void *)ev->rec;
	const char *fn = bc_sync_fn_name(r->fn);

	fputs("sync ", t->out);
	put_token(t->out, fn ? fn : "?", SIZE_MAX);
	fprintf(t->out, " object=0x%" PRIx64 " wait=%" PRIu64 " pc=0x%" PRIx64, (uint64_t)r->object,
		(uint64_t)(r->h.ktime - r->start_ktime), (uint64_t)r->pc);
	put_stack(t->out, r->ips, r->n_user);
}

static void io_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_io *r = (const void *)ev->rec;
	bool failed = r->iotype >= BC_IO_ERROR_OFFSET;
	const char *type = bc_io_type_name(failed ? r->iotype - BC_IO_ERROR_OFFSET : r->iotype);
	const char *fs = bc_fs_type_name(r->fstype);
	const char *path;
	size_t path_len;

	fputs("io ", t->out);
	if (r->nr == BC_IO_NR_INHERITED)
		fputs("inherited", t->out);
	else
		put_token(t->out, bc_syscall_name(r->nr) ? bc_syscall_name(r->nr) : "?", SIZE_MAX);
	fprintf(t->out, " type=%s%s fd=%" PRId32, type ? type : "?", failed ? "_error" : "", r->fd);
	if (r->ofd >= 0)
		fprintf(t->out, " ofd=%" PRId32, r->ofd);
	fprintf(t->out, " bytes=%" PRIu64 " ret=%" PRId64, (uint64_t)r->nbyte, (int64_t)r->ret);
	put_errno(t->out, r->ret);
	if (r->start_ktime)
		fprintf(t->out, " dur=%" PRIu64, (uint64_t)(r->h.ktime - r->start_ktime));
	fprintf(t->out, " fs=%s", fs ? fs : "unknown");
	path = bc_io_path(r, &path_len);
	if (path_len) {
		fputs(" file=", t->out);
		put_token(t->out, path, path_len);
	}
	put_stack(t->out, r->ips, r->n_user);
}

static void usage_line(struct text_sink *t, const struct bc_event *ev)
{
	const struct bc_rec_usage *u = (const void *)ev->rec;

	fprintf(t->out,
		"usage - rtime=%" PRIu64 " utime=%" PRIu64 " stime=%" PRIu64 " wait=%" PRIu64
		" sleep=%" PRIu64 " vctx=%" PRIu64 " ictx=%" PRIu64 " minf=%" PRIu64
		" majf=%" PRIu64 " ioch=%" PRIu64,
		(uint64_t)u->rtime, (uint64_t)u->utime, (uint64_t)u->stime, (uint64_t)u->wait,
		(uint64_t)u->sleep, (uint64_t)u->vctx, (uint64_t)u->ictx, (uint64_t)u->minf,
		(uint64_t)u->majf, (uint64_t)u->ioch);
}

typedef void (*line_fn)(struct text_sink *t, const struct bc_event *ev);

/* The line writer of each record kind. */
static line_fn line_of(unsigned int kind)
{
	switch (kind) {
	case BC_REC_FUNC_ENTRY:
		return func_entry_line;
	case BC_REC_FUNC_RETURN:
		return func_return_line;
	case BC_REC_SYS_ENTER:
		return sys_enter_line;
	case BC_REC_SYS_EXIT:
		return sys_exit_line;
	case BC_REC_PROC_FORK:
	case BC_REC_THREAD_START:
		return fork_line;
	case BC_REC_PROC_EXEC:
		return exec_line;
	case BC_REC_THREAD_EXIT:
	case BC_REC_PROC_EXIT:
		return exit_line;
	case BC_REC_LOST:
		return lost_line;
	case BC_REC_OFFCPU:
		return offcpu_line;
	case BC_REC_PROC_NAME:
		return proc_name_line;
	case BC_REC_PROFILE:
		return sample_line;
	case BC_REC_HEAP:
		return heap_line;
	case BC_REC_SYNC:
		return sync_line;
	case BC_REC_IO:
		return io_line;
	case BC_REC_USAGE:
		return usage_line;
	}
	return NULL;
}

static int text_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct text_sink *t = (struct text_sink *)s;
	const struct bc_rec_head *h = ev->rec;
	int64_t rel = (int64_t)(h->ktime - t->start_ktime);
	line_fn line = line_of(h->kind);

	fprintf(t->out,
		"%s%" PRId64 ".%09" PRId64 " %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu32 " ",
		rel < 0 ? "-" : "", (rel < 0 ? -rel : rel) / 1000000000,
		(rel < 0 ? -rel : rel) % 1000000000, h->pid, h->tid, (uint64_t)h->seq, h->depth);
	if (line)
		line(t, ev);
	else
		fprintf(t->out, "kind_0x%x -", h->kind);
	fputc('\n', t->out);
	return ferror(t->out) ? bc_io_errno() : 0;
}

static void text_destroy(struct bc_sink *s)
{
	bc_sys_merge_free(&((struct text_sink *)s)->calls);
	free(s);
}

static const struct bc_sink_ops text_ops = {
	.name = "text",
	.begin = text_begin,
	.event = text_event,
	.destroy = text_destroy,
};

struct bc_sink *bc_text_sink_new(FILE *out)
{
	struct text_sink *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->base.ops = &text_ops;
	t->out = out;
	return &t->base;
}
