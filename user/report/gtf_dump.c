// SPDX-License-Identifier: MIT
/* `gtf-dump`'s reader (bpfcollect/gtf_dump.h): records, series, problems. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/gtf.h"
#include "bpfcollect/gtf_dump.h"
#include "bpfcollect/names.h"

#define DECODED_MAX 65536

/* A split series being joined. */
struct series {
	bool open, broken;
	size_t first; /* offset of its F0 */
	struct bc_gtf_rec head;
	uint16_t next_seq;
	uint32_t parts;
	uint8_t *data;
	size_t len, cap;
};

struct dump {
	const char *name;
	const struct bc_gtf_dump_opts *o;
	FILE *out, *err;
	struct bc_gtf_dump_stats *st;
	struct series s;
	char *decoded;
};

static void problem(struct dump *d, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void problem(struct dump *d, size_t off, const char *fmt, ...)
{
	size_t max = d->o->max_problems ? d->o->max_problems : 1000;
	va_list ap;

	if (d->st->problems++ >= max)
		return;
	fprintf(d->err, "%s: offset 0x%08zx: ", d->name, off);
	va_start(ap, fmt);
	vfprintf(d->err, fmt, ap);
	va_end(ap);
	fputc('\n', d->err);
}

static bool is_ebcdic(const struct dump *d, const uint8_t *jobname)
{
	if (d->o->charset == BC_GTF_CHARSET_AUTO)
		return bc_gtf_jobname_is_ebcdic(jobname);
	return d->o->charset == BC_GTF_CHARSET_EBCDIC;
}

/* "FID 01 function  EID 0101 func_entry  2026-... UTC  pid 42  job 'calls   '" */
static void print_head(struct dump *d, const struct bc_gtf_rec *r)
{
	const char *fid = bc_gtf_fid_name(r->h.fid), *eid = NULL;
	bool ebcdic = is_ebcdic(d, r->h.jobname);
	char when[64], job[9];

	if (fid && bc_gtf_fid_of(r->h.eid) == r->h.fid)
		eid = bc_rec_kind_name(r->h.eid);
	bc_gtf_jobname_text(r->h.jobname, ebcdic, job);
	fprintf(d->out, "FID %02X%s%s  EID %04X%s%s  %s UTC  pid %" PRIu32 "  job '%s'%s", r->h.fid,
		fid ? " " : "", fid ? fid : "", r->h.eid, eid ? " " : "", eid ? eid : "",
		bc_gtf_tod_format(r->h.tod, when, sizeof(when)), r->h.ascb, job,
		ebcdic ? " (EBCDIC)" : "");
}

static void print_hex(struct dump *d, const uint8_t *b, size_t n)
{
	for (size_t at = 0; at < n; at += 16) {
		char ascii[17];
		size_t k;

		fprintf(d->out, "    %04zx ", at);
		for (k = 0; k < 16; k++) {
			if (at + k < n) {
				fprintf(d->out, "%s%02x", k == 8 ? "  " : " ", b[at + k]);
				ascii[k] = b[at + k] >= 0x20 && b[at + k] < 0x7f ? (char)b[at + k]
										 : '.';
			} else {
				fprintf(d->out, "%s  ", k == 8 ? "   " : " ");
				ascii[k] = 0;
			}
		}
		ascii[n - at < 16 ? n - at : 16] = 0;
		fprintf(d->out, "  |%s|\n", ascii);
	}
}

/* One logical record: its header, the event decoded where the FID is ours, its data. */
static void print_event(struct dump *d, const struct bc_gtf_rec *r, const uint8_t *data, size_t len,
			uint32_t parts)
{
	d->st->events++;
	if (parts)
		fprintf(d->out, "0x%08zx series of %" PRIu32 "  ", r->offset, parts);
	else
		fprintf(d->out, "0x%08zx record  ", r->offset);
	print_head(d, r);
	fprintf(d->out, "  data %zu\n", len);
	if (bc_gtf_fid_name(r->h.fid)) {
		int n = bc_gtf_decode(r->h.fid, r->h.eid, data, len, d->decoded, DECODED_MAX);

		fprintf(d->out, "    %s%s%s\n", n < 0 ? "(not bpfcollect's layout: " : "",
			d->decoded, n < 0 ? ")" : "");
	}
	if (!d->o->no_hex)
		print_hex(d, data, len);
}

static void series_close(struct dump *d, const char *why, size_t off)
{
	if (d->s.open && why)
		problem(d, d->s.first, "the series begun here never ended: %s at 0x%08zx", why,
			off);
	d->s.open = false;
	d->s.len = 0;
}

static int series_append(struct dump *d, const struct bc_gtf_rec *r)
{
	/* a record without data (total length 0) may come before any buffer exists */
	if (!r->data_len)
		return 0;
	if (d->s.len + r->data_len > d->s.cap) {
		size_t cap = d->s.cap ? d->s.cap : 4096;
		uint8_t *v;

		while (cap < d->s.len + r->data_len)
			cap *= 2;
		v = realloc(d->s.data, cap);
		if (!v)
			return -ENOMEM;
		d->s.data = v;
		d->s.cap = cap;
	}
	memcpy(d->s.data + d->s.len, r->data, r->data_len);
	d->s.len += r->data_len;
	return 0;
}

static bool same_series(const struct bc_gtf_rec *a, const struct bc_gtf_rec *b)
{
	return a->h.fid == b->h.fid && a->h.eid == b->h.eid && a->h.tod == b->h.tod &&
	       a->h.ascb == b->h.ascb && a->sid == b->sid &&
	       !memcmp(a->h.jobname, b->h.jobname, sizeof(a->h.jobname));
}

static void first_part(struct dump *d, const struct bc_gtf_rec *r)
{
	series_close(d, "a new series begins", r->offset);
	d->s = (struct series){.data = d->s.data, .cap = d->s.cap};
	d->s.open = true;
	d->s.first = r->offset;
	d->s.head = *r;
	d->s.next_seq = 2;
	d->s.parts = 1;
	if (r->seq != 1) {
		problem(d, r->offset, "the first record of a series has sequence %u, not 1",
			r->seq);
		d->s.next_seq = (uint16_t)(r->seq + 1);
	}
	if (r->total <= r->data_len)
		problem(d, r->offset,
			"a series whose total length (%" PRIu32 ") is no more than its first "
			"record's %zu data bytes",
			r->total, r->data_len);
	if (series_append(d, r))
		d->s.broken = true;
}

static void later_part(struct dump *d, const struct bc_gtf_rec *r)
{
	bool last = r->aid != BC_GTF_AID_MIDDLE;

	if (!d->s.open) {
		problem(d, r->offset, "a %s record of a series without its first",
			last ? "last" : "middle");
		return;
	}
	if (!same_series(&d->s.head, r)) {
		problem(d, r->offset,
			"a record of another series (FID, EID, time, pid or job differ) inside "
			"the series begun at 0x%08zx",
			d->s.first);
		return;
	}
	if (r->seq != d->s.next_seq) {
		problem(d, r->offset, "sequence %u where %u was expected: %s", r->seq,
			d->s.next_seq,
			r->seq > d->s.next_seq ? "a record of the series is missing"
					       : "a record is repeated or out of order");
		d->s.broken = true;
	}
	d->s.next_seq = (uint16_t)(r->seq + 1);
	d->s.parts++;
	if (r->total != d->s.head.total) {
		problem(d, r->offset,
			"total length %" PRIu32 " where the series began with %" PRIu32, r->total,
			d->s.head.total);
		d->s.broken = true;
	}
	if (series_append(d, r))
		d->s.broken = true;
	if (!last)
		return;
	if (d->s.len != d->s.head.total) {
		problem(d, d->s.first,
			"the series holds %zu data bytes, its total length says %" PRIu32, d->s.len,
			d->s.head.total);
		d->s.broken = true;
	}
	if (!d->s.broken) {
		d->st->series++;
		print_event(d, &d->s.head, d->s.data ? d->s.data : (const uint8_t *)"", d->s.len,
			    d->s.parts);
	}
	d->s.open = false;
	d->s.len = 0;
}

static void part_line(struct dump *d, const struct bc_gtf_rec *r)
{
	static const char *const aid_names[] = {"F0 first", "F1 middle", "F2 last", "F3 last"};

	if (d->o->no_parts)
		return;
	fprintf(d->out, "0x%08zx part  AID %s  SID %u  seq %u  total %" PRIu32 "  data %zu\n",
		r->offset, aid_names[r->aid - BC_GTF_AID_FIRST], r->sid, r->seq, r->total,
		r->data_len);
}

static void one_record(struct dump *d, const struct bc_gtf_rec *r)
{
	if (r->res)
		problem(d, r->offset, "reserved bytes are 0x%04x, not zero", r->res);
	if (r->short_split) {
		problem(d, r->offset,
			"a split record (AID %02X) of %u bytes, shorter than its header", r->aid,
			r->length);
		return;
	}
	if (r->data_len > BC_GTF_DATA_MAX)
		problem(d, r->offset, "%zu data bytes in one record, more than %d", r->data_len,
			BC_GTF_DATA_MAX);
	if (r->aid == BC_GTF_AID_WHOLE) {
		if (d->s.open)
			problem(d, r->offset, "a whole record inside the series begun at 0x%08zx",
				d->s.first);
		print_event(d, r, r->data, r->data_len, 0);
		return;
	}
	if (!r->split) {
		problem(d, r->offset, "AID %02X is none of FF, F0, F1, F2, F3: record skipped",
			r->aid);
		return;
	}
	part_line(d, r);
	if (r->aid == BC_GTF_AID_FIRST)
		first_part(d, r);
	else
		later_part(d, r);
}

uint64_t bc_gtf_dump(const uint8_t *buf, size_t len, const char *name,
		     const struct bc_gtf_dump_opts *o, FILE *out, FILE *err,
		     struct bc_gtf_dump_stats *st)
{
	struct dump d = {.name = name, .o = o, .out = out, .err = err, .st = st};
	size_t off = 0;
	char msg[256];

	memset(st, 0, sizeof(*st));
	d.decoded = malloc(DECODED_MAX);
	if (!d.decoded) {
		problem(&d, 0, "out of memory");
		return st->problems;
	}
	for (;;) {
		struct bc_gtf_rec r;
		int n = bc_gtf_parse(buf, len, off, &r, msg, sizeof(msg));

		if (n == 0)
			break;
		if (n < 0) {
			problem(&d, off, "%s%s", msg,
				n == -EINVAL ? ": the records after it cannot be found" : "");
			series_close(&d, "the file cannot be read further", off);
			break;
		}
		st->records++;
		one_record(&d, &r);
		off += (size_t)n;
	}
	series_close(&d, "the file ends", off);
	fprintf(out,
		"%" PRIu64 " records, %" PRIu64 " events (%" PRIu64 " split series), %" PRIu64
		" problems\n",
		st->records, st->events, st->series, st->problems);
	free(d.s.data);
	free(d.decoded);
	return st->problems;
}
