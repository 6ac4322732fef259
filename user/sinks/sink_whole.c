// SPDX-License-Identifier: MIT
/*
 * A format's sink writing one output file whole records at a time (see
 * bc_format_file_sink_new). Every format's sink writes each of its records
 * within one step (an event, the end), so between steps what the file
 * holds ends whole records: each step is a record end, here, once for
 * every format. A sink that writes several records in one step (a reorder
 * window let out, the end's open calls) ends each itself.
 */
#include <errno.h>
#include <stdlib.h>

#include "bpfcollect/formats.h"
#include "bpfcollect/outfile.h"

struct whole_sink {
	struct bc_sink base;
	struct bc_sink *inner;
	struct bc_outfile *o;
	const char *tail;
};

static int whole_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct whole_sink *w = (struct whole_sink *)s;
	int rc = bc_sink_begin(w->inner, sess);

	/*
	 * The format's head (chrome's object and array begun, the CSV header)
	 * is no record, and goes to the file at once: one that other outputs
	 * fill the disk before it writes a record still has it, to close.
	 */
	bc_outfile_mark(w->o);
	if (rc == 0 && fflush(w->o->f))
		rc = bc_io_errno();
	if (rc == 0)
		bc_outfile_tail(w->o, w->tail);
	return rc;
}

static int whole_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct whole_sink *w = (struct whole_sink *)s;
	int rc = bc_sink_event(w->inner, ev);

	bc_outfile_record(w->o);
	return rc;
}

static int whole_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	struct whole_sink *w = (struct whole_sink *)s;
	int rc = bc_sink_mapping(w->inner, m);

	bc_outfile_record(w->o);
	return rc;
}

static int whole_end(struct bc_sink *s, const struct bc_session_end *end)
{
	struct whole_sink *w = (struct whole_sink *)s;
	int rc = bc_sink_end(w->inner, end);

	bc_outfile_mark(w->o);
	return rc;
}

static int whole_flush(struct bc_sink *s)
{
	struct whole_sink *w = (struct whole_sink *)s;
	int rc = bc_sink_flush(w->inner);

	bc_outfile_mark(w->o);
	return rc;
}

static void whole_destroy(struct bc_sink *s)
{
	struct whole_sink *w = (struct whole_sink *)s;

	bc_sink_destroy(w->inner);
	free(w);
}

static const struct bc_sink_ops whole_ops = {
	.name = "whole",
	.begin = whole_begin,
	.event = whole_event,
	.mapping = whole_mapping,
	.end = whole_end,
	.flush = whole_flush,
	.destroy = whole_destroy,
	/* the format's sink has a whole system call split, if it wants it split */
	.whole_syscalls = true,
};

struct bc_sink *bc_format_file_sink_new(const struct bc_format *f, struct bc_format_args *a,
					struct bc_outfile *o, char *err, size_t errlen)
{
	struct whole_sink *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	a->out = o->f;
	w->inner = f->new_sink(a, err, errlen);
	if (!w->inner) {
		free(w);
		return NULL;
	}
	/* a sink that writes several records in one step ends each itself */
	w->inner->file = o;
	w->base.ops = &whole_ops;
	w->o = o;
	w->tail = f->tail;
	return &w->base;
}
