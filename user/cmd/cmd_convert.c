// SPDX-License-Identifier: MIT
/* `bpfcollect convert EXP -f FORMAT`: replay an experiment into a format's sink. */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/archive.h"
#include "bpfcollect/cli.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/formats.h"
#include "bpfcollect/outfile.h"
#include "bpfcollect/outmode.h"

static void convert_usage(FILE *out)
{
	fputs("usage: bpfcollect convert [OPTIONS] EXP -f FORMAT [-o OUTPUT]\n"
	      "\n"
	      "Writes what an experiment recorded in another format: every record kind\n"
	      "(calls, syscalls, processes, off-CPU, samples, heap, sync, I/O, losses)\n"
	      "comes out as `record -f FORMAT` wrote it live. Formats:\n",
	      out);
	bc_formats_help(out);
	fputs("\n"
	      "  -f, --format FORMAT    the output format (required)\n"
	      "  -o, --output OUTPUT    a file (default, and '-': standard output); for er,\n"
	      "                         a new experiment NAME.er (required; N in NAME.N.er\n"
	      "                         moves up when taken). An existing file is replaced\n"
	      "                         only when the conversion succeeds, and only if it\n"
	      "                         is a regular file outside EXP\n"
	      "  --founder-only         the founder experiment alone; by default its\n"
	      "                         descendants' subexperiments (_f1.er, _x1.er, ...)\n"
	      "                         are merged in\n"
	      "  --mode=MODE            permissions of the output: files MODE (octal,\n"
	      "                         e.g. 0644), directories MODE plus search where it\n"
	      "                         reads (default 0600 and 0700, whatever the umask;\n"
	      "                         a replaced file's mode and owner are not kept)\n"
	      "  --no-demangle          C++ and Rust symbols raw (_Z7throweri), not\n"
	      "                         demangled (thrower(int)); the er format always\n"
	      "                         keeps them raw\n"
	      "  --list-formats         the formats, one per line: NAME file|files|experiment\n"
	      "                         SUFFIX (the suffix record gives its file)\n"
	      "  -h, --help             this text\n"
	      "\n"
	      "docs/prf.md describes the PRF fields, docs/experiment-format.md the rest.\n",
	      out);
}

enum { OPT_FOUNDER = 256, OPT_LIST, OPT_MODE, OPT_NO_DEMANGLE, OPT_FORMAT_FIRST = 512 };

struct convert_args {
	const char *exp;
	const char *output;
	const struct bc_format *format;
	struct bc_format_opts fopts;
	bool descendants;
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path); /* DIR/. itself cannot be: the caller removes DIR */
	return 0;
}

/* Replays args->exp into sink; 0, or -errno with one line in err. */
static int replay(const struct convert_args *a, struct bc_sink *sink, char *err, size_t errlen)
{
	unsigned long said = bc_errors_said();
	struct bc_er_info info;
	int rc;

	memset(&info, 0, sizeof(info));
	err[0] = 0;
	rc = bc_er_read_tree(a->exp, a->descendants, sink, &info, NULL, err, errlen);
	bc_er_info_free(&info);
	if (rc < 0 && bc_errors_said() != said)
		err[0] = 0; /* a sink that met the error (RTL's file) said it already, naming it */
	else if (rc < 0 && !err[0])
		snprintf(err, errlen, "%s", strerror(-rc));
	return rc < 0 ? rc : 0;
}

/* Whether -o names an output outside the experiment read; else says why (a usage error). */
static bool output_named(const struct convert_args *a, const char *what_to_give)
{
	if (!a->output || !strcmp(a->output, "-")) {
		bc_error("convert: -f %s %s", a->format->name, what_to_give);
		return false;
	}
	if (bc_path_inside(a->output, a->exp)) {
		bc_error("convert: %s is inside the experiment %s, which is being read; write the "
			 "output elsewhere",
			 a->output, a->exp);
		return false;
	}
	return true;
}

