// SPDX-License-Identifier: MIT
/*
 * args [N]: calls traced functions taking and returning every kind of value
 * --arg/--retval capture, N times each (default 1), with fixed arguments, and
 * prints what it passed, so a test can compare captured values to it.
 *
 * One iteration calls, in this order:
 *   tgt_ints       int, long, unsigned, short, char, long long; returns int
 *   tgt_ptr        twice: a pointer to a static object, then NULL; returns it
 *   tgt_str        the 10-byte string "0123456789"; returns "returned!"
 *   tgt_longstr    a 2000-byte string 'A' + i % 26; returns its strlen
 *   tgt_buf        16 bytes with NULs in them, and 16; returns 16
 *   tgt_doubles    3.25, -1e300, 1.5f; returns 6.5
 *   tgt_mixed      int, double, string, long interleaved; returns a + b
 *   tgt_unreadable a pointer into a PROT_NONE page; returns it (so both an
 *                  arg1/s and a retval/s capture fault)
 *
 * Output (stdout), after the calls, one line per call of one iteration
 * (every iteration passes the same values and gets the same results):
 *   calls N
 *   tgt_ints -42 -1234567890123 4000000000 -7 90 -9223372036854775808 ret=-5
 *   tgt_ptr 0x55d0c0a1b010 ret=0x55d0c0a1b010
 *   tgt_ptr 0x0 ret=0x0
 *   tgt_str "0123456789" ret="returned!"
 *   tgt_longstr len=2000 first8=ABCDEFGH last8=QRSTUVWX ret=2000
 *   tgt_buf 616200636400006566ff007f8001fe00 n=16 ret=16
 *   tgt_doubles 3.25 -1.0000000000000001e+300 1.5 ret=6.5
 *   tgt_mixed 7 -0.5 "mixed" -9876543210 ret=-9876543203
 *   tgt_unreadable 0x7f1e2d3c4000 ret=0x7f1e2d3c4000
 * Integers are decimal (the char as its code), pointers 0x%lx, the buffer
 * its bytes in hex, doubles %.17g, the float %.9g.
 *
 * Registers (SysV x86-64: integer and pointer arguments take rdi, rsi, rdx,
 * rcx, r8, r9 in order; floating-point ones take xmm0..xmm7 in order, each
 * class counted on its own; a float is the low 32 bits of its xmm register):
 *   tgt_ints(a rdi, b rsi, c rdx, d rcx, e r8, f r9)
 *   tgt_doubles(x xmm0, y xmm1, z xmm2 as a float)
 *   tgt_mixed(a rdi, x xmm0, s rsi, b rdx): arg1/d32, fparg1, arg2/s, arg3/d64
 * An argument narrower than 64 bits fills only the low bits of its register;
 * the ABI leaves the rest unspecified (in practice int -42 is 0xffffffd6 with
 * the upper half zero). Capture at the width of the type: arg1/d32 for a,
 * arg3/u32 for c, arg4/d16 for d, arg5/c or arg5/d8 for e; b and f are
 * arg2/d64 and arg6/d64. retval of tgt_ints is retval/d32.
 *
 * The functions only move values and write a volatile sink: no atomics (a
 * LOCK-prefixed first instruction cannot be uprobed) and the build has no
 * -fcf-protection, so no endbr64 either.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "traced.h"

#define LONGSTR_LEN 2000
#define BUF_LEN	    16

/* What is passed: each value written once, for the call and for the output. */
#define INTS_A	(-42)
#define INTS_B	(-1234567890123L)
#define INTS_C	4000000000u
#define INTS_D	((short)-7)
#define INTS_E	'Z'
#define INTS_F	((long long)INT64_MIN)
#define STR_ARG "0123456789"
#define STR_RET "returned!"
#define DBL_X	3.25
#define DBL_Y	(-1e300)
#define DBL_Z	1.5f
#define MIXED_A 7
#define MIXED_X (-0.5)
#define MIXED_S "mixed"
#define MIXED_B (-9876543210L)

static volatile unsigned long sink;

TRACED int tgt_ints(int a, long b, unsigned c, short d, char e, long long f)
{
	sink = (unsigned long)a + (unsigned long)b + c + (unsigned long)d + (unsigned long)e +
	       (unsigned long)f;
	return -5;
}

TRACED void *tgt_ptr(void *p)
{
	sink = (unsigned long)(uintptr_t)p;
	return p;
}

TRACED const char *tgt_str(const char *s)
{
	sink = (unsigned long)(uintptr_t)s;
	return STR_RET;
}

TRACED size_t tgt_longstr(const char *s)
{
	size_t n = strlen(s); /* not a tail call: tgt_longstr keeps its own return */

	sink = n;
	return n;
}

