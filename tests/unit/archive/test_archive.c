// SPDX-License-Identifier: MIT
/*
 * Archives and notes: gprofng's archive names (the values gprofng and
 * gp-archive 2.40 produce), archiving hand-made experiments that name a
 * program built here and the system libc, the symbol index checked against
 * nm and readelf, running twice, objects that cannot be archived, a full
 * disk and damaged indexes. gprofng itself reads the result. Notes are
 * tested in test_notes.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "archive_fixture.h"

/* Checks functions of the index against `nm -S --defined-only [-D]` (value and size). */
static void check_against_nm(const struct bc_archive_syms *s, const char *elf, bool dynamic,
			     const char *const *names, size_t n)
{
	char cmd[512], line[1024], sym[512];
	unsigned long long value, size;
	size_t found = 0;
	char type;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %s '%s'", dynamic ? "-D" : "", elf);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		const struct bc_archive_sym *got;
		char *at;

		if (sscanf(line, "%llx %llx %c %511s", &value, &size, &type, sym) != 4)
			continue;
		at = strchr(sym, '@'); /* nm -D spells versions: malloc@@GLIBC_2.2.5 */
		if (at)
			*at = '\0';
		for (size_t i = 0; i < n; i++) {
			if (strcmp(sym, names[i]))
				continue;
			got = bc_archive_syms_find(s, value);
			assert_non_null(got);
			assert_int_equal(got->value, value);
			assert_int_equal(got->size, size);
			/* an alias at the same value may be the one found: look for the name */
			for (size_t j = 0; j < s->nsyms; j++)
				if (!strcmp(s->syms[j].name, names[i]) && s->syms[j].value == value)
					found |= 1u << i;
			/* inside the function, the same function */
			if (size > 1)
				assert_int_equal(bc_archive_syms_find(s, value + size - 1)->value,
						 value);
		}
	}
	pclose(p);
	assert_int_equal(found, (1u << n) - 1);
}

static void build_id_of(const char *elf, char *out, size_t len)
{
	char cmd[512], line[512];
	FILE *p;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", elf);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		char *id = strstr(line, "Build ID: ");

		if (id)
			snprintf(out, len, "%.*s", (int)strcspn(id + 10, "\n"), id + 10);
	}
	pclose(p);
	assert_true(out[0]);
}

/* ------------------------------------------------------------ names */

static void name_of(const char *path, char name[BC_ARCHIVE_NAME_MAX])
{
	assert_true(bc_archive_name(path, name, BC_ARCHIVE_NAME_MAX) > 0);
}

static void check_name(const char *path, const char *want)
{
	char name[BC_ARCHIVE_NAME_MAX];

	assert_int_equal(bc_archive_name(path, name, sizeof(name)), (int)strlen(want));
	assert_string_equal(name, want);
}

static void test_names(void **state)
{
	char path[600], want[300], name[BC_ARCHIVE_NAME_MAX], idx[BC_ARCHIVE_NAME_MAX];
	char hash[BC_ARCHIVE_HASH_LEN + 1];

	(void)state;
	/* the two values of gprofng-format.md section 8 */
	check_name("/tmp/gp/cpu", "cpu_IqLLTLOwCY6");
	check_name(LIBC, LIBC_AR);
	/* what gp-archive 2.40 named: same directory, same hash; none: "./" */
	check_name("/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
		   "ld-linux-x86-64.so.2_dnWuQRcLhw9");
	check_name("/work/main/build/demo/bcdemo", "bcdemo_nwdEnT1tUTa");
	check_name("/tmp/gpa/short", "short_0vkxYu_a3q2");
	check_name("relname", "relname_dbrs1000000");
	check_name("./relname", "relname_dbrs1000000");
	assert_string_equal(bc_archive_hash_string(hash, 0), "00000000000");
	assert_string_equal(bc_archive_hash_string(hash, UINT64_MAX), "__________f");

	/* 243 bytes: kept; 250 bytes: cut to 231, then the dir and the name hash (gp-archive) */
	snprintf(path, sizeof(path), "/tmp/gpa/%0243d", 0);
	snprintf(want, sizeof(want), "%0243d_0vkxYu_a3q2", 0);
	check_name(path, want);
	memset(path, 0, sizeof(path));
	memcpy(path, "/tmp/gpa/", 9);
	memset(path + 9, 'L', 250);
	memset(want, 0, sizeof(want));
	memset(want, 'L', 231);
	strcat(want, "_0vkxYu_a3q2_2OjxAQnvB-3");
	check_name(path, want);
	assert_int_equal(strlen(want), 255);
	/* its index name fits in NAME_MAX too */
	assert_int_equal(bc_archive_index_name(want, idx, sizeof(idx)), 0);
	assert_int_equal(strlen(idx), 255);
	assert_non_null(strstr(idx, BC_ARCHIVE_INDEX_SUFFIX));
	assert_int_equal(bc_archive_index_name(LIBC_AR, idx, sizeof(idx)), 0);
	assert_string_equal(idx, LIBC_AR ".bcsyms.gz");

	assert_int_equal(bc_archive_name("/tmp/", name, sizeof(name)), -EINVAL);
	assert_int_equal(bc_archive_name(LIBC, name, 10), -ENAMETOOLONG);
}

