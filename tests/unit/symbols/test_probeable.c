// SPDX-License-Identifier: MIT
/* The first-instruction check: what x86-64 uprobes refuse, and what they take. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/probeable.h"

#define PROBEABLE(...)                                                                             \
	do {                                                                                       \
		const uint8_t code[] = {__VA_ARGS__};                                              \
		const char *why;                                                                   \
		assert_int_equal(bc_insn_probeable(code, sizeof(code), &why), 0);                  \
		assert_null(why);                                                                  \
	} while (0)

#define REFUSED(reason, ...)                                                                       \
	do {                                                                                       \
		const uint8_t code[] = {__VA_ARGS__};                                              \
		const char *why;                                                                   \
		assert_int_equal(bc_insn_probeable(code, sizeof(code), &why), -ENOTSUP);           \
		assert_string_equal(why, reason);                                                  \
	} while (0)

static void common_prologues_are_probeable(void **state)
{
	(void)state;
	PROBEABLE(0x55);			 /* push %rbp */
	PROBEABLE(0xf3, 0x0f, 0x1e, 0xfa);	 /* endbr64 */
	PROBEABLE(0x48, 0x83, 0xec, 0x08);	 /* sub $8,%rsp */
	PROBEABLE(0x8d, 0x04, 0x3f);		 /* lea (%rdi,%rdi),%eax */
	PROBEABLE(0x64, 0x48, 0x83, 0x04, 0x25); /* add %fs:..., thread-local counter */
	PROBEABLE(0x66, 0x90);			 /* xchg %ax,%ax (2-byte nop) */
	PROBEABLE(0xc3);			 /* ret */
}

static void refused_prefixes(void **state)
{
	(void)state;
	REFUSED("LOCK prefix", 0xf0, 0x48, 0xff, 0x07);		    /* lock incq (%rdi) */
	REFUSED("LOCK prefix", 0x66, 0xf0, 0x0f, 0xb1, 0x17);	    /* after another prefix */
	REFUSED("segment-override prefix", 0x2e, 0x0f, 0x1f, 0x84); /* cs nopw */
	REFUSED("segment-override prefix", 0x3e, 0xff, 0xe0);	    /* notrack jmp *%rax */
	REFUSED("segment-override prefix", 0x26, 0x8b, 0x00);
	REFUSED("segment-override prefix", 0x36, 0x8b, 0x00);
}

static void refused_opcodes(void **state)
{
	(void)state;
	REFUSED("interrupt instruction", 0xcc);
	REFUSED("interrupt instruction", 0xcd, 0x80);
	REFUSED("interrupt instruction", 0xf1);
	REFUSED("hlt", 0xf4);
	REFUSED("instruction invalid in 64-bit mode", 0x06);
	REFUSED("instruction invalid in 64-bit mode", 0x48, 0x60); /* after REX */
}

static void truncated_input(void **state)
{
	const uint8_t prefixes_only[] = {0x66, 0x66};
	const char *why;

	(void)state;
	assert_int_equal(bc_insn_probeable(prefixes_only, sizeof(prefixes_only), &why), -ENOTSUP);
	assert_string_equal(why, "no instruction bytes");
	assert_int_equal(bc_insn_probeable(prefixes_only, 0, &why), -ENOTSUP);
}

/* Functions with no ordinary call frame are refused by name, with the reason. */
static void refused_names(void **state)
{
	static const char *const refused[] = {
		"_start",	    "_dl_start",   "_dl_runtime_resolve_xsavec",
		"__restore_rt",	    "setjmp",	   "_setjmp",
		"__sigsetjmp",	    "longjmp",	   "__longjmp_chk",
		"getcontext",	    "swapcontext", "vfork",
		"__vfork",	    "clone",	   "__clone3",
		"__clone_internal",
	};
	static const char *const allowed[] = {
		"main",	   "start",	     "_start_x",	  "malloc",
		"fork",	   "pthread_create", "__libc_start_main", "setjmpish_not",
		"clone_me"};
	const char *why;

	(void)state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(bc_func_name_probeable(refused[i], &why), -EPERM);
		assert_non_null(why);
	}
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		assert_int_equal(bc_func_name_probeable(allowed[i], &why), 0);
		assert_null(why);
	}
	bc_func_name_probeable("_start", &why);
	assert_non_null(strstr(why, "argc"));
}

