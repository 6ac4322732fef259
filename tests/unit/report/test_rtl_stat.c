// SPDX-License-Identifier: MIT
/*
 * rtl-stat's reader (bpfcollect/rtl_stat.h): the seed's own example, our
 * padded lines, foreign ones (unpadded times, no first line, { } lines
 * without a colon), nesting and exclusive time, logical scopes, threads,
 * and broken input reported with its line, never a crash; and in linear
 * time, whatever the number of scopes, threads or open scopes.
 */
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

#include "bpfcollect/rtl_stat.h"
#include "cli_fixture.h"

static struct bc_rtl_stat st;

static void feed(const char *text)
{
	assert_int_equal(bc_rtl_stat_feed(&st, "t.log", text, strlen(text)), 0);
}

static const struct bc_rtl_scope_stat *find(const char *name, bool explicit_, uint32_t tid)
{
	for (size_t i = 0; i < st.n; i++)
		if (!strcmp(st.v[i].name, name) && st.v[i].explicit_ == explicit_ &&
		    st.v[i].tid == tid)
			return &st.v[i];
	fail_msg("no scope %s", name);
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	bc_rtl_stat_init(&st, false);
	return 0;
}

static int setup_by_thread(void **state)
{
	(void)state;
	bc_rtl_stat_init(&st, true);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	bc_rtl_stat_free(&st);
	return 0;
}

/* The seed's example, as written there: { } lines without a colon. */
static void test_seed_example(void **state)
{
	const struct bc_rtl_scope_stat *f, *x;

	(void)state;
	feed("001234 11 { desktop (cd100003) ::Desktop::OpenStartupscreen\n"
	     "002345 11 | desktop (cd100003) ::Desktop::OpenStartupscreen : { lengthy "
	     "calculation\n"
	     "003456 11 | desktop (cd100003) ::Desktop::OpenStartupscreen : } lengthy "
	     "calculation\n"
	     "004567 11 } desktop (cd100003) ::Desktop::OpenStartupscreen\n"
	     "099999 11 | desktop (cd100003) ::Desktop::CloseStartupscreen : Startup finished\n");
	assert_int_equal(st.problems, 0);
	assert_int_equal(st.n, 2);
	f = find("desktop (cd100003) ::Desktop::OpenStartupscreen", false, 0);
	assert_int_equal(f->count, 1);
	assert_int_equal(f->total_ms, 3333);
	x = find("desktop (cd100003) ::Desktop::OpenStartupscreen : lengthy calculation", true, 0);
	assert_int_equal(x->count, 1);
	assert_int_equal(x->total_ms, 1111);
	assert_int_equal(st.lines, 5);
}

/* Our own lines: padded, with the colon always, a first stamp line. */
static void test_nesting_and_exclusive(void **state)
{
	const struct bc_rtl_scope_stat *outer, *inner;

	(void)state;
	feed("000000 7 | p (a) :: : start 2026-11-24T23:21:28.445765942Z pid 7 exe /bin/p\n"
	     "000010 7 { p (a) ::outer : \n"
	     "000012 7 { p (a) ::inner : \n"
	     "000015 7 } p (a) ::inner : ret=0x1\n"
	     "000020 7 { p (a) ::inner : \n"
	     "000030 7 } p (a) ::inner : ret=0x2\n"
	     "000040 7 } p (a) ::outer : ret=0x0\n");
	assert_int_equal(st.problems, 0);
	outer = find("p (a) ::outer", false, 0);
	inner = find("p (a) ::inner", false, 0);
	assert_int_equal(outer->count, 1);
	assert_int_equal(outer->total_ms, 30);
	assert_int_equal(outer->exclusive_ms, 17); /* 30 - 3 - 10 */
	assert_int_equal(inner->count, 2);
	assert_int_equal(inner->total_ms, 13);
	assert_int_equal(inner->min_ms, 3);
	assert_int_equal(inner->max_ms, 10);
	assert_int_equal(inner->exclusive_ms, 13);
	/* sorted: the longest total first */
	bc_rtl_stat_sort(&st);
	assert_string_equal(st.v[0].name, "p (a) ::outer");
}

/* Threads interleave; a scope is timed on its own thread; unpadded times are fine. */
static void test_threads(void **state)
{
	(void)state;
	feed("5 1 { m (a) ::f : \n"
	     "6 2 { m (a) ::f : \n"
	     "9 1 } m (a) ::f : \n"
	     "26 2 } m (a) ::f : \n");
	assert_int_equal(st.problems, 0);
	assert_int_equal(find("m (a) ::f", false, 1)->total_ms, 4);
	assert_int_equal(find("m (a) ::f", false, 2)->total_ms, 20);
}

static void test_merged_threads(void **state)
{
	const struct bc_rtl_scope_stat *f;

	(void)state;
	feed("5 1 { m (a) ::f : \n6 2 { m (a) ::f : \n9 1 } m (a) ::f : \n26 2 } m (a) ::f : \n");
	f = find("m (a) ::f", false, 0);
	assert_int_equal(f->count, 2);
	assert_int_equal(f->total_ms, 24);
}

