/* SPDX-License-Identifier: MIT */
/*
 * Writing JSON strings from untrusted bytes (names, paths, captured text):
 * the result is always valid JSON in valid UTF-8. Control characters and
 * quotes are escaped; a byte that does not start a valid UTF-8 sequence is
 * written as the code point of the same value (\u00NN), so nothing is lost
 * and no reader rejects the file.
 */
#ifndef BPFCOLLECT_JSON_H
#define BPFCOLLECT_JSON_H

#include <stddef.h>
#include <stdio.h>

/* s[0..len), or up to its NUL when len is (size_t)-1, as a quoted JSON string. */
void bc_json_string(FILE *out, const char *s, size_t len);

/* A nanosecond count as microseconds with three decimals: 1234567 -> 1234.567. */
void bc_json_us(FILE *out, int64_t ns);

#endif /* BPFCOLLECT_JSON_H */
