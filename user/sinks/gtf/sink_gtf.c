// SPDX-License-Identifier: MIT
/*
 * The GTF sink (docs/gtf.md): one GTF user record per event, split into a
 * series above 256 data bytes.
 *
 * Records wait in a reorder buffer and leave it sorted by (time, thread,
 * the thread's record sequence, kind, bytes) once nothing older can arrive
 * (the ring's order differs from time order only between CPUs, by far less
 * than WINDOW_NS): so the file is in time order, and a recording converted
 * later gives the same file byte for byte.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/outfile.h"
#include "bpfcollect/capture_fmt.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/gtf.h"
#include "bpfcollect/names.h"
#include "bpfcollect/state.h"
#include "bpfcollect/syscalls.h"
#include "gtf_layout.h"
#include "../reorder.h"

#define WINDOW_NS (50ull * 1000000)
/* the longest data of one event: a record with captures, and the common fields */
#define DATA_MAX (BC_CAPTURE_RECORD_MAX + 1024)

struct gtf_sink {
	struct bc_sink base;
	FILE *out;
	struct bc_gtf_opts opts;
	int64_t wall_offset_ns;
	const struct bc_state *state;
	struct bc_reorder q; /* of struct bc_reorder_rec */
	uint8_t data[DATA_MAX];
	size_t len; /* of data */
	bool full;  /* data ran out of room */
};

/* ------------------------------------------------------------ the data */

static void put(struct gtf_sink *t, uint64_t v, size_t width)
{
	if (t->len + width > sizeof(t->data)) {
		t->full = true;
		return;
	}
	for (size_t i = 0; i < width; i++)
		t->data[t->len + i] = (uint8_t)(v >> (8 * (width - 1 - i)));
	t->len += width;
}

static void put_bytes(struct gtf_sink *t, const void *b, size_t n)
{
	if (!n)
		return; /* b may be NULL: a name the tables do not have */
	if (t->len + n > sizeof(t->data)) {
		t->full = true;
		return;
	}
	memcpy(t->data + t->len, b, n);
	t->len += n;
}

static uint64_t tod_of(const struct gtf_sink *t, uint64_t ktime)
{
	return ktime ? bc_gtf_tod_from_unix_ns(bc_wall_ns(ktime, t->wall_offset_ns)) : 0;
}

/* The unsigned value of width bytes at rec + off (the record is in host order). */
static uint64_t field(const uint8_t *rec, size_t off, size_t width)
{
	uint8_t b1;
	uint16_t b2;
	uint32_t b4;
	uint64_t b8;

	switch (width) {
	case 1:
		memcpy(&b1, rec + off, 1);
		return b1;
	case 2:
		memcpy(&b2, rec + off, 2);
		return b2;
	case 4:
		memcpy(&b4, rec + off, 4);
		return b4;
	default:
		memcpy(&b8, rec + off, 8);
		return b8;
	}
}

static void put_captures(struct gtf_sink *t, const struct bc_rec_head *h, size_t fixed)
{
	const struct bc_cap_item *item;
	const uint8_t *data;
	struct bc_cap_iter it;
	size_t count_at = t->len;
	uint8_t n = 0;

	put(t, 0, 1);
	bc_cap_iter_init(&it, h, h->size, fixed);
	while (n < UINT8_MAX && bc_cap_iter_next(&it, &item, &data)) {
		put(t, item->source, 1);
		put(t, item->index, 1);
		put(t, item->type, 1);
		put(t, item->flags, 1);
		put(t, item->len, 2);
		/* a register value is a number: big-endian like every other one */
		if ((item->type == BC_CAP_INT || item->type == BC_CAP_FP) && item->len == 8)
			put(t, field(data, 0, 8), 8);
		else
			put_bytes(t, data, item->len);
		n++;
	}
	if (!t->full)
		t->data[count_at] = n;
}

