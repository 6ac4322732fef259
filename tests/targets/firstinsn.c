// SPDX-License-Identifier: MIT
/*
 * FIRSTINSN_DELAY_MS in the environment: sleep that long first, so a tracer
 * can attach by pid before the loop (the agent's own CPU is then measured
 * apart from the program's).
 *
 * firstinsn getppid N: N getppid system calls instead (the syscall tracers'
 * measure).
 *
 * firstinsn KIND N: calls fi_KIND() N times in a tight loop and prints
 * "elapsed_ns=NS calls=N" for the loop alone. Each fi_* function is written
 * in assembly so its first instruction is exactly the one its name says,
 * whatever the compiler's flags: what a uprobe costs depends on it (the
 * kernel emulates push and nop, single-steps the rest).
 *
 *   push    push %rbp            (functions built with frame pointers)
 *   nop5    nopl 0(%rax,%rax,1)  (-pg -mnop-mcount, -fpatchable-function-entry)
 *   endbr   endbr64; push %rbp   (every function of a CET build, -fcf-protection)
 *   sub     sub $8,%rsp          (leaf functions without a frame pointer)
 *
 * After the first instruction each does the same work: it returns its
 * argument plus one, with a frame (push/pop %rbp), so entry and return
 * probes see the same stack either way. tools/bench-cost.sh measures each
 * untraced, under the floor tracer and under the tracers it compares.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

__asm__(".text\n"
	".globl fi_push\n.type fi_push,@function\n"
	"fi_push:\n"
	"	push %rbp\n"
	"	mov %rsp,%rbp\n"
	"	lea 1(%rdi),%rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size fi_push,.-fi_push\n"
	".globl fi_nop5\n.type fi_nop5,@function\n"
	"fi_nop5:\n"
	"	.byte 0x0f,0x1f,0x44,0x00,0x00\n"
	"	push %rbp\n"
	"	mov %rsp,%rbp\n"
	"	lea 1(%rdi),%rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size fi_nop5,.-fi_nop5\n"
	".globl fi_endbr\n.type fi_endbr,@function\n"
	"fi_endbr:\n"
	"	.byte 0xf3,0x0f,0x1e,0xfa\n"
	"	push %rbp\n"
	"	mov %rsp,%rbp\n"
	"	lea 1(%rdi),%rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size fi_endbr,.-fi_endbr\n"
	".globl fi_sub\n.type fi_sub,@function\n"
	"fi_sub:\n"
	"	sub $8,%rsp\n"
	"	push %rbp\n"
	"	mov %rsp,%rbp\n"
	"	lea 1(%rdi),%rax\n"
	"	pop %rbp\n"
	"	add $8,%rsp\n"
	"	ret\n"
	".size fi_sub,.-fi_sub\n");

long fi_push(long x);
long fi_nop5(long x);
long fi_endbr(long x);
long fi_sub(long x);

/* getppid's answer never changes: the loop below adds it N times. */
static long sys_getppid(long x)
{
	(void)x;
	return syscall(SYS_getppid) > 0;
}

static const struct {
	const char *name;
	long (*fn)(long);
} kinds[] = {
	{"push", fi_push}, {"nop5", fi_nop5},	     {"endbr", fi_endbr},
	{"sub", fi_sub},   {"getppid", sys_getppid},
};

static long long monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long (*fn)(long) = NULL;
	volatile long sum = 0;
	long long t0, t1;
	char *end;
	long n;

	if (argc != 3) {
		fprintf(stderr, "usage: firstinsn push|nop5|endbr|sub|getppid N\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(argv[1], kinds[i].name) == 0)
			fn = kinds[i].fn;
	n = strtol(argv[2], &end, 10);
	if (!fn || *end || n < 0) {
		fprintf(stderr, "firstinsn: unknown kind '%s' or bad count '%s'\n", argv[1],
			argv[2]);
		return 2;
	}
	if (getenv("FIRSTINSN_DELAY_MS"))
		usleep((useconds_t)(1000 * atoi(getenv("FIRSTINSN_DELAY_MS"))));
	t0 = monotonic_ns();
	for (long i = 0; i < n; i++)
		sum = sum + fn(i);
	t1 = monotonic_ns();
	printf("elapsed_ns=%lld calls=%ld\n", t1 - t0, n);
	return sum == (fn == sys_getppid ? n : (n * (n + 1)) / 2) ? 0 : 1;
}
