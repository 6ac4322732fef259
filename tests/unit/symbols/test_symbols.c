// SPDX-License-Identifier: MIT
/*
 * Symbol resolution against ELF fixtures built by tests/unit/symbols.mk: a
 * PIE and a non-PIE executable, a shared library linked away from address 0,
 * stripped copies, files that are not probe-able. Expected names are spelled
 * out; expected addresses and file offsets come from readelf's output saved
 * next to each fixture, never from the code under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/elf_symbols.h"
#include "bpfcollect/model.h"
#include "bpfcollect/symbols.h"

#define FIX(name) FIXTURE_DIR "/" name
#define PIE	  FIX("symfix_pie")
#define NOPIE	  FIX("symfix_nopie")
#define STRIPPED  FIX("symfix_stripped")
#define LIB	  FIX("libsymfix.so.1")
#define LIB_STRIP FIX("libsymfix-stripped.so")
#define NOTELF	  FIX("notelf.txt")
#define OBJFILE	  FIX("symfix_obj.o")

/* ------------------------------------------------------ readelf's view */

struct rsym {
	char name[256]; /* without @VERSION */
	char type[16];
	char ndx[16];
	uint64_t value;
	uint64_t size;
	bool symtab; /* from .symtab, else .dynsym */
};

struct rseg {
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
	bool exec;
};

struct readelf {
	struct rsym *syms;
	size_t nsyms;
	struct rseg segs[64];
	size_t nsegs;
	bool has_symtab;
};

static FILE *open_fixture_text(const char *elf, const char *suffix)
{
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s%s", elf, suffix);
	fp = fopen(path, "r");
	if (!fp)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	return fp;
}

/* Reads the .syms (readelf -sW) and .segs (readelf -lW) files of fixture elf. */
static void readelf_load(struct readelf *r, const char *elf)
{
	char line[1024];
	bool in_symtab = false;
	FILE *fp;

	memset(r, 0, sizeof(*r));
	fp = open_fixture_text(elf, ".syms");
	while (fgets(line, sizeof(line), fp)) {
		char size[32], bind[16], vis[16];
		struct rsym s = {0};
		char *at;

		if (!strncmp(line, "Symbol table '", 14)) {
			in_symtab = !strncmp(line + 14, ".symtab'", 8);
			r->has_symtab |= in_symtab;
			continue;
		}
		if (sscanf(line, " %*u: %" SCNx64 " %31s %15s %15s %15s %15s %255s", &s.value, size,
			   s.type, bind, vis, s.ndx, s.name) < 6)
			continue;
		s.size = strtoull(size, NULL, 0);
		s.symtab = in_symtab;
		at = strchr(s.name, '@');
		if (at)
			*at = '\0';
		r->syms = realloc(r->syms, (r->nsyms + 1) * sizeof(*r->syms));
		assert_non_null(r->syms);
		r->syms[r->nsyms++] = s;
	}
	fclose(fp);

	fp = open_fixture_text(elf, ".segs");
	while (fgets(line, sizeof(line), fp)) {
		struct rseg *g = &r->segs[r->nsegs];
		uint64_t memsz;
		int end = 0;

		if (sscanf(line, " LOAD %" SCNx64 " %" SCNx64 " %*x %" SCNx64 " %" SCNx64 " %n",
			   &g->offset, &g->vaddr, &g->filesz, &memsz, &end) < 4 ||
		    !end)
			continue;
		/* Flags "R E" come before the alignment, which readelf prints as 0x... */
		g->exec = strchr(line + end, 'E') != NULL;
		assert_true(++r->nsegs < sizeof(r->segs) / sizeof(r->segs[0]));
	}
	fclose(fp);
	assert_true(r->nsegs > 0);
}

static void readelf_free(struct readelf *r)
{
	free(r->syms);
	memset(r, 0, sizeof(*r));
}

/* Whether readelf lists a defined function (any type) called name. */
static bool readelf_has(const struct readelf *r, const char *name, const char *type)
{
	for (size_t i = 0; i < r->nsyms; i++)
		if (!strcmp(r->syms[i].name, name) && !strcmp(r->syms[i].type, type) &&
		    strcmp(r->syms[i].ndx, "UND"))
			return true;
	return false;
}

/* The file offset of a link-time address: inside an executable LOAD segment. */
static bool readelf_offset(const struct readelf *r, uint64_t addr, uint64_t *offset)
{
	for (size_t i = 0; i < r->nsegs; i++) {
		const struct rseg *g = &r->segs[i];

		if (g->exec && addr >= g->vaddr && addr < g->vaddr + g->filesz) {
			*offset = addr - g->vaddr + g->offset;
			return true;
		}
	}
	return false;
}

/*
 * Checks entry f against readelf: a FUNC of that name in the table the
 * resolver should read (.symtab when present) has its address and size, and
 * its offset is what the LOAD segments say.
 */
static void check_against_readelf(const struct readelf *r, const struct bc_func *f)
{
	for (size_t i = 0; i < r->nsyms; i++) {
		const struct rsym *s = &r->syms[i];
		uint64_t offset;

		if (s->symtab != r->has_symtab || strcmp(s->name, f->name) ||
		    strcmp(s->type, "FUNC") || s->value != f->addr)
			continue;
		assert_true(readelf_offset(r, s->value, &offset));
		assert_int_equal(f->offset, offset);
		assert_int_equal(f->size, s->size);
		return;
	}
	fail_msg("%s at 0x%" PRIx64 " is not a function readelf knows", f->name, f->addr);
}

static void check_all_against_readelf(const struct bc_functab *t, const char *elf)
{
	char canon[PATH_MAX];
	struct readelf r;

	assert_non_null(realpath(elf, canon));
	readelf_load(&r, elf);
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->v[i].object, canon))
			continue;
		assert_int_equal(t->v[i].id, i);
		check_against_readelf(&r, &t->v[i]);
	}
	readelf_free(&r);
}

