// SPDX-License-Identifier: MIT
/*
 * record's status line (user/agent/status_line.c): numbers cut to three
 * digits and never rounded up, losses by their class's name, a line that
 * never passes its width and leaves fields out whole, the summary, and
 * redraws on a file (a line each) and a terminal (in place, cleared).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/names.h"
#include "bpfcollect/status_line.h"

#define MS 1000000ULL

static const char *si(uint64_t n, const char *unit)
{
	static char buf[64];

	bc_status_si(buf, sizeof(buf), n, unit);
	return buf;
}

static void si_numbers(void **state)
{
	(void)state;
	assert_string_equal(si(0, ""), "0");
	assert_string_equal(si(999, ""), "999");
	assert_string_equal(si(1000, ""), "1.00 k");
	assert_string_equal(si(1999, ""), "1.99 k"); /* cut, not rounded up to 2.00 */
	assert_string_equal(si(12345, ""), "12.3 k");
	assert_string_equal(si(999999, ""), "999 k");
	assert_string_equal(si(1000000, ""), "1.00 M");
	assert_string_equal(si(1239999, ""), "1.23 M");
	assert_string_equal(si(98100000000ULL, ""), "98.1 G");
	assert_string_equal(si(UINT64_MAX, ""), "18.4 E");
	assert_string_equal(si(512, "B"), "512 B");
	assert_string_equal(si(23456789, "B"), "23.4 MB");
}

static void lost_by_class(void **state)
{
	uint64_t lost[BC_LOSS_NR] = {0};
	char buf[512], want[512] = "";

	(void)state;
	assert_int_equal(bc_status_lost(buf, sizeof(buf), lost), 0);
	assert_string_equal(buf, "");
	lost[BC_LOSS_FUNC] = 120;
	lost[BC_LOSS_UNWRITTEN] = 3;
	bc_status_lost(buf, sizeof(buf), lost);
	assert_string_equal(buf, "func 120, unwritten 3");
	/* every class, in enum order, each by the one name table's name */
	for (unsigned int c = 0; c < BC_LOSS_NR; c++) {
		lost[c] = 1500;
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s 1.50 k",
			 c ? ", " : "", bc_loss_class_name(c));
	}
	bc_status_lost(buf, sizeof(buf), lost);
	assert_string_equal(buf, want);
}

static struct bc_status_sample sample(void)
{
	struct bc_status_sample s = {
		.elapsed_ns = 12399 * MS,
		.events = 1240000,
		.rate = 98100,
		.procs = 4,
		.bytes = 23400000,
	};

	return s;
}

static void full_line(void **state)
{
	struct bc_status_sample s = sample();
	char buf[BC_STATUS_LINE_MAX];

	(void)state;
	bc_status_format(buf, sizeof(buf), &s, 200);
	assert_string_equal(buf, "bpfcollect: 12.3 s  1.24 M events  98.1 k/s  procs 4  23.4 MB");
	s.lost[BC_LOSS_FUNC] = 120;
	s.lost[BC_LOSS_UNWRITTEN] = 3;
	bc_status_format(buf, sizeof(buf), &s, 200);
	assert_string_equal(buf, "bpfcollect: 12.3 s  1.24 M events  98.1 k/s  lost: func 120, "
				 "unwritten 3  procs 4  23.4 MB");
	s.bytes = BC_STATUS_NO_BYTES; /* no task I/O accounting: the field is left out */
	bc_status_format(buf, sizeof(buf), &s, 200);
	assert_string_equal(buf, "bpfcollect: 12.3 s  1.24 M events  98.1 k/s  lost: func 120, "
				 "unwritten 3  procs 4");
}

