// SPDX-License-Identifier: MIT
/*
 * `report io`, as gprofng's I/O model (Experiment::get_iotrace_events):
 * per experiment, events in TSTAMP order; descriptors 0, 1 and 2 start as
 * <stdin>, <stdout> and <stderr>. An open with a name binds its descriptor
 * to that file; an open without a name binds it to the file of the
 * original descriptor (dup, when that one is above 0), else to a new
 * "<pipe(), socket(), or other fds>"; a read or write on a descriptor bound
 * to nothing binds it to a new one of those too; a close unbinds. Other
 * calls (lseek, fsync, ...) go to <Other IO activity>. A failed call counts
 * as an error of its file. Files are then listed by name, every experiment
 * of the tree together. An event gprofng cannot bind (a close or dup of a
 * descriptor it never saw opened) counts in <Total> only, as there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/experiment.h"
#include "bpfcollect/profile_data.h"
#include "bpfcollect/names.h"
#include "bpfcollect/report_io.h"
#include "table.h"

#define UNKNOWN_FD_NAME "<pipe(), socket(), or other fds>"
#define OTHER_IO_NAME	"<Other IO activity>"
#define MAX_FD		(1 << 20) /* bigger descriptors are not bound, only counted */
#define VFD_OTHERIO	4	  /* gprofng's virtual descriptor of <Other IO activity> */

enum { IO_READ, IO_WRITE, IO_OPEN, IO_CLOSE, IO_OTHER, IO_ERROR_OFFSET };

enum metric {
	READ_TIME,
	READ_BYTES,
	READ_COUNT,
	WRITE_TIME,
	WRITE_BYTES,
	WRITE_COUNT,
	OTHER_TIME,
	OTHER_COUNT,
	ERROR_TIME,
	ERROR_COUNT,
	NMETRIC,
};

struct file_row {
	char *name;
	int32_t fstype;
	uint64_t m[NMETRIC];
};

struct report {
	struct file_row *files;
	size_t n_files, cap_files;
	uint64_t total[NMETRIC];
	uint64_t experiments;
};

/* One experiment's descriptors: fd -> virtual descriptor -> file row. */
struct exp_fds {
	int64_t *vfd_of_fd; /* -1: unbound */
	size_t n_fds;
	size_t *row_of_vfd;
	size_t n_vfds;
};

/* The row of the file with this name (created, with fstype, when new); -1 on ENOMEM. */
static ssize_t row_for(struct report *r, const char *name, int32_t fstype)
{
	for (size_t i = 0; i < r->n_files; i++)
		if (!strcmp(r->files[i].name, name))
			return (ssize_t)i;
	if (r->n_files == r->cap_files) {
		size_t cap = r->cap_files ? r->cap_files * 2 : 16;
		struct file_row *v = realloc(r->files, cap * sizeof(*v));

		if (!v)
			return -1;
		r->files = v;
		r->cap_files = cap;
	}
	r->files[r->n_files] = (struct file_row){.name = strdup(name), .fstype = fstype};
	if (!r->files[r->n_files].name)
		return -1;
	return (ssize_t)r->n_files++;
}

/* A new virtual descriptor for file row `row`; its number, or -1 on ENOMEM. */
static int64_t new_vfd(struct exp_fds *x, size_t row)
{
	size_t *v = realloc(x->row_of_vfd, (x->n_vfds + 1) * sizeof(*v));

	if (!v)
		return -1;
	x->row_of_vfd = v;
	v[x->n_vfds] = row;
	return (int64_t)x->n_vfds++;
}

static int64_t vfd_of(const struct exp_fds *x, int32_t fd)
{
	return fd >= 0 && (size_t)fd < x->n_fds ? x->vfd_of_fd[fd] : -1;
}

static int bind_fd(struct exp_fds *x, int32_t fd, int64_t vfd)
{
	if (fd < 0 || fd >= MAX_FD)
		return 0;
	if ((size_t)fd >= x->n_fds) {
		size_t n = (size_t)fd + 64;
		int64_t *v = realloc(x->vfd_of_fd, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t i = x->n_fds; i < n; i++)
			v[i] = -1;
		x->vfd_of_fd = v;
		x->n_fds = n;
	}
	x->vfd_of_fd[fd] = vfd;
	return 0;
}

