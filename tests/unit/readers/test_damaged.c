// SPDX-License-Identifier: MIT
/*
 * Experiments planted on purpose, read by `report` and `convert` as a user
 * runs them (bc_cmd_report, bc_cmd_convert in a child, killed after 20 s):
 * a FIFO in place of a file must not hang them, and neither it nor a
 * symbolic link is read: one line names the file and the command fails.
 */
#include <sys/stat.h>

#include "er_fixture.h"
#include "cli_fixture.h"

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

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_fifo_data_file),
		T(test_fifo_text_files),
		T(test_fifo_view_files),
		T(test_symlinks),
	};

	return cmocka_run_group_tests_name("damaged", tests, NULL, NULL);
}
