/* SPDX-License-Identifier: MIT */
/* `report EXP calls FUNC`: each call of the matching functions, with what was captured. */
#ifndef BPFCOLLECT_SINK_CALLS_H
#define BPFCOLLECT_SINK_CALLS_H

#include <stddef.h>
#include <stdio.h>

#include "bpfcollect/model.h"

/*
 * A sink printing, at end, the first `limit` calls (in entry order) of the
 * functions whose name matches glob (fnmatch): time, pid/tid, duration,
 * NAME(arg1=..., ...) = RETURN. RETURN is the captured return value, else the
 * raw register in hex; "(no return)" when none came. Then how many there were.
 */
struct bc_sink *bc_calls_sink_new(FILE *out, const char *glob, size_t limit);

#endif
