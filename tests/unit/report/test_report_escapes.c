// SPDX-License-Identifier: MIT
/*
 * What `report` prints never drives the terminal: a traced program named
 * its process, its threads and its arguments with escape sequences
 * (ESC]0;TITLE BEL retitles a terminal, ESC[2J clears it, CR overwrites a
 * line, UTF-8's C1 CSI is ESC[ to some terminals); every view run as the
 * user runs it (bc_cmd_report in a child) shows them escaped as \ooo, and
 * the names of the header, procs and threads views on one line.
 *
 * Every expected value is written out by hand.
 */
#include "er_fixture.h"
#include "cli_fixture.h"
#include "bpfcollect/termsafe.h"

static char *argv_evil[] = {"/usr/bin/demo",
			    "\033]0;TITLE\007",
			    "\033[2J",
			    "a\nb",
			    "c\rd",
			    "e\xc2\x9b"
			    "31m",
			    "caf\xc3\xa9",
			    NULL};

/* The standard experiment, its names made hostile. */
static void write_evil(struct fixture *fx)
{
	char err[256];
	struct bc_session sess = session(fx);
	struct bc_session_end end = {.end_ktime = T0 + 2000, .exit_status = 0, .events = 12};
	struct bc_sink *s;

	sess.argv = argv_evil;
	assert_int_equal(
		bc_exp_create(fx->dir, NULL, fx->exp, sizeof(fx->exp), NULL, err, sizeof(err)), 0);
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	map(s, T0 - 5000, 0x555555554000, PROT_READ | PROT_EXEC, "/usr/bin/\033[2Jdemo");
	make_records(fx);
	for (size_t i = 0; i < fx->nrecs; i++) {
		union any_rec *r = &fx->recs[i];

		if (r->h.kind == BC_REC_PROC_FORK)
			memcpy(r->fk.comm, "\033[2Jfork", 9);
		else if (r->h.kind == BC_REC_THREAD_START)
			memcpy(r->fk.comm, "\033]0;T\007w", 8);
		else if (r->h.kind == BC_REC_PROC_EXEC)
			memcpy(r->ex.comm, "x\ny\rz", 6);
		else if (r->h.kind == BC_REC_THREAD_EXIT || r->h.kind == BC_REC_PROC_EXIT)
			memcpy(r->et.comm, "r\ne\033[31md", 10);
	}
	for (int pass = BC_ER_NFILES - 1; pass >= 0; pass--)
		for (size_t i = 0; i < fx->nrecs; i++)
			if (bc_er_file_for_kind(fx->recs[i].h.kind) == pass)
				feed(fx, s, &fx->recs[i]);
	assert_int_equal(bc_sink_end(s, &end), 0);
	bc_sink_destroy(s);
}

/* No byte that drives a terminal: C0 but newline, DEL, C1 in UTF-8. */
static void assert_inert(const char *view, const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if ((c < 0x20 && c != '\n') || c == 0x7f ||
		    (c == 0xc2 && i + 1 < len && (unsigned char)text[i + 1] >= 0x80 &&
		     (unsigned char)text[i + 1] <= 0x9f))
			fail_msg("%s: byte 0x%02x at %zu:\n%s", view, c, i, text);
	}
}

static void test_every_view(void **state)
{
	static const char *const views[] = {"header",	"functions", "syscalls", "events",
					    "calltree", "threads",   "procs",	 "objects",
					    "overview", "io",	     "offcpu"};
	struct fixture *fx = *state;
	struct ran r;

	write_evil(fx);
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		run_cli(&r, 20, bc_cmd_report, "report", fx->exp, views[i], NULL);
		assert_inert(views[i], r.out, r.outlen);
		assert_inert(views[i], r.err, r.errlen);
		ran_free(&r);
	}
	run_cli(&r, 20, bc_cmd_report, "report", fx->exp, "calls", "*", NULL);
	assert_inert("calls", r.out, r.outlen);
	ran_free(&r);
}

static void test_header(void **state)
{
	struct fixture *fx = *state;
	struct ran r;

	write_evil(fx);
	run_cli(&r, 20, bc_cmd_report, "report", fx->exp, "header", NULL);
	expect_status(&r, 0);
	/* argv joined by spaces, each control byte as \ooo, the newline too; UTF-8 text kept */
	assert_non_null(strstr(r.out, "Command:     /usr/bin/demo \\033]0;TITLE\\007 \\033[2J "
				      "a\\012b c\\015d e\\302\\23331m caf\xc3\xa9\n"));
	ran_free(&r);
}

static void test_threads_and_procs(void **state)
{
	struct fixture *fx = *state;
	struct ran r;

	write_evil(fx);
	run_cli(&r, 20, bc_cmd_report, "report", fx->exp, "threads", NULL);
	expect_status(&r, 0);
	assert_non_null(strstr(r.out, "  \\033]0;T\\007w\n"));
	assert_non_null(strstr(r.out, "  r\\012e\\033[31md\n"));
	ran_free(&r);
	run_cli(&r, 20, bc_cmd_report, "report", fx->exp, "procs", NULL);
	expect_status(&r, 0);
	/* the width of the column is the escaped name's */
	assert_non_null(strstr(r.out, "\n   4242  r\\012e\\033[31md        2  "));
	assert_non_null(strstr(r.out, "\n   4250  \\033[2Jfork            1  "));
	ran_free(&r);
}

/* The filter itself: a C1 sequence split between two writes is still seen whole. */
static void test_stream_split(void **state)
{
	char *text = NULL, buf[64];
	size_t len = 0;
	FILE *mem, *f;

	(void)state;
	mem = open_memstream(&text, &len);
	assert_non_null(mem);
	f = bc_term_stream(mem);
	assert_non_null(f);
	fputs("a\xc2", f);
	fputs("\x9b"
	      "1m\tb\n\xc2",
	      f);
	fputs("\xa9!\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(fclose(mem), 0);
	assert_string_equal(text, "a\\302\\2331m\\011b\n\xc2\xa9!\n");
	free(text);
	assert_string_equal(bc_term_escape(buf, sizeof(buf), "x\ny\033"), "x\\012y\\033");
	/* cut at a whole escape */
	assert_string_equal(bc_term_escape(buf, 6, "ab\033cd"), "ab");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_every_view),
		T(test_header),
		T(test_threads_and_procs),
		T(test_stream_split),
	};

	return cmocka_run_group_tests_name("report_escapes", tests, NULL, NULL);
}
