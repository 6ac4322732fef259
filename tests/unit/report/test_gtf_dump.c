// SPDX-License-Identifier: MIT
/*
 * gtf-dump's reader (bpfcollect/gtf_dump.h): clean files, and every problem
 * it reports (missing, repeated, foreign and truncated records, wrong
 * lengths) with its offset.
 *
 * Every expected value is written out by hand, never produced by the code
 * under test.
 */
#include "gtf_fixture.h"

/* ---------------------------------------------------------------- the reader */

static uint8_t W[31], S[708], Tser[708];
#define S0 S
#define S1 (S + 292)
#define S2 (S + 584)

static int setup_records(void **state)
{
	struct bc_gtf_head hw = {.fid = 0x00, .eid = 0x1234, .tod = TOD_1970, .ascb = 42};
	struct bc_gtf_head hs = {.fid = 0x00, .eid = 0x5678, .tod = TOD_2040, .ascb = 43};
	uint8_t data[600];

	(void)state;
	memcpy(hw.jobname, "calls   ", 8);
	memcpy(hs.jobname, "calls   ", 8);
	pattern(data, sizeof(data));
	if (bc_gtf_encode(W, sizeof(W), &hw, (const uint8_t *)"abc", 3) != 31 ||
	    bc_gtf_encode(S, sizeof(S), &hs, data, 600) != 708)
		return -1;
	hs.eid = 0x5679;
	if (bc_gtf_encode(Tser, sizeof(Tser), &hs, data, 600) != 708)
		return -1;
	/* the layout the offsets below assume */
	if (be16(S0) != 292 || be16(S1) != 292 || be16(S2) != 124 || S0[4] != 0xf0 ||
	    S1[4] != 0xf1 || S2[4] != 0xf3)
		return -1;
	return 0;
}
static void test_dump_clean(void **state)
{
	struct file *f = calloc(1, sizeof(*f));
	struct dumped d;

	(void)state;
	assert_non_null(f);
	add(f, W, 31);	 /* 0x000 */
	add(f, S0, 292); /* 0x01f */
	add(f, S1, 292); /* 0x143 */
	add(f, S2, 124); /* 0x267 */
	assert_int_equal(f->len, 739);
	dump(&d, f, NULL);
	expect(&d, 4, 2, 1, 0);
	assert_int_equal(d.errlen, 0);
	assert_non_null(strstr(d.out, "0x00000000 record  FID 00  EID 1234  "
				      "1970-01-01 00:00:00.000000 UTC  pid 42  job 'calls   '  "
				      "data 3\n"));
	assert_non_null(strstr(d.out, "0x0000001f part  AID F0 first  SID 0  seq 1  total 600  "
				      "data 256\n"));
	assert_non_null(strstr(d.out, "0x00000143 part  AID F1 middle  SID 0  seq 2  total 600  "
				      "data 256\n"));
	assert_non_null(strstr(d.out, "0x00000267 part  AID F3 last  SID 0  seq 3  total 600  "
				      "data 88\n"));
	assert_non_null(strstr(d.out, "0x0000001f series of 3  FID 00  EID 5678  "
				      "2040-02-29 12:34:56.789012 UTC  pid 43  job 'calls   '  "
				      "data 600\n"));
	/* the joined data's hex: byte 0x100 (the second part's first) is 256 * 7 + 1 */
	assert_non_null(strstr(d.out, "    0100  01 08"));
	/* the whole record's hex */
	assert_non_null(strstr(d.out, "    0000  61 62 63"));
	dumped_free(&d);

	/* without hex and parts lines */
	{
		struct bc_gtf_dump_opts o = {.no_hex = true, .no_parts = true};

		dump(&d, f, &o);
		expect(&d, 4, 2, 1, 0);
		assert_null(strstr(d.out, " part "));
		assert_null(strstr(d.out, "    0000 "));
		dumped_free(&d);
	}
	free(f);
}

