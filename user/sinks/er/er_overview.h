/* SPDX-License-Identifier: MIT */
/*
 * An experiment's overview file: one 504-byte usage record per sample point,
 * record 0 the baseline at the start, record K closing sample K (log.xml's
 * `sample` event id=K). Values never go backwards (gprofng subtracts them
 * unsigned); the file only ever holds whole records.
 */
#ifndef BPFCOLLECT_ER_OVERVIEW_H
#define BPFCOLLECT_ER_OVERVIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "bpfcollect/overview.h"
#include "bpfcollect/record.h"

struct er_overview {
	int fd;
	uint64_t size;
	uint32_t pid;
	unsigned int next_id; /* id of the next record */
	struct bc_usage last;
	bool final; /* the process's last sample is written */
};

/* Creates the file in dirfd and writes the baseline (id 0): nothing used yet at start. */
int er_overview_open(struct er_overview *ov, int dirfd, uint32_t pid, uint64_t start_ktime);
/* Appends a sample; returns its id (> 0) or -errno. */
int er_overview_add(struct er_overview *ov, const struct bc_usage *u);
/* The final usage a PROC_EXIT record carries, as a sample. */
void er_overview_from_exit(const struct bc_rec_exit *x, struct bc_usage *u);
void er_overview_close(struct er_overview *ov);

#endif
