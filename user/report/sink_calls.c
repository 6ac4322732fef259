// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/names.h"
#include "bpfcollect/demangle.h"
#include "bpfcollect/capture_fmt.h"
#include "bpfcollect/report.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/sink_calls.h"

struct call {
	uint32_t pid, tid, depth;
	uint64_t entry_ktime, return_ktime;
	char *name_copy;
	char *args;
	char *ret; /* NULL until the return came */
};

/* Open calls of one thread, innermost last (indices into calls, or -1 past the limit). */
struct pending {
	uint32_t tid;
	long *calls;
	uint32_t *func_ids;
	size_t n, cap;
};

struct calls_sink {
	struct bc_sink base;
	FILE *out;
	char *glob;
	size_t limit;
	uint64_t start_ktime;
	uint64_t seen; /* all matching calls, shown or not */
	struct call *calls;
	size_t n_calls;
	struct pending *threads;
	size_t n_threads, cap_threads;
	struct bc_idmap thread_index; /* tid -> index + 1 */
	char buf[BC_CAPTURE_RECORD_MAX * 4 + 64];
	int error;
};

static struct pending *thread_of(struct calls_sink *c, uint32_t tid)
{
	struct pending *v;
	uint32_t *i;

	if (bc_idmap_get_or_add(&c->thread_index, tid, 0, &i))
		return NULL;
	if (*i)
		return &c->threads[*i - 1];
	if (BC_GROW(c->threads, c->cap_threads, c->n_threads + 1))
		return NULL;
	v = &c->threads[c->n_threads];
	memset(v, 0, sizeof(*v));
	v->tid = tid;
	*i = (uint32_t)++c->n_threads;
	return v;
}

static int push(struct pending *p, long call, uint32_t func_id)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		long *a = realloc(p->calls, cap * sizeof(*a));

		if (!a)
			return -ENOMEM;
		p->calls = a;
		uint32_t *b = realloc(p->func_ids, cap * sizeof(*b));

		if (!b)
			return -ENOMEM;
		p->func_ids = b;
		p->cap = cap;
	}
	p->calls[p->n] = call;
	p->func_ids[p->n] = func_id;
	p->n++;
	return 0;
}

static int calls_begin(struct bc_sink *s, const struct bc_session *sess)
{
	((struct calls_sink *)s)->start_ktime = sess->start_ktime;
	return 0;
}

static int on_entry(struct calls_sink *c, const struct bc_event *ev)
{
	const struct bc_rec_func_entry *e = (const void *)ev->rec;
	struct pending *p = thread_of(c, ev->rec->tid);
	long idx = -1;

	if (!p)
		return -ENOMEM;
	c->seen++;
	if (c->n_calls < c->limit) {
		struct call *v = realloc(c->calls, (c->n_calls + 1) * sizeof(*v));
		struct call *k;

		if (!v)
			return -ENOMEM;
		c->calls = v;
		k = &v[c->n_calls];
		memset(k, 0, sizeof(*k));
		k->pid = ev->rec->pid;
		k->tid = ev->rec->tid;
		k->depth = ev->rec->depth;
		k->entry_ktime = ev->rec->ktime;
		k->name_copy = strdup(bc_sym_display(ev->func->name));
		bc_format_func_captures(ev, ", ", c->buf, sizeof(c->buf));
		k->args = strdup(c->buf);
		if (!k->name_copy || !k->args) {
			free(k->name_copy);
			free(k->args);
			return -ENOMEM;
		}
		idx = (long)c->n_calls++;
	}
	return push(p, idx, e->func_id);
}

