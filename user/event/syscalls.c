// SPDX-License-Identifier: MIT
#include <string.h>

#include "bpfcollect/syscalls.h"

const char *bc_syscall_name(unsigned int nr)
{
	if (nr >= BC_SYSCALL_MAX)
		return NULL;
	if (bc_syscall_names[nr])
		return bc_syscall_names[nr];
	/* Newer than the build's uapi headers, but the tracer's own: name them. */
	if (nr == BC_SYSCALL_URETPROBE)
		return "uretprobe";
	if (nr == BC_SYSCALL_UPROBE)
		return "uprobe";
	return NULL;
}

int bc_syscall_nr(const char *name)
{
	for (int i = 0; i < BC_SYSCALL_MAX; i++)
		if (bc_syscall_names[i] && strcmp(bc_syscall_names[i], name) == 0)
			return i;
	return -1;
}
