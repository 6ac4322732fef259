/* SPDX-License-Identifier: MIT */
/* One event stream into several sinks (record -f er -f prf-csv ...). */
#ifndef BPFCOLLECT_SINK_TEE_H
#define BPFCOLLECT_SINK_TEE_H

#include <stddef.h>

#include "bpfcollect/model.h"

/*
 * A sink passing every op to each of sinks[0..n) in order; the first error
 * is returned (the others still get the op, so every output stays whole).
 * It owns the sinks: destroying it destroys them. NULL when out of memory
 * (the sinks are then not owned).
 */
struct bc_sink *bc_tee_sink_new(struct bc_sink **sinks, size_t n);

#endif
