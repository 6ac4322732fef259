/* SPDX-License-Identifier: MIT */
/*
 * x86-64 syscall signatures, generated at build time by
 * tools/gen-syscall-table.sh from the kernel's include/linux/syscalls.h
 * (Debian's linux-headers-*-common) and numbered by <asm/unistd_64.h>.
 * Syscalls whose prototype was not found have six BC_SARG_HEX arguments
 * named arg1..arg6 and no BC_SIG_PROTO flag.
 */
#ifndef BPFCOLLECT_SYSCALL_TABLE_H
#define BPFCOLLECT_SYSCALL_TABLE_H

#include "bpfcollect/syscalls.h"

/* How an argument's raw 64-bit register value is rendered. */
enum bc_sarg_class {
	BC_SARG_HEX = 0,    /* 0x..., 0 as 0 */
	BC_SARG_INT,	    /* signed decimal (of the C type's width) */
	BC_SARG_UINT,	    /* unsigned decimal */
	BC_SARG_PTR,	    /* NULL or 0x... */
	BC_SARG_PATH,	    /* NUL-terminated string (captured) or its pointer */
	BC_SARG_FD,	    /* file descriptor: int, AT_FDCWD */
	BC_SARG_OPEN_FLAGS, /* O_RDONLY|O_CLOEXEC... */
	BC_SARG_AT_FLAGS,   /* AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH... */
	BC_SARG_MODE,	    /* octal: 0644 */
	BC_SARG_MMAP_PROT,  /* PROT_READ|PROT_WRITE */
	BC_SARG_MMAP_FLAGS, /* MAP_PRIVATE|MAP_ANONYMOUS */
	BC_SARG_SIGNAL,	    /* SIGTERM, SIGRTMIN+3 */
	BC_SARG_NR,
};

/* bc_syscall_arg.flags */
#define BC_SARGF_ADDR 0x01 /* an address held in an integer: 0 renders as NULL */

struct bc_syscall_arg {
	const char *type;    /* C type as in the prototype: "const char __user *" */
	const char *name;    /* "filename"; argN when the prototype has none */
	unsigned char cls;   /* enum bc_sarg_class */
	unsigned char flags; /* BC_SARGF_* */
};

/* bc_syscall_sig.flags */
#define BC_SIG_PROTO 0x01 /* from a kernel prototype (else 6 hex guesses) */

struct bc_syscall_sig {
	const char *name;
	unsigned char nargs; /* 0..6 */
	unsigned char flags; /* BC_SIG_* */
	struct bc_syscall_arg args[6];
};

/* Generated: indexed by number; .name NULL where the number is unused. */
extern const struct bc_syscall_sig bc_syscall_sigs[BC_SYSCALL_MAX];
/* The kernel syscalls.h the table came from, "" when none was found. */
extern const char bc_syscall_table_source[];
/* How many syscalls have a prototype (BC_SIG_PROTO): 0 without the headers. */
extern const unsigned int bc_syscall_table_protos;

/* Signature of syscall nr, NULL if the number is unknown. */
const struct bc_syscall_sig *bc_syscall_sig(unsigned int nr);
/* Bitmask of argument positions (bit i = args[i]) whose class is BC_SARG_PATH. */
unsigned int bc_syscall_path_args(unsigned int nr);
/* Name of a class ("PATH"), for diagnostics; "?" if out of range. */
const char *bc_sarg_class_name(unsigned int cls);

#endif /* BPFCOLLECT_SYSCALL_TABLE_H */
