/* SPDX-License-Identifier: MIT */
/*
 * `report io`: the iotrace packets (record -i on) of a tree of experiments,
 * by file, read the way gprofng's -ioactivity reads them, so the numbers
 * are gprofng's file by file.
 */
#ifndef BPFCOLLECT_REPORT_IO_H
#define BPFCOLLECT_REPORT_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Prints read, write, other and error time, bytes and counts per file over
 * the founder and, with descendants, every subexperiment; top `top` files
 * (0: all). -ENOENT with one line in err when no experiment has an I/O trace.
 */
int bc_report_io(const char *exp_path, bool descendants, size_t top, FILE *out, char *err,
		 size_t errlen);
#endif