/* ------------------------------------------------------------ archiving */

static void test_archive(void **state)
{
	struct fixture *fx = *state;
	const char *objs[] = {prog, LIBC, prog, LIBC}; /* mapped twice: archived once */
	const char *prog_funcs[] = {"bc_fix_alpha", "bc_fix_beta", "bc_fix_static", "main"};
	const char *libc_funcs[] = {"malloc", "getpid", "write", "abort"};
	char sub[200], path[512], copy[512], err[512], id[200], cmd[300], line[512];
	char name[BC_ARCHIVE_NAME_MAX];
	struct bc_archive_report rep;
	struct bc_archive_syms *s;
	struct stat a, b;
	uint64_t v;
	bool no_errors = false;
	FILE *p;

	make_exp(fx->exp, objs, 4, 5);
	snprintf(sub, sizeof(sub), "%s/_f1.er", fx->exp);
	make_exp(sub, (const char *[]){prog2}, 1, 5);

	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.experiments, 2);
	assert_int_equal(rep.objects, 3);
	assert_int_equal(rep.copied, 3);
	assert_int_equal(rep.present, 0);
	assert_int_equal(rep.indexed, 3);
	assert_int_equal(rep.skipped, 0);
	assert_null(rep.notes);
	bc_archive_report_free(&rep);

	/* byte-identical copies under gprofng's names, with the original's mtime */
	archived_path(fx, LIBC_AR, path, sizeof(path));
	assert_true(same_file(path, LIBC));
	name_of(prog, name);
	archived_path(fx, name, path, sizeof(path));
	assert_true(same_file(path, prog));
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(stat(prog, &b), 0);
	assert_int_equal(a.st_mtim.tv_sec, b.st_mtim.tv_sec);
	assert_int_equal(a.st_mtim.tv_nsec, b.st_mtim.tv_nsec);
	/* the subexperiment's object went into the founder's archives/ */
	name_of(prog2, name);
	archived_path(fx, name, path, sizeof(path));
	assert_true(same_file(path, prog2));
	snprintf(path, sizeof(path), "%s/archives", sub);
	assert_false(exists(path));
	assert_int_equal(count_temp_files(fx), 0);

	/* the index: path, build-id, size, functions with nm's values and sizes */
	assert_int_equal(bc_archive_lookup(fx->exp, prog, copy, sizeof(copy), &s, err, sizeof(err)),
			 0);
	name_of(prog, name);
	archived_path(fx, name, path, sizeof(path));
	assert_string_equal(copy, path);
	assert_non_null(s);
	assert_string_equal(s->path, prog);
	build_id_of(prog, id, sizeof(id));
	assert_string_equal(s->build_id, id);
	assert_int_equal(s->size, b.st_size);
	assert_int_equal(s->mtime_ns, b.st_mtim.tv_sec * 1000000000LL + b.st_mtim.tv_nsec);
	assert_false(s->from_dynsym);
	check_against_nm(s, prog, false, prog_funcs, 4);
	/* file offset -> value through the PT_LOADs: the text segment of a PIE maps 1:1 */
	assert_true(bc_archive_syms_offset_to_value(s, 0x1000, &v));
	assert_int_equal(v, 0x1000);
	assert_false(bc_archive_syms_offset_to_value(s, 1ULL << 40, &v));
	bc_archive_syms_free(s);

	/* libc: stripped, .dynsym only; looked up through the subexperiment too */
	assert_int_equal(bc_archive_lookup(sub, LIBC, copy, sizeof(copy), &s, err, sizeof(err)), 0);
	archived_path(fx, LIBC_AR, path, sizeof(path));
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(stat(copy, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	assert_non_null(s);
	build_id_of(LIBC, id, sizeof(id));
	assert_string_equal(s->build_id, id);
	assert_true(s->from_dynsym);
	check_against_nm(s, LIBC, true, libc_funcs, 4);
	bc_archive_syms_free(s);

	/* nothing archived for that one; only the copy asked for */
	assert_int_equal(bc_archive_lookup(fx->exp, "/usr/bin/true", copy, sizeof(copy), NULL, err,
					   sizeof(err)),
			 -ENOENT);
	assert_string_equal(copy, "");
	assert_int_equal(
		bc_archive_lookup(fx->exp, LIBC, copy, sizeof(copy), NULL, err, sizeof(err)), 0);
	assert_string_equal(copy, path);

	/* gprofng reads it without complaint */
	snprintf(cmd, sizeof(cmd), "gprofng display text -header '%s' 2>&1", fx->exp);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, "Warning") || strstr(line, "rror:"))
			fail_msg("gprofng: %s", line);
		no_errors |= !strcmp(line, "No errors\n");
	}
	assert_int_equal(pclose(p), 0);
	assert_true(no_errors);
}

