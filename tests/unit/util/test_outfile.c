// SPDX-License-Identifier: MIT
/*
 * Output files: REPLACE renames over a regular file only on commit and
 * leaves it byte for byte otherwise; it refuses links, directories, FIFOs
 * and anything inside the protected directory; CREATE never replaces. A
 * write that finds no room (a file size limit here, as a full disk) cuts
 * the file back to its last whole record, with the format's end.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/outfile.h"

static char dir[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/bcoutfile.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Entries of dir other than . and .. */
static int entries(void)
{
	char cmd[128];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static void test_replace_commits_or_keeps(void **state)
{
	struct bc_outfile o;
	char path[128], err[256];
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/out.csv", dir);
	put(path, "old\n");
	assert_int_equal(chmod(path, 0640), 0);
	/* aborted: the old file stays, the temporary one goes */
	assert_int_equal(bc_outfile_open(&o, path, BC_OUTFILE_REPLACE, NULL, err, sizeof(err)), 0);
	fputs("half", o.f);
	assert_int_equal(entries(), 2);
	bc_outfile_abort(&o);
	assert_string_equal(slurp(path), "old\n");
	assert_int_equal(entries(), 1);
	/* committed: replaced by a file of its own, 0600 */
	assert_int_equal(bc_outfile_open(&o, path, BC_OUTFILE_REPLACE, NULL, err, sizeof(err)), 0);
	fputs("new\n", o.f);
	assert_string_equal(slurp(path), "old\n");
	assert_int_equal(bc_outfile_commit(&o, err, sizeof(err)), 0);
	bc_outfile_abort(&o); /* after commit: nothing to do */
	assert_string_equal(slurp(path), "new\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(entries(), 1);
}

/*
 * A file planted where convert writes keeps nothing of its own in its
 * replacement: not its mode (set-id and world-writable bits included),
 * not its owner; the new file is 0600 whatever the umask.
 */
static void test_replace_is_new(void **state)
{
	struct bc_outfile o;
	char path[128], err[256];
	struct stat st;
	mode_t old_umask;

	(void)state;
	snprintf(path, sizeof(path), "%s/planted.csv", dir);
	put(path, "planted\n");
	assert_int_equal(chmod(path, 04777), 0);
	if (geteuid() == 0)
		assert_int_equal(chown(path, 65534, 65534), 0);
	old_umask = umask(0277);
	assert_int_equal(bc_outfile_open(&o, path, BC_OUTFILE_REPLACE, NULL, err, sizeof(err)), 0);
	umask(old_umask);
	fputs("trace\n", o.f);
	assert_int_equal(bc_outfile_commit(&o, err, sizeof(err)), 0);
	assert_string_equal(slurp(path), "trace\n");
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(st.st_gid, getegid());
	assert_int_equal(entries(), 1);
}

/* A target that was not there when opened: a file made meanwhile is not replaced. */
static void test_replace_new_target_not_clobbered(void **state)
{
	struct bc_outfile o;
	char path[128], err[512] = "";

	(void)state;
	snprintf(path, sizeof(path), "%s/new.csv", dir);
	assert_int_equal(bc_outfile_open(&o, path, BC_OUTFILE_REPLACE, NULL, err, sizeof(err)), 0);
	fputs("trace\n", o.f);
	put(path, "someone else's\n");
	assert_int_equal(bc_outfile_commit(&o, err, sizeof(err)), -EEXIST);
	if (!strstr(err, "made by something else"))
		fail_msg("error '%s' does not say why", err);
	assert_string_equal(slurp(path), "someone else's\n");
	assert_int_equal(entries(), 1);
}

static void expect_refused(const char *path, enum bc_outfile_mode mode, const char *protect,
			   int want, const char *msg)
{
	struct bc_outfile o;
	char err[512] = "";

	assert_int_equal(bc_outfile_open(&o, path, mode, protect, err, sizeof(err)), want);
	if (!strstr(err, msg))
		fail_msg("error '%s' does not contain '%s'", err, msg);
	assert_null(o.f);
}

static void test_refusals(void **state)
{
	char path[128], link[128], fifo[128], exp[128], inner[160];

	(void)state;
	snprintf(path, sizeof(path), "%s/file", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(exp, sizeof(exp), "%s/t.er", dir);
	snprintf(inner, sizeof(inner), "%s/log.xml", exp);
	put(path, "x");
	assert_int_equal(symlink("file", link), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(mkdir(exp, 0700), 0);
	put(inner, "<log/>");
	expect_refused(link, BC_OUTFILE_REPLACE, NULL, -EEXIST, "is a symbolic link");
	expect_refused(fifo, BC_OUTFILE_REPLACE, NULL, -EEXIST, "is a FIFO");
	expect_refused(exp, BC_OUTFILE_REPLACE, NULL, -EEXIST, "is a directory");
	expect_refused("/dev/null", BC_OUTFILE_REPLACE, NULL, -EEXIST, "is a device");
	expect_refused(inner, BC_OUTFILE_REPLACE, exp, -EINVAL, "inside the experiment");
	expect_refused(path, BC_OUTFILE_CREATE, NULL, -EEXIST, "remove it or pick another -o");
	expect_refused("", BC_OUTFILE_REPLACE, NULL, -EINVAL, "empty output file name");
	expect_refused("/nonexistent-dir/x.csv", BC_OUTFILE_REPLACE, NULL, -ENOENT,
		       "/nonexistent-dir/x.csv");
	assert_string_equal(slurp(path), "x");
	assert_string_equal(slurp(inner), "<log/>");
	assert_true(bc_path_inside(inner, exp));
	assert_false(bc_path_inside(path, exp));
}

static void test_stdout(void **state)
{
	struct bc_outfile o;
	char err[64];

	(void)state;
	assert_int_equal(bc_outfile_open(&o, "-", BC_OUTFILE_REPLACE, NULL, err, sizeof(err)), 0);
	assert_true(o.is_stdout);
	assert_non_null(o.f); /* a stream of its own on descriptor 1, which it leaves open */
	assert_int_equal(bc_outfile_commit(&o, err, sizeof(err)), 0);
	assert_true(fcntl(STDOUT_FILENO, F_GETFD) >= 0);
	assert_int_equal(bc_outfile_open(&o, NULL, BC_OUTFILE_CREATE, NULL, err, sizeof(err)), 0);
	assert_true(o.is_stdout);
	bc_outfile_abort(&o);
}

/* ------------------------------------------------------------ a full disk */

static struct rlimit saved_fsize;

/* Files grow to bytes, no more: a write past it fails with EFBIG, as on a full disk. */
static void limit_files(rlim_t bytes)
{
	struct rlimit lim;

	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved_fsize), 0);
	lim = saved_fsize;
	lim.rlim_cur = bytes;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

static void unlimit_files(void)
{
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved_fsize), 0);
	signal(SIGXFSZ, SIG_DFL);
}

/* Records from up to to: "record NNN\n", 11 bytes each. */
static void put_records(struct bc_outfile *o, int from, int to)
{
	for (int i = from; i < to; i++) {
		fprintf(o->f, "record %03d\n", i);
		bc_outfile_record(o);
	}
}

/* What "record NNN\n" lines from up to to are, after head. */
static char *records_text(const char *head, int from, int to)
{
	static char buf[4096];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "%s", head);

	for (int i = from; i < to; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "record %03d\n", i);
	return buf;
}