/* A new experiment; removed again (it is ours) when the conversion fails. */
static int to_experiment(const struct convert_args *a)
{
	char path[PATH_MAX], io[32], err[1024];
	struct bc_format_args fa = {.exp_path = io, .opts = &a->fopts};
	struct bc_sink *sink;
	int exit_code = 1, dirfd;

	if (!output_named(a, "writes an experiment: give its name with -o NAME.er"))
		return 2;
	if (bc_exp_create(NULL, a->output, path, sizeof(path), &dirfd, err, sizeof(err)) < 0) {
		bc_error("convert: %s", err);
		return 2;
	}
	/* written through the directory made, never through its name again (experiment.h) */
	snprintf(io, sizeof(io), "/proc/self/fd/%d", dirfd);
	sink = a->format->new_sink(&fa, err, sizeof(err));
	if (sink && replay(a, sink, err, sizeof(err)) == 0)
		exit_code = 0;
	else if (err[0])
		bc_error("convert: %s", err);
	bc_sink_destroy(sink);
	if (!exit_code && bc_archive_carry(a->exp, io, err, sizeof(err)) < 0) {
		bc_error("convert: %s", err);
		exit_code = 1;
	}
	if (exit_code) {
		char inside[48];

		/* its contents through the directory made ("/." : the link itself is not walked) */
		snprintf(inside, sizeof(inside), "%s/.", io);
		nftw(inside, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		rmdir(path);
	} else
		fprintf(stderr, "bpfcollect: wrote %s\n", path);
	close(dirfd);
	return exit_code;
}

static int to_file(const struct convert_args *a)
{
	struct bc_format_args fa = {.opts = &a->fopts, .source_exp = a->exp};
	struct bc_outfile out;
	struct bc_sink *sink;
	char err[PATH_MAX + 1024];
	int rc;

	rc = bc_format_check_output(a->format, a->output, err, sizeof(err));
	if (rc == 0)
		rc = bc_outfile_open(&out, a->output, BC_OUTFILE_REPLACE, a->exp, err, sizeof(err));
	if (rc < 0) {
		bc_error("convert: %s", err);
		/* an output it may not replace is a usage error; a failed write is not */
		return rc == -EEXIST || rc == -EINVAL ? 2 : 1;
	}
	sink = bc_format_file_sink_new(a->format, &fa, &out, err, sizeof(err));
	if (!sink) {
		bc_error("convert: %s", err);
		bc_outfile_abort(&out);
		return 1;
	}
	/* a full disk does not stop the replay: the records after the cut are counted */
	rc = replay(a, sink, err, sizeof(err));
	bc_sink_destroy(sink);
	if (rc < 0 && err[0])
		bc_error("convert: %s", err);
	/* a file a full disk cut short ends whole; commit says what became of it */
	if ((rc == 0 || bc_outfile_full(&out)) && bc_outfile_commit(&out, err, sizeof(err)) < 0) {
		bc_error("convert: %s", err);
		rc = -EIO;
	}
	bc_outfile_abort(&out);
	return rc < 0 ? 1 : 0;
}

/* A file per process (rtl): PREFIX_PID.log, each made through a temporary file. */
static int to_files(const struct convert_args *a)
{
	struct bc_format_args fa = {
		.opts = &a->fopts, .prefix = a->output, .replace = true, .protect = a->exp};
	struct bc_sink *sink;
	char err[1024];
	int rc;

	if (!output_named(a, "writes a file per process: give their names' start with -o PREFIX "
			     "(PREFIX_PID.log)"))
		return 2;
	sink = a->format->new_sink(&fa, err, sizeof(err));
	rc = sink ? replay(a, sink, err, sizeof(err)) : -ENOMEM;
	/* the files a full disk cut short, the sink has said (each ends at its last whole line) */
	if (rc < 0 && rc != -ENOSPC && rc != -EDQUOT && rc != -EFBIG && err[0])
		bc_error("convert: %s", err);
	bc_sink_destroy(sink);
	return rc < 0 ? 1 : 0;
}

static const struct option convert_longopts[] = {
	{"format", required_argument, NULL, 'f'},
	{"output", required_argument, NULL, 'o'},
	{"founder-only", no_argument, NULL, OPT_FOUNDER},
	{"list-formats", no_argument, NULL, OPT_LIST},
	{"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},
	{"mode", required_argument, NULL, OPT_MODE},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

const struct bc_cmd_opts bc_convert_cmd_opts = {"f:o:h", convert_longopts, true};

/* 0, or the exit code of a usage error (said). */
static int parse_args(int argc, char **argv, struct convert_args *a)
{
	struct option longopts[32];
	/* the formats' options go after every one of ours (the zeroed end overwritten) */
	size_t n = sizeof(convert_longopts) / sizeof(convert_longopts[0]) - 1;
	const char *format = NULL;
	char err[256], names[128];
	int c, rc;

	memcpy(longopts, convert_longopts, n * sizeof(*longopts));
	if (bc_format_longopts(longopts, &n, sizeof(longopts) / sizeof(longopts[0]),
			       OPT_FORMAT_FIRST) < 0) {
		bc_error("convert: too many format options");
		return 1;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, bc_convert_cmd_opts.shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (format) {
				bc_error("convert: one -f FORMAT at a time ('%s' and '%s')", format,
					 optarg);
				return 2;
			}
			format = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case OPT_FOUNDER:
			a->descendants = false;
			break;
		case OPT_NO_DEMANGLE:
			bc_demangle_set(false);
			break;
		case OPT_LIST:
			bc_formats_list(stdout);
			return -1;
		case OPT_MODE: {
			mode_t mode;

			if (bc_out_mode_parse(optarg, &mode, err, sizeof(err)) < 0) {
				bc_error("convert: %s", err);
				return 2;
			}
			bc_out_mode_set(mode);
			break;
		}
		case 'h':
			convert_usage(stdout);
			return -1;
		case '?':
			convert_usage(stderr);
			return 2;
		default:
			rc = bc_format_option_parse(c, OPT_FORMAT_FIRST, optarg, &a->fopts, err,
						    sizeof(err));
			if (rc < 0) {
				bc_error("convert: %s", rc == -ENOENT ? "unknown option" : err);
				return 2;
			}
		}
	}
	if (optind >= argc) {
		bc_error("convert: no experiment given; usage: bpfcollect convert EXP -f prf-csv");
		return 2;
	}
	if (optind + 1 < argc) {
		bc_error("convert: one experiment at a time ('%s' and '%s')", argv[optind],
			 argv[optind + 1]);
		return 2;
	}
	a->exp = argv[optind];
	bc_format_names(names, sizeof(names), " ");
	if (!format) {
		bc_error("convert: no format given; add -f FORMAT (%s), e.g. -f prf-csv", names);
		return 2;
	}
	a->format = bc_format_find(format);
	if (!a->format) {
		bc_error("convert: unknown format '%s'; formats: %s", format, names);
		return 2;
	}
	return 0;
}

int bc_cmd_convert(int argc, char **argv)
{
	struct convert_args a = {.descendants = true};
	int rc;

	bc_format_opts_init(&a.fopts);
	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (a.format->output == BC_FORMAT_EXPERIMENT)
		return to_experiment(&a);
	return a.format->output == BC_FORMAT_FILES ? to_files(&a) : to_file(&a);
}
