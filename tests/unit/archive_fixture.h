/* SPDX-License-Identifier: MIT */
/*
 * Archive tests' shared fixture: a program built once per group (with a
 * .symtab and a build id) and a variant, hand-made experiments whose
 * map.xml names objects, and a fresh directory per test.
 */
#ifndef BC_TEST_ARCHIVE_FIXTURE_H
#define BC_TEST_ARCHIVE_FIXTURE_H

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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/archive.h"
#include "bpfcollect/xml.h"

#define LIBC	"/usr/lib/x86_64-linux-gnu/libc.so.6"
#define LIBC_AR "libc.so.6_dnWuQRcLhw9"

/* Built once for the group: a program with a .symtab and a build-id, and a variant. */
static char bin_dir[64];
static char prog[128], prog2[128];

struct fixture {
	char dir[64];
	char exp[128];
};

/* ------------------------------------------------------------ helpers */

static inline int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static inline void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static inline void run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("command failed: %s", cmd);
}

static inline int group_setup(void **state)
{
	char src[128];

	(void)state;
	strcpy(bin_dir, "/tmp/bcarch-bin.XXXXXX");
	if (!mkdtemp(bin_dir))
		return -1;
	snprintf(src, sizeof(src), "%s/prog.c", bin_dir);
	snprintf(prog, sizeof(prog), "%s/prog", bin_dir);
	snprintf(prog2, sizeof(prog2), "%s/prog2", bin_dir);
	put_file(src,
		 "static __attribute__((noinline)) int bc_fix_static(int x) { return x * 7; }\n"
		 "int bc_fix_alpha(int x) { return bc_fix_static(x) + 1; }\n"
		 "int bc_fix_beta(int x) { return bc_fix_alpha(x) * VARIANT; }\n"
		 "int main(int argc, char **argv) { (void)argv; return bc_fix_beta(argc); }\n");
	run("gcc -O1 -fno-inline -DVARIANT=2 -Wl,--build-id=sha1 -o %s %s", prog, src);
	run("gcc -O1 -fno-inline -DVARIANT=3 -Wl,--build-id=sha1 -o %s %s", prog2, src);
	return 0;
}

static inline int group_teardown(void **state)
{
	(void)state;
	rm_tree(bin_dir);
	return 0;
}

/*
 * An experiment DIR/NAME (a founder, or FOUNDER/_f1.er) whose map.xml names
 * objs, mapped at run + 1 ms; the run started run_delta seconds from now.
 */
static inline void make_exp(const char *path, const char *const *objs, size_t n, long run_delta)
{
	char file[640], *esc;
	FILE *f;

	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(file, sizeof(file), "%s/log.xml", path);
	f = fopen(file, "w");
	assert_non_null(f);
	fprintf(f,
		"<experiment version=\"12.4\">\n<collector>test</collector>\n</experiment>\n"
		"<system hostname=\"h\" arch=\"x86_64\" os=\"Linux 6\" pagesz=\"4096\" "
		"npages=\"1\">\n</system>\n<process pid=\"100\"></process>\n"
		"<process wsize=\"64\"></process>\n<process>prog</process>\n"
		"<event kind=\"run\" tstamp=\"1.000000000\" time=\"%ld\" tm_zone=\"0\"/>\n"
		"<event kind=\"exit\" tstamp=\"0.100000000\"/>\n",
		(long)time(NULL) + run_delta);
	assert_int_equal(fclose(f), 0);
	snprintf(file, sizeof(file), "%s/map.xml", path);
	f = fopen(file, "w");
	assert_non_null(f);
	for (size_t i = 0; i < n; i++) {
		esc = bc_xml_escape_dup(objs[i]);
		assert_non_null(esc);
		fprintf(f,
			"<event kind=\"map\" object=\"segment\" tstamp=\"0.001000000\" "
			"vaddr=\"0x%016llX\" size=\"4096\" pagesz=\"4096\" foffset=\"+0x00001000\" "
			"modes=\"0x005\" chksum=\"0x0\" name=\"%s\"/>\n",
			0x555500000000ULL + 0x100000ULL * i, esc);
		free(esc);
	}
	assert_int_equal(fclose(f), 0);
}

static inline int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	strcpy(fx->dir, "/tmp/bcarch.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(fx->exp, sizeof(fx->exp), "%s/t.er", fx->dir);
	*state = fx;
	return 0;
}

static inline int teardown(void **state)
{
	struct fixture *fx = *state;

	rm_tree(fx->dir);
	free(fx);
	return 0;
}

static inline bool same_file(const char *a, const char *b)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

static inline void archived_path(const struct fixture *fx, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/archives/%s", fx->exp, name);
}

static inline bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Entries of archives/ whose name starts with a dot: temp files left behind. */
static inline int count_temp_files(const struct fixture *fx)
{
	char cmd[256], line[512];
	int n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A '%s/archives' 2>/dev/null", fx->exp);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		n += line[0] == '.';
	pclose(p);
	return n;
}

#endif