static void put_field(struct gtf_sink *t, const struct bc_event *ev, const struct gtf_field *f)
{
	static const uint8_t width[] = {[GTF_U8] = 1,  [GTF_U16] = 2, [GTF_U32] = 4, [GTF_S32] = 4,
					[GTF_U64] = 8, [GTF_S64] = 8, [GTF_X64] = 8, [GTF_TOD] = 8};
	const struct bc_rec_head *h = ev->rec;
	const uint8_t *rec = (const uint8_t *)h;
	const char *s;
	size_t n;

	switch (f->type) {
	case GTF_FILENAME:
		n = field(rec, f->count, 4);
		n = strnlen((const char *)rec + f->off, n < BC_PATH_LEN ? n : BC_PATH_LEN);
		put(t, n, 2);
		put_bytes(t, rec + f->off, n);
		return;
	case GTF_IPS:
	case GTF_IPS_KU:
		n = field(rec, f->count, 2);
		if (f->type == GTF_IPS_KU)
			n += field(rec, f->count + 2, 2);
		put(t, n, 2);
		for (size_t i = 0; i < n; i++)
			put(t, field(rec, f->off + 8 * i, 8), 8);
		return;
	case GTF_CAPS:
		put_captures(t, h, f->off);
		return;
	case GTF_ARGS:
		s = h->kind == BC_REC_PROC_EXEC ? bc_exec_args((const void *)h, &n)
						: bc_proc_name_args((const void *)h, &n);
		put(t, s ? n : 0, 2);
		if (s)
			put_bytes(t, s, n);
		return;
	case GTF_PATH:
		s = bc_io_path((const void *)h, &n);
		put(t, n, 2);
		put_bytes(t, s, n);
		return;
	case GTF_TOD:
		put(t, tod_of(t, field(rec, f->off, 8)), 8);
		return;
	default:
		put(t, field(rec, f->off, width[f->type]), width[f->type]);
	}
}

/* What the common name field holds for ev (gtf_layout.c's table says it per kind). */
static const char *event_name(const struct bc_event *ev, char *buf, size_t len)
{
	const struct bc_rec_head *h = ev->rec;
	const char *s = NULL;

	switch (h->kind) {
	case BC_REC_FUNC_ENTRY:
	case BC_REC_FUNC_RETURN:
		if (ev->func && ev->func->name)
			return bc_sym_display(ev->func->name);
		snprintf(buf, len, "func_%" PRIu32, ((const struct bc_rec_func_entry *)h)->func_id);
		return buf;
	case BC_REC_SYS_ENTER:
	case BC_REC_SYS_EXIT:
		if (ev->sys_name)
			return ev->sys_name;
		snprintf(buf, len, "syscall_%" PRIu32, ((const struct bc_rec_sys_enter *)h)->nr);
		return buf;
	case BC_REC_PROC_FORK:
	case BC_REC_THREAD_START:
		s = ((const struct bc_rec_fork *)h)->comm;
		break;
	case BC_REC_PROC_EXEC:
		s = ((const struct bc_rec_exec *)h)->comm;
		break;
	case BC_REC_THREAD_EXIT:
	case BC_REC_PROC_EXIT:
		s = ((const struct bc_rec_exit *)h)->comm;
		break;
	case BC_REC_PROC_NAME:
		s = ((const struct bc_rec_proc_name *)h)->comm;
		break;
	case BC_REC_LOST:
		return bc_loss_class_name(((const struct bc_rec_lost *)h)->loss_class);
	case BC_REC_OFFCPU: {
		int32_t nr = ((const struct bc_rec_offcpu *)h)->syscall;

		return nr >= 0 ? bc_syscall_name((unsigned int)nr) : "";
	}
	case BC_REC_HEAP:
		return bc_heap_fn_name(((const struct bc_rec_heap *)h)->fn);
	case BC_REC_SYNC:
		return bc_sync_fn_name(((const struct bc_rec_sync *)h)->fn);
	case BC_REC_IO: {
		uint32_t nr = ((const struct bc_rec_io *)h)->nr;

		return nr == BC_IO_NR_INHERITED ? "inherited" : bc_syscall_name(nr);
	}
	default:
		return "";
	}
	snprintf(buf, len, "%.*s", BC_COMM_LEN, s);
	return buf;
}

/* ev's data into t->data: the common fields, then the kind's. */
static int event_data(struct gtf_sink *t, const struct bc_event *ev, const struct gtf_layout *l)
{
	const struct bc_rec_head *h = ev->rec;
	char buf[64];
	const char *name = event_name(ev, buf, sizeof(buf));
	size_t n = name ? strlen(name) : 0;

	t->len = 0;
	t->full = false;
	put(t, h->tid, 4);
	put(t, h->depth, 4);
	put(t, h->seq, 8);
	n = n < UINT8_MAX ? n : UINT8_MAX;
	put(t, n, 1);
	put_bytes(t, name, n);
	for (size_t i = 0; i < l->nfields; i++)
		put_field(t, ev, &l->fields[i]);
	return t->full ? -E2BIG : 0;
}

