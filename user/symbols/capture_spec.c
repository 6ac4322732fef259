// SPDX-License-Identifier: MIT
/*
 * Capture specs once parsed (bpfcollect/argspec.h): checking one that came
 * from outside (an experiment's functions file), merging two for one
 * function, and writing one back as text. The parsing is argspec.c's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bpfcollect/argspec.h"
#include "bpfcollect/symutil.h"

int bc_capture_item_spec_name(const struct bc_capture_item_spec *it, char *out, size_t outlen)
{
	switch (it->source) {
	case BC_SRC_ARG:
		return snprintf(out, outlen, "arg%u", it->index + 1u);
	case BC_SRC_FPARG:
		return snprintf(out, outlen, "fparg%u", it->index + 1u);
	default:
		return snprintf(out, outlen, "retval");
	}
}

static bool zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

static bool item_ok(const struct bc_capture_item_spec *it, bool at_return)
{
	if (at_return) {
		if (it->source != BC_SRC_RETVAL || it->index != 0)
			return false;
	} else if (it->source == BC_SRC_ARG) {
		if (it->index >= BC_MAX_ARG_REGS)
			return false;
	} else if (it->source == BC_SRC_FPARG) {
		if (it->index >= BC_MAX_FP_ARGS)
			return false;
	} else {
		return false;
	}

	switch (it->type) {
	case BC_CAP_INT:
		if (it->source == BC_SRC_FPARG || it->len_arg != BC_LEN_FIXED || it->max_len)
			return false;
		switch (it->fmt) {
		case BC_FMT_SIGNED:
		case BC_FMT_UNSIGNED:
		case BC_FMT_HEX:
			return it->size == 1 || it->size == 2 || it->size == 4 || it->size == 8;
		case BC_FMT_PTR:
			return it->size == 8;
		case BC_FMT_CHAR:
			return it->size == 1;
		default:
			return false;
		}
	case BC_CAP_STR:
		return it->source != BC_SRC_FPARG && it->fmt == BC_FMT_STR && it->size == 8 &&
		       it->len_arg == BC_LEN_FIXED && it->max_len >= 1 &&
		       it->max_len <= BC_STRLEN_MAX;
	case BC_CAP_BUF:
		return it->source == BC_SRC_ARG && it->fmt == BC_FMT_BUF && it->size == 8 &&
		       (it->len_arg == BC_LEN_FIXED ||
			(it->len_arg < BC_MAX_ARG_REGS && it->len_arg != it->index)) &&
		       it->max_len >= 1 && it->max_len <= BC_STRLEN_MAX;
	case BC_CAP_FP:
		return it->source == BC_SRC_FPARG && it->len_arg == BC_LEN_FIXED && !it->max_len &&
		       ((it->fmt == BC_FMT_DOUBLE && it->size == 8) ||
			(it->fmt == BC_FMT_FLOAT && it->size == 4));
	default:
		return false;
	}
}

int bc_capture_spec_check(const struct bc_capture_spec *s, char *err, size_t errlen)
{
	unsigned int n = s->n_entry + s->n_return, i, j;

	if (s->n_return > 1 || n > BC_MAX_CAPTURES) {
		bc_set_err(err, errlen,
			   "capture spec has %u entry and %u return items (at most %d, one return)",
			   s->n_entry, s->n_return, BC_MAX_CAPTURES);
		return -EINVAL;
	}
	if (!zero(s->pad, sizeof(s->pad)) ||
	    !zero(&s->items[n], (BC_MAX_CAPTURES - n) * sizeof(s->items[0]))) {
		bc_set_err(err, errlen, "capture spec has non-zero padding or unused items");
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		const struct bc_capture_item_spec *it = &s->items[i];

		if (!item_ok(it, i >= s->n_entry)) {
			bc_set_err(
				err, errlen,
				"capture item %u is not valid (source %u index %u type %u fmt %u "
				"size %u len_arg %u max_len %u)",
				i + 1, it->source, it->index, it->type, it->fmt, it->size,
				it->len_arg, it->max_len);
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			if (s->items[j].source == it->source && s->items[j].index == it->index) {
				char name[16];

				bc_capture_item_spec_name(it, name, sizeof(name));
				bc_set_err(err, errlen, "capture spec captures %s twice", name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

int bc_capture_spec_merge(struct bc_capture_spec *a, const struct bc_capture_spec *b, char *err,
			  size_t errlen)
{
	struct bc_capture_spec m;
	unsigned int i, j, n;
	int ret;

	ret = bc_capture_spec_check(a, err, errlen);
	if (!ret)
		ret = bc_capture_spec_check(b, err, errlen);
	if (ret)
		return ret;

	for (i = 0; i < (unsigned int)(b->n_entry + b->n_return); i++) {
		const struct bc_capture_item_spec *bi = &b->items[i];

		for (j = 0; j < (unsigned int)(a->n_entry + a->n_return); j++) {
			if (a->items[j].source == bi->source && a->items[j].index == bi->index) {
				char name[16];

				bc_capture_item_spec_name(bi, name, sizeof(name));
				bc_set_err(err, errlen, "%s is captured twice (%s)", name,
					   bi->source == BC_SRC_RETVAL
						   ? "one retval at most"
						   : "each argument at most once");
				return -EINVAL;
			}
		}
	}
	n = a->n_entry + a->n_return + b->n_entry + b->n_return;
	if (n > BC_MAX_CAPTURES) {
		bc_set_err(err, errlen, "%u captures are too many (at most %d per function)", n,
			   BC_MAX_CAPTURES);
		return -EINVAL;
	}

	memset(&m, 0, sizeof(m));
	memcpy(m.items, a->items, a->n_entry * sizeof(a->items[0]));
	memcpy(&m.items[a->n_entry], b->items, b->n_entry * sizeof(b->items[0]));
	m.n_entry = a->n_entry + b->n_entry;
	if (a->n_return)
		m.items[m.n_entry] = a->items[a->n_entry];
	else if (b->n_return)
		m.items[m.n_entry] = b->items[b->n_entry];
	m.n_return = a->n_return + b->n_return;
	*a = m;
	return 0;
}

/* Appends to out at *used; -ENOSPC if it does not fit. */
static int append(char *out, size_t outlen, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int append(char *out, size_t outlen, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out + *used, outlen - *used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= outlen - *used)
		return -ENOSPC;
	*used += (size_t)n;
	return 0;
}