/* fd's file row, a new unknown-descriptor one bound to fd when it has none; -1 on ENOMEM. */
static ssize_t row_or_unknown(struct report *r, struct exp_fds *x, int32_t fd)
{
	int64_t vfd = vfd_of(x, fd);
	ssize_t row;

	if (vfd > 0)
		return (ssize_t)x->row_of_vfd[vfd];
	row = row_for(r, UNKNOWN_FD_NAME, -1);
	if (row < 0 || (vfd = new_vfd(x, (size_t)row)) < 0 || bind_fd(x, fd, vfd) < 0)
		return -1;
	return row;
}

/* The file row one event counts into: >= 0, -2 for <Total> only, -1 on ENOMEM. */
static ssize_t event_row(struct report *r, struct exp_fds *x, const struct bc_io_event *e)
{
	bool failed = e->type >= IO_ERROR_OFFSET;
	int type = failed ? e->type - IO_ERROR_OFFSET : e->type;
	int64_t vfd;
	ssize_t row;

	switch (type) {
	case IO_READ:
	case IO_WRITE:
		return row_or_unknown(r, x, e->fd);
	case IO_OPEN:
		if (e->name) {
			row = row_for(r, e->name, e->fstype);
		} else if (e->ofd > 0) {
			vfd = vfd_of(x, e->ofd);
			if (vfd <= 0)
				return -2;
			row = (ssize_t)x->row_of_vfd[vfd];
		} else if (!failed && e->fd >= 0) {
			return row_or_unknown(r, x, e->fd);
		} else {
			return -2;
		}
		if (row < 0 || failed)
			return row;
		vfd = new_vfd(x, (size_t)row);
		if (vfd < 0 || bind_fd(x, e->fd, vfd) < 0)
			return -1;
		return row;
	case IO_CLOSE:
		vfd = vfd_of(x, e->fd);
		if (vfd <= 0)
			return -2;
		if (bind_fd(x, e->fd, -1) < 0)
			return -1;
		return (ssize_t)x->row_of_vfd[vfd];
	case IO_OTHER:
		return (ssize_t)x->row_of_vfd[VFD_OTHERIO];
	}
	return -2;
}

static void count(uint64_t *m, const struct bc_io_event *e)
{
	uint64_t t = e->start && e->tstamp > e->start ? e->tstamp - e->start : 0;

	if (e->type >= IO_ERROR_OFFSET) {
		m[ERROR_TIME] += t;
		m[ERROR_COUNT]++;
	} else if (e->type == IO_READ) {
		m[READ_TIME] += t;
		m[READ_BYTES] += e->nbyte;
		m[READ_COUNT]++;
	} else if (e->type == IO_WRITE) {
		m[WRITE_TIME] += t;
		m[WRITE_BYTES] += e->nbyte;
		m[WRITE_COUNT]++;
	} else {
		m[OTHER_TIME] += t;
		m[OTHER_COUNT]++;
	}
}

static int cmp_tstamp(const void *a, const void *b)
{
	const struct bc_io_event *x = *(const struct bc_io_event *const *)a;
	const struct bc_io_event *y = *(const struct bc_io_event *const *)b;

	if (x->tstamp != y->tstamp)
		return x->tstamp < y->tstamp ? -1 : 1;
	return (x > y) - (x < y); /* file order among equals */
}

static int io_experiment(struct report *r, const struct bc_prof_data *d)
{
	static const char *const fixed[] = {"<Total>", "<stdin>", "<stdout>", "<stderr>",
					    OTHER_IO_NAME};
	const struct bc_io_event **order = NULL;
	struct exp_fds x = {0};
	int rc = -ENOMEM;

	/* virtual descriptors 0..4 as gprofng numbers them; 0 (<Total>) binds nothing */
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		ssize_t row = i ? row_for(r, fixed[i], -1) : 0;

		if (row < 0 || new_vfd(&x, (size_t)row) < 0)
			goto out;
	}
	for (int32_t fd = 0; fd < 3; fd++)
		if (bind_fd(&x, fd, fd + 1) < 0)
			goto out;
	order = malloc((d->n_io ? d->n_io : 1) * sizeof(*order));
	if (!order)
		goto out;
	for (size_t i = 0; i < d->n_io; i++)
		order[i] = &d->io[i];
	qsort(order, d->n_io, sizeof(*order), cmp_tstamp);
	for (size_t i = 0; i < d->n_io; i++) {
		const struct bc_io_event *e = order[i];
		ssize_t row;

		if (e->type < 0 || e->type >= 2 * IO_ERROR_OFFSET)
			continue; /* gprofng knows no such type */
		row = event_row(r, &x, e);
		if (row == -1)
			goto out;
		count(r->total, e);
		if (row >= 0)
			count(r->files[row].m, e);
	}
	rc = 0;
