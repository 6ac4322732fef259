// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/capture_fmt.h"
#include "bpfcollect/sink_text.h"

struct text_sink {
	struct bc_sink base;
	FILE *out;
	uint64_t start_ktime;
	char buf[BC_CAPTURE_RECORD_MAX * 4 + 64]; /* a record's captures, escaped */
};

static const char *const loss_names[BC_LOSS_NR] = {"func", "syscall", "proc"};

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

		fprintf(out,
			"sys_enter %s args=0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64 ",0x%" PRIx64
			",0x%" PRIx64 ",0x%" PRIx64 "\n",
			sysname, (uint64_t)e->args[0], (uint64_t)e->args[1], (uint64_t)e->args[2],
			(uint64_t)e->args[3], (uint64_t)e->args[4], (uint64_t)e->args[5]);
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
			l->loss_class < BC_LOSS_NR ? loss_names[l->loss_class] : "?",
			(uint64_t)l->count, l->cpu);
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
