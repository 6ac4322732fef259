// SPDX-License-Identifier: MIT
/*
 * GTF user trace records (bpfcollect/gtf.h): the TOD clock at known points,
 * the big-endian header of whole and split records, splitting at the
 * 256-byte boundaries, parsing back, EBCDIC job names, the FID/EID table.
 *
 * Every expected value is written out by hand, never produced by the code
 * under test.
 */
#include "gtf_fixture.h"

/* ---------------------------------------------------------------- time */

static void test_tod_known_points(void **state)
{
	(void)state;
	assert_int_equal(bc_gtf_tod_from_unix_ns(UNIX_1900_NS), 0);
	assert_int_equal(bc_gtf_tod_to_unix_ns(0), UNIX_1900_NS);
	assert_int_equal(bc_gtf_tod_from_unix_ns(0), TOD_1970);
	assert_int_equal(bc_gtf_tod_to_unix_ns(TOD_1970), 0);
	assert_int_equal(bc_gtf_tod_from_unix_ns(UNIX_2040_NS), TOD_2040);
	assert_int_equal(bc_gtf_tod_to_unix_ns(TOD_2040), UNIX_2040_NS);
	assert_int_equal(TOD_2040_US << 12, TOD_2040);
	/* 500 ns is exactly half a microsecond: bit 52 of 64 (0x800) */
	assert_int_equal(bc_gtf_tod_from_unix_ns(UNIX_2040_NS + 500), TOD_2040 | TOD_FRAC_500NS);
	assert_int_equal(bc_gtf_tod_to_unix_ns(TOD_2040 | TOD_FRAC_500NS), UNIX_2040_NS + 500);
	/* one microsecond is bit 51: 1 << 12 */
	assert_int_equal(bc_gtf_tod_from_unix_ns(1000), TOD_1970 + 0x1000);
	assert_int_equal(bc_gtf_tod_from_unix_ns(-1000), TOD_1970 - 0x1000);
	/* 1900 + 1 us and 1900 + 1 ns */
	assert_int_equal(bc_gtf_tod_from_unix_ns(UNIX_1900_NS + 1000), 0x1000);
	assert_int_equal(bc_gtf_tod_from_unix_ns(UNIX_1900_NS + 1) >> 12, 0);
}

static void test_tod_round_trip(void **state)
{
	/* 1930-11-18 and 1969-12-31 23:59:59 are negative unix times after 1900 */
	static const int64_t base[] = {
		UNIX_1900_NS,	       -1234567890123456000ll, -1000000000ll, 0,
		1704067200000000000ll, UNIX_2040_NS,
	};
	static const int64_t frac[] = {0, 1, 500, 999};

	(void)state;
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++) {
		for (size_t k = 0; k < sizeof(frac) / sizeof(frac[0]); k++) {
			int64_t x = base[i] + frac[k];
			uint64_t tod = bc_gtf_tod_from_unix_ns(x);

			/* the microseconds are the base's, the fraction below them */
			assert_int_equal(tod >> 12, bc_gtf_tod_from_unix_ns(base[i]) >> 12);
			assert_int_equal(bc_gtf_tod_to_unix_ns(tod), x);
		}
	}
	/* the microseconds of the bases, by hand */
	assert_int_equal(bc_gtf_tod_from_unix_ns(-1234567890123456000ll) >> 12,
			 2208988800000000ull - 1234567890123456ull);
	assert_int_equal(bc_gtf_tod_from_unix_ns(1704067200000000000ll) >> 12,
			 2208988800000000ull + 1704067200000000ull);
}

static void test_tod_before_1900(void **state)
{
	(void)state;
	assert_int_equal(bc_gtf_tod_from_unix_ns(UNIX_1900_NS - 1), 0);
	assert_int_equal(bc_gtf_tod_from_unix_ns(UNIX_1900_NS - 1000), 0);
	assert_int_equal(bc_gtf_tod_from_unix_ns(UNIX_1900_NS - 86400000000000ll), 0);
	assert_int_equal(bc_gtf_tod_from_unix_ns(INT64_MIN), 0);
}

