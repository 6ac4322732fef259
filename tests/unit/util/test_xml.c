// SPDX-License-Identifier: MIT
/*
 * The XML dialect of log.xml and map.xml: gprofng's escapes (XML entities
 * and %-escapes), its timestamps (seconds.nanoseconds, a short fraction
 * counting nanoseconds), and the tokenizer the reader uses, on whole, torn
 * and malformed documents.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/xml.h"

#define NS 1000000000ULL
#define T0 (1000 * NS + 123456789) /* a session start, CLOCK_MONOTONIC ns */

static void test_xml_escape(void **state)
{
	const char *src = "a<b>&\"c' 100% \t\n\x7f\xc3\xa9";
	char buf[128], small[8];
	size_t n;

	(void)state;
	n = bc_xml_escape(buf, sizeof(buf), src);
	assert_string_equal(buf, "a&lt;b&gt;&amp;&quot;c' 100%25% %09%%0a%%7f%\xc3\xa9");
	assert_int_equal(n, strlen(buf));
	assert_int_equal(bc_xml_escape(small, sizeof(small), src), n); /* like snprintf */
	assert_string_equal(small, "a&lt;b&");
	{
		char out[128];

		assert_int_equal(bc_xml_decode(out, buf, n), strlen(src));
		assert_string_equal(out, src);
		/* what other writers may use; unknown escapes stay as they are */
		const char *other = "&apos;&#65;&#x42;&#x20ac;%41%%4%&bogus;%00%";

		bc_xml_decode(out, other, strlen(other));
		assert_string_equal(out, "'AB\xe2\x82\xac"
					 "A%4%&bogus;%00%");
	}
}

static void test_xml_tstamp(void **state)
{
	char t[BC_XML_TSTAMP_LEN];
	uint64_t ns;

	(void)state;
	assert_string_equal(bc_xml_format_tstamp(t, T0), "1000.123456789");
	assert_string_equal(bc_xml_format_tstamp(t, 5), "0.000000005");
	assert_true(bc_xml_parse_tstamp("1000.123456789", &ns));
	assert_int_equal(ns, T0);
	assert_true(bc_xml_parse_tstamp("0.5", &ns)); /* gprofng: 5 ns, not half a second */
	assert_int_equal(ns, 5);
	assert_true(bc_xml_parse_tstamp("7", &ns));
	assert_int_equal(ns, 7 * NS);
	assert_false(bc_xml_parse_tstamp("1.1234567890", &ns));
	assert_false(bc_xml_parse_tstamp("-1.0", &ns));
	assert_false(bc_xml_parse_tstamp("1.0x", &ns));
	assert_false(bc_xml_parse_tstamp("99999999999999999999.0", &ns));
	assert_false(bc_xml_parse_tstamp("", &ns));
}

