// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>

#include "bpfcollect/capture_fmt.h"
#include "bpfcollect/names.h"
#include "bpfcollect/sink_text.h"
#include "bpfcollect/syscalls.h"
#include "bpfcollect/sysdecode.h"

/* The last syscall entry of a thread, to render the whole call at its exit. */
struct pending_sys {
	uint32_t tid;
	uint32_t size;
	uint64_t rec[BC_CAPTURE_RECORD_MAX / 8];
};

struct text_sink {
	struct bc_sink base;
	FILE *out;
	uint64_t start_ktime;
	struct pending_sys *pending;
	size_t n_pending;
	uint64_t merged[BC_CAPTURE_RECORD_MAX * 2 / 8];
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

static struct pending_sys *pending_of(struct text_sink *t, uint32_t tid, bool create)
{
	for (size_t i = 0; i < t->n_pending; i++)
		if (t->pending[i].tid == tid)
			return &t->pending[i];
	if (!create)
		return NULL;
	struct pending_sys *v = realloc(t->pending, (t->n_pending + 1) * sizeof(*v));

	if (!v)
		return NULL;
	t->pending = v;
	v[t->n_pending].tid = tid;
	v[t->n_pending].size = 0;
	return &v[t->n_pending++];
}

static bool exit_has_item(const struct bc_rec_head *exit_rec, unsigned int index)
{
	const struct bc_cap_item *item;
	const uint8_t *data;
	struct bc_cap_iter it;

	bc_cap_iter_init(&it, exit_rec, exit_rec->size, sizeof(struct bc_rec_sys_exit));
	while (bc_cap_iter_next(&it, &item, &data))
		if (item->index == index)
			return true;
	return false;
}

/*
 * The entry of this exit with the paths the exit carries (read again there
 * because the entry could not fault them in) in place of the entry's failed
 * reads; NULL if the entry is unknown.
 */
static const struct bc_rec_sys_enter *merge_call(struct text_sink *t, const struct bc_rec_head *x,
						 size_t *size)
{
	struct pending_sys *p = pending_of(t, x->tid, false);
	const struct bc_rec_sys_enter *e;
	const struct bc_cap_item *item;
	const uint8_t *data;
	struct bc_cap_iter it;
	uint8_t *out = (uint8_t *)t->merged;
	size_t pos = sizeof(*e);

	if (!p || !p->size)
		return NULL;
	e = (const void *)p->rec;
	if (e->nr != ((const struct bc_rec_sys_exit *)x)->nr)
		return NULL;
	memcpy(out, e, sizeof(*e));
	bc_cap_iter_init(&it, e, p->size, sizeof(*e));
	while (bc_cap_iter_next(&it, &item, &data)) {
		size_t n = sizeof(*item) + ((item->len + 7U) & ~7U);

		if ((item->flags & BC_CAPF_FAULT) && exit_has_item(x, item->index))
			continue;
		memcpy(out + pos, item, n);
		pos += n;
	}
	bc_cap_iter_init(&it, x, x->size, sizeof(struct bc_rec_sys_exit));
	while (bc_cap_iter_next(&it, &item, &data)) {
		size_t n = sizeof(*item) + ((item->len + 7U) & ~7U);

		if (pos + n > sizeof(t->merged))
			break;
		memcpy(out + pos, item, n);
		pos += n;
	}
	((struct bc_rec_head *)out)->size = (uint16_t)pos;
	p->size = 0;
	*size = pos;
	return (const void *)out;
}

/* Captured arguments and return values, as NAME=VALUE after the fixed fields. */
static void put_captures(struct text_sink *t, const struct bc_event *ev)
{
	int n = bc_format_func_captures(ev, " ", t->buf, sizeof(t->buf));

	if (n > 0)
		fprintf(t->out, " %s", t->buf);
}

static int text_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct text_sink *t = (struct text_sink *)s;
	const struct bc_rec_head *h = ev->rec;
	int64_t rel = (int64_t)(h->ktime - t->start_ktime);
	FILE *out = t->out;
	char sysname[32];

