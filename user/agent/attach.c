// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include <bpf/bpf.h>

#include "bpfcollect/attach.h"
#include "bpfcollect/probe_site.h"
#include "bpfcollect/tracefs.h"
#include "bpfcollect/tree_probes.h"
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

/*
 * One probe to place: a function's entry (kind 0), its uretprobe (1) or one
 * of its exits (2, running the entry program), at offset, with the program
 * serving it and what its site is (bpfcollect/probe_site.h).
 */
struct probe {
	const struct bc_func *func;
	struct bpf_program *prog;
	int kind;
	uint32_t site_kind;
	uint64_t offset;
};

static const char *const kind_name[] = {"entry", "return", "exit"};

/* Return probes and exits go in the first bucket to detach (attach.h). */
static int bucket(int kind)
{
	return kind ? 1 : 0;
}

/* What f's entry probe is (bpfcollect/probe_site.h); a Go one's carries the goid's offset. */
static uint32_t entry_site_kind(const struct bc_func *f)
{
	if (f->go_goid_offset)
		return BC_SITE_GO_ENTRY | f->go_goid_offset << BC_SITE_KIND_BITS;
	return f->exits_only ? BC_SITE_ENTRY_EXITS : BC_SITE_ENTRY;
}

static uint32_t exit_site_kind(const struct bc_func *f)
{
	if (f->go_goid_offset)
		return BC_SITE_GO_EXIT | f->go_goid_offset << BC_SITE_KIND_BITS;
	return BC_SITE_EXIT;
}

static uint64_t cookie_of(const struct probe *p)
{
	return p->func->id | (uint64_t)p->site_kind << BC_COOKIE_KIND_SHIFT;
}

/*
 * Groups by object, kind and program: each group is one uprobe_multi link
 * or trace event. Exits and return probes first: a call entered before its
 * return probe exists returns unseen, and the programs that pair entries
 * with returns (heap, sync) must never see an entry whose return cannot
 * come.
 */
static int cmp_probe(const void *a, const void *b)
{
	const struct probe *x = a, *y = b;
	int c = strcmp(x->func->object, y->func->object);

	if (c)
		return c;
	if (x->kind != y->kind)
		return y->kind - x->kind;
	if (x->prog != y->prog)
		return (uintptr_t)x->prog < (uintptr_t)y->prog ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

static int attach_group_multi(const struct probe *ps, size_t n, int pid, struct bc_attachment *att,
			      char *err, size_t errlen)
{
	uint64_t *offsets = calloc(n, sizeof(*offsets));
	uint64_t *cookies = calloc(n, sizeof(*cookies));
	int rc = -ENOMEM, fd;

	if (!offsets || !cookies)
		goto out;
	for (size_t i = 0; i < n; i++) {
		offsets[i] = ps[i].offset;
		cookies[i] = cookie_of(&ps[i]);
	}
	fd = bc_uprobe_multi_attach(bpf_program__fd(ps[0].prog), ps[0].func->object, offsets,
				    cookies, n, ps[0].kind == 1, pid);
	if (fd < 0) {
		rc = fd;
		snprintf(err, errlen, "cannot attach %zu %s probes to %s: %s", n,
			 kind_name[ps[0].kind], ps[0].func->object, strerror(-rc));
		goto out;
	}
	rc = push_fd(att, bucket(ps[0].kind), fd);
	if (rc < 0)
		close(fd);
out:
	free(offsets);
	free(cookies);
	return rc;
}

static int attach_one_perf(const struct probe *p, int pid, struct bc_attachment *att, char *err,
			   size_t errlen)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = cookie_of(p), .retprobe = p->kind == 1);
	struct bpf_link *l;
	int rc;

	l = bpf_program__attach_uprobe_opts(p->prog, pid > 0 ? pid : -1, p->func->object,
					    (size_t)p->offset, &opts);
	if (!l) {
		rc = -errno;
		snprintf(err, errlen, "cannot attach %s probe to %s in %s: %s", kind_name[p->kind],
			 p->func->name, p->func->object, strerror(-rc));
		return rc;
	}
	rc = push_link(att, bucket(p->kind), l);
	if (rc < 0)
		bpf_link__destroy(l);
	return rc;
}

