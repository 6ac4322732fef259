// SPDX-License-Identifier: MIT
/* record's option parsing and the set of processes it waits for. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/liveset.h"
#include "bpfcollect/record_opts.h"


static int parse(char **argv, int argc, struct bc_record_opts *o, char *err)
{
	err[0] = 0;
	return bc_record_parse_opts(argc, argv, o, err, 256);
}

static void defaults(void **state)
{
	char *argv[] = {"record", "--", "/bin/true", "x", NULL};
	struct bc_record_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(argv, 4, &o, err), 0);
	assert_null(o.exp_name);
	assert_null(o.exp_dir);
	assert_int_equal(o.n_specs, 0);
	assert_false(o.syscalls);
	assert_int_equal(o.bufsize_mib, BC_DEFAULT_BUFSIZE_MIB);
	assert_true(o.follow);
	assert_string_equal(o.argv[0], "/bin/true");
	assert_string_equal(o.argv[1], "x");
	assert_null(o.argv[2]);
	assert_string_equal(o.options_text, "record --");
	bc_record_opts_free(&o);
}

static void every_option(void **state)
{
	char *argv[] = {"record",
			"-o",
			"a.1.er",
			"-d",
			"/tmp",
			"-u",
			"f*",
			"-u",
			"libc:malloc",
			"--syscalls=openat,read",
			"-F",
			"off",
			"--bufsize=64",
			"--no-uprobe-multi",
			"-q",
			"-v",
			"--",
			"cmd",
			"-o",
			"not-ours",
			NULL};
	struct bc_record_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(argv, 20, &o, err), 0);
	assert_string_equal(o.exp_name, "a.1.er");
	assert_string_equal(o.exp_dir, "/tmp");
	assert_int_equal(o.n_specs, 2);
	assert_string_equal(o.specs[0], "f*");
	assert_string_equal(o.specs[1], "libc:malloc");
	assert_true(o.syscalls);
	assert_string_equal(o.syscall_list, "openat,read");
	assert_false(o.follow);
	assert_int_equal(o.bufsize_mib, 64);
	assert_true(o.no_multi && o.quiet && o.verbose);
	/* Options after the command belong to the command. */
	assert_string_equal(o.argv[0], "cmd");
	assert_string_equal(o.argv[1], "-o");
	bc_record_opts_free(&o);
}

static void command_without_dashes(void **state)
{
	char *argv[] = {"record", "-q", "ls", "-l", NULL};
	struct bc_record_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(argv, 4, &o, err), 0);
	assert_string_equal(o.argv[0], "ls");
	assert_string_equal(o.argv[1], "-l");
	bc_record_opts_free(&o);
}

static void syscalls_all(void **state)
{
	char *a1[] = {"record", "--syscalls", "--", "x", NULL};
	char *a2[] = {"record", "--syscalls=all", "--", "x", NULL};
	struct bc_record_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(a1, 4, &o, err), 0);
	assert_true(o.syscalls);
	assert_null(o.syscall_list);
	bc_record_opts_free(&o);
	assert_int_equal(parse(a2, 4, &o, err), 0);
	assert_null(o.syscall_list);
	bc_record_opts_free(&o);
}

static void expect_error(char **argv, int argc, const char *want)
{
	struct bc_record_opts o;
	char err[256];

	assert_int_equal(parse(argv, argc, &o, err), -EINVAL);
	assert_non_null(strstr(err, want));
	assert_null(strchr(err, '\n'));
	bc_record_opts_free(&o);
}

static void bad_options(void **state)
{
	char *nocmd[] = {"record", "-q", NULL};
	char *nocmd2[] = {"record", "--", NULL};
	char *badf[] = {"record", "-F", "maybe", "--", "x", NULL};
	char *bufs[] = {"record", "--bufsize=3", "--", "x", NULL};
	char *bufz[] = {"record", "--bufsize=0", "--", "x", NULL};
	char *bufbig[] = {"record", "--bufsize=2048", "--", "x", NULL};
	char *bufnan[] = {"record", "--bufsize=", "--", "x", NULL};
	char *emptyu[] = {"record", "-u", "", "--", "x", NULL};
	char *unknown[] = {"record", "--frob", "--", "x", NULL};
	char *unknown_short[] = {"record", "-Z", "--", "x", NULL};
	char *novalue[] = {"record", "-o", NULL};

	(void)state;
	expect_error(nocmd, 2, "no command given");
	expect_error(nocmd2, 2, "no command given");
	expect_error(badf, 5, "-F takes on or off, not 'maybe'");
	expect_error(bufs, 4, "not '3'");
	expect_error(bufz, 4, "power of two");
	expect_error(bufbig, 4, "not '2048'");
	expect_error(bufnan, 4, "--bufsize");
	expect_error(emptyu, 5, "-u needs [OBJ:]GLOB");
	expect_error(unknown, 4, "unknown option '--frob'");
	expect_error(unknown_short, 4, "unknown option '-Z'");
	expect_error(novalue, 2, "option '-o' needs a value");
}

static void help(void **state)
{
	char *argv[] = {"record", "--help", NULL};
	struct bc_record_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(argv, 2, &o, err), 1);
	bc_record_opts_free(&o);
	assert_non_null(strstr(bc_record_usage, "--syscalls[=LIST]"));
}

static void live_set(void **state)
{
	struct bc_live_set s = {0};

	(void)state;
	for (uint32_t pid = 1; pid <= 100; pid++)
		assert_int_equal(bc_live_add(&s, pid), 0);
	assert_int_equal(bc_live_add(&s, 50), 0); /* once only */
	assert_int_equal(s.n, 100);
	bc_live_remove(&s, 50);
	bc_live_remove(&s, 50);
	bc_live_remove(&s, 1000);
	assert_int_equal(s.n, 99);
	assert_false(bc_live_has(&s, 50));
	assert_true(bc_live_has(&s, 51));
	assert_true(bc_live_has(&s, 100));
	bc_live_free(&s);
	assert_int_equal(s.n, 0);
}

static void write_stat(const char *dir, unsigned pid, const char *line)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u", dir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/stat", dir, pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(line, f);
	fclose(f);
}

static void pid_finished(void **state)
{
	char dir[] = "/tmp/bc-procfs.XXXXXX";
	char cmd[300];

	(void)state;
	assert_non_null(mkdtemp(dir));
	write_stat(dir, 10, "10 (sleep) S 1 10 10 0 -1\n");
	write_stat(dir, 11, "11 (dead) Z 1 11 11 0 -1\n");
	write_stat(dir, 12, "12 (odd) R) S 1) Z 1 12 12 0 -1\n"); /* comm with ") " in it */
	write_stat(dir, 13, "13 (x) X 1\n");
	assert_false(bc_pid_finished(dir, 10));
	assert_true(bc_pid_finished(dir, 11));
	assert_true(bc_pid_finished(dir, 12));
	assert_true(bc_pid_finished(dir, 13));
	assert_true(bc_pid_finished(dir, 14)); /* gone */
	/* And the real thing: we run. */
	assert_false(bc_pid_finished("/proc", (uint32_t)getpid()));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(every_option),
		cmocka_unit_test(command_without_dashes),
		cmocka_unit_test(syscalls_all),
		cmocka_unit_test(bad_options),
		cmocka_unit_test(help),
		cmocka_unit_test(live_set),
		cmocka_unit_test(pid_finished),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
