// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bpfcollect/libcprobes.h"
#include "bpfcollect/names.h"
#include "bpfcollect/record.h"
#include "bpfcollect/symbols.h"

#define LIBC "libc.so.6"

/* The name of function i of set; NULL past its end. */
static const char *set_fn_name(enum bc_libc_set set, size_t i)
{
	return set == BC_LIBC_HEAP ? bc_heap_fn_name((unsigned int)i)
				   : bc_sync_fn_name((unsigned int)i);
}

uint64_t bc_libc_entry_only(enum bc_libc_set set)
{
	return set == BC_LIBC_HEAP ? (1ULL << BC_HEAP_FN_FREE) | (1ULL << BC_HEAP_FN_MUNMAP) : 0;
}

void bc_libc_probes_number(enum bc_libc_set set, struct bc_functab *t)
{
	for (size_t k = 0; k < t->n; k++)
		for (size_t i = 0; set_fn_name(set, i); i++)
			if (!strcmp(t->v[k].name, set_fn_name(set, i)))
				t->v[k].id = (uint32_t)i;
}

int bc_libc_probes_resolve(const char *exe, int pid, enum bc_libc_set set, struct bc_functab *t,
			   char *err, size_t errlen)
{
	size_t found = 0;
	const char *what = set == BC_LIBC_HEAP ? "heap" : "sync";
	char spec[128], why[512] = "";

	for (size_t i = 0; set_fn_name(set, i); i++) {
		const char *specs[1] = {spec};
		size_t before = t->n;
		int rc;

		snprintf(spec, sizeof(spec), "%s:%s", LIBC, set_fn_name(set, i));
		rc = bc_symbols_resolve(exe, pid, specs, 1, t, why, sizeof(why));
		if (rc == -ENOMEM) {
			snprintf(err, errlen, "out of memory");
			return rc;
		}
		if (rc < 0)
			continue; /* not in this libc, or no libc: judged below */
		found += t->n - before;
	}
	bc_libc_probes_number(set, t);
	if (!found && !t->n) {
		snprintf(err, errlen, "%s tracing needs the target's %s, with %s: %s", what, LIBC,
			 set_fn_name(set, 0), why[0] ? why : "not found");
		return -ENOENT;
	}
	return 0;
}