/* ------------------------------------------------------------- helpers */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The table's names, sorted and joined with ',': one readable string to compare. */
static char *joined_names(const struct bc_functab *t)
{
	char **names = calloc(t->n + 1, sizeof(*names));
	size_t len = 1;
	char *out;

	assert_non_null(names);
	for (size_t i = 0; i < t->n; i++) {
		names[i] = t->v[i].name;
		len += strlen(names[i]) + 1;
	}
	qsort(names, t->n, sizeof(*names), cmp_str);
	out = calloc(1, len);
	assert_non_null(out);
	for (size_t i = 0; i < t->n; i++) {
		if (i)
			strcat(out, ",");
		strcat(out, names[i]);
	}
	free(names);
	return out;
}

static void assert_names(const struct bc_functab *t, const char *expected)
{
	char *names = joined_names(t);

	assert_string_equal(names, expected);
	free(names);
}

static const struct bc_func *find_func(const struct bc_functab *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return &t->v[i];
	return NULL;
}

static void assert_one_line(const char *err)
{
	assert_true(err[0] != '\0');
	assert_null(strchr(err, '\n'));
}

/* Resolves specs into a fresh table that the caller frees; returns the result. */
static int resolve(const char *exe, int pid, const char *const *specs, size_t nspecs,
		   struct bc_functab *t, char *err, size_t errlen)
{
	bc_functab_init(t);
	return bc_symbols_resolve(exe, pid, specs, nspecs, t, err, errlen);
}

static void canonical(const char *path, char *out)
{
	if (!realpath(path, out))
		fail_msg("realpath %s: %s", path, strerror(errno));
}

static void read_text(const char *path, char *out, size_t outlen)
{
	FILE *fp = fopen(path, "r");

	assert_non_null(fp);
	assert_non_null(fgets(out, (int)outlen, fp));
	out[strcspn(out, "\n")] = '\0';
	fclose(fp);
}

/* ---------------------------------------------------------- elf_check */

static void test_elf_check_accepts(void **state)
{
	const char *ok[] = {PIE, NOPIE, STRIPPED, LIB, LIB_STRIP};
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(bc_elf_check(ok[i], err, sizeof(err)), 0);
		assert_string_equal(err, "");
	}
}

static char tmpdir[64];

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_symbols.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void *read_file(const char *path, size_t *len)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc((size_t)st.st_size);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return buf;
}

static void write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static void test_elf_check_rejects(void **state)
{
	char err[1024], expect[PATH_MAX + 64], path[PATH_MAX];
	unsigned char *elf;
	size_t len;

	(void)state;
	assert_int_equal(bc_elf_check(NOTELF, err, sizeof(err)), -ENOEXEC);
	assert_string_equal(err, NOTELF ": not an ELF file");

	assert_int_equal(bc_elf_check(OBJFILE, err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "relocatable object"));
	assert_one_line(err);

	assert_int_equal(bc_elf_check(FIX("no-such-file"), err, sizeof(err)), -ENOENT);
	assert_string_equal(err, FIX("no-such-file") ": No such file or directory");

	assert_int_equal(bc_elf_check(FIXTURE_DIR, err, sizeof(err)), -EISDIR);
	assert_one_line(err);

	/* err may be NULL: callers that only want the verdict. */
	assert_int_equal(bc_elf_check(NOTELF, NULL, 0), -ENOEXEC);

	/* A 32-bit file and one for another machine, made from the PIE. */
	elf = read_file(PIE, &len);
	elf[4] = 1; /* EI_CLASS = ELFCLASS32 */
	snprintf(path, sizeof(path), "%s/elf32", tmpdir);
	write_file(path, elf, len);
	assert_int_equal(bc_elf_check(path, err, sizeof(err)), -ENOEXEC);
	snprintf(expect, sizeof(expect), "%s: a 32-bit ELF file", path);
	assert_memory_equal(err, expect, strlen(expect));

	elf[4] = 2;
	elf[18] = 183; /* e_machine = EM_AARCH64 */
	elf[19] = 0;
	snprintf(path, sizeof(path), "%s/aarch64", tmpdir);
	write_file(path, elf, len);
	assert_int_equal(bc_elf_check(path, err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "another machine (e_machine 183)"));

	/* Scripts and linker scripts are named as such. */
	snprintf(path, sizeof(path), "%s/script.sh", tmpdir);
	write_file(path, "#!/bin/sh\necho hi\n", 18);
	assert_int_equal(bc_elf_check(path, err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "'#!' script"));
	snprintf(path, sizeof(path), "%s/libfoo.so", tmpdir);
	write_file(path, "/* GNU ld script */\nGROUP ( libfoo.so.1 )\n", 42);
	assert_int_equal(bc_elf_check(path, err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "linker script"));
	free(elf);
}

/* --------------------------------------------------------- executables */

static void test_pie_glob(void **state)
{
	const char *specs[] = {"fix_*"};
	struct bc_functab t;
	char err[1024], canon[PATH_MAX];
	struct readelf r;

	(void)state;
	assert_int_equal(resolve(PIE, 0, specs, 1, &t, err, sizeof(err)), 0);
	/*
	 * fix_checked.cold is no entry point; a label and a data object in
	 * .text are no functions; the zero-size assembly function is one.
	 */
	readelf_load(&r, PIE);
	assert_true(readelf_has(&r, "fix_checked.cold", "FUNC"));
	assert_true(readelf_has(&r, "fix_asm_label", "NOTYPE"));
	assert_true(readelf_has(&r, "fix_asm_table", "OBJECT"));
	readelf_free(&r);
	assert_names(&t, "fix_asm_nosize,fix_checked,fix_cube,fix_report,fix_square,"
			 "fix_static_helper");
	canonical(PIE, canon);
	for (size_t i = 0; i < t.n; i++)
		assert_string_equal(t.v[i].object, canon);
	check_all_against_readelf(&t, PIE);
	bc_functab_free(&t);
}

