// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the compact block decoder (reccodec.h) on any bytes, as
 * a block's payload. Whatever it accepts must come back the same through
 * the encoder: the records decoded, encoded again into blocks as the writer
 * does, decode to the same bytes. `make fuzz` runs it from
 * tests/fuzz/corpus/reccodec/ (blocks of real recordings among them).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/reccodec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decoded records take at most 112 bytes for each encoded one of 2 or more. */
#define OUT_CAP(size) (64 * (size) + 128)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bc_rc_state *st = malloc(sizeof(*st));
	uint8_t *out = aligned_alloc(8, OUT_CAP(size)), *enc = NULL, *again = NULL;
	size_t used = 0, enc_len = 0, start = 0, again_used = 0;
	int n;

	if (!st || !out)
		abort();
	n = bc_rc_decode(st, data, size, out, OUT_CAP(size), &used);
	if (n < 0)
		goto out;
	enc = malloc(used + 64 * (size_t)n + 64);
	again = aligned_alloc(8, used + 8);
	if (!enc || !again)
		abort();
	bc_rc_reset(st);
	for (size_t off = 0; off < used;) {
		const struct bc_rec_head *h = (const void *)(out + off);
		int k = bc_rc_encode(st, h, enc + enc_len);

		if (k == -ENOSPC) {
			/* a new block, decoded on its own */
			if (bc_rc_decode(st, enc + start, enc_len - start, again, used,
					 &again_used) < 0)
				abort();
			start = enc_len;
			bc_rc_reset(st);
			k = bc_rc_encode(st, h, enc + enc_len);
		}
		if (k <= 0)
			abort();
		enc_len += (size_t)k;
		off += h->size;
	}
	{
		struct bc_rc_state *d = malloc(sizeof(*d));

		if (!d ||
		    bc_rc_decode(d, enc + start, enc_len - start, again, used, &again_used) < 0)
			abort();
		free(d);
	}
	if (again_used != used || memcmp(again, out, used))
		abort();
out:
	free(again);
	free(enc);
	free(out);
	free(st);
	return 0;
}
