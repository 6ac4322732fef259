// SPDX-License-Identifier: MIT
/*
 * GTF records (bpfcollect/gtf.h, docs/gtf.md): the TOD clock, job names,
 * and the framing of one event's data into a record or a split series,
 * and back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bpfcollect/gtf.h"

/* ---------------------------------------------------------------- time */

#define NS_PER_US 1000
/* bits 0..51 count microseconds: the last TOD the 8-byte clock holds */
#define TOD_US_MAX ((1ull << 52) - 1)

uint64_t bc_gtf_tod_from_unix_ns(int64_t unix_ns)
{
	int64_t us = unix_ns / NS_PER_US, frac = unix_ns % NS_PER_US;
	uint64_t tod_us;

	if (frac < 0) {
		frac += NS_PER_US;
		us--;
	}
	if (us < -(int64_t)BC_GTF_TOD_1970_US)
		return 0;
	tod_us = (uint64_t)(us + (int64_t)BC_GTF_TOD_1970_US);
	if (tod_us > TOD_US_MAX)
		return TOD_US_MAX << 12 | 0xfff;
	/* rounded up, so that bc_gtf_tod_to_unix_ns's rounding down gives frac back */
	return tod_us << 12 | (uint64_t)((frac * 4096 + NS_PER_US - 1) / NS_PER_US);
}

int64_t bc_gtf_tod_to_unix_ns(uint64_t tod)
{
	int64_t us = (int64_t)(tod >> 12) - (int64_t)BC_GTF_TOD_1970_US;

	return us * NS_PER_US + (int64_t)((tod & 0xfff) * NS_PER_US / 4096);
}

