/* SPDX-License-Identifier: MIT */
/*
 * Small helpers shared by the symbol resolution modules (symbols.c,
 * elf_symbols.c, objfind.c, libsearch.c). Internal: not part of the API.
 */
#ifndef BPFCOLLECT_SYMUTIL_H
#define BPFCOLLECT_SYMUTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/*
 * Writes the error line err[errlen] (err may be NULL). Control characters a
 * spec or a file name brought in become '?', so it stays one line.
 */
__attribute__((format(printf, 3, 4))) static inline void bc_set_err(char *err, size_t errlen,
								    const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	for (char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

/* Copies a path; -ENAMETOOLONG if it does not fit. */
static inline int bc_copy_path(char *dst, size_t dstlen, const char *src)
{
	size_t len = strlen(src);

	if (len >= dstlen)
		return -ENAMETOOLONG;
	memcpy(dst, src, len + 1);
	return 0;
}

static inline const char *bc_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

#endif /* BPFCOLLECT_SYMUTIL_H */
