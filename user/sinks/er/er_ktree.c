// SPDX-License-Identifier: MIT
/*
 * The kernel experiment tree (-k, -a): the founder, ktest.N.er, is the
 * kernel's view (pid 0): process lifecycle, syscalls and off-CPU intervals
 * of every traced process. Each process that produces user-level data
 * (function calls, clock samples) gets a subexperiment named as collect
 * names the processes of a kernel experiment, _COMM_PID_PID.N.er (N moves
 * up when the name is taken), flat inside the founder, created at its
 * first such record. An exec ends the image's subexperiment; the new image
 * gets its own at its first user-level record.
 *
 * A subexperiment's map.xml must hold the process's mappings from before it
 * was opened: the stream's shared state (session->state) keeps them, and
 * the tree writes them for every process whose mappings the stream has
 * said from its start (created or exec'd while recording, or introduced by
 * the agent with what /proc had).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "er_profile.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/liveset.h"
#include "bpfcollect/mapset.h"
#include "bpfcollect/outmode.h"
#include "bpfcollect/pidtab.h"
#include "bpfcollect/procinfo.h"
#include "bpfcollect/state.h"

#define NAME_MAX_LEN 200

/* A traced process with a subexperiment open, or waiting for its first user record. */
struct kproc {
	uint32_t pid;
	struct bc_sink *writer; /* NULL until its first user-level record */
	int exit_code;
	bool exited;
};

struct er_ktree {
	struct bc_sink base;
	char *path;
	struct bc_session sess; /* the founder's; children get a copy */
	struct bc_sink *founder;
	struct bc_pidtab procs;	  /* of struct kproc */
	struct bc_live_set known; /* processes whose mappings the state holds since they began */
	size_t subexps;
	char *kallmodsyms; /* the founder's copy of the kernel symbols, which children link */
	char err[512];
};

static struct kproc *find(struct er_ktree *t, uint32_t pid)
{
	return bc_pidtab_find(&t->procs, pid);
}

/* The process pid, made on first sight. NULL: no memory. */
static struct kproc *get(struct er_ktree *t, uint32_t pid)
{
	struct kproc *p = find(t, pid);

	if (p)
		return p;
	p = bc_pidtab_add(&t->procs, pid);
	if (p)
		p->pid = pid;
	return p;
}

/* An entry released (an exit long ago, or the end): its writer, if still open. */
static void release_kproc(void *entry, void *ctx)
{
	struct kproc *p = entry;

	(void)ctx;
	bc_sink_destroy(p->writer);
}

static int end_child(struct kproc *p, uint64_t ktime)
{
	return bc_er_sink_close(&p->writer, ktime, p->exited ? p->exit_code : -1);
}

/*
 * The mappings the new subexperiment starts with, stamped with its start:
 * what the stream said of the process (its fork's copy, its exec, mmaps,
 * and for one that began before recording, the agent's read of /proc).
 */
static int seed_mappings(struct er_ktree *t, struct kproc *p, uint64_t ktime)
{
	if (!bc_live_has(&t->known, p->pid))
		return 0; /* nothing said of it: the subexperiment goes on without maps */
	if (!t->sess.state)
		return 0;
	return bc_mapset_report(&t->sess.state->maps, p->pid, ktime, p->writer);
}

