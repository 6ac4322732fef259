/* SPDX-License-Identifier: MIT */
/* The outputs of a recording (-f): one sink per format from the registry, fed as one. */
#ifndef BPFCOLLECT_OUTPUTS_H
#define BPFCOLLECT_OUTPUTS_H

#include <limits.h>

#include "bpfcollect/model.h"
#include "bpfcollect/outfile.h"
#include "bpfcollect/record_opts.h"

struct bc_outputs {
	struct bc_sink *sink;	 /* what the recorder feeds */
	char exp_path[PATH_MAX]; /* "" without an experiment format */
	/*
	 * The experiment as made (bc_exp_create's dirfd, -1 without one) and
	 * the path everything inside is written through: /proc/self/fd/N.
	 */
	int exp_fd;
	char exp_io[32];
	char prefix[PATH_MAX]; /* a file-per-process format's names start with it; "" if none */
	struct bc_outfile files[BC_MAX_FORMATS];
	size_t n_files;
};

/*
 * Creates what opts->formats asks for: the experiment (naming as collect
 * does, notes from -C) and the files of the other formats, each created
 * new (never replacing a file): beside the experiment NAME.er as NAME plus
 * the format's suffix; without one, -o names the file ("-" or none:
 * stdout), NAME plus each suffix when there are several. Returns 0 or
 * -errno with one line in err; on error nothing is left open.
 */
int bc_outputs_open(struct bc_outputs *out, const struct bc_record_opts *opts, char *err,
		    size_t errlen);
/* What can be refused before anything runs (a binary format to a terminal): 0 or -EINVAL. */
int bc_outputs_check(const struct bc_record_opts *opts, char *err, size_t errlen);
/* The path the experiment is written through (bc_outputs.exp_io); "" without one. */
const char *bc_outputs_io(const struct bc_outputs *out);
/* What to call the outputs in messages: the experiment, else the first file. */
const char *bc_outputs_name(const struct bc_outputs *out);
/*
 * Whether a format writes its records to standard output on a terminal
 * (record keeps its status line off then: redrawn among the records, it
 * would garble both).
 */
bool bc_outputs_on_terminal(const struct bc_outputs *out);
/*
 * Says, a line each, which files a full disk cut short (each ends at its
 * last whole record; how many records it lacks). The first one's -errno,
 * 0 when none was.
 */
int bc_outputs_say_cut(const struct bc_outputs *out);
/*
 * Destroys the sink and closes the files (after the sink's end). 0, or
 * -errno of the first that failed, with one line in err.
 */
int bc_outputs_close(struct bc_outputs *out, char *err, size_t errlen);

#endif