static void test_nopie_glob(void **state)
{
	const char *specs[] = {"fix_*", "main"};
	const struct bc_func *f;
	struct bc_functab t;
	char err[1024];

	(void)state;
	assert_int_equal(resolve(NOPIE, 0, specs, 2, &t, err, sizeof(err)), 0);
	assert_names(&t, "fix_asm_nosize,fix_checked,fix_cube,fix_report,fix_square,"
			 "fix_static_helper,main");
	check_all_against_readelf(&t, NOPIE);
	/* Linked at 0x400000: the offset is not the address. */
	f = find_func(&t, "main");
	assert_non_null(f);
	assert_true(f->addr >= 0x400000);
	assert_true(f->offset < 0x400000);
	/* One table, sorted by offset within the object. */
	for (size_t i = 1; i < t.n; i++)
		assert_true(t.v[i - 1].offset < t.v[i].offset);
	bc_functab_free(&t);
}

/* The PLT sections are known by their file offsets: a sample there is its caller's. */
static void test_plt_sections(void **state)
{
	struct bc_elf_object *obj;
	char err[256];

	(void)state;
	assert_int_equal(bc_elf_object_load(PIE, &obj, err, sizeof(err)), 0);
	assert_true(obj->nplt >= 1);
	for (size_t i = 0; i < obj->nplt; i++) {
		assert_true(obj->plt[i][0] < obj->plt[i][1]);
		/* no function of the symbol table lies in a stub */
		for (size_t k = 0; k < obj->nsyms; k++)
			assert_false(obj->syms[k].offset >= obj->plt[i][0] &&
				     obj->syms[k].offset < obj->plt[i][1]);
	}
	bc_elf_object_free(obj);
}

static void test_all_functions(void **state)
{
	const char *exes[] = {PIE, NOPIE};
	const char *helpers[] = {"_start",
				 "_init",
				 "_fini",
				 "deregister_tm_clones",
				 "register_tm_clones",
				 "__do_global_dtors_aux",
				 "frame_dummy"};
	char err[1024];

	(void)state;
	for (size_t e = 0; e < 2; e++) {
		struct bc_functab t;
		struct readelf r;

		assert_int_equal(resolve(exes[e], 0, NULL, 0, &t, err, sizeof(err)), 0);
		assert_names(&t, "fix_checked,fix_cube,fix_report,fix_square,fix_static_helper,"
				 "main");
		check_all_against_readelf(&t, exes[e]);
		/* The fixture has the helpers the mode must leave out. */
		readelf_load(&r, exes[e]);
		for (size_t i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++)
			assert_true(readelf_has(&r, helpers[i], "FUNC"));
		assert_true(readelf_has(&r, "fix_asm_nosize", "FUNC"));
		if (e == 1)
			assert_true(readelf_has(&r, "_dl_relocate_static_pie", "FUNC"));
		readelf_free(&r);
		bc_functab_free(&t);
	}
}

/* "*" is every defined function, helpers included, and nothing else. */
static void test_star_glob(void **state)
{
	const char *star[] = {"*"};
	const char *plt[] = {"symfix_sub"};
	struct bc_functab t;
	char err[1024];
	struct readelf r;

	(void)state;
	assert_int_equal(resolve(NOPIE, 0, star, 1, &t, err, sizeof(err)), 0);
	assert_names(&t, "__do_global_dtors_aux,_dl_relocate_static_pie,_fini,_init,_start,"
			 "deregister_tm_clones,fix_asm_nosize,fix_checked,fix_cube,fix_report,"
			 "fix_square,fix_static_helper,frame_dummy,main,register_tm_clones");
	check_all_against_readelf(&t, NOPIE);
	bc_functab_free(&t);

	/* symfix_sub is undefined here, though its PLT entry gives it a value. */
	readelf_load(&r, NOPIE);
	for (size_t i = 0; i < r.nsyms; i++)
		if (!strcmp(r.syms[i].name, "symfix_sub"))
			assert_true(r.syms[i].value != 0 && !strcmp(r.syms[i].ndx, "UND"));
	readelf_free(&r);
	assert_int_equal(resolve(NOPIE, 0, plt, 1, &t, err, sizeof(err)), -ENOENT);
	bc_functab_free(&t);
}

static void test_stripped_exe(void **state)
{
	const char *specs[] = {"fix_*"};
	struct bc_functab t;
	char err[1024];
	struct readelf r;

	(void)state;
	readelf_load(&r, STRIPPED);
	assert_false(r.has_symtab);
	readelf_free(&r);

	/* Only .dynsym: the static helper is gone. */
	assert_int_equal(resolve(STRIPPED, 0, specs, 1, &t, err, sizeof(err)), 0);
	assert_names(&t, "fix_asm_nosize,fix_checked,fix_cube,fix_report,fix_square");
	check_all_against_readelf(&t, STRIPPED);
	bc_functab_free(&t);

	assert_int_equal(resolve(STRIPPED, 0, NULL, 0, &t, err, sizeof(err)), 0);
	assert_names(&t, "fix_checked,fix_cube,fix_report,fix_square,main");
	check_all_against_readelf(&t, STRIPPED);
	bc_functab_free(&t);
}

/* ------------------------------------------------------ shared library */

