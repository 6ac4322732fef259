// SPDX-License-Identifier: MIT
/*
 * The GTF sink driven with events: a captured string split into a series,
 * decoded, read back; records sorted by time within the reorder window.
 *
 * Every expected value is written out by hand, never produced by the code
 * under test.
 */
#include "gtf_fixture.h"

/* ---------------------------------------------------------------- the sink */

/*
 * The recording's clock: ktime 1 s is 2040-02-29T12:34:56.789012Z, so its
 * TOD is TOD_2040.
 */
#define KT_1S 1000000000ull
#define WALL  (UNIX_2040_NS - 1000000000ll)

struct sunk {
	char *buf;
	size_t len;
	FILE *f;
	struct bc_sink *sink;
};

static void sink_open(struct sunk *s, bool ebcdic)
{
	struct bc_gtf_opts o = {.ebcdic = ebcdic};
	struct bc_session sess = {
		.root_pid = 4242, .start_ktime = KT_1S / 2, .wall_offset_ns = WALL};

	memset(s, 0, sizeof(*s));
	s->f = open_memstream(&s->buf, &s->len);
	assert_non_null(s->f);
	s->sink = bc_gtf_sink_new(s->f, &o);
	assert_non_null(s->sink);
	assert_int_equal(bc_sink_begin(s->sink, &sess), 0);
}

static void sink_close(struct sunk *s)
{
	struct bc_session_end end = {.end_ktime = 5 * KT_1S};

	assert_int_equal(bc_sink_end(s->sink, &end), 0);
	bc_sink_destroy(s->sink);
	assert_int_equal(fclose(s->f), 0);
}

#define CAP_LEN 300
/* func_entry (48 bytes) + an item header (8) + 300 bytes padded to 304 */
#define REC_LEN (48 + 8 + 304)

