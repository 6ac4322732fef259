// SPDX-License-Identifier: MIT
/*
 * -f chrome: the Chrome trace event format (JSON object form), which
 * Perfetto's UI, chrome://tracing and speedscope open as timelines
 * (docs/chrome.md).
 *
 * One track per thread, named "COMM PID/TID", inside one process per pid
 * named by its command. A call is one complete event ("ph":"X") written at
 * its return, when its length is known, with what was captured at entry
 * and return in args; the entry's captures wait on the thread's shadow
 * stack meanwhile. System calls, off-CPU intervals, heap, sync and I/O
 * calls are complete events on the same track; process events and losses
 * are instants. Clock samples are the format's stack samples: "samples"
 * and their "stackFrames" follow the events. Every line is written as the
 * stream goes, so a trace of any length needs memory only for the calls
 * still open and the stack frames seen.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/types.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/capture_fmt.h"
#include "bpfcollect/chrome.h"
#include "bpfcollect/json.h"
#include "bpfcollect/names.h"
#include "bpfcollect/outfile.h"
#include "bpfcollect/pidtab.h"
#include "bpfcollect/shadow_stack.h"
#include "bpfcollect/stack_names.h"
#include "bpfcollect/state.h"
#include "bpfcollect/sys_merge.h"
#include "bpfcollect/syscalls.h"
#include "bpfcollect/sysdecode.h"
#include "chrome_events.h"

/* How long a record waits for older ones from other CPUs. */
#define CHROME_WINDOW_NS (50ull * 1000000)

static void thread_release(void *entry, void *ctx)
{
	struct chrome_thread *th = entry;

	(void)ctx;
	bc_stack_free(&th->stack);
	free(th->args.v);
}

static int chrome_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct chrome_sink *c = (struct chrome_sink *)s;

	c->start_ktime = sess->start_ktime;
	c->state = sess->state;
	c->funcs = sess->funcs;
	c->names.state = sess->state;
	c->profile_ns = (uint64_t)sess->profile_us * 1000;
	c->first = true;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"bpfcollect\"", c->file);
	if (sess->argv && sess->argv[0]) {
		fputs(",\"command\":", c->file);
		bc_json_string(c->file, sess->argv[0], (size_t)-1);
	}
	fputs(",\"start_wall_ns\":", c->file);
	fprintf(c->file, "%" PRId64, bc_wall_ns(sess->start_ktime, sess->wall_offset_ns));
	fputs("},\n\"traceEvents\":[\n", c->file);
	return ferror(c->file) ? bc_io_errno() : 0;
}

/* ---------------------------------------------------------------- calls */

/* Appends `,"NAME":"VALUE"` to a buffer of JSON members. */
static int keep_capture(void *ctx, const char *name, const char *value)
{
	struct chrome_buf *b = ctx;
	size_t need = strlen(name) * 6 + strlen(value) * 6 + 8;
	FILE *mem;

	if (BC_GROW(b->v, b->cap, b->len + need + 1))
		return -ENOMEM;
	mem = fmemopen(b->v + b->len, need + 1, "w");
	if (!mem)
		return -ENOMEM;
	fputc(',', mem);
	bc_json_string(mem, name, (size_t)-1);
	fputc(':', mem);
	bc_json_string(mem, value, (size_t)-1);
	b->len += (size_t)ftell(mem);
	fclose(mem);
	return 0;
}

static int func_entry(struct chrome_sink *c, const struct bc_event *ev)
{
	const struct bc_rec_func_entry *e = (const void *)ev->rec;
	struct chrome_thread *th = chrome_thread_of(c, &e->h);
	int rc;

	if (!th)
		return -ENOMEM;
	if (th->args.len > UINT32_MAX)
		return -ENOMEM;
	rc = bc_stack_push(&th->stack, e->func_id, (uint32_t)th->args.len, e->h.ktime);
	if (rc < 0)
		return rc;
	return bc_func_captures_each(ev, keep_capture, &th->args);
}

static const char *func_name(const struct chrome_sink *c, uint32_t func_id, const char **object)
{
	const struct bc_func *f = c->funcs ? bc_functab_get(c->funcs, func_id) : NULL;
	const char *slash;

	*object = "";
	if (!f)
		return NULL;
	slash = f->object ? strrchr(f->object, '/') : NULL;
	*object = slash ? slash + 1 : f->object ? f->object : "";
	return bc_sym_display(f->name);
}

/*
 * A call as a complete event, with its entry's captures (which leave the
 * thread's buffer) and ret (NULL: none); note (NULL: none) says what is
 * odd about it.
 */