static void test_tod_format(void **state)
{
	char s[64];

	(void)state;
	assert_string_equal(bc_gtf_tod_format(TOD_1970, s, sizeof(s)),
			    "1970-01-01 00:00:00.000000");
	assert_string_equal(bc_gtf_tod_format(TOD_2040, s, sizeof(s)),
			    "2040-02-29 12:34:56.789012");
	/* the fraction below a microsecond is not shown */
	assert_string_equal(bc_gtf_tod_format(TOD_2040 | 0xfff, s, sizeof(s)),
			    "2040-02-29 12:34:56.789012");
	assert_string_equal(bc_gtf_tod_format(0, s, sizeof(s)), "1900-01-01 00:00:00.000000");
	/* 1969-12-31 23:59:59.999999: a negative unix time */
	assert_string_equal(bc_gtf_tod_format(TOD_1970 - 0x1000, s, sizeof(s)),
			    "1969-12-31 23:59:59.999999");
}

/* ---------------------------------------------------------------- records */

static void test_header_whole(void **state)
{
	static const uint8_t data[3] = {0xde, 0xad, 0xbe};
	static const uint8_t want[31] = {
		0x00, 0x1f,					/* length 28 + 3 */
		0x00, 0x00,					/* reserved */
		0xff,						/* AID: whole */
		0x01,						/* FID */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* TOD */
		0x01, 0x01,					/* EID */
		0x0a, 0x0b, 0x0c, 0x0d,				/* ASCB */
		'c',  'a',  'l',  'l',	's',  ' ',  ' ',  ' ',	/* job name */
		0xde, 0xad, 0xbe,				/* data */
	};
	struct bc_gtf_head h = test_head();
	uint8_t out[64];

	(void)state;
	memset(out, 0x55, sizeof(out));
	assert_int_equal(bc_gtf_encoded_size(3), 31);
	assert_int_equal(bc_gtf_encode(out, 31, &h, data, 3), 31);
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(out[31], 0x55); /* nothing written past it */
	assert_int_equal(bc_gtf_encode(out, 30, &h, data, 3), -ENOSPC);

	/* no data at all: the header alone */
	assert_int_equal(bc_gtf_encoded_size(0), 28);
	assert_int_equal(bc_gtf_encode(out, sizeof(out), &h, NULL, 0), 28);
	assert_int_equal(be16(out), 28);
	assert_int_equal(out[4], 0xff);
}

static void test_header_split(void **state)
{
	static const uint8_t head1[36] = {
		0x01, 0x24,					/* length 36 + 256 = 292 */
		0x00, 0x00,					/* reserved */
		0xf0,						/* AID: first */
		0x01,						/* FID */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* TOD */
		0x01, 0x01,					/* EID */
		0x00, 0x00,					/* SID */
		0x00, 0x01,					/* sequence 1 */
		0x00, 0x00, 0x01, 0x01,				/* total length 257 */
		0x0a, 0x0b, 0x0c, 0x0d,				/* ASCB */
		'c',  'a',  'l',  'l',	's',  ' ',  ' ',  ' ',	/* job name */
	};
	static const uint8_t head2[36] = {
		0x00, 0x25,					/* length 36 + 1 = 37 */
		0x00, 0x00,					/* reserved */
		0xf3,						/* AID: last */
		0x01,						/* FID */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* TOD */
		0x01, 0x01,					/* EID */
		0x00, 0x00,					/* SID */
		0x00, 0x02,					/* sequence 2 */
		0x00, 0x00, 0x01, 0x01,				/* total length 257 */
		0x0a, 0x0b, 0x0c, 0x0d,				/* ASCB */
		'c',  'a',  'l',  'l',	's',  ' ',  ' ',  ' ',	/* job name */
	};
	struct bc_gtf_head h = test_head();
	uint8_t data[257], out[400];

	(void)state;
	pattern(data, sizeof(data));
	memset(out, 0x55, sizeof(out));
	assert_int_equal(bc_gtf_encoded_size(257), 329);
	assert_int_equal(bc_gtf_encode(out, sizeof(out), &h, data, 257), 329);
	assert_memory_equal(out, head1, 36);
	assert_memory_equal(out + 36, data, 256);
	assert_memory_equal(out + 292, head2, 36);
	assert_int_equal(out[328], data[256]);
	assert_int_equal(out[329], 0x55);
}

/* One splitting case: the records bc_gtf_encode must write. */
struct split_case {
	size_t len, nrec, bytes;
	uint8_t aid[16];
	uint16_t rlen[16]; /* each record's length field */
	uint16_t dlen[16]; /* each record's data bytes */
};

#define F1x14  0xf1, 0xf1, 0xf1, 0xf1, 0xf1, 0xf1, 0xf1, 0xf1, 0xf1, 0xf1, 0xf1, 0xf1, 0xf1, 0xf1
#define X16(v) v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v