static void test_sink_series(void **state)
{
	static char fname[] = "parse_config";
	/* the common fields and the kind's, big-endian, then the capture's header */
	static const uint8_t want_head[52] = {
		0x00,	    0x00, 0x10,	      0x93,			    /* tid 4243 */
		0x00,	    0x00, 0x00,	      0x03,			    /* depth 3 */
		0x00,	    0x00, 0x00,	      0x00, 0x00, 0x00, 0x00, 0x4d, /* serial 77 */
		12,							    /* name length */
		'p',	    'a',  'r',	      's',  'e',  '_',	'c',  'o',
		'n',	    'f',  'i',	      'g',  0x00, 0x00, 0x00, 0x05, /* func_id */
		0x00,	    0x00, 0x00,	      0x02,			    /* cpu */
		0x00,	    0x00, 0x7f,	      0xfd, 0x00, 0x00, 0x10, 0x00, /* sp */
		1,							    /* captures */
		BC_SRC_ARG, 0,	  BC_CAP_STR, 0,    0x01, 0x2c, /* arg1, string, 300 bytes */
	};
	struct bc_func func = {.id = 5, .name = fname};
	union {
		uint64_t align;
		uint8_t b[REC_LEN];
	} rec;
	struct bc_rec_func_entry fe = {.func_id = 5, .cpu = 2, .sp = 0x7ffd00001000ull};
	struct bc_cap_item item = {
		.source = BC_SRC_ARG, .index = 0, .type = BC_CAP_STR, .len = CAP_LEN};
	struct bc_event ev = {.rec = (const struct bc_rec_head *)rec.b, .func = &func};
	uint8_t cap[CAP_LEN], joined[352];
	struct bc_gtf_rec r0, r1, r2;
	char err[256], *text, *want;
	struct sunk s;
	int n;

	(void)state;
	assert_int_equal(sizeof(struct bc_rec_func_entry), 48);
	assert_int_equal(sizeof(struct bc_cap_item), 8);
	for (size_t i = 0; i < CAP_LEN; i++)
		cap[i] = (uint8_t)('A' + i % 26);
	fe.h = (struct bc_rec_head){.size = REC_LEN,
				    .kind = BC_REC_FUNC_ENTRY,
				    .depth = 3,
				    .pid = 4242,
				    .tid = 4243,
				    .seq = 77,
				    .ktime = KT_1S};
	memset(&rec, 0xee, sizeof(rec)); /* the padding: never read */
	memcpy(rec.b, &fe, sizeof(fe));
	memcpy(rec.b + 48, &item, sizeof(item));
	memcpy(rec.b + 56, cap, CAP_LEN);

	sink_open(&s, false);
	assert_int_equal(bc_sink_event(s.sink, &ev), 0);
	sink_close(&s);

	/* data: 17 + 12 + 16 + 1 + 6 + 300 = 352 bytes, in 256 + 96: 292 + 132 bytes */
	assert_int_equal(s.len, 424);
	assert_int_equal(bc_gtf_parse((uint8_t *)s.buf, s.len, 0, &r0, err, sizeof(err)), 292);
	assert_int_equal(bc_gtf_parse((uint8_t *)s.buf, s.len, 292, &r1, err, sizeof(err)), 132);
	assert_int_equal(bc_gtf_parse((uint8_t *)s.buf, s.len, 424, &r2, err, sizeof(err)), 0);
	assert_int_equal(r0.aid, 0xf0);
	assert_int_equal(r1.aid, 0xf3);
	for (int i = 0; i < 2; i++) {
		const struct bc_gtf_rec *r = i ? &r1 : &r0;

		assert_int_equal(r->res, 0);
		assert_int_equal(r->h.fid, 0x01);
		assert_int_equal(r->h.eid, 0x0101);
		assert_int_equal(r->h.tod, TOD_2040);
		assert_int_equal(r->h.ascb, 4242);
		assert_memory_equal(r->h.jobname, "        ", 8); /* no state: no name */
		assert_true(r->split);
		assert_int_equal(r->sid, 0);
		assert_int_equal(r->seq, i + 1);
		assert_int_equal(r->total, 352);
	}
	assert_int_equal(r0.data_len, 256);
	assert_int_equal(r1.data_len, 96);
	memcpy(joined, r0.data, 256);
	memcpy(joined + 256, r1.data, 96);
	assert_memory_equal(joined, want_head, sizeof(want_head));
	assert_memory_equal(joined + 52, cap, CAP_LEN);

	/* decoded */
	text = malloc(4096);
	want = malloc(4096);
	assert_non_null(text);
	assert_non_null(want);
	snprintf(want, 4096,
		 "func_entry tid=4243 depth=3 serial=77 name=\"parse_config\" func_id=5 cpu=2 "
		 "sp=0x7ffd00001000 arg1=\"%.*s\"",
		 CAP_LEN, (const char *)cap);
	n = bc_gtf_decode(0x01, 0x0101, joined, 352, text, 4096);
	assert_string_equal(text, want);
	assert_int_equal(n, strlen(want));
	assert_non_null(strstr(text, "func_entry"));
	assert_non_null(strstr(text, "name=\"parse_config\""));
	assert_non_null(strstr(text, "arg1="));

	/* not ours, cut short, a byte too many */
	assert_int_equal(bc_gtf_decode(0x02, 0x0101, joined, 352, text, 4096), -EINVAL);
	assert_string_equal(text, "FID 02 with EID 0101 is not one of bpfcollect's");
	assert_int_equal(bc_gtf_decode(0x01, 0x0101, joined, 351, text, 4096), -EINVAL);
	assert_non_null(strstr(text, "(data ends inside captures, at byte 52 of 351)"));
	assert_int_equal(bc_gtf_decode(0x01, 0x0101, joined, 20, text, 4096), -EINVAL);
	assert_string_equal(text, " (data ends inside the common fields, at byte 17 of 20)");
	{
		uint8_t more[353];

		memcpy(more, joined, 352);
		more[352] = 0;
		assert_int_equal(bc_gtf_decode(0x01, 0x0101, more, 353, text, 4096), -EINVAL);
		assert_non_null(strstr(text, "\" (1 bytes more than the layout)"));
	}
	/* a small buffer: cut, NUL-terminated, the length it needed */
	assert_int_equal(bc_gtf_decode(0x01, 0x0101, joined, 352, text, 11), strlen(want));
	assert_string_equal(text, "func_entry");

	/* gtf-dump reads it back */
	{
		struct file *f = calloc(1, sizeof(*f));
		struct dumped d;

		assert_non_null(f);
		add(f, (const uint8_t *)s.buf, s.len);
		dump(&d, f, NULL);
		expect(&d, 2, 1, 1, 0);
		assert_non_null(strstr(d.out,
				       "0x00000000 series of 2  FID 01 function  EID 0101 "
				       "func_entry  2040-02-29 12:34:56.789012 UTC  pid 4242  "
				       "job '        '  data 352\n"));
		assert_non_null(strstr(d.out, want));
		dumped_free(&d);
		free(f);
	}
	free(text);
	free(want);
	free(s.buf);
}