static void call_event(struct chrome_sink *c, struct chrome_thread *th, const struct bc_frame *f,
		       uint64_t end, const char *note, const struct chrome_buf *ret)
{
	const char *object, *name = func_name(c, f->func_id, &object);
	bool entry_args = f->tag < th->args.len, ret_args = ret && ret->len;
	char unknown[32], cat[300];

	if (!name) {
		snprintf(unknown, sizeof(unknown), "<unknown id %" PRIu32 ">", f->func_id);
		name = unknown;
	}
	/*
	 * The load object is the event's second category: speedscope makes a
	 * function of a name and its args, so args hold only what differs
	 * from call to call. A comma would split the category.
	 */
	snprintf(cat, sizeof(cat), "function%s%s", object[0] ? "," : "", object);
	for (char *p = cat + strlen("function,"); p < cat + strlen(cat); p++)
		if (*p == ',')
			*p = '_';
	chrome_event_head(c, th->pid, th->tid, "X", name, cat, f->entry_ktime);
	fputs(",\"dur\":", c->out);
	bc_json_us(c->out, end >= f->entry_ktime ? (int64_t)(end - f->entry_ktime) : 0);
	if (!entry_args && !ret_args && !note) {
		fputc('}', c->out);
		return;
	}
	/* the members gathered start with a comma: the first one's goes */
	fputs(",\"args\":{", c->out);
	if (entry_args) {
		fwrite(th->args.v + f->tag + 1, 1, th->args.len - f->tag - 1, c->out);
		th->args.len = f->tag;
	}
	if (ret_args)
		fwrite(ret->v + !entry_args, 1, ret->len - !entry_args, c->out);
	if (note) {
		fputs(entry_args || ret_args ? ",\"note\":" : "\"note\":", c->out);
		bc_json_string(c->out, note, (size_t)-1);
	}
	fputs("}}", c->out);
}

struct drop_ctx {
	struct chrome_sink *c;
	struct chrome_thread *th;
	uint64_t at;
	const char *note;
};

static void dropped_frame(void *ctx, const struct bc_frame *f)
{
	struct drop_ctx *d = ctx;

	call_event(d->c, d->th, f, d->at, d->note, NULL);
}

void chrome_drop_calls(struct chrome_sink *c, struct chrome_thread *th, uint64_t at,
		       const char *note)
{
	struct drop_ctx d = {c, th, at, note};

	bc_stack_drop_all(&th->stack, dropped_frame, &d);
}

static int func_return(struct chrome_sink *c, const struct bc_event *ev)
{
	const struct bc_rec_func_return *r = (const void *)ev->rec;
	struct chrome_thread *th = chrome_thread_of(c, &r->h);
	struct drop_ctx d = {c, th, r->h.ktime, "no return seen: a caller returned"};
	struct bc_frame_return ret;
	int rc;

	if (!th)
		return -ENOMEM;
	c->ret.len = 0;
	rc = bc_func_captures_each(ev, keep_capture, &c->ret);
	if (rc < 0)
		return rc;
	/* frames above the one it closes never returned: they end here */
	if (bc_stack_return(&th->stack, r->func_id, r->entry_ktime, r->h.ktime, dropped_frame, &d,
			    &ret) == 0) {
		call_event(c, th, &ret.frame, r->h.ktime, NULL, &c->ret);
	} else {
		struct bc_frame f = {.func_id = r->func_id,
				     .tag = (uint32_t)th->args.len,
				     .entry_ktime = r->entry_ktime ? r->entry_ktime : r->h.ktime};

		call_event(c, th, &f, r->h.ktime, "entry not seen", &c->ret);
	}
	return 0;
}

/* ---------------------------------------------------------------- system calls */

static int sys_exit(struct chrome_sink *c, const struct bc_event *ev)
{
	const struct bc_rec_sys_exit *x = (const void *)ev->rec;
	const struct bc_rec_sys_enter *call;
	char name[32];
	size_t size;
	int n;

	call = bc_sys_merge_exit(&c->calls, &x->h, &size);
	if (ev->sys_name)
		snprintf(name, sizeof(name), "%s", ev->sys_name);
	else
		snprintf(name, sizeof(name), "syscall_%" PRIu32, x->nr);
	if (!chrome_thread_of(c, &x->h))
		return -ENOMEM;
	chrome_event_head(c, x->h.pid, x->h.tid, "X", name, "syscall",
			  x->enter_ktime ? x->enter_ktime : x->h.ktime);
	fputs(",\"dur\":", c->out);
	bc_json_us(c->out, x->enter_ktime && x->h.ktime >= x->enter_ktime
				   ? (int64_t)(x->h.ktime - x->enter_ktime)
				   : 0);
	/* past 2^53 a JSON reader's number is not exact: an address is a string */
	if ((int64_t)x->ret > -(1LL << 53) && (int64_t)x->ret < (1LL << 53))
		fprintf(c->out, ",\"args\":{\"ret\":%" PRId64, (int64_t)x->ret);
	else
		fprintf(c->out, ",\"args\":{\"ret\":\"0x%" PRIx64 "\"", (uint64_t)x->ret);
	n = call ? bc_sys_format_enter(call, size, c->text, sizeof(c->text)) : -EINVAL;
	if (n != -EINVAL) {
		size_t len = strlen(c->text);

		if (bc_sys_format_result(x->ret, x->nr, c->text + len + 1,
					 sizeof(c->text) - len - 1) != -EINVAL) {
			c->text[len] = ' ';
		}
		fputs(",\"call\":", c->out);
		bc_json_string(c->out, c->text, (size_t)-1);
	}
	fputs("}}", c->out);
	return 0;
}

