// SPDX-License-Identifier: MIT
/*
 * The experiment tree: routes each process's events into its own experiment
 * (the founder, or a descendant subexperiment flat inside it) and records the
 * lineage in the founder's log.xml, as Oracle's collector does (seed 003):
 * _fN.er for the Nth fork-like child of a creator, _xN.er for the Nth exec of
 * a process image, _CN.er for a clone that is neither a thread nor fork-like,
 * chained (_f1_x1.er). Counting is per creator.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/containers.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/outmode.h"
#include "bpfcollect/pidtab.h"
#include "bpfcollect/procinfo.h"
#include "bpfcollect/state.h"
#include "bpfcollect/xml.h"

#define LINEAGE_MAX 200
/*
 * A lineage past LINEAGE_FOLD characters (67 generations of exec made
 * "File name too long") is folded: "_zN" (N counting the tree's folds, so
 * names stay unique) and the last LINEAGE_KEEP characters from a step's
 * start. Subexperiment names then stay within NAME_MAX however long the
 * chain (docs/experiment-format.md).
 */
#define LINEAGE_FOLD 160
#define LINEAGE_KEEP 100

#define CLONE_VM      0x00000100
#define CLONE_FS      0x00000200
#define CLONE_FILES   0x00000400
#define CLONE_SIGHAND 0x00000800
#define CLONE_VFORK   0x00004000

/* One process and the experiment its events go to now. */
struct proc_exp {
	uint32_t pid;
	char lineage[LINEAGE_MAX]; /* "" for the founder */
	struct bc_sink *writer;
	unsigned int forks, execs, clones; /* children made so far, per kind */
	bool launch_exec_pending;	   /* the founder's exec of the command */
	int exit_code;			   /* from its PROC_EXIT record */
	bool exited;
	bool pending; /* attached beside the founder: opened at its PROC_NAME */
};

struct er_tree {
	struct bc_sink base;
	char *path;
	struct bc_session sess; /* the founder's, copied for the children */
	struct proc_exp root;	/* the founder's process, kept to the end */
	bool root_found;	/* and found by its pid: no other process has it since */
	struct bc_pidtab procs; /* of struct proc_exp: the other processes */
	struct bc_sink *founder;
	uint64_t last_ktime;
	char *kallmodsyms;  /* the founder's kernel symbols, which descendants link */
	unsigned int folds; /* lineages folded so far */
	char err[512];
};

static struct proc_exp *find(struct er_tree *t, uint32_t pid)
{
	if (t->root_found && pid == t->root.pid)
		return &t->root;
	return bc_pidtab_find(&t->procs, pid);
}

/* A new process pid: it is the one find() gives from now on. */
static struct proc_exp *add(struct er_tree *t, uint32_t pid)
{
	struct proc_exp *v = bc_pidtab_add(&t->procs, pid);

	if (v)
		v->pid = pid;
	return v;
}

/*
 * The entry for a new process pid, when old (exited, its experiment ended
 * at its exit) had it. The founder's process stays the founder's, no
 * longer found by pid.
 */
static struct proc_exp *reuse_or_add(struct er_tree *t, struct proc_exp *old, uint32_t pid)
{
	if (old == &t->root)
		t->root_found = false;
	else if (old)
		bc_pidtab_remove(&t->procs, pid);
	return add(t, pid);
}

/* A process's entry released (an exit long ago, or the end): its writer, if still open. */
static void release_proc(void *entry, void *ctx)
{
	struct proc_exp *p = entry;
	struct er_tree *t = ctx;

	if (p->writer != t->founder)
		bc_sink_destroy(p->writer);
}

