// SPDX-License-Identifier: MIT
/* Control characters escaped before they reach a terminal (bpfcollect/termsafe.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/termsafe.h"

/* UTF-8's C1 controls, U+0080..U+009F: C2 then 80..9F. */
static bool c1_second(unsigned char c)
{
	return c >= 0x80 && c <= 0x9f;
}

/* Whether byte c must be escaped; newline is kept when keep_nl. */
static bool is_control(unsigned char c, bool keep_nl)
{
	return (c < 0x20 && !(keep_nl && c == '\n')) || c == 0x7f;
}

/* c as "\ooo" into out (BC_TERM_ESC_MAX bytes). */
static void octal(char *out, unsigned char c)
{
	out[0] = '\\';
	out[1] = (char)('0' + (c >> 6));
	out[2] = (char)('0' + ((c >> 3) & 7));
	out[3] = (char)('0' + (c & 7));
}

/*
 * The bytes of one character at s (n bytes left) as printed: 1 or 2 bytes
 * of input taken, their escapes (or themselves) in out; returns the bytes
 * written to out.
 */
static size_t escape_one(const unsigned char *s, size_t n, bool keep_nl, char out[8], size_t *taken)
{
	*taken = 1;
	if (n >= 2 && s[0] == 0xc2 && c1_second(s[1])) {
		octal(out, s[0]);
		octal(out + 4, s[1]);
		*taken = 2;
		return 8;
	}
	if (is_control(s[0], keep_nl)) {
		octal(out, s[0]);
		return 4;
	}
	out[0] = (char)s[0];
	return 1;
}

const char *bc_term_escape(char *buf, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), pos = 0;

	if (!len)
		return buf;
	while (left) {
		char one[8];
		size_t taken, n = escape_one(p, left, false, one, &taken);

		if (pos + n >= len)
			break;
		memcpy(buf + pos, one, n);
		pos += n;
		p += taken;
		left -= taken;
	}
	buf[pos] = '\0';
	return buf;
}

/* The stream's state: where it writes, and a C2 byte held until the next one shows. */
struct term_stream {
	FILE *to;
	bool held_c2;
};

static ssize_t term_write(void *cookie, const char *data, size_t size)
{
	struct term_stream *t = cookie;
	const unsigned char *p = (const unsigned char *)data;
	size_t left = size;

	/* a C2 at the end of the last write: its next byte decides */
	if (t->held_c2 && left) {
		t->held_c2 = false;
		if (c1_second(p[0])) {
			char esc[8];

			octal(esc, 0xc2);
			octal(esc + 4, p[0]);
			if (fwrite(esc, 1, 8, t->to) != 8)
				return -1;
			p++;
			left--;
		} else if (fputc(0xc2, t->to) == EOF) {
			return -1;
		}
	}
	while (left) {
		char one[8];
		size_t taken, n;

		if (left == 1 && p[0] == 0xc2) {
			t->held_c2 = true;
			break;
		}
		n = escape_one(p, left, true, one, &taken);
		if (fwrite(one, 1, n, t->to) != n)
			return -1;
		p += taken;
		left -= taken;
	}
	return (ssize_t)size;
}

static int term_close(void *cookie)
{
	struct term_stream *t = cookie;
	int rc = 0;

	if (t->held_c2 && fputc(0xc2, t->to) == EOF)
		rc = EOF;
	free(t);
	return rc;
}

FILE *bc_term_stream(FILE *to)
{
	struct term_stream *t = calloc(1, sizeof(*t));
	cookie_io_functions_t io = {.write = term_write, .close = term_close};
	FILE *f;

	if (!t)
		return NULL;
	t->to = to;
	f = fopencookie(t, "w", io);
	if (!f) {
		free(t);
		return NULL;
	}
	setvbuf(f, NULL, _IONBF, 0);
	return f;
}