static void test_twice(void **state)
{
	struct fixture *fx = *state;
	const char *objs[] = {prog, LIBC};
	char name[BC_ARCHIVE_NAME_MAX], path[512], idx[600], err[512];
	struct bc_archive_report rep;
	struct timespec old[2] = {{.tv_sec = 1000000}, {.tv_sec = 1000000}};
	struct stat a, b;

	make_exp(fx->exp, objs, 2, 5);
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.copied, 2);
	bc_archive_report_free(&rep);
	archived_path(fx, LIBC_AR, path, sizeof(path));
	assert_int_equal(stat(path, &a), 0);

	/* again: same size and mtime, nothing copied or indexed, the copy untouched */
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.copied, 0);
	assert_int_equal(rep.present, 2);
	assert_int_equal(rep.indexed, 0);
	assert_int_equal(rep.skipped, 0);
	bc_archive_report_free(&rep);
	assert_int_equal(stat(path, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);

	/* a copy with another mtime (gp-archive keeps whole seconds) but the same bytes: kept */
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	/* and an index gone: written again */
	snprintf(idx, sizeof(idx), "%s.bcsyms.gz", path);
	assert_int_equal(unlink(idx), 0);
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.copied, 0);
	assert_int_equal(rep.present, 2);
	assert_int_equal(rep.indexed, 1);
	bc_archive_report_free(&rep);
	assert_int_equal(stat(path, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	assert_true(exists(idx));

	/* a different ELF file under the name (rebuilt since): kept, reported */
	name_of(prog, name);
	archived_path(fx, name, path, sizeof(path));
	run("cp '%s' '%s'", prog2, path);
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.skipped, 1);
	assert_int_equal(rep.by_reason[BC_ARCHIVE_SKIP_CONFLICT], 1);
	assert_string_equal(rep.first_skipped[BC_ARCHIVE_SKIP_CONFLICT], prog);
	bc_archive_report_free(&rep);
	assert_true(same_file(path, prog2));

	/* a non-ELF file under the name breaks gprofng: replaced */
	put_file(path, "garbage\n");
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.copied, 1);
	assert_int_equal(rep.indexed, 1);
	assert_non_null(strstr(rep.notes, "was not an ELF file (it breaks gprofng); replaced"));
	bc_archive_report_free(&rep);
	assert_true(same_file(path, prog));
	assert_int_equal(count_temp_files(fx), 0);
}

