// SPDX-License-Identifier: MIT
/*
 * The `.er` reader's notes (info->notes): what it found damaged, one line
 * each, shown under "Reading it:" in report's header.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/containers.h"
#include "er_replay.h"

/* Appends text (len bytes and a newline) to info->notes, doubling its room. */
static void notes_append(struct bc_er_info *info, const char *text, size_t len)
{
	if (info->notes_len + len + 2 > info->notes_cap) {
		size_t cap = info->notes_cap ? info->notes_cap : 256;
		char *v;

		while (cap < info->notes_len + len + 2)
			cap *= 2;
		v = realloc(info->notes, cap);
		if (!v)
			return;
		info->notes = v;
		info->notes_cap = cap;
	}
	memcpy(info->notes + info->notes_len, text, len);
	info->notes_len += len;
	info->notes[info->notes_len++] = '\n';
	info->notes[info->notes_len] = '\0';
}

/*
 * Notes are advisory: one lost to a failed allocation beats failing the
 * read. Each distinct line is kept once, and at most BC_ER_NOTES_MAX of
 * them: a file of damaged blocks has a note per block, and appending must
 * stay O(1) (copying all notes per note made 100,000 blocks take minutes).
 */
void bc_er_note(struct bc_er_info *info, const char *fmt, ...)
{
	static const char more[] = "... and more notes, left out";
	char *line;
	uint32_t id;
	va_list ap;
	int n;

	if (info->n_notes > BC_ER_NOTES_MAX)
		return;
	if (!info->notes_seen && !(info->notes_seen = calloc(1, sizeof(*info->notes_seen))))
		return;
	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (bc_strtab_intern(info->notes_seen, line, (size_t)n, &id) == 1) {
		if (++info->n_notes <= BC_ER_NOTES_MAX)
			notes_append(info, line, (size_t)n);
		else
			notes_append(info, more, sizeof(more) - 1);
	}
	free(line);
}