static void expect_err(const char *err, const char *want)
{
	if (!strstr(err, want))
		fail_msg("error '%s' does not contain '%s'", err, want);
}

/*
 * A write the file size limit refuses (as a full disk would): the file is
 * cut back to its last whole record; the writer sees no error, and what it
 * writes after is counted; commit says so, with the count.
 */
static void test_cut_whole_lines(void **state)
{
	struct bc_outfile o;
	char path[128], err[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/live.txt", dir);
	assert_int_equal(bc_outfile_open(&o, path, BC_OUTFILE_CREATE, NULL, err, sizeof(err)), 0);
	fputs("header\n", o.f);
	bc_outfile_mark(&o);
	limit_files(100);
	put_records(&o, 0, 50);
	/* 7 + 8 * 11 = 95 bytes are 8 whole records; the ninth is torn at 100 */
	assert_int_equal(fflush(o.f), 0);
	assert_false(ferror(o.f));
	assert_true(bc_outfile_full(&o));
	assert_int_equal(bc_outfile_cut_errno(&o), -EFBIG);
	assert_int_equal(bc_outfile_unwritten(&o), 42);
	put_records(&o, 50, 60);
	assert_int_equal(fflush(o.f), 0);
	assert_int_equal(bc_outfile_unwritten(&o), 52);
	unlimit_files();
	assert_string_equal(slurp(path), records_text("header\n", 0, 8));
	assert_int_equal(bc_outfile_commit(&o, err, sizeof(err)), -EFBIG);
	expect_err(err, "cannot write ");
	expect_err(err, "live.txt: File too large (file size limit); it ends at its last whole "
			"record, and 52 records were not written");
	assert_string_equal(slurp(path), records_text("header\n", 0, 8));
}

/*
 * A format with an end of its own (chrome's "]}"): after the cut, at a
 * record end it fits after (not the last, where it would pass the limit).
 */
static void test_cut_tail(void **state)
{
	struct bc_outfile o;
	char path[128], err[512], want[4200];

	(void)state;
	snprintf(path, sizeof(path), "%s/t.json", dir);
	assert_int_equal(bc_outfile_open(&o, path, BC_OUTFILE_CREATE, NULL, err, sizeof(err)), 0);
	fputs("[\n", o.f);
	bc_outfile_mark(&o);
	bc_outfile_tail(&o, "]\n");
	/* records end at 2 + 11k; at the limit 46 the last end is 46 itself, no room for "]\n" */
	limit_files(46);
	put_records(&o, 0, 10);
	assert_int_equal(fflush(o.f), 0);
	unlimit_files();
	snprintf(want, sizeof(want), "%s]\n", records_text("[\n", 0, 3));
	assert_string_equal(slurp(path), want);
	assert_int_equal(bc_outfile_unwritten(&o), 7);
	assert_int_equal(bc_outfile_commit(&o, err, sizeof(err)), -EFBIG);
	expect_err(err, "it ends at its last whole record, and 7 records were not written");
	assert_string_equal(slurp(path), want);
}

/* Cut before the format began (no tail yet): the file ends where it began, empty. */
static void test_cut_before_begin(void **state)
{
	struct bc_outfile o;
	char path[128], err[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/e.json", dir);
	assert_int_equal(bc_outfile_open(&o, path, BC_OUTFILE_CREATE, NULL, err, sizeof(err)), 0);
	limit_files(4);
	fputs("{\"long head\":[\n", o.f);
	bc_outfile_mark(&o);
	bc_outfile_tail(&o, "]}\n");
	put_records(&o, 0, 3);
	assert_int_equal(fflush(o.f), 0);
	unlimit_files();
	assert_string_equal(slurp(path), "");
	assert_int_equal(bc_outfile_commit(&o, err, sizeof(err)), -EFBIG);
	expect_err(err, "3 records were not written");
}

/* convert: a new target gets the whole records; a file it was to replace stays as it was. */
static void test_cut_replace(void **state)
{
	struct bc_outfile o;
	char path[128], err[512];
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/new.txt", dir);
	assert_int_equal(bc_outfile_open(&o, path, BC_OUTFILE_REPLACE, NULL, err, sizeof(err)), 0);
	limit_files(50);
	put_records(&o, 0, 10);
	assert_int_equal(bc_outfile_commit(&o, err, sizeof(err)), -EFBIG);
	unlimit_files();
	expect_err(err, "it ends at its last whole record, and 6 records were not written");
	assert_string_equal(slurp(path), records_text("", 0, 4));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(entries(), 1);

	snprintf(path, sizeof(path), "%s/old.txt", dir);
	put(path, "the user's own\n");
	assert_int_equal(bc_outfile_open(&o, path, BC_OUTFILE_REPLACE, NULL, err, sizeof(err)), 0);
	limit_files(50);
	put_records(&o, 0, 10);
	assert_int_equal(bc_outfile_commit(&o, err, sizeof(err)), -EFBIG);
	unlimit_files();
	expect_err(err, "old.txt: File too large (file size limit); it is left as it was, not "
			"replaced by a conversion cut short (6 records did not fit)");
	assert_string_equal(slurp(path), "the user's own\n");
	assert_int_equal(entries(), 2);
}

/*
 * Standard output redirected to a file that already holds something (a
 * shell's >>): only what the command wrote is cut, back to a whole record.
 */
static void test_cut_stdout(void **state)
{
	struct bc_outfile o;
	char path[128], err[512];
	int fd, saved;

	(void)state;
	snprintf(path, sizeof(path), "%s/redirected.txt", dir);
	put(path, "the shell's line\n");
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	close(fd);
	assert_int_equal(bc_outfile_open(&o, "-", BC_OUTFILE_CREATE, NULL, err, sizeof(err)), 0);
	limit_files(17 + 30);
	put_records(&o, 0, 10);
	assert_int_equal(bc_outfile_commit(&o, err, sizeof(err)), -EFBIG);
	unlimit_files();
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	expect_err(err, "cannot write standard output: File too large (file size limit); it "
			"ends at its last whole record, and 8 records were not written");
	assert_string_equal(slurp(path), records_text("the shell's line\n", 0, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_replace_commits_or_keeps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replace_is_new, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replace_new_target_not_clobbered, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test(test_stdout),
		cmocka_unit_test_setup_teardown(test_cut_whole_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_tail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_before_begin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_stdout, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
