// SPDX-License-Identifier: MIT
/*
 * RTL lines (bpfcollect/rtl.h): the time's padding, the colon with either
 * side empty, escaping of names and messages, scope names from C and C++
 * symbols, and cutting a line that is too long without breaking an escape.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/rtl.h"

static char line[BC_RTL_LINE_MAX];

static const char *mkline(uint64_t ms, uint32_t tid, char kind, const char *scope, const char *msg,
			  bool marker)
{
	bc_rtl_line(line, sizeof(line), ms, tid, kind, scope, msg, strlen(msg), marker);
	return line;
}

static void test_time_padding(void **state)
{
	(void)state;
	assert_string_equal(mkline(0, 11, '{', "desktop (cd100003) ::Desktop::Open", "", false),
			    "000000 11 { desktop (cd100003) ::Desktop::Open : \n");
	assert_string_equal(mkline(1234, 11, '|', "m (a) ::f", "hello", false),
			    "001234 11 | m (a) ::f : hello\n");
	assert_string_equal(mkline(999999, 1, '}', "m (a) ::f", "", false),
			    "999999 1 } m (a) ::f : \n");
	/* past 999999 ms (16 minutes) the field grows: it is a %d */
	assert_string_equal(mkline(1000000, 1, '}', "m (a) ::f", "", false),
			    "1000000 1 } m (a) ::f : \n");
	assert_string_equal(mkline(86400000ull * 3, 7, '|', "m (a) ::f", "x", false),
			    "259200000 7 | m (a) ::f : x\n");
}

static void test_colon_and_empty_sides(void **state)
{
	(void)state;
	/* the colon is written even when a side is empty */
	assert_string_equal(mkline(5, 2, '|', "", "", false), "000005 2 |  : \n");
	assert_string_equal(mkline(5, 2, '|', "", "msg", false), "000005 2 |  : msg\n");
	/* a message may hold " : " itself: readers split at the first one */
	assert_string_equal(mkline(5, 2, '|', "m (a) ::f", "a : b", false),
			    "000005 2 | m (a) ::f : a : b\n");
}

static void test_message_escaping(void **state)
{
	(void)state;
	assert_string_equal(mkline(0, 1, '|', "m (a) ::f", "two\nlines\ttab\\back", false),
			    "000000 1 | m (a) ::f : two\\nlines\\ttab\\\\back\n");
	assert_string_equal(mkline(0, 1, '|', "m (a) ::f", "bell\a del\x7f", false),
			    "000000 1 | m (a) ::f : bell\\x07 del\\x7f\n");
	/* data starting with a brace is not a logical scope... */
	assert_string_equal(mkline(0, 1, '|', "m (a) ::f", "{ not a scope", false),
			    "000000 1 | m (a) ::f : \\{ not a scope\n");
	assert_string_equal(mkline(0, 1, '|', "m (a) ::f", "} nor this", false),
			    "000000 1 | m (a) ::f : \\} nor this\n");
	/* ...a program's own marker is */
	assert_string_equal(mkline(0, 1, '|', "m (a) ::f", "{ lengthy calculation", true),
			    "000000 1 | m (a) ::f : { lengthy calculation\n");
	/* a brace later in the text is plain */
	assert_string_equal(mkline(0, 1, '|', "m (a) ::f", "a {b}", false),
			    "000000 1 | m (a) ::f : a {b}\n");
}

static void test_scope_names(void **state)
{
	char out[512];

	(void)state;
	assert_int_equal(bc_rtl_scope("/usr/bin/prog", "jdoe", "main", out, sizeof(out)), 0);
	assert_string_equal(out, "prog (jdoe) ::main");
	assert_int_equal(bc_rtl_scope("/usr/lib/x86_64-linux-gnu/libc.so.6", "jdoe", "malloc", out,
				      sizeof(out)),
			 0);
	assert_string_equal(out, "libc (jdoe) ::malloc");
	/* C++: demangled, parameters dropped, namespaces and class kept */
	assert_int_equal(bc_rtl_scope("/opt/app/libdesk.so", "cd100003",
				      "_ZN7Desktop17OpenStartupscreenEv", out, sizeof(out)),
			 0);
	assert_string_equal(out, "libdesk (cd100003) ::Desktop::OpenStartupscreen");
	assert_int_equal(bc_rtl_scope("a.out", "x", "_ZN2ns5Class6methodEiPKc", out, sizeof(out)),
			 0);
	assert_string_equal(out, "a (x) ::ns::Class::method");
	/* a template instance: its arguments stay, its return type goes */
	assert_int_equal(bc_rtl_scope("a.out", "x", "_ZN2ns3maxIiEET_S1_S1_", out, sizeof(out)), 0);
	assert_string_equal(out, "a (x) ::ns::max<int>");
	/* operator() keeps its parentheses */
	assert_int_equal(bc_rtl_scope("a.out", "x", "_ZN1FclEv", out, sizeof(out)), 0);
	assert_string_equal(out, "a (x) ::F::operator()");
	/* not a mangled name, or a broken one: as it is */
	assert_int_equal(bc_rtl_scope("a.out", "x", "_Zbroken", out, sizeof(out)), 0);
	assert_string_equal(out, "a (x) ::_Zbroken");
	/* a path with spaces makes no second token; an empty one a module all the same */
	assert_int_equal(bc_rtl_scope("/tmp/my prog", "x", "f", out, sizeof(out)), 0);
	assert_string_equal(out, "my_prog (x) ::f");
	assert_int_equal(bc_rtl_scope("", "x", "f", out, sizeof(out)), 0);
	assert_string_equal(out, "unknown (x) ::f");
	/* a name holding the separator itself is escaped, so the line still splits right */
	assert_int_equal(bc_rtl_scope("a.out", "x", "odd : name", out, sizeof(out)), 0);
	assert_string_equal(out, "a (x) ::odd \\: name");
	/* too small */
	assert_int_equal(bc_rtl_scope("a.out", "x", "f", out, 5), -ENOSPC);
}

