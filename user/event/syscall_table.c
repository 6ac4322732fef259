// SPDX-License-Identifier: MIT
/* Lookups in the generated syscall signature table (build/gen/syscall_table.c). */
#include <stddef.h>

#include "bpfcollect/syscall_table.h"

const struct bc_syscall_sig *bc_syscall_sig(unsigned int nr)
{
	if (nr >= BC_SYSCALL_MAX || !bc_syscall_sigs[nr].name)
		return NULL;
	return &bc_syscall_sigs[nr];
}

unsigned int bc_syscall_path_args(unsigned int nr)
{
	const struct bc_syscall_sig *sig = bc_syscall_sig(nr);
	unsigned int mask = 0;

	if (!sig)
		return 0;
	for (unsigned int i = 0; i < sig->nargs && i < 6; i++)
		if (sig->args[i].cls == BC_SARG_PATH)
			mask |= 1u << i;
	return mask;
}

const char *bc_sarg_class_name(unsigned int cls)
{
	static const char *const names[BC_SARG_NR] = {
		[BC_SARG_HEX] = "HEX",
		[BC_SARG_INT] = "INT",
		[BC_SARG_UINT] = "UINT",
		[BC_SARG_PTR] = "PTR",
		[BC_SARG_PATH] = "PATH",
		[BC_SARG_FD] = "FD",
		[BC_SARG_OPEN_FLAGS] = "OPEN_FLAGS",
		[BC_SARG_AT_FLAGS] = "AT_FLAGS",
		[BC_SARG_MODE] = "MODE",
		[BC_SARG_MMAP_PROT] = "MMAP_PROT",
		[BC_SARG_MMAP_FLAGS] = "MMAP_FLAGS",
		[BC_SARG_SIGNAL] = "SIGNAL",
	};

	return cls < BC_SARG_NR ? names[cls] : "?";
}
