/* SPDX-License-Identifier: MIT */
/* Helpers every report table uses to size its columns. */
#ifndef BPFCOLLECT_TABLE_H
#define BPFCOLLECT_TABLE_H

#include <stdio.h>
#include <string.h>

static inline int bc_max_int(int a, int b)
{
	return a > b ? a : b;
}

static inline int bc_slen(const char *s)
{
	return (int)strlen(s);
}

/* A line of width dashes under a column heading. */
static inline void bc_print_rule(FILE *out, int width)
{
	for (int i = 0; i < width; i++)
		fputc('-', out);
}

#endif
