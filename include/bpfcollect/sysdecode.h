/* SPDX-License-Identifier: MIT */
/*
 * strace-style rendering of recorded syscalls, driven by the generated
 * signature table (bpfcollect/syscall_table.h):
 *
 *   openat(AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 3
 *   mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f12...
 *   kill(1234, SIGTERM) = -1 ESRCH (No such process)
 *
 * Records are untrusted: nothing is read past rec_size, and a capture item
 * whose length does not fit ends the parsing of items.
 *
 * All functions write a NUL-terminated string into out (when outlen > 0) and
 * return its length, -ENOSPC when it did not fit (out then holds what fitted),
 * or -EINVAL for bad arguments.
 */
#ifndef BPFCOLLECT_SYSDECODE_H
#define BPFCOLLECT_SYSDECODE_H

#include <stddef.h>

#include "bpfcollect/record.h"

/*
 * `name(arg, ...)` of a BC_REC_SYS_ENTER record of rec_size bytes (its size
 * field), taking strings from the bc_cap_item items that follow the fixed
 * struct (source BC_SRC_ARG, index = argument position, type BC_CAP_STR or
 * BC_CAP_BUF).
 */
int bc_sys_format_enter(const struct bc_rec_sys_enter *rec, size_t rec_size, char *out,
			size_t outlen);

/* `= 3`, `= -1 ENOENT (No such file or directory)`, `= 0x7f...` (mmap, brk...). */
int bc_sys_format_result(long ret, unsigned int nr, char *out, size_t outlen);

/*
 * One non-string argument of syscall nr: val rendered as class cls
 * (enum bc_sarg_class) for a C type `type` (its width and signedness; NULL
 * means unsigned long). arg_flags are BC_SARGF_*.
 */
int bc_sys_format_arg(unsigned int nr, unsigned int cls, const char *type, unsigned int arg_flags,
		      __u64 val, char *out, size_t outlen);

#endif /* BPFCOLLECT_SYSDECODE_H */