static void test_shared_lib(void **state)
{
	const char *specs[] = {LIB ":symfix_*"};
	struct bc_functab t;
	char err[1024], canon[PATH_MAX];
	struct readelf r;
	int nver = 0;

	(void)state;
	assert_int_equal(resolve(PIE, 0, specs, 1, &t, err, sizeof(err)), 0);
	/*
	 * One name per address: symfix_a for the three aliases, symfix_ver
	 * (GLOBAL) over symfix_ver_v1/_v2 (LOCAL), twice: two versions. The
	 * IFUNCs symfix_ifunc and symfix_dual are left out; the plain
	 * functions behind them are not IFUNCs.
	 */
	assert_names(&t, "symfix_a,symfix_add,symfix_call_local,symfix_dual_v1,"
			 "symfix_ifunc_impl,symfix_ifunc_resolver,symfix_local,symfix_mul,"
			 "symfix_sub,symfix_ver,symfix_ver");
	/* symfix_in_rodata is a FUNC outside the executable segment. */
	readelf_load(&r, LIB);
	assert_true(readelf_has(&r, "symfix_in_rodata", "FUNC"));
	readelf_free(&r);
	canonical(LIB, canon);
	for (size_t i = 0; i < t.n; i++) {
		assert_string_equal(t.v[i].object, canon);
		/* Linked at 0x200000, so the offset formula shows. */
		assert_int_equal(t.v[i].addr - t.v[i].offset, 0x200000);
		nver += !strcmp(t.v[i].name, "symfix_ver");
	}
	assert_int_equal(nver, 2);
	check_all_against_readelf(&t, LIB);
	bc_functab_free(&t);
}

static void test_stripped_lib(void **state)
{
	const char *specs[] = {LIB_STRIP ":symfix_*"};
	const char *ifunc[] = {LIB_STRIP ":symfix_dual"};
	char err[1024], expect[2 * PATH_MAX];
	struct bc_functab t;

	(void)state;
	assert_int_equal(resolve(PIE, 0, specs, 1, &t, err, sizeof(err)), 0);
	assert_names(&t, "symfix_a,symfix_add,symfix_call_local,symfix_mul,symfix_sub,symfix_ver,"
			 "symfix_ver");
	check_all_against_readelf(&t, LIB_STRIP);
	bc_functab_free(&t);

	/* The hidden VERS_1 symfix_dual is a FUNC, but the name's default is an IFUNC. */
	assert_int_equal(resolve(PIE, 0, ifunc, 1, &t, err, sizeof(err)), -ENOENT);
	snprintf(expect, sizeof(expect),
		 "-u '%s': symfix_dual is a GNU IFUNC in libsymfix-stripped.so, not probed; the "
		 "implementation it selects at run time has no symbol there (stripped): trace a "
		 "caller instead",
		 ifunc[0]);
	assert_string_equal(err, expect);
	assert_int_equal(t.n, 0);
	bc_functab_free(&t);
}

/*
 * A glob that matches only IFUNCs: the error names the implementations they
 * select from ("__NAME_*", as glibc names them) and the -u that traces them,
 * or says why there are none to name.
 */
static void test_ifunc_hint(void **state)
{
	static const struct {
		const char *spec;
		const char *err;
	} cases[] = {
		/* Five implementations in .symtab: four listed, then "...". */
		{"libsymfix:symfix_ifunc",
		 "-u 'libsymfix:symfix_ifunc': symfix_ifunc is a GNU IFUNC in libsymfix.so.1, not "
		 "probed; it selects from __symfix_ifunc_avx2, __symfix_ifunc_avx512, "
		 "__symfix_ifunc_evex, __symfix_ifunc_sse2, ...: trace them with -u "
		 "'libsymfix:__symfix_ifunc_*'"},
		/* Any glob matching only that IFUNC; the OBJ is suggested as given. */
		{FIX("libsymfix.so.1") ":symfix_if?nc",
		 "-u '" FIX("libsymfix.so.1") ":symfix_if?nc': symfix_ifunc is a GNU IFUNC in "
					      "libsymfix.so.1, not probed; it selects from "
					      "__symfix_ifunc_avx2, "
					      "__symfix_ifunc_avx512, __symfix_ifunc_evex, "
					      "__symfix_ifunc_sse2, ...: trace them "
					      "with -u '" FIX(
						      "libsymfix.so.1") ":__symfix_ifunc_*'"},
		/* A .symtab without "__symfix_dual_*" functions. */
		{"libsymfix:symfix_dual",
		 "-u 'libsymfix:symfix_dual': symfix_dual is a GNU IFUNC in libsymfix.so.1, not "
		 "probed; no function there is named like an implementation (__symfix_dual_*): "
		 "trace a caller instead"},
		/* Stripped: the LOCAL implementations are gone with .symtab. */
		{LIB_STRIP ":symfix_ifunc",
		 "-u '" LIB_STRIP ":symfix_ifunc': symfix_ifunc is a GNU IFUNC in "
		 "libsymfix-stripped.so, not probed; the implementation it selects at run time has "
		 "no symbol there (stripped): trace a caller instead"},
		/* Two IFUNCs, one glob. */
		{LIB_STRIP ":symfix_[di][uf][au][ln]*",
		 "-u '" LIB_STRIP ":symfix_[di][uf][au][ln]*': 'symfix_[di][uf][au][ln]*' matches "
		 "only GNU IFUNCs (symfix_dual, symfix_ifunc) in libsymfix-stripped.so, not "
		 "probed; "
		 "the implementations they select at run time have no symbols there (stripped): "
		 "trace a caller instead"},
	};
	const char *impls[] = {"libsymfix:__symfix_ifunc_*"};
	char err[1024];
	struct bc_functab t;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *specs[] = {cases[i].spec};

		assert_int_equal(resolve(PIE, 0, specs, 1, &t, err, sizeof(err)), -ENOENT);
		assert_string_equal(err, cases[i].err);
		assert_int_equal(t.n, 0);
		bc_functab_free(&t);
	}

	/* The suggested -u works: every implementation, none of the IFUNCs. */
	assert_int_equal(resolve(PIE, 0, impls, 1, &t, err, sizeof(err)), 0);
	assert_names(&t, "__symfix_ifunc_avx2,__symfix_ifunc_avx512,__symfix_ifunc_evex,"
			 "__symfix_ifunc_sse2,__symfix_ifunc_sse4_2");
	check_all_against_readelf(&t, LIB);
	bc_functab_free(&t);
}