/* Creates DIR/LINEAGE.er and begins its writer for process pid, as the stream describes it. */
static int open_child(struct er_tree *t, struct proc_exp *p, uint64_t ktime, const char *command)
{
	char path[4096], **argv = NULL, *argbuf = NULL;
	struct bc_session s = t->sess;
	int rc;

	if (snprintf(path, sizeof(path), "%s/%s.er", t->path, p->lineage) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (bc_out_mkdirat(AT_FDCWD, path) < 0 && errno != EEXIST)
		return -errno;
	p->writer = bc_er_sink_new(path, t->err, sizeof(t->err));
	if (!p->writer)
		return -EIO;
	const struct bc_proc *sp = bc_state_proc(t->sess.state, p->pid);

	rc = bc_argv_split(sp ? sp->args : NULL, sp ? sp->args_len : 0, command, &argv, &argbuf);
	if (rc < 0)
		return rc;
	s.argv = argv;
	s.whole = &t->sess;
	s.root_pid = p->pid;
	s.ppid = sp ? (int32_t)sp->ppid : 0;
	s.pgrp = sp ? sp->pgrp : 0;
	s.sid = sp ? sp->sid : 0;
	s.start_ktime = ktime;
	rc = bc_sink_begin(p->writer, &s);
	free(argv);
	free(argbuf);
	return rc;
}

/* Tells the founder's log (and the creator's, when it is another) about a new experiment. */
static int log_descendant(struct er_tree *t, struct proc_exp *creator, uint64_t ktime,
			  const char *variant, const char *lineage, uint32_t pid)
{
	char attrs[512];
	int rc = 0;

	snprintf(attrs, sizeof(attrs),
		 "variant=\"%s\" lineage=\"%s\" follow=\"1\" msg=\"pid=%" PRIu32 "\"", variant,
		 lineage, pid);
	if (creator->writer) {
		rc = bc_er_sink_log_event(creator->writer, ktime, "desc_start", attrs);
		if (!rc)
			rc = bc_er_sink_log_event(creator->writer, ktime, "desc_started", attrs);
	}
	if (!rc && creator->writer != t->founder)
		rc = bc_er_sink_log_event(t->founder, ktime, "desc_started", attrs);
	return rc;
}

static int end_writer(struct proc_exp *p, uint64_t ktime)
{
	return bc_er_sink_close(&p->writer, ktime, p->exited ? p->exit_code : -1);
}

/*
 * parent's lineage and one more step ("_f2", "_x1") into lineage, folded
 * when long (LINEAGE_FOLD).
 */
static int lineage_step(struct er_tree *t, const char *parent, char letter, unsigned int n,
			char lineage[LINEAGE_MAX])
{
	char step[16];
	size_t len, from;

	snprintf(step, sizeof(step), "_%c%u", letter, n);
	len = strlen(parent) + strlen(step);
	if (len <= LINEAGE_FOLD) {
		snprintf(lineage, LINEAGE_MAX, "%s%s", parent, step);
		return 0;
	}
	/* the last steps, from an underscore: "_zN" then "_x1_x1..._x1" */
	from = strlen(parent) > LINEAGE_KEEP ? strlen(parent) - LINEAGE_KEEP : 0;
	while (parent[from] && parent[from] != '_')
		from++;
	if (snprintf(lineage, LINEAGE_MAX, "_z%u%s%s", ++t->folds, parent + from, step) >=
	    LINEAGE_MAX)
		return -ENAMETOOLONG;
	return 0;
}

static int on_fork(struct er_tree *t, struct proc_exp *parent, const struct bc_rec_fork *f)
{
	/* vfork and posix_spawn share the mm with CLONE_VFORK: fork-like all the same. */
	uint64_t shared = f->clone_flags & (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND);
	bool fork_like = !shared || ((f->clone_flags & CLONE_VFORK) && shared == CLONE_VM);
	struct proc_exp *child;
	char lineage[LINEAGE_MAX];
	int n;

	child = find(t, f->child_pid);
	if (t->sess.no_follow || (child && !child->exited) || !f->child_pid)
		return 0;
	n = lineage_step(t, parent->lineage, fork_like ? 'f' : 'C',
			 fork_like ? ++parent->forks : ++parent->clones, lineage);
	if (n < 0)
		return n;
	child = reuse_or_add(t, child, f->child_pid);
	if (!child)
		return -ENOMEM;
	parent = NULL; /* add() may have moved it */
	memcpy(child->lineage, lineage, sizeof(lineage));
	n = open_child(t, child, f->h.ktime, "(fork)");
	if (n < 0)
		return n;
	struct proc_exp *creator = find(t, f->h.pid);

	return log_descendant(t, creator, f->h.ktime, fork_like ? "fork" : "clone", lineage,
			      f->child_pid);
}

static int on_exec(struct er_tree *t, struct proc_exp *p, const struct bc_rec_exec *x)
{
	char lineage[LINEAGE_MAX], attrs[512], file[BC_PATH_LEN + 1];
	int n, rc;

	/* The launched command's own exec is where the founder starts, not a new image. */
	if (p->launch_exec_pending) {
		p->launch_exec_pending = false;
		return 0;
	}
	memcpy(file, x->filename, x->filename_len);
	file[x->filename_len] = 0;
	n = lineage_step(t, p->lineage, 'x', ++p->execs, lineage);
	if (n < 0)
		return n;
	/* The image before ends here: gprofng reads exec_start as its end. */
	char *escaped = bc_xml_escape_dup(file);

	snprintf(attrs, sizeof(attrs), "variant=\"execve\" lineage=\"%s\" follow=\"1\" msg=\"%s\"",
		 lineage, escaped ? escaped : "");
	free(escaped);
	rc = bc_er_sink_log_event(p->writer, x->h.ktime, "exec_start", attrs);
	if (rc)
		return rc;
	if (p->writer != t->founder) {
		rc = end_writer(p, x->h.ktime);
		if (rc)
			return rc;
	} else {
		/* The founder's writer stays open for the end of recording; it just stops here. */
		p->writer = NULL;
	}
	memcpy(p->lineage, lineage, sizeof(lineage));
	p->forks = p->execs = p->clones = 0;
	rc = open_child(t, p, x->h.ktime, file);
	if (rc)
		return rc;
	return bc_er_sink_log_event(t->founder, x->h.ktime, "desc_started",
				    p == &t->root ? "variant=\"execve\" follow=\"1\"" : attrs);
}

int bc_er_process_name(const char *founder, uint32_t pid, char *comm, size_t commlen, char *name,
		       size_t namelen)
{
	char safe[64], path[4096];
	struct stat st;

	(void)commlen;
	bc_comm_for_filename(comm, safe, sizeof(safe));
	for (unsigned int n = 1;; n++) {
		if (snprintf(name, namelen, "_%s_PID_%" PRIu32 ".%u", safe, pid, n) >=
			    (int)namelen ||
		    snprintf(path, sizeof(path), "%s/%s.er", founder, name) >= (int)sizeof(path))
			return -ENAMETOOLONG;
		if (stat(path, &st) < 0)
			return 0;
	}
}

/*
 * A process attached to beside the founder (-P A,B), as the stream names it
 * (the agent's PROC_NAME record; "unknown" when it was gone): the
 * subexperiment _COMM_PID_PID.1.er, named as collect names the processes
 * of a kernel experiment; the number moves up if the name is taken. It
 * starts with the recording.
 */
static int adopt(struct er_tree *t, struct proc_exp *p)
{
	const struct bc_proc *sp = bc_state_proc(t->sess.state, p->pid);
	char comm[BC_COMM_LEN + 1], lineage[LINEAGE_MAX];
	uint64_t ktime = t->sess.start_ktime;
	uint32_t pid = p->pid;
	int rc;

	p->pending = false;
	snprintf(comm, sizeof(comm), "%s", sp ? sp->comm : "");
	rc = bc_er_process_name(t->path, pid, comm, sizeof(comm), lineage, sizeof(lineage));
	if (rc)
		return rc;
	memcpy(p->lineage, lineage, sizeof(lineage));
	rc = open_child(t, p, ktime, comm[0] ? comm : "(unknown)");
	if (rc)
		return rc;
	return log_descendant(t, &t->root, ktime, "attach", lineage, pid);
}

static int tree_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct er_tree *t = (struct er_tree *)s;
	struct proc_exp *root;
	int rc;

	t->sess = *sess;
	rc = bc_sink_begin(t->founder, sess);
	if (rc)
		return rc;
	/* the founder read the kernel's symbols once: descendants link its copy */
	if (sess->kallsyms && sess->profile_us) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/kallmodsyms", t->path);
		if (access(path, R_OK) == 0 && !(t->kallmodsyms = strdup(path)))
			return -ENOMEM;
		t->sess.kallsyms = t->kallmodsyms;
		t->sess.kallsyms_formatted = true;
	}
	t->root.pid = sess->root_pid;
	t->root.writer = t->founder;
	t->root.launch_exec_pending = !sess->attached;
	t->root_found = sess->root_pid != 0;
	/* the others attached: the agent's PROC_NAME of each comes first */
	for (size_t i = 0; i < sess->n_extra_pids; i++) {
		if (!sess->extra_pids[i] || find(t, sess->extra_pids[i]))
			continue;
		root = add(t, sess->extra_pids[i]);
		if (!root)
			return -ENOMEM;
		root->pending = true;
	}
	return 0;
}