/* Broken input: each problem counted with its line; what is whole is still timed. */
static void test_broken(void **state)
{
	(void)state;
	feed("000001 1 { m (a) ::f : \n"
	     "garbage line\n"
	     "000002 x { m (a) ::g : \n"
	     "000003 1 ? m (a) ::g : \n"
	     "99999999999999999999999 1 { m (a) ::g : \n"
	     "000004 1 } m (a) ::nothing : \n"
	     "000005 1 { m (a) ::g : \n"
	     "000009 1 } m (a) ::f : \n" /* closes f while g is open */
	     "000010 1 { m (a) ::left_open : \n"
	     "\n"
	     "000011 1 {\n"
	     "000012 1 } :\n");
	assert_int_equal(st.bad_lines, 4);
	assert_int_equal(find("m (a) ::f", false, 0)->total_ms, 8);
	/* 4 bad lines, } nothing, g left inside f, left_open never closed; an empty name pairs */
	assert_int_equal(st.problems, 7);
	assert_non_null(strstr(st.report, "t.log:2: not a scope log line"));
	assert_non_null(strstr(st.report, "t.log:6: } m (a) ::nothing closes nothing open"));
	assert_non_null(strstr(st.report, "t.log:8: } m (a) ::f while m (a) ::g (line 7) is open"));
	assert_non_null(strstr(st.report, "t.log:9: m (a) ::left_open on thread 1 never closed"));
}

/* No newline at the end, CR LF lines, NUL bytes, time going back: no crash, sane numbers. */
static void test_odd_bytes(void **state)
{
	static const char text[] = "000001 1 { m (a) ::f : \r\n000000 1 } m (a) ::f : \r\n"
				   "0\0001 { x\n000002 1 { m (a) ::g : ";

	(void)state;
	assert_int_equal(bc_rtl_stat_feed(&st, "odd", text, sizeof(text) - 1), 0);
	assert_int_equal(find("m (a) ::f", false, 0)->total_ms, 0);
	assert_int_equal(st.problems, 2); /* the NUL line; g never closed */
}

static void test_print(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	feed("1 1 { m (a) ::f, with \"quotes\" : \n3 1 } m (a) ::f, with \"quotes\" : \n");
	out = open_memstream(&text, &len);
	assert_non_null(out);
	bc_rtl_stat_print(&st, out, true);
	assert_int_equal(fclose(out), 0);
	assert_string_equal(text, "scope,kind,count,total_ms,avg_ms,min_ms,max_ms,exclusive_ms\n"
				  "\"m (a) ::f, with \"\"quotes\"\"\",function,1,2,2.000,2,2,2\n");
	free(text);
}

/* ------------------------------------------------------------ linear time */

#define BIG 200000

/* A growing text of lines. */
struct text {
	char *s;
	size_t len, cap;
};

static void line(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->cap - t->len < 256) {
		t->cap = t->cap ? 2 * t->cap : 1 << 20;
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			abort();
	}
	va_start(ap, fmt);
	n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/*
 * The shapes that made each line scan what came before (quadratic): BIG
 * distinct scopes one after the other; BIG scopes nested on one thread,
 * then as many } that close nothing; one scope open on each of BIG
 * threads, closed in the order they opened. Run in a child (argv[1] the
 * shape): 0 when the numbers are right.
 */
static int feed_shape(int argc, char **argv)
{
	struct bc_rtl_stat s;
	struct text t = {0};
	bool ok = argc == 2;
	int rc;

	for (int i = 0; ok && i < BIG; i++) {
		if (!strcmp(argv[1], "distinct")) {
			line(&t, "%d 1 { m (a) ::f%d : \n", i, i);
			line(&t, "%d 1 } m (a) ::f%d : \n", i + 1, i);
		} else if (!strcmp(argv[1], "deep")) {
			line(&t, "%d 1 { m (a) ::f%d : \n", i, i);
		} else {
			line(&t, "%d %d { m (a) ::f : \n", i, i + 2);
		}
	}
	for (int i = 0; ok && i < BIG && strcmp(argv[1], "distinct"); i++)
		if (!strcmp(argv[1], "deep"))
			line(&t, "%d 1 } m (a) ::nothing%d : \n", BIG, i);
		else
			line(&t, "%d %d } m (a) ::f : \n", BIG + i, i + 2);
	bc_rtl_stat_init(&s, false);
	rc = ok ? bc_rtl_stat_feed(&s, "big.log", t.s, t.len) : -EINVAL;
	if (!rc && !strcmp(argv[1], "distinct"))
		ok = s.n == BIG && s.problems == 0 && s.v[BIG - 1].count == 1;
	else if (!rc && !strcmp(argv[1], "deep"))
		ok = s.n == 0 && s.problems == 2 * BIG; /* every } wrong, every { left open */
	else if (!rc)
		ok = s.n == 1 && s.v[0].count == BIG && s.v[0].total_ms == (uint64_t)BIG * BIG &&
		     s.problems == 0;
	bc_rtl_stat_free(&s);
	free(t.s);
	return !rc && ok ? 0 : 1;
}

/* Each shape read in a child given 60 s (each took minutes when lookups were scans). */
static void test_linear(void **state)
{
	static char *const shapes[] = {"distinct", "deep", "threads"};
	struct ran r;

	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		run_cli(&r, 60, feed_shape, "feed", shapes[i], NULL);
		if (r.status)
			fail_msg("%s: status %d", shapes[i], r.status);
		ran_free(&r);
	}
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_seed_example),
		T(test_nesting_and_exclusive),
		cmocka_unit_test_setup_teardown(test_threads, setup_by_thread, teardown),
		T(test_merged_threads),
		T(test_broken),
		T(test_odd_bytes),
		T(test_print),
		T(test_linear),
	};

	return cmocka_run_group_tests_name("rtl_stat", tests, NULL, NULL);
}