static void test_alias_preference(void **state)
{
	static const struct {
		const char *specs[3];
		size_t n;
		const char *name;
	} cases[] = {
		{{LIB ":symfix_weak"}, 1, "symfix_weak"},
		/* GLOBAL beats a shorter WEAK name... */
		{{LIB ":symfix_weak", LIB ":symfix_impl_long_name"}, 2, "symfix_impl_long_name"},
		/* ...and among GLOBALs the shortest wins. */
		{{LIB ":symfix_impl*", LIB ":symfix_a", LIB ":symfix_weak"}, 3, "symfix_a"},
		{{LIB ":symfix_[aiw]*"}, 1, "symfix_a"},
		/* LOCAL symfix_ver_v1 loses to GLOBAL symfix_ver@VERS_1. */
		{{LIB ":symfix_ver_v1", LIB ":symfix_ver"}, 2, NULL},
	};
	char err[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bc_functab t;

		assert_int_equal(resolve(PIE, 0, cases[i].specs, cases[i].n, &t, err, sizeof(err)),
				 0);
		if (cases[i].name) {
			const struct bc_func *f = find_func(&t, cases[i].name);

			assert_non_null(f);
			/* No other entry at that address. */
			for (size_t j = 0; j < t.n; j++)
				if (&t.v[j] != f)
					assert_true(t.v[j].offset != f->offset);
		} else {
			assert_names(&t, "symfix_ver,symfix_ver");
		}
		check_all_against_readelf(&t, LIB);
		bc_functab_free(&t);
	}
}

static void test_dedup_across_specs_and_calls(void **state)
{
	const char *first[] = {"fix_square", "fix_s*", "fix_square"};
	const char *second[] = {"fix_*", "symfix_pie:fix_cube"};
	struct bc_functab t;
	char err[1024];

	(void)state;
	assert_int_equal(resolve(PIE, 0, first, 3, &t, err, sizeof(err)), 0);
	assert_names(&t, "fix_square,fix_static_helper");
	/* A second call adds only what the table lacks. */
	assert_int_equal(bc_symbols_resolve(PIE, 0, second, 2, &t, err, sizeof(err)), 0);
	assert_names(&t, "fix_asm_nosize,fix_checked,fix_cube,fix_report,fix_square,"
			 "fix_static_helper");
	for (size_t i = 0; i < t.n; i++)
		assert_int_equal(t.v[i].id, i);
	check_all_against_readelf(&t, PIE);
	bc_functab_free(&t);
}

/* -------------------------------------------------------------- errors */

static void test_no_match(void **state)
{
	const char *specs[] = {"libsymfix:nothing*"};
	const char *mixed[] = {"fix_cube", "fix_nothing"};
	char err[1024], expect[2 * PATH_MAX], canon[PATH_MAX], pie[PATH_MAX];
	struct bc_functab t;

	(void)state;
	assert_int_equal(resolve(PIE, 0, specs, 1, &t, err, sizeof(err)), -ENOENT);
	canonical(LIB, canon);
	snprintf(expect, sizeof(expect),
		 "-u 'libsymfix:nothing*': no function matches 'nothing*' in %s", canon);
	assert_string_equal(err, expect);
	assert_int_equal(t.n, 0);
	bc_functab_free(&t);

	/* All or nothing: a failed call leaves the table as it was. */
	assert_int_equal(resolve(PIE, 0, mixed, 1, &t, err, sizeof(err)), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(bc_symbols_resolve(PIE, 0, mixed, 2, &t, err, sizeof(err)), -ENOENT);
	canonical(PIE, pie);
	snprintf(expect, sizeof(expect),
		 "-u 'fix_nothing': no function matches 'fix_nothing' in %s", pie);
	assert_string_equal(err, expect);
	assert_names(&t, "fix_cube");
	bc_functab_free(&t);
}

static void test_not_elf(void **state)
{
	const char *specs[] = {NOTELF ":f*"};
	char err[1024], expect[2 * PATH_MAX], canon[PATH_MAX];
	struct bc_functab t;

	(void)state;
	canonical(NOTELF, canon);
	assert_int_equal(resolve(NOTELF, 0, NULL, 0, &t, err, sizeof(err)), -ENOEXEC);
	snprintf(expect, sizeof(expect), "%s: not an ELF file", canon);
	assert_string_equal(err, expect);
	bc_functab_free(&t);

	assert_int_equal(resolve(PIE, 0, specs, 1, &t, err, sizeof(err)), -ENOEXEC);
	snprintf(expect, sizeof(expect), "-u '%s': %s: not an ELF file", specs[0], canon);
	assert_string_equal(err, expect);
	bc_functab_free(&t);

	assert_int_equal(resolve(OBJFILE, 0, NULL, 0, &t, err, sizeof(err)), -ENOEXEC);
	assert_one_line(err);
	bc_functab_free(&t);

	assert_int_equal(resolve(FIX("missing"), 0, NULL, 0, &t, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, FIX("missing") ": No such file or directory");
	bc_functab_free(&t);
}

static void test_bad_specs(void **state)
{
	static const struct {
		const char *spec;
		int ret;
		const char *err;
	} cases[] = {
		{"libnope:f", -ENOENT,
		 "-u 'libnope:f': no loaded object or library named 'libnope' (give a path)"},
		{"libc:", -EINVAL,
		 "-u 'libc:': no function pattern (e.g. 'libc:malloc' or 'foo*')"},
		{":main", -EINVAL,
		 "-u ':main': no object before ':' (give a library name or path, or drop the "
		 "':')"},
		/* Control characters never break the one line. */
		{"bad\nname", -ENOENT, NULL},
	};
	char err[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *specs[] = {cases[i].spec};
		struct bc_functab t;

		assert_int_equal(resolve(PIE, 0, specs, 1, &t, err, sizeof(err)), cases[i].ret);
		if (cases[i].err)
			assert_string_equal(err, cases[i].err);
		assert_one_line(err);
		assert_int_equal(t.n, 0);
		bc_functab_free(&t);
	}
}

static void test_spec_syntax(void **state)
{
	/* The ':' inside [[:alpha:]] is part of the glob, not a separator. */
	const char *bracket[] = {"fix_[[:alpha:]]quare", "symfix_pie:fix_c[[:lower:]]be"};
	const char *relative[] = {"./libsymfix.so.1:symfix_add"};
	char oddlib[128], oddspec[160];
	const char *odd[] = {oddspec};
	size_t liblen;
	void *lib;
	char err[1024], cwd[PATH_MAX], canon[PATH_MAX];
	const char *old_path = getenv("PATH");
	char *saved_path = old_path ? strdup(old_path) : NULL;
	struct bc_functab t;

	(void)state;
	assert_int_equal(resolve(PIE, 0, bracket, 2, &t, err, sizeof(err)), 0);
	assert_names(&t, "fix_cube,fix_square");
	bc_functab_free(&t);

	/* A relative OBJ path is relative to our cwd. */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(FIXTURE_DIR), 0);
	assert_int_equal(resolve(PIE, 0, relative, 1, &t, err, sizeof(err)), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_names(&t, "symfix_add");
	canonical(LIB, canon);
	assert_string_equal(t.v[0].object, canon);
	bc_functab_free(&t);

	/* The OBJ/GLOB separator is the last ':', so paths may have one. */
	snprintf(oddlib, sizeof(oddlib), "%s/odd:dir", tmpdir);
	assert_int_equal(mkdir(oddlib, 0755), 0);
	strcat(oddlib, "/libodd.so");
	lib = read_file(LIB, &liblen);
	write_file(oddlib, lib, liblen);
	free(lib);
	snprintf(oddspec, sizeof(oddspec), "%s:symfix_add", oddlib);
	assert_int_equal(resolve(PIE, 0, odd, 1, &t, err, sizeof(err)), 0);
	assert_names(&t, "symfix_add");
	assert_string_equal(t.v[0].object, oddlib);
	bc_functab_free(&t);

	/* An executable without '/' is looked up in $PATH, as execvp does. */
	setenv("PATH", "/nonexistent:" FIXTURE_DIR, 1);
	assert_int_equal(resolve("symfix_pie", 0, bracket, 1, &t, err, sizeof(err)), 0);
	canonical(PIE, canon);
	assert_string_equal(t.v[0].object, canon);
	bc_functab_free(&t);
	assert_int_equal(resolve("symfix_nothere", 0, bracket, 1, &t, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "symfix_nothere: command not found in $PATH (give its path)");
	bc_functab_free(&t);
	if (saved_path)
		setenv("PATH", saved_path, 1);
	else
		unsetenv("PATH");
	free(saved_path);
}

/* ------------------------------------------------------- object lookup */

static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "/libc.so.6")) {
		canonical(info->dlpi_name, data);
		return 1;
	}
	return 0;
}