static int format_item(const struct bc_capture_item_spec *it, char *out, size_t outlen,
		       size_t *used)
{
	char name[16];
	int ret;

	bc_capture_item_spec_name(it, name, sizeof(name));
	ret = append(out, outlen, used, "%s/", name);
	if (ret)
		return ret;
	switch (it->type) {
	case BC_CAP_INT:
		switch (it->fmt) {
		case BC_FMT_PTR:
			return append(out, outlen, used, "p");
		case BC_FMT_CHAR:
			return append(out, outlen, used, "c");
		default:
			return append(out, outlen, used, "%c%u",
				      it->fmt == BC_FMT_UNSIGNED ? 'u'
				      : it->fmt == BC_FMT_HEX	 ? 'x'
								 : 'd',
				      it->size * 8u);
		}
	case BC_CAP_STR:
		return append(out, outlen, used, "s:%u", it->max_len);
	case BC_CAP_BUF:
		if (it->len_arg == BC_LEN_FIXED)
			return append(out, outlen, used, "buf:%u", it->max_len);
		return append(out, outlen, used, "buf:arg%u:%u", it->len_arg + 1u, it->max_len);
	default:
		return append(out, outlen, used, it->fmt == BC_FMT_FLOAT ? "f32" : "f64");
	}
}

int bc_capture_spec_format(const struct bc_capture_spec *s, char *out, size_t outlen)
{
	size_t used = 0;
	unsigned int i;
	int ret;

	if (!outlen)
		return -ENOSPC;
	out[0] = 0;
	ret = bc_capture_spec_check(s, NULL, 0);
	if (ret)
		return ret;
	for (i = 0; i < (unsigned int)(s->n_entry + s->n_return); i++) {
		if (i) {
			ret = append(out, outlen, &used, ",");
			if (ret)
				goto fail;
		}
		ret = format_item(&s->items[i], out, outlen, &used);
		if (ret)
			goto fail;
	}
	return 0;

fail:
	out[0] = 0;
	return ret;
}
