/* SPDX-License-Identifier: MIT */
/* Inside the RTL sink (user/sinks/rtl/): the message of a record's `|` line. */
#ifndef BPFCOLLECT_RTL_SINK_PRIVATE_H
#define BPFCOLLECT_RTL_SINK_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "bpfcollect/model.h"

/*
 * The message for ev into out[len]: its syscall rendered from the thread's
 * entry record (enter, or NULL), clock samples only when samples. 0, or
 * -ENOENT when the record makes no line.
 */
int rtl_message(const struct bc_event *ev, const struct bc_rec_sys_enter *enter, bool samples,
		char *out, size_t len);

#endif