static void test_find_object_needed(void **state)
{
	static const struct {
		const char *exe;
		const char *obj;
		const char *path; /* NULL: libc */
	} cases[] = {
		{PIE, "libc", NULL},
		{PIE, "libc.so.6", NULL},
		{NOPIE, "libc", NULL},
		/* DT_NEEDED libsymfix.so.1, found through RUNPATH $ORIGIN. */
		{PIE, "libsymfix", LIB},
		{PIE, "libsymfix.so.1", LIB},
		{NOPIE, "libsymfix", LIB},
		/* The executable names itself. */
		{PIE, "symfix_pie", PIE},
		{PIE, LIB, LIB},
	};
	char libc[PATH_MAX], loaded_libc[PATH_MAX] = "", path[PATH_MAX], canon[PATH_MAX];
	char err[1024];

	(void)state;
	read_text(FIX("libc.path"), libc, sizeof(libc));
	/* The toolchain's libc is the one we run on. */
	dl_iterate_phdr(find_libc, loaded_libc);
	assert_string_equal(loaded_libc, libc);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(bc_symbols_find_object(cases[i].exe, 0, cases[i].obj, path,
							sizeof(path), err, sizeof(err)),
				 0);
		if (cases[i].path)
			canonical(cases[i].path, canon);
		assert_string_equal(path, cases[i].path ? canon : libc);
	}

	assert_int_equal(
		bc_symbols_find_object(PIE, 0, "libnope", path, sizeof(path), err, sizeof(err)),
		-ENOENT);
	assert_string_equal(err, "no loaded object or library named 'libnope' (give a path)");
	/* A prefix must end at '.' or '-': "libsym" is not "libsymfix". */
	assert_int_equal(
		bc_symbols_find_object(PIE, 0, "libsym", path, sizeof(path), err, sizeof(err)),
		-ENOENT);
	/* The stripped library is no DT_NEEDED of the PIE. */
	assert_int_equal(bc_symbols_find_object(PIE, 0, "libsymfix-stripped", path, sizeof(path),
						err, sizeof(err)),
			 -ENOENT);
}

