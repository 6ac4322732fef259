// SPDX-License-Identifier: MIT
/*
 * /proc turned into records (see bc_recorder_introduce in
 * bpfcollect/recorder.h): the agent, not the sinks, reads the processes
 * that were running before recording began, so every sink is a function
 * of the stream alone and a replay gives it the same stream.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/procinfo.h"
#include "bpfcollect/procmaps.h"
#include "bpfcollect/recorder.h"

/* A PROC_NAME record and the argv that follows it. */
struct named {
	struct bc_rec_proc_name n;
	struct bc_rec_exec_args a;
};

int bc_recorder_add_mapping(void *ctx, const struct bc_mapping *m)
{
	struct recorder *r = ctx;
	int rc = bc_state_mapping(&r->state, m);

	return rc < 0 ? rc : bc_sink_mapping(r->sink, m);
}

/* Whether pid is new to the stream (and from now on, known); -ENOMEM. */
static int first_sight(struct recorder *r, uint32_t pid)
{
	uint32_t *v;
	int rc = bc_idmap_get_or_add(&r->seen, pid, 0, &v);

	if (rc < 0)
		return rc;
	if (*v)
		return 0;
	*v = 1;
	return 1;
}

/* Its argv from /proc/PID/cmdline into a, NUL-separated, cut at BC_EXEC_ARGS_MAX. */
static void read_args(uint32_t pid, struct bc_rec_exec_args *a)
{
	char path[64];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	f = fopen(path, "re");
	if (f) {
		n = fread(a->args, 1, sizeof(a->args), f);
		a->truncated = n == sizeof(a->args) && fgetc(f) != EOF;
		fclose(f);
	}
	a->args_len = (uint32_t)n;
}

/* Its PROC_NAME record into the stream; 1 when it is a kernel thread, 0, or -errno. */
static int name_process(struct recorder *r, uint32_t pid, uint64_t ktime)
{
	struct named rec = {.n.h = {.size = sizeof(rec),
				    .kind = BC_REC_PROC_NAME,
				    .pid = pid,
				    .tid = pid,
				    .ktime = ktime}};
	struct bc_proc_info pi;
	int rc;

	if (bc_proc_inspect("/proc", pid, &pi, NULL, 0) < 0) {
		/* gone already: as it was when tracing began, or its exit record names it */
		uint32_t *i = bc_idmap_find(&r->at_start_by_pid, pid);

		if (!i || !*i)
			return -ESRCH;
		pi = r->at_start[*i - 1];
	}
	memcpy(rec.n.comm, pi.comm, sizeof(rec.n.comm));
	rec.n.ppid = pi.ppid;
	rec.n.flags = pi.kthread ? BC_PROC_KTHREAD : 0;
	if (!pi.kthread)
		read_args(pid, &rec.a);
	rc = bc_recorder_on_record(r, &rec, sizeof(rec));
	return rc < 0 ? rc : pi.kthread;
}

int bc_recorder_name_roots(struct recorder *r, uint64_t ktime)
{
	int rc = 0;

	if (r->opts->kernel_exp || r->opts->system_wide)
		return 0; /* the kernel tree's processes are introduced at their first record */
	for (size_t i = 1; i < r->n_roots && rc >= 0; i++) {
		rc = name_process(r, r->roots[i], ktime);
		if (rc == -ESRCH)
			rc = 0;
	}
	return rc < 0 ? rc : 0;
}

static int introduce(struct recorder *r, const struct bc_rec_head *h)
{
	int rc = name_process(r, h->pid, h->ktime);

	if (rc == -ESRCH)
		return 0;
	if (rc != 0)
		return rc < 0 ? rc : 0; /* a kernel thread maps nothing */
	/* what it had mapped before: a later subexperiment of it starts with these */
	rc = bc_procmaps_read("/proc", h->pid, h->ktime, bc_recorder_add_mapping, r);
	return rc == -ESRCH || rc == -ENOENT || rc == -EACCES ? 0 : rc;
}

void bc_recorder_note_running(struct recorder *r)
{
	struct dirent *de;
	size_t cap = r->n_at_start;
	DIR *d;

	if (!r->opts->kernel_exp)
		return;
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		struct bc_proc_info pi;
		uint32_t *v;
		void *grown;

		if (!isdigit((unsigned char)de->d_name[0]) ||
		    bc_proc_inspect("/proc", (int)strtol(de->d_name, NULL, 10), &pi, NULL, 0) < 0)
			continue;
		/* noted before: as it is now (its pid may be another process's by now) */
		v = bc_idmap_find(&r->at_start_by_pid, pi.pid);
		if (v && *v) {
			r->at_start[*v - 1] = pi;
			continue;
		}
		if (r->n_at_start == cap) {
			grown = bc_grow_array(r->at_start, &cap, r->n_at_start + 1,
					      sizeof(*r->at_start));
			if (!grown)
				break;
			r->at_start = grown;
		}
		if (bc_idmap_get_or_add(&r->at_start_by_pid, pi.pid, 0, &v) < 0)
			break;
		r->at_start[r->n_at_start++] = pi;
		*v = (uint32_t)r->n_at_start;
	}
	if (d)
		closedir(d);
}

void bc_recorder_free_running(struct recorder *r)
{
	free(r->at_start);
	r->at_start = NULL;
	r->n_at_start = 0;
	bc_idmap_free(&r->at_start_by_pid);
}

int bc_recorder_introduce(struct recorder *r, const struct bc_rec_head *h)
{
	int rc;

	if (!r->opts->kernel_exp || h->kind == BC_REC_LOST || h->kind == BC_REC_PROC_NAME ||
	    !h->pid)
		return 0;
	/* a process born while recording is named by its fork; the launched one by its exec */
	if (h->kind == BC_REC_PROC_FORK) {
		rc = first_sight(r, ((const struct bc_rec_fork *)h)->child_pid);
		if (rc < 0)
			return rc;
	}
	rc = first_sight(r, h->pid);
	if (rc <= 0)
		return rc;
	if (!r->attached && !r->opts->system_wide && h->pid == r->root_pid)
		return 0;
	return introduce(r, h);
}
