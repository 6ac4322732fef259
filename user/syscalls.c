// SPDX-License-Identifier: MIT
#include <string.h>

#include "bpfcollect/syscalls.h"

const char *bc_syscall_name(unsigned int nr)
{
	return nr < BC_SYSCALL_MAX ? bc_syscall_names[nr] : NULL;
}

int bc_syscall_nr(const char *name)
{
	for (int i = 0; i < BC_SYSCALL_MAX; i++)
		if (bc_syscall_names[i] && strcmp(bc_syscall_names[i], name) == 0)
			return i;
	return -1;
}
