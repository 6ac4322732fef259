/* SPDX-License-Identifier: MIT */
/* The growable string the experiment writer builds log.xml and map.xml elements in. */
#ifndef BPFCOLLECT_ER_STRBUF_H
#define BPFCOLLECT_ER_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

/* Allocation failure is sticky and checked once at the end (oom). */
struct er_strbuf {
	char *s;
	size_t len;
	size_t cap;
	bool oom;
};

/* Room for more bytes and a NUL; false once out of memory. */
bool er_sb_reserve(struct er_strbuf *b, size_t more);
__attribute__((format(printf, 2, 3))) void er_sb_printf(struct er_strbuf *b, const char *fmt, ...);
void er_sb_putc(struct er_strbuf *b, char c);
/* s with XML escapes (NULL as ""). */
void er_sb_escaped(struct er_strbuf *b, const char *s);
/*
 * s as one shell word: comment lines stay readable in gprofng's header and
 * parse back exactly. Single quotes unless s holds one; then double quotes,
 * which our reader treats literally but for backslash.
 */
void er_sb_shell_word(struct er_strbuf *b, const char *s);
/* An XML comment event that gprofng prints verbatim in the header (id 400). */
void er_sb_comment(struct er_strbuf *b, const struct er_strbuf *text);
#endif
