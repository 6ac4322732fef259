/* SPDX-License-Identifier: MIT */
/* Turning --arg/--retval options into capture specs on the function table. */
#ifndef BPFCOLLECT_CAPTURE_PLAN_H
#define BPFCOLLECT_CAPTURE_PLAN_H

#include <stddef.h>

#include "bpfcollect/model.h"
#include "bpfcollect/record_opts.h"

/*
 * Parses every --arg and --retval of o, resolves its [OBJ:]GLOB like -u
 * does, and merges its spec into each matching function of funcs, adding
 * the functions not traced yet. exe is the target executable; pid > 0 a
 * running process (exe may then be NULL), as for bc_symbols_resolve(). Returns 0 or
 * a negative errno with one line in err naming the option.
 */
int bc_capture_plan(const char *exe, int pid, const struct bc_record_opts *o,
		    struct bc_functab *funcs, char *err, size_t errlen);

#endif
