// SPDX-License-Identifier: MIT
/* The outputs of a recording (see bpfcollect/outputs.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/archive.h"
#include "bpfcollect/cli.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/outputs.h"
#include "sink_tee.h"

/* How many of opts' formats write files. */
static size_t file_formats(const struct bc_record_opts *opts)
{
	size_t n = 0;

	for (size_t i = 0; i < opts->n_formats; i++)
		n += opts->formats[i]->output == BC_FORMAT_FILE;
	return n;
}

int bc_outputs_check(const struct bc_record_opts *opts, char *err, size_t errlen)
{
	const char *name = opts->exp_name ? opts->exp_name : "-";

	for (size_t i = 0; i < opts->n_formats; i++)
		if (opts->formats[i]->output == BC_FORMAT_EXPERIMENT)
			return 0; /* the files go beside it */
	for (size_t i = 0; i < opts->n_formats; i++)
		if (opts->formats[i]->output == BC_FORMAT_FILE && file_formats(opts) == 1)
			return bc_format_check_output(opts->formats[i], name, err, errlen);
	return 0;
}

/* The file format f writes into path[PATH_MAX]. */
static int file_path(const struct bc_outputs *out, const struct bc_record_opts *opts,
		     const struct bc_format *f, char *path, char *err, size_t errlen)
{
	const char *name = opts->exp_name ? opts->exp_name : "-";
	int n;

	if (out->exp_path[0]) {
		size_t stem = strlen(out->exp_path);

		if (stem > 3 && !strcmp(out->exp_path + stem - 3, ".er"))
			stem -= 3;
		n = snprintf(path, PATH_MAX, "%.*s%s", (int)stem, out->exp_path, f->suffix);
	} else if (file_formats(opts) == 1) {
		n = snprintf(path, PATH_MAX, "%s", name);
	} else if (!strcmp(name, "-")) {
		snprintf(err, errlen,
			 "-f %s and another format cannot share standard output; give -o NAME "
			 "(each writes NAME plus its suffix)",
			 f->name);
		return -EINVAL;
	} else {
		n = snprintf(path, PATH_MAX, "%s%s", name, f->suffix);
	}
	if (n >= PATH_MAX) {
		snprintf(err, errlen, "the -f %s output name is too long", f->name);
		return -ENAMETOOLONG;
	}
	return 0;
}

static int open_experiment(struct bc_outputs *out, const struct bc_record_opts *opts,
			   const struct bc_format *f, struct bc_sink **sink, char *err,
			   size_t errlen)
{
	const char *name = opts->exp_name;
	struct bc_format_args a = {.exp_path = out->exp_io, .opts = &opts->fopts};
	int rc;

	if (!name && opts->kernel_exp)
		name = BC_ER_KERNEL_DEFAULT_NAME;
	rc = bc_exp_create(opts->exp_dir, name, out->exp_path, sizeof(out->exp_path), &out->exp_fd,
			   err, errlen);
	if (rc < 0)
		return rc;
	snprintf(out->exp_io, sizeof(out->exp_io), "/proc/self/fd/%d", out->exp_fd);
	*sink = f->new_sink(&a, err, errlen);
	if (!*sink)
		return -EIO;
	if (opts->n_comments)
		return bc_notes_write(out->exp_io, opts->comments, opts->n_comments, err, errlen);
	return 0;
}

static int open_file(struct bc_outputs *out, const struct bc_record_opts *opts,
		     const struct bc_format *f, struct bc_sink **sink, char *err, size_t errlen)
{
	struct bc_format_args a = {.opts = &opts->fopts, .source_exp = out->exp_io};
	struct bc_outfile *file = &out->files[out->n_files];
	char path[PATH_MAX];
	int rc;

	rc = file_path(out, opts, f, path, err, errlen);
	if (rc < 0)
		return rc;
	rc = bc_outfile_open(file, path, BC_OUTFILE_CREATE, NULL, err, errlen);
	if (rc < 0)
		return rc;
	out->n_files++;
	*sink = bc_format_file_sink_new(f, &a, file, err, errlen);
	return *sink ? 0 : -ENOMEM;
}

