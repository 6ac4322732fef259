// SPDX-License-Identifier: MIT
/*
 * EXP/notes: written one comment per line, appended, read back capped, and
 * printed by gprofng at the top of the header.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/archive.h"

struct fixture {
	char dir[64];
	char exp[128];
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/bcnotes.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->exp, sizeof(fx->exp), "%s/t.er", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	nftw(fx->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(fx);
	return 0;
}

static void test_notes(void **state)
{
	struct fixture *fx = *state;
	const char *first[] = {"run 1: baseline", "cpu governor=performance"};
	const char *second[] = {"with\nnewline\tand tab"};
	char path[300], err[512], cmd[400], line[512], *text, *big;
	bool seen = false;
	FILE *p;

	assert_int_equal(mkdir(fx->exp, 0755), 0);
	errno = 0;
	assert_null(bc_notes_read(fx->exp));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(bc_notes_write(fx->exp, first, 2, err, sizeof(err)), 0);
	text = bc_notes_read(fx->exp);
	assert_non_null(text);
	assert_string_equal(text, "run 1: baseline\ncpu governor=performance\n");
	free(text);
	/* appended; one comment stays one line; a last line left open is closed first */
	snprintf(path, sizeof(path), "%s/notes", fx->exp);
	p = fopen(path, "a");
	assert_non_null(p);
	fputs("by hand", p);
	fclose(p);
	assert_int_equal(bc_notes_write(fx->exp, second, 1, err, sizeof(err)), 0);
	text = bc_notes_read(fx->exp);
	assert_string_equal(text, "run 1: baseline\ncpu governor=performance\nby hand\n"
				  "with newline\tand tab\n");
	free(text);

	/* gprofng prints them at the top of the header */
	snprintf(path, sizeof(path), "%s/log.xml", fx->exp);
	put_file(path, "<experiment version=\"12.4\">\n<collector>test</collector>\n</experiment>\n"
		       "<process pid=\"100\"></process>\n<process wsize=\"64\"></process>\n"
		       "<process>prog</process>\n"
		       "<event kind=\"run\" tstamp=\"1.000000000\" time=\"1700000000\"/>\n"
		       "<event kind=\"exit\" tstamp=\"0.100000000\"/>\n");
	snprintf(path, sizeof(path), "%s/map.xml", fx->exp);
	put_file(path, "");
	snprintf(path, sizeof(path), "%s", fx->exp);
	snprintf(cmd, sizeof(cmd), "gprofng display text -header '%s' 2>&1", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		seen |= !strcmp(line, "cpu governor=performance\n");
	assert_int_equal(pclose(p), 0);
	assert_true(seen);

	/* untrusted: capped; a FIFO does not hang the reader; empty is none */
	snprintf(path, sizeof(path), "%s/notes", fx->exp);
	big = malloc(3 * BC_NOTES_MAX);
	assert_non_null(big);
	memset(big, 'n', 3 * BC_NOTES_MAX - 1);
	big[3 * BC_NOTES_MAX - 1] = '\0';
	put_file(path, big);
	free(big);
	text = bc_notes_read(fx->exp);
	assert_non_null(text);
	assert_int_equal(strlen(text), BC_NOTES_MAX);
	free(text);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_null(bc_notes_read(fx->exp));
	assert_true(bc_notes_write(fx->exp, first, 2, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "cannot write "));
	assert_int_equal(unlink(path), 0);
	put_file(path, "");
	assert_null(bc_notes_read(fx->exp));
	assert_int_equal(bc_notes_write("/nonexistent/x.er", first, 1, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "cannot write /nonexistent/x.er/notes: No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_notes, setup, teardown),
	};

	return cmocka_run_group_tests_name("notes", tests, NULL, NULL);
}
