/* SPDX-License-Identifier: MIT */
/* Following a process's executable mappings through /proc/PID/maps. */
#ifndef BPFCOLLECT_PROCMAPS_H
#define BPFCOLLECT_PROCMAPS_H

#include <stdint.h>

#include "bpfcollect/model.h"

struct bc_procmaps {
	uint32_t pid;
	uint64_t *seen; /* hashes of mappings already reported */
	size_t n_seen, cap_seen;
	uint64_t last_digest; /* of the whole file: skip rescans that change nothing */
};

void bc_procmaps_init(struct bc_procmaps *pm, uint32_t pid);
void bc_procmaps_free(struct bc_procmaps *pm);

/*
 * Reports every executable file mapping not reported before to the sink,
 * stamped with ktime. Returns how many were new, or -errno (-ESRCH once the
 * process is gone).
 */
int bc_procmaps_scan(struct bc_procmaps *pm, uint64_t ktime, struct bc_sink *sink);

/* Parses one /proc/PID/maps line; 0 on success, -EINVAL otherwise. path points into line. */
int bc_procmaps_parse_line(char *line, struct bc_mapping *m);

#endif
