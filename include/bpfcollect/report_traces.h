/* SPDX-License-Identifier: MIT */
/*
 * `report heap`, `report leaks` and `report sync`: the heaptrace and
 * synctrace packets (record -H, -s) of a tree of experiments, read the way
 * gprofng reads them, so the numbers are gprofng's function by function.
 */
#ifndef BPFCOLLECT_REPORT_TRACES_H
#define BPFCOLLECT_REPORT_TRACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum bc_trace_view {
	BC_VIEW_HEAP,  /* allocations, bytes, leaks, leaked bytes per function */
	BC_VIEW_LEAKS, /* leaks grouped by call stack, biggest first */
	BC_VIEW_SYNC,  /* wait time and count per function */
};

/*
 * Prints view over the founder and, with descendants, every subexperiment;
 * top `top` rows (0: all). -ENOENT with one line in err when no experiment
 * of the tree has that data.
 */
int bc_report_traces(const char *exp_path, bool descendants, enum bc_trace_view view, size_t top,
		     FILE *out, char *err, size_t errlen);
#endif
