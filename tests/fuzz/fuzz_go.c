// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: what the agent reads of a Go binary's bytes, on any
 * bytes: the .go.buildinfo section (both layouts; the older one's
 * pointers answered from the input itself) and the entry past the stack
 * check (always inside the code given). `make fuzz` runs it from
 * tests/fuzz/corpus/go/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/go_binary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct input {
	const uint8_t *data;
	size_t size;
};

/* Virtual addresses are offsets into the input. */
static int read_at(void *ctx, uint64_t vaddr, void *buf, size_t len)
{
	const struct input *in = ctx;

	if (vaddr > in->size || len > in->size - vaddr)
		return -1;
	memcpy(buf, in->data + vaddr, len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	char version[48];
	uint64_t entry;

	if (bc_go_buildinfo_version(data, size, read_at, &in, version, sizeof(version)) == 0 &&
	    (strlen(version) >= sizeof(version) || bc_go_version_minor(version) < 0))
		abort(); /* a version read is a terminated Go release name */
	entry = bc_go_entry_offset(data, size, 0x401000, 0x1000);
	if (entry < 0x1000 || entry > 0x1000 + size)
		abort(); /* the entry is in the code */
	return 0;
}