out:
	free(order);
	free(x.vfd_of_fd);
	free(x.row_of_vfd);
	return rc;
}

static int one_experiment(struct report *r, const char *path, char *err, size_t errlen)
{
	struct bc_prof_data d;
	int rc = bc_prof_data_read(path, &d, err, errlen);

	if (rc == 0 && d.has_io) {
		r->experiments++;
		rc = io_experiment(r, &d);
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory reading %s", path);
	}
	bc_prof_data_free(&d);
	return rc;
}

static uint64_t row_time(const struct file_row *f)
{
	return f->m[READ_TIME] + f->m[WRITE_TIME] + f->m[OTHER_TIME] + f->m[ERROR_TIME];
}

static int cmp_file(const void *a, const void *b)
{
	const struct file_row *x = a, *y = b;
	uint64_t tx = row_time(x), ty = row_time(y);

	if (tx != ty)
		return tx < ty ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void print_row(FILE *out, const uint64_t *m, const char *name, const char *fs)
{
	fprintf(out,
		"  %10.6f %10" PRIu64 " %7" PRIu64 "  %10.6f %10" PRIu64 " %7" PRIu64
		"  %10.6f %7" PRIu64 "  %10.6f %7" PRIu64 "  %s",
		(double)m[READ_TIME] / 1e9, m[READ_BYTES], m[READ_COUNT],
		(double)m[WRITE_TIME] / 1e9, m[WRITE_BYTES], m[WRITE_COUNT],
		(double)m[OTHER_TIME] / 1e9, m[OTHER_COUNT], (double)m[ERROR_TIME] / 1e9,
		m[ERROR_COUNT], name);
	if (fs)
		fprintf(out, " (FS=%s)", fs);
	fputc('\n', out);
}

static void print_io(struct report *r, size_t top, FILE *out)
{
	size_t shown = 0;

	fprintf(out,
		"I/O: %" PRIu64 " reads, %" PRIu64 " bytes; %" PRIu64 " writes, %" PRIu64
		" bytes; %" PRIu64 " other; %" PRIu64 " errors (%" PRIu64 " experiment%s)\n",
		r->total[READ_COUNT], r->total[READ_BYTES], r->total[WRITE_COUNT],
		r->total[WRITE_BYTES], r->total[OTHER_COUNT], r->total[ERROR_COUNT], r->experiments,
		r->experiments == 1 ? "" : "s");
	if (r->n_files)
		qsort(r->files, r->n_files, sizeof(*r->files), cmp_file);
	fprintf(out, "Files, by I/O time:\n");
	fprintf(out, "  %10s %10s %7s  %10s %10s %7s  %10s %7s  %10s %7s  %s\n", "Read(s)",
		"Read bytes", "Reads", "Write(s)", "Wrt bytes", "Writes", "Other(s)", "Other",
		"Error(s)", "Errors", "File");
	print_row(out, r->total, "<Total>", NULL);
	for (size_t i = 0; i < r->n_files; i++) {
		const struct file_row *f = &r->files[i];
		bool used = false;

		for (int k = 0; k < NMETRIC; k++)
			used |= f->m[k] != 0;
		if (!used) /* <stdin> and the like that nothing touched */
			continue;
		if (top && shown++ >= top)
			break;
		print_row(out, f->m, f->name,
			  f->fstype >= 0 ? bc_fs_type_name((unsigned int)f->fstype) : NULL);
	}
}

static int each_experiment(const char *path, const char *name, size_t index, void *arg, char *err,
			   size_t errlen)
{
	(void)name;
	(void)index;
	return one_experiment(arg, path, err, errlen);
}

int bc_report_io(const char *exp_path, bool descendants, size_t top, FILE *out, char *err,
		 size_t errlen)
{
	struct report r = {0};
	int rc;

	rc = bc_er_tree_each(exp_path, descendants, each_experiment, &r, err, errlen);
	if (rc < 0)
		goto out;
	if (!r.experiments) {
		snprintf(err, errlen, "%s has no I/O trace (record it with -i on)", exp_path);
		rc = -ENOENT;
		goto out;
	}
	print_io(&r, top, out);
out:
	for (size_t i = 0; i < r.n_files; i++)
		free(r.files[i].name);
	free(r.files);
	return rc;
}