/* The probe points of one trace event: where each one is, for the entry programs. */
static int add_points(const struct probe *ps, size_t n, const struct bc_arm_tree *t,
		      const char *event, uint32_t number, char *err, size_t errlen)
{
	int rc;

	for (size_t i = 0; i < n; i++) {
		struct bc_site_key key = {.event = number, .offset = ps[i].offset};
		struct bc_site site = {.id = ps[i].func->id, .kind = ps[i].site_kind};

		rc = bc_tracefs_uprobe_append(t->tracefs_fd, event, ps[i].func->object, key.offset,
					      ps[i].kind == 1);
		if (rc == 0 && bpf_map_update_elem(t->sites_fd, &key, &site, BPF_ANY) < 0)
			rc = -errno;
		if (rc < 0) {
			snprintf(err, errlen, "cannot add the %s probe of %s in %s: %s",
				 kind_name[ps[i].kind], ps[i].func->name, ps[i].func->object,
				 strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/*
 * One group as one trace event: its points, its keepers on every thread of
 * every root, then its program (before that the breakpoints do nothing).
 */
static int attach_group_tree(const struct probe *ps, size_t n, const struct bc_arm_tree *t,
			     struct bc_attachment *att, char *err, size_t errlen)
{
	uint32_t number = att->n_events;
	struct bpf_link *carrier = NULL;
	char event[32];
	int rc, id;

	snprintf(event, sizeof(event), "g%u", number);
	att->n_events++; /* removed at detach, whatever is made of it */
	rc = add_points(ps, n, t, event, number, err, errlen);
	if (rc < 0)
		return rc;
	id = bc_tracefs_event_id(t->tracefs_fd, event);
	if (id < 0) {
		snprintf(err, errlen, "cannot read the id of trace event %s: %s", event,
			 strerror(-id));
		return id;
	}
	/*
	 * Keepers in bucket 1, the program in bucket 0: every keeper goes
	 * before any program (see attach.h), so no breakpoint is left when
	 * the kernel disables an event and waits for its grace period.
	 */
	rc = -ESRCH;
	for (size_t i = 0; i < t->n_roots; i++) {
		int one = bc_tree_keep_process(id, (pid_t)t->roots[i], t->inherit,
					       &att->link_fds[1], &att->n_link_fds[1]);

		if (one < 0 && one != -ESRCH) {
			rc = one;
			break;
		}
		if (one == 0)
			rc = 0;
	}
	if (rc == 0) {
		carrier = bc_tree_carry(ps[0].prog, id, (pid_t)t->roots[0], number);
		rc = carrier ? push_link(att, 0, carrier) : -errno;
		if (rc < 0 && carrier)
			bpf_link__destroy(carrier);
	}
	if (rc < 0)
		snprintf(err, errlen, "cannot arm %zu %s probes of %s in the traced processes: %s",
			 n, kind_name[ps[0].kind], ps[0].func->object,
			 rc == -ESRCH ? "they are gone" : strerror(-rc));
	return rc;
}

/* Closes the links made after the first `keep` of each kind. */
static void detach_after(struct bc_attachment *att, const size_t keep_fds[2],
			 const size_t keep_links[2])
{
	struct bc_attachment tail = {0};

	for (int k = 1; k >= 0; k--) {
		tail.link_fds[k] = att->link_fds[k] + keep_fds[k];
		tail.n_link_fds[k] = att->n_link_fds[k] - keep_fds[k];
		tail.links[k] = att->links[k] + keep_links[k];
		tail.n_links[k] = att->n_links[k] - keep_links[k];
	}
	for (int k = 1; k >= 0; k--) {
		for (size_t i = 0; i < tail.n_link_fds[k]; i++)
			close(tail.link_fds[k][i]);
		for (size_t i = 0; i < tail.n_links[k]; i++)
			bpf_link__destroy(tail.links[k][i]);
		att->n_link_fds[k] = keep_fds[k];
		att->n_links[k] = keep_links[k];
	}
}

int bc_attach_functions(const struct bc_attach_progs *progs, const struct bc_functab *funcs,
			struct bc_attachment *att, char *err, size_t errlen)
{
	int rc;

	memset(att, 0, sizeof(*att));
	if (progs->mode == BC_ARM_TREE) {
		/* a copy: the events are removed after the recording lets go of its own */
		att->tracefs_fd = fcntl(progs->tree->tracefs_fd, F_DUPFD_CLOEXEC, 3);
		if (att->tracefs_fd < 0) {
			rc = -errno;
			snprintf(err, errlen, "cannot keep tracefs open: %s", strerror(-rc));
			return rc;
		}
		att->has_tracefs = true;
	}
	rc = bc_attach_more(progs, funcs, att, err, errlen);
	if (rc < 0)
		bc_detach_functions(att);
	return rc;
}

int bc_attach_more(const struct bc_attach_progs *progs, const struct bc_functab *funcs,
		   struct bc_attachment *att, char *err, size_t errlen)
{
	size_t keep_fds[2] = {att->n_link_fds[0], att->n_link_fds[1]};
	size_t keep_links[2] = {att->n_links[0], att->n_links[1]};
	size_t n = 0, total = 0;
	struct probe *ps;
	int rc = 0;

	if (funcs->n == 0)
		return 0;
	for (size_t i = 0; i < funcs->n; i++)
		total += 2 + funcs->v[i].n_exits;
	ps = calloc(total, sizeof(*ps));
	if (!ps) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < funcs->n; i++) {
		const struct bc_func *f = &funcs->v[i];
		struct bpf_program *entry = f->capture.n_entry ? progs->entry_cap : progs->entry;
		struct bpf_program *exit = f->capture.n_return ? progs->entry_cap : progs->entry;

		ps[n++] = (struct probe){f, entry, 0, entry_site_kind(f), bc_func_probe_offset(f)};
		if (f->id < 64 && (progs->entry_only >> f->id) & 1)
			continue;
		if (!f->exits_only) {
			ps[n++] =
				(struct probe){f, f->capture.n_return ? progs->ret_cap : progs->ret,
					       1, BC_SITE_ENTRY, bc_func_probe_offset(f)};
			continue;
		}
		for (size_t e = 0; e < f->n_exits; e++)
			ps[n++] = (struct probe){f, exit, 2, exit_site_kind(f), f->exits[e]};
	}
	qsort(ps, n, sizeof(*ps), cmp_probe);

	for (size_t start = 0, end; start < n && rc == 0; start = end) {
		for (end = start + 1;
		     end < n && ps[end].kind == ps[start].kind && ps[end].prog == ps[start].prog &&
		     strcmp(ps[end].func->object, ps[start].func->object) == 0;
		     end++)
			;
		if (progs->mode == BC_ARM_TREE) {
			rc = attach_group_tree(ps + start, end - start, progs->tree, att, err,
					       errlen);
		} else if (progs->mode == BC_ARM_MULTI) {
			rc = attach_group_multi(ps + start, end - start, progs->pid, att, err,
						errlen);
		} else {
			for (size_t i = start; i < end && rc == 0; i++)
				rc = attach_one_perf(&ps[i], progs->pid, att, err, errlen);
		}
	}
	free(ps);
	if (rc < 0) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory attaching probes");
		detach_after(att, keep_fds, keep_links);
		return rc;
	}
	att->n_probes += funcs->n;
	return 0;
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
	char event[32];

	detach_kind(att, 1); /* returns first: see attach.h */
	detach_kind(att, 0);
	for (uint32_t i = 0; i < att->n_events && att->has_tracefs; i++) {
		snprintf(event, sizeof(event), "g%u", i);
		bc_tracefs_uprobe_remove(att->tracefs_fd, event);
	}
	if (att->has_tracefs)
		close(att->tracefs_fd);
	for (int kind = 0; kind < 2; kind++) {
		free(att->link_fds[kind]);
		free(att->links[kind]);
	}
	memset(att, 0, sizeof(*att));
}
