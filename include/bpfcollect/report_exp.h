/* SPDX-License-Identifier: MIT */
/* Report views about an experiment's files rather than its events: overview, objects. */
#ifndef BPFCOLLECT_REPORT_EXP_H
#define BPFCOLLECT_REPORT_EXP_H

#include <stdbool.h>
#include <stdio.h>

/* The overview samples of the founder (and each descendant), gprofng's names. -errno. */
int bc_report_overview(const char *exp_path, bool descendants, FILE *out, char *err, size_t errlen);

/* Load objects from map.xml: path, segments, when first mapped, per experiment. -errno. */
int bc_report_objects(const char *exp_path, bool descendants, FILE *out, char *err, size_t errlen);

#endif
