// SPDX-License-Identifier: MIT
/*
 * Report printing: durations in their unit, sort keys, and the function and
 * syscall tables (column widths, sorting, top-N, notes and warnings) checked
 * character for character from hand-built record sequences.
 */
#include "report_fixture.h"

static void test_format_duration(void **state)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = {
		{0, "0 ns"},
		{999, "999 ns"},
		{1000, "1.000 us"},
		{1234, "1.234 us"},
		{999999, "999.999 us"},
		{1000000, "1.000 ms"},
		{12345678, "12.345 ms"},
		{999999999, "999.999 ms"},
		{1000000000, "1.000 s"},
		{100000000000, "100.000 s"},
		{UINT64_MAX, "18446744073.709 s"},
	};
	char buf[BC_DURATION_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(bc_format_duration(buf, cases[i].ns), cases[i].text);
}

static void test_sort_key_parse(void **state)
{
	enum bc_sort_key key = BC_SORT_EXCL;

	(void)state;
	assert_int_equal(bc_sort_key_parse("name", &key), 0);
	assert_int_equal(key, BC_SORT_NAME);
	assert_int_equal(bc_sort_key_parse("avg", &key), 0);
	assert_int_equal(key, BC_SORT_AVG);
	assert_int_equal(bc_sort_key_parse("excl", &key), 0);
	assert_int_equal(key, BC_SORT_EXCL);
	assert_int_equal(bc_sort_key_parse("self", &key), -EINVAL);
}

/* Six sequential top-level calls, one per unit boundary. */
static void feed_boundaries(struct fixture *fx)
{
	entry(fx, 100, F_MAIN, 0);
	ret(fx, 100, F_MAIN, 999);
	entry(fx, 100, F_A, 1000);
	ret(fx, 100, F_A, 2000);
	entry(fx, 100, F_B, 2000);
	ret(fx, 100, F_B, 2000 + 999999);
	entry(fx, 100, F_FIB, 1002000);
	ret(fx, 100, F_FIB, 2002000);
	entry(fx, 100, F_LONG, 3000000);
	ret(fx, 100, F_LONG, 1003000000);
	entry(fx, 100, 9, 2000000000);
	ret(fx, 100, 9, 102000000000);
	/* One call still running when the recording ends. */
	entry(fx, 100, F_A, 200000000000);
	end(fx);
}

static void test_print_functions(void **state)
{
	struct fixture *fx = *state;
	const char *text;

	feed_boundaries(fx);
	text = print_functions(fx, BC_SORT_EXCL, 0);
	assert_string_equal(
		text,
		"Functions, by exclusive time:\n"
		"Calls  Incl. total  Excl. total   Avg incl.  Object             Name\n"
		"-----  -----------  -----------  ----------  -----------------  ----\n"
		"    1    100.000 s    100.000 s   100.000 s  -                  <unknown id 9>\n"
		"    1      1.000 s      1.000 s     1.000 s  libboost_graph.so  " LONG_NAME "\n"
		"    1     1.000 ms     1.000 ms    1.000 ms  demo               fib\n"
		"    1   999.999 us   999.999 us  999.999 us  libb.so.1          b\n"
		"    2     1.000 us     1.000 us    1.000 us  demo               a\n"
		"    1       999 ns       999 ns      999 ns  demo               main\n"
		"    7                 101.002 s                                 total (6 "
		"functions)\n"
		"note: 1 calls were open at detach (still running when the recording ended); they"
		" count as calls, not time\n");
}

static void test_print_functions_sorted(void **state)
{
	struct fixture *fx = *state;
	const char *text;

	feed_boundaries(fx);
	text = print_functions(fx, BC_SORT_NAME, 3);
	assert_string_equal(
		text,
		"Functions, top 3 of 6 by name:\n"
		"Calls  Incl. total  Excl. total  Avg incl.  Object             Name\n"
		"-----  -----------  -----------  ---------  -----------------  ----\n"
		"    1    100.000 s    100.000 s  100.000 s  -                  <unknown id 9>\n"
		"    1      1.000 s      1.000 s    1.000 s  libboost_graph.so  " LONG_NAME "\n"
		"    2     1.000 us     1.000 us   1.000 us  demo               a\n"
		"    7                 101.002 s                                total (6 "
		"functions)\n"
		"note: 1 calls were open at detach (still running when the recording ended); they"
		" count as calls, not time\n");

	text = print_functions(fx, BC_SORT_CALLS, 1);
	assert_non_null(strstr(text, "top 1 of 6 by calls:\n"));
	assert_non_null(strstr(text, "  a\n"));
}

