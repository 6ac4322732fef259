// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bpfcollect/archive.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/outputs.h"
#include "bpfcollect/prf.h"
#include "bpfcollect/sink_tee.h"

static const struct {
	unsigned int flag;
	enum bc_prf_format format;
	const char *suffix;
} prf_kinds[2] = {
	{BC_OUT_PRF_CSV, BC_PRF_CSV, ".csv"},
	{BC_OUT_PRF_DUMP, BC_PRF_DUMP, ".dump"},
};

static int prf_path_for(struct bc_outputs *out, const struct bc_record_opts *opts, int k, char *err,
			size_t errlen)
{
	char *p = out->prf_path[k];

	if (!out->exp_path[0]) {
		/* PRF alone: -o is its file; both formats at once need distinct names */
		const char *name = opts->exp_name ? opts->exp_name : "-";

		if ((opts->outputs & BC_OUT_PRF_CSV) && (opts->outputs & BC_OUT_PRF_DUMP) &&
		    strcmp(name, "-") != 0) {
			if (snprintf(p, PATH_MAX, "%s%s", name, prf_kinds[k].suffix) >= PATH_MAX)
				goto long_name;
		} else if (snprintf(p, PATH_MAX, "%s", name) >= PATH_MAX) {
			goto long_name;
		}
		return 0;
	}
	size_t n = strlen(out->exp_path);

	if (n > 3 && !strcmp(out->exp_path + n - 3, ".er"))
		n -= 3;
	if (snprintf(p, PATH_MAX, "%.*s%s", (int)n, out->exp_path, prf_kinds[k].suffix) >= PATH_MAX)
		goto long_name;
	return 0;
long_name:
	snprintf(err, errlen, "the PRF output name is too long");
	return -ENAMETOOLONG;
}

int bc_outputs_open(struct bc_outputs *out, const struct bc_record_opts *opts, char *err,
		    size_t errlen)
{
	struct bc_sink *sinks[3];
	size_t n = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (opts->outputs & BC_OUT_ER) {
		const char *name = opts->exp_name;

		if (!name && opts->kernel_exp)
			name = BC_ER_KERNEL_DEFAULT_NAME;
		rc = bc_exp_create(opts->exp_dir, name, out->exp_path, sizeof(out->exp_path), err,
				   errlen);
		if (rc < 0)
			return rc;
		sinks[n] = opts->kernel_exp ? bc_er_ktree_sink_new(out->exp_path, err, errlen)
					    : bc_er_tree_sink_new(out->exp_path, err, errlen);
		if (!sinks[n])
			return -EIO;
		n++;
		if (opts->n_comments && (rc = bc_notes_write(out->exp_path, opts->comments,
							     opts->n_comments, err, errlen)) < 0)
			goto fail;
	}
	for (int k = 0; k < 2; k++) {
		struct bc_prf_opts po = opts->prf;

		if (!(opts->outputs & prf_kinds[k].flag))
			continue;
		rc = prf_path_for(out, opts, k, err, errlen);
		if (rc < 0)
			goto fail;
		if (!strcmp(out->prf_path[k], "-")) {
			out->prf_file[k] = stdout;
		} else {
			out->prf_file[k] = fopen(out->prf_path[k], "wxe");
			if (!out->prf_file[k]) {
				rc = -errno;
				snprintf(err, errlen, "cannot create %s: %s%s", out->prf_path[k],
					 strerror(-rc),
					 rc == -EEXIST ? " (remove it or pick another -o)" : "");
				goto fail;
			}
		}
		po.format = prf_kinds[k].format;
		sinks[n] = bc_prf_sink_new(out->prf_file[k], &po);
		if (!sinks[n]) {
			rc = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		n++;
	}
	out->sink = n == 1 ? sinks[0] : bc_tee_sink_new(sinks, n);
	if (!out->sink) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return 0;
fail:
	for (size_t i = 0; i < n; i++)
		bc_sink_destroy(sinks[i]);
	for (int k = 0; k < 2; k++)
		if (out->prf_file[k] && out->prf_file[k] != stdout)
			fclose(out->prf_file[k]);
	memset(out->prf_file, 0, sizeof(out->prf_file));
	return rc;
}

const char *bc_outputs_name(const struct bc_outputs *out)
{
	if (out->exp_path[0])
		return out->exp_path;
	return out->prf_path[0][0] ? out->prf_path[0] : out->prf_path[1];
}

int bc_outputs_close(struct bc_outputs *out)
{
	int rc = 0;

	bc_sink_destroy(out->sink);
	out->sink = NULL;
	for (int k = 0; k < 2; k++) {
		if (!out->prf_file[k])
			continue;
		if (out->prf_file[k] == stdout ? fflush(stdout) : fclose(out->prf_file[k]))
			rc = -errno;
		out->prf_file[k] = NULL;
	}
	return rc;
}
