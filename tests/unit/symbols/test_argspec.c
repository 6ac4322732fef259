// SPDX-License-Identifier: MIT
/* --arg/--retval parsing, the canonical capture spec text, merging specs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/argspec.h"

#define FIX BC_LEN_FIXED

/* One expected item: source, index, type, fmt, size, len_arg, max_len. */
#define I(src, idx, type, fmt, size, len_arg, max_len)                                             \
	{                                                                                          \
		BC_SRC_##src, idx, BC_CAP_##type, BC_FMT_##fmt, size, len_arg, max_len, 0, 0       \
	}
#define D64(src, idx) I(src, idx, INT, SIGNED, 8, FIX, 0)

struct form {
	const char *opt;
	bool retval;
	unsigned int string_size;
	const char *glob;
	const char *text;
	unsigned int n_entry, n_return;
	struct bc_capture_item_spec items[BC_MAX_CAPTURES];
};

static const struct form forms[] = {
	/* integers: every letter and size; i is d */
	{"foo@arg1", false, 64, "foo", "arg1/d64", 1, 0, {D64(ARG, 0)}},
	{"foo@arg1/d", false, 64, "foo", "arg1/d64", 1, 0, {D64(ARG, 0)}},
	{"foo@arg1/i", false, 64, "foo", "arg1/d64", 1, 0, {D64(ARG, 0)}},
	{"foo@arg2/d8", false, 64, "foo", "arg2/d8", 1, 0, {I(ARG, 1, INT, SIGNED, 1, FIX, 0)}},
	{"foo@arg3/i16", false, 64, "foo", "arg3/d16", 1, 0, {I(ARG, 2, INT, SIGNED, 2, FIX, 0)}},
	{"foo@arg4/d32", false, 64, "foo", "arg4/d32", 1, 0, {I(ARG, 3, INT, SIGNED, 4, FIX, 0)}},
	{"foo@arg5/i64", false, 64, "foo", "arg5/d64", 1, 0, {I(ARG, 4, INT, SIGNED, 8, FIX, 0)}},
	{"foo@arg6/u", false, 64, "foo", "arg6/u64", 1, 0, {I(ARG, 5, INT, UNSIGNED, 8, FIX, 0)}},
	{"foo@arg1/u8", false, 64, "foo", "arg1/u8", 1, 0, {I(ARG, 0, INT, UNSIGNED, 1, FIX, 0)}},
	{"foo@arg1/u16", false, 64, "foo", "arg1/u16", 1, 0, {I(ARG, 0, INT, UNSIGNED, 2, FIX, 0)}},
	{"foo@arg1/u32", false, 64, "foo", "arg1/u32", 1, 0, {I(ARG, 0, INT, UNSIGNED, 4, FIX, 0)}},
	{"foo@arg1/x", false, 64, "foo", "arg1/x64", 1, 0, {I(ARG, 0, INT, HEX, 8, FIX, 0)}},
	{"foo@arg1/x8", false, 64, "foo", "arg1/x8", 1, 0, {I(ARG, 0, INT, HEX, 1, FIX, 0)}},
	{"foo@arg1/x16", false, 64, "foo", "arg1/x16", 1, 0, {I(ARG, 0, INT, HEX, 2, FIX, 0)}},
	{"foo@arg1/x32", false, 64, "foo", "arg1/x32", 1, 0, {I(ARG, 0, INT, HEX, 4, FIX, 0)}},
	{"foo@arg1/x64", false, 64, "foo", "arg1/x64", 1, 0, {I(ARG, 0, INT, HEX, 8, FIX, 0)}},
	{"foo@arg1/p", false, 64, "foo", "arg1/p", 1, 0, {I(ARG, 0, INT, PTR, 8, FIX, 0)}},
	{"foo@arg1/c", false, 64, "foo", "arg1/c", 1, 0, {I(ARG, 0, INT, CHAR, 1, FIX, 0)}},
	/* strings and buffers */
	{"foo@arg1/s", false, 64, "foo", "arg1/s:64", 1, 0, {I(ARG, 0, STR, STR, 8, FIX, 64)}},
	{"foo@arg1/s", false, 200, "foo", "arg1/s:200", 1, 0, {I(ARG, 0, STR, STR, 8, FIX, 200)}},
	{"foo@arg1/s:1", false, 64, "foo", "arg1/s:1", 1, 0, {I(ARG, 0, STR, STR, 8, FIX, 1)}},
	{"foo@arg1/s:4096",
	 false,
	 64,
	 "foo",
	 "arg1/s:4096",
	 1,
	 0,
	 {I(ARG, 0, STR, STR, 8, FIX, 4096)}},
	{"foo@arg1/s:0010", false, 64, "foo", "arg1/s:10", 1, 0, {I(ARG, 0, STR, STR, 8, FIX, 10)}},
	{"foo@arg1/buf:16",
	 false,
	 64,
	 "foo",
	 "arg1/buf:16",
	 1,
	 0,
	 {I(ARG, 0, BUF, BUF, 8, FIX, 16)}},
	{"foo@arg1/buf:arg2",
	 false,
	 64,
	 "foo",
	 "arg1/buf:arg2:64",
	 1,
	 0,
	 {I(ARG, 0, BUF, BUF, 8, 1, 64)}},
	{"foo@arg1/buf:arg2",
	 false,
	 1000,
	 "foo",
	 "arg1/buf:arg2:1000",
	 1,
	 0,
	 {I(ARG, 0, BUF, BUF, 8, 1, 1000)}},
	{"foo@arg3/buf:arg6:4096",
	 false,
	 64,
	 "foo",
	 "arg3/buf:arg6:4096",
	 1,
	 0,
	 {I(ARG, 2, BUF, BUF, 8, 5, 4096)}},
	/* floating point */
	{"foo@fparg1", false, 64, "foo", "fparg1/f64", 1, 0, {I(FPARG, 0, FP, DOUBLE, 8, FIX, 0)}},
	{"foo@fparg2/f",
	 false,
	 64,
	 "foo",
	 "fparg2/f64",
	 1,
	 0,
	 {I(FPARG, 1, FP, DOUBLE, 8, FIX, 0)}},
	{"foo@fparg8/f64",
	 false,
	 64,
	 "foo",
	 "fparg8/f64",
	 1,
	 0,
	 {I(FPARG, 7, FP, DOUBLE, 8, FIX, 0)}},
	{"foo@fparg3/f32",
	 false,
	 64,
	 "foo",
	 "fparg3/f32",
	 1,
	 0,
	 {I(FPARG, 2, FP, FLOAT, 4, FIX, 0)}},
	/* retval inside --arg */
	{"foo@retval", false, 64, "foo", "retval/d64", 0, 1, {D64(RETVAL, 0)}},
	{"foo@retval/x32",
	 false,
	 64,
	 "foo",
	 "retval/x32",
	 0,
	 1,
	 {I(RETVAL, 0, INT, HEX, 4, FIX, 0)}},
	{"foo@retval/s",
	 false,
	 64,
	 "foo",
	 "retval/s:64",
	 0,
	 1,
	 {I(RETVAL, 0, STR, STR, 8, FIX, 64)}},
	/* retval comes last whatever its place; entries keep their order */
	{"foo@retval/u,arg3,fparg1/f32,arg1/s:8",
	 false,
	 64,
	 "foo",
	 "arg3/d64,fparg1/f32,arg1/s:8,retval/u64",
	 3,
	 1,
	 {D64(ARG, 2), I(FPARG, 0, FP, FLOAT, 4, FIX, 0), I(ARG, 0, STR, STR, 8, FIX, 8),
	  I(RETVAL, 0, INT, UNSIGNED, 8, FIX, 0)}},
	/* eight items, the most */
	{"foo@arg1,arg2,arg3,arg4,arg5,arg6,fparg1,retval",
	 false,
	 64,
	 "foo",
	 "arg1/d64,arg2/d64,arg3/d64,arg4/d64,arg5/d64,arg6/d64,fparg1/f64,retval/d64",
	 7,
	 1,
	 {D64(ARG, 0), D64(ARG, 1), D64(ARG, 2), D64(ARG, 3), D64(ARG, 4), D64(ARG, 5),
	  I(FPARG, 0, FP, DOUBLE, 8, FIX, 0), D64(RETVAL, 0)}},
	/* fparg1 and arg1 are different registers */
	{"foo@arg1,fparg1",
	 false,
	 64,
	 "foo",
	 "arg1/d64,fparg1/f64",
	 2,
	 0,
	 {D64(ARG, 0), I(FPARG, 0, FP, DOUBLE, 8, FIX, 0)}},
	/* globs: OBJ:, wildcards, versions (GLOB ends at the last '@') */
	{"libc:str*@arg1/s",
	 false,
	 64,
	 "libc:str*",
	 "arg1/s:64",
	 1,
	 0,
	 {I(ARG, 0, STR, STR, 8, FIX, 64)}},
	{"malloc@GLIBC_2.2.5@arg1/u",
	 false,
	 64,
	 "malloc@GLIBC_2.2.5",
	 "arg1/u64",
	 1,
	 0,
	 {I(ARG, 0, INT, UNSIGNED, 8, FIX, 0)}},
	/* --retval */
	{"foo", true, 64, "foo", "retval/d64", 0, 1, {D64(RETVAL, 0)}},
	{"*", true, 64, "*", "retval/d64", 0, 1, {D64(RETVAL, 0)}},
	{"foo@d", true, 64, "foo", "retval/d64", 0, 1, {D64(RETVAL, 0)}},
	{"foo@i32", true, 64, "foo", "retval/d32", 0, 1, {I(RETVAL, 0, INT, SIGNED, 4, FIX, 0)}},
	{"foo@u16", true, 64, "foo", "retval/u16", 0, 1, {I(RETVAL, 0, INT, UNSIGNED, 2, FIX, 0)}},
	{"foo@x", true, 64, "foo", "retval/x64", 0, 1, {I(RETVAL, 0, INT, HEX, 8, FIX, 0)}},
	{"foo@p", true, 64, "foo", "retval/p", 0, 1, {I(RETVAL, 0, INT, PTR, 8, FIX, 0)}},
	{"foo@c", true, 64, "foo", "retval/c", 0, 1, {I(RETVAL, 0, INT, CHAR, 1, FIX, 0)}},
	{"foo@s", true, 64, "foo", "retval/s:64", 0, 1, {I(RETVAL, 0, STR, STR, 8, FIX, 64)}},
	{"foo@s", true, 7, "foo", "retval/s:7", 0, 1, {I(RETVAL, 0, STR, STR, 8, FIX, 7)}},
	{"foo@s:100", true, 64, "foo", "retval/s:100", 0, 1, {I(RETVAL, 0, STR, STR, 8, FIX, 100)}},
	{"foo@retval", true, 64, "foo", "retval/d64", 0, 1, {D64(RETVAL, 0)}},
	{"foo@retval/x8", true, 64, "foo", "retval/x8", 0, 1, {I(RETVAL, 0, INT, HEX, 1, FIX, 0)}},
	{"malloc@GLIBC_2.2.5@p",
	 true,
	 64,
	 "malloc@GLIBC_2.2.5",
	 "retval/p",
	 0,
	 1,
	 {I(RETVAL, 0, INT, PTR, 8, FIX, 0)}},
};

