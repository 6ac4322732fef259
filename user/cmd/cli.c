// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "bpfcollect/cli.h"

void bc_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("bpfcollect: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
