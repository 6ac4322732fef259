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
#include "bpfcollect/procinfo.h"
#include "bpfcollect/procmaps.h"
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
	/* values judged before anything is loaded: usage errors too */
	char *badarg[] = {"record", "--arg", "f@arg7", "--", "x", NULL};
	char *badret[] = {"record", "--retval", "f@q", "--", "x", NULL};
	char *badsys[] = {"record", "--syscalls=openat,nosuch", "--", "x", NULL};
	char *dot_er[] = {"record", "-o", ".er", "--", "x", NULL};
	char *dir_er[] = {"record", "-o", "out/.er", "--", "x", NULL};
	char *no_er[] = {"record", "-o", "run", "--", "x", NULL};
	char *csv_name[] = {"record", "-f", "prf-csv", "-o", "run", "--", "x", NULL};
	struct bc_record_opts o;
	char err[256];

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
	expect_error(badarg, 5, "argument 7");
	expect_error(badret, 5, "--retval");
	expect_error(badsys, 4, "--syscalls: unknown syscall 'nosuch'");
	expect_error(dot_er, 5, "experiment name '.er' has no name before .er");
	expect_error(dir_er, 5, "experiment name 'out/.er' has no name before .er");
	expect_error(no_er, 5, "experiment name 'run' must end in .er");
	/* a file format's -o is a file's name */
	assert_int_equal(parse(csv_name, 7, &o, err), 0);
	bc_record_opts_free(&o);
}

static void attach_pids(void **state)
{
	char *argv[] = {"record", "-P", "12,34", "-P", "12", "-P", "56", "-t", "2.5", NULL};
	char *mins[] = {"record", "-t", "2m", "-P", "7", NULL};
	char *secs[] = {"record", "-t", "10s", "--", "x", NULL};
	struct bc_record_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(argv, 9, &o, err), 0);
	assert_int_equal(o.n_attach_pids, 3); /* 12 once */
	assert_int_equal(o.attach_pids[0], 12);
	assert_int_equal(o.attach_pids[1], 34);
	assert_int_equal(o.attach_pids[2], 56);
	assert_null(o.argv); /* no command with -P */
	assert_true(o.duration_s == 2.5);
	bc_record_opts_free(&o);
	assert_int_equal(parse(mins, 5, &o, err), 0);
	assert_true(o.duration_s == 120);
	bc_record_opts_free(&o);
	assert_int_equal(parse(secs, 5, &o, err), 0);
	assert_true(o.duration_s == 10);
	assert_int_equal(o.n_attach_pids, 0);
	assert_string_equal(o.argv[0], "x");
	bc_record_opts_free(&o);
}

static void attach_errors(void **state)
{
	char *both[] = {"record", "-P", "12", "--", "x", NULL};
	char *letters[] = {"record", "-P", "12,abc", NULL};
	char *zero[] = {"record", "-P", "0", NULL};
	char *empty[] = {"record", "-P", "12,", NULL};
	char *neg[] = {"record", "-P", "-5", NULL};
	char *huge[] = {"record", "-P", "99999999999", NULL};
	char *t0[] = {"record", "-t", "0", "--", "x", NULL};
	char *tunit[] = {"record", "-t", "5h", "--", "x", NULL};
	char *tnan[] = {"record", "-t", "nan", "--", "x", NULL};
	char many[1024] = "1";
	char *toomany[] = {"record", "-P", many, NULL};

	(void)state;
	for (int i = 2; i <= BC_MAX_ATTACH_PIDS + 1; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), ",%d", i);
	expect_error(both, 5, "not both");
	expect_error(letters, 3, "-P takes process ids");
	expect_error(zero, 3, "not '0'");
	expect_error(empty, 3, "not '12,'");
	expect_error(neg, 3, "not '-5'");
	expect_error(huge, 3, "-P takes process ids");
	expect_error(toomany, 3, "at most 64");
	expect_error(t0, 5, "-t takes a duration");
	expect_error(tunit, 5, "not '5h'");
	expect_error(tnan, 5, "not 'nan'");
}

