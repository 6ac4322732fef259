// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: rtl-stat's reader on any bytes, split into up to three
 * files (at the first two NUL-free '\x01' bytes) so state carried from one
 * file to the next is exercised too; then the table, sorted and printed.
 * `make fuzz` runs it for FUZZ_SECONDS from tests/fuzz/corpus/rtl_stat/.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bpfcollect/rtl_stat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct bc_rtl_stat s;
	FILE *null = fopen("/dev/null", "w");

	bc_rtl_stat_init(&s, size && (data[0] & 1));
	for (int file = 0; file < 3 && p <= end; file++) {
		const char *cut = file < 2 ? memchr(p, '\x01', (size_t)(end - p)) : NULL;
		size_t n = (size_t)((cut ? cut : end) - p);

		if (bc_rtl_stat_feed(&s, "fuzz", p, n) < 0)
			break;
		if (!cut)
			break;
		p = cut + 1;
	}
	bc_rtl_stat_sort(&s);
	if (null) {
		bc_rtl_stat_print(&s, null, false);
		bc_rtl_stat_print(&s, null, true);
		fclose(null);
	}
	bc_rtl_stat_free(&s);
	return 0;
}