/* A format that writes a file per process: its names start with the experiment's, or -o's. */
static int open_files(struct bc_outputs *out, const struct bc_record_opts *opts,
		      const struct bc_format *f, struct bc_sink **sink, char *err, size_t errlen)
{
	struct bc_format_args a = {.opts = &opts->fopts, .prefix = out->prefix};

	if (out->exp_path[0]) {
		size_t stem = strlen(out->exp_path);

		if (stem > 3 && !strcmp(out->exp_path + stem - 3, ".er"))
			stem -= 3;
		snprintf(out->prefix, sizeof(out->prefix), "%.*s", (int)stem, out->exp_path);
	} else if (!opts->exp_name || !strcmp(opts->exp_name, "-")) {
		snprintf(err, errlen,
			 "-f %s writes a file per process: give their names' start with -o PREFIX "
			 "(PREFIX_PID.log)",
			 f->name);
		return -EINVAL;
	} else if (snprintf(out->prefix, sizeof(out->prefix), "%s", opts->exp_name) >=
		   (int)sizeof(out->prefix)) {
		snprintf(err, errlen, "the -f %s output name is too long", f->name);
		return -ENAMETOOLONG;
	}
	*sink = f->new_sink(&a, err, errlen);
	return *sink ? 0 : -EINVAL;
}

int bc_outputs_open(struct bc_outputs *out, const struct bc_record_opts *opts, char *err,
		    size_t errlen)
{
	struct bc_sink *sinks[BC_MAX_FORMATS];
	size_t n = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->exp_fd = -1;
	/* the experiment first: the files beside it take its name */
	for (size_t i = 0; i < opts->n_formats && !rc; i++) {
		if (opts->formats[i]->output != BC_FORMAT_EXPERIMENT)
			continue;
		sinks[n] = NULL;
		rc = open_experiment(out, opts, opts->formats[i], &sinks[n], err, errlen);
		n += sinks[n] != NULL;
	}
	for (size_t i = 0; i < opts->n_formats && !rc; i++) {
		if (opts->formats[i]->output == BC_FORMAT_EXPERIMENT)
			continue;
		sinks[n] = NULL;
		if (opts->formats[i]->output == BC_FORMAT_FILE)
			rc = open_file(out, opts, opts->formats[i], &sinks[n], err, errlen);
		else
			rc = open_files(out, opts, opts->formats[i], &sinks[n], err, errlen);
		n += sinks[n] != NULL;
	}
	if (!rc) {
		out->sink = n == 1 ? sinks[0] : bc_tee_sink_new(sinks, n);
		if (out->sink)
			return 0;
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		bc_sink_destroy(sinks[i]);
	for (size_t i = 0; i < out->n_files; i++)
		bc_outfile_abort(&out->files[i]);
	out->n_files = 0;
	if (out->exp_io[0])
		close(out->exp_fd);
	out->exp_io[0] = 0;
	out->exp_fd = -1;
	return rc;
}

const char *bc_outputs_io(const struct bc_outputs *out)
{
	return out->exp_io;
}

const char *bc_outputs_name(const struct bc_outputs *out)
{
	if (out->exp_path[0])
		return out->exp_path;
	if (!out->n_files)
		return out->prefix[0] ? out->prefix : out->exp_path;
	return bc_outfile_name(&out->files[0]);
}

bool bc_outputs_on_terminal(const struct bc_outputs *out)
{
	for (size_t i = 0; i < out->n_files; i++)
		if (out->files[i].is_stdout && isatty(STDOUT_FILENO))
			return true;
	return false;
}

int bc_outputs_say_cut(const struct bc_outputs *out)
{
	char line[PATH_MAX + 256];
	int first = 0;

	for (size_t i = 0; i < out->n_files; i++) {
		if (!bc_outfile_full(&out->files[i]))
			continue;
		bc_outfile_cut_line(&out->files[i], line, sizeof(line));
		bc_error("%s", line); /* through bc_error: a status line is cleared first */
		if (!first)
			first = bc_outfile_cut_errno(&out->files[i]);
	}
	return first;
}

int bc_outputs_close(struct bc_outputs *out, char *err, size_t errlen)
{
	char line[PATH_MAX + 256];
	int rc = 0;

	bc_sink_destroy(out->sink);
	out->sink = NULL;
	for (size_t i = 0; i < out->n_files; i++) {
		int e = bc_outfile_commit(&out->files[i], line, sizeof(line));

		if (e && !rc) {
			rc = e;
			snprintf(err, errlen, "%s", line);
		}
		bc_outfile_abort(&out->files[i]);
	}
	out->n_files = 0;
	/* exp_io: set once exp_fd is ours (a zeroed bc_outputs was never opened) */
	if (out->exp_io[0])
		close(out->exp_fd);
	out->exp_io[0] = 0;
	out->exp_fd = -1;
	return rc;
}