static void test_xml_tokenizer(void **state)
{
	const char doc[] = "<?xml version=\"1.0\"?>\n<!-- c <x> -->\n"
			   "<experiment version=\"12.4\">\n<collector>bpf %25% &amp;</collector>\n"
			   "</experiment>\n<system a='1' b = \"x&lt;y\">\n  <cpu id=\"0\"/>\n"
			   "</system>\n\0\0\0<event kind=\"exit\" tstamp=\"1.000000000\"/>\n";
	struct bc_xml x;
	struct bc_xml_elem e;
	unsigned int line;

	(void)state;
	bc_xml_init(&x, doc, sizeof(doc) - 1);
	assert_int_equal(bc_xml_next(&x, &e), 1);
	assert_string_equal(e.name, "experiment");
	assert_string_equal(bc_xml_attr(&e, "version"), "12.4");
	assert_int_equal(e.depth, 0);
	assert_int_equal(e.line, 3);
	assert_int_equal(bc_xml_next(&x, &e), 1);
	assert_string_equal(e.name, "collector");
	assert_string_equal(e.text, "bpf % &");
	assert_int_equal(e.depth, 1);
	assert_int_equal(bc_xml_next(&x, &e), 1);
	assert_string_equal(e.name, "system");
	assert_int_equal(e.nattrs, 2);
	assert_string_equal(bc_xml_attr(&e, "a"), "1");
	assert_string_equal(bc_xml_attr(&e, "b"), "x<y");
	assert_null(bc_xml_attr(&e, "c"));
	assert_int_equal(bc_xml_next(&x, &e), 1);
	assert_string_equal(e.name, "cpu");
	assert_int_equal(e.depth, 1);
	assert_int_equal(e.line, 7);
	assert_int_equal(bc_xml_next(&x, &e), 1); /* NUL padding skipped */
	assert_string_equal(e.name, "event");
	assert_int_equal(e.line, 9);
	assert_int_equal(bc_xml_next(&x, &e), 0);
	assert_int_equal(bc_xml_next(&x, &e), 0);
	bc_xml_fini(&x);

	static const struct {
		const char *doc;
		int ret;
		unsigned int line;
		const char *msg;
	} bad[] = {
		{"<a>\n<b x=\"1", -ENODATA, 2, "<b is incomplete"},
		{"<a>\n<b/>", -ENODATA, 2, "<a> is not closed"},
		{"<a>text", -ENODATA, 1, "<a> is not closed"},
		{"<a", -ENODATA, 1, "<a is incomplete"},
		{"<", -ENODATA, 1, "incomplete tag"},
		{"<!-- x", -ENODATA, 1, "unterminated"},
		{"<a>x</a", -ENODATA, 1, "not closed"},
		{"\n\n< a/>", -EINVAL, 3, "not followed by an element name"},
		{"<a b=1/>", -EINVAL, 1, "value must be quoted"},
		{"<a b/>", -EINVAL, 1, "attribute b of <a> has no value"},
		{"<a 1=\"x\"/>", -EINVAL, 1, "bad attribute in <a>"},
		{"<a <b/>", -EINVAL, 1, "inside the tag"},
		{"<a>\n</b>", -EINVAL, 2, "closed by another end tag"},
		{"</a>", -EINVAL, 1, "closes nothing"},
		{"<a>\n<c/>\n</b>", -EINVAL, 3, "</b> does not close <a>"},
		{"<a><a><a><a><a><a><a><a><a><a><a><a><a><a><a><a><a><b/>", -EINVAL, 1, "too deep"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret;

		bc_xml_init(&x, bad[i].doc, strlen(bad[i].doc));
		while ((ret = bc_xml_next(&x, &e)) > 0)
			;
		if (ret != bad[i].ret || !strstr(bc_xml_error(&x, &line), bad[i].msg) ||
		    line != bad[i].line)
			fail_msg("'%s': got %d '%s' line %u", bad[i].doc, ret,
				 bc_xml_error(&x, NULL), line);
		bc_xml_fini(&x);
	}
}

/* One parse's elements and end, flattened into text to compare parses with. */
static char *parse_all(struct bc_xml *x)
{
	struct bc_xml_elem e;
	unsigned int line;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int ret;

	assert_non_null(f);
	while ((ret = bc_xml_next(x, &e)) > 0) {
		fprintf(f, "<%s depth=%u line=%u", e.name, e.depth, e.line);
		for (size_t i = 0; i < e.nattrs; i++)
			fprintf(f, " %s=[%s]", e.attrs[i].name, e.attrs[i].value);
		fprintf(f, " text=[%s]>\n", e.text);
	}
	fprintf(f, "end %d", ret);
	if (ret < 0) {
		const char *msg = bc_xml_error(x, &line);

		fprintf(f, " line %u: %s", line, msg);
	}
	fclose(f);
	bc_xml_fini(x);
	return out;
}

/* doc[0..len) streamed from a file, `limit` bytes of it, reads of `chunk` bytes. */
static char *parse_file(const char *doc, size_t len, uint64_t limit, size_t chunk)
{
	char path[] = "/tmp/test_xml.XXXXXX";
	int fd = mkstemp(path);
	struct bc_xml x;

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, doc, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	bc_xml_init_fd(&x, fd, limit);
	x.chunk = chunk;
	return parse_all(&x);
}

static char *parse_mem(const char *doc, size_t len)
{
	struct bc_xml x;

	bc_xml_init(&x, doc, len);
	return parse_all(&x);
}

/*
 * A streamed file gives the elements and errors its whole text gives,
 * however its reads are cut: every decision waits for the bytes it needs.
 */
static void test_xml_stream(void **state)
{
	static const char *const docs[] = {
		"<?xml version=\"1.0\"?>\n<!-- c <x> -->\n<experiment version=\"12.4\">\n"
		"<collector>bpf %25% &amp;</collector>\n</experiment>\n<system a='1' b = "
		"\"x&lt;y\">\n  <cpu id=\"0\"/>\n</system >\n<event kind=\"exit\"/>\n",
		"<a>\n<b x=\"1",
		"<a>\n<b/>",
		"<a>text",
		"<a",
		"<",
		"<!-- x",
		"<a>x</a",
		"\n\n< a/>",
		"<a b=1/>",
		"<a b/>",
		"<a <b/>",
		"<a>\n</b>",
		"</a>",
		"</abc",
		"<a>\n<c/>\n</b>",
		"<abc>x</abd>",
		"<abc>x</ab>",
		"<abc>x</abcd>",
		"<!>",
		"<!-->",
		"<?>",
		"<a>x<",
		"<a>x</",
		"<abc>\n<d>t</d>\n</abc  >",
		"<a></a>x<b/>",
		"<a><a><a><a><a><a><a><a><a><a><a><a><a><a><a><a><a><b/>",
	};
	static const size_t chunks[] = {1, 2, 3, 5, 7, 64, 0};

	(void)state;
	for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
		size_t len = strlen(docs[d]);
		char *want = parse_mem(docs[d], len);

		for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
			char *got = parse_file(docs[d], len, len, chunks[c]);

			if (strcmp(got, want))
				fail_msg("'%s' in reads of %zu: got\n%s\nwant\n%s", docs[d],
					 chunks[c], got, want);
			free(got);
		}
		free(want);
	}
}

/* The bytes said are read: a file that grew is cut (torn), one that shrank ends early. */
static void test_xml_stream_limit(void **state)
{
	const char doc[] = "<a x=\"1\"/>\n<b/>\n";
	char *got;

	(void)state;
	got = parse_file(doc, sizeof(doc) - 1, 14, 0);
	assert_string_equal(got, "<a depth=0 line=1 x=[1] text=[]>\n"
				 "end -61 line 2: <b is incomplete (end of file)");
	free(got);
	got = parse_file(doc, sizeof(doc) - 1, 1000, 3);
	assert_string_equal(got,
			    "<a depth=0 line=1 x=[1] text=[]>\n<b depth=0 line=2 text=[]>\nend 0");
	free(got);
	got = parse_file(doc, sizeof(doc) - 1, 0, 0);
	assert_string_equal(got, "end 0");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_escape),	 cmocka_unit_test(test_xml_tstamp),
		cmocka_unit_test(test_xml_tokenizer),	 cmocka_unit_test(test_xml_stream),
		cmocka_unit_test(test_xml_stream_limit),
	};

	return cmocka_run_group_tests_name("xml", tests, NULL, NULL);
}
