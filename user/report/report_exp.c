// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/experiment.h"
#include "bpfcollect/infile.h"
#include "bpfcollect/overview.h"
#include "bpfcollect/report.h"
#include "bpfcollect/report_exp.h"

static int one_overview(const char *path, const char *label, size_t index, void *arg, char *err,
			size_t errlen)
{
	FILE *out = arg;
	struct bc_usage *samples = NULL;
	uint32_t pid = 0;
	size_t n = 0;
	int rc;

	(void)index;
	rc = bc_overview_read_file(path, &samples, &n, &pid);
	if (rc == -ENOENT) {
		fprintf(out, "%s (%s): no overview\n\n", path, label);
		return 0;
	}
	if (rc < 0) {
		char file[4200];

		snprintf(file, sizeof(file), "%s/overview", path);
		bc_in_error(err, errlen, file, rc, NULL);
		return rc;
	}
	fprintf(out, "%s (%s):\n", path, label);
	rc = bc_overview_print(out, samples, n, pid);
	fputc('\n', out);
	free(samples);
	return rc;
}

int bc_report_overview(const char *exp_path, bool descendants, FILE *out, char *err, size_t errlen)
{
	int rc;

	if (errlen)
		err[0] = 0;
	rc = bc_er_tree_each(exp_path, descendants, one_overview, out, err, errlen);
	if (rc < 0 && errlen && !err[0])
		snprintf(err, errlen, "%s: cannot read the overview: %s", exp_path, strerror(-rc));
	return rc;
}

/* Collects the mappings an experiment's map.xml holds. */
struct objects_sink {
	struct bc_sink base;
	struct obj {
		char *path;
		unsigned int segments;
		uint64_t first, bytes;
	} * v;
	size_t n;
	uint64_t start;
};

static int os_begin(struct bc_sink *s, const struct bc_session *sess)
{
	((struct objects_sink *)s)->start = sess->start_ktime;
	return 0;
}

static int os_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	struct objects_sink *o = (struct objects_sink *)s;
	size_t i;

	if (m->unmap || !m->path)
		return 0; /* an object's mapping ended: it was mapped all the same */
	for (i = 0; i < o->n && strcmp(o->v[i].path, m->path); i++)
		;
	if (i == o->n) {
		struct obj *v = realloc(o->v, (o->n + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->v = v;
		v[i] = (struct obj){.path = strdup(m->path), .first = m->ktime};
		if (!v[i].path)
			return -ENOMEM;
		o->n++;
	}
	o->v[i].segments++;
	o->v[i].bytes += m->end - m->start;
	return 0;
}

static const struct bc_sink_ops objects_ops = {
	.name = "objects",
	.begin = os_begin,
	.mapping = os_mapping,
};

static int one_objects(const char *path, const char *label, size_t index, void *arg, char *err,
		       size_t errlen)
{
	struct objects_sink o = {.base.ops = &objects_ops};
	struct bc_er_info info;
	FILE *out = arg;
	char size[32];
	int rc;

	(void)index;
	memset(&info, 0, sizeof(info));
	rc = bc_er_read(path, &o.base, &info, err, errlen);
	if (rc == 0) {
		fprintf(out, "%s (%s, pid %" PRIu32 "): %zu load objects\n", path, label,
			info.root_pid, o.n);
		fprintf(out, "%14s  %8s  %9s  %s\n", "Mapped at (s)", "Segments", "Text", "Object");
		for (size_t i = 0; i < o.n; i++) {
			uint64_t t = o.v[i].first > o.start ? o.v[i].first - o.start : 0;

			snprintf(size, sizeof(size), "%" PRIu64 " KiB", o.v[i].bytes / 1024);
			fprintf(out, "%4" PRIu64 ".%09" PRIu64 "  %8u  %9s  %s\n", t / 1000000000,
				t % 1000000000, o.v[i].segments, size, o.v[i].path);
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < o.n; i++)
		free(o.v[i].path);
	free(o.v);
	bc_er_info_free(&info);
	return rc;
}

int bc_report_objects(const char *exp_path, bool descendants, FILE *out, char *err, size_t errlen)
{
	int rc;

	if (errlen)
		err[0] = 0;
	rc = bc_er_tree_each(exp_path, descendants, one_objects, out, err, errlen);
	/* the reader's own line names the file at fault: keep it */
	if (rc < 0 && errlen && !err[0])
		snprintf(err, errlen, "%s: cannot read the load objects: %s", exp_path,
			 strerror(-rc));
	return rc;
}