static void test_cut_whole_escapes(void **state)
{
	char msg[BC_RTL_LINE_MAX * 2], small[40];
	size_t n;

	(void)state;
	memset(msg, '\n', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	n = bc_rtl_line(line, sizeof(line), 1, 1, '|', "m (a) ::f", msg, strlen(msg), false);
	assert_true(n < sizeof(line));
	assert_int_equal(line[n - 1], '\n');
	/* every escape whole: an even number of characters after " : " */
	assert_int_equal((n - 1 - strlen("000001 1 | m (a) ::f : ")) % 2, 0);
	/* a tiny buffer still ends its line, with the colon */
	n = bc_rtl_line(small, sizeof(small), 1, 1, '|', "module (author) ::a_long_function_name",
			"message", 7, false);
	assert_true(n < sizeof(small));
	assert_int_equal(small[n - 1], '\n');
	assert_non_null(strstr(small, " : "));
}

static void test_module_names(void **state)
{
	char out[64];

	(void)state;
	bc_rtl_module("/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", out, sizeof(out));
	assert_string_equal(out, "libstdc++");
	bc_rtl_module("prog", out, sizeof(out));
	assert_string_equal(out, "prog");
	bc_rtl_module("/x/.hidden", out, sizeof(out));
	assert_string_equal(out, "unknown");
	bc_rtl_module(NULL, out, sizeof(out));
	assert_string_equal(out, "unknown");
}

static void test_message_specs(void **state)
{
	struct bc_rtl_opts o = {0};
	char err[256];

	(void)state;
	assert_int_equal(bc_rtl_message_parse(&o, "libfoo:log_marker:1", err, sizeof(err)), 0);
	assert_int_equal(bc_rtl_message_parse(&o, "/opt/a:b/prog:trace:arg3", err, sizeof(err)), 0);
	assert_string_equal(o.messages[0].object, "libfoo");
	assert_string_equal(o.messages[0].func, "log_marker");
	assert_int_equal(o.messages[0].arg, 1);
	/* the object may hold a colon: the function sits between the last two */
	assert_string_equal(o.messages[1].object, "/opt/a:b/prog");
	assert_string_equal(o.messages[1].func, "trace");
	assert_int_equal(o.messages[1].arg, 3);
	/* matched by path, or by library name as -u names it */
	assert_int_equal(bc_rtl_message_arg(&o, "/usr/lib/libfoo.so.1", "log_marker"), 1);
	assert_int_equal(bc_rtl_message_arg(&o, "/usr/lib/libbar.so.1", "log_marker"), 0);
	assert_int_equal(bc_rtl_message_arg(&o, "/opt/a:b/prog", "trace"), 3);
	assert_int_equal(bc_rtl_message_arg(&o, "/opt/a:b/prog", "other"), 0);
	/* a C++ function: "::" is its own, and it matches the mangled symbol */
	assert_int_equal(
		bc_rtl_message_parse(&o, "libfoo:ns::Log::write(char const*):2", err, sizeof(err)),
		0);
	assert_string_equal(o.messages[2].object, "libfoo");
	assert_string_equal(o.messages[2].func, "ns::Log::write(char const*)");
	assert_int_equal(bc_rtl_message_arg(&o, "/usr/lib/libfoo.so.1", "_ZN2ns3Log5writeEPKc"), 2);
	assert_int_equal(bc_rtl_message_arg(&o, "/usr/lib/libfoo.so.1", "_ZN2ns3Log5writeEi"), 0);
	assert_int_equal(
		bc_rtl_message_parse(&o, "/opt/a:b/prog:ns::Log::write:1", err, sizeof(err)), 0);
	assert_string_equal(o.messages[3].object, "/opt/a:b/prog");
	assert_string_equal(o.messages[3].func, "ns::Log::write");
	assert_int_equal(bc_rtl_message_arg(&o, "/opt/a:b/prog", "_ZN2ns3Log5writeEi"), 1);
	const char *bad[] = {"",	"f",	   "obj:f",   ":f:1",	   "obj::1",  "obj:f:",
			     "obj:f:0", "obj:f:7", "obj:f:x", "obj:f:arg", "obj:f:1x"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(bc_rtl_message_parse(&o, bad[i], err, sizeof(err)), -EINVAL);
		assert_null(strchr(err, '\n'));
	}
	while (o.n_messages < BC_RTL_MESSAGES_MAX)
		assert_int_equal(bc_rtl_message_parse(&o, "a:b:1", err, sizeof(err)), 0);
	assert_int_equal(bc_rtl_message_parse(&o, "a:b:1", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "at most 8"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_padding),
		cmocka_unit_test(test_colon_and_empty_sides),
		cmocka_unit_test(test_message_escaping),
		cmocka_unit_test(test_scope_names),
		cmocka_unit_test(test_cut_whole_escapes),
		cmocka_unit_test(test_module_names),
		cmocka_unit_test(test_message_specs),
	};

	return cmocka_run_group_tests_name("rtl", tests, NULL, NULL);
}