/* Every width: never wider, and what is shown is whole fields of the full line. */
static void narrow(void **state)
{
	struct bc_status_sample s = sample();
	char full[BC_STATUS_LINE_MAX], buf[BC_STATUS_LINE_MAX];
	size_t n;

	(void)state;
	for (unsigned int c = 0; c < BC_LOSS_NR; c++)
		s.lost[c] = 1000 + c;
	bc_status_format(full, sizeof(full), &s, sizeof(full));
	for (size_t w = 0; w <= strlen(full) + 1; w++) {
		n = bc_status_format(buf, sizeof(buf), &s, w);
		assert_int_equal(n, strlen(buf));
		assert_true(n <= w);
		if (w >= strlen("bpfcollect: 12.3 s") && strstr(buf, "lost: ") == NULL) {
			/* a prefix of the line ending where a field does */
			assert_memory_equal(buf, full, n);
			assert_true(full[n] == 0 || full[n] == ' ');
		}
	}
	/* 80 columns: the nine classes do not fit, their total does */
	bc_status_format(buf, sizeof(buf), &s, 80);
	assert_string_equal(buf,
			    "bpfcollect: 12.3 s  1.24 M events  98.1 k/s  lost: 9.03 k  procs 4  "
			    "23.4 MB");
	/* narrower than the first field: what fits of it */
	bc_status_format(buf, sizeof(buf), &s, 10);
	assert_string_equal(buf, "bpfcollect");
	/* a buffer smaller than the width bounds it */
	assert_int_equal(bc_status_format(buf, 8, &s, 80), 7);
}

static void summary(void **state)
{
	struct bc_status_sample s = sample();
	char buf[512];

	(void)state;
	bc_status_summary(buf, sizeof(buf), "test.1.er", &s, 12);
	assert_string_equal(buf, "test.1.er: 1240000 events, 0 lost, 4 processes, 23.4 MB, 12.3 s, "
				 "12 functions probed");
	s.lost[BC_LOSS_FUNC] = 120000;
	s.lost[BC_LOSS_UNWRITTEN] = 3;
	s.procs = 1;
	s.bytes = BC_STATUS_NO_BYTES;
	bc_status_summary(buf, sizeof(buf), "test.1.er", &s, 1);
	assert_string_equal(buf,
			    "test.1.er: 1240000 events, 120003 lost (func 120000, unwritten 3), "
			    "1 process, 12.3 s, 1 function probed");
}

