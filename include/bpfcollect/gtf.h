/* SPDX-License-Identifier: MIT */
/*
 * GTF user trace records (docs/gtf.md): one binary record per event,
 *
 *   length(2) res(2) AID(1) FID(1) TOD(8) EID(2) [SID(2) seq(2) total(4)]
 *   ASCB(4) jobname(8) data
 *
 * every field big-endian. A record whose data exceeds 256 bytes is split
 * into a series: AID F0 first, F1 middle, F3 last (F2 is accepted as last
 * when reading), the bracketed fields only on split records. The pieces
 * here are pure functions shared by the sink (user/sinks/gtf/) and the
 * reader (`gtf-dump`, user/report/gtf_dump.c).
 */
#ifndef BPFCOLLECT_GTF_H
#define BPFCOLLECT_GTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BC_GTF_DATA_MAX	   256 /* data bytes in one record */
#define BC_GTF_HEAD	   28  /* a non-split record's header */
#define BC_GTF_SPLIT_HEAD  36  /* a split record's header (SID, sequence, total length) */
#define BC_GTF_RECORD_MAX  (BC_GTF_SPLIT_HEAD + BC_GTF_DATA_MAX)
#define BC_GTF_JOBNAME_LEN 8

enum bc_gtf_aid {
	BC_GTF_AID_WHOLE = 0xff,  /* not split */
	BC_GTF_AID_FIRST = 0xf0,  /* first of a series */
	BC_GTF_AID_MIDDLE = 0xf1, /* middle of a series */
	BC_GTF_AID_LAST2 = 0xf2,  /* last of a series (readers accept it; never written) */
	BC_GTF_AID_LAST = 0xf3,	  /* last of a series */
};

/* ---------------------------------------------------------------- time */

/*
 * The TOD clock: microseconds since 1900-01-01 00:00 UTC in bits 0..51
 * (bit 51, the 13th from the right, is one microsecond), the nanoseconds
 * within the microsecond as a fraction in the 12 bits below it. Unix time
 * in ns to TOD and back (back loses what the 12 bits cannot hold: < 1 ns).
 * Times before 1900 are clamped to 0.
 */
#define BC_GTF_TOD_1970_US 2208988800000000ull /* 1970-01-01 in TOD microseconds */
uint64_t bc_gtf_tod_from_unix_ns(int64_t unix_ns);
int64_t bc_gtf_tod_to_unix_ns(uint64_t tod);
/* "2026-11-25 10:51:01.123456" (UTC, microseconds) into out; out. */
const char *bc_gtf_tod_format(uint64_t tod, char *out, size_t len);

/* ---------------------------------------------------------------- job names */

/* An ASCII byte in EBCDIC code page 037, and back (unmapped bytes: '?' / '.'). */
uint8_t bc_gtf_to_ebcdic(uint8_t ascii);
uint8_t bc_gtf_from_ebcdic(uint8_t ebcdic);
/* name cut to 8 bytes, blank padded, in ASCII or EBCDIC. */
void bc_gtf_jobname(uint8_t out[BC_GTF_JOBNAME_LEN], const char *name, bool ebcdic);
/* A job name as text (EBCDIC when ebcdic), "." for unprintable bytes; out[9]. */
void bc_gtf_jobname_text(const uint8_t in[BC_GTF_JOBNAME_LEN], bool ebcdic, char out[9]);
/* Whether a job name looks EBCDIC: a byte of 0x40 (blank) or above 0x7f. */
bool bc_gtf_jobname_is_ebcdic(const uint8_t in[BC_GTF_JOBNAME_LEN]);

/* ---------------------------------------------------------------- records */

/* What every record of one event says, beside its data. */
struct bc_gtf_head {
	uint8_t fid;
	uint16_t eid;
	uint64_t tod;
	uint32_t ascb; /* the process id */
	uint8_t jobname[BC_GTF_JOBNAME_LEN];
};

/* The bytes bc_gtf_encode writes for len data bytes. */
size_t bc_gtf_encoded_size(size_t len);
/*
 * The records of one event with data[len] into out[cap] (at least
 * bc_gtf_encoded_size(len)): one record when len <= 256, else a series,
 * SID 0, sequence from 1. Returns the bytes written, or -ENOSPC (len above
 * 65535 records of 256 bytes, what the 2-byte sequence can number; or cap
 * too small).
 */
long bc_gtf_encode(uint8_t *out, size_t cap, const struct bc_gtf_head *h, const uint8_t *data,
		   size_t len);

/* One record as read. */
struct bc_gtf_rec {
	size_t offset; /* in the file */
	uint16_t length;
	uint16_t res;
	uint8_t aid;
	struct bc_gtf_head h;
	bool split; /* AID F0..F3: the three fields below are there */
	uint16_t sid, seq;
	uint32_t total;
	const uint8_t *data;
	size_t data_len;
	bool short_split; /* a split AID in a record shorter than the split header: no fields read
			   */
};

/*
 * The record at buf[off], of len bytes in all. Returns its length; 0 at the
 * end; -EINVAL (a length shorter than a header: nothing after it can be
 * found) or -ENODATA (truncated: the length runs past the end), with one
 * line in err. Any AID parses (the caller judges it).
 */
int bc_gtf_parse(const uint8_t *buf, size_t len, size_t off, struct bc_gtf_rec *r, char *err,
		 size_t errlen);

/* ---------------------------------------------------------------- our FIDs and EIDs */

/* The data layout of a record kind; FID is the family's, EID the record kind. */
enum bc_gtf_fid {
	BC_GTF_FID_RAW = 0x00, /* data not ours to decode: a hex dump */
	BC_GTF_FID_FUNC = 0x01,
	BC_GTF_FID_SYSCALL = 0x02,
	BC_GTF_FID_PROCESS = 0x03,
	BC_GTF_FID_SCHED = 0x04,
	BC_GTF_FID_SAMPLE = 0x05,
	BC_GTF_FID_HEAP = 0x06,
	BC_GTF_FID_SYNC = 0x07,
	BC_GTF_FID_IO = 0x08,
	BC_GTF_FID_USAGE = 0x09,
	BC_GTF_FID_LOSS = 0x0a,
};

/* "function", "syscall", ... for our FIDs, NULL otherwise. */
const char *bc_gtf_fid_name(unsigned int fid);
/* The FID of the record kind eid (enum bc_rec_kind); 0 for one GTF does not write. */
unsigned int bc_gtf_fid_of(unsigned int eid);
/* The table of docs/gtf.md (FID, EID, name, what id and value hold), generated from the above. */
void bc_gtf_ids_print(FILE *out);

/*
 * The event a record of ours holds, as `gtf-dump` prints it: "tid=... serial=...
 * name=... FIELD=VALUE ...". Returns what snprintf would; -EINVAL when the
 * data does not parse as the layout of (fid, eid) (out then says where).
 */
int bc_gtf_decode(unsigned int fid, unsigned int eid, const uint8_t *data, size_t len, char *out,
		  size_t outlen);

/* ---------------------------------------------------------------- the sink */

/* The sink's options (record/convert --gtf-...). */
struct bc_gtf_opts {
	bool ebcdic; /* --gtf-ebcdic: job names in EBCDIC (code page 037) */
};

struct bc_sink;

/* The GTF sink, writing to out (not closed by it). NULL when out of memory. */
struct bc_sink *bc_gtf_sink_new(FILE *out, const struct bc_gtf_opts *o);

#endif /* BPFCOLLECT_GTF_H */
