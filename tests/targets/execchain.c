// SPDX-License-Identifier: MIT
/*
 * execchain N: calls tgt_generation(N), then execs itself with N - 1, down
 * to 0: N + 1 generations of one process, each an image of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "traced.h"

TRACED int tgt_generation(int n)
{
	return n;
}

int main(int argc, char **argv)
{
	char next[16];
	int n = argc > 1 ? atoi(argv[1]) : 0;

	if (tgt_generation(n) <= 0) {
		printf("last generation\n");
		return 0;
	}
	snprintf(next, sizeof(next), "%d", n - 1);
	execl("/proc/self/exe", argv[0], next, (char *)NULL);
	perror("execchain: exec");
	return 1;
}
