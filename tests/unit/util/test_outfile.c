// SPDX-License-Identifier: MIT
/*
 * Output files: REPLACE renames over a regular file only on commit and
 * leaves it byte for byte otherwise; it refuses links, directories, FIFOs
 * and anything inside the protected directory; CREATE never replaces.
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
	static char buf[256];
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
	assert_ptr_equal(o.f, stdout);
	assert_int_equal(bc_outfile_commit(&o, err, sizeof(err)), 0);
	assert_int_equal(bc_outfile_open(&o, NULL, BC_OUTFILE_CREATE, NULL, err, sizeof(err)), 0);
	assert_true(o.is_stdout);
	bc_outfile_abort(&o);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
