// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "er_strbuf.h"
#include "bpfcollect/xml.h"

bool er_sb_reserve(struct er_strbuf *b, size_t more)
{
	if (b->oom)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;

	while (cap < b->len + more + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);

	if (!s) {
		b->oom = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

void er_sb_printf(struct er_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !er_sb_reserve(b, n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

void er_sb_putc(struct er_strbuf *b, char c)
{
	if (!er_sb_reserve(b, 1))
		return;
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

void er_sb_escaped(struct er_strbuf *b, const char *s)
{
	size_t n = bc_xml_escape(NULL, 0, s ? s : "");

	if (!er_sb_reserve(b, n))
		return;
	bc_xml_escape(b->s + b->len, n + 1, s ? s : "");
	b->len += n;
}

/*
 * Appends s as one shell word: comment lines stay readable in gprofng's
 * header and parse back exactly. Single quotes unless s holds one; then
 * double quotes, which our reader treats literally but for backslash.
 */
void er_sb_shell_word(struct er_strbuf *b, const char *s)
{
	const char *safe =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-";

	if (*s && strspn(s, safe) == strlen(s)) {
		er_sb_printf(b, "%s", s);
	} else if (!strchr(s, '\'')) {
		er_sb_printf(b, "'%s'", s);
	} else {
		er_sb_putc(b, '"');
		for (; *s; s++) {
			if (*s == '"' || *s == '\\')
				er_sb_putc(b, '\\');
			er_sb_putc(b, *s);
		}
		er_sb_putc(b, '"');
	}
}

/* An XML comment event that gprofng prints verbatim in the header (id 400). */
void er_sb_comment(struct er_strbuf *b, const struct er_strbuf *text)
{
	er_sb_printf(b, "<event kind=\"comment\" id=\"400\">");
	er_sb_escaped(b, text->oom ? "" : text->s);
	er_sb_printf(b, "</event>\n");
}
