// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bpfcollect/capture_fmt.h"

void bc_cap_iter_init(struct bc_cap_iter *it, const void *rec, size_t size, size_t fixed)
{
	it->p = (const uint8_t *)rec + (fixed < size ? fixed : size);
	it->end = (const uint8_t *)rec + size;
}

bool bc_cap_iter_next(struct bc_cap_iter *it, const struct bc_cap_item **item, const uint8_t **data)
{
	const struct bc_cap_item *i;
	size_t need;

	if ((size_t)(it->end - it->p) < sizeof(*i))
		return false;
	i = (const struct bc_cap_item *)it->p;
	need = sizeof(*i) + (((size_t)i->len + 7) & ~(size_t)7);
	if ((size_t)(it->end - it->p) < need)
		return false;
	*item = i;
	*data = it->p + sizeof(*i);
	it->p += need;
	return true;
}

size_t bc_cap_fixed_size(unsigned int kind)
{
	switch (kind) {
	case BC_REC_FUNC_ENTRY:
	case BC_REC_FUNC_RETURN:
	case BC_REC_SYS_ENTER:
	case BC_REC_SYS_EXIT:
		return bc_rec_min_size(kind);
	default:
		return 0;
	}
}

/* Appends like snprintf at *pos, counting what would have been written. */
static void put(char *out, size_t outlen, size_t *pos, const char *s, size_t n)
{
	if (*pos < outlen) {
		size_t room = outlen - *pos - 1;

		memcpy(out + *pos, s, n < room ? n : room);
		out[*pos + (n < room ? n : room)] = 0;
	}
	*pos += n;
}

size_t bc_escape_quoted(char *out, size_t outlen, const uint8_t *data, size_t len)
{
	size_t pos = 0;
	char tmp[8];

	if (outlen)
		out[0] = 0;
	put(out, outlen, &pos, "\"", 1);
	for (size_t i = 0; i < len; i++) {
		uint8_t c = data[i];

		switch (c) {
		case '\n':
			put(out, outlen, &pos, "\\n", 2);
			break;
		case '\t':
			put(out, outlen, &pos, "\\t", 2);
			break;
		case '\r':
			put(out, outlen, &pos, "\\r", 2);
			break;
		case '"':
			put(out, outlen, &pos, "\\\"", 2);
			break;
		case '\\':
			put(out, outlen, &pos, "\\\\", 2);
			break;
		case 0:
			put(out, outlen, &pos, "\\0", 2);
			break;
		default:
			if (c < 0x20 || c >= 0x7f) {
				snprintf(tmp, sizeof(tmp), "\\x%02x", c);
				put(out, outlen, &pos, tmp, 4);
			} else {
				put(out, outlen, &pos, (const char *)&c, 1);
			}
		}
	}
	put(out, outlen, &pos, "\"", 1);
	return pos;
}

static int format_int(char *out, size_t outlen, uint64_t v, const struct bc_capture_item_spec *s)
{
	unsigned int bits = s && s->size && s->size < 8 ? s->size * 8 : 64;
	uint64_t mask = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
	uint64_t u = v & mask;
	int64_t d = bits == 64 ? (int64_t)u : (int64_t)(u << (64 - bits)) >> (64 - bits);

	switch (s ? s->fmt : BC_FMT_HEX) {
	case BC_FMT_SIGNED:
		return snprintf(out, outlen, "%" PRId64, d);
	case BC_FMT_UNSIGNED:
		return snprintf(out, outlen, "%" PRIu64, u);
	case BC_FMT_PTR:
		return v ? snprintf(out, outlen, "0x%" PRIx64, v) : snprintf(out, outlen, "NULL");
	case BC_FMT_CHAR: {
		uint8_t c = (uint8_t)v;

		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
			return snprintf(out, outlen, "'%c'", c);
		return snprintf(out, outlen, "'\\x%02x'", c);
	}
	default:
		return snprintf(out, outlen, "0x%" PRIx64, u);
	}
}

int bc_format_cap_value(char *out, size_t outlen, const struct bc_cap_item *item,
			const uint8_t *data, const struct bc_capture_item_spec *spec)
{
	uint64_t v = 0;
	size_t n;

	if (item->flags & BC_CAPF_FAULT)
		return snprintf(out, outlen, item->type == BC_CAP_FP ? "<unavailable>" : "<fault>");
	if (item->flags & BC_CAPF_NULL)
		return snprintf(out, outlen, "NULL");
	switch (item->type) {
	case BC_CAP_INT:
		if (item->len >= 8)
			memcpy(&v, data, 8);
		return format_int(out, outlen, v, spec);
	case BC_CAP_STR:
	case BC_CAP_BUF:
		n = bc_escape_quoted(out, outlen, data, item->len);
		if (item->flags & BC_CAPF_TRUNCATED) {
			if (n + 3 < outlen)
				memcpy(out + n, "...", 4);
			n += 3;
		}
		return (int)n;
	default:
		return snprintf(out, outlen, "<unavailable>");
	}
}

void bc_cap_item_name(const struct bc_cap_item *item, char *out, size_t outlen)
{
	switch (item->source) {
	case BC_SRC_RETVAL:
		snprintf(out, outlen, "retval");
		break;
	case BC_SRC_FPARG:
		snprintf(out, outlen, "fparg%u", item->index + 1U);
		break;
	default:
		snprintf(out, outlen, "arg%u", item->index + 1U);
		break;
	}
}

int bc_func_captures_each(const struct bc_event *ev,
			  int (*fn)(void *ctx, const char *name, const char *value), void *ctx)
{
	const struct bc_rec_head *h = ev->rec;
	size_t fixed = bc_cap_fixed_size(h->kind);
	const struct bc_cap_item *item;
	const uint8_t *data;
	struct bc_cap_iter it;
	char name[16], value[BC_STRLEN_MAX * 4 + 16];
	int rc;

	if (!fixed || (h->kind != BC_REC_FUNC_ENTRY && h->kind != BC_REC_FUNC_RETURN))
		return 0;
	bc_cap_iter_init(&it, h, h->size, fixed);
	while (bc_cap_iter_next(&it, &item, &data)) {
		const struct bc_capture_item_spec *spec = NULL;

		if (ev->func && item->spec < BC_MAX_CAPTURES &&
		    item->spec < ev->func->capture.n_entry + ev->func->capture.n_return)
			spec = &ev->func->capture.items[item->spec];
		bc_cap_item_name(item, name, sizeof(name));
		bc_format_cap_value(value, sizeof(value), item, data, spec);
		rc = fn(ctx, name, value);
		if (rc)
			return rc;
	}
	return 0;
}

struct joined {
	char *out;
	size_t outlen, pos;
	const char *sep;
};

static int join_one(void *ctx, const char *name, const char *value)
{
	struct joined *j = ctx;

	if (j->pos)
		put(j->out, j->outlen, &j->pos, j->sep, strlen(j->sep));
	put(j->out, j->outlen, &j->pos, name, strlen(name));
	put(j->out, j->outlen, &j->pos, "=", 1);
	put(j->out, j->outlen, &j->pos, value, strlen(value));
	return 0;
}

int bc_format_func_captures(const struct bc_event *ev, const char *sep, char *out, size_t outlen)
{
	struct joined j = {out, outlen, 0, sep};

	if (outlen)
		out[0] = 0;
	bc_func_captures_each(ev, join_one, &j);
	return (int)j.pos;
}
