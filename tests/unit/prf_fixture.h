/* SPDX-License-Identifier: MIT */
/* Shared by the PRF unit tests: reading their CSV output back. */
#ifndef BPFCOLLECT_TESTS_PRF_FIXTURE_H
#define BPFCOLLECT_TESTS_PRF_FIXTURE_H

#include <stddef.h>

/* Splits a CSV line (RFC 4180, no newline inside) into at most max fields; returns the count. */
static inline int csv_split(const char *line, char fields[][600], int max)
{
	int n = 0;

	for (const char *p = line;; n++) {
		size_t k = 0;

		if (n == max)
			return -1;
		if (*p == '"') {
			for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
				if (*p == '"')
					p++;
				fields[n][k++] = *p;
			}
			if (*p == '"')
				p++;
		} else {
			while (*p && *p != ',' && *p != '\n')
				fields[n][k++] = *p++;
		}
		fields[n][k] = '\0';
		if (*p != ',')
			return n + 1;
		p++;
	}
}

#endif
