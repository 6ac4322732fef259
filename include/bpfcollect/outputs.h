/* SPDX-License-Identifier: MIT */
/* The outputs of a recording (-f): the experiment, PRF files; one sink feeding them all. */
#ifndef BPFCOLLECT_OUTPUTS_H
#define BPFCOLLECT_OUTPUTS_H

#include <limits.h>
#include <stdio.h>

#include "bpfcollect/model.h"
#include "bpfcollect/record_opts.h"

struct bc_outputs {
	struct bc_sink *sink;	    /* what the recorder feeds */
	char exp_path[PATH_MAX];    /* "" without -f er */
	char prf_path[2][PATH_MAX]; /* csv, dump; "-" for stdout, "" when not asked */
	FILE *prf_file[2];
};

/*
 * Creates what opts->outputs asks for: the experiment (naming as collect
 * does, notes from -C) and the PRF files. With PRF alone, -o names the PRF
 * file ("-" or none: stdout); with an experiment too, the PRF file is the
 * experiment's name with .csv/.dump for .er. Returns 0 or -errno with one
 * line in err; on error nothing is left open.
 */
int bc_outputs_open(struct bc_outputs *out, const struct bc_record_opts *opts, char *err,
		    size_t errlen);
/* What to call the outputs in messages: the experiment, else the PRF file. */
const char *bc_outputs_name(const struct bc_outputs *out);
/* Destroys the sink and closes the files (after the sink's end). -errno of a failed close. */
int bc_outputs_close(struct bc_outputs *out);

#endif