static void test_skipped(void **state)
{
	struct fixture *fx = *state;
	char text[200], dir[200], gone[200], late[200], future_f[200], name[BC_ARCHIVE_NAME_MAX];
	char path[512], err[512];
	struct timespec future[2] = {{.tv_sec = time(NULL) + 3600}, {.tv_sec = time(NULL) + 3600}};
	struct bc_archive_report rep;
	FILE *f;

	snprintf(text, sizeof(text), "%s/script.sh", fx->dir);
	put_file(text, "#!/bin/sh\necho hi\n");
	snprintf(dir, sizeof(dir), "%s/adir", fx->dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(gone, sizeof(gone), "%s/gone.so", fx->dir);
	snprintf(late, sizeof(late), "%s/late", fx->dir);
	run("cp '%s' '%s'", prog, late);
	/* only an mtime in the future (a clock-skewed tarball): ctime says it was there */
	snprintf(future_f, sizeof(future_f), "%s/future", fx->dir);
	run("cp '%s' '%s'", prog2, future_f);
	assert_int_equal(utimensat(AT_FDCWD, future_f, future, 0), 0);
	{
		const char *objs[] = {text, dir,	   gone,     future_f,
				      LIBC, "LinuxKernel", "[vdso]", "<DYNAMIC_FUNCTIONS>"};

		make_exp(fx->exp, objs, 8, 5);
	}
	/* a subexperiment that ran 100 s ago mapped late, which was written since */
	snprintf(path, sizeof(path), "%s/_f1.er", fx->exp);
	make_exp(path, (const char *[]){late}, 1, -100);
	/* not r-x (gprofng makes no object of it), and a torn last line of a live writer */
	snprintf(path, sizeof(path), "%s/map.xml", fx->exp);
	f = fopen(path, "a");
	assert_non_null(f);
	fprintf(f,
		"<event kind=\"map\" object=\"segment\" tstamp=\"0.001000000\" vaddr=\"0x1000\" "
		"size=\"4096\" foffset=\"+0x0\" modes=\"0x003\" name=\"%s\"/>\n"
		"<event kind=\"map\" object=\"segment\" name=\"%s\"",
		prog, prog2);
	assert_int_equal(fclose(f), 0);

	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.objects, 6);
	assert_int_equal(rep.copied, 2);
	assert_int_equal(rep.skipped, 4);
	assert_int_equal(rep.by_reason[BC_ARCHIVE_SKIP_MISSING], 1);
	assert_int_equal(rep.by_reason[BC_ARCHIVE_SKIP_NOT_ELF], 1);
	assert_int_equal(rep.by_reason[BC_ARCHIVE_SKIP_UNREADABLE], 1);
	assert_int_equal(rep.by_reason[BC_ARCHIVE_SKIP_CHANGED], 1);
	assert_string_equal(rep.first_skipped[BC_ARCHIVE_SKIP_MISSING], gone);
	assert_string_equal(rep.first_skipped[BC_ARCHIVE_SKIP_NOT_ELF], text);
	assert_string_equal(rep.first_skipped[BC_ARCHIVE_SKIP_UNREADABLE], dir);
	assert_string_equal(rep.first_skipped[BC_ARCHIVE_SKIP_CHANGED], late);
	assert_non_null(strstr(rep.notes, "No such file or directory"));
	assert_non_null(strstr(rep.notes, "modified after the experiment mapped it"));
	bc_archive_report_free(&rep);
	const char *none[] = {text, gone, late, prog, prog2};
	for (size_t i = 0; i < 5; i++) {
		name_of(none[i], name);
		archived_path(fx, name, path, sizeof(path));
		assert_false(exists(path));
	}

	/* archived, then gone: the copy stays and counts */
	run("cp '%s' '%s'", prog, gone);
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.copied, 1);
	bc_archive_report_free(&rep);
	assert_int_equal(unlink(gone), 0);
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.copied, 0);
	assert_int_equal(rep.present, 3); /* libc, future, gone */
	assert_int_equal(rep.by_reason[BC_ARCHIVE_SKIP_MISSING], 0);
	bc_archive_report_free(&rep);
}

