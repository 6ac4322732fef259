/* SPDX-License-Identifier: MIT */
/*
 * The output formats: one registry that `record -f`, `convert -f`, their
 * --help and the docs' format list all come from. A format is a name, a
 * line of help, where it writes (a file or an experiment directory), a
 * constructor for its sink, and the options it takes. Adding a format is
 * a folder under user/sinks/ and one line in user/sinks/formats.c.
 */
#ifndef BPFCOLLECT_FORMATS_H
#define BPFCOLLECT_FORMATS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bpfcollect/folded.h"
#include "bpfcollect/gtf.h"
#include "bpfcollect/model.h"
#include "bpfcollect/prf.h"
#include "bpfcollect/rtl.h"

/* The options of every format, one member per format family that has any. */
struct bc_format_opts {
	struct bc_prf_opts prf; /* prf-csv, prf-dump */
	struct bc_rtl_opts rtl;
	struct bc_gtf_opts gtf;
	struct bc_folded_opts folded;
};

void bc_format_opts_init(struct bc_format_opts *o);

enum bc_format_output {
	BC_FORMAT_FILE,	      /* one stream: a file, or standard output */
	BC_FORMAT_EXPERIMENT, /* a `.er` directory */
	BC_FORMAT_FILES,      /* a file per process, named from a prefix */
};

/* What a format's constructor is given. */
struct bc_format_args {
	FILE *out;	      /* BC_FORMAT_FILE: where to write (not closed by the sink) */
	const char *exp_path; /* BC_FORMAT_EXPERIMENT: the directory, made by bc_exp_create */
	const char *prefix;   /* BC_FORMAT_FILES: what each file's name starts with */
	bool replace;	      /* BC_FORMAT_FILES: convert's files (temporary, renamed at the end) */
	const char *protect;  /* BC_FORMAT_FILES: a directory not to write inside (NULL: none) */
	/*
	 * The experiment the stream comes from or goes to (convert's EXP,
	 * record's NAME.er; NULL or "": none), whose archives/ and kallmodsyms
	 * name the frames of stacks. Read at the stream's end, not before.
	 */
	const char *source_exp;
	const struct bc_format_opts *opts;
};

/* Options a format family takes, as getopt long options ({name, has_arg, NULL, 0}). */
struct bc_format_options {
	const struct option *longopts; /* ends with a zeroed entry */
	const char *help;	       /* --help lines */
	/* One option by name (no dashes); 0, or -EINVAL with one line in err. */
	int (*parse)(struct bc_format_opts *o, const char *name, const char *arg, char *err,
		     size_t errlen);
};

struct bc_format {
	const char *name;
	const char *help; /* one line */
	enum bc_format_output output;
	const char *suffix; /* its file beside an experiment NAME.er: NAME + suffix (FILES: the
			       prefix's) */
	/* The sink; NULL with one line in err. */
	struct bc_sink *(*new_sink)(const struct bc_format_args *a, char *err, size_t errlen);
	const struct bc_format_options *options; /* NULL: none */
	bool binary;				 /* not text: refused on a terminal */
	/*
	 * FILE: the bytes that end the format after any whole record, for a
	 * file cut short by a full disk (chrome: the event array and the
	 * object); NULL: none (a file of whole lines or records is whole).
	 */
	const char *tail;
};

struct bc_outfile;

/*
 * A BC_FORMAT_FILE format's sink writing into o (a->out is set to o->f),
 * whole records at a time (bpfcollect/outfile.h): each of its steps ends
 * records, the format's sink ends each record it writes in a step of
 * several (its base.file is o), and o is given the format's tail once the
 * format has begun. A full disk then cuts o at a whole record, and what
 * the sink writes after is counted, not written (it sees no error: the
 * caller asks o, bc_outfile_full). NULL with err set.
 */
struct bc_sink *bc_format_file_sink_new(const struct bc_format *f, struct bc_format_args *a,
					struct bc_outfile *o, char *err, size_t errlen);

/*
 * Whether format f may write to path ("-" or NULL: standard output): a
 * binary one not to a terminal. 0, or -EINVAL with one line in err.
 */
int bc_format_check_output(const struct bc_format *f, const char *path, char *err, size_t errlen);

/* The format called name, NULL when there is none. */
const struct bc_format *bc_format_find(const char *name);
/* The i-th format, in the order --help lists them; NULL past the last. */
const struct bc_format *bc_format_at(size_t i);
/* The names, joined by sep ("er, prf-csv, ..."), into buf. */
const char *bc_format_names(char *buf, size_t len, const char *sep);
/*
 * --list-formats: "NAME file|files|experiment SUFFIX" per format, in the
 * order --help lists them, for scripts and completion.
 */
void bc_formats_list(FILE *out);
/* --help's list: "  NAME  HELP" per format, then every format family's option lines. */
void bc_formats_help(FILE *out);

/*
 * Appends every format's options to opts[*n] onwards (cap entries in all,
 * keeping room for the terminating zero entry), each with val = first_val
 * plus its index; -ENOSPC when they do not fit.
 */
int bc_format_longopts(struct option *opts, size_t *n, size_t cap, int first_val);
/*
 * Parses the option getopt returned as val (first_val from
 * bc_format_longopts) with its argument. -ENOENT: val is no format
 * option; -EINVAL with one line in err.
 */
int bc_format_option_parse(int val, int first_val, const char *arg, struct bc_format_opts *o,
			   char *err, size_t errlen);

#endif /* BPFCOLLECT_FORMATS_H */