TRACED int tgt_buf(const void *p, size_t n)
{
	const unsigned char *b = p;
	unsigned long sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum = sum * 31 + b[i];
	sink = sum;
	return (int)n;
}

TRACED double tgt_doubles(double x, double y, float z)
{
	sink = (unsigned long)(y < 0) + (unsigned long)(z > 0);
	return x * 2;
}

TRACED long tgt_mixed(int a, double x, const char *s, long b)
{
	sink = (unsigned long)(uintptr_t)s + (unsigned long)(x < 0);
	return a + b;
}

/* Never reads s: it points to memory nobody may read. */
TRACED const char *tgt_unreadable(const char *s)
{
	sink = (unsigned long)(uintptr_t)s;
	return s;
}

static char ptr_target[32];

static const unsigned char buf_bytes[BUF_LEN] = {
	'a', 'b', 0, 'c', 'd', 0, 0, 'e', 'f', 0xff, 0x00, 0x7f, 0x80, 0x01, 0xfe, 0x00,
};

struct results {
	int ints;
	void *ptr, *null;
	const char *str;
	size_t longstr;
	int buf;
	double doubles;
	long mixed;
	const char *unreadable;
};

static void call_all(const char *longstr, const char *unreadable, struct results *r)
{
	r->ints = tgt_ints(INTS_A, INTS_B, INTS_C, INTS_D, INTS_E, INTS_F);
	r->ptr = tgt_ptr(ptr_target);
	r->null = tgt_ptr(NULL);
	r->str = tgt_str(STR_ARG);
	r->longstr = tgt_longstr(longstr);
	r->buf = tgt_buf(buf_bytes, BUF_LEN);
	r->doubles = tgt_doubles(DBL_X, DBL_Y, DBL_Z);
	r->mixed = tgt_mixed(MIXED_A, MIXED_X, MIXED_S, MIXED_B);
	r->unreadable = tgt_unreadable(unreadable);
}

int main(int argc, char **argv)
{
	struct results first, r;
	long n = 1, i;
	char *longstr;
	char *page;
	int k;

	if (argc > 2 || (argc == 2 && (n = strtol(argv[1], NULL, 10)) < 1)) {
		fprintf(stderr, "usage: args [N]   (N >= 1 calls of each function)\n");
		return 2;
	}

	longstr = malloc(LONGSTR_LEN + 1);
	if (!longstr)
		return 1;
	for (k = 0; k < LONGSTR_LEN; k++)
		longstr[k] = (char)('A' + k % 26);
	longstr[LONGSTR_LEN] = 0;
	page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (page == MAP_FAILED) {
		perror("args: mmap");
		return 1;
	}

	call_all(longstr, page, &first);
	for (i = 1; i < n; i++) {
		call_all(longstr, page, &r);
		if (r.ints != first.ints || r.ptr != first.ptr || r.null != first.null ||
		    r.str != first.str || r.longstr != first.longstr || r.buf != first.buf ||
		    r.doubles != first.doubles || r.mixed != first.mixed ||
		    r.unreadable != first.unreadable) {
			fprintf(stderr, "args: call %ld returned something else\n", i + 1);
			return 1;
		}
	}

	printf("calls %ld\n", n);
	printf("tgt_ints %d %ld %u %d %d %lld ret=%d\n", INTS_A, INTS_B, INTS_C, INTS_D, INTS_E,
	       INTS_F, first.ints);
	printf("tgt_ptr 0x%lx ret=0x%lx\n", (unsigned long)(uintptr_t)ptr_target,
	       (unsigned long)(uintptr_t)first.ptr);
	printf("tgt_ptr 0x%lx ret=0x%lx\n", 0ul, (unsigned long)(uintptr_t)first.null);
	printf("tgt_str \"%s\" ret=\"%s\"\n", STR_ARG, first.str);
	printf("tgt_longstr len=%zu first8=%.8s last8=%s ret=%zu\n", strlen(longstr), longstr,
	       longstr + LONGSTR_LEN - 8, first.longstr);
	printf("tgt_buf ");
	for (k = 0; k < BUF_LEN; k++)
		printf("%02x", buf_bytes[k]);
	printf(" n=%d ret=%d\n", BUF_LEN, first.buf);
	printf("tgt_doubles %.17g %.17g %.9g ret=%.17g\n", DBL_X, DBL_Y, (double)DBL_Z,
	       first.doubles);
	printf("tgt_mixed %d %.17g \"%s\" %ld ret=%ld\n", MIXED_A, MIXED_X, MIXED_S, MIXED_B,
	       first.mixed);
	printf("tgt_unreadable 0x%lx ret=0x%lx\n", (unsigned long)(uintptr_t)page,
	       (unsigned long)(uintptr_t)first.unreadable);

	munmap(page, (size_t)sysconf(_SC_PAGESIZE));
	free(longstr);
	return 0;
}
