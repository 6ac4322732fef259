/* SPDX-License-Identifier: MIT */
/* x86-64 syscall numbers and names (table generated at build time). */
#ifndef BPFCOLLECT_SYSCALLS_H
#define BPFCOLLECT_SYSCALLS_H

#define BC_SYSCALL_MAX 512

/* x86-64 numbers of the syscalls uprobes themselves use (kernel 6.11+, 6.17+). */
#define BC_SYSCALL_URETPROBE 335
#define BC_SYSCALL_UPROBE    336

extern const char *const bc_syscall_names[BC_SYSCALL_MAX];

/* Name of syscall nr, or NULL when the build's headers do not know it. */
const char *bc_syscall_name(unsigned int nr);
/* Number of a syscall by name, or -1. */
int bc_syscall_nr(const char *name);

#endif
