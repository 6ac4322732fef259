// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the XML tokenizer that reads log.xml and map.xml, on
 * any bytes: every element, its attributes and text, to the end or the
 * first error, from memory and streamed from a file in short reads (both
 * must give the same elements and end); then the escaping round trip of
 * the input as a string and the time stamp parser. `make fuzz` runs it
 * from tests/fuzz/corpus/xml/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpfcollect/xml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every element and the end of a parse as text; NULL when out of memory. */
static char *parse_all(struct bc_xml *x)
{
	struct bc_xml_elem e;
	unsigned int line;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int rc;

	if (!f)
		return NULL;
	while ((rc = bc_xml_next(x, &e)) == 1) {
		fprintf(f, "<%s %u %u", e.name, e.depth, e.line);
		for (size_t i = 0; i < e.nattrs; i++) {
			if (bc_xml_attr(&e, e.attrs[i].name) == NULL)
				abort(); /* an attribute it listed is not found */
			fprintf(f, " %s=[%s]", e.attrs[i].name, e.attrs[i].value);
		}
		fprintf(f, " [%s]>\n", e.text);
	}
	fprintf(f, "end %d", rc);
	if (rc < 0) {
		const char *msg = bc_xml_error(x, &line);

		if (!msg)
			abort(); /* every error is described */
		fprintf(f, " %u %s", line, msg);
	}
	fclose(f);
	return out;
}

/* The same bytes streamed from a file: the same parse, however the reads are cut. */
static void check_stream(const uint8_t *data, size_t size, const char *want)
{
	int fd = memfd_create("fuzz_xml", MFD_CLOEXEC);
	struct bc_xml x;
	char *got;

	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return;
	}
	bc_xml_init_fd(&x, fd, size);
	/* every read boundary in a small input; a big one in ~64 reads, or rescans take long */
	x.chunk = (size > 1024 ? size / 64 : 1) + (size ? data[size - 1] % 16 : 0);
	got = parse_all(&x);
	bc_xml_fini(&x);
	/* out of memory may come at another point: only whole parses compare */
	if (got && strcmp(got, want) && !strstr(got, "out of memory") &&
	    !strstr(want, "out of memory"))
		abort();
	free(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *esc, *back, *want, stamp[BC_XML_TSTAMP_LEN];
	struct bc_xml x;
	uint64_t ns;
	size_t n;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = 0;
	bc_xml_init(&x, copy, size);
	want = parse_all(&x);
	bc_xml_fini(&x);
	if (want)
		check_stream(data, size, want);
	free(want);
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
