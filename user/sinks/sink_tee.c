// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "sink_tee.h"

struct tee {
	struct bc_sink base;
	struct bc_sink **to;
	size_t n;
};

#define EACH(t, call)                                                                              \
	({                                                                                         \
		int first = 0;                                                                     \
		for (size_t i = 0; i < (t)->n; i++) {                                              \
			struct bc_sink *s = (t)->to[i];                                            \
			int rc = (call);                                                           \
			if (rc < 0 && !first)                                                      \
				first = rc;                                                        \
		}                                                                                  \
		first;                                                                             \
	})

static int tee_begin(struct bc_sink *x, const struct bc_session *v)
{
	return EACH((struct tee *)x, bc_sink_begin(s, v));
}

static int tee_event(struct bc_sink *x, const struct bc_event *v)
{
	return EACH((struct tee *)x, bc_sink_event(s, v));
}

static int tee_mapping(struct bc_sink *x, const struct bc_mapping *v)
{
	return EACH((struct tee *)x, bc_sink_mapping(s, v));
}

static int tee_end(struct bc_sink *x, const struct bc_session_end *v)
{
	return EACH((struct tee *)x, bc_sink_end(s, v));
}

static int tee_flush(struct bc_sink *x)
{
	return EACH((struct tee *)x, bc_sink_flush(s));
}

static void tee_destroy(struct bc_sink *x)
{
	struct tee *t = (struct tee *)x;

	for (size_t i = 0; i < t->n; i++)
		bc_sink_destroy(t->to[i]);
	free(t->to);
	free(t);
}

static const struct bc_sink_ops tee_ops = {
	.name = "tee",
	.begin = tee_begin,
	.event = tee_event,
	.mapping = tee_mapping,
	.end = tee_end,
	.flush = tee_flush,
	.destroy = tee_destroy,
	.whole_syscalls = true,
};

struct bc_sink *bc_tee_sink_new(struct bc_sink **sinks, size_t n)
{
	struct tee *t = calloc(1, sizeof(*t));

	if (!t || !(t->to = calloc(n ? n : 1, sizeof(*t->to)))) {
		free(t);
		return NULL;
	}
	memcpy(t->to, sinks, n * sizeof(*sinks));
	t->n = n;
	t->base.ops = &tee_ops;
	return &t->base;
}
