// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bpfcollect/libcprobes.h"
#include "bpfcollect/record.h"
#include "bpfcollect/symbols.h"

#define LIBC "libc.so.6"

/* Indexed by enum bc_heap_fn. */
static const char *const heap_names[BC_HEAP_FN_NR] = {
	"malloc",	 "calloc",   "realloc", "reallocarray", "free", "posix_memalign",
	"aligned_alloc", "memalign", "valloc",	"pvalloc",	"mmap", "munmap",
};

/* Indexed by enum bc_sync_fn. */
static const char *const sync_names[BC_SYNC_FN_NR] = {
	"pthread_mutex_lock",
	"pthread_cond_wait",
	"pthread_cond_timedwait",
	"pthread_join",
	"sem_wait",
	"sem_timedwait",
	"pthread_rwlock_rdlock",
	"pthread_rwlock_wrlock",
};

const char *bc_heap_fn_name(unsigned int fn)
{
	return fn < BC_HEAP_FN_NR ? heap_names[fn] : "?";
}

const char *bc_sync_fn_name(unsigned int fn)
{
	return fn < BC_SYNC_FN_NR ? sync_names[fn] : "?";
}

uint64_t bc_libc_entry_only(enum bc_libc_set set)
{
	return set == BC_LIBC_HEAP ? (1ULL << BC_HEAP_FN_FREE) | (1ULL << BC_HEAP_FN_MUNMAP) : 0;
}

void bc_libc_probes_number(enum bc_libc_set set, struct bc_functab *t)
{
	const char *const *names = set == BC_LIBC_HEAP ? heap_names : sync_names;
	size_t n = set == BC_LIBC_HEAP ? BC_HEAP_FN_NR : BC_SYNC_FN_NR;

	for (size_t k = 0; k < t->n; k++)
		for (size_t i = 0; i < n; i++)
			if (!strcmp(t->v[k].name, names[i]))
				t->v[k].id = (uint32_t)i;
}

int bc_libc_probes_resolve(const char *exe, int pid, enum bc_libc_set set, struct bc_functab *t,
			   char *err, size_t errlen)
{
	const char *const *names = set == BC_LIBC_HEAP ? heap_names : sync_names;
	size_t n = set == BC_LIBC_HEAP ? BC_HEAP_FN_NR : BC_SYNC_FN_NR, found = 0;
	const char *what = set == BC_LIBC_HEAP ? "heap" : "sync";
	char spec[128], why[512] = "";

	for (size_t i = 0; i < n; i++) {
		const char *specs[1] = {spec};
		size_t before = t->n;
		int rc;

		snprintf(spec, sizeof(spec), "%s:%s", LIBC, names[i]);
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
			 names[0], why[0] ? why : "not found");
		return -ENOENT;
	}
	return 0;
}