/* The table loses what must not be probed, says why, and renumbers the rest. */
static void drops_by_name(void **state)
{
	struct bc_functab t;

	(void)state;
	bc_functab_init(&t);
	assert_int_equal(bc_functab_add(&t, "_start", "/nonexistent/app", 0x1000, 16, 0x1000), 0);
	assert_int_equal(bc_functab_add(&t, "main", "/nonexistent/app", 0x1100, 16, 0x1100), 0);
	assert_int_equal(bc_functab_add(&t, "vfork", "/nonexistent/libc", 0x2000, 16, 0x2000), 0);
	assert_int_equal(bc_functab_drop_unprobeable(&t, NULL), 2);
	assert_int_equal(t.n, 1);
	assert_string_equal(t.v[0].name, "main");
	assert_int_equal(t.v[0].id, 0);
	bc_functab_free(&t);
}

/* Drops "b*", keeps the rest, stops with -EIO at "stop". */
static int judge_b(void *ctx, struct bc_func *f, char *why, size_t len)
{
	(void)ctx;
	if (!strcmp(f->name, "stop"))
		return -EIO;
	snprintf(why, len, "starts with b");
	return f->name[0] != 'b';
}

static int warned;

static void count_warning(const struct bc_func *f, const char *why)
{
	(void)f;
	assert_string_equal(why, "starts with b");
	warned++;
}

/* The filter every planning step uses: drops, warns, renumbers; an error keeps the rest. */
static void filter(void **state)
{
	const char *names[] = {"a1", "b1", "a2", "b2", "stop", "b3", "a3"};
	struct bc_functab t;

	(void)state;
	bc_functab_init(&t);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_int_equal(bc_functab_add(&t, names[i], "/x", 0x1000 + i, 1, i), 0);
	assert_int_equal(bc_functab_filter(&t, judge_b, NULL, count_warning), -EIO);
	assert_int_equal(warned, 2);
	assert_int_equal(t.n, 5); /* a1 a2, then stop b3 a3 as they were */
	assert_string_equal(t.v[1].name, "a2");
	assert_int_equal(t.v[1].id, 1);
	assert_string_equal(t.v[2].name, "stop");
	assert_string_equal(t.v[4].name, "a3");
	free(t.v[2].name);
	t.v[2].name = strdup("a4");
	assert_int_equal(bc_functab_filter(&t, judge_b, NULL, count_warning), 1);
	assert_int_equal(t.n, 4);
	assert_string_equal(t.v[3].name, "a3");
	assert_int_equal(t.v[3].id, 3);
	bc_functab_free(&t);
}

/*
 * Code read from the file: probes go past an endbr64, and the instruction
 * after it is the one checked; other functions keep their offset.
 */
static void past_endbr64(void **state)
{
	static const uint8_t code[] = {
		0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5, /* 0: endbr64; push; mov */
		0x55, 0x48, 0x89, 0xe5, 0x90, 0x90, 0x90, 0x90, /* 8: push; mov */
		0xf3, 0x0f, 0x1e, 0xfa, 0xf0, 0x48, 0x0f, 0xb1, /* 16: endbr64; lock cmpxchg */
		0xc3, 0xc3, 0xc3, 0xc3, 0xc3, 0xc3, 0xc3, 0xc3, 0xc3, 0xc3, 0xc3, 0xc3};
	char path[] = "/tmp/bc-probeable-XXXXXX";
	struct bc_functab t;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, code, sizeof(code)), (ssize_t)sizeof(code));
	close(fd);
	bc_functab_init(&t);
	assert_int_equal(bc_functab_add(&t, "cet", path, 0x1000, 8, 0), 0);
	assert_int_equal(bc_functab_add(&t, "plain", path, 0x1008, 8, 8), 0);
	assert_int_equal(bc_functab_add(&t, "cet_locked", path, 0x1010, 8, 16), 0);
	assert_int_equal(bc_functab_drop_unprobeable(&t, NULL), 1);
	unlink(path);
	assert_int_equal(t.n, 2);
	assert_int_equal(bc_func_probe_offset(&t.v[0]), 4);
	assert_int_equal(t.v[0].offset, 0); /* its address and offset stay the function's */
	assert_int_equal(bc_func_probe_offset(&t.v[1]), 8);
	bc_functab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(common_prologues_are_probeable),
		cmocka_unit_test(refused_prefixes),
		cmocka_unit_test(refused_opcodes),
		cmocka_unit_test(truncated_input),
		cmocka_unit_test(refused_names),
		cmocka_unit_test(drops_by_name),
		cmocka_unit_test(filter),
		cmocka_unit_test(past_endbr64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
