/* SPDX-License-Identifier: MIT */
/*
 * The whole system call behind a SYS_EXIT: sinks that show a call at its
 * exit (text, chrome) keep each thread's last SYS_ENTER here and get back,
 * at the exit, the entry with the paths the exit carries in place of the
 * entry's failed reads (a path the entry could not fault in is read again
 * at the exit), so bc_sys_format_enter() renders the call as it was made.
 */
#ifndef BPFCOLLECT_SYS_MERGE_H
#define BPFCOLLECT_SYS_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/capture.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/record.h"

struct bc_sys_pending {
	uint32_t tid;
	uint32_t size; /* 0: no entry waits */
	uint64_t rec[BC_CAPTURE_RECORD_MAX / 8];
};

/* Zeroed is empty; free with bc_sys_merge_free(). */
struct bc_sys_merge {
	struct bc_sys_pending *pending;
	size_t n, cap;
	struct bc_idmap index; /* tid -> index + 1 */
	uint64_t merged[BC_CAPTURE_RECORD_MAX * 2 / 8];
};

/* Keeps e (its size field's bytes) as its thread's call in progress. -ENOMEM. */
int bc_sys_merge_enter(struct bc_sys_merge *m, const struct bc_rec_sys_enter *e);
/*
 * The entry of the exit x with the exit's paths merged in, *size bytes,
 * valid until the next call on m; NULL when its entry is not known. The
 * thread's entry is used up either way.
 */
const struct bc_rec_sys_enter *bc_sys_merge_exit(struct bc_sys_merge *m,
						 const struct bc_rec_head *x, size_t *size);
/* Forgets tid's call in progress (the thread is gone). */
void bc_sys_merge_forget(struct bc_sys_merge *m, uint32_t tid);
void bc_sys_merge_free(struct bc_sys_merge *m);

#endif /* BPFCOLLECT_SYS_MERGE_H */