/* Opens _COMM_PID_PID.N.er for p at its first user-level record. */
static int open_child(struct er_ktree *t, struct kproc *p, uint64_t ktime)
{
	char comm[64], name[NAME_MAX_LEN], path[4096], **argv = NULL, *argbuf = NULL;
	char attrs[512];
	struct bc_session s = t->sess;
	int rc;

	const struct bc_proc *sp = bc_state_proc(t->sess.state, p->pid);

	snprintf(comm, sizeof(comm), "%s", sp ? sp->comm : "");
	rc = bc_er_process_name(t->path, p->pid, comm, sizeof(comm), name, sizeof(name));
	if (rc)
		return rc;
	if (snprintf(path, sizeof(path), "%s/%s.er", t->path, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (bc_out_mkdirat(AT_FDCWD, path) < 0)
		return -errno;
	p->writer = bc_er_sink_new(path, t->err, sizeof(t->err));
	if (!p->writer)
		return -EIO;
	/* its exec or the agent's PROC_NAME said its argv; else its file or name */
	rc = bc_argv_split(sp ? sp->args : NULL, sp ? sp->args_len : 0,
			   sp && sp->exe ? sp->exe : comm, &argv, &argbuf);
	if (rc < 0)
		return rc;
	s.argv = argv;
	s.root_pid = p->pid;
	s.ppid = sp ? (int32_t)sp->ppid : 0;
	s.pgrp = s.sid = 0; /* not in the stream */
	s.start_ktime = ktime;
	s.attached = true;
	s.extra_pids = NULL;
	s.n_extra_pids = 0;
	s.offcpu_in_founder = true;
	s.whole = &t->sess;
	rc = bc_sink_begin(p->writer, &s);
	free(argv);
	free(argbuf);
	if (!rc)
		rc = seed_mappings(t, p, ktime);
	if (rc)
		return rc;
	t->subexps++;
	snprintf(attrs, sizeof(attrs),
		 "variant=\"process\" lineage=\"%s\" follow=\"1\" msg=\"pid=%" PRIu32 "\"", name,
		 p->pid);
	return bc_er_sink_log_event(t->founder, ktime, "desc_started", attrs);
}

/* Data with user-level stacks: it belongs in the process's own experiment. */
static bool is_user_level(const struct bc_rec_head *h)
{
	return h->kind == BC_REC_FUNC_ENTRY || h->kind == BC_REC_FUNC_RETURN ||
	       h->kind == BC_REC_PROFILE || h->kind == BC_REC_HEAP || h->kind == BC_REC_SYNC ||
	       h->kind == BC_REC_IO;
}

/* Off-CPU time on a user stack: kept whole in the founder, as clock data in the process's. */
static bool is_offcpu_on_user_stack(const struct bc_rec_head *h)
{
	return h->kind == BC_REC_OFFCPU && h->size >= sizeof(struct bc_rec_offcpu) &&
	       ((const struct bc_rec_offcpu *)h)->n_user > 0;
}

/* The process's own experiment, opened at its first user-level record; NULL once it exited. */
static int child_event(struct er_ktree *t, const struct bc_event *ev)
{
	const struct bc_rec_head *h = ev->rec;
	struct kproc *p = get(t, h->pid);
	int rc;

	if (!p)
		return -ENOMEM;
	/*
	 * Off-CPU time under one clock tick makes no clock packet (it is
	 * carried to the thread's next interval): it alone opens no
	 * subexperiment, which would stay empty. The founder keeps it.
	 */
	if (!p->writer && is_offcpu_on_user_stack(h)) {
		const struct bc_rec_offcpu *o = (const void *)h;
		uint64_t tick_ns =
			1000ull * (t->sess.profile_us ? t->sess.profile_us : BC_ER_OFFCPU_TICK_US);

		if (h->ktime - o->off_ktime < tick_ns)
			return 0;
	}
	if (!p->writer && !p->exited) {
		rc = open_child(t, p, h->ktime);
		if (rc)
			return rc;
	}
	return p->writer ? bc_sink_event(p->writer, ev) : 0;
}

static int on_exec(struct er_ktree *t, const struct bc_rec_exec *x)
{
	struct kproc *p = get(t, x->h.pid);
	int rc = 0;

	if (!p)
		return -ENOMEM;
	if (p->writer) {
		rc = bc_er_sink_log_event(p->writer, x->h.ktime, "exec_start",
					  "variant=\"execve\" follow=\"1\"");
		if (!rc)
			rc = end_child(p, x->h.ktime);
	}
	/* The new image's mappings come next, from the recorder: all of them. */
	if (!rc)
		rc = bc_live_add(&t->known, x->h.pid);
	return rc;
}

/*
 * The kernel's symbols, read once for the whole recording into the
 * founder's kallmodsyms; every subexperiment links that file (the founder
 * has no profile of its own to have written it). A founder without them
 * (hidden addresses) leaves its children to do without.
 */
static int founder_symbols(struct er_ktree *t, const struct bc_session *sess)
{
	uint64_t text;
	int dirfd, rc;

	if (!sess->kallsyms || !sess->profile_us)
		return 0;
	dirfd = open(t->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	rc = er_kallmodsyms_write(dirfd, sess->kallsyms, sess->kallsyms_formatted, 0, &text);
	close(dirfd);
	if (rc < 0)
		return 0;
	if (asprintf(&t->kallmodsyms, "%s/kallmodsyms", t->path) < 0) {
		t->kallmodsyms = NULL;
		return -ENOMEM;
	}
	t->sess.kallsyms = t->kallmodsyms;
	t->sess.kallsyms_formatted = true;
	return 0;
}

static int ktree_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct er_ktree *t = (struct er_ktree *)s;
	struct bc_session ks = *sess;
	static char *const system_argv[] = {"(system-wide)", NULL};
	int rc;

	t->sess = *sess;
	/* The founder is the kernel: pid 0, no profile of its own. */
	ks.root_pid = 0;
	ks.profile_us = 0;
	ks.attached = true;
	ks.extra_pids = NULL;
	ks.n_extra_pids = 0;
	ks.whole = sess;
	if (sess->system_wide)
		ks.argv = system_argv;
	rc = bc_sink_begin(t->founder, &ks);
	if (!rc)
		rc = founder_symbols(t, sess);
	if (rc)
		return rc;
	/* Processes traced from the start: the agent reads their mappings for us now. */
	if (!sess->system_wide && sess->root_pid) {
		rc = bc_live_add(&t->known, sess->root_pid);
		for (size_t i = 0; !rc && i < sess->n_extra_pids; i++)
			rc = bc_live_add(&t->known, sess->extra_pids[i]);
	}
	return rc;
}

/*
 * The agent's PROC_NAME of a process that began before recording (the
 * shared state has its name, parent and argv): its mappings from /proc
 * come next, from the agent, so its history is whole.
 */
static int on_proc_name(struct er_ktree *t, const struct bc_rec_proc_name *n)
{
	return get(t, n->h.pid) ? bc_live_add(&t->known, n->h.pid) : -ENOMEM;
}

static int ktree_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct er_ktree *t = (struct er_ktree *)s;
	const struct bc_rec_head *h = ev->rec;
	struct kproc *p;
	int rc;

	if (h->kind == BC_REC_PROC_NAME) {
		rc = on_proc_name(t, (const struct bc_rec_proc_name *)h);
		if (rc)
			return rc;
	}
	if (is_user_level(h))
		return child_event(t, ev);
	/* usage goes where its overview is: the process's experiment, once it has one */
	if (h->kind == BC_REC_USAGE && (p = find(t, h->pid)) && p->writer)
		return bc_sink_event(p->writer, ev);
	if (is_offcpu_on_user_stack(h)) {
		rc = child_event(t, ev);
		if (rc)
			return rc;
	}
	if (h->kind == BC_REC_PROC_EXEC) {
		rc = on_exec(t, (const struct bc_rec_exec *)h);
		if (rc)
			return rc;
	}
	rc = bc_sink_event(t->founder, ev);
	if (rc)
		return rc;
	switch (h->kind) {
	case BC_REC_PROC_FORK: {
		const struct bc_rec_fork *f = (const void *)h;

		if (!f->child_pid)
			return 0; /* a damaged record */
		/* a reused pid is a new process */
		p = find(t, f->child_pid);
		if (p) {
			end_child(p, h->ktime);
			bc_pidtab_remove(&t->procs, f->child_pid);
		}
		if (!get(t, f->child_pid))
			return -ENOMEM;
		/* A child's mappings are its parent's copy, which the recorder sends now. */
		return bc_live_add(&t->known, f->child_pid);
	}
	case BC_REC_PROC_EXIT:
		p = find(t, h->pid);
		bc_live_remove(&t->known, h->pid);
		if (!p || p->exited)
			return 0;
		p->exited = true;
		p->exit_code = ((const struct bc_rec_exit *)h)->exit_code;
		rc = end_child(p, h->ktime);
		/* kept a while (a late record must not open it again), then released */
		return rc ? rc : bc_pidtab_exited(&t->procs, h->pid);
	default:
		return 0;
	}
}

/* A process's mappings go to its experiment once it has one; till then the state keeps them. */
static int ktree_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	struct er_ktree *t = (struct er_ktree *)s;
	struct kproc *p = find(t, m->pid);

	return p && p->writer ? bc_sink_mapping(p->writer, m) : 0;
}

