/* SPDX-License-Identifier: MIT */
/*
 * The files a process already has open when an I/O trace attaches to it
 * (record -P PID -i on), as BC_REC_IO opens: without them every read or
 * write on such a descriptor would be gprofng's "<pipe(), socket(), or
 * other fds>". One record per descriptor above 2 (gprofng keeps 0, 1 and 2
 * as <stdin>, <stdout>, <stderr>) whose /proc/PID/fd link is a path;
 * start_ktime is 0 (no time), nr is BC_IO_NR_INHERITED, no stack.
 */
#ifndef BPFCOLLECT_IOFDS_H
#define BPFCOLLECT_IOFDS_H

#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/record.h"

/* A record, 8-aligned, h.size bytes. A negative return stops the walk. */
typedef int (*bc_iofds_fn)(void *ctx, const struct bc_rec_io *rec);

/*
 * Calls fn for each open file of process pid under proc_root ("/proc"),
 * in descriptor order, stamped ktime. The number of records, or -errno
 * (-ESRCH: no such process); fn's error stops it.
 */
int bc_iofds_seed(const char *proc_root, uint32_t pid, uint64_t ktime, bc_iofds_fn fn, void *ctx);
#endif