static int tree_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct er_tree *t = (struct er_tree *)s;
	const struct bc_rec_head *h = ev->rec;
	struct proc_exp *p = find(t, h->pid);
	int rc;

	if (h->ktime > t->last_ktime)
		t->last_ktime = h->ktime;
	if (p && p->pending) {
		rc = adopt(t, p);
		if (rc)
			return rc;
		p = find(t, h->pid);
	}
	if (p && h->kind == BC_REC_PROC_EXEC) {
		rc = on_exec(t, p, (const struct bc_rec_exec *)h);
		if (rc)
			return rc;
		p = find(t, h->pid);
	}
	/* Unknown processes (their fork was lost) and LOST records go to the founder. */
	rc = bc_sink_event(p && p->writer ? p->writer : t->founder, ev);
	if (rc)
		return rc;
	if (p && h->kind == BC_REC_PROC_FORK)
		return on_fork(t, p, (const struct bc_rec_fork *)h);
	if (p && h->kind == BC_REC_PROC_EXIT && !p->exited) {
		p->exited = true;
		p->exit_code = ((const struct bc_rec_exit *)h)->exit_code;
		if (p->writer != t->founder) {
			rc = end_writer(p, h->ktime);
			if (rc)
				return rc;
		}
		/* kept a while for its late records, then its slot serves another */
		if (p != &t->root)
			return bc_pidtab_exited(&t->procs, h->pid);
	}
	return 0;
}