static void test_dump_missing(void **state)
{
	struct file *f = calloc(1, sizeof(*f));
	struct bc_gtf_dump_opts o = {.max_problems = 1};
	struct dumped d;

	(void)state;
	assert_non_null(f);
	add(f, W, 31);	 /* 0x000 */
	add(f, S0, 292); /* 0x01f */
	add(f, S2, 124); /* 0x143: sequence 3, 2 is missing */
	dump(&d, f, NULL);
	expect(&d, 3, 1, 0, 2);
	assert_string_equal(d.err, "t.gtf: offset 0x00000143: sequence 3 where 2 was expected: a "
				   "record of the series is missing\n"
				   "t.gtf: offset 0x0000001f: the series holds 344 data bytes, its "
				   "total length says 600\n");
	assert_null(strstr(d.out, "series of"));
	dumped_free(&d);

	/* at most one reported, both counted */
	dump(&d, f, &o);
	expect(&d, 3, 1, 0, 2);
	assert_string_equal(d.err, "t.gtf: offset 0x00000143: sequence 3 where 2 was expected: a "
				   "record of the series is missing\n");
	dumped_free(&d);

	/* a record repeated */
	f->len = 0;
	add(f, S0, 292); /* 0x000 */
	add(f, S1, 292); /* 0x124 */
	add(f, S1, 292); /* 0x248: again */
	add(f, S2, 124); /* 0x36c */
	dump(&d, f, NULL);
	assert_non_null(strstr(d.err, "t.gtf: offset 0x00000248: sequence 2 where 3 was expected: "
				      "a record is repeated or out of order\n"));
	assert_int_equal(d.st.series, 0);
	assert_true(d.problems >= 1);
	dumped_free(&d);
	free(f);
}

static void test_dump_total(void **state)
{
	struct file *f = calloc(1, sizeof(*f));
	uint8_t s1[292], all[708];
	struct dumped d;

	(void)state;
	assert_non_null(f);
	/* the middle record says 601 (0x259) */
	memcpy(s1, S1, 292);
	s1[22] = 0x02;
	s1[23] = 0x59;
	add(f, W, 31);	 /* 0x000 */
	add(f, S0, 292); /* 0x01f */
	add(f, s1, 292); /* 0x143 */
	add(f, S2, 124); /* 0x267 */
	dump(&d, f, NULL);
	expect(&d, 4, 1, 0, 1);
	assert_string_equal(d.err, "t.gtf: offset 0x00000143: total length 601 where the series "
				   "began with 600\n");
	dumped_free(&d);

	/* every record says 601: the data is one byte short */
	memcpy(all, S, sizeof(all));
	all[23] = all[292 + 23] = all[584 + 23] = 0x59;
	all[22] = all[292 + 22] = all[584 + 22] = 0x02;
	f->len = 0;
	add(f, W, 31);
	add(f, all, 708);
	dump(&d, f, NULL);
	expect(&d, 4, 1, 0, 1);
	assert_string_equal(d.err, "t.gtf: offset 0x0000001f: the series holds 600 data bytes, "
				   "its total length says 601\n");
	dumped_free(&d);
	free(f);
}

static void test_dump_truncated(void **state)
{
	struct file *f = calloc(1, sizeof(*f));
	struct dumped d;

	(void)state;
	assert_non_null(f);
	add(f, W, 31);	 /* 0x000 */
	add(f, S0, 292); /* 0x01f */
	add(f, S1, 292); /* 0x143 */
	add(f, S2, 124); /* 0x267 */
	f->len -= 10;	 /* 114 of its 124 bytes */
	dump(&d, f, NULL);
	expect(&d, 3, 1, 0, 2);
	assert_string_equal(d.err, "t.gtf: offset 0x00000267: truncated: the record says 124 "
				   "bytes, the file holds 114\n"
				   "t.gtf: offset 0x0000001f: the series begun here never ended: "
				   "the file cannot be read further at 0x00000267\n");
	dumped_free(&d);

	/* a series the file ends inside, at a record's end */
	f->len = 31 + 292 + 292;
	dump(&d, f, NULL);
	expect(&d, 3, 1, 0, 1);
	assert_string_equal(d.err, "t.gtf: offset 0x0000001f: the series begun here never ended: "
				   "the file ends at 0x00000267\n");
	dumped_free(&d);

	/* one stray byte after a whole record */
	f->len = 0;
	add(f, W, 31);
	add(f, (const uint8_t *)"\x01", 1);
	dump(&d, f, NULL);
	expect(&d, 1, 1, 0, 1);
	assert_string_equal(d.err, "t.gtf: offset 0x0000001f: truncated: 1 byte where a record's "
				   "length should be\n");
	dumped_free(&d);
	free(f);
}

