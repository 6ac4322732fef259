// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the XML tokenizer that reads log.xml and map.xml, on
 * any bytes: every element, its attributes and text, to the end or the
 * first error; then the escaping round trip of the input as a string and
 * the time stamp parser. `make fuzz` runs it from tests/fuzz/corpus/xml/.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *esc, *back, stamp[BC_XML_TSTAMP_LEN];
	struct bc_xml_elem e;
	struct bc_xml x;
	unsigned int line;
	uint64_t ns;
	size_t n;
	int rc;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = 0;
	bc_xml_init(&x, copy, size);
	while ((rc = bc_xml_next(&x, &e)) == 1) {
		for (size_t i = 0; i < e.nattrs; i++)
			if (bc_xml_attr(&e, e.attrs[i].name) == NULL)
				abort(); /* an attribute it listed is not found */
		bc_xml_attr(&e, "tstamp");
	}
	if (rc < 0 && !bc_xml_error(&x, &line))
		abort(); /* every error is described */
	bc_xml_fini(&x);
	/* what escaping writes, decoding gives back (the input as one C string) */
	esc = bc_xml_escape_dup(copy);
	if (esc) {
		back = malloc(strlen(esc) + 1);
		if (back) {
			n = bc_xml_decode(back, esc, strlen(esc));
			if (n != strlen(copy) || memcmp(back, copy, n))
				abort();
			free(back);
		}
		free(esc);
	}
	if (bc_xml_parse_tstamp(copy, &ns))
		bc_xml_format_tstamp(stamp, ns);
	free(copy);
	return 0;
}
