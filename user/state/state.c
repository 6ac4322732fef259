// SPDX-License-Identifier: MIT
/* The processes the stream has named (see bpfcollect/state.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/state.h"

/* Where pid's last serial is kept; NULL when it has none and make is false (or no memory). */
static uint32_t *serial_of(struct bc_state *s, uint32_t pid, bool make)
{
	uint32_t **chunk, *v;

	if (pid >= BC_STATE_PID_LIMIT) {
		if (!make)
			return bc_idmap_find(&s->serials_beyond, pid);
		return bc_idmap_get_or_add(&s->serials_beyond, pid, 0, &v) ? NULL : v;
	}
	chunk = &s->serials[pid / BC_STATE_SERIAL_CHUNK];
	if (!*chunk && make)
		*chunk = calloc(BC_STATE_SERIAL_CHUNK, sizeof(**chunk));
	return *chunk ? &(*chunk)[pid % BC_STATE_SERIAL_CHUNK] : NULL;
}

/* A process forgotten: its strings freed, its serial kept for the pid's next one. */
static void release_proc(void *entry, void *ctx)
{
	struct bc_proc *p = entry;
	uint32_t *serial = serial_of(ctx, p->pid, true);

	if (serial)
		*serial = p->serial;
	free(p->args);
	free(p->exe);
}

void bc_state_init(struct bc_state *s)
{
	memset(s, 0, sizeof(*s));
	bc_pidtab_init(&s->procs, sizeof(struct bc_proc), release_proc, s);
}

void bc_state_free(struct bc_state *s)
{
	bc_pidtab_free(&s->procs);
	for (size_t i = 0; i < BC_STATE_PID_LIMIT / BC_STATE_SERIAL_CHUNK; i++)
		free(s->serials[i]);
	bc_idmap_free(&s->serials_beyond);
	bc_mapset_free(&s->maps);
	memset(s, 0, sizeof(*s));
}

static struct bc_proc *find(const struct bc_state *s, uint32_t pid)
{
	return bc_pidtab_find(&s->procs, pid);
}

const struct bc_proc *bc_state_proc(const struct bc_state *s, uint32_t pid)
{
	return s ? find(s, pid) : NULL;
}

/* A new process with pid: the next serial after the one that had it. NULL: no memory. */
static struct bc_proc *born(struct bc_state *s, uint32_t pid, uint64_t ktime)
{
	struct bc_proc *old = find(s, pid), *p;
	bool root = old && old->root;
	uint32_t serial, *last;

	bc_pidtab_remove(&s->procs, pid); /* its serial now in serials */
	last = serial_of(s, pid, false);
	serial = last ? *last + 1 : 1;
	p = bc_pidtab_add(&s->procs, pid);
	if (!p)
		return NULL;
	p->pid = pid;
	p->serial = serial;
	p->root = root;
	p->birth_ktime = ktime;
	return p;
}

static int set_args(struct bc_proc *p, const char *args, size_t len)
{
	char *copy = NULL;

	if (args && len && !(copy = malloc(len)))
		return -ENOMEM;
	if (copy)
		memcpy(copy, args, len);
	free(p->args);
	p->args = copy;
	p->args_len = copy ? len : 0;
	return 0;
}

static void set_comm(struct bc_proc *p, const char *comm)
{
	snprintf(p->comm, sizeof(p->comm), "%.*s", BC_COMM_LEN, comm);
}

int bc_state_begin(struct bc_state *s, const struct bc_session *sess)
{
	struct bc_proc *p;
	char *args;
	size_t len;
	int rc;

	if (!sess->root_pid)
		return 0;
	p = born(s, sess->root_pid, sess->start_ktime);
	if (!p)
		return -ENOMEM;
	p->root = true;
	p->ppid = (uint32_t)sess->ppid;
	p->pgrp = sess->pgrp;
	p->sid = sess->sid;
	rc = bc_argv_join(sess->argv, &args, &len);
	if (rc)
		return rc;
	p->args = args;
	p->args_len = len;
	return 0;
}

/* A fork: the child runs its parent's command line, in its group and session. */
static int on_fork(struct bc_state *s, const struct bc_rec_fork *f)
{
	struct bc_proc *p;
	const struct bc_proc *parent;

	if (!f->child_pid || f->child_pid == f->h.pid)
		return 0; /* not a child of this stream's: a damaged record */
	p = born(s, f->child_pid, f->h.ktime);
	if (!p)
		return -ENOMEM;
	parent = find(s, f->h.pid); /* after born(): procs may have moved */
	p->ppid = f->h.pid;
	set_comm(p, f->comm);
	if (!parent)
		return 0;
	p->pgrp = parent->pgrp;
	p->sid = parent->sid;
	return set_args(p, parent->args, parent->args_len);
}

static int on_exec(struct bc_proc *p, const struct bc_rec_exec *x)
{
	size_t len;
	const char *args = bc_exec_args(x, &len);
	char *exe = strndup(x->filename, x->filename_len);

	if (!exe)
		return -ENOMEM;
	free(p->exe);
	p->exe = exe;
	set_comm(p, x->comm);
	return set_args(p, args, len);
}

static int on_proc_name(struct bc_proc *p, const struct bc_rec_proc_name *n)
{
	size_t len;
	const char *args = bc_proc_name_args(n, &len);

	set_comm(p, n->comm);
	p->ppid = n->ppid;
	return args ? set_args(p, args, len) : 0;
}

int bc_state_mapping(struct bc_state *s, const struct bc_mapping *m)
{
	if (m->unmap) {
		bc_mapset_unmap(&s->maps, m->pid, m->start, m->end);
		return 0;
	}
	return bc_mapset_add(&s->maps, m) < 0 ? -ENOMEM : 0;
}

int bc_state_event(struct bc_state *s, const struct bc_rec_head *h)
{
	struct bc_proc *p;

	if (!h->pid || h->kind == BC_REC_LOST)
		return 0;
	/* a new image, a process gone, a child before its parent's copy: nothing mapped */
	if (h->kind == BC_REC_PROC_EXEC || h->kind == BC_REC_PROC_EXIT)
		bc_mapset_drop(&s->maps, h->pid);
	if (h->kind == BC_REC_PROC_FORK) {
		bc_mapset_drop(&s->maps, ((const struct bc_rec_fork *)h)->child_pid);
		return on_fork(s, (const struct bc_rec_fork *)h);
	}
	p = find(s, h->pid);
	/* a pid whose process exited, with no fork seen: another process has it */
	if (!p || (p->exited && h->kind != BC_REC_PROC_EXIT))
		p = born(s, h->pid, h->ktime);
	if (!p)
		return -ENOMEM;
	switch (h->kind) {
	case BC_REC_PROC_EXEC:
		return on_exec(p, (const struct bc_rec_exec *)h);
	case BC_REC_PROC_NAME:
		return on_proc_name(p, (const struct bc_rec_proc_name *)h);
	case BC_REC_PROC_EXIT:
		p->exit_code = ((const struct bc_rec_exit *)h)->exit_code;
		if (p->exited)
			return 0; /* its exit said twice: remembered once */
		p->exited = true;
		return p->root ? 0 : bc_pidtab_exited(&s->procs, h->pid);
	default:
		return 0;
	}
}

const char *bc_proc_name(const struct bc_proc *p)
{
	const char *slash;

	if (!p)
		return "?";
	if (p->comm[0])
		return p->comm;
	if (!p->args || !p->args_len || !p->args[0] || !memchr(p->args, 0, p->args_len))
		return "?";
	slash = strrchr(p->args, '/');
	return slash && slash[1] ? slash + 1 : p->args;
}
