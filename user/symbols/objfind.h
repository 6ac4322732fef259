/* SPDX-License-Identifier: MIT */
/*
 * Finding the target executable and load objects (internal; the API is
 * bc_symbols_find_object in symbols.h, whose rules these follow).
 *
 * Functions return 0 or a negative errno and write one error line into
 * err[errlen] (err may be NULL).
 */
#ifndef BPFCOLLECT_OBJFIND_H
#define BPFCOLLECT_OBJFIND_H

#include <stddef.h>

/*
 * The canonical path of the target executable: exe, looked up in $PATH as
 * execvp(3) would when it has no '/'; when exe is NULL or empty and pid > 0,
 * /proc/PID/exe. Checked to be an ELF file uprobes can probe (bc_elf_check).
 */
int bc_resolve_exe(const char *exe, int pid, char *out, size_t outlen, char *err, size_t errlen);

/*
 * bc_symbols_find_object() once the executable is known: exe is its
 * canonical path (may be NULL when pid > 0 or obj is a path), exe_as_given
 * the name the caller used for it (NULL: exe), which "OBJ" may also match.
 */
int bc_find_object(const char *exe, const char *exe_as_given, int pid, const char *obj, char *path,
		   size_t pathlen, char *err, size_t errlen);

#endif /* BPFCOLLECT_OBJFIND_H */
