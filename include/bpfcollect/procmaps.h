/* SPDX-License-Identifier: MIT */
/* The executable mappings of a running process, from /proc/PID/maps (-P's first map.xml). */
#ifndef BPFCOLLECT_PROCMAPS_H
#define BPFCOLLECT_PROCMAPS_H
#include <stdint.h>

#include "bpfcollect/model.h"

typedef int (*bc_mapping_fn)(void *ctx, const struct bc_mapping *m);

/*
 * Calls fn for every file-backed executable mapping of pid in procfs/PID/maps
 * ("/proc"), stamped with ktime; m->path is the path as the process sees it.
 * Stops at fn's first negative return and returns it. Otherwise the number
 * of mappings, or -ESRCH once the process is gone, -errno.
 */
int bc_procmaps_read(const char *procfs, uint32_t pid, uint64_t ktime, bc_mapping_fn fn, void *ctx);

/* Parses one /proc/PID/maps line; 0 on success, -EINVAL otherwise. path points into line. */
int bc_procmaps_parse_line(char *line, struct bc_mapping *m);
#endif