static const struct split_case split_cases[] = {
	{255, 1, 283, {0xff}, {283}, {255}},
	{256, 1, 284, {0xff}, {284}, {256}},
	{257, 2, 329, {0xf0, 0xf3}, {292, 37}, {256, 1}},
	{512, 2, 584, {0xf0, 0xf3}, {292, 292}, {256, 256}},
	{513, 3, 621, {0xf0, 0xf1, 0xf3}, {292, 292, 37}, {256, 256, 1}},
	{4096, 16, 4672, {0xf0, F1x14, 0xf3}, {X16(292)}, {X16(256)}},
};

static void check_split(const struct split_case *c)
{
	struct bc_gtf_head h = test_head();
	uint8_t *data = malloc(c->len), *out = malloc(c->bytes + 1), *joined = malloc(c->len);
	size_t off = 0, done = 0;
	char err[256];

	assert_non_null(data);
	assert_non_null(out);
	assert_non_null(joined);
	pattern(data, c->len);
	assert_int_equal(bc_gtf_encoded_size(c->len), c->bytes);
	assert_int_equal(bc_gtf_encode(out, c->bytes - 1, &h, data, c->len), -ENOSPC);
	assert_int_equal(bc_gtf_encode(out, c->bytes, &h, data, c->len), c->bytes);

	for (size_t k = 0; k < c->nrec; k++) {
		const uint8_t *p = out + off;
		bool split = c->nrec > 1;
		size_t head = split ? 36 : 28;
		struct bc_gtf_rec r;

		/* the bytes, read here */
		assert_true(off + c->rlen[k] <= c->bytes);
		assert_int_equal(be16(p), c->rlen[k]);
		assert_int_equal(be16(p + 2), 0);
		assert_int_equal(p[4], c->aid[k]);
		assert_int_equal(p[5], 0x01);
		assert_int_equal(be64(p + 6), 0x0102030405060708ull);
		assert_int_equal(be16(p + 14), 0x0101);
		if (split) {
			assert_int_equal(be16(p + 16), 0);     /* SID */
			assert_int_equal(be16(p + 18), k + 1); /* sequence */
			assert_int_equal(be32(p + 20), c->len);
		}
		assert_int_equal(be32(p + head - 12), 0x0A0B0C0D);
		assert_memory_equal(p + head - 8, "calls   ", 8);
		assert_int_equal(c->rlen[k], head + c->dlen[k]);
		assert_true(c->dlen[k] <= 256);
		memcpy(joined + done, p + head, c->dlen[k]);

		/* the same, parsed */
		assert_int_equal(bc_gtf_parse(out, c->bytes, off, &r, err, sizeof(err)),
				 c->rlen[k]);
		assert_int_equal(r.offset, off);
		assert_int_equal(r.length, c->rlen[k]);
		assert_int_equal(r.res, 0);
		assert_int_equal(r.aid, c->aid[k]);
		assert_int_equal(r.h.fid, 0x01);
		assert_int_equal(r.h.eid, 0x0101);
		assert_int_equal(r.h.tod, 0x0102030405060708ull);
		assert_int_equal(r.h.ascb, 0x0A0B0C0D);
		assert_memory_equal(r.h.jobname, "calls   ", 8);
		assert_int_equal(r.split, split);
		assert_false(r.short_split);
		assert_int_equal(r.sid, 0);
		assert_int_equal(r.seq, split ? k + 1 : 0);
		assert_int_equal(r.total, split ? c->len : 0);
		assert_ptr_equal(r.data, p + head);
		assert_int_equal(r.data_len, c->dlen[k]);

		off += c->rlen[k];
		done += c->dlen[k];
	}
	assert_int_equal(off, c->bytes);
	assert_int_equal(done, c->len);
	assert_memory_equal(joined, data, c->len);
	{
		struct bc_gtf_rec r;

		assert_int_equal(bc_gtf_parse(out, c->bytes, off, &r, err, sizeof(err)), 0);
	}
	free(data);
	free(out);
	free(joined);
}

static void test_split_sizes(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(split_cases) / sizeof(split_cases[0]); i++)
		check_split(&split_cases[i]);
}