static int ktree_flush(struct bc_sink *s)
{
	struct er_ktree *t = (struct er_ktree *)s;
	int rc = bc_sink_flush(t->founder);

	for (size_t i = 0; i < t->procs.n; i++) {
		struct kproc *p = bc_pidtab_at(&t->procs, i);

		if (p->writer) {
			int e = bc_sink_flush(p->writer);

			if (e && !rc)
				rc = e;
		}
	}
	return rc;
}

static int ktree_end(struct bc_sink *s, const struct bc_session_end *end)
{
	struct er_ktree *t = (struct er_ktree *)s;
	int rc = 0, e;

	for (size_t i = 0; i < t->procs.n; i++) {
		e = end_child(bc_pidtab_at(&t->procs, i), end->end_ktime);
		if (e && !rc)
			rc = e;
	}
	e = bc_sink_end(t->founder, end);
	return rc ? rc : e;
}

static void ktree_destroy(struct bc_sink *s)
{
	struct er_ktree *t = (struct er_ktree *)s;

	bc_pidtab_free(&t->procs);
	bc_sink_destroy(t->founder);
	bc_live_free(&t->known);
	free(t->kallmodsyms);
	free(t->path);
	free(t);
}

static const struct bc_sink_ops ktree_ops = {
	.name = "er-ktree",
	.begin = ktree_begin,
	.event = ktree_event,
	.mapping = ktree_mapping,
	.end = ktree_end,
	.flush = ktree_flush,
	.destroy = ktree_destroy,
	.whole_syscalls = true,
};

struct bc_sink *bc_er_ktree_sink_new(const char *exp_path, char *err, size_t errlen)
{
	struct er_ktree *t = calloc(1, sizeof(*t));

	if (!t || !(t->path = strdup(exp_path))) {
		snprintf(err, errlen, "%s: out of memory", exp_path);
		free(t);
		return NULL;
	}
	t->base.ops = &ktree_ops;
	bc_pidtab_init(&t->procs, sizeof(struct kproc), release_kproc, NULL);
	t->founder = bc_er_sink_new(exp_path, err, errlen);
	if (!t->founder) {
		free(t->path);
		free(t);
		return NULL;
	}
	return &t->base;
}
