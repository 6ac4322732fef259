/* SPDX-License-Identifier: MIT */
/*
 * What a report prints comes from the traced programs: command lines,
 * process and thread names, function and file names. A name holding
 * ESC]0;TITLE BEL or ESC[2J would retitle or clear the reader's terminal,
 * and a carriage return would overwrite what was printed before it. Every
 * control character (C0 but newline, DEL, and UTF-8's C1, U+0080..U+009F)
 * is therefore printed as a backslash and three octal digits per byte, as
 * `ls -b` does: ESC is \033. Bytes of valid text (UTF-8 included) pass.
 */
#ifndef BPFCOLLECT_TERMSAFE_H
#define BPFCOLLECT_TERMSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The longest escape of one byte, "\ooo". */
#define BC_TERM_ESC_MAX 4

/*
 * s escaped into buf (len bytes, NUL-terminated, cut at a whole escape),
 * newline escaped too: for a name printed on one line. Returns buf.
 */
const char *bc_term_escape(char *buf, size_t len, const char *s);

/*
 * A stream that passes what it is given on to `to`, every control
 * character but newline escaped: one filter in front of every view.
 * Unbuffered, so it never holds back what `to` should already have (an
 * error printed on stderr comes in order). Close it with fclose (`to`
 * stays open). NULL with errno set.
 */
FILE *bc_term_stream(FILE *to);

#endif /* BPFCOLLECT_TERMSAFE_H */
