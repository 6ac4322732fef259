/* SPDX-License-Identifier: MIT */
/*
 * What the GTF unit tests share (tests/unit/sinks/test_gtf*.c,
 * tests/unit/report/test_gtf_dump.c): the known points of the TOD clock,
 * big-endian reads, a header with distinctive bytes, and a file of records
 * read back by gtf-dump's reader into memory.
 */
#ifndef BPFCOLLECT_TESTS_GTF_FIXTURE_H
#define BPFCOLLECT_TESTS_GTF_FIXTURE_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/capture.h"
#include "bpfcollect/gtf.h"
#include "bpfcollect/gtf_dump.h"
#include "bpfcollect/model.h"
#include "bpfcollect/record.h"

/*
 * Known points of the TOD clock (microseconds since 1900-01-01 00:00 UTC,
 * shifted left by 12):
 *
 * 1970-01-01: 70 years of 365 days and 17 leap days (1904..1968; 1900 is
 * not one) = 25567 days = 2208988800 s = 2208988800000000 us = 0x7D91048BCA000,
 * shifted: 0x7D91048BCA000000.
 *
 * 2040-02-29T12:34:56.789012Z: 1970..2039 is 70 years, 17 leap days
 * (1972..2036), 25567 days; January 31 and February 28 more: 25626 days =
 * 2214086400 s; 12:34:56 = 45296 s: 2214131696 s. In us: 2214131696789012;
 * + 2208988800000000 = 4423120496789012 = 0xFB6CDFE028614, shifted:
 * 0xFB6CDFE028614000.
 */
#define UNIX_1900_NS   (-2208988800000000000ll)
#define TOD_1970       0x7D91048BCA000000ull
#define UNIX_2040_NS   2214131696789012000ll
#define TOD_2040_US    4423120496789012ull
#define TOD_2040       0xFB6CDFE028614000ull
#define TOD_FRAC_500NS 0x800 /* 500 ns = 500 * 4096 / 1000 = 2048 / 4096 us */

static inline uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t be32(const uint8_t *p)
{
	return (uint32_t)be16(p) << 16 | be16(p + 2);
}

static inline uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* Bytes that differ from one 256-byte part to the next. */
static inline void pattern(uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 7 + i / 256);
}

/* The header of most tests: distinctive bytes in every field. */
static inline struct bc_gtf_head test_head(void)
{
	struct bc_gtf_head h = {
		.fid = 0x01,
		.eid = 0x0101,
		.tod = 0x0102030405060708ull,
		.ascb = 0x0A0B0C0D,
		.jobname = {'c', 'a', 'l', 'l', 's', ' ', ' ', ' '},
	};

	return h;
}

/* A growing file of records. */
struct file {
	uint8_t b[8192];
	size_t len;
};

static inline void add(struct file *f, const uint8_t *p, size_t n)
{
	assert_true(f->len + n <= sizeof(f->b));
	memcpy(f->b + f->len, p, n);
	f->len += n;
}

/*
 * The records of the reader's tests: W a whole record of 3 bytes (31 in all);
 * S a series of 600 bytes: S0 292 bytes (F0), S1 292 (F1), S2 36 + 88 = 124
 * (F3); Tser the same series with another EID.
 */

struct dumped {
	char *out, *err;
	size_t outlen, errlen;
	struct bc_gtf_dump_stats st;
	uint64_t problems;
};

static inline void dump(struct dumped *d, const struct file *f, const struct bc_gtf_dump_opts *o)
{
	struct bc_gtf_dump_opts def = {0};
	FILE *out, *err;

	memset(d, 0, sizeof(*d));
	out = open_memstream(&d->out, &d->outlen);
	err = open_memstream(&d->err, &d->errlen);
	assert_non_null(out);
	assert_non_null(err);
	d->problems = bc_gtf_dump(f->b, f->len, "t.gtf", o ? o : &def, out, err, &d->st);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(fclose(err), 0);
	assert_int_equal(d->problems, d->st.problems);
}

static inline void dumped_free(struct dumped *d)
{
	free(d->out);
	free(d->err);
}

static inline void expect(const struct dumped *d, uint64_t records, uint64_t events,
			  uint64_t series, uint64_t problems)
{
	char line[128];

	assert_int_equal(d->st.records, records);
	assert_int_equal(d->st.events, events);
	assert_int_equal(d->st.series, series);
	assert_int_equal(d->problems, problems);
	snprintf(line, sizeof(line), "%d records, %d events (%d split series), %d problems\n",
		 (int)records, (int)events, (int)series, (int)problems);
	assert_true(d->outlen >= strlen(line));
	assert_string_equal(d->out + d->outlen - strlen(line), line);
}

#endif
