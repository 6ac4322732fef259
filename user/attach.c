// SPDX-License-Identifier: MIT
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpfcollect/attach.h"
#include "bpfcollect/uprobe_multi.h"

static int push_fd(struct bc_attachment *att, int kind, int fd)
{
	int *v = realloc(att->link_fds[kind], (att->n_link_fds[kind] + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	att->link_fds[kind] = v;
	v[att->n_link_fds[kind]++] = fd;
	return 0;
}

static int push_link(struct bc_attachment *att, int kind, struct bpf_link *l)
{
	struct bpf_link **v = realloc(att->links[kind], (att->n_links[kind] + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	att->links[kind] = v;
	v[att->n_links[kind]++] = l;
	return 0;
}

static int cmp_by_object(const void *a, const void *b)
{
	const struct bc_func *fa = *(const struct bc_func *const *)a;
	const struct bc_func *fb = *(const struct bc_func *const *)b;
	int c = strcmp(fa->object, fb->object);

	return c ? c : (fa->offset > fb->offset) - (fa->offset < fb->offset);
}

/* One entry and one return link for all functions of one object. */
static int attach_object_multi(struct bpf_program *entry, struct bpf_program *ret,
			       struct bc_func *const *fs, size_t n, struct bc_attachment *att,
			       char *err, size_t errlen)
{
	uint64_t *offsets = calloc(n, sizeof(*offsets));
	uint64_t *cookies = calloc(n, sizeof(*cookies));
	int rc = -ENOMEM, fd;

	if (!offsets || !cookies)
		goto out;
	for (size_t i = 0; i < n; i++) {
		offsets[i] = fs[i]->offset;
		cookies[i] = fs[i]->id;
	}
	for (int kind = 0; kind < 2; kind++) {
		struct bpf_program *prog = kind ? ret : entry;

		fd = bc_uprobe_multi_attach(bpf_program__fd(prog), fs[0]->object, offsets, cookies,
					    n, kind == 1, 0);
		if (fd < 0) {
			rc = fd;
			snprintf(err, errlen, "cannot attach %zu %s probes to %s: %s", n,
				 kind ? "return" : "entry", fs[0]->object, strerror(-rc));
			goto out;
		}
		rc = push_fd(att, kind, fd);
		if (rc < 0) {
			close(fd);
			goto out;
		}
	}
	rc = 0;
out:
	free(offsets);
	free(cookies);
	return rc;
}

static int attach_one_perf(struct bpf_program *entry, struct bpf_program *ret,
			   const struct bc_func *f, struct bc_attachment *att, char *err,
			   size_t errlen)
{
	for (int kind = 0; kind < 2; kind++) {
		LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = f->id, .retprobe = kind == 1);
		struct bpf_link *l;
		int rc;

		l = bpf_program__attach_uprobe_opts(kind ? ret : entry, -1, f->object,
						    (size_t)f->offset, &opts);
		if (!l) {
			rc = -errno;
			snprintf(err, errlen, "cannot attach %s probe to %s in %s: %s",
				 kind ? "return" : "entry", f->name, f->object, strerror(-rc));
			return rc;
		}
		rc = push_link(att, kind, l);
		if (rc < 0) {
			bpf_link__destroy(l);
			return rc;
		}
	}
	return 0;
}

int bc_attach_functions(struct bpf_program *entry, struct bpf_program *ret,
			const struct bc_functab *funcs, bool use_multi, struct bc_attachment *att,
			char *err, size_t errlen)
{
	struct bc_func **sorted = NULL;
	int rc = 0;

	memset(att, 0, sizeof(*att));
	if (funcs->n == 0)
		return 0;
	sorted = calloc(funcs->n, sizeof(*sorted));
	if (!sorted) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < funcs->n; i++)
		sorted[i] = &funcs->v[i];
	qsort(sorted, funcs->n, sizeof(*sorted), cmp_by_object);

	for (size_t start = 0, end; start < funcs->n; start = end) {
		for (end = start + 1;
		     end < funcs->n && strcmp(sorted[end]->object, sorted[start]->object) == 0;
		     end++)
			;
		if (use_multi) {
			rc = attach_object_multi(entry, ret, sorted + start, end - start, att, err,
						 errlen);
		} else {
			for (size_t i = start; i < end && rc == 0; i++)
				rc = attach_one_perf(entry, ret, sorted[i], att, err, errlen);
		}
		if (rc < 0)
			break;
		att->n_probes += end - start;
	}
	free(sorted);
	if (rc < 0) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory attaching probes");
		bc_detach_functions(att);
	}
	return rc;
}

struct detach_job {
	int fd;
	struct bpf_link *link;
};

static void *detach_one(void *arg)
{
	struct detach_job *job = arg;

	if (job->link)
		bpf_link__destroy(job->link);
	else
		close(job->fd);
	return NULL;
}

/*
 * Detaches all links of one kind concurrently: each thread's unregister
 * removes its consumer at once and only then waits for the grace period,
 * so no wait depends on a link that is still attached.
 */
static void detach_kind(struct bc_attachment *att, int kind)
{
	size_t n = att->n_link_fds[kind] + att->n_links[kind], started = 0;
	struct detach_job *jobs;
	pthread_t *threads;

	if (n == 0)
		return;
	jobs = calloc(n, sizeof(*jobs));
	threads = calloc(n, sizeof(*threads));
	for (size_t i = 0; jobs && i < att->n_link_fds[kind]; i++)
		jobs[i] = (struct detach_job){.fd = att->link_fds[kind][i]};
	for (size_t i = 0; jobs && i < att->n_links[kind]; i++)
		jobs[att->n_link_fds[kind] + i] = (struct detach_job){.link = att->links[kind][i]};
	if (jobs && threads && n > 1) {
		for (; started < n; started++)
			if (pthread_create(&threads[started], NULL, detach_one, &jobs[started]))
				break;
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	/* One link, or no threads to be had: detach the rest in order. */
	for (size_t i = started; i < n; i++) {
		if (jobs) {
			detach_one(&jobs[i]);
		} else if (i < att->n_link_fds[kind]) {
			close(att->link_fds[kind][i]);
		} else {
			bpf_link__destroy(att->links[kind][i - att->n_link_fds[kind]]);
		}
	}
	free(jobs);
	free(threads);
}

void bc_detach_functions(struct bc_attachment *att)
{
	detach_kind(att, 1); /* returns first: see attach.h */
	detach_kind(att, 0);
	for (int kind = 0; kind < 2; kind++) {
		free(att->link_fds[kind]);
		free(att->links[kind]);
	}
	memset(att, 0, sizeof(*att));
}
