// SPDX-License-Identifier: MIT
/* Rendering captured values, and walking capture items of untrusted records. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/argspec.h"
#include "bpfcollect/capture_fmt.h"

/* A function entry record with items appended, 8-aligned. */
struct rec_buf {
	uint64_t words[256];
	size_t size;
};

static void set_size(struct rec_buf *r)
{
	uint16_t size = (uint16_t)r->size;

	memcpy((uint8_t *)r->words + offsetof(struct bc_rec_head, size), &size, sizeof(size));
}

static void rec_init(struct rec_buf *r, unsigned int kind)
{
	struct bc_rec_head *h = (void *)r->words;

	memset(r, 0, sizeof(*r));
	r->size = bc_cap_fixed_size(kind);
	h->kind = (uint16_t)kind;
	h->size = (uint16_t)r->size;
}

static void rec_add(struct rec_buf *r, uint8_t source, uint8_t index, uint8_t type, uint8_t flags,
		    const void *data, uint16_t len, uint8_t spec)
{
	struct bc_cap_item item = {source, index, type, flags, len, spec, 0};
	uint8_t *p = (uint8_t *)r->words + r->size;

	memcpy(p, &item, sizeof(item));
	if (len)
		memcpy(p + sizeof(item), data, len);
	r->size += sizeof(item) + ((len + 7U) & ~7U);
	set_size(r);
}

static void escaping(void **state)
{
	const uint8_t data[] = {'a', '"', '\\', '\n', '\t', 0, 0xff, 0x7f, 'z'};
	char out[64];

	(void)state;
	assert_int_equal(bc_escape_quoted(out, sizeof(out), data, sizeof(data)),
			 strlen("\"a\\\"\\\\\\n\\t\\0\\xff\\x7fz\""));
	assert_string_equal(out, "\"a\\\"\\\\\\n\\t\\0\\xff\\x7fz\"");
	/* Cut short: never past the buffer, always terminated, length as needed. */
	assert_int_equal(bc_escape_quoted(out, 5, data, sizeof(data)), 22);
	assert_string_equal(out, "\"a\\\"");
}

static void integers_by_format(void **state)
{
	struct bc_cap_item item = {BC_SRC_ARG, 0, BC_CAP_INT, 0, 8, 0, 0};
	struct bc_capture_item_spec spec = {BC_SRC_ARG, 0, BC_CAP_INT, BC_FMT_SIGNED, 4, 0, 0, 0, 0};
	uint64_t v = 0xffffffd6; /* int -42 with clear upper bits */
	char out[64];

	(void)state;
	bc_format_cap_value(out, sizeof(out), &item, (void *)&v, &spec);
	assert_string_equal(out, "-42");
	spec.size = 8;
	bc_format_cap_value(out, sizeof(out), &item, (void *)&v, &spec);
	assert_string_equal(out, "4294967254");
	spec.fmt = BC_FMT_UNSIGNED;
	spec.size = 2;
	bc_format_cap_value(out, sizeof(out), &item, (void *)&v, &spec);
	assert_string_equal(out, "65494");
	spec.fmt = BC_FMT_HEX;
	spec.size = 1;
	bc_format_cap_value(out, sizeof(out), &item, (void *)&v, &spec);
	assert_string_equal(out, "0xd6");
	v = 0x8000000000000000ULL;
	spec.fmt = BC_FMT_SIGNED;
	spec.size = 8;
	bc_format_cap_value(out, sizeof(out), &item, (void *)&v, &spec);
	assert_string_equal(out, "-9223372036854775808");
	spec.fmt = BC_FMT_PTR;
	bc_format_cap_value(out, sizeof(out), &item, (void *)&v, &spec);
	assert_string_equal(out, "0x8000000000000000");
	v = 0;
	bc_format_cap_value(out, sizeof(out), &item, (void *)&v, &spec);
	assert_string_equal(out, "NULL");
	spec.fmt = BC_FMT_CHAR;
	v = 'Z';
	bc_format_cap_value(out, sizeof(out), &item, (void *)&v, &spec);
	assert_string_equal(out, "'Z'");
	v = '\'';
	bc_format_cap_value(out, sizeof(out), &item, (void *)&v, &spec);
	assert_string_equal(out, "'\\x27'");
	/* No spec: raw hex. A short item: read as 0, never past it. */
	v = 0x1234;
	bc_format_cap_value(out, sizeof(out), &item, (void *)&v, NULL);
	assert_string_equal(out, "0x1234");
	item.len = 4;
	bc_format_cap_value(out, sizeof(out), &item, (void *)&v, NULL);
	assert_string_equal(out, "0x0");
}

