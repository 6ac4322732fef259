// SPDX-License-Identifier: MIT
#include <stdio.h>

int main(void)
{
	printf("bpfcollect " BPFCOLLECT_VERSION "\n");
	return 0;
}
