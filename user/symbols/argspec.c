// SPDX-License-Identifier: MIT
/*
 * --arg 'GLOB@SPEC' and --retval 'GLOB[@FMT]' into struct bc_capture_spec,
 * and the canonical text of a spec. Grammar and mapping: argspec.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/argspec.h"
#include "bpfcollect/symutil.h"

/* What is allowed, for the parentheses of error messages. */
#define ITEMS_ALLOWED "argN[/FMT], fpargN[/f|f32|f64], retval[/FMT]"
#define FMTS_ALLOWED  "d, i, u, x with 8/16/32/64, p, c, s[:LEN], buf:LEN, buf:argN"
#define RET_ALLOWED   "d, i, u, x with 8/16/32/64, p, c, s[:LEN]"
#define FP_ALLOWED    "f, f32, f64"
#define LEN_ALLOWED   "LEN is 1..4096"
#define NUM_BIG	      10000000000UL /* scan_num()'s value for more than 9 digits */

_Static_assert(BC_STRLEN_MAX == 4096, "LEN_ALLOWED spells BC_STRLEN_MAX");
_Static_assert(BC_MAX_ARG_REGS == 6, "messages spell arg1..arg6");

struct pctx {
	const char *label; /* "--arg", "--retval", "capture spec" */
	const char *whole; /* the text positions count in */
	unsigned int string_size;
	char *err;
	size_t errlen;
};

static int fail(const struct pctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(const struct pctx *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!c->err || !c->errlen)
		return -EINVAL;
	n = snprintf(c->err, c->errlen, "%s '%s': ", c->label, c->whole);
	if (n < 0 || (size_t)n >= c->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* 1-based position of p in the text. */
static size_t pos(const struct pctx *c, const char *p)
{
	return (size_t)(p - c->whole) + 1;
}

/* The decimal digits at p: their count in *nd; their value, NUM_BIG past 9 digits. */
static unsigned long scan_num(const char *p, size_t *nd)
{
	unsigned long v = 0;
	size_t n = 0;

	while (p[n] >= '0' && p[n] <= '9') {
		if (n < 9)
			v = v * 10 + (unsigned long)(p[n] - '0');
		n++;
	}
	*nd = n;
	return n > 9 ? NUM_BIG : v;
}

static bool tok_is(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) == n && !memcmp(p, word, n);
}

static bool starts(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) >= n && !memcmp(p, word, n);
}

static int unexpected(const struct pctx *c, const char *p)
{
	return fail(c, "unexpected '%c' at position %zu (expected ',' or the end)", *p, pos(c, p));
}

/* LEN at p, up to end (the end of the format): all digits, 1..BC_STRLEN_MAX. */
static int parse_len(const struct pctx *c, const char *p, const char *end, const char *what,
		     __u16 *len)
{
	unsigned long v;
	size_t nd;

	v = scan_num(p, &nd);
	if (p + nd > end)
		nd = (size_t)(end - p);
	if (!nd)
		return fail(c, "missing %s size at position %zu (" LEN_ALLOWED ")", what,
			    pos(c, p));
	if (v > BC_STRLEN_MAX)
		return fail(c, "%s size %.*s at position %zu is above %d (" LEN_ALLOWED ")", what,
			    (int)nd, p, pos(c, p), BC_STRLEN_MAX);
	if (v < 1)
		return fail(c, "%s size %.*s at position %zu is below 1 (" LEN_ALLOWED ")", what,
			    (int)nd, p, pos(c, p));
	if (p + nd != end)
		return unexpected(c, p + nd);
	*len = (__u16)v;
	return 0;
}

static void set_int(struct bc_capture_item_spec *it, int fmt, int size)
{
	it->type = BC_CAP_INT;
	it->fmt = (__u8)fmt;
	it->size = (__u8)size;
	it->len_arg = BC_LEN_FIXED;
	it->max_len = 0;
}

/* buf:... at p (p points at "buf"), for argument own (0-based). */
static int parse_buf(const struct pctx *c, const char *p, const char *end, unsigned int own,
		     struct bc_capture_item_spec *it)
{
	const char *q = p + 4;
	unsigned long m;
	size_t nd;

	if (tok_is(p, end, "buf"))
		return fail(c, "format 'buf' at position %zu needs a length (buf:LEN, buf:argN)",
			    pos(c, p));
	it->type = BC_CAP_BUF;
	it->fmt = BC_FMT_BUF;
	it->size = 8;
	it->len_arg = BC_LEN_FIXED;
	if (!starts(q, end, "arg"))
		return parse_len(c, q, end, "buffer", &it->max_len);

