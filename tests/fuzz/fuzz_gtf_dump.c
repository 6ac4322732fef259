// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: gtf-dump's reader on any bytes: every record parsed,
 * split series joined, bpfcollect's events decoded, problems reported.
 * The first byte picks the options (hex, parts, job name charset) so all
 * of them are exercised. `make fuzz` runs it for FUZZ_SECONDS from
 * tests/fuzz/corpus/gtf_dump/ (records of a real recording among them).
 */
#include <stdint.h>
#include <stdio.h>

#include "bpfcollect/gtf_dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct bc_gtf_dump_opts o = {0};
	struct bc_gtf_dump_stats st;

	if (!null)
		null = fopen("/dev/null", "w");
	if (!null || !size)
		return 0;
	o.no_hex = data[0] & 1;
	o.no_parts = data[0] & 2;
	o.charset = (enum bc_gtf_charset)((data[0] >> 2) % 3);
	o.max_problems = (data[0] >> 4) & 3;
	bc_gtf_dump(data + 1, size - 1, "fuzz", &o, null, null, &st);
	return 0;
}
