// SPDX-License-Identifier: MIT
/*
 * Experiments damaged or planted on purpose, read by `report` and `convert`
 * as a user runs them (bc_cmd_report, bc_cmd_convert in a child, killed
 * after 20 s): a FIFO in place of a file must not hang them, and neither
 * it nor a symbolic link is read; an empty or foreign founder log.xml is
 * an error; a broken subexperiment is skipped with one warning; every
 * error or warning is said once, on one line; a file of damaged blocks
 * costs a note each, in linear time, and at most BC_ER_NOTES_MAX shown.
 */
#include <sys/stat.h>

#include "er_fixture.h"
#include "cli_fixture.h"
#include "readers/er_replay.h"

#define SECS 20 /* far more than any of these takes, even under valgrind */

static void path_of(char *buf, size_t len, const char *exp, const char *name)
{
	snprintf(buf, len, "%s/%s", exp, name);
}

/* name in exp replaced by a FIFO (nobody ever writes to it). */
static void plant_fifo(const char *exp, const char *name)
{
	char path[4200];

	path_of(path, sizeof(path), exp, name);
	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
}

/* name in exp replaced by a symbolic link to a copy of itself outside exp. */
static void plant_link(struct fixture *fx, const char *name)
{
	char path[4200], copy[4200];
	size_t len;
	char *text = slurp(fx->exp, name, &len);

	snprintf(copy, sizeof(copy), "%s/copy-%s", fx->dir, name);
	put_file(fx->dir, strrchr(copy, '/') + 1, text, len);
	free(text);
	path_of(path, sizeof(path), fx->exp, name);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(copy, path), 0);
}

/* The command failed with exit 1 and said so in one line holding what. */
static void expect_one_error(const struct ran *r, const char *what)
{
	expect_status(r, 1);
	if (!strstr(r->err, what))
		fail_msg("stderr does not say '%s':\n%s", what, r->err);
	if (lines_of(r->err) != 1 || strncmp(r->err, "bpfcollect: ", 12))
		fail_msg("not one line:\n%s", r->err);
}

static void report_refuses(const char *exp, const char *view, const char *what)
{
	struct ran r;

	if (view)
		run_cli(&r, SECS, bc_cmd_report, "report", exp, view, NULL);
	else
		run_cli(&r, SECS, bc_cmd_report, "report", exp, NULL);
	expect_one_error(&r, what);
	ran_free(&r);
}

static void convert_refuses(const char *exp, const char *what)
{
	struct ran r;

	run_cli(&r, SECS, bc_cmd_convert, "convert", exp, "-f", "text", "-o", "-", NULL);
	expect_one_error(&r, what);
	ran_free(&r);
}

/* ------------------------------------------------------------ FIFOs and links */

static void test_fifo_data_file(void **state)
{
	struct fixture *fx = *state;
	char what[4400];

	write_exp(fx, false, NULL);
	plant_fifo(fx->exp, "functrace");
	snprintf(what, sizeof(what), "%s/functrace is a FIFO, not a regular file: refused",
		 fx->exp);
	report_refuses(fx->exp, NULL, what);
	report_refuses(fx->exp, "calltree", what);
	convert_refuses(fx->exp, what);
}

static void test_fifo_text_files(void **state)
{
	static const char *const names[] = {"log.xml", "map.xml", "functions", "kallmodsyms"};
	struct fixture *fx = *state;
	char what[4400];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		write_exp(fx, false, NULL);
		plant_fifo(fx->exp, names[i]);
		snprintf(what, sizeof(what), "%s/%s is a FIFO, not a regular file", fx->exp,
			 names[i]);
		report_refuses(fx->exp, NULL, what);
		convert_refuses(fx->exp, what);
	}
}

/* gprofng's files and the overview, read by their own views */
static void test_fifo_view_files(void **state)
{
	static const struct {
		const char *name, *view, *log;
	} cases[] = {
		{"overview", "overview", NULL},
		{"profile", "profile", "<profile name=\"profile\" ptimer=\"1000\"/>\n"},
		{"data.frameinfo", "profile", "<profile name=\"profile\" ptimer=\"1000\"/>\n"},
		{"heaptrace", "heap", "<profile name=\"heaptrace\"/>\n"},
		{"iotrace", "io", "<profile name=\"iotrace\"/>\n"},
	};
	struct fixture *fx = *state;
	char what[4400];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_exp(fx, false, NULL);
		if (cases[i].log)
			append_file(fx->exp, "log.xml", cases[i].log);
		plant_fifo(fx->exp, cases[i].name);
		snprintf(what, sizeof(what), "%s/%s is a FIFO, not a regular file", fx->exp,
			 cases[i].name);
		report_refuses(fx->exp, cases[i].view, what);
	}
}

