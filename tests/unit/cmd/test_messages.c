// SPDX-License-Identifier: MIT
/*
 * Errors and warnings (bc_error, bc_warn) are said once per distinct line:
 * the same line met again is not printed, another is; the count of errors
 * said moves only for errors printed. A process that meets more distinct
 * lines than it keeps still never repeats one it kept, and its memory for
 * them stays bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli_fixture.h"

/* Run in a child: what it prints on stderr is checked by the test. */
static int say_some(int argc, char **argv)
{
	unsigned long before = bc_errors_said();

	(void)argc;
	(void)argv;
	bc_warn("%s/_f1.er cannot be read", "exp");
	bc_error("convert: %s", "no such thing");
	bc_warn("%s/_f1.er cannot be read", "exp");
	bc_error("convert: %s", "no such thing");
	bc_warn("convert: no such thing"); /* a warning is another line */
	if (bc_errors_said() != before + 1)
		return 3;
	bc_messages_forget();
	bc_error("convert: no such thing"); /* forgotten: said again */
	return 0;
}

static void test_once(void **state)
{
	struct ran r;

	(void)state;
	run_cli(&r, 20, say_some, "say", NULL);
	expect_status(&r, 0);
	assert_string_equal(r.err, "bpfcollect: warning: exp/_f1.er cannot be read\n"
				   "bpfcollect: convert: no such thing\n"
				   "bpfcollect: warning: convert: no such thing\n"
				   "bpfcollect: convert: no such thing\n");
	ran_free(&r);
}

/* More distinct lines than are kept: the first ones still said once. */
static int say_many(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	for (int i = 0; i < 5000; i++)
		bc_warn("line %d", i);
	bc_warn("line 0");
	bc_warn("line 4999");
	bc_warn("line 4999");
	bc_messages_forget();
	return 0;
}

static void test_many(void **state)
{
	struct ran r;

	(void)state;
	run_cli(&r, 60, say_many, "say", NULL);
	expect_status(&r, 0);
	assert_int_equal(count_of(r.err, "bpfcollect: warning: line 0\n"), 1);
	/* past what is kept: said each time */
	assert_int_equal(count_of(r.err, "bpfcollect: warning: line 4999\n"), 3);
	assert_int_equal(lines_of(r.err), 5002);
	ran_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_once),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests_name("messages", tests, NULL, NULL);
}