static void test_print_functions_unmeasured(void **state)
{
	struct fixture *fx = *state;
	struct bc_rec_lost lost_rec = {
		.h = head(sizeof(lost_rec), BC_REC_LOST, 0, 0),
		.loss_class = BC_LOSS_FUNC,
		.count = 4,
	};
	const char *text;

	entry(fx, 100, F_MAIN, 0);
	ret(fx, 100, F_B, 1);
	feed(fx, &lost_rec);
	end(fx);
	text = print_functions(fx, BC_SORT_EXCL, 0);
	assert_string_equal(
		text,
		"Functions, by exclusive time:\n"
		"Calls  Incl. total  Excl. total  Avg incl.  Object     Name\n"
		"-----  -----------  -----------  ---------  ---------  ----\n"
		"    0            -            -          -  libb.so.1  b\n"
		"    1            -            -          -  demo       main\n"
		"    1                      0 ns                        total (2 functions)\n"
		"note: 1 calls were open at detach (still running when the recording ended); they"
		" count as calls, not time\n"
		"note: 1 returns without a matching entry were ignored\n"
		"warning: 4 function events were lost; times of the affected calls are missing\n");
}

static void test_print_syscalls(void **state)
{
	struct fixture *fx = *state;
	const char *text;

	syscall_pair(fx, NR_OPENAT, -ENOENT, 100, 1500);
	syscall_pair(fx, NR_OPENAT, -ENOENT, 10000, 2500);
	syscall_pair(fx, NR_OPENAT, 3, 20000, 2000);
	syscall_pair(fx, NR_READ, -EAGAIN, 30000, 999);
	syscall_pair(fx, NR_READ, -EINTR, 40000, 1);
	syscall_pair(fx, NR_READ, -EINTR, 50000, 1);
	syscall_pair(fx, NR_READ, -512, 60000, 1);
	syscall_pair(fx, 1, 1, 70000, 100);
	syscall_pair(fx, 998, -600, 80000, 1);
	sys_enter(fx, 100, NR_EXIT_GROUP, 90000);
	end(fx);

	text = print_syscalls(fx);
	assert_string_equal(
		text,
		"Syscalls, by total time:\n"
		"Calls     Total       Avg  Errors  Name         Error codes\n"
		"-----  --------  --------  ------  -----------  -----------\n"
		"    3  6.000 us  2.000 us       2  openat       ENOENT:2\n"
		"    4  1.002 us    250 ns       4  read         EINTR:2 EAGAIN:1 ERESTARTSYS:1\n"
		"    1    100 ns    100 ns       0  write\n"
		"    1      1 ns      1 ns       1  syscall_998  errno_600:1\n"
		"    1         -         -       0  exit_group\n"
		"   10  7.103 us                 7  total (5 syscalls)\n");

	/* Past five errnos the rest are summed: "open" fails 7 ways. */
	for (int e = 1; e <= 7; e++)
		syscall_pair(fx, 2, -e, 100000 + e * 10, 1);
	syscall_pair(fx, 2, -EPERM, 100100, 1);
	text = print_syscalls(fx);
	assert_non_null(strstr(text, " EPERM:2 ENOENT:1 ESRCH:1 EINTR:1 EIO:1 +2 more\n"));
}

static void test_print_empty(void **state)
{
	struct fixture *fx = *state;
	const char *text;

	end(fx);
	text = print_functions(fx, BC_SORT_EXCL, 0);
	assert_string_equal(text, "Functions: no calls recorded\n");
	text = print_syscalls(fx);
	assert_string_equal(text, "Syscalls: none recorded\n");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_format_duration),
		T(test_sort_key_parse),
		T(test_print_functions),
		T(test_print_functions_sorted),
		T(test_print_functions_unmeasured),
		T(test_print_syscalls),
		T(test_print_empty),
	};

	return cmocka_run_group_tests_name("report printing", tests, NULL, NULL);
}