static void test_not_experiment(void **state)
{
	struct fixture *fx = *state;
	char path[300], err[512];
	struct bc_archive_report rep;

	assert_int_equal(bc_archive_experiment("/nonexistent/x.er", &rep, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent/x.er: No such file or directory");
	bc_archive_report_free(&rep);
	assert_int_equal(bc_archive_experiment(fx->dir, &rep, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an experiment (name does not end in .er)"));
	bc_archive_report_free(&rep);
	assert_int_equal(mkdir(fx->exp, 0755), 0);
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an experiment (no log.xml)"));
	bc_archive_report_free(&rep);
	snprintf(path, sizeof(path), "%s/file.er", fx->dir);
	put_file(path, "x");
	assert_int_equal(bc_archive_experiment(path, &rep, err, sizeof(err)), -ENOTDIR);
	assert_non_null(strstr(err, "not an experiment (not a directory)"));
	bc_archive_report_free(&rep);
}

static void test_subexperiment_path(void **state)
{
	struct fixture *fx = *state;
	char sub[200], path[512], err[512];
	struct bc_archive_report rep;

	make_exp(fx->exp, (const char *[]){LIBC}, 1, 5);
	snprintf(sub, sizeof(sub), "%s/_f1.er/", fx->exp);
	make_exp(sub, (const char *[]){prog}, 1, 5);
	/* given the subexperiment: the founder's archives/, the whole founder */
	assert_int_equal(bc_archive_experiment(sub, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.copied, 2);
	bc_archive_report_free(&rep);
	archived_path(fx, LIBC_AR, path, sizeof(path));
	assert_true(exists(path));
	assert_int_equal(bc_archive_founder(sub, path, sizeof(path)), 0);
	assert_non_null(strstr(path, "/t.er"));
	assert_string_equal(strstr(path, "/t.er"), "/t.er");
}

static void test_disk_full(void **state)
{
	struct fixture *fx = *state;
	struct bc_archive_report rep;
	struct rlimit old, lim;
	char path[512], err[512];
	int ret;

	make_exp(fx->exp, (const char *[]){LIBC}, 1, 5);
	/* RLIMIT_FSIZE stops write() part-way, like a full disk (EFBIG, not ENOSPC) */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 100000;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ret = bc_archive_experiment(fx->exp, &rep, err, sizeof(err));
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(ret, -EFBIG);
	assert_non_null(strstr(err, "cannot write "));
	assert_non_null(strstr(err, LIBC_AR ": File too large"));
	bc_archive_report_free(&rep);
	/* no half copy under the final name, no temp file left */
	archived_path(fx, LIBC_AR, path, sizeof(path));
	assert_false(exists(path));
	assert_int_equal(count_temp_files(fx), 0);
	/* room again: it completes */
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.copied, 1);
	bc_archive_report_free(&rep);
	assert_true(same_file(path, LIBC));
}

/* ------------------------------------------------------------ the index */

static void put_gz(const char *path, const char *text, size_t len)
{
	gzFile gz = gzopen(path, "wb");

	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, text, (unsigned int)len), (int)len);
	assert_int_equal(gzclose(gz), Z_OK);
}

static void test_index(void **state)
{
	struct fixture *fx = *state;
	const char *odd = "/odd\tdir\n\\x/pr\x01og";
	char idx[300], err[512], *text;
	struct bc_archive_syms *s;
	gzFile gz;
	int len;
	static const char *const bad[] = {
		"nonsense\n",
		"bcsyms 1\npath\t/a\nbuild_id\t\nsize\t1\nmtime\t0.000000000\n", /* no end */
		"bcsyms 1\npath\t/a\nbuild_id\t\nfunc\t0x10\t5\tf\nend\t2\n",	 /* count */
		"bcsyms 1\npath\t/a\nbuild_id\tXYZ\nend\t0\n",			 /* build-id */
		"bcsyms 1\npath\t/a\nbuild_id\t\nfunc\t0x10\t-5\tf\nend\t1\n",	 /* size */
		"bcsyms 1\npath\t/a\nbuild_id\t\nfunc\tzz\t5\tf\nend\t1\n",	 /* value */
		"bcsyms 1\npath\t/a\\q\nbuild_id\t\nend\t0\n",			 /* escape */
		"bcsyms 1\npath\t/a\nbuild_id\t\nmtime\t12\nend\t0\n",		 /* mtime */
		"bcsyms 1\nbuild_id\t\nend\t0\n",				 /* no path */
		"bcsyms 1\npath\t/a\nbuild_id\t\nend\t0",			 /* torn line */
	};

	/* any byte but NUL survives in paths */
	snprintf(idx, sizeof(idx), "%s/i.bcsyms.gz", fx->dir);
	assert_int_equal(bc_archive_index_write(prog, AT_FDCWD, idx, odd, 7, 1500000000123456789LL,
						err, sizeof(err)),
			 0);
	assert_int_equal(bc_archive_syms_load(idx, &s, err, sizeof(err)), 0);
	assert_string_equal(s->path, odd);
	assert_int_equal(s->size, 7);
	assert_int_equal(s->mtime_ns, 1500000000123456789LL);
	assert_true(s->nsyms >= 4);
	for (size_t i = 1; i < s->nsyms; i++)
		assert_true(s->syms[i - 1].value <= s->syms[i].value);
	assert_null(bc_archive_syms_find(s, 0));
	bc_archive_syms_free(s);

	/* a newer writer's keys are ignored */
	put_gz(idx,
	       "bcsyms 1\npath\t/a\nbuild_id\tab12\nnewkey\tx\ty\nfunc\t0x20\t0\tg\n"
	       "func\t0x10\t16\tf\nend\t2\n",
	       78);
	assert_int_equal(bc_archive_syms_load(idx, &s, err, sizeof(err)), 0);
	assert_int_equal(s->nsyms, 2);
	assert_string_equal(bc_archive_syms_find(s, 0x1f)->name, "f");
	assert_string_equal(bc_archive_syms_find(s, 0x20)->name, "g");
	assert_null(bc_archive_syms_find(s, 0x21));
	bc_archive_syms_free(s);

	/* damage: one error line, never a crash */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put_gz(idx, bad[i], strlen(bad[i]));
		assert_int_equal(bc_archive_syms_load(idx, &s, err, sizeof(err)), -EBADMSG);
		assert_null(s);
		assert_non_null(strstr(err, "not a valid bpfcollect symbol index"));
	}
	/* a truncated gzip stream, and a line longer than any index writes */
	assert_int_equal(bc_archive_index_write(LIBC, AT_FDCWD, idx, LIBC, 1, 0, err, sizeof(err)),
			 0);
	run("head -c 3000 '%s' > '%s.cut' && mv '%s.cut' '%s'", idx, idx, idx, idx);
	assert_int_equal(bc_archive_syms_load(idx, &s, err, sizeof(err)), -EBADMSG);
	text = malloc(200000);
	assert_non_null(text);
	len = snprintf(text, 200000, "bcsyms 1\npath\t/");
	memset(text + len, 'a', 150000);
	strcpy(text + len + 150000, "\nbuild_id\t\nend\t0\n");
	gz = gzopen(idx, "wb");
	assert_non_null(gz);
	assert_true(gzputs(gz, text) > 0);
	gzclose(gz);
	free(text);
	assert_int_equal(bc_archive_syms_load(idx, &s, err, sizeof(err)), -EBADMSG);
	/* missing; and not ELF */
	assert_int_equal(bc_archive_syms_load("/nonexistent.gz", &s, err, sizeof(err)), -ENOENT);
	snprintf(idx, sizeof(idx), "%s/text", fx->dir);
	put_file(idx, "just text\n");
	assert_int_equal(bc_archive_index_write(idx, AT_FDCWD, "/nonexistent/i.gz", "/x", 1, 0, err,
						sizeof(err)),
			 -ENOEXEC);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		T(test_archive),
		T(test_twice),
		T(test_skipped),
		T(test_not_experiment),
		T(test_subexperiment_path),
		T(test_disk_full),
		T(test_index),
	};

	return cmocka_run_group_tests_name("archive", tests, group_setup, group_teardown);
}
