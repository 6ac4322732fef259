// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "bpfcollect/sink_filter.h"

struct filter_sink {
	struct bc_sink base;
	struct bc_sink *inner;
	uint32_t pid;
};

static int f_begin(struct bc_sink *s, const struct bc_session *sess)
{
	return bc_sink_begin(((struct filter_sink *)s)->inner, sess);
}

static int f_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct filter_sink *f = (struct filter_sink *)s;

	/* LOST records belong to no process: every view of a part still counts them. */
	if (ev->rec->pid != f->pid && ev->rec->kind != BC_REC_LOST)
		return 0;
	return bc_sink_event(f->inner, ev);
}

static int f_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	struct filter_sink *f = (struct filter_sink *)s;

	return m->pid == f->pid ? bc_sink_mapping(f->inner, m) : 0;
}

static int f_end(struct bc_sink *s, const struct bc_session_end *end)
{
	return bc_sink_end(((struct filter_sink *)s)->inner, end);
}

static int f_flush(struct bc_sink *s)
{
	return bc_sink_flush(((struct filter_sink *)s)->inner);
}

static void f_destroy(struct bc_sink *s)
{
	free(s);
}

static const struct bc_sink_ops filter_ops = {
	.name = "pid-filter",
	.begin = f_begin,
	.event = f_event,
	.mapping = f_mapping,
	.end = f_end,
	.flush = f_flush,
	.destroy = f_destroy,
	.whole_syscalls = true,
};

struct bc_sink *bc_pid_filter_sink_new(struct bc_sink *inner, uint32_t pid)
{
	struct filter_sink *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->base.ops = &filter_ops;
	f->inner = inner;
	f->pid = pid;
	return &f->base;
}
