/* SPDX-License-Identifier: MIT */
/*
 * Processes a debugger is attached to (user/agent/debuggers.c). A uprobe
 * put where a debugger's breakpoint (int3) already is took its place: the
 * breakpoint never fired again, even after the recording detached. -P
 * leaves such functions alone and says so.
 */
#ifndef BPFCOLLECT_DEBUGGERS_H
#define BPFCOLLECT_DEBUGGERS_H

#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/model.h"

/* pid's tracer (TracerPid in procfs/PID/status): its pid, 0 for none, or -errno. */
int bc_proc_tracer(const char *procfs, uint32_t pid);

/*
 * Drops from funcs the functions whose probe would go on a breakpoint a
 * debugger put in pid (an int3 at the probed address, or at one of the
 * return sites), warn called for each; how many were dropped, or -errno.
 * Only when pid has a tracer: without one no breakpoint can be pending.
 */
int bc_functab_spare_breakpoints(struct bc_functab *funcs, uint32_t pid,
				 void (*warn)(const struct bc_func *f, const char *why));

#endif
