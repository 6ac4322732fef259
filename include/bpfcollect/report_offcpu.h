/* SPDX-License-Identifier: MIT */
/* `report offcpu`: where and why traced threads were off CPU (record -k, -a or --offcpu). */
#ifndef BPFCOLLECT_REPORT_OFFCPU_H
#define BPFCOLLECT_REPORT_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Prints the off-CPU intervals (BC_REC_OFFCPU) of the founder at exp_path
 * and, with descendants, of every subexperiment, of process pid (0: all):
 * totals, then by thread, by syscall at switch-out, and by function of the
 * user stack at switch-out (top `top` by exclusive off-CPU time, 0: all),
 * each split into sleep (blocked until woken) and wait CPU (runnable, not
 * running). 0, or -errno with one line in err (-ENOENT: no off-CPU data in
 * the tree, or none of process pid).
 */
int bc_report_offcpu(const char *exp_path, bool descendants, uint32_t pid, size_t top, FILE *out,
		     char *err, size_t errlen);

#endif