static void test_symlinks(void **state)
{
	static const char *const names[] = {"log.xml", "functrace", "map.xml"};
	struct fixture *fx = *state;
	char what[4400];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		write_exp(fx, false, NULL);
		plant_link(fx, names[i]);
		snprintf(what, sizeof(what), "%s/%s is a symbolic link: refused", fx->exp,
			 names[i]);
		report_refuses(fx->exp, NULL, what);
		convert_refuses(fx->exp, what);
	}
}

/* ------------------------------------------------------------ a damaged founder */

static void test_founder_log(void **state)
{
	static const char garbage[] = "\x7f"
				      "ELF\x02\x01\x01 not a log at all\n\x01\x02\x03";
	struct fixture *fx = *state;
	char what[4400];
	struct ran r;

	write_exp(fx, false, NULL);
	snprintf(what, sizeof(what),
		 "%s/log.xml holds neither an <experiment> element nor a run event", fx->exp);
	put_str(fx->exp, "log.xml", "");
	report_refuses(fx->exp, NULL, what);
	convert_refuses(fx->exp, what);
	put_file(fx->exp, "log.xml", garbage, sizeof(garbage) - 1);
	report_refuses(fx->exp, NULL, what);
	put_str(fx->exp, "log.xml", "just some words\nand more\n");
	report_refuses(fx->exp, "header", what);

	/* nothing at all printed on standard output: no header of 1970 */
	run_cli(&r, SECS, bc_cmd_report, "report", fx->exp, "header", NULL);
	expect_status(&r, 1);
	assert_int_equal(r.outlen, 0);
	ran_free(&r);

	/* a log gprofng reads: its run event without <experiment> */
	put_str(fx->exp, "log.xml",
		"<event kind=\"run\" tstamp=\"1000.123456789\" time=\"1700000000\"/>\n");
	run_cli(&r, SECS, bc_cmd_report, "report", fx->exp, "header", NULL);
	expect_status(&r, 0);
	ran_free(&r);

	/* a log without its run event: read, but no start time is made up */
	put_str(fx->exp, "log.xml", "<experiment version=\"12.4\">\n</experiment>\n");
	run_cli(&r, SECS, bc_cmd_report, "report", fx->exp, "header", NULL);
	expect_status(&r, 0);
	assert_non_null(strstr(r.out, "Started:     ?\n"));
	assert_null(strstr(r.out, "1970"));
	ran_free(&r);
}

/* ------------------------------------------------------------ a damaged subexperiment */

/*
 * The standard experiment, and a copy of it inside as _f1.er with log.xml
 * replaced by log (NULL: without log.xml).
 */
static void write_tree_with_bad_sub(struct fixture *fx, const char *log, char *sub, size_t sublen)
{
	char founder[256];

	write_exp(fx, false, NULL);
	assert_true(strlen(fx->exp) < sizeof(founder));
	snprintf(founder, sizeof(founder), "%s", fx->exp);
	write_exp(fx, false, NULL);
	snprintf(sub, sublen, "%s/_f1.er", founder);
	assert_int_equal(rename(fx->exp, sub), 0);
	snprintf(fx->exp, sizeof(fx->exp), "%s/log.xml", sub);
	assert_int_equal(unlink(fx->exp), 0);
	if (log)
		put_file(sub, "log.xml", log, strlen(log));
	snprintf(fx->exp, sizeof(fx->exp), "%s", founder);
}