static void test_parse_errors(void **state)
{
	struct bc_gtf_head h = test_head();
	uint8_t buf[64];
	struct bc_gtf_rec r;
	char err[256];

	(void)state;
	assert_int_equal(bc_gtf_encode(buf, sizeof(buf), &h, (const uint8_t *)"xyz", 3), 31);

	/* cut inside: the length runs past the end */
	err[0] = 0;
	assert_int_equal(bc_gtf_parse(buf, 20, 0, &r, err, sizeof(err)), -ENODATA);
	assert_string_equal(err, "truncated: the record says 31 bytes, the file holds 20");
	/* one byte where a length should be */
	assert_int_equal(bc_gtf_parse(buf, 32, 31, &r, err, sizeof(err)), -ENODATA);
	assert_string_equal(err, "truncated: 1 byte where a record's length should be");
	/* past the end: 0 */
	assert_int_equal(bc_gtf_parse(buf, 31, 31, &r, err, sizeof(err)), 0);
	assert_int_equal(bc_gtf_parse(buf, 31, 40, &r, err, sizeof(err)), 0);

	/* a length shorter than a header */
	buf[0] = 0x00;
	buf[1] = 0x05;
	assert_int_equal(bc_gtf_parse(buf, 31, 0, &r, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "length 5 is shorter than a record's header (28 bytes)");
	buf[1] = 27;
	assert_int_equal(bc_gtf_parse(buf, 31, 0, &r, err, sizeof(err)), -EINVAL);

	/* a split AID in 30 bytes: long enough to skip, too short for its fields */
	buf[1] = 30;
	buf[4] = 0xf1;
	assert_int_equal(bc_gtf_parse(buf, 31, 0, &r, err, sizeof(err)), 30);
	assert_true(r.short_split);
	assert_true(r.split);
	assert_int_equal(r.aid, 0xf1);
	assert_int_equal(r.h.eid, 0x0101);

	/* any other AID parses as a whole record's header */
	buf[1] = 31;
	buf[4] = 0x42;
	assert_int_equal(bc_gtf_parse(buf, 31, 0, &r, err, sizeof(err)), 31);
	assert_false(r.split);
	assert_int_equal(r.aid, 0x42);
	assert_int_equal(r.data_len, 3);
	assert_memory_equal(r.data, "xyz", 3);
}

/* ---------------------------------------------------------------- job names */

static void test_jobnames(void **state)
{
	static const uint8_t calls_e[8] = {0x83, 0x81, 0x93, 0x93, 0xa2, 0x40, 0x40, 0x40};
	static const uint8_t job1_e[8] = {0xd1, 0xd6, 0xc2, 0xf1, 0x40, 0x40, 0x40, 0x40};
	static const uint8_t abc_e[8] = {0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8};
	static const uint8_t blank_e[8] = {0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40};
	static const uint8_t zero[8] = {0};
	uint8_t j[8];
	char text[9];

	(void)state;
	bc_gtf_jobname(j, "calls", true);
	assert_memory_equal(j, calls_e, 8);
	assert_true(bc_gtf_jobname_is_ebcdic(j));
	bc_gtf_jobname_text(j, true, text);
	assert_string_equal(text, "calls   ");

	bc_gtf_jobname(j, "calls", false);
	assert_memory_equal(j, "calls   ", 8);
	assert_false(bc_gtf_jobname_is_ebcdic(j));
	bc_gtf_jobname_text(j, false, text);
	assert_string_equal(text, "calls   ");

	bc_gtf_jobname(j, "JOB1", true);
	assert_memory_equal(j, job1_e, 8);
	bc_gtf_jobname(j, "JOB1", false);
	assert_memory_equal(j, "JOB1    ", 8);

	/* cut to 8 */
	bc_gtf_jobname(j, "ABCDEFGHIJKLMNOP", false);
	assert_memory_equal(j, "ABCDEFGH", 8);
	assert_false(bc_gtf_jobname_is_ebcdic(j));
	bc_gtf_jobname(j, "ABCDEFGHIJKLMNOP", true);
	assert_memory_equal(j, abc_e, 8);
	assert_true(bc_gtf_jobname_is_ebcdic(j)); /* no blank, every byte above 0x7f */

	/* empty or none: blanks */
	bc_gtf_jobname(j, "", true);
	assert_memory_equal(j, blank_e, 8);
	bc_gtf_jobname(j, NULL, false);
	assert_memory_equal(j, "        ", 8);
	assert_false(bc_gtf_jobname_is_ebcdic(zero));

	/* unprintable bytes show as '.' */
	memcpy(j,
	       "ab\x01\x7f"
	       "cdef",
	       8);
	bc_gtf_jobname_text(j, false, text);
	assert_string_equal(text, "ab..cdef");
}

static void test_ebcdic_table(void **state)
{
	(void)state;
	/* code page 037, from its published table */
	assert_int_equal(bc_gtf_to_ebcdic(' '), 0x40);
	assert_int_equal(bc_gtf_to_ebcdic('0'), 0xf0);
	assert_int_equal(bc_gtf_to_ebcdic('9'), 0xf9);
	assert_int_equal(bc_gtf_to_ebcdic('A'), 0xc1);
	assert_int_equal(bc_gtf_to_ebcdic('I'), 0xc9);
	assert_int_equal(bc_gtf_to_ebcdic('J'), 0xd1);
	assert_int_equal(bc_gtf_to_ebcdic('S'), 0xe2);
	assert_int_equal(bc_gtf_to_ebcdic('Z'), 0xe9);
	assert_int_equal(bc_gtf_to_ebcdic('a'), 0x81);
	assert_int_equal(bc_gtf_to_ebcdic('j'), 0x91);
	assert_int_equal(bc_gtf_to_ebcdic('s'), 0xa2);
	assert_int_equal(bc_gtf_to_ebcdic('z'), 0xa9);
	assert_int_equal(bc_gtf_to_ebcdic('.'), 0x4b);
	assert_int_equal(bc_gtf_to_ebcdic('!'), 0x5a);
	assert_int_equal(bc_gtf_to_ebcdic('|'), 0x4f);
	assert_int_equal(bc_gtf_to_ebcdic('['), 0xba);
	assert_int_equal(bc_gtf_to_ebcdic(']'), 0xbb);
	assert_int_equal(bc_gtf_to_ebcdic('^'), 0xb0);
	assert_int_equal(bc_gtf_to_ebcdic('_'), 0x6d);
	assert_int_equal(bc_gtf_to_ebcdic('~'), 0xa1);
	assert_int_equal(bc_gtf_to_ebcdic('{'), 0xc0);
	assert_int_equal(bc_gtf_to_ebcdic('}'), 0xd0);
	assert_int_equal(bc_gtf_to_ebcdic('\\'), 0xe0);
	/* unmapped: '?' (0x6f) one way, '.' the other */
	assert_int_equal(bc_gtf_to_ebcdic('\n'), 0x6f);
	assert_int_equal(bc_gtf_to_ebcdic(0x80), 0x6f);
	assert_int_equal(bc_gtf_from_ebcdic(0x00), '.');
	assert_int_equal(bc_gtf_from_ebcdic(0xff), '.');
	assert_int_equal(bc_gtf_from_ebcdic(0x6f), '?');

	/* every printable ASCII byte goes there and back, and no two share a code */
	for (unsigned int c = 0x20; c <= 0x7e; c++) {
		uint8_t e = bc_gtf_to_ebcdic((uint8_t)c);

		assert_int_equal(bc_gtf_from_ebcdic(e), c);
		assert_true(e >= 0x40);
		for (unsigned int d = 0x20; d < c; d++)
			assert_int_not_equal(bc_gtf_to_ebcdic((uint8_t)d), e);
	}
}

static void test_ids(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_string_equal(bc_gtf_fid_name(0x01), "function");
	assert_string_equal(bc_gtf_fid_name(0x0a), "loss");
	assert_null(bc_gtf_fid_name(0x00));
	assert_null(bc_gtf_fid_name(0x0b));
	assert_null(bc_gtf_fid_name(0xff));
	assert_int_equal(bc_gtf_fid_of(BC_REC_FUNC_ENTRY), 0x01);
	assert_int_equal(bc_gtf_fid_of(BC_REC_SYS_EXIT), 0x02);
	assert_int_equal(bc_gtf_fid_of(BC_REC_LOST), 0x0a);
	assert_int_equal(bc_gtf_fid_of(BC_REC_USAGE), 0x09);
	assert_int_equal(bc_gtf_fid_of(BC_REC_MMAP), 0);
	assert_int_equal(bc_gtf_fid_of(0x1234), 0);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	bc_gtf_ids_print(f);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, "| 01 | function | 0101 | func_entry | the function | "
				     "func_id cpu sp captures |\n"));
	free(text);
}

#define T(fn) cmocka_unit_test(fn)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_tod_known_points),
		T(test_tod_round_trip),
		T(test_tod_before_1900),
		T(test_tod_format),
		T(test_header_whole),
		T(test_header_split),
		T(test_split_sizes),
		T(test_parse_errors),
		T(test_jobnames),
		T(test_ebcdic_table),
		T(test_ids),
	};

	return cmocka_run_group_tests_name("gtf", tests, NULL, NULL);
}