/* ---------------------------------------------------------------- the stream */

static int emit(void *ctx, void *item)
{
	struct chrome_sink *c = ctx;
	struct bc_reorder_rec *r = item;

	fputs(c->first ? "" : ",\n", c->file);
	c->first = false;
	fwrite(r->bytes, 1, r->len, c->file);
	free(r->bytes);
	/* a record's end: a full disk cuts the file at one */
	bc_outfile_record(c->base.file);
	return ferror(c->file) ? bc_io_errno() : 0;
}

/* What the record h made in out, into the queue; out is empty again. */
static int queue_events(struct chrome_sink *c, const struct bc_rec_head *h)
{
	uint8_t *bytes;
	off_t len;

	if (fflush(c->out))
		return -ENOMEM;
	len = ftello(c->out);
	c->n_out = 0;
	if (len <= 0)
		return 0;
	bytes = malloc((size_t)len);
	if (!bytes)
		return -ENOMEM;
	memcpy(bytes, c->out_buf, (size_t)len);
	rewind(c->out);
	return bc_reorder_rec_push(&c->q, h, bytes, (size_t)len);
}

static int chrome_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct chrome_sink *c = (struct chrome_sink *)s;
	const struct bc_rec_head *h = ev->rec;
	int rc = 0;

	switch (h->kind) {
	case BC_REC_FUNC_ENTRY:
		rc = func_entry(c, ev);
		break;
	case BC_REC_FUNC_RETURN:
		rc = func_return(c, ev);
		break;
	case BC_REC_SYS_ENTER:
		rc = bc_sys_merge_enter(&c->calls, (const void *)h);
		break;
	case BC_REC_SYS_EXIT:
		rc = sys_exit(c, ev);
		break;
	default:
		rc = chrome_other_event(c, ev);
		break;
	}
	if (rc == 0)
		rc = queue_events(c, h);
	if (rc == 0 && bc_reorder_due(&c->q))
		rc = bc_reorder_flush(&c->q, false, emit, c);
	return rc;
}

static int chrome_end(struct bc_sink *s, const struct bc_session_end *end)
{
	struct chrome_sink *c = (struct chrome_sink *)s;
	int rc = 0;

	/* calls still open, each thread's as if its last record said so */
	for (size_t i = 0; i < c->threads.n && !rc; i++) {
		struct chrome_thread *th = bc_pidtab_at(&c->threads, i);
		struct bc_rec_head h = {.tid = th->tid, .seq = UINT64_MAX, .ktime = end->end_ktime};

		if (!th->tid)
			continue;
		chrome_drop_calls(c, th, end->end_ktime, "open at detach");
		rc = queue_events(c, &h);
	}
	if (!rc)
		rc = bc_reorder_flush(&c->q, true, emit, c);
	if (rc)
		return rc;
	fputs("\n],\n", c->file);
	rc = chrome_write_frames(c);
	fputs("}\n", c->file);
	if (fflush(c->file) || ferror(c->file))
		return bc_io_errno();
	return rc;
}

static int chrome_flush(struct bc_sink *s)
{
	struct chrome_sink *c = (struct chrome_sink *)s;
	int rc = bc_reorder_flush(&c->q, false, emit, c);

	return fflush(c->file) && !rc ? bc_io_errno() : rc;
}

static void chrome_destroy(struct bc_sink *s)
{
	struct chrome_sink *c = (struct chrome_sink *)s;

	bc_reorder_free(&c->q, bc_reorder_rec_drop);
	if (c->out)
		fclose(c->out);
	free(c->out_buf);
	bc_pidtab_free(&c->threads);
	bc_pidtab_free(&c->usage);
	bc_sys_merge_free(&c->calls);
	bc_stack_names_free(&c->names);
	free(c->ret.v);
	free(c);
}

static const struct bc_sink_ops chrome_ops = {
	.name = "chrome",
	.begin = chrome_begin,
	.event = chrome_event,
	.end = chrome_end,
	.flush = chrome_flush,
	.destroy = chrome_destroy,
};

struct bc_sink *bc_chrome_sink_new(FILE *out, const char *exp)
{
	struct chrome_sink *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->base.ops = &chrome_ops;
	c->file = out;
	c->out = open_memstream(&c->out_buf, &c->out_len);
	if (!c->out) {
		free(c);
		return NULL;
	}
	bc_reorder_init(&c->q, sizeof(struct bc_reorder_rec), CHROME_WINDOW_NS, bc_reorder_rec_cmp);
	c->names.exp = exp;
	bc_pidtab_init(&c->threads, sizeof(struct chrome_thread), thread_release, NULL);
	bc_pidtab_init(&c->usage, sizeof(struct chrome_usage), NULL, NULL);
	return &c->base;
}
