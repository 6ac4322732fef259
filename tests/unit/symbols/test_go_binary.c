// SPDX-License-Identifier: MIT
/*
 * Go binaries: the release from .go.buildinfo (both layouts), where the
 * entry probe goes (past the stack check), and what is refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/go_binary.h"

#define ADDR   0x481000
#define OFFSET 0x81000

/* A .go.buildinfo header: magic, pointer size, flags; 32 bytes. */
static size_t header(uint8_t *buf, uint8_t flags)
{
	memset(buf, 0, 32);
	memcpy(buf, "\xff Go buildinf:", 14);
	buf[14] = 8;
	buf[15] = flags;
	return 32;
}

static void inline_strings(void **state)
{
	uint8_t buf[64];
	size_t n = header(buf, 0x2);
	char v[48];

	(void)state;
	buf[n++] = 8;
	memcpy(buf + n, "go1.19.8", 8);
	n += 8;
	assert_int_equal(bc_go_buildinfo_version(buf, n, NULL, NULL, v, sizeof(v)), 0);
	assert_string_equal(v, "go1.19.8");
	assert_int_equal(bc_go_version_minor(v), 19);
	/* a length past the section, a version that is no Go release, a short section */
	buf[32] = 60;
	assert_int_equal(bc_go_buildinfo_version(buf, n, NULL, NULL, v, sizeof(v)), -ENOEXEC);
	buf[32] = 8;
	memcpy(buf + 33, "hello!!!", 8);
	assert_int_equal(bc_go_buildinfo_version(buf, n, NULL, NULL, v, sizeof(v)), -ENOEXEC);
	assert_int_equal(bc_go_buildinfo_version(buf, 20, NULL, NULL, v, sizeof(v)), -ENOEXEC);
	/* a varint that never ends */
	memset(buf + 32, 0xff, 32);
	assert_int_equal(bc_go_buildinfo_version(buf, 64, NULL, NULL, v, sizeof(v)), -ENOEXEC);
}

/* Go before 1.18: pointers to a string header, then the string. */
static int read_at(void *ctx, uint64_t vaddr, void *buf, size_t len)
{
	static const uint64_t string_header[2] = {0x5000, 9};

	(void)ctx;
	if (vaddr == 0x4000 && len == sizeof(string_header)) {
		memcpy(buf, string_header, len);
		return 0;
	}
	if (vaddr == 0x5000 && len == 9) {
		memcpy(buf, "go1.17.13", 9);
		return 0;
	}
	return -ENOENT;
}

static void pointed_strings(void **state)
{
	uint8_t buf[32];
	uint64_t at = 0x4000;
	char v[48];

	(void)state;
	header(buf, 0);
	memcpy(buf + 16, &at, sizeof(at));
	assert_int_equal(bc_go_buildinfo_version(buf, 32, read_at, NULL, v, sizeof(v)), 0);
	assert_string_equal(v, "go1.17.13");
	assert_int_equal(bc_go_buildinfo_version(buf, 32, NULL, NULL, v, sizeof(v)), -ENOEXEC);
	at = 0x9000;
	memcpy(buf + 16, &at, sizeof(at));
	assert_int_equal(bc_go_buildinfo_version(buf, 32, read_at, NULL, v, sizeof(v)), -ENOEXEC);
}

static void release_numbers(void **state)
{
	(void)state;
	assert_int_equal(bc_go_version_minor("go1.22.1"), 22);
	assert_int_equal(bc_go_version_minor("devel go1.23-abc"), 23);
	assert_int_equal(bc_go_version_minor("go2"), -1);
	assert_int_equal(bc_go_version_minor("go1."), -1);
	assert_int_equal(bc_go_version_minor(NULL), -1);
}

static void entry_past_the_stack_check(void **state)
{
	/* main.deep as go 1.19 builds it: a big frame computes its bound first */
	const uint8_t big[] = {
		0x4c, 0x8d, 0xa4, 0x24, 0x60, 0xfe, 0xff, 0xff, /* 0  lea -0x1a0(%rsp),%r12 */
		0x4d, 0x3b, 0x66, 0x10,				/* 8  cmp 0x10(%r14),%r12 */
		0x0f, 0x86, 0xc6, 0x00, 0x00, 0x00,		/* 12 jbe morestack */
		0x48, 0x81, 0xec, 0x20, 0x02, 0x00, 0x00,	/* 18 sub $0x220,%rsp */
	};
	const uint8_t small[] = {
		0x49, 0x3b, 0x66, 0x10,		    /* 0  cmp 0x10(%r14),%rsp */
		0x0f, 0x86, 0xda, 0x00, 0x00, 0x00, /* 4  jbe morestack */
		0x48, 0x83, 0xec, 0x50,		    /* 10 sub $0x50,%rsp */
	};
	/* a leaf without a stack check: shl %rax; ret */
	const uint8_t leaf[] = {0x48, 0xd1, 0xe0, 0xc3};
	/* a check on another register's bound is no stack check: cmp 0x10(%r13),%rsp; jbe */
	const uint8_t other[] = {0x49, 0x3b, 0x65, 0x10, 0x0f, 0x86, 0xda, 0x00, 0x00, 0x00, 0xc3};

	(void)state;
	assert_int_equal(bc_go_entry_offset(big, sizeof(big), ADDR, OFFSET), OFFSET + 18);
	assert_int_equal(bc_go_entry_offset(small, sizeof(small), ADDR, OFFSET), OFFSET + 10);
	assert_int_equal(bc_go_entry_offset(leaf, sizeof(leaf), ADDR, OFFSET), OFFSET);
	assert_int_equal(bc_go_entry_offset(other, sizeof(other), ADDR, OFFSET), OFFSET);
	/* the code ends at the jump: nothing after it to probe */
	assert_int_equal(bc_go_entry_offset(small, 10, ADDR, OFFSET), OFFSET);
}

static void refusals(void **state)
{
	struct bc_go_binary gb = {.version = "go1.19.8", .minor = 19, .goid_offset = 152};
	char why[256];

	(void)state;
	assert_int_equal(bc_go_binary_check("p", &gb, BC_RETURNS_AUTO, why, sizeof(why)), 0);
	assert_int_equal(bc_go_binary_check("p", &gb, BC_RETURNS_SITES, why, sizeof(why)), 0);
	assert_int_equal(bc_go_binary_check("p", &gb, BC_RETURNS_URETPROBE, why, sizeof(why)),
			 -EPERM);
	assert_non_null(strstr(why, "uretprobe"));
	gb.minor = 16;
	assert_int_equal(bc_go_binary_check("p", &gb, BC_RETURNS_AUTO, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "1.17"));
	gb.minor = 23;
	gb.goid_offset = 0;
	assert_int_equal(bc_go_binary_check("p", &gb, BC_RETURNS_AUTO, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "DWARF"));
	gb.minor = -1;
	assert_int_equal(bc_go_binary_check("p", &gb, BC_RETURNS_AUTO, why, sizeof(why)), -EPERM);
}

/* This test's own file is ELF but no Go; a missing file is an error. */
static void not_go(void **state)
{
	struct bc_go_binary gb;

	(void)state;
	assert_int_equal(bc_go_binary_read("/proc/self/exe", &gb), 0);
	assert_int_equal(bc_go_binary_read("/nonexistent/go", &gb), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(inline_strings),  cmocka_unit_test(pointed_strings),
		cmocka_unit_test(release_numbers), cmocka_unit_test(entry_past_the_stack_check),
		cmocka_unit_test(refusals),	   cmocka_unit_test(not_go),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
