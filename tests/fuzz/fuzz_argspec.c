// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the --arg and --retval parser and the canonical SPEC
 * text (the functions file of an experiment) on any string. Whatever
 * parses must format, and the formatted text must parse to the same spec.
 * `make fuzz` runs it from tests/fuzz/corpus/argspec/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/argspec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const struct bc_capture_spec *s)
{
	char text[BC_CAPTURE_TEXT_MAX], err[256];
	struct bc_capture_spec again;

	if (bc_capture_spec_check(s, err, sizeof(err)) < 0)
		return;
	if (bc_capture_spec_format(s, text, sizeof(text)) < 0)
		abort(); /* BC_CAPTURE_TEXT_MAX always suffices */
	if (bc_capture_spec_parse_text(text, &again, err, sizeof(err)) < 0 ||
	    memcmp(&again, s, sizeof(again)))
		abort(); /* format, then parse, gives the spec back */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[256];
	struct bc_capture_spec spec;
	struct bc_argspec a;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	for (int retval = 0; retval < 2; retval++) {
		if (bc_argspec_parse(text, retval, 64, &a, err, sizeof(err)) == 0)
			round_trip(&a.spec);
		bc_argspec_free(&a);
	}
	if (bc_capture_spec_parse_text(text, &spec, err, sizeof(err)) == 0)
		round_trip(&spec);
	free(text);
	return 0;
}
