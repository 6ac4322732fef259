/* SPDX-License-Identifier: MIT */
/* Rendering captured values: one formatter every sink uses. */
#ifndef BPFCOLLECT_CAPTURE_FMT_H
#define BPFCOLLECT_CAPTURE_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/capture.h"
#include "bpfcollect/model.h"

/* Iterates over the capture items after a record's fixed part; records are untrusted. */
struct bc_cap_iter {
	const uint8_t *p, *end;
};

/* Starts at offset `fixed` of a record of `size` bytes. */
void bc_cap_iter_init(struct bc_cap_iter *it, const void *rec, size_t size, size_t fixed);
/* Next item and its data; false at the end or at an item that does not fit. */
bool bc_cap_iter_next(struct bc_cap_iter *it, const struct bc_cap_item **item,
		      const uint8_t **data);

/* Size of the fixed part of a record kind that can carry captures, else 0. */
size_t bc_cap_fixed_size(unsigned int kind);

/*
 * Appends `data` (len bytes) C-escaped inside double quotes to out: \n \t \r
 * \" \\ \0 and \xNN for other non-printables. Returns the length it needed
 * (like snprintf) and never writes past outlen.
 */
size_t bc_escape_quoted(char *out, size_t outlen, const uint8_t *data, size_t len);

/*
 * Renders one item's value as spec asks (spec may be NULL: raw form): -42,
 * 0x7ffd1234, NULL, 'Z', "text", "text"... (truncated), "a\0b" (buffer),
 * <fault>, <unavailable>. Returns what snprintf would.
 */
int bc_format_cap_value(char *out, size_t outlen, const struct bc_cap_item *item,
			const uint8_t *data, const struct bc_capture_item_spec *spec);

/* "arg1", "retval", "fparg2" */
void bc_cap_item_name(const struct bc_cap_item *item, char *out, size_t outlen);

/*
 * Renders every item of a function entry/return event as NAME=VALUE joined by
 * sep (e.g. " " or ", "), using the function's spec. Empty when there are
 * none. Returns what snprintf would.
 */
int bc_format_func_captures(const struct bc_event *ev, const char *sep, char *out, size_t outlen);

/*
 * Calls fn with the name and the rendered value of every item of a function
 * entry/return event, in order; stops at fn's first non-zero return, which
 * it returns. 0 when there are none.
 */
int bc_func_captures_each(const struct bc_event *ev,
			  int (*fn)(void *ctx, const char *name, const char *value), void *ctx);

#endif