	q += 3;
	m = scan_num(q, &nd);
	if (q + nd > end)
		nd = (size_t)(end - q);
	if (!nd)
		return fail(c, "missing argument number at position %zu (buf:arg1..buf:arg6)",
			    pos(c, q));
	if (m < 1)
		return fail(
			c,
			"length argument %.*s at position %zu does not exist (buf:arg1..buf:arg6)",
			(int)nd, q, pos(c, q - 3));
	if (m > BC_MAX_ARG_REGS)
		return fail(c,
			    "length argument %.*s at position %zu is not in a register on x86-64 "
			    "(buf:arg1..buf:arg6)",
			    (int)nd, q, pos(c, q - 3));
	if (m - 1 == own)
		return fail(c,
			    "length argument %lu at position %zu is the buffer pointer itself "
			    "(another of buf:arg1..buf:arg6)",
			    m, pos(c, q - 3));
	it->len_arg = (__u8)(m - 1);
	q += nd;
	if (q == end) {
		it->max_len = (__u16)c->string_size;
		return 0;
	}
	if (*q != ':')
		return unexpected(c, q);
	return parse_len(c, q + 1, end, "buffer", &it->max_len);
}

/*
 * The format from p to end (the end of the item), for an item of source
 * src; own is the item's register index.
 */
static int parse_fmt(const struct pctx *c, const char *p, const char *end, int src,
		     unsigned int own, struct bc_capture_item_spec *it)
{
	const char *allowed = src == BC_SRC_RETVAL ? RET_ALLOWED : FMTS_ALLOWED;
	int n = (int)(end - p);
	unsigned long v;
	size_t nd;

	if (src == BC_SRC_FPARG) {
		if (p == end)
			return fail(c, "missing format at position %zu (" FP_ALLOWED ")",
				    pos(c, p));
		if (tok_is(p, end, "f") || tok_is(p, end, "f64")) {
			it->type = BC_CAP_FP;
			it->fmt = BC_FMT_DOUBLE;
			it->size = 8;
		} else if (tok_is(p, end, "f32")) {
			it->type = BC_CAP_FP;
			it->fmt = BC_FMT_FLOAT;
			it->size = 4;
		} else {
			return fail(c,
				    "unknown format '%.*s' at position %zu for a floating-point "
				    "argument (" FP_ALLOWED ")",
				    n, p, pos(c, p));
		}
		it->len_arg = BC_LEN_FIXED;
		it->max_len = 0;
		return 0;
	}

	if (p == end)
		return fail(c, "missing format at position %zu (%s)", pos(c, p), allowed);
	switch (*p) {
	case 'd':
	case 'i':
	case 'u':
	case 'x': {
		int fmt = *p == 'u' ? BC_FMT_UNSIGNED : *p == 'x' ? BC_FMT_HEX : BC_FMT_SIGNED;

		if (n == 1) {
			set_int(it, fmt, 8);
			return 0;
		}
		v = scan_num(p + 1, &nd);
		if (p + 1 + nd != end)
			break;
		if (v != 8 && v != 16 && v != 32 && v != 64)
			return fail(c, "bad integer size '%.*s' at position %zu (8, 16, 32 or 64)",
				    (int)nd, p + 1, pos(c, p + 1));
		set_int(it, fmt, (int)(v / 8));
		return 0;
	}
	case 'p':
		if (n != 1)
			break;
		set_int(it, BC_FMT_PTR, 8);
		return 0;
	case 'c':
		if (n != 1)
			break;
		set_int(it, BC_FMT_CHAR, 1);
		return 0;
	case 's':
		if (n != 1 && p[1] != ':')
			break;
		it->type = BC_CAP_STR;
		it->fmt = BC_FMT_STR;
		it->size = 8;
		it->len_arg = BC_LEN_FIXED;
		if (n == 1) {
			it->max_len = (__u16)c->string_size;
			return 0;
		}
		return parse_len(c, p + 2, end, "string", &it->max_len);
	case 'b':
		if (!tok_is(p, end, "buf") && !starts(p, end, "buf:"))
			break;
		if (src == BC_SRC_RETVAL)
			return fail(c,
				    "format 'buf' at position %zu cannot be used for retval (%s)",
				    pos(c, p), allowed);
		return parse_buf(c, p, end, own, it);
	case 'f':
		if (!tok_is(p, end, "f") && !tok_is(p, end, "f32") && !tok_is(p, end, "f64"))
			break;
		if (src == BC_SRC_RETVAL)
			return fail(c,
				    "format '%.*s' at position %zu cannot be used for retval (%s)",
				    n, p, pos(c, p), allowed);
		return fail(c,
			    "format '%.*s' at position %zu is for floating-point arguments "
			    "(fparg1..fparg8 are xmm0..xmm7)",
			    n, p, pos(c, p));
	default:
		break;
	}
	return fail(c, "unknown format '%.*s' at position %zu (%s)", n, p, pos(c, p), allowed);
}