static void strings_and_flags(void **state)
{
	struct bc_cap_item item = {BC_SRC_ARG, 1, BC_CAP_STR, 0, 5, 1, 0};
	char out[64];

	(void)state;
	bc_format_cap_value(out, sizeof(out), &item, (const uint8_t *)"hello", NULL);
	assert_string_equal(out, "\"hello\"");
	item.flags = BC_CAPF_TRUNCATED;
	bc_format_cap_value(out, sizeof(out), &item, (const uint8_t *)"hello", NULL);
	assert_string_equal(out, "\"hello\"...");
	item.flags = BC_CAPF_FAULT;
	item.len = 0;
	bc_format_cap_value(out, sizeof(out), &item, NULL, NULL);
	assert_string_equal(out, "<fault>");
	item.flags = BC_CAPF_NULL;
	bc_format_cap_value(out, sizeof(out), &item, NULL, NULL);
	assert_string_equal(out, "NULL");
	item.flags = 0;
	item.type = BC_CAP_BUF;
	item.len = 3;
	bc_format_cap_value(out, sizeof(out), &item, (const uint8_t *)"a\0b", NULL);
	assert_string_equal(out, "\"a\\0b\"");
	item.type = BC_CAP_FP;
	item.flags = BC_CAPF_FAULT;
	bc_format_cap_value(out, sizeof(out), &item, NULL, NULL);
	assert_string_equal(out, "<unavailable>");
}

static void function_captures(void **state)
{
	struct bc_functab funcs;
	struct bc_rec_func_entry *e;
	struct bc_event ev;
	struct rec_buf r;
	uint64_t v = (uint64_t)-7;
	char out[256], err[128];

	(void)state;
	bc_functab_init(&funcs);
	assert_int_equal(bc_functab_add(&funcs, "f", "/x", 0, 0, 0), 0);
	assert_int_equal(bc_capture_spec_parse_text("arg1/d32,arg2/s:8,retval/x64",
						    &funcs.v[0].capture, err, sizeof(err)),
			 0);
	rec_init(&r, BC_REC_FUNC_ENTRY);
	e = (void *)r.words;
	e->func_id = 0;
	rec_add(&r, BC_SRC_ARG, 0, BC_CAP_INT, 0, &v, 8, 0);
	rec_add(&r, BC_SRC_ARG, 1, BC_CAP_STR, BC_CAPF_TRUNCATED, "abcdefgh", 8, 1);
	assert_true(bc_decode(r.words, r.size, &funcs, &ev) > 0);
	bc_format_func_captures(&ev, ", ", out, sizeof(out));
	assert_string_equal(out, "arg1=-7, arg2=\"abcdefgh\"...");

	/* An item claiming more bytes than the record holds ends the walk. */
	rec_init(&r, BC_REC_FUNC_ENTRY);
	rec_add(&r, BC_SRC_ARG, 0, BC_CAP_INT, 0, &v, 8, 0);
	((struct bc_cap_item *)((uint8_t *)r.words + sizeof(*e)))->len = 4000;
	assert_true(bc_decode(r.words, r.size, &funcs, &ev) > 0);
	bc_format_func_captures(&ev, " ", out, sizeof(out));
	assert_string_equal(out, "");

	/* No captures: empty. A spec index out of range: raw form, no crash. */
	rec_init(&r, BC_REC_FUNC_ENTRY);
	assert_true(bc_decode(r.words, r.size, &funcs, &ev) > 0);
	assert_int_equal(bc_format_func_captures(&ev, " ", out, sizeof(out)), 0);
	rec_add(&r, BC_SRC_ARG, 5, BC_CAP_INT, 0, &v, 8, 200);
	assert_true(bc_decode(r.words, r.size, &funcs, &ev) > 0);
	bc_format_func_captures(&ev, " ", out, sizeof(out));
	assert_string_equal(out, "arg6=0xfffffffffffffff9");
	bc_functab_free(&funcs);
}

static void iterator_bounds(void **state)
{
	struct rec_buf r;
	const struct bc_cap_item *item;
	const uint8_t *data;
	struct bc_cap_iter it;
	int n = 0;

	(void)state;
	rec_init(&r, BC_REC_SYS_EXIT);
	rec_add(&r, BC_SRC_ARG, 1, BC_CAP_STR, 0, "/etc/passwd", 11, 0);
	rec_add(&r, BC_SRC_ARG, 3, BC_CAP_STR, 0, "x", 1, 1);
	bc_cap_iter_init(&it, r.words, r.size, bc_cap_fixed_size(BC_REC_SYS_EXIT));
	while (bc_cap_iter_next(&it, &item, &data))
		n++;
	assert_int_equal(n, 2);
	/* A record cut inside the second item: only the first one. */
	n = 0;
	bc_cap_iter_init(&it, r.words, r.size - 1, bc_cap_fixed_size(BC_REC_SYS_EXIT));
	while (bc_cap_iter_next(&it, &item, &data))
		n++;
	assert_int_equal(n, 1);
	/* A fixed part larger than the record: nothing. */
	bc_cap_iter_init(&it, r.words, 8, 56);
	assert_false(bc_cap_iter_next(&it, &item, &data));
	assert_int_equal(bc_cap_fixed_size(BC_REC_PROC_EXIT), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escaping),	     cmocka_unit_test(integers_by_format),
		cmocka_unit_test(strings_and_flags), cmocka_unit_test(function_captures),
		cmocka_unit_test(iterator_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