static void expected_spec(const struct form *f, struct bc_capture_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->n_entry = (__u8)f->n_entry;
	s->n_return = (__u8)f->n_return;
	memcpy(s->items, f->items, (f->n_entry + f->n_return) * sizeof(f->items[0]));
}

static void assert_spec_equal(const struct bc_capture_spec *got, const struct bc_capture_spec *want,
			      const char *what)
{
	unsigned int i;

	if (!memcmp(got, want, sizeof(*got)))
		return;
	print_error("%s: spec differs: n_entry %u/%u n_return %u/%u\n", what, got->n_entry,
		    want->n_entry, got->n_return, want->n_return);
	for (i = 0; i < BC_MAX_CAPTURES; i++) {
		const struct bc_capture_item_spec *g = &got->items[i], *w = &want->items[i];

		print_error("  item %u: got %u %u %u %u %u %u %u want %u %u %u %u %u %u %u\n", i,
			    g->source, g->index, g->type, g->fmt, g->size, g->len_arg, g->max_len,
			    w->source, w->index, w->type, w->fmt, w->size, w->len_arg, w->max_len);
	}
	fail();
}

static void every_form(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		const struct form *f = &forms[i];
		struct bc_capture_spec want, back;
		char err[512], text[BC_CAPTURE_TEXT_MAX];
		struct bc_argspec a;
		int ret;

		ret = bc_argspec_parse(f->opt, f->retval, f->string_size, &a, err, sizeof(err));
		if (ret)
			print_error("%s: %s\n", f->opt, err);
		assert_int_equal(ret, 0);
		assert_string_equal(err, "");
		assert_string_equal(a.glob, f->glob);
		assert_string_equal(a.text, f->text);
		expected_spec(f, &want);
		assert_spec_equal(&a.spec, &want, f->opt);

		/* the stored text gives the same spec back */
		assert_int_equal(bc_capture_spec_format(&a.spec, text, sizeof(text)), 0);
		assert_string_equal(text, f->text);
		assert_int_equal(bc_capture_spec_parse_text(text, &back, err, sizeof(err)), 0);
		assert_spec_equal(&back, &want, f->text);
		assert_int_equal(bc_capture_spec_check(&a.spec, err, sizeof(err)), 0);
		bc_argspec_free(&a);
		assert_null(a.glob);
		assert_null(a.text);
	}
}