/* Items collected so far: entries in order, the retval aside. */
struct items {
	struct bc_capture_item_spec entry[BC_MAX_CAPTURES];
	unsigned int n_entry;
	struct bc_capture_item_spec ret;
	bool has_ret;
};

/* Adds it (its text starts at p): no duplicate, not too many. */
static int add_item(const struct pctx *c, struct items *s, const char *p,
		    const struct bc_capture_item_spec *it)
{
	char name[16];
	unsigned int i;

	bc_capture_item_spec_name(it, name, sizeof(name));
	if (it->source == BC_SRC_RETVAL && s->has_ret)
		return fail(c, "retval at position %zu is already captured (one retval at most)",
			    pos(c, p));
	for (i = 0; i < s->n_entry; i++)
		if (s->entry[i].source == it->source && s->entry[i].index == it->index)
			return fail(c,
				    "%s at position %zu is already captured (each argument at "
				    "most once)",
				    name, pos(c, p));
	if (s->n_entry + s->has_ret >= BC_MAX_CAPTURES)
		return fail(c, "item %u at position %zu is one too many (at most %d per function)",
			    s->n_entry + s->has_ret + 1, pos(c, p), BC_MAX_CAPTURES);
	if (it->source == BC_SRC_RETVAL) {
		s->ret = *it;
		s->has_ret = true;
	} else {
		s->entry[s->n_entry++] = *it;
	}
	return 0;
}

/* One ITEM from p to end. */
static int parse_item(const struct pctx *c, const char *p, const char *end,
		      struct bc_capture_item_spec *it)
{
	const char *name_end = p + strcspn(p, ",/");
	unsigned long v = 0, max;
	const char *q, *what;
	size_t nd = 0;
	int src;

	if (name_end > end)
		name_end = end;
	if (p == end)
		return fail(c, "empty item at position %zu (" ITEMS_ALLOWED ")", pos(c, p));
	memset(it, 0, sizeof(*it));
	if (tok_is(p, name_end, "retval")) {
		src = BC_SRC_RETVAL;
		q = name_end;
	} else if (starts(p, name_end, "fparg") || starts(p, name_end, "arg")) {
		bool fp = *p == 'f';

		src = fp ? BC_SRC_FPARG : BC_SRC_ARG;
		max = fp ? BC_MAX_FP_ARGS : BC_MAX_ARG_REGS;
		what = fp ? "floating-point argument" : "argument";
		q = p + (fp ? 5 : 3);
		v = scan_num(q, &nd);
		if (!nd)
			return fail(c, "missing argument number at position %zu (%s1..%s%lu)",
				    pos(c, q), fp ? "fparg" : "arg", fp ? "fparg" : "arg", max);
		if (v < 1)
			return fail(c, "%s %.*s at position %zu does not exist (%s1..%s%lu)", what,
				    (int)nd, q, pos(c, p), fp ? "fparg" : "arg",
				    fp ? "fparg" : "arg", max);
		if (v > max)
			return fail(c,
				    "%s %.*s at position %zu is not in a register on x86-64 "
				    "(%s1..%s%lu; stack arguments cannot be captured)",
				    what, (int)nd, q, pos(c, p), fp ? "fparg" : "arg",
				    fp ? "fparg" : "arg", max);
		q += nd;
	} else {
		return fail(c, "unknown item '%.*s' at position %zu (" ITEMS_ALLOWED ")",
			    (int)(name_end - p), p, pos(c, p));
	}
	if (q != name_end)
		return fail(c, "unexpected '%c' at position %zu (expected '/FMT', ',' or the end)",
			    *q, pos(c, q));

	it->source = (__u8)src;
	it->index = (__u8)(src == BC_SRC_RETVAL ? 0 : v - 1);
	if (name_end == end) {
		if (src == BC_SRC_FPARG) {
			it->type = BC_CAP_FP;
			it->fmt = BC_FMT_DOUBLE;
			it->size = 8;
			it->len_arg = BC_LEN_FIXED;
		} else {
			set_int(it, BC_FMT_SIGNED, 8);
		}
		return 0;
	}
	return parse_fmt(c, name_end + 1, end, src, it->index, it);
}

static void items_to_spec(const struct items *s, struct bc_capture_spec *out)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->items, s->entry, s->n_entry * sizeof(s->entry[0]));
	out->n_entry = (__u8)s->n_entry;
	if (s->has_ret) {
		out->items[s->n_entry] = s->ret;
		out->n_return = 1;
	}
}