/* ------------------------------------------------------------ the reorder buffer */

static int emit_record(void *ctx, void *item)
{
	struct gtf_sink *t = ctx;
	struct bc_reorder_rec *p = item;
	int rc = fwrite(p->bytes, 1, p->len, t->out) == p->len ? 0 : bc_io_errno();

	free(p->bytes);
	/* a record's end (all its split pieces): a full disk cuts the file at one */
	bc_outfile_record(t->base.file);
	return rc;
}

/* Writes what can no longer be overtaken (everything when all). */
static int flush_pending(struct gtf_sink *t, bool all)
{
	return bc_reorder_flush(&t->q, all, emit_record, t);
}

/* ------------------------------------------------------------ the sink */

/* The process's name: its comm, else (before its first exec) its command's file name. */
static const char *job_of(const struct bc_proc *p)
{
	const char *slash;

	if (!p)
		return "";
	if (p->comm[0] || !p->args || !p->args_len)
		return p->comm;
	slash = memrchr(p->args, '/', strnlen(p->args, p->args_len));
	return slash ? slash + 1 : p->args;
}

static int gtf_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct gtf_sink *t = (struct gtf_sink *)s;
	const struct bc_rec_head *h = ev->rec;
	const struct gtf_layout *l = gtf_layout_of(h->kind);
	const struct bc_proc *p = t->state && h->pid ? bc_state_proc(t->state, h->pid) : NULL;
	struct bc_gtf_head head = {.eid = h->kind, .tod = tod_of(t, h->ktime), .ascb = h->pid};
	uint8_t *bytes;
	long n;
	int rc;

	if (!l)
		return 0; /* mappings: no event of GTF's */
	head.fid = l->fid;
	bc_gtf_jobname(head.jobname, job_of(p), t->opts.ebcdic);
	rc = event_data(t, ev, l);
	if (rc)
		return rc;
	bytes = malloc(bc_gtf_encoded_size(t->len));
	if (!bytes)
		return -ENOMEM;
	n = bc_gtf_encode(bytes, bc_gtf_encoded_size(t->len), &head, t->data, t->len);
	if (n < 0) {
		free(bytes);
		return (int)n;
	}
	rc = bc_reorder_rec_push(&t->q, h, bytes, (size_t)n);
	if (rc)
		return rc;
	return bc_reorder_due(&t->q) ? flush_pending(t, false) : 0;
}

static int gtf_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct gtf_sink *t = (struct gtf_sink *)s;

	t->wall_offset_ns = sess->wall_offset_ns;
	t->state = sess->state;
	return 0;
}

static int gtf_flush(struct bc_sink *s)
{
	struct gtf_sink *t = (struct gtf_sink *)s;
	int rc = flush_pending(t, false);

	return fflush(t->out) && !rc ? bc_io_errno() : rc;
}

static int gtf_end(struct bc_sink *s, const struct bc_session_end *end)
{
	struct gtf_sink *t = (struct gtf_sink *)s;
	int rc = flush_pending(t, true);

	(void)end;
	if ((fflush(t->out) || ferror(t->out)) && !rc)
		rc = bc_io_errno();
	return rc;
}

static void gtf_destroy(struct bc_sink *s)
{
	struct gtf_sink *t = (struct gtf_sink *)s;

	bc_reorder_free(&t->q, bc_reorder_rec_drop);
	free(t);
}

static const struct bc_sink_ops gtf_ops = {
	.name = "gtf",
	.begin = gtf_begin,
	.event = gtf_event,
	.end = gtf_end,
	.flush = gtf_flush,
	.destroy = gtf_destroy,
};

struct bc_sink *bc_gtf_sink_new(FILE *out, const struct bc_gtf_opts *o)
{
	struct gtf_sink *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->base.ops = &gtf_ops;
	bc_reorder_init(&t->q, sizeof(struct bc_reorder_rec), WINDOW_NS, bc_reorder_rec_cmp);
	t->out = out;
	t->opts = *o;
	return &t->base;
}