const char *bc_gtf_tod_format(uint64_t tod, char *out, size_t len)
{
	int64_t us = (int64_t)(tod >> 12) - (int64_t)BC_GTF_TOD_1970_US;
	int64_t secs = us / 1000000, frac = us % 1000000;
	time_t t;
	struct tm tm;
	char day[32];

	if (frac < 0) {
		frac += 1000000;
		secs--;
	}
	t = (time_t)secs;
	if (!gmtime_r(&t, &tm) || !strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(day, sizeof(day), "?");
	snprintf(out, len, "%s.%06" PRId64, day, frac);
	return out;
}

/* ---------------------------------------------------------------- job names */

/* Code page 037 for ASCII 0x20..0x7e. */
static const uint8_t cp037[95] = {
	0x40, 0x5a, 0x7f, 0x7b, 0x5b, 0x6c, 0x50, 0x7d, 0x4d, 0x5d, 0x5c, 0x4e, 0x6b, 0x60,
	0x4b, 0x61, 0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0x7a, 0x5e,
	0x4c, 0x7e, 0x6e, 0x6f, 0x7c, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9,
	0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6,
	0xe7, 0xe8, 0xe9, 0xba, 0xe0, 0xbb, 0xb0, 0x6d, 0x79, 0x81, 0x82, 0x83, 0x84, 0x85,
	0x86, 0x87, 0x88, 0x89, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0xa2,
	0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xc0, 0x4f, 0xd0, 0xa1,
};

uint8_t bc_gtf_to_ebcdic(uint8_t ascii)
{
	return ascii >= 0x20 && ascii <= 0x7e ? cp037[ascii - 0x20] : 0x6f; /* '?' */
}

uint8_t bc_gtf_from_ebcdic(uint8_t ebcdic)
{
	for (size_t i = 0; i < sizeof(cp037); i++)
		if (cp037[i] == ebcdic)
			return (uint8_t)(0x20 + i);
	return '.';
}

void bc_gtf_jobname(uint8_t out[BC_GTF_JOBNAME_LEN], const char *name, bool ebcdic)
{
	size_t n = name ? strnlen(name, BC_GTF_JOBNAME_LEN) : 0;

	for (size_t i = 0; i < BC_GTF_JOBNAME_LEN; i++) {
		uint8_t c = i < n ? (uint8_t)name[i] : ' ';

		out[i] = ebcdic ? bc_gtf_to_ebcdic(c) : c;
	}
}

bool bc_gtf_jobname_is_ebcdic(const uint8_t in[BC_GTF_JOBNAME_LEN])
{
	for (size_t i = 0; i < BC_GTF_JOBNAME_LEN; i++)
		if (in[i] == 0x40 || in[i] > 0x7f)
			return true;
	return false;
}

void bc_gtf_jobname_text(const uint8_t in[BC_GTF_JOBNAME_LEN], bool ebcdic, char out[9])
{
	for (size_t i = 0; i < BC_GTF_JOBNAME_LEN; i++) {
		uint8_t c = ebcdic ? bc_gtf_from_ebcdic(in[i]) : in[i];

		out[i] = c >= 0x20 && c <= 0x7e ? (char)c : '.';
	}
	out[BC_GTF_JOBNAME_LEN] = 0;
}

/* ---------------------------------------------------------------- records */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

size_t bc_gtf_encoded_size(size_t len)
{
	size_t parts;

	if (len <= BC_GTF_DATA_MAX)
		return BC_GTF_HEAD + len;
	parts = (len + BC_GTF_DATA_MAX - 1) / BC_GTF_DATA_MAX;
	return parts * BC_GTF_SPLIT_HEAD + len;
}

/* One record: header (split ones with SID 0, seq and total) and n data bytes. */
static size_t put_record(uint8_t *out, const struct bc_gtf_head *h, uint8_t aid, uint16_t seq,
			 uint32_t total, const uint8_t *data, size_t n)
{
	bool split = aid != BC_GTF_AID_WHOLE;
	size_t head = split ? BC_GTF_SPLIT_HEAD : BC_GTF_HEAD, at = 16;

	put16(out, (uint16_t)(head + n));
	put16(out + 2, 0);
	out[4] = aid;
	out[5] = h->fid;
	put64(out + 6, h->tod);
	put16(out + 14, h->eid);
	if (split) {
		put16(out + 16, 0); /* SID: one system */
		put16(out + 18, seq);
		put32(out + 20, total);
		at = 24;
	}
	put32(out + at, h->ascb);
	memcpy(out + at + 4, h->jobname, BC_GTF_JOBNAME_LEN);
	if (n)
		memcpy(out + head, data, n);
	return head + n;
}

long bc_gtf_encode(uint8_t *out, size_t cap, const struct bc_gtf_head *h, const uint8_t *data,
		   size_t len)
{
	size_t pos = 0, done = 0;
	uint16_t seq = 0;

	/* the sequence is 2 bytes: 65535 parts of 256 bytes at most */
	if (len > (size_t)UINT16_MAX * BC_GTF_DATA_MAX || cap < bc_gtf_encoded_size(len))
		return -ENOSPC;
	if (len <= BC_GTF_DATA_MAX)
		return (long)put_record(out, h, BC_GTF_AID_WHOLE, 0, 0, data, len);
	while (done < len) {
		size_t n = len - done < BC_GTF_DATA_MAX ? len - done : BC_GTF_DATA_MAX;
		uint8_t aid = !done		? BC_GTF_AID_FIRST
			      : done + n == len ? BC_GTF_AID_LAST
						: BC_GTF_AID_MIDDLE;

		pos += put_record(out + pos, h, aid, ++seq, (uint32_t)len, data + done, n);
		done += n;
	}
	return (long)pos;
}

int bc_gtf_parse(const uint8_t *buf, size_t len, size_t off, struct bc_gtf_rec *r, char *err,
		 size_t errlen)
{
	const uint8_t *p = buf + off;
	size_t left = off < len ? len - off : 0, head, at = 16;

	memset(r, 0, sizeof(*r));
	r->offset = off;
	if (!left)
		return 0;
	if (left < 2) {
		snprintf(err, errlen, "truncated: 1 byte where a record's length should be");
		return -ENODATA;
	}
	r->length = get16(p);
	if (r->length < BC_GTF_HEAD) {
		snprintf(err, errlen, "length %u is shorter than a record's header (%d bytes)",
			 r->length, BC_GTF_HEAD);
		return -EINVAL;
	}
	if (r->length > left) {
		snprintf(err, errlen, "truncated: the record says %u bytes, the file holds %zu",
			 r->length, left);
		return -ENODATA;
	}
	r->res = get16(p + 2);
	r->aid = p[4];
	r->h.fid = p[5];
	r->h.tod = get64(p + 6);
	r->h.eid = get16(p + 14);
	r->split = r->aid >= BC_GTF_AID_FIRST && r->aid <= BC_GTF_AID_LAST;
	head = r->split ? BC_GTF_SPLIT_HEAD : BC_GTF_HEAD;
	if (r->length < head) {
		/* its length still says where the next one starts */
		r->short_split = true;
		return r->length;
	}
	if (r->split) {
		r->sid = get16(p + 16);
		r->seq = get16(p + 18);
		r->total = get32(p + 20);
		at = 24;
	}
	r->h.ascb = get32(p + at);
	memcpy(r->h.jobname, p + at + 4, BC_GTF_JOBNAME_LEN);
	r->data = p + head;
	r->data_len = r->length - head;
	return r->length;
}