/* Without RUNPATH's $ORIGIN to help, LD_LIBRARY_PATH finds the library. */
static void test_find_object_ld_library_path(void **state)
{
	const char *old = getenv("LD_LIBRARY_PATH");
	char *saved = old ? strdup(old) : NULL;
	char exe[128], path[PATH_MAX], canon[PATH_MAX], err[1024], expect[512];
	size_t len;
	void *elf;

	(void)state;
	snprintf(exe, sizeof(exe), "%s/alone", tmpdir);
	assert_int_equal(mkdir(exe, 0755), 0);
	strcat(exe, "/symfix_pie");
	elf = read_file(PIE, &len);
	write_file(exe, elf, len);
	free(elf);

	unsetenv("LD_LIBRARY_PATH");
	assert_int_equal(
		bc_symbols_find_object(exe, 0, "libsymfix", path, sizeof(path), err, sizeof(err)),
		-ENOENT);
	snprintf(expect, sizeof(expect),
		 "'libsymfix.so.1' is needed by %s but not found in the library search path (set "
		 "LD_LIBRARY_PATH or give a path)",
		 exe);
	assert_string_equal(err, expect);
	/* libc is still found, in the system directories. */
	assert_int_equal(
		bc_symbols_find_object(exe, 0, "libc", path, sizeof(path), err, sizeof(err)), 0);

	setenv("LD_LIBRARY_PATH", "/nonexistent::" FIXTURE_DIR, 1);
	assert_int_equal(
		bc_symbols_find_object(exe, 0, "libsymfix", path, sizeof(path), err, sizeof(err)),
		0);
	canonical(LIB, canon);
	assert_string_equal(path, canon);

	if (saved)
		setenv("LD_LIBRARY_PATH", saved, 1);
	else
		unsetenv("LD_LIBRARY_PATH");
	free(saved);
}

static void test_libc(void **state)
{
	const char *malloc_specs[] = {"libc:malloc", "libc:__libc_malloc"};
	char libc[PATH_MAX], err[1024];
	struct bc_functab t;
	struct readelf r;

	(void)state;
	read_text(FIX("libc.path"), libc, sizeof(libc));
	assert_int_equal(resolve(PIE, 0, malloc_specs, 1, &t, err, sizeof(err)), 0);
	assert_names(&t, "malloc");
	assert_string_equal(t.v[0].object, libc);
	readelf_load(&r, FIX("libc"));
	check_against_readelf(&r, &t.v[0]);
	/* malloc and __libc_malloc are one function: the shorter name stays. */
	assert_int_equal(bc_symbols_resolve(PIE, 0, malloc_specs, 2, &t, err, sizeof(err)), 0);
	assert_names(&t, "malloc");
	readelf_free(&r);
	bc_functab_free(&t);
}

/*
 * The -u error for IFUNC `name` of the system libc. What it says depends on
 * libc's layout: implementations named __NAME_* in the symbol table the
 * resolver reads are listed; Debian 12's libc.so.6 has only .dynsym, where
 * they are not, and the error says so.
 */
static void check_libc_ifunc(const char *name)
{
	char libc[PATH_MAX], spec[64], prefix[64], err[1024], expect[512];
	const char *specs[] = {spec}, *base;
	struct bc_functab t;
	struct readelf r;
	bool impls = false;

	read_text(FIX("libc.path"), libc, sizeof(libc));
	base = strrchr(libc, '/') + 1;
	snprintf(spec, sizeof(spec), "libc:%s", name);
	snprintf(prefix, sizeof(prefix), "__%s_", name);
	readelf_load(&r, FIX("libc"));
	if (!readelf_has(&r, name, "IFUNC")) {
		readelf_free(&r);
		print_message("libc's %s is no IFUNC here: nothing to check\n", name);
		skip();
	}
	for (size_t i = 0; i < r.nsyms; i++)
		impls |= r.syms[i].symtab == r.has_symtab && !strcmp(r.syms[i].type, "FUNC") &&
			 strcmp(r.syms[i].ndx, "UND") &&
			 !strncmp(r.syms[i].name, prefix, strlen(prefix));

	assert_int_equal(resolve(PIE, 0, specs, 1, &t, err, sizeof(err)), -ENOENT);
	assert_int_equal(t.n, 0);
	bc_functab_free(&t);
	assert_one_line(err);
	assert_true(strlen(err) <= 200);
	if (impls) {
		snprintf(expect, sizeof(expect),
			 "-u '%s': %s is a GNU IFUNC in %s, not probed; it selects from %s", spec,
			 name, base, prefix);
		assert_memory_equal(err, expect, strlen(expect));
		snprintf(expect, sizeof(expect), ": trace them with -u 'libc:%s*'", prefix);
		assert_true(strlen(err) > strlen(expect));
		assert_string_equal(err + strlen(err) - strlen(expect), expect);
	} else if (r.has_symtab) {
		snprintf(expect, sizeof(expect),
			 "-u '%s': %s is a GNU IFUNC in %s, not probed; no function there is named "
			 "like an implementation (%s*): trace a caller instead",
			 spec, name, base, prefix);
		assert_string_equal(err, expect);
	} else {
		/* Debian 12 */
		snprintf(expect, sizeof(expect),
			 "-u '%s': %s is a GNU IFUNC in %s, not probed; the implementation it "
			 "selects at run time has no symbol there (stripped): trace a caller "
			 "instead",
			 spec, name, base);
		assert_string_equal(err, expect);
	}
	readelf_free(&r);
}

static void test_libc_ifunc(void **state)
{
	(void)state;
	check_libc_ifunc("strlen");
	/*
	 * memcpy@@GLIBC_2.14 is an IFUNC; memcpy@GLIBC_2.2.5, a plain FUNC,
	 * only serves binaries older than that. Neither is probed.
	 */
	check_libc_ifunc("memcpy");
}

static pid_t fixture_pid;