static int tree_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	struct er_tree *t = (struct er_tree *)s;
	struct proc_exp *p = find(t, m->pid);

	if (p && !p->writer)
		return 0;
	return bc_sink_mapping(p ? p->writer : t->founder, m);
}

static int tree_flush(struct bc_sink *s)
{
	struct er_tree *t = (struct er_tree *)s;
	int rc = bc_sink_flush(t->founder);

	for (size_t i = 0; i <= t->procs.n; i++) {
		struct proc_exp *p = i ? bc_pidtab_at(&t->procs, i - 1) : &t->root;

		if (p->writer && p->writer != t->founder) {
			int e = bc_sink_flush(p->writer);

			if (e && !rc)
				rc = e;
		}
	}
	return rc;
}

static int tree_end(struct bc_sink *s, const struct bc_session_end *end)
{
	struct er_tree *t = (struct er_tree *)s;
	int rc = 0;

	/* attached beside the founder and silent throughout: its experiment all the same */
	for (size_t i = 0; i < t->procs.n && !rc; i++) {
		struct proc_exp *p = bc_pidtab_at(&t->procs, i);

		if (p->pending)
			rc = adopt(t, p);
	}

	/* Descendants still running when recording stops end here too, without an exit. */
	for (size_t i = 0; i <= t->procs.n; i++) {
		struct proc_exp *p = i ? bc_pidtab_at(&t->procs, i - 1) : &t->root;

		if (p->writer && p->writer != t->founder) {
			int e = end_writer(p, end->end_ktime);

			if (e && !rc)
				rc = e;
		}
	}
	int e = bc_sink_end(t->founder, end);

	return rc ? rc : e;
}

static void tree_destroy(struct bc_sink *s)
{
	struct er_tree *t = (struct er_tree *)s;

	bc_pidtab_free(&t->procs);
	release_proc(&t->root, t);
	bc_sink_destroy(t->founder);
	free(t->kallmodsyms);
	free(t->path);
	free(t);
}

static const struct bc_sink_ops tree_ops = {
	.name = "er-tree",
	.begin = tree_begin,
	.event = tree_event,
	.mapping = tree_mapping,
	.end = tree_end,
	.flush = tree_flush,
	.destroy = tree_destroy,
	.whole_syscalls = true,
};

struct bc_sink *bc_er_tree_sink_new(const char *exp_path, char *err, size_t errlen)
{
	struct er_tree *t = calloc(1, sizeof(*t));

	if (!t || !(t->path = strdup(exp_path))) {
		snprintf(err, errlen, "%s: out of memory", exp_path);
		free(t);
		return NULL;
	}
	t->base.ops = &tree_ops;
	bc_pidtab_init(&t->procs, sizeof(struct proc_exp), release_proc, t);
	t->founder = bc_er_sink_new(exp_path, err, errlen);
	if (!t->founder) {
		free(t->path);
		free(t);
		return NULL;
	}
	return &t->base;
}