/* A func_entry without captures of function fid (no name: "func_FID"). */
static void send_entry(struct sunk *s, uint32_t tid, uint64_t seq, uint64_t ktime, uint32_t fid)
{
	struct bc_rec_func_entry fe = {.func_id = fid};
	struct bc_event ev = {.rec = &fe.h};

	fe.h = (struct bc_rec_head){.size = sizeof(fe),
				    .kind = BC_REC_FUNC_ENTRY,
				    .pid = 10,
				    .tid = tid,
				    .seq = seq,
				    .ktime = ktime};
	assert_int_equal(bc_sink_event(s->sink, &ev), 0);
}

/*
 * A whole record of send_entry's: 28 + 17 + 6 ("func_N") + 16 + 1 = 68
 * bytes; its func_id is at 28 + 17 + 6 = 51. Checks the one at off.
 */
static void check_entry(const struct sunk *s, size_t off, uint64_t tod, uint32_t fid, bool ebcdic)
{
	static const uint8_t blank_e[8] = {0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40};
	struct bc_gtf_rec r;
	char err[256], name[16];

	assert_int_equal(bc_gtf_parse((const uint8_t *)s->buf, s->len, off, &r, err, sizeof(err)),
			 68);
	assert_int_equal(r.aid, 0xff);
	assert_int_equal(r.h.tod, tod);
	assert_int_equal(r.h.ascb, 10);
	assert_memory_equal(r.h.jobname, ebcdic ? blank_e : (const uint8_t *)"        ", 8);
	assert_int_equal(r.data_len, 40);
	snprintf(name, sizeof(name), "func_%u", (unsigned int)fid);
	assert_int_equal(r.data[16], 6);
	assert_memory_equal(r.data + 17, name, 6);
	assert_int_equal(be32(r.data + 23), fid);
	assert_int_equal(r.data[39], 0); /* no captures */
}

static void test_sink_order(void **state)
{
	/* TODs of 1 s, 1.04 s and 1.2 s: TOD_2040 plus 40000 and 200000 us */
	const uint64_t tod_a = (TOD_2040_US + 40000) << 12, tod_b = TOD_2040,
		       tod_c = (TOD_2040_US + 200000) << 12;
	char text[256];
	struct bc_gtf_rec r;
	char err[256];
	struct sunk s;

	(void)state;
	sink_open(&s, true);
	send_entry(&s, 11, 2, KT_1S + 40000000, 1);  /* A, 1.04 s */
	send_entry(&s, 12, 1, KT_1S, 0);	     /* B, 1 s: 40 ms earlier */
	send_entry(&s, 11, 3, KT_1S + 200000000, 2); /* C, 1.2 s */
	/* what nothing can overtake any longer: B and A (1.2 s - 50 ms is past both) */
	assert_int_equal(bc_sink_flush(s.sink), 0);
	assert_int_equal(s.len, 136);
	check_entry(&s, 0, tod_b, 0, true);
	check_entry(&s, 68, tod_a, 1, true);
	sink_close(&s);
	assert_int_equal(s.len, 204);
	check_entry(&s, 0, tod_b, 0, true);
	check_entry(&s, 68, tod_a, 1, true);
	check_entry(&s, 136, tod_c, 2, true);
	assert_int_equal(bc_gtf_parse((const uint8_t *)s.buf, s.len, 0, &r, err, sizeof(err)), 68);
	assert_true(bc_gtf_decode(r.h.fid, r.h.eid, r.data, r.data_len, text, sizeof(text)) > 0);
	assert_string_equal(text, "func_entry tid=12 depth=0 serial=1 name=\"func_0\" func_id=0 "
				  "cpu=0 sp=0x0");
	free(s.buf);

	/* both kept until the end, still sorted */
	sink_open(&s, false);
	send_entry(&s, 11, 2, KT_1S + 49000000, 1); /* 1.049 s */
	send_entry(&s, 12, 1, KT_1S, 0);	    /* 1 s: 49 ms earlier */
	assert_int_equal(bc_sink_flush(s.sink), 0);
	assert_int_equal(s.len, 0);
	sink_close(&s);
	assert_int_equal(s.len, 136);
	check_entry(&s, 0, TOD_2040, 0, false);
	check_entry(&s, 68, (TOD_2040_US + 49000) << 12, 1, false);
	free(s.buf);
}

#define T(fn) cmocka_unit_test(fn)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_sink_series),
		T(test_sink_order),
	};

	return cmocka_run_group_tests_name("gtf_sink", tests, NULL, NULL);
}
