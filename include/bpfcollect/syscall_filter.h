/* SPDX-License-Identifier: MIT */
/* Which syscalls the BPF programs record (--syscalls[=LIST]) and which strings they capture. */
#ifndef BPFCOLLECT_SYSCALL_FILTER_H
#define BPFCOLLECT_SYSCALL_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/syscalls.h"

/*
 * Which syscalls list names (comma-separated names or numbers; NULL: all
 * but the tracer's own uretprobe/uprobe) into on[nr]. 0, -ENOMEM, or
 * -EINVAL with one line in err naming the unknown one.
 */
int bc_syscall_list_parse(const char *list, uint8_t on[BC_SYSCALL_MAX], char *err, size_t errlen);

/*
 * Fills the syscall_filter map (list: comma-separated names or numbers; NULL
 * for all but the tracer's own uretprobe/uprobe) and, for each recorded
 * syscall with path arguments, the syscall_captures map (strings of at most
 * string_size bytes). Returns 0 or -errno with one line in err.
 */
int bc_syscall_filter_set(int filter_fd, int captures_fd, const char *list,
			  unsigned int string_size, char *err, size_t errlen);

#endif
