// SPDX-License-Identifier: MIT
/*
 * locked N: tgt_locked starts with a LOCK-prefixed instruction, which
 * uprobes cannot probe; tgt_plain is an ordinary function. Both run N times.
 * A tracer must say it cannot trace tgt_locked, and still trace tgt_plain.
 */
#include <stdio.h>
#include <stdlib.h>

void tgt_locked(long *counter);
__asm__(".text\n"
	".globl tgt_locked\n"
	".type tgt_locked, @function\n"
	"tgt_locked:\n"
	"	lock incq (%rdi)\n"
	"	ret\n"
	".size tgt_locked, .-tgt_locked\n");

__attribute__((noinline)) void tgt_plain(long *counter)
{
	__asm__ volatile("" ::: "memory");
	(*counter)++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, locked = 0, plain = 0;

	for (long i = 0; i < n; i++) {
		tgt_locked(&locked);
		tgt_plain(&plain);
	}
	printf("tgt_locked %ld\ntgt_plain %ld\n", locked, plain);
	return 0;
}