/* A subexperiment without log.xml, or with garbage in it: skipped, one warning naming it. */
static void test_bad_subexperiment(void **state)
{
	static const struct {
		const char *log, *why;
	} cases[] = {
		{NULL, "%s: not an experiment (no log.xml)"},
		{"garbage, not a log\n",
		 "%s/log.xml holds neither an <experiment> element nor a run event"},
	};
	struct fixture *fx = *state;
	char sub[300], why[400], what[4800];
	struct ran r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_tree_with_bad_sub(fx, cases[i].log, sub, sizeof(sub));
		snprintf(why, sizeof(why), cases[i].why, sub);
		snprintf(what, sizeof(what), "bpfcollect: warning: %s/_f1.er cannot be read (%s",
			 fx->exp, why);
		/* views that read the tree again and again: one warning all the same */
		run_cli(&r, SECS, bc_cmd_report, "report", fx->exp, "header", "functions",
			"calltree", "threads", "procs", "objects", NULL);
		expect_status(&r, 0);
		if (count_of(r.err, what) != 1 || lines_of(r.err) != 1)
			fail_msg("not one warning '%s':\n%s", what, r.err);
		assert_non_null(strstr(r.out, "Experiment:  "));
		ran_free(&r);

		run_cli(&r, SECS, bc_cmd_convert, "convert", fx->exp, "-f", "text", "-o", "-",
			NULL);
		expect_status(&r, 0);
		if (count_of(r.err, what) != 1 || lines_of(r.err) != 1)
			fail_msg("not one warning '%s':\n%s", what, r.err);
		ran_free(&r);
	}
}

/* ------------------------------------------------------------ errors said once */

/* An RTL file name taken by a directory: the conversion fails, said once. */
static void test_planted_rtl_name(void **state)
{
	struct fixture *fx = *state;
	char prefix[4200], planted[4300];
	struct ran r;

	write_exp(fx, false, NULL);
	snprintf(prefix, sizeof(prefix), "%s/out", fx->dir);
	snprintf(planted, sizeof(planted), "%s_%u.log", prefix, TID_MAIN);
	assert_int_equal(mkdir(planted, 0700), 0);
	snprintf(planted, sizeof(planted), "%s_%u.log", prefix, (unsigned int)getpid());
	assert_int_equal(mkdir(planted, 0700), 0);
	run_cli(&r, SECS, bc_cmd_convert, "convert", fx->exp, "-f", "rtl", "-o", prefix, NULL);
	expect_status(&r, 1);
	if (lines_of(r.err) != 1 || !strstr(r.err, "_") || !strstr(r.err, ".log"))
		fail_msg("not one line naming the file:\n%s", r.err);
	ran_free(&r);
}

/* ------------------------------------------------------------ notes */

/*
 * A functrace of 100,000 block heads that hold nothing: a note per block,
 * each O(1) (the reader copied every note per note: over 100 s), and at
 * most BC_ER_NOTES_MAX of them shown.
 */
static void test_many_damaged_blocks(void **state)
{
	struct fixture *fx = *state;
	const size_t n = 100000;
	struct bc_rc_block_head *heads = calloc(n, sizeof(*heads));
	char *good, *all;
	struct ran r;
	size_t len;

	assert_non_null(heads);
	for (size_t i = 0; i < n; i++)
		heads[i] = (struct bc_rc_block_head){.magic = BC_RC_MAGIC, .records = 1};
	write_exp(fx, false, NULL);
	/* after the blocks the writer made, so the decoder's buffer exists */
	good = slurp(fx->exp, "functrace", &len);
	all = malloc(len + n * sizeof(*heads));
	assert_non_null(all);
	memcpy(all, good, len);
	memcpy(all + len, heads, n * sizeof(*heads));
	put_file(fx->exp, "functrace", all, len + n * sizeof(*heads));
	free(all);
	free(good);
	free(heads);
	run_cli(&r, 60, bc_cmd_report, "report", fx->exp, "header", NULL);
	expect_status(&r, 0);
	assert_non_null(strstr(r.out, "does not decode; its 1 records skipped\n"));
	assert_int_equal(count_of(r.out, "does not decode"), BC_ER_NOTES_MAX);
	assert_int_equal(count_of(r.out, "... and more notes, left out\n"), 1);
	ran_free(&r);
}

/* The same note twice is kept once. */
static void test_notes_once(void **state)
{
	struct bc_er_info info;

	(void)state;
	memset(&info, 0, sizeof(info));
	bc_er_note(&info, "functrace: %s", "missing");
	bc_er_note(&info, "map.xml: missing; no load objects");
	bc_er_note(&info, "functrace: missing");
	assert_string_equal(info.notes, "functrace: missing\nmap.xml: missing; no load objects\n");
	bc_er_info_free(&info);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_fifo_data_file),	  T(test_fifo_text_files),     T(test_fifo_view_files),
		T(test_symlinks),	  T(test_founder_log),	       T(test_bad_subexperiment),
		T(test_planted_rtl_name), T(test_many_damaged_blocks), T(test_notes_once),
	};

	return cmocka_run_group_tests_name("damaged", tests, NULL, NULL);
}
