/* SPDX-License-Identifier: MIT */
/*
 * The executable mappings an exec made (execve maps the image and its
 * interpreter itself, not through mmap syscalls): rebuilt from the ELF
 * program headers and where the EXEC record says the kernel put them.
 */
#ifndef BPFCOLLECT_EXEC_IMAGE_H
#define BPFCOLLECT_EXEC_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/model.h"

#define BC_EXEC_MAPS_MAX 8

struct bc_exec_maps {
	struct bc_mapping m[BC_EXEC_MAPS_MAX];
	char paths[2][4096]; /* [0] the executable, [1] its interpreter */
	size_t n;
};

/*
 * Fills out with the r-x mappings of the executable `exe` (its first
 * executable segment's code begins at code_start) and, when interp_base is
 * not 0, of its PT_INTERP interpreter loaded at that base. pid/ktime stamp
 * them. -errno when the executable cannot be read.
 */
int bc_exec_image_maps(const char *exe, uint64_t code_start, uint64_t interp_base, uint32_t pid,
		       uint64_t ktime, struct bc_exec_maps *out);

/*
 * The dynamic linker exe asks for (PT_INTERP), its real path into
 * interp[len]. 0, -ENOENT for a static program, or -errno.
 */
int bc_exec_interp(const char *exe, char *interp, size_t len);

#endif
