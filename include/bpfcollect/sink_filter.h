/* SPDX-License-Identifier: MIT */
/* `report --pid PID`: one process's events out of a whole experiment tree. */
#ifndef BPFCOLLECT_SINK_FILTER_H
#define BPFCOLLECT_SINK_FILTER_H

#include <stdint.h>

#include "bpfcollect/model.h"

/*
 * A sink passing to inner only what belongs to process pid: its records
 * (a fork record belongs to its parent, as the trace has it), mappings and
 * usage samples; begin, end and flush pass as they are. It does not own
 * inner. NULL when out of memory.
 */
struct bc_sink *bc_pid_filter_sink_new(struct bc_sink *inner, uint32_t pid);

#endif
