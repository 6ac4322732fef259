// SPDX-License-Identifier: MIT
/* JSON strings from untrusted bytes (bpfcollect/json.h). */
#include <inttypes.h>
#include <stdint.h>

#include "bpfcollect/json.h"

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned int c = s[0];
	size_t len;
	uint32_t cp;

	if (c < 0xc2 || c > 0xf4)
		return 0; /* a continuation byte, an overlong start, or past U+10FFFF */
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	cp = c & (0xff >> (len + 1));
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void bc_json_string(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	for (size_t i = 0; len == (size_t)-1 ? p[i] != 0 : i < len;) {
		unsigned int c = p[i];
		size_t n;

		if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc((int)c, out);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			fputc((int)c, out);
			i++;
		} else if ((n = utf8_len(p + i, len == (size_t)-1 ? 4 : len - i)) != 0) {
			fwrite(p + i, 1, n, out);
			i += n;
		} else {
			fprintf(out, "\\u%04x", c);
			i++;
		}
	}
	fputc('"', out);
}

void bc_json_us(FILE *out, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	fprintf(out, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", a / 1000, a % 1000);
}