static void write_file(const char *dir, unsigned pid, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u", dir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/%s", dir, pid, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void proc_inspect(void **state)
{
	char dir[] = "/tmp/bc-procinfo.XXXXXX";
	struct bc_proc_info pi;
	char err[256], cmd[300];

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* A user process; flags (field 9) without PF_KTHREAD. */
	write_file(dir, 100, "stat", "100 (my prog) S 1 100 100 0 -1 4194560 0 0\n");
	write_file(dir, 100, "status", "Name:\tmy prog\nTgid:\t100\nPid:\t100\n");
	/* kthreadd: PF_KTHREAD 0x00200000 set. */
	write_file(dir, 2, "stat", "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0\n");
	write_file(dir, 2, "status", "Name:\tkthreadd\nTgid:\t2\n");
	/* A thread of 100, with ") " in its comm. */
	write_file(dir, 101, "stat", "101 (w) S (1)) R 1 100 100 0 -1 64 0 0\n");
	write_file(dir, 101, "status", "Name:\tw\nTgid:\t100\n");
	write_file(dir, 102, "stat", "102 (gone) Z 1 102 102 0 -1 64 0 0\n");
	write_file(dir, 103, "stat", "garbage\n");

	assert_int_equal(bc_proc_inspect(dir, 100, &pi, err, sizeof(err)), 0);
	assert_int_equal(pi.pid, 100);
	assert_string_equal(pi.comm, "my prog");
	assert_false(pi.kthread);
	assert_int_equal(bc_proc_inspect(dir, 2, &pi, err, sizeof(err)), 0);
	assert_true(pi.kthread);
	assert_int_equal(bc_proc_inspect(dir, 101, &pi, err, sizeof(err)), 0);
	assert_int_equal(pi.pid, 100);
	assert_int_equal(pi.tid, 101);
	assert_string_equal(pi.comm, "w) S (1)");
	assert_int_equal(bc_proc_inspect(dir, 102, &pi, err, sizeof(err)), -ESRCH);
	assert_non_null(strstr(err, "has exited"));
	assert_int_equal(bc_proc_inspect(dir, 104, &pi, err, sizeof(err)), -ESRCH);
	assert_non_null(strstr(err, "no such process: 104"));
	assert_int_equal(bc_proc_inspect(dir, 103, &pi, err, sizeof(err)), -EINVAL);
	assert_int_equal(bc_proc_inspect(dir, 0, &pi, err, sizeof(err)), -EINVAL);
	/* And the real thing: we are a user process. */
	assert_int_equal(bc_proc_inspect("/proc", (uint32_t)getpid(), &pi, err, sizeof(err)), 0);
	assert_int_equal(pi.pid, (uint32_t)getpid());
	assert_false(pi.kthread);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void comm_names(void **state)
{
	char out[32];

	(void)state;
	bc_comm_for_filename("sshd", out, sizeof(out));
	assert_string_equal(out, "sshd");
	bc_comm_for_filename("kworker/0:1 x", out, sizeof(out));
	assert_string_equal(out, "kworker_0_1_x");
	bc_comm_for_filename("", out, sizeof(out));
	assert_string_equal(out, "unknown");
	bc_comm_for_filename("abcdefghij", out, 5);
	assert_string_equal(out, "abcd");
}

static int count_mapping(void *ctx, const struct bc_mapping *m)
{
	int *n = ctx;

	assert_true(m->path[0] == '/');
	assert_true(m->end > m->start);
	(*n)++;
	return 0;
}

static int stop_mapping(void *ctx, const struct bc_mapping *m)
{
	(void)ctx;
	(void)m;
	return -ECANCELED;
}

static void proc_maps(void **state)
{
	char line[] = "7f00aa000000-7f00aa100000 r-xp 00026000 08:01 1234   /usr/lib/libc.so.6\n";
	char anon[] = "7ffd0000-7ffd1000 rw-p 00000000 00:00 0 \n";
	char bad_line[] = "not a mapping\n";
	struct bc_mapping m;
	int n = 0;

	(void)state;
	assert_int_equal(bc_procmaps_parse_line(line, &m), 0);
	assert_true(m.start == 0x7f00aa000000ULL && m.end == 0x7f00aa100000ULL);
	assert_true(m.offset == 0x26000);
	assert_string_equal(m.path, "/usr/lib/libc.so.6");
	assert_int_equal(bc_procmaps_parse_line(anon, &m), 0);
	assert_string_equal(m.path, "");
	assert_int_equal(bc_procmaps_parse_line(bad_line, &m), -EINVAL);
	/* Our own maps: the test binary and libc at least. */
	assert_true(bc_procmaps_read("/proc", (uint32_t)getpid(), 5, count_mapping, &n) >= 2);
	assert_true(n >= 2);
	assert_int_equal(bc_procmaps_read("/proc", (uint32_t)getpid(), 5, stop_mapping, NULL),
			 -ECANCELED);
	assert_int_equal(bc_procmaps_read("/proc", 999999999, 5, count_mapping, &n), -ESRCH);
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

/* --status forces the status line; with -q, in either order, a usage error. */
static void status_option(void **state)
{
	char *forced[] = {"record", "--status", "--", "x", NULL};
	char *plain[] = {"record", "--", "x", NULL};
	char *q_then[] = {"record", "-q", "--status", "--", "x", NULL};
	char *then_q[] = {"record", "--status", "--quiet", "--", "x", NULL};
	struct bc_record_opts o;
	char err[256];

	(void)state;
	assert_int_equal(parse(forced, 4, &o, err), 0);
	assert_true(o.status);
	assert_false(o.quiet);
	bc_record_opts_free(&o);
	assert_int_equal(parse(plain, 3, &o, err), 0);
	assert_false(o.status);
	bc_record_opts_free(&o);
	expect_error(q_then, 5, "-q silences the status line that --status asks for");
	expect_error(then_q, 5, "give one of them");
	assert_non_null(strstr(bc_record_usage, "  --status           the live status line"));
}

/* -f comes from the format registry: each format once, er by default, options too. */
static void formats(void **state)
{
	char *argv[] = {"record",  "-f",    "prf-csv",
			"-f",	   "text",  "-f",
			"prf-csv", "--utc", "--prf-host-ip=10.1.2.3",
			"--",	   "true",  NULL};
	char *none[] = {"record", "--", "true", NULL};
	char *bad[] = {"record", "-f", "xml", "--", "true", NULL};
	char *badopt[] = {"record", "--prf-layout=x", "--", "true", NULL};
	struct bc_record_opts o;
	char err[256], *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	assert_int_equal(parse(argv, 11, &o, err), 0);
	assert_int_equal(o.n_formats, 2);
	assert_string_equal(o.formats[0]->name, "prf-csv");
	assert_string_equal(o.formats[1]->name, "text");
	assert_true(o.fopts.prf.utc);
	assert_string_equal(o.fopts.prf.host_ip, "10.1.2.3");
	bc_record_opts_free(&o);
	assert_int_equal(parse(none, 3, &o, err), 0);
	assert_int_equal(o.n_formats, 1);
	assert_string_equal(o.formats[0]->name, "er");
	bc_record_opts_free(&o);
	expect_error(
		bad, 5,
		"-f takes one of er, prf-csv, prf-dump, text, rtl, chrome, folded, gtf, not 'xml'");
	expect_error(badopt, 4, "hitachi or cosminexus");
	/* --help lists every format of the registry */
	out = open_memstream(&text, &len);
	assert_non_null(out);
	bc_record_help(out);
	assert_int_equal(fclose(out), 0);
	for (size_t i = 0; bc_format_at(i); i++)
		assert_non_null(strstr(text, bc_format_at(i)->name));
	assert_non_null(strstr(text, "--prf-layout"));
	free(text);
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
		cmocka_unit_test(attach_pids),
		cmocka_unit_test(attach_errors),
		cmocka_unit_test(proc_inspect),
		cmocka_unit_test(comm_names),
		cmocka_unit_test(proc_maps),
		cmocka_unit_test(help),
		cmocka_unit_test(status_option),
		cmocka_unit_test(formats),
		cmocka_unit_test(live_set),
		cmocka_unit_test(pid_finished),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
