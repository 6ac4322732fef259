/* SPDX-License-Identifier: MIT */
/* A sink printing one line per event: `report EXP events`, and the tests' exact view. */
#ifndef BPFCOLLECT_SINK_TEXT_H
#define BPFCOLLECT_SINK_TEXT_H

#include <stdio.h>

#include "bpfcollect/model.h"

/*
 * Lines are: TIME PID TID SEQ DEPTH KIND NAME [key=value...], TIME in
 * seconds since the session start with 9 decimals; KIND one of entry,
 * return, sys_enter, sys_exit, fork, thread, exec, thread_exit, exit, lost,
 * offcpu, process, sample, heap, sync, io (docs/text.md).
 * Fields are separated by single spaces; NAME is "-" when there is none.
 */
struct bc_sink *bc_text_sink_new(FILE *out);

#endif
