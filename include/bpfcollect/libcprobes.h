/* SPDX-License-Identifier: MIT */
/*
 * The libc functions behind -H (allocators) and -s (waits): resolved in the
 * target's libc, each bc_func's id set to its enum bc_heap_fn or
 * bc_sync_fn, which the probes carry as their BPF cookie.
 */
#ifndef BPFCOLLECT_LIBCPROBES_H
#define BPFCOLLECT_LIBCPROBES_H

#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/model.h"

enum bc_libc_set {
	BC_LIBC_HEAP,
	BC_LIBC_SYNC,
};

/*
 * Appends the functions of set that the target's libc has (exe and pid as
 * for bc_symbols_resolve) to t, which holds nothing else, or the same set
 * resolved in another process: what is there already (the same libc, or
 * an alias: glibc's aligned_alloc is memalign) is not added again. 0, or
 * -errno with one line in err: no libc, or none of the functions in it.
 */
int bc_libc_probes_resolve(const char *exe, int pid, enum bc_libc_set set, struct bc_functab *t,
			   char *err, size_t errlen);

/*
 * Sets each function's id from its name again: anything that renumbers a
 * table (bc_functab_drop_unprobeable) must be followed by this.
 */
void bc_libc_probes_number(enum bc_libc_set set, struct bc_functab *t);

/* Function names: bc_heap_fn_name and bc_sync_fn_name (bpfcollect/names.h). */

/* The ids of set that get no return probe (bit i: id i): free and munmap. */
uint64_t bc_libc_entry_only(enum bc_libc_set set);
#endif
