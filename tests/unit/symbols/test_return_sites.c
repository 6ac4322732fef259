// SPDX-License-Identifier: MIT
/* A function's exits, from its code: ret, tail jumps; not jumps inside it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/return_sites.h"

#define ADDR   0x401000
#define OFFSET 0x1000

/* Decodes code at ADDR (file offset OFFSET): *n exits into sites, the return code. */
static int decode(const uint8_t *code, size_t size, uint64_t **sites, size_t *n)
{
	*sites = NULL;
	*n = 0;
	return bc_return_sites_decode(code, size, ADDR, OFFSET, sites, n);
}

static void rets_and_tail_jumps_are_exits(void **state)
{
	const uint8_t code[] = {
		0x55,					  /* 0  push %rbp */
		0x48, 0x89, 0xe5,			  /* 1  mov %rsp,%rbp */
		0x85, 0xff,				  /* 4  test %edi,%edi */
		0x74, 0x03,				  /* 6  je +3 (to 11: inside) */
		0x5d,					  /* 8  pop %rbp */
		0xeb, 0x06,				  /* 9  jmp +6 (to 17: inside) */
		0x5d,					  /* 11 pop %rbp */
		0xe9, 0xef, 0xbe, 0x00, 0x00,		  /* 12 jmp far away: a tail call */
		0xc3,					  /* 17 ret */
		0xf3, 0xc3,				  /* 18 repz ret */
		0xff, 0x25, 0x10, 0x00, 0x00, 0x00,	  /* 20 jmp *0x10(%rip): through the GOT */
		0xff, 0x24, 0xc5, 0x00, 0x10, 0x40, 0x00, /* 26 jmp *table(,%rax,8): a switch */
		0xff, 0xe0,				  /* 33 jmp *%rax: unknown, not an exit */
		0xc2, 0x08, 0x00,			  /* 35 ret $8 */
	};
	uint64_t *sites;
	size_t n;

	(void)state;
	assert_int_equal(decode(code, sizeof(code), &sites, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(sites[0], OFFSET + 12);
	assert_int_equal(sites[1], OFFSET + 17);
	assert_int_equal(sites[2], OFFSET + 18);
	assert_int_equal(sites[3], OFFSET + 20);
	assert_int_equal(sites[4], OFFSET + 35);
	free(sites);
}

static void a_function_without_exits_has_none(void **state)
{
	/* call abort (noreturn); int3 padding after it is not code */
	const uint8_t code[] = {0x50, 0xe8, 0x00, 0x00, 0x00, 0x00, 0xcc, 0xcc};
	uint64_t *sites;
	size_t n;

	(void)state;
	assert_int_equal(decode(code, sizeof(code), &sites, &n), 0);
	assert_int_equal(n, 0);
	free(sites);
}

static void code_that_does_not_decode_is_refused(void **state)
{
	/* 0x06 (push %es) does not exist in 64-bit mode: data, or not x86-64 */
	const uint8_t code[] = {0x55, 0x06, 0xc3};
	uint64_t *sites;
	size_t n;

	(void)state;
	assert_int_equal(decode(code, sizeof(code), &sites, &n), -ENOEXEC);
	free(sites);
	/* a function cut in the middle of an instruction */
	const uint8_t cut[] = {0xc3, 0xe9, 0x00};

	assert_int_equal(decode(cut, sizeof(cut), &sites, &n), -ENOEXEC);
	free(sites);
}

static void objects_that_throw(void **state)
{
	(void)state;
	/* this test is C: no exception tables, no C++ personality */
	assert_int_equal(bc_object_throws("/proc/self/exe"), 0);
	assert_int_equal(bc_object_throws("/nonexistent/object"), -ENOENT);
	assert_int_equal(bc_object_throws("/proc/self/status"), -ENOEXEC);
}

static void plan_follows_the_mode(void **state)
{
	struct bc_functab t;

	(void)state;
	bc_functab_init(&t);
	/* uretprobes: nothing is read, the function stays as it is */
	assert_int_equal(bc_functab_add(&t, "f", "/nonexistent/object", 0x1000, 16, 0x1000), 0);
	assert_int_equal(bc_functab_plan_exits(&t, BC_RETURNS_URETPROBE, NULL), 0);
	assert_int_equal(t.n, 1);
	assert_false(t.v[0].exits_only);
	/* sites wanted, the object unreadable: dropped */
	assert_int_equal(bc_functab_plan_exits(&t, BC_RETURNS_SITES, NULL), 1);
	assert_int_equal(t.n, 0);
	bc_functab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rets_and_tail_jumps_are_exits),
		cmocka_unit_test(a_function_without_exits_has_none),
		cmocka_unit_test(code_that_does_not_decode_is_refused),
		cmocka_unit_test(objects_that_throw),
		cmocka_unit_test(plan_follows_the_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
