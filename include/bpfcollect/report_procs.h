/* SPDX-License-Identifier: MIT */
/* `report procs`: per process CPU, off-CPU, switches and syscalls, from the kernel-side records. */
#ifndef BPFCOLLECT_REPORT_PROCS_H
#define BPFCOLLECT_REPORT_PROCS_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Splits an off-CPU interval into time blocked (sleep: until the wakeup,
 * or all of it when none was seen) and time runnable waiting for a CPU
 * (after the wakeup; all of it for a preemption).
 */
/*
 * Prints one row per process (pid 0: all, else that one) of the founder at
 * exp_path and, with descendants, its subexperiments. 0, or -errno with one
 * line in err (-ENOENT: no process records).
 */
int bc_report_procs(const char *exp_path, bool descendants, uint32_t pid, FILE *out, char *err,
		    size_t errlen);

#endif