/* Every valid single item, and every item in an eight-item spec, round trips. */
static void fill_valid_items(struct bc_capture_item_spec *v, size_t *n, int src, unsigned int index)
{
	static const __u8 sizes[] = {1, 2, 4, 8};
	static const __u16 lens[] = {1, 64, 4095, 4096};
	static const int ifmts[] = {BC_FMT_SIGNED, BC_FMT_UNSIGNED, BC_FMT_HEX};
	struct bc_capture_item_spec it = {.source = (__u8)src, .index = (__u8)index};
	size_t f, s, l;
	unsigned int m;

	if (src == BC_SRC_FPARG) {
		it.type = BC_CAP_FP;
		it.len_arg = FIX;
		it.fmt = BC_FMT_DOUBLE;
		it.size = 8;
		v[(*n)++] = it;
		it.fmt = BC_FMT_FLOAT;
		it.size = 4;
		v[(*n)++] = it;
		return;
	}
	it.type = BC_CAP_INT;
	it.len_arg = FIX;
	for (f = 0; f < 3; f++) {
		for (s = 0; s < 4; s++) {
			it.fmt = (__u8)ifmts[f];
			it.size = sizes[s];
			v[(*n)++] = it;
		}
	}
	it.fmt = BC_FMT_PTR;
	it.size = 8;
	v[(*n)++] = it;
	it.fmt = BC_FMT_CHAR;
	it.size = 1;
	v[(*n)++] = it;
	it.type = BC_CAP_STR;
	it.fmt = BC_FMT_STR;
	it.size = 8;
	for (l = 0; l < 4; l++) {
		it.max_len = lens[l];
		v[(*n)++] = it;
	}
	if (src != BC_SRC_ARG)
		return;
	it.type = BC_CAP_BUF;
	it.fmt = BC_FMT_BUF;
	for (l = 0; l < 4; l++) {
		it.max_len = lens[l];
		it.len_arg = FIX;
		v[(*n)++] = it;
		for (m = 0; m < BC_MAX_ARG_REGS; m++) {
			if (m == index)
				continue;
			it.len_arg = (__u8)m;
			v[(*n)++] = it;
		}
	}
}

static void round_trip_one(const struct bc_capture_spec *s)
{
	char text[BC_CAPTURE_TEXT_MAX], err[512];
	struct bc_capture_spec back;
	assert_int_equal(bc_capture_spec_format(s, text, sizeof(text)), 0);
	memset(&back, 0xa5, sizeof(back));
	if (bc_capture_spec_parse_text(text, &back, err, sizeof(err)))
		print_error("%s\n", err);
	assert_spec_equal(&back, s, text);
}

static void round_trip_all(void **state)
{
	struct bc_capture_item_spec v[128];
	struct bc_capture_spec s;
	unsigned int idx;
	size_t n, i;
	int src;

	(void)state;
	for (src = BC_SRC_ARG; src <= BC_SRC_FPARG; src++) {
		unsigned int max = src == BC_SRC_ARG ? 6 : src == BC_SRC_FPARG ? 8 : 1;

		for (idx = 0; idx < max; idx++) {
			n = 0;
			fill_valid_items(v, &n, src, idx);
			assert_true(n <= 128);
			for (i = 0; i < n; i++) {
				memset(&s, 0, sizeof(s));
				s.items[0] = v[i];
				if (src == BC_SRC_RETVAL)
					s.n_return = 1;
				else
					s.n_entry = 1;
				round_trip_one(&s);
			}
		}
	}

	/* the empty spec is "" */
	memset(&s, 0, sizeof(s));
	round_trip_one(&s);
}

