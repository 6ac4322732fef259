// SPDX-License-Identifier: MIT
/*
 * manyfn N: 64 functions tgt_f00 ... tgt_f63, each called N times, for the
 * kernels without uprobe_multi, where every function is two perf uprobes
 * whose removal takes a grace period each (tests/integration/kernels.sh).
 *
 * Output: "calls TOTAL", the calls the functions counted themselves.
 */
#include <stdio.h>
#include <stdlib.h>

#include "traced.h"

static volatile long counted;

/* macro calls that make definitions, eight to a line */
/* clang-format off */
#define F(n) TRACED void tgt_f##n(void) { counted++; }
#define F8(d) F(d##0) F(d##1) F(d##2) F(d##3) F(d##4) F(d##5) F(d##6) F(d##7)
F8(0) F8(1) F8(2) F8(3) F8(4) F8(5) F8(6) F8(7)

#define C(n) tgt_f##n,
#define C8(d) C(d##0) C(d##1) C(d##2) C(d##3) C(d##4) C(d##5) C(d##6) C(d##7)
static void (*const funcs[])(void) = {C8(0) C8(1) C8(2) C8(3) C8(4) C8(5) C8(6) C8(7)};
/* clang-format on */

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;

	for (long i = 0; i < n; i++)
		for (size_t k = 0; k < sizeof(funcs) / sizeof(funcs[0]); k++)
			funcs[k]();
	printf("calls %ld\n", counted);
	return 0;
}
