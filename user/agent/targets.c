// SPDX-License-Identifier: MIT
/*
 * What a recording traces: the functions -u, --arg, --retval, -H and -s
 * name in the launched program or in each attached process, and the
 * processes -P names (checked, each once, those that ended dropped).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect.skel.h"

#include "bpfcollect/capture_plan.h"
#include "bpfcollect/libcprobes.h"
#include "bpfcollect/liveset.h"
#include "bpfcollect/procinfo.h"
#include "bpfcollect/record_opts.h"
#include "bpfcollect/recorder.h"
#include "bpfcollect/symbols.h"

/* Resolves -u, --arg and --retval in the target: the program exe, or process pid (> 0). */
int bc_recorder_resolve_functions(struct recorder *r, const char *exe, int pid, char *err,
				  size_t errlen)
{
	struct bc_record_opts *o = r->opts;
	const char *what = exe;
	char label[64];
	int rc;

	if (pid > 0) {
		snprintf(label, sizeof(label), "process %d", pid);
		what = label;
	}
	if (o->heap) {
		rc = bc_libc_probes_resolve(exe, pid, BC_LIBC_HEAP, &r->heap_funcs, err, errlen);
		if (rc < 0)
			return rc;
	}
	if (o->sync) {
		rc = bc_libc_probes_resolve(exe, pid, BC_LIBC_SYNC, &r->sync_funcs, err, errlen);
		if (rc < 0)
			return rc;
	}
	/*
	 * -p, -H, -s or -i alone record that, as collect does: functions are traced
	 * when -u names them.
	 */
	if ((o->profile_us || o->heap || o->sync || o->io) && o->n_specs == 0)
		return bc_capture_plan(exe, pid, o, &r->funcs, err, errlen);
	rc = bc_symbols_resolve(exe, pid, o->specs, o->n_specs, &r->funcs, err, errlen);
	if (rc == -ENOENT && o->n_specs == 0 && o->syscalls) {
		/* A stripped program: the syscalls asked for are still worth having. */
		if (!o->quiet)
			fprintf(stderr,
				"bpfcollect: %s has no function symbols: recording syscalls only\n",
				what);
		rc = 0;
	} else if (rc == -ENOENT && o->n_specs == 0) {
		snprintf(err, errlen,
			 "%s: no function symbols to trace (stripped?); name functions with -u, or "
			 "record syscalls with --syscalls",
			 what);
		return rc;
	}
	if (rc < 0)
		return rc;
	return bc_capture_plan(exe, pid, o, &r->funcs, err, errlen);
}

/*
 * -P: checks every id (a thread id stands for its process), refuses what
 * cannot be traced, resolves the functions in each process and fills
 * r->roots (owned, in order, each once).
 */
int bc_recorder_prepare_attach(struct recorder *r, uint32_t **roots_out, char *err, size_t errlen)
{
	struct bc_record_opts *o = r->opts;
	uint32_t *roots = calloc(o->n_attach_pids, sizeof(*roots));
	size_t n = 0;
	int rc;

	*roots_out = roots;
	if (!roots)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_attach_pids; i++) {
		struct bc_proc_info pi;
		bool dup = false;

		rc = bc_proc_inspect("/proc", o->attach_pids[i], &pi, err, errlen);
		if (rc < 0)
			return rc;
		if (pi.kthread) {
			snprintf(
				err, errlen,
				"process %u (%s) is a kernel thread: -P attaches to user processes",
				pi.tid, pi.comm);
			return -EINVAL;
		}
		if (pi.pid == (uint32_t)getpid()) {
			snprintf(err, errlen,
				 "process %u is bpfcollect itself: it cannot trace itself", pi.pid);
			return -EINVAL;
		}
		if (pi.tid != pi.pid && !o->quiet)
			fprintf(stderr,
				"bpfcollect: %u is a thread of process %u: attaching to %u\n",
				pi.tid, pi.pid, pi.pid);
		for (size_t k = 0; k < n; k++)
			dup |= roots[k] == pi.pid;
		if (dup)
			continue;
		rc = bc_recorder_resolve_functions(r, NULL, (int)pi.pid, err, errlen);
		if (rc == -ESRCH || (rc < 0 && bc_pid_finished("/proc", pi.pid))) {
			snprintf(err, errlen,
				 "process %u (%s) exited while bpfcollect attached to it; nothing "
				 "recorded",
				 pi.pid, pi.comm);
			return -ESRCH;
		}
		if (rc < 0)
			return rc;
		roots[n++] = pi.pid;
	}
	r->roots = roots;
	r->n_roots = n;
	r->root_pid = roots[0];
	r->attached = true;
	r->root_exec_seen = true; /* no launcher runs before the user's code */
	return 0;
}

/*
 * Drops the attached processes that ended before tracing began (their
 * pid may be reused: out of the BPF filter too). -ESRCH when none is left.
 */
int bc_recorder_drop_exited_roots(struct recorder *r, uint32_t *roots, char *err, size_t errlen)
{
	size_t kept = 0;
	uint32_t first = roots[0];

	for (size_t i = 0; i < r->n_roots; i++) {
		if (!bc_pid_finished("/proc", roots[i])) {
			roots[kept++] = roots[i];
			continue;
		}
		bpf_map_delete_elem(bpf_map__fd(r->skel->maps.traced_pids), &roots[i]);
		bc_live_remove(&r->live, roots[i]);
		if (!r->opts->quiet && r->n_roots > 1)
			fprintf(stderr,
				"bpfcollect: process %u exited while attaching: not traced\n",
				roots[i]);
	}
	r->n_roots = kept;
	if (!kept) {
		snprintf(err, errlen,
			 "process %u exited while bpfcollect attached to it; nothing recorded",
			 first);
		return -ESRCH;
	}
	r->root_pid = roots[0];
	return 0;
}