/* The longest text there is fits BC_CAPTURE_TEXT_MAX. */
static void round_trip_longest(void **state)
{
	char text[BC_CAPTURE_TEXT_MAX];
	struct bc_capture_spec s;
	unsigned int i;
	int len;

	(void)state;
	memset(&s, 0, sizeof(s));
	for (i = 0; i < BC_MAX_CAPTURES; i++) {
		struct bc_capture_item_spec *it = &s.items[i];

		it->size = 8;
		if (i < 6) {
			it->source = BC_SRC_ARG;
			it->index = (__u8)i;
			it->type = BC_CAP_BUF;
			it->fmt = BC_FMT_BUF;
			it->len_arg = (__u8)(i == 5 ? 4 : 5);
			it->max_len = 4096;
		} else {
			it->source = BC_SRC_FPARG;
			it->index = (__u8)i;
			it->type = BC_CAP_FP;
			it->fmt = BC_FMT_DOUBLE;
			it->len_arg = FIX;
		}
	}
	s.n_entry = 8;
	assert_int_equal(bc_capture_spec_format(&s, text, sizeof(text)), 0);
	assert_string_equal(text, "arg1/buf:arg6:4096,arg2/buf:arg6:4096,arg3/buf:arg6:4096,"
				  "arg4/buf:arg6:4096,arg5/buf:arg6:4096,arg6/buf:arg5:4096,"
				  "fparg7/f64,fparg8/f64");
	len = (int)strlen(text);
	assert_true(len < BC_CAPTURE_TEXT_MAX);
	round_trip_one(&s);

	/* too small a buffer: -ENOSPC and an empty string, never a cut one */
	assert_int_equal(bc_capture_spec_format(&s, text, 20), -ENOSPC);
	assert_string_equal(text, "");
	assert_int_equal(bc_capture_spec_format(&s, text, (size_t)len), -ENOSPC);
	assert_int_equal(bc_capture_spec_format(&s, text, (size_t)len + 1), 0);
	assert_int_equal(strlen(text), len);
	assert_int_equal(bc_capture_spec_format(&s, text, 0), -ENOSPC);
}