	fprintf(out, "%s%" PRId64 ".%09" PRId64 " %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu32 " ",
		rel < 0 ? "-" : "", (rel < 0 ? -rel : rel) / 1000000000,
		(rel < 0 ? -rel : rel) % 1000000000, h->pid, h->tid, (uint64_t)h->seq, h->depth);
	if (h->kind == BC_REC_SYS_ENTER || h->kind == BC_REC_SYS_EXIT) {
		uint32_t nr = h->kind == BC_REC_SYS_ENTER ? ((const struct bc_rec_sys_enter *)h)->nr
							  : ((const struct bc_rec_sys_exit *)h)->nr;

		if (ev->sys_name)
			snprintf(sysname, sizeof(sysname), "%s", ev->sys_name);
		else
			snprintf(sysname, sizeof(sysname), "syscall_%" PRIu32, nr);
	}
	switch (h->kind) {
	case BC_REC_FUNC_ENTRY: {
		const struct bc_rec_func_entry *e = (const void *)h;

		fputs("entry ", out);
		if (ev->func)
			put_token(out, ev->func->name, SIZE_MAX);
		else
			fprintf(out, "<unknown-id-%" PRIu32 ">", e->func_id);
		fprintf(out, " cpu=%" PRIu32, e->cpu);
		put_captures(t, ev);
		fputc('\n', out);
		break;
	}
	case BC_REC_FUNC_RETURN: {
		const struct bc_rec_func_return *e = (const void *)h;

		fputs("return ", out);
		if (ev->func)
			put_token(out, ev->func->name, SIZE_MAX);
		else
			fprintf(out, "<unknown-id-%" PRIu32 ">", e->func_id);
		fprintf(out, " ret=0x%" PRIx64, (uint64_t)e->retval);
		if (e->entry_ktime)
			fprintf(out, " dur=%" PRIu64, (uint64_t)(h->ktime - e->entry_ktime));
		put_captures(t, ev);
		fputc('\n', out);
		break;
	}
	case BC_REC_SYS_ENTER: {
		const struct bc_rec_sys_enter *e = (const void *)h;

		struct pending_sys *p = pending_of(t, h->tid, true);

		fprintf(out,
			"sys_enter %s args=0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64
			",0x%" PRIx64 ",0x%" PRIx64,
			sysname, (uint64_t)e->args[0], (uint64_t)e->args[1], (uint64_t)e->args[2],
			(uint64_t)e->args[3], (uint64_t)e->args[4], (uint64_t)e->args[5]);
		if (bc_sys_format_enter(e, h->size, t->buf, sizeof(t->buf)) != -EINVAL)
			fprintf(out, " call=%s", t->buf);
		fputc('\n', out);
		/* Kept for the exit line, which shows the whole call. */
		if (p && h->size <= sizeof(p->rec)) {
			memcpy(p->rec, h, h->size);
			p->size = h->size;
		}
		break;
	}
	case BC_REC_SYS_EXIT: {
		const struct bc_rec_sys_exit *e = (const void *)h;

		fprintf(out, "sys_exit %s ret=%" PRId64, sysname, (int64_t)e->ret);
		if (e->ret < 0 && e->ret >= -4095) {
			const char *name = strerrorname_np((int)-e->ret);

			fprintf(out, " err=%s", name ? name : "?");
		}
		if (e->enter_ktime)
			fprintf(out, " dur=%" PRIu64, (uint64_t)(h->ktime - e->enter_ktime));
		size_t msize;
		const struct bc_rec_sys_enter *call = merge_call(t, h, &msize);

		if (call && bc_sys_format_enter(call, msize, t->buf, sizeof(t->buf)) != -EINVAL) {
			fprintf(out, " call=%s", t->buf);
			if (bc_sys_format_result(e->ret, e->nr, t->buf, sizeof(t->buf)) != -EINVAL)
				fprintf(out, " %s", t->buf);
		}
		fputc('\n', out);
		break;
	}
	case BC_REC_PROC_FORK:
	case BC_REC_THREAD_START: {
		const struct bc_rec_fork *f = (const void *)h;

		fputs(h->kind == BC_REC_PROC_FORK ? "fork " : "thread ", out);
		put_token(out, f->comm, sizeof(f->comm));
		fprintf(out, " child_pid=%" PRIu32 " child_tid=%" PRIu32 " flags=0x%" PRIx64 "\n",
			f->child_pid, f->child_tid, (uint64_t)f->clone_flags);
		break;
	}
	case BC_REC_PROC_EXEC: {
		const struct bc_rec_exec *x = (const void *)h;

		fputs("exec ", out);
		put_token(out, x->comm, sizeof(x->comm));
		fputs(" file=", out);
		put_token(out, x->filename, x->filename_len);
		fprintf(out, " old_tid=%" PRIu32 "\n", x->old_tid);
		break;
	}
	case BC_REC_THREAD_EXIT:
	case BC_REC_PROC_EXIT: {
		const struct bc_rec_exit *x = (const void *)h;

		fputs(h->kind == BC_REC_PROC_EXIT ? "exit " : "thread_exit ", out);
		put_token(out, x->comm, sizeof(x->comm));
		fprintf(out, " code=%" PRId32 "\n", x->exit_code);
		break;
	}
	case BC_REC_LOST: {
		const struct bc_rec_lost *l = (const void *)h;

		fprintf(out, "lost %s count=%" PRIu64 " cpu=%" PRIu32 "\n",
			bc_loss_class_name(l->loss_class) ? bc_loss_class_name(l->loss_class) : "?",
			(uint64_t)l->count, l->cpu);
		break;
	}
	case BC_REC_OFFCPU: {
		const struct bc_rec_offcpu *o = (const void *)h;
		const char *sys = o->syscall >= 0 ? bc_syscall_name((uint32_t)o->syscall) : NULL;

		fprintf(out,
			"offcpu %s off=%" PRIu64 " state=%c wake=%" PRIu64 " waker=%" PRIu32
			"/%" PRIu32 " cpu=%" PRIu32 " frames=%u",
			o->state && !o->preempt ? "blocked" : "preempted",
			(uint64_t)(h->ktime - o->off_ktime), bc_task_state_char(o->state),
			o->wake_ktime ? (uint64_t)(h->ktime - o->wake_ktime) : 0, o->waker_pid,
			o->waker_tid, o->cpu, o->n_user);
		if (sys)
			fprintf(out, " syscall=%s", sys);
		else if (o->syscall >= 0)
			fprintf(out, " syscall=%" PRId32, o->syscall);
		fputc('\n', out);
		break;
	}
	case BC_REC_PROC_NAME: {
		const struct bc_rec_proc_name *n = (const void *)h;

		fputs("process ", out);
		put_token(out, n->comm, sizeof(n->comm));
		fprintf(out, " ppid=%" PRIu32 "%s\n", n->ppid,
			n->flags & BC_PROC_KTHREAD ? " kthread" : "");
		break;
	}
	default:
		fprintf(out, "kind_0x%x -\n", h->kind);
		break;
	}
	return ferror(out) ? -EIO : 0;
}

static void text_destroy(struct bc_sink *s)
{
	free(((struct text_sink *)s)->pending);
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
