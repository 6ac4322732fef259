// SPDX-License-Identifier: MIT
/*
 * The `er` format's sink: the experiment tree, per lineage for a launched
 * command or attached processes, or the kernel tree (-k, -a), chosen at
 * begin from the session, so `record` and `convert` pick it the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/experiment.h"

struct er_format {
	struct bc_sink base;
	char *path;
	struct bc_sink *tree; /* NULL until begin */
	char err[512];
};

static int ef_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct er_format *f = (struct er_format *)s;

	if (f->tree)
		return -EALREADY;
	f->tree = sess->kernel ? bc_er_ktree_sink_new(f->path, f->err, sizeof(f->err))
			       : bc_er_tree_sink_new(f->path, f->err, sizeof(f->err));
	if (!f->tree)
		return -EIO;
	return bc_sink_begin(f->tree, sess);
}

static int ef_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct er_format *f = (struct er_format *)s;

	return f->tree ? bc_sink_event(f->tree, ev) : -EINVAL;
}

static int ef_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	struct er_format *f = (struct er_format *)s;

	return f->tree ? bc_sink_mapping(f->tree, m) : -EINVAL;
}

static int ef_end(struct bc_sink *s, const struct bc_session_end *end)
{
	struct er_format *f = (struct er_format *)s;

	return f->tree ? bc_sink_end(f->tree, end) : -EINVAL;
}

static int ef_flush(struct bc_sink *s)
{
	struct er_format *f = (struct er_format *)s;

	return f->tree ? bc_sink_flush(f->tree) : 0;
}

static void ef_destroy(struct bc_sink *s)
{
	struct er_format *f = (struct er_format *)s;

	if (f->tree)
		bc_sink_destroy(f->tree);
	free(f->path);
	free(f);
}

static const struct bc_sink_ops er_format_ops = {
	.name = "er",
	.begin = ef_begin,
	.event = ef_event,
	.mapping = ef_mapping,
	.end = ef_end,
	.flush = ef_flush,
	.destroy = ef_destroy,
	.whole_syscalls = true,
};

struct bc_sink *bc_er_format_sink_new(const char *exp_path, char *err, size_t errlen)
{
	struct er_format *f = calloc(1, sizeof(*f));

	if (f)
		f->path = strdup(exp_path);
	if (!f || !f->path) {
		free(f);
		snprintf(err, errlen, "%s: out of memory", exp_path);
		return NULL;
	}
	f->base.ops = &er_format_ops;
	return &f->base;
}