static void parse_text_forms(void **state)
{
	struct bc_capture_spec s, want;
	char err[512];

	(void)state;
	/* "" is no captures */
	memset(&s, 0xff, sizeof(s));
	assert_int_equal(bc_capture_spec_parse_text("", &s, err, sizeof(err)), 0);
	memset(&want, 0, sizeof(want));
	assert_spec_equal(&s, &want, "empty");

	/* not canonical: the defaults apply, with BC_STRLEN_DEFAULT */
	assert_int_equal(
		bc_capture_spec_parse_text("retval/i,arg2/s,arg1/buf:arg2", &s, err, sizeof(err)),
		0);
	want.n_entry = 2;
	want.n_return = 1;
	want.items[0] = (struct bc_capture_item_spec)I(ARG, 1, STR, STR, 8, FIX, BC_STRLEN_DEFAULT);
	want.items[1] = (struct bc_capture_item_spec)I(ARG, 0, BUF, BUF, 8, 1, BC_STRLEN_DEFAULT);
	want.items[2] = (struct bc_capture_item_spec)D64(RETVAL, 0);
	assert_spec_equal(&s, &want, "defaults");

	/* errors name the text; *out is zeroed */
	assert_int_equal(bc_capture_spec_parse_text("arg1/q", &s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "capture spec 'arg1/q': unknown format 'q' at position 6 (d, i, "
				 "u, x with 8/16/32/64, p, c, s[:LEN], buf:LEN, buf:argN)");
	memset(&want, 0, sizeof(want));
	assert_spec_equal(&s, &want, "after error");
	assert_int_equal(bc_capture_spec_parse_text("arg1,", &s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "capture spec 'arg1,': empty item at position 6 (argN[/FMT], "
				 "fpargN[/f|f32|f64], retval[/FMT])");
	assert_int_equal(bc_capture_spec_parse_text("arg1,arg1", &s, NULL, 0), -EINVAL);
}

static struct bc_capture_spec text_spec(const char *text)
{
	struct bc_capture_spec s;
	char err[512];

	if (bc_capture_spec_parse_text(text, &s, err, sizeof(err)))
		print_error("%s\n", err);
	return s;
}

static void assert_text(const struct bc_capture_spec *s, const char *want)
{
	char text[BC_CAPTURE_TEXT_MAX];

	assert_int_equal(bc_capture_spec_format(s, text, sizeof(text)), 0);
	assert_string_equal(text, want);
}

static void merge(void **state)
{
	struct bc_capture_spec a, b, saved;
	char err[512];

	(void)state;
	/* --arg 'f@arg1,retval/x' then --arg 'f@arg2/s': retval stays last */
	a = text_spec("arg1/d64,retval/x64");
	b = text_spec("arg2/s:64,fparg1/f32");
	assert_int_equal(bc_capture_spec_merge(&a, &b, err, sizeof(err)), 0);
	assert_int_equal(a.n_entry, 3);
	assert_int_equal(a.n_return, 1);
	assert_text(&a, "arg1/d64,arg2/s:64,fparg1/f32,retval/x64");
	assert_int_equal(bc_capture_spec_check(&a, NULL, 0), 0);

	/* --arg then --retval */
	a = text_spec("arg1/d64");
	b = text_spec("retval/p");
	assert_int_equal(bc_capture_spec_merge(&a, &b, err, sizeof(err)), 0);
	assert_text(&a, "arg1/d64,retval/p");

	/* --retval then --arg: the retval moves after the new entries */
	a = text_spec("retval/s:10");
	b = text_spec("arg3/u32,arg1/c");
	assert_int_equal(bc_capture_spec_merge(&a, &b, err, sizeof(err)), 0);
	assert_text(&a, "arg3/u32,arg1/c,retval/s:10");

	/* into and from the empty spec */
	memset(&a, 0, sizeof(a));
	b = text_spec("arg1/d8");
	assert_int_equal(bc_capture_spec_merge(&a, &b, err, sizeof(err)), 0);
	assert_text(&a, "arg1/d8");
	memset(&b, 0, sizeof(b));
	assert_int_equal(bc_capture_spec_merge(&a, &b, err, sizeof(err)), 0);
	assert_text(&a, "arg1/d8");

	/* the same argument twice, even in the same format: a unchanged */
	a = text_spec("arg1/d64,arg2/s:64");
	saved = a;
	b = text_spec("arg2/s:64");
	assert_int_equal(bc_capture_spec_merge(&a, &b, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "arg2 is captured twice (each argument at most once)");
	assert_memory_equal(&a, &saved, sizeof(a));
	b = text_spec("fparg2/f64");
	a = text_spec("fparg2/f32");
	assert_int_equal(bc_capture_spec_merge(&a, &b, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "fparg2 is captured twice (each argument at most once)");

	/* two retvals */
	a = text_spec("arg1,retval/d64");
	saved = a;
	b = text_spec("retval/x64");
	assert_int_equal(bc_capture_spec_merge(&a, &b, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "retval is captured twice (one retval at most)");
	assert_memory_equal(&a, &saved, sizeof(a));

	/* too many */
	a = text_spec("arg1,arg2,arg3,arg4,arg5");
	saved = a;
	b = text_spec("arg6,fparg1,fparg2,retval");
	assert_int_equal(bc_capture_spec_merge(&a, &b, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "9 captures are too many (at most 8 per function)");
	assert_memory_equal(&a, &saved, sizeof(a));
	b = text_spec("arg6,fparg1,retval");
	assert_int_equal(bc_capture_spec_merge(&a, &b, NULL, 0), 0);
	assert_text(&a, "arg1/d64,arg2/d64,arg3/d64,arg4/d64,arg5/d64,arg6/d64,fparg1/f64,"
			"retval/d64");

	/* an invalid input is refused */
	a = text_spec("arg1");
	b = text_spec("arg2");
	b.items[0].size = 3;
	assert_int_equal(bc_capture_spec_merge(&a, &b, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "capture item 1 is not valid (source 1 index 1 type 1 fmt 1 size "
				 "3 len_arg 255 max_len 0)");
}

/* Specs bc_argspec_parse() cannot make: check and format refuse them. */
static void check_refuses(void **state)
{
	struct bc_capture_spec s;
	char err[512], text[BC_CAPTURE_TEXT_MAX];

	(void)state;
#define REFUSE(init, msg)                                                                          \
	do {                                                                                       \
		s = text_spec("arg1/s:64,arg2/buf:arg3:16,fparg1/f64,retval/d32");                 \
		init;                                                                              \
		assert_int_equal(bc_capture_spec_check(&s, err, sizeof(err)), -EINVAL);            \
		assert_string_equal(err, msg);                                                     \
		strcpy(text, "x");                                                                 \
		assert_int_equal(bc_capture_spec_format(&s, text, sizeof(text)), -EINVAL);         \
		assert_string_equal(text, "");                                                     \
	} while (0)

	s = text_spec("arg1/s:64,arg2/buf:arg3:16,fparg1/f64,retval/d32");
	assert_int_equal(bc_capture_spec_check(&s, err, sizeof(err)), 0);
	REFUSE(s.n_return = 2,
	       "capture spec has 3 entry and 2 return items (at most 8, one return)");
	REFUSE(s.n_entry = 8,
	       "capture spec has 8 entry and 1 return items (at most 8, one return)");
	REFUSE(s.pad[0] = 1, "capture spec has non-zero padding or unused items");
	REFUSE(s.items[5].max_len = 1, "capture spec has non-zero padding or unused items");
	REFUSE(s.items[0].size = 4, "capture item 1 is not valid (source 1 index 0 type 2 fmt 6 "
				    "size 4 len_arg 255 max_len 64)");
	REFUSE(s.items[0].max_len = 0, "capture item 1 is not valid (source 1 index 0 type 2 fmt 6 "
				       "size 8 len_arg 255 max_len 0)");
	REFUSE(s.items[0].max_len = 4097, "capture item 1 is not valid (source 1 index 0 type 2 "
					  "fmt 6 size 8 len_arg 255 max_len 4097)");
	REFUSE(s.items[0].index = 6, "capture item 1 is not valid (source 1 index 6 type 2 fmt 6 "
				     "size 8 len_arg 255 max_len 64)");
	REFUSE(s.items[1].len_arg = 1, "capture item 2 is not valid (source 1 index 1 type 3 fmt 7 "
				       "size 8 len_arg 1 max_len 16)");
	REFUSE(s.items[1].len_arg = 6, "capture item 2 is not valid (source 1 index 1 type 3 fmt 7 "
				       "size 8 len_arg 6 max_len 16)");
	REFUSE(s.items[2].fmt = BC_FMT_FLOAT, "capture item 3 is not valid (source 3 index 0 type "
					      "4 fmt 9 size 8 len_arg 255 max_len 0)");
	REFUSE(s.items[2].index = 8, "capture item 3 is not valid (source 3 index 8 type 4 fmt 8 "
				     "size 8 len_arg 255 max_len 0)");
	REFUSE(s.items[2].type = BC_CAP_INT, "capture item 3 is not valid (source 3 index 0 type 1 "
					     "fmt 8 size 8 len_arg 255 max_len 0)");
	REFUSE(s.items[3].source = BC_SRC_ARG, "capture item 4 is not valid (source 1 index 0 type "
					       "1 fmt 1 size 4 len_arg 255 max_len 0)");
	REFUSE(s.items[3].len_arg = 0, "capture item 4 is not valid (source 2 index 0 type 1 fmt 1 "
				       "size 4 len_arg 0 max_len 0)");
	REFUSE(s.items[3].size = 16, "capture item 4 is not valid (source 2 index 0 type 1 fmt 1 "
				     "size 16 len_arg 255 max_len 0)");
	REFUSE(s.items[0].source = BC_SRC_RETVAL, "capture item 1 is not valid (source 2 index 0 "
						  "type 2 fmt 6 size 8 len_arg 255 max_len 64)");
	REFUSE(s.items[2] = s.items[0], "capture spec captures arg1 twice");
	REFUSE((s.items[3].type = BC_CAP_BUF, s.items[3].fmt = BC_FMT_BUF, s.items[3].size = 8,
		s.items[3].max_len = 8),
	       "capture item 4 is not valid (source 2 index 0 type 3 fmt 7 size 8 len_arg 255 "
	       "max_len 8)");
#undef REFUSE
}

struct bad {
	const char *opt;
	bool retval;
	const char *msg;
};

#define INT_FMTS "(d, i, u, x with 8/16/32/64, p, c, s[:LEN], buf:LEN, buf:argN)"
#define RET_FMTS "(d, i, u, x with 8/16/32/64, p, c, s[:LEN])"
#define ITEMS	 "(argN[/FMT], fpargN[/f|f32|f64], retval[/FMT])"

static const struct bad bads[] = {
	/* the glob and the '@' */
	{"foo", false, "--arg 'foo': missing '@SPEC' (e.g. foo@arg1,arg2/s)"},
	{"libc:f*", false, "--arg 'libc:f*': missing '@SPEC' (e.g. libc:f*@arg1,arg2/s)"},
	{"@arg1", false, "--arg '@arg1': empty function glob at position 1 (e.g. foo@arg1,arg2/s)"},
	{"", false, "--arg '': empty function glob at position 1 (e.g. foo@arg1,arg2/s)"},
	{"foo@", false,
	 "--arg 'foo@': missing SPEC after '@' at position 5 (e.g. foo@arg1,arg2/s)"},
	/* items */
	{"foo@arg1,", false, "--arg 'foo@arg1,': empty item at position 10 " ITEMS},
	{"foo@,arg1", false, "--arg 'foo@,arg1': empty item at position 5 " ITEMS},
	{"foo@arg1,,arg2", false, "--arg 'foo@arg1,,arg2': empty item at position 10 " ITEMS},
	{"foo@bar", false, "--arg 'foo@bar': unknown item 'bar' at position 5 " ITEMS},
	{"foo@arg1, arg2", false,
	 "--arg 'foo@arg1, arg2': unknown item ' arg2' at position 10 " ITEMS},
	{"foo@retvalx/d", false,
	 "--arg 'foo@retvalx/d': unknown item 'retvalx' at position 5 " ITEMS},
	{"foo@arg", false, "--arg 'foo@arg': missing argument number at position 8 (arg1..arg6)"},
	{"foo@fparg/f", false,
	 "--arg 'foo@fparg/f': missing argument number at position 10 (fparg1..fparg8)"},
	{"foo@arg0", false,
	 "--arg 'foo@arg0': argument 0 at position 5 does not exist (arg1..arg6)"},
	{"foo@arg7", false,
	 "--arg 'foo@arg7': argument 7 at position 5 is not in a register on x86-64 (arg1..arg6; "
	 "stack arguments cannot be captured)"},
	{"foo@arg1,arg12/s", false,
	 "--arg 'foo@arg1,arg12/s': argument 12 at position 10 is not in a register on x86-64 "
	 "(arg1..arg6; stack arguments cannot be captured)"},
	{"foo@arg99999999999999", false,
	 "--arg 'foo@arg99999999999999': argument 99999999999999 at position 5 is not in a "
	 "register "
	 "on x86-64 (arg1..arg6; stack arguments cannot be captured)"},
	{"foo@fparg0", false,
	 "--arg 'foo@fparg0': floating-point argument 0 at position 5 does not exist "
	 "(fparg1..fparg8)"},
	{"foo@fparg9", false,
	 "--arg 'foo@fparg9': floating-point argument 9 at position 5 is not in a register on "
	 "x86-64 (fparg1..fparg8; stack arguments cannot be captured)"},
	{"foo@arg1x", false,
	 "--arg 'foo@arg1x': unexpected 'x' at position 9 (expected '/FMT', ',' or the end)"},
	{"foo@arg-1", false,
	 "--arg 'foo@arg-1': missing argument number at position 8 (arg1..arg6)"},
	/* duplicates, too many */
	{"foo@arg1,arg1", false,
	 "--arg 'foo@arg1,arg1': arg1 at position 10 is already captured (each argument at most "
	 "once)"},
	{"foo@arg2/s,arg1,arg2/x", false,
	 "--arg 'foo@arg2/s,arg1,arg2/x': arg2 at position 17 is already captured (each argument "
	 "at most once)"},
	{"foo@fparg3,fparg3/f32", false,
	 "--arg 'foo@fparg3,fparg3/f32': fparg3 at position 12 is already captured (each argument "
	 "at most once)"},
	{"foo@retval,arg1,retval/x", false,
	 "--arg 'foo@retval,arg1,retval/x': retval at position 17 is already captured (one retval "
	 "at most)"},
	{"foo@arg1,arg2,arg3,arg4,arg5,arg6,fparg1,fparg2,retval", false,
	 "--arg 'foo@arg1,arg2,arg3,arg4,arg5,arg6,fparg1,fparg2,retval': item 9 at position 49 is "
	 "one too many (at most 8 per function)"},
	{"foo@fparg1,fparg2,fparg3,fparg4,fparg5,fparg6,fparg7,fparg8,arg1", false,
	 "--arg 'foo@fparg1,fparg2,fparg3,fparg4,fparg5,fparg6,fparg7,fparg8,arg1': item 9 at "
	 "position 61 is one too many (at most 8 per function)"},
	/* integer formats */
	{"foo@arg1/q", false, "--arg 'foo@arg1/q': unknown format 'q' at position 10 " INT_FMTS},
	{"foo@arg1/", false, "--arg 'foo@arg1/': missing format at position 10 " INT_FMTS},
	{"foo@arg1/,arg2", false,
	 "--arg 'foo@arg1/,arg2': missing format at position 10 " INT_FMTS},
	{"foo@arg1/d12", false,
	 "--arg 'foo@arg1/d12': bad integer size '12' at position 11 (8, 16, 32 or 64)"},
	{"foo@arg1/u0", false,
	 "--arg 'foo@arg1/u0': bad integer size '0' at position 11 (8, 16, 32 or 64)"},
	{"foo@arg2/x128", false,
	 "--arg 'foo@arg2/x128': bad integer size '128' at position 11 (8, 16, 32 or 64)"},
	{"foo@arg1/d8x", false,
	 "--arg 'foo@arg1/d8x': unknown format 'd8x' at position 10 " INT_FMTS},
	{"foo@arg1/int", false,
	 "--arg 'foo@arg1/int': unknown format 'int' at position 10 " INT_FMTS},
	{"foo@arg1/p64", false,
	 "--arg 'foo@arg1/p64': unknown format 'p64' at position 10 " INT_FMTS},
	{"foo@arg1/c8", false, "--arg 'foo@arg1/c8': unknown format 'c8' at position 10 " INT_FMTS},
	{"foo@arg1/D", false, "--arg 'foo@arg1/D': unknown format 'D' at position 10 " INT_FMTS},
	{"foo@arg1/s/x", false,
	 "--arg 'foo@arg1/s/x': unknown format 's/x' at position 10 " INT_FMTS},
	/* strings */
	{"foo@arg1/s:5000", false,
	 "--arg 'foo@arg1/s:5000': string size 5000 at position 12 is above 4096 (LEN is 1..4096)"},
	{"foo@arg1/s:4097", false,
	 "--arg 'foo@arg1/s:4097': string size 4097 at position 12 is above 4096 (LEN is 1..4096)"},
	{"foo@arg1/s:99999999999999", false,
	 "--arg 'foo@arg1/s:99999999999999': string size 99999999999999 at position 12 is above "
	 "4096 (LEN is 1..4096)"},
	{"foo@arg1/s:0", false,
	 "--arg 'foo@arg1/s:0': string size 0 at position 12 is below 1 (LEN is 1..4096)"},
	{"foo@arg1/s:", false,
	 "--arg 'foo@arg1/s:': missing string size at position 12 (LEN is 1..4096)"},
	{"foo@arg1/s:x", false,
	 "--arg 'foo@arg1/s:x': missing string size at position 12 (LEN is 1..4096)"},
	{"foo@arg1/s:12x,arg2", false,
	 "--arg 'foo@arg1/s:12x,arg2': unexpected 'x' at position 14 (expected ',' or the end)"},
	{"foo@arg1/str", false,
	 "--arg 'foo@arg1/str': unknown format 'str' at position 10 " INT_FMTS},
	/* buffers */
	{"foo@arg1/buf", false,
	 "--arg 'foo@arg1/buf': format 'buf' at position 10 needs a length (buf:LEN, buf:argN)"},
	{"foo@arg1/bufx", false,
	 "--arg 'foo@arg1/bufx': unknown format 'bufx' at position 10 " INT_FMTS},
	{"foo@arg1/buf:", false,
	 "--arg 'foo@arg1/buf:': missing buffer size at position 14 (LEN is 1..4096)"},
	{"foo@arg1/buf:0", false,
	 "--arg 'foo@arg1/buf:0': buffer size 0 at position 14 is below 1 (LEN is 1..4096)"},
	{"foo@arg1/buf:8192", false,
	 "--arg 'foo@arg1/buf:8192': buffer size 8192 at position 14 is above 4096 (LEN is "
	 "1..4096)"},
	{"foo@arg1/buf:arg", false,
	 "--arg 'foo@arg1/buf:arg': missing argument number at position 17 (buf:arg1..buf:arg6)"},
	{"foo@arg1/buf:arg0", false,
	 "--arg 'foo@arg1/buf:arg0': length argument 0 at position 14 does not exist "
	 "(buf:arg1..buf:arg6)"},
	{"foo@arg1/buf:arg7", false,
	 "--arg 'foo@arg1/buf:arg7': length argument 7 at position 14 is not in a register on "
	 "x86-64 (buf:arg1..buf:arg6)"},
	{"foo@arg3/buf:arg3", false,
	 "--arg 'foo@arg3/buf:arg3': length argument 3 at position 14 is the buffer pointer itself "
	 "(another of buf:arg1..buf:arg6)"},
	{"foo@arg1/buf:arg2x", false,
	 "--arg 'foo@arg1/buf:arg2x': unexpected 'x' at position 18 (expected ',' or the end)"},
	{"foo@arg1/buf:arg2:", false,
	 "--arg 'foo@arg1/buf:arg2:': missing buffer size at position 19 (LEN is 1..4096)"},
	{"foo@arg1/buf:arg2:5000", false,
	 "--arg 'foo@arg1/buf:arg2:5000': buffer size 5000 at position 19 is above 4096 (LEN is "
	 "1..4096)"},
	{"foo@arg1/buf:16x", false,
	 "--arg 'foo@arg1/buf:16x': unexpected 'x' at position 16 (expected ',' or the end)"},
	/* floating point in the wrong place, integers on fparg */
	{"foo@arg1/f", false,
	 "--arg 'foo@arg1/f': format 'f' at position 10 is for floating-point arguments "
	 "(fparg1..fparg8 are xmm0..xmm7)"},
	{"foo@arg2/f32", false,
	 "--arg 'foo@arg2/f32': format 'f32' at position 10 is for floating-point arguments "
	 "(fparg1..fparg8 are xmm0..xmm7)"},
	{"foo@fparg1/d", false,
	 "--arg 'foo@fparg1/d': unknown format 'd' at position 12 for a floating-point argument "
	 "(f, f32, f64)"},
	{"foo@fparg1/f16", false,
	 "--arg 'foo@fparg1/f16': unknown format 'f16' at position 12 for a floating-point "
	 "argument (f, f32, f64)"},
	{"foo@fparg1/", false, "--arg 'foo@fparg1/': missing format at position 12 (f, f32, f64)"},
	/* retval in --arg */
	{"foo@retval/buf:8", false,
	 "--arg 'foo@retval/buf:8': format 'buf' at position 12 cannot be used for "
	 "retval " RET_FMTS},
	{"foo@retval/buf:arg1", false,
	 "--arg 'foo@retval/buf:arg1': format 'buf' at position 12 cannot be used for "
	 "retval " RET_FMTS},
	{"foo@retval/f", false,
	 "--arg 'foo@retval/f': format 'f' at position 12 cannot be used for retval " RET_FMTS},
	{"foo@retval/f64", false,
	 "--arg 'foo@retval/f64': format 'f64' at position 12 cannot be used for retval " RET_FMTS},
	{"foo@retval/q", false,
	 "--arg 'foo@retval/q': unknown format 'q' at position 12 " RET_FMTS},
	{"foo@retval3", false, "--arg 'foo@retval3': unknown item 'retval3' at position 5 " ITEMS},
	/* --retval */
	{"", true, "--retval '': empty function glob at position 1 (e.g. foo@s)"},
	{"@s", true, "--retval '@s': empty function glob at position 1 (e.g. foo@s)"},
	{"foo@", true, "--retval 'foo@': missing format at position 5 " RET_FMTS},
	{"foo@retval/", true, "--retval 'foo@retval/': missing format at position 12 " RET_FMTS},
	{"foo@q", true, "--retval 'foo@q': unknown format 'q' at position 5 " RET_FMTS},
	{"foo@buf:8", true,
	 "--retval 'foo@buf:8': format 'buf' at position 5 cannot be used for retval " RET_FMTS},
	{"foo@f", true,
	 "--retval 'foo@f': format 'f' at position 5 cannot be used for retval " RET_FMTS},
	{"foo@d7", true, "--retval 'foo@d7': bad integer size '7' at position 6 (8, 16, 32 or 64)"},
	{"foo@s:0", true,
	 "--retval 'foo@s:0': string size 0 at position 7 is below 1 (LEN is 1..4096)"},
	{"foo@s,arg1", true,
	 "--retval 'foo@s,arg1': unexpected ',' at position 6 (--retval takes one format; capture "
	 "arguments with --arg)"},
	{"foo@retval,arg1", true,
	 "--retval 'foo@retval,arg1': unexpected ',' at position 11 (--retval takes one format; "
	 "capture arguments with --arg)"},
	{"foo@arg1", true, "--retval 'foo@arg1': unknown format 'arg1' at position 5 " RET_FMTS},
	{"malloc@GLIBC_2.2.5", true,
	 "--retval 'malloc@GLIBC_2.2.5': unknown format 'GLIBC_2.2.5' at position 8 " RET_FMTS},
};

static void every_error(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		struct bc_argspec a;
		char err[512];
		int ret;

		memset(&a, 0x5a, sizeof(a));
		ret = bc_argspec_parse(b->opt, b->retval, 64, &a, err, sizeof(err));
		if (ret != -EINVAL)
			print_error("'%s' parsed: %d\n", b->opt, ret);
		assert_int_equal(ret, -EINVAL);
		assert_string_equal(err, b->msg);
		assert_null(strchr(err, '\n'));
		assert_null(a.glob);
		assert_null(a.text);
		assert_int_equal(a.spec.n_entry + a.spec.n_return, 0);
		bc_argspec_free(&a);

		/* without a place for the message, and with a short one */
		assert_int_equal(bc_argspec_parse(b->opt, b->retval, 64, &a, NULL, 0), -EINVAL);
		assert_int_equal(bc_argspec_parse(b->opt, b->retval, 64, &a, err, 12), -EINVAL);
		assert_int_equal(strlen(err), 11);
		assert_memory_equal(err, b->msg, 11);
		assert_int_equal(bc_argspec_parse(b->opt, b->retval, 64, &a, err, 1), -EINVAL);
		assert_string_equal(err, "");
	}
}

static void bad_string_size(void **state)
{
	struct bc_argspec a;
	char err[512];

	(void)state;
	assert_int_equal(bc_argspec_parse("foo@arg1", false, 0, &a, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--string-size 0 is not in 1..4096");
	assert_null(a.glob);
	assert_int_equal(bc_argspec_parse("foo", true, 4097, &a, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--string-size 4097 is not in 1..4096");
	assert_int_equal(bc_argspec_parse("foo@arg1/s", false, 4096, &a, err, sizeof(err)), 0);
	assert_string_equal(a.text, "arg1/s:4096");
	bc_argspec_free(&a);
	assert_int_equal(bc_argspec_parse("foo@arg1/s", false, 1, &a, err, sizeof(err)), 0);
	assert_string_equal(a.text, "arg1/s:1");
	bc_argspec_free(&a);
	/* free of a zeroed or NULL argspec */
	bc_argspec_free(&a);
	bc_argspec_free(NULL);
}

/* Two options matching one function, as record combines them. */
static void options_then_merge(void **state)
{
	struct bc_argspec a, r;
	char err[512];

	(void)state;
	assert_int_equal(bc_argspec_parse("tgt_*@arg1/s,arg2", false, 64, &a, err, sizeof(err)), 0);
	assert_int_equal(bc_argspec_parse("tgt_*@p", true, 64, &r, err, sizeof(err)), 0);
	assert_string_equal(a.glob, r.glob);
	assert_int_equal(bc_capture_spec_merge(&a.spec, &r.spec, err, sizeof(err)), 0);
	assert_text(&a.spec, "arg1/s:64,arg2/d64,retval/p");
	assert_int_equal(bc_capture_spec_merge(&a.spec, &r.spec, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "retval is captured twice (one retval at most)");
	bc_argspec_free(&a);
	bc_argspec_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_form),
		cmocka_unit_test(round_trip_all),
		cmocka_unit_test(round_trip_longest),
		cmocka_unit_test(parse_text_forms),
		cmocka_unit_test(merge),
		cmocka_unit_test(check_refuses),
		cmocka_unit_test(every_error),
		cmocka_unit_test(bad_string_size),
		cmocka_unit_test(options_then_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