static void test_dump_interleaved(void **state)
{
	struct file *f = calloc(1, sizeof(*f));
	struct dumped d;

	(void)state;
	assert_non_null(f);
	/* a whole record inside a series */
	add(f, S0, 292); /* 0x000 */
	add(f, W, 31);	 /* 0x124 */
	add(f, S1, 292); /* 0x143 */
	add(f, S2, 124); /* 0x267 */
	dump(&d, f, NULL);
	expect(&d, 4, 2, 1, 1);
	assert_string_equal(d.err, "t.gtf: offset 0x00000124: a whole record inside the series "
				   "begun at 0x00000000\n");
	assert_non_null(strstr(d.out, "0x00000124 record  "));
	assert_non_null(strstr(d.out, "0x00000000 series of 3  "));
	dumped_free(&d);

	/* the middle record of another series (another EID) inside it */
	f->len = 0;
	add(f, S0, 292);	 /* 0x000 */
	add(f, Tser + 292, 292); /* 0x124: its F1 */
	add(f, S1, 292);	 /* 0x248 */
	add(f, S2, 124);	 /* 0x36c */
	dump(&d, f, NULL);
	expect(&d, 4, 1, 1, 1);
	assert_string_equal(d.err, "t.gtf: offset 0x00000124: a record of another series (FID, "
				   "EID, time, pid or job differ) inside the series begun at "
				   "0x00000000\n");
	assert_non_null(strstr(d.out, "0x00000000 series of 3  FID 00  EID 5678  "));
	dumped_free(&d);
	free(f);
}

static void test_dump_f2_last(void **state)
{
	struct file *f = calloc(1, sizeof(*f));
	uint8_t s2[124];
	struct dumped d;

	(void)state;
	assert_non_null(f);
	memcpy(s2, S2, sizeof(s2));
	s2[4] = 0xf2;
	add(f, W, 31);
	add(f, S0, 292);
	add(f, S1, 292);
	add(f, s2, 124);
	dump(&d, f, NULL);
	expect(&d, 4, 2, 1, 0);
	assert_int_equal(d.errlen, 0);
	assert_non_null(strstr(d.out, "0x00000267 part  AID F2 last  SID 0  seq 3  total 600  "
				      "data 88\n"));
	assert_non_null(strstr(d.out, "0x0000001f series of 3  "));
	dumped_free(&d);
	free(f);
}

static void test_dump_without_first(void **state)
{
	struct file *f = calloc(1, sizeof(*f));
	struct dumped d;

	(void)state;
	assert_non_null(f);
	add(f, W, 31);	 /* 0x000 */
	add(f, S2, 124); /* 0x01f */
	dump(&d, f, NULL);
	expect(&d, 2, 1, 0, 1);
	assert_string_equal(d.err, "t.gtf: offset 0x0000001f: a last record of a series without "
				   "its first\n");
	dumped_free(&d);

	f->len = 0;
	add(f, S1, 292); /* 0x000 */
	add(f, S2, 124); /* 0x124 */
	dump(&d, f, NULL);
	expect(&d, 2, 0, 0, 2);
	assert_string_equal(d.err, "t.gtf: offset 0x00000000: a middle record of a series without "
				   "its first\n"
				   "t.gtf: offset 0x00000124: a last record of a series without "
				   "its first\n");
	dumped_free(&d);
	free(f);
}