/* Starts the PIE fixture and waits until it runs main(), its libraries mapped. */
static int spawn_fixture(void **state)
{
	char ready[16] = "";
	int fds[2];
	FILE *fp;

	(void)state;
	if (pipe(fds))
		return -1;
	fixture_pid = fork();
	if (fixture_pid < 0)
		return -1;
	if (fixture_pid == 0) {
		/* Dies with us even if a failed assertion skips the teardown. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execl(PIE, PIE, "wait", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	fp = fdopen(fds[0], "r");
	if (!fp)
		return -1;
	if (!fgets(ready, sizeof(ready), fp))
		ready[0] = '\0';
	fclose(fp);
	return strcmp(ready, "ready\n") ? -1 : 0;
}

static int reap_fixture(void **state)
{
	(void)state;
	if (fixture_pid > 0) {
		kill(fixture_pid, SIGKILL);
		waitpid(fixture_pid, NULL, 0);
	}
	fixture_pid = 0;
	return 0;
}

static void test_running_process(void **state)
{
	const char *specs[] = {"libsymfix:symfix_add", "fix_cube", LIB ":symfix_sub"};
	char path[PATH_MAX], lib[PATH_MAX], pie[PATH_MAX], libc[PATH_MAX];
	char err[1024], expect[256];
	struct bc_functab t;
	pid_t pid = fixture_pid;

	(void)state;
	canonical(LIB, lib);
	canonical(PIE, pie);
	read_text(FIX("libc.path"), libc, sizeof(libc));

	assert_int_equal(bc_symbols_find_object(NULL, pid, "libsymfix", path, sizeof(path), err,
						sizeof(err)),
			 0);
	assert_string_equal(path, lib);
	assert_int_equal(bc_symbols_find_object(NULL, pid, "symfix_pie", path, sizeof(path), err,
						sizeof(err)),
			 0);
	assert_string_equal(path, pie);
	assert_int_equal(
		bc_symbols_find_object(NULL, pid, "libc", path, sizeof(path), err, sizeof(err)), 0);
	assert_string_equal(path, libc);
	assert_int_equal(
		bc_symbols_find_object(NULL, pid, "libnope", path, sizeof(path), err, sizeof(err)),
		-ENOENT);
	snprintf(expect, sizeof(expect),
		 "no object named 'libnope' is loaded in process %d (give a path)", pid);
	assert_string_equal(err, expect);

	/* No exe given: /proc/PID/exe. */
	assert_int_equal(resolve(NULL, pid, specs, 3, &t, err, sizeof(err)), 0);
	assert_names(&t, "fix_cube,symfix_add,symfix_sub");
	check_all_against_readelf(&t, LIB);
	check_all_against_readelf(&t, PIE);
	bc_functab_free(&t);

	reap_fixture(NULL);

	/* Gone: the error says which process. */
	assert_int_equal(resolve(NULL, pid, specs, 1, &t, err, sizeof(err)), -ENOENT);
	assert_one_line(err);
	assert_non_null(strstr(err, "process"));
	bc_functab_free(&t);
}

/* -------------------------------------------------------- untrusted input */

/* A small deterministic PRNG: failures must reproduce. */
static uint32_t prng(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Resolves a damaged file both as a library and as the executable; only checks sanity. */
static void resolve_damaged(const char *path, size_t len)
{
	char spec[PATH_MAX + 16], err[1024];
	const char *specs[] = {spec};
	struct bc_functab t;
	int ret;

	snprintf(spec, sizeof(spec), "%s:symfix_*", path);
	for (int as_exe = 0; as_exe < 2; as_exe++) {
		ret = as_exe ? resolve(path, 0, NULL, 0, &t, err, sizeof(err))
			     : resolve(PIE, 0, specs, 1, &t, err, sizeof(err));
		if (ret) {
			assert_true(ret < 0);
			assert_one_line(err);
			assert_int_equal(t.n, 0);
		}
		for (size_t i = 0; i < t.n; i++)
			assert_true(t.v[i].offset < len);
		bc_functab_free(&t);
	}
}

static void test_corrupt_elf(void **state)
{
	const size_t cuts[] = {0, 1, 4, 16, 63, 64, 65, 200, 1000, 4096, 8192};
	char path[PATH_MAX];
	unsigned char *orig, *buf;
	uint32_t seed = 0x5eed1234;
	size_t len;

	(void)state;
	snprintf(path, sizeof(path), "%s/damaged.so", tmpdir);
	orig = read_file(LIB, &len);
	buf = malloc(len);
	assert_non_null(buf);

	/* Truncated copies, and one cut just before the section headers. */
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]) && cuts[i] < len; i++) {
		write_file(path, orig, cuts[i]);
		resolve_damaged(path, cuts[i]);
	}
	write_file(path, orig, len - 100);
	resolve_damaged(path, len - 100);

	/*
	 * Random byte damage, half of it in the ELF header and the last 2 KiB
	 * (section headers, symbol and string tables), where it hurts most.
	 */
	for (int round = 0; round < 300; round++) {
		memcpy(buf, orig, len);
		for (int k = 0; k < 8; k++) {
			uint32_t r = prng(&seed);
			size_t at;

			if (k % 2)
				at = r % len;
			else if (r & 1)
				at = r % 64;
			else
				at = len - 1 - r % (len < 2048 ? len : 2048);
			buf[at] = (unsigned char)(prng(&seed) >> 8);
		}
		write_file(path, buf, len);
		resolve_damaged(path, len);
	}
	free(buf);
	free(orig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elf_check_accepts),
		cmocka_unit_test(test_elf_check_rejects),
		cmocka_unit_test(test_pie_glob),
		cmocka_unit_test(test_nopie_glob),
		cmocka_unit_test(test_all_functions),
		cmocka_unit_test(test_plt_sections),
		cmocka_unit_test(test_star_glob),
		cmocka_unit_test(test_stripped_exe),
		cmocka_unit_test(test_shared_lib),
		cmocka_unit_test(test_stripped_lib),
		cmocka_unit_test(test_ifunc_hint),
		cmocka_unit_test(test_alias_preference),
		cmocka_unit_test(test_dedup_across_specs_and_calls),
		cmocka_unit_test(test_no_match),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_spec_syntax),
		cmocka_unit_test(test_find_object_needed),
		cmocka_unit_test(test_find_object_ld_library_path),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_libc_ifunc),
		cmocka_unit_test_setup_teardown(test_running_process, spawn_fixture, reap_fixture),
		cmocka_unit_test(test_corrupt_elf),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