/* SPEC from p to the end of the text. */
static int parse_list(const struct pctx *c, const char *p, struct bc_capture_spec *out)
{
	struct bc_capture_item_spec it;
	struct items s;
	int err;

	memset(&s, 0, sizeof(s));
	for (;;) {
		const char *end = p + strcspn(p, ",");

		err = parse_item(c, p, end, &it);
		if (!err)
			err = add_item(c, &s, p, &it);
		if (err)
			return err;
		if (!*end)
			break;
		p = end + 1;
	}
	items_to_spec(&s, out);
	return 0;
}

/* --retval's part after '@': FMT or retval[/FMT]. */
static int parse_retval_fmt(const struct pctx *c, const char *p, struct bc_capture_spec *out)
{
	struct bc_capture_item_spec it;
	const char *end;
	int err;

	memset(&it, 0, sizeof(it));
	it.source = BC_SRC_RETVAL;
	if (!strncmp(p, "retval", 6) && (p[6] == '/' || p[6] == ',' || !p[6])) {
		p += 6;
		if (*p == '/')
			p++;
		else
			set_int(&it, BC_FMT_SIGNED, 8);
	}
	end = p + strcspn(p, ",");
	if (it.type == 0 || p != end) {
		err = parse_fmt(c, p, end, BC_SRC_RETVAL, 0, &it);
		if (err)
			return err;
	}
	if (*end)
		return fail(c,
			    "unexpected ',' at position %zu (--retval takes one format; capture "
			    "arguments with --arg)",
			    pos(c, end));
	memset(out, 0, sizeof(*out));
	out->items[0] = it;
	out->n_return = 1;
	return 0;
}

int bc_argspec_parse(const char *optarg, bool is_retval_option, unsigned int string_size,
		     struct bc_argspec *out, char *err, size_t errlen)
{
	struct pctx c = {
		.label = is_retval_option ? "--retval" : "--arg",
		.whole = optarg,
		.string_size = string_size,
		.err = err,
		.errlen = errlen,
	};
	const char *example = is_retval_option ? "foo@s" : "foo@arg1,arg2/s";
	char text[BC_CAPTURE_TEXT_MAX];
	const char *at;
	int ret;

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = 0;
	if (string_size < 1 || string_size > BC_STRLEN_MAX) {
		bc_set_err(err, errlen, "--string-size %u is not in 1..%d", string_size,
			   BC_STRLEN_MAX);
		return -EINVAL;
	}
	at = strrchr(optarg, '@');
	if (!*optarg || at == optarg)
		return fail(&c, "empty function glob at position 1 (e.g. %s)", example);
	if (!at && !is_retval_option)
		return fail(&c, "missing '@SPEC' (e.g. %s@arg1,arg2/s)", optarg);

	if (is_retval_option) {
		if (at) {
			ret = parse_retval_fmt(&c, at + 1, &out->spec);
		} else {
			memset(&out->spec, 0, sizeof(out->spec));
			out->spec.items[0].source = BC_SRC_RETVAL;
			set_int(&out->spec.items[0], BC_FMT_SIGNED, 8);
			out->spec.n_return = 1;
			ret = 0;
		}
	} else if (!at[1]) {
		return fail(&c, "missing SPEC after '@' at position %zu (e.g. %.*s@arg1,arg2/s)",
			    pos(&c, at + 1), (int)(at - optarg), optarg);
	} else {
		ret = parse_list(&c, at + 1, &out->spec);
	}
	if (ret)
		goto fail;

	ret = bc_capture_spec_format(&out->spec, text, sizeof(text));
	if (ret) {
		bc_set_err(err, errlen, "%s '%s': internal error formatting the capture spec",
			   c.label, optarg);
		goto fail;
	}
	out->glob = at ? strndup(optarg, (size_t)(at - optarg)) : strdup(optarg);
	out->text = strdup(text);
	if (!out->glob || !out->text) {
		bc_set_err(err, errlen, "%s '%s': out of memory", c.label, optarg);
		ret = -ENOMEM;
		goto fail;
	}
	return 0;

fail:
	bc_argspec_free(out);
	return ret;
}

void bc_argspec_free(struct bc_argspec *a)
{
	if (!a)
		return;
	free(a->glob);
	free(a->text);
	memset(a, 0, sizeof(*a));
}

int bc_capture_spec_parse_text(const char *text, struct bc_capture_spec *out, char *err,
			       size_t errlen)
{
	struct pctx c = {
		.label = "capture spec",
		.whole = text,
		.string_size = BC_STRLEN_DEFAULT,
		.err = err,
		.errlen = errlen,
	};
	int ret;

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = 0;
	if (!*text)
		return 0;
	ret = parse_list(&c, text, out);
	if (ret)
		memset(out, 0, sizeof(*out));
	return ret;
}