static void test_dump_bad_length(void **state)
{
	static const uint8_t bad[5] = {0x00, 0x05, 0x00, 0x00, 0xff};
	struct file *f = calloc(1, sizeof(*f));
	struct dumped d;

	(void)state;
	assert_non_null(f);
	add(f, W, 31);	/* 0x000 */
	add(f, bad, 5); /* 0x01f */
	add(f, W, 31);	/* never reached */
	dump(&d, f, NULL);
	expect(&d, 1, 1, 0, 1);
	assert_string_equal(d.err, "t.gtf: offset 0x0000001f: length 5 is shorter than a "
				   "record's header (28 bytes): the records after it cannot be "
				   "found\n");
	dumped_free(&d);

	/* inside a series: that one never ends either */
	f->len = 0;
	add(f, S0, 292); /* 0x000 */
	add(f, bad, 5);	 /* 0x124 */
	dump(&d, f, NULL);
	expect(&d, 1, 0, 0, 2);
	assert_string_equal(d.err, "t.gtf: offset 0x00000124: length 5 is shorter than a "
				   "record's header (28 bytes): the records after it cannot be "
				   "found\n"
				   "t.gtf: offset 0x00000000: the series begun here never ended: "
				   "the file cannot be read further at 0x00000124\n");
	dumped_free(&d);

	/* an unknown AID is skipped; reserved bytes not zero are a problem */
	{
		uint8_t w[31];

		memcpy(w, W, 31);
		w[4] = 0x42;
		w[3] = 0x01;
		f->len = 0;
		add(f, w, 31); /* 0x000 */
		add(f, W, 31); /* 0x01f */
		dump(&d, f, NULL);
		expect(&d, 2, 1, 0, 2);
		assert_string_equal(d.err,
				    "t.gtf: offset 0x00000000: reserved bytes are 0x0001, not "
				    "zero\n"
				    "t.gtf: offset 0x00000000: AID 42 is none of FF, F0, F1, "
				    "F2, F3: record skipped\n");
		dumped_free(&d);
	}
	free(f);
}

/*
 * A series of total length 0, each record without data: nothing to join
 * (the fuzzer found the join copying 0 bytes to a buffer never allocated,
 * which UBSan refuses). Said once, shown as an empty event.
 */
static void test_dump_empty_series(void **state)
{
	struct file *f = calloc(1, sizeof(*f));
	uint8_t first[BC_GTF_SPLIT_HEAD], last[BC_GTF_SPLIT_HEAD];
	struct dumped d;

	(void)state;
	assert_non_null(f);
	memcpy(first, S0, sizeof(first));
	memcpy(last, S2, sizeof(last));
	first[0] = last[0] = 0;
	first[1] = last[1] = BC_GTF_SPLIT_HEAD; /* length: the header alone */
	memset(first + 20, 0, 4);		/* total length 0 */
	memset(last + 20, 0, 4);
	last[19] = 2;		      /* sequence 2 */
	add(f, first, sizeof(first)); /* 0x000 */
	add(f, last, sizeof(last));   /* 0x024 */
	dump(&d, f, NULL);
	expect(&d, 2, 1, 1, 1);
	assert_string_equal(d.err, "t.gtf: offset 0x00000000: a series whose total length (0) is "
				   "no more than its first record's 0 data bytes\n");
	assert_non_null(strstr(d.out, "0x00000000 series of 2  FID 00  EID 5678  "));
	assert_non_null(strstr(d.out, "  data 0\n"));
	dumped_free(&d);
	free(f);
}

#define T(fn) cmocka_unit_test(fn)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_dump_clean),	    T(test_dump_missing),     T(test_dump_total),
		T(test_dump_truncated),	    T(test_dump_interleaved), T(test_dump_f2_last),
		T(test_dump_without_first), T(test_dump_bad_length),  T(test_dump_empty_series),
	};

	return cmocka_run_group_tests_name("gtf_dump", tests, setup_records, NULL);
}