static int on_return(struct calls_sink *c, const struct bc_event *ev)
{
	const struct bc_rec_func_return *r = (const void *)ev->rec;
	struct pending *p = thread_of(c, ev->rec->tid);
	long idx;

	if (!p)
		return -ENOMEM;
	/* The innermost open call of this function; deeper ones never returned. */
	while (p->n && p->func_ids[p->n - 1] != r->func_id)
		p->n--;
	if (!p->n)
		return 0;
	idx = p->calls[--p->n];
	if (idx < 0)
		return 0;
	struct call *k = &c->calls[idx];
	int n = bc_format_func_captures(ev, ", ", c->buf, sizeof(c->buf));
	const char *v = c->buf;

	/* "retval=VALUE" when it was captured; the raw register otherwise. */
	if (n > 0 && strncmp(c->buf, "retval=", 7) == 0)
		v = c->buf + 7;
	else
		snprintf(c->buf, sizeof(c->buf), "0x%" PRIx64, (uint64_t)r->retval);
	k->ret = strdup(v);
	k->return_ktime = ev->rec->ktime;
	return k->ret ? 0 : -ENOMEM;
}

static int calls_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct calls_sink *c = (struct calls_sink *)s;
	unsigned int kind = ev->rec->kind;

	if ((kind != BC_REC_FUNC_ENTRY && kind != BC_REC_FUNC_RETURN) || !ev->func ||
	    !bc_sym_glob_match(c->glob, ev->func->name))
		return 0;
	return kind == BC_REC_FUNC_ENTRY ? on_entry(c, ev) : on_return(c, ev);
}

static int calls_end(struct bc_sink *s, const struct bc_session_end *end)
{
	struct calls_sink *c = (struct calls_sink *)s;
	char dur[BC_DURATION_LEN];

	(void)end;
	if (!c->seen) {
		fprintf(c->out, "No calls of %s in this experiment.\n", c->glob);
		return 0;
	}
	fprintf(c->out, "Calls of %s: %" PRIu64 "%s\n", c->glob, c->seen,
		c->seen > c->n_calls ? "" : " (all shown)");
	fprintf(c->out, "%13s  %-15s  %11s  %s\n", "Time", "PID/TID", "Duration", "Call");
	for (size_t i = 0; i < c->n_calls; i++) {
		const struct call *k = &c->calls[i];
		uint64_t rel = k->entry_ktime - c->start_ktime;
		char who[32], tid[16];

		snprintf(who, sizeof(who), "%" PRIu32 "/%s", k->pid,
			 bc_tid_label(k->tid, tid, sizeof(tid)));
		if (k->ret)
			bc_format_duration(dur, k->return_ktime - k->entry_ktime);
		fprintf(c->out, "%3" PRIu64 ".%09" PRIu64 "  %-15s  %11s  %*s%s(%s)",
			rel / 1000000000, rel % 1000000000, who, k->ret ? dur : "-",
			(int)(2 * (k->depth % 32)), "", k->name_copy, k->args);
		if (k->ret)
			fprintf(c->out, " = %s\n", k->ret);
		else
			fprintf(c->out, " (no return)\n");
	}
	if (c->seen > c->n_calls)
		fprintf(c->out, "(first %zu of %" PRIu64 " shown; -n N shows more)\n", c->n_calls,
			c->seen);
	return ferror(c->out) ? -EIO : 0;
}

static void calls_destroy(struct bc_sink *s)
{
	struct calls_sink *c = (struct calls_sink *)s;

	for (size_t i = 0; i < c->n_calls; i++) {
		free(c->calls[i].name_copy);
		free(c->calls[i].args);
		free(c->calls[i].ret);
	}
	for (size_t i = 0; i < c->n_threads; i++) {
		free(c->threads[i].calls);
		free(c->threads[i].func_ids);
	}
	free(c->calls);
	free(c->threads);
	bc_idmap_free(&c->thread_index);
	free(c->glob);
	free(c);
}

static const struct bc_sink_ops calls_ops = {
	.name = "calls",
	.begin = calls_begin,
	.event = calls_event,
	.end = calls_end,
	.destroy = calls_destroy,
};

struct bc_sink *bc_calls_sink_new(FILE *out, const char *glob, size_t limit)
{
	struct calls_sink *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->base.ops = &calls_ops;
	c->out = out;
	c->limit = limit;
	c->glob = strdup(glob);
	if (!c->glob) {
		free(c);
		return NULL;
	}
	return &c->base;
}
