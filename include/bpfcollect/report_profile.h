/* SPDX-License-Identifier: MIT */
/* `report profile`: the clock profile (-p) by function, as gprofng's function list shows it. */
#ifndef BPFCOLLECT_REPORT_PROFILE_H
#define BPFCOLLECT_REPORT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Prints exclusive CPU (with its user and system parts) and inclusive CPU
 * per function over the founder and, with descendants, every
 * subexperiment, top `top` (0: all) by exclusive time. -ENOENT with one line
 * in err when no experiment of the tree has a clock profile.
 */
int bc_report_profile(const char *exp_path, bool descendants, size_t top, FILE *out, char *err,
		      size_t errlen);
#endif