static void wchar(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(bc_status_parse_wchar("rchar: 6976\nwchar: 1234\nsyscr: 10\n", &v), 0);
	assert_int_equal(v, 1234);
	assert_int_equal(bc_status_parse_wchar("wchar: 5\n", &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(bc_status_parse_wchar("xwchar: 7\n", &v), -EINVAL);
	assert_int_equal(bc_status_parse_wchar("rchar: 1\nwchar: \n", &v), -EINVAL);
	assert_int_equal(bc_status_parse_wchar("", &v), -EINVAL);
}

/* What a pipe holds now (the test writes little: it all fits). */
static size_t drain(int fd, char *buf, size_t len)
{
	ssize_t n = read(fd, buf, len - 1);

	assert_true(n >= 0);
	buf[n] = 0;
	return (size_t)n;
}

/*
 * Bytes the process wrote meanwhile besides the test's: valgrind's own
 * scheduler writes a few to a pipe of its.
 */
#define SLACK 32

static void redraw_on_a_file(void **state)
{
	static const char want1[] = "bpfcollect: 0.5 s  1.00 k events  2.00 k/s  procs 2  ";
	static const char want2[] = "bpfcollect: 1.0 s  4.00 k events  4.00 k/s  procs 2  ";
	struct bc_status_line s;
	struct bc_status_sample smp = {.events = 1000, .procs = 2};
	uint64_t start = 1000 * MS, before, after;
	char buf[1024];
	size_t n;
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	bc_status_line_init(&s, p[1], start);
	assert_false(bc_status_line_due(&s, start + 300 * MS)); /* not enabled: never */
	bc_status_line_enable(&s, false);
	assert_false(bc_status_line_due(&s, start + 249 * MS));
	assert_true(bc_status_line_due(&s, start + 250 * MS));
	before = bc_status_line_bytes(&s);
	assert_true(before != BC_STATUS_NO_BYTES && before < SLACK);
	assert_int_equal(bc_status_line_draw(&s, &smp, start + 500 * MS), 0);
	n = drain(p[0], buf, sizeof(buf));
	assert_memory_equal(buf, want1, sizeof(want1) - 1);
	assert_string_equal(buf + n - 3, " B\n");
	assert_null(strchr(buf, '\r'));
	assert_null(strchr(buf, '\033'));
	assert_false(bc_status_line_due(&s, start + 749 * MS));
	assert_true(bc_status_line_due(&s, start + 750 * MS));
	/* the line's own bytes are not output; the rest of the process's writes are */
	after = bc_status_line_bytes(&s);
	assert_true(after >= before && after - before < SLACK && n > SLACK);
	memset(buf, 'x', 100);
	assert_int_equal(write(p[1], buf, 100), 100);
	before = after;
	after = bc_status_line_bytes(&s);
	assert_true(after >= before + 100 && after < before + 100 + SLACK);
	drain(p[0], buf, sizeof(buf));
	smp.events = 4000;
	bc_status_line_draw(&s, &smp, start + 1000 * MS);
	drain(p[0], buf, sizeof(buf));
	assert_memory_equal(buf, want2, sizeof(want2) - 1);
	bc_status_line_clear(&s); /* lines of their own: nothing to clear */
	assert_int_equal(read(p[0], buf, sizeof(buf)), -1);
	assert_int_equal(s.redraws, 2);
	close(p[0]);
	close(p[1]);
}

static void redraw_in_place(void **state)
{
	struct bc_status_line s;
	struct bc_status_sample smp = {.events = 10, .procs = 1};
	char buf[1024];
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	bc_status_line_init(&s, p[1], 0);
	bc_status_line_enable(&s, true);
	bc_status_line_clear(&s); /* nothing drawn yet: nothing written */
	assert_int_equal(read(p[0], buf, sizeof(buf)), -1);
	bc_status_line_draw(&s, &smp, 300 * MS);
	drain(p[0], buf, sizeof(buf));
	assert_int_equal(buf[0], '\r');
	assert_non_null(strstr(buf, "bpfcollect: 0.3 s  10 events  33/s  procs 1"));
	assert_string_equal(buf + strlen(buf) - 3, "\033[K");
	assert_null(strchr(buf, '\n'));
	bc_status_line_clear(&s);
	drain(p[0], buf, sizeof(buf));
	assert_string_equal(buf, "\r\033[K");
	bc_status_line_clear(&s); /* once */
	assert_int_equal(read(p[0], buf, sizeof(buf)), -1);
	close(p[0]);
	close(p[1]);
}

/* The rate is taken over the last BC_STATUS_WINDOW redraws: about a second. */
static void rate_window(void **state)
{
	struct bc_status_line s;
	struct bc_status_sample smp = {0};
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	bc_status_line_init(&s, fd, 0);
	bc_status_line_enable(&s, false);
	/* 1000 events a second for 2 s, then none */
	for (uint64_t t = 250; t <= 2000; t += 250) {
		smp.events = t;
		bc_status_line_draw(&s, &smp, t * MS);
		assert_int_equal(smp.rate, 1000);
	}
	for (uint64_t t = 2250; t <= 3000; t += 250) {
		bc_status_line_draw(&s, &smp, t * MS);
		assert_true(smp.rate < 1000);
	}
	assert_int_equal(smp.rate, 0);
	assert_int_equal(smp.elapsed_ns, 3000 * MS);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(si_numbers),	    cmocka_unit_test(lost_by_class),
		cmocka_unit_test(full_line),	    cmocka_unit_test(narrow),
		cmocka_unit_test(summary),	    cmocka_unit_test(wchar),
		cmocka_unit_test(redraw_on_a_file), cmocka_unit_test(redraw_in_place),
		cmocka_unit_test(rate_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
