// SPDX-License-Identifier: MIT
/*
 * `bpfcollect record`: launch a command held before exec, attach, release it,
 * and drain the ring buffer into the sinks until it and its descendants exit.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect.skel.h"

#include "bpfcollect/attach.h"
#include "bpfcollect/capture_plan.h"
#include "bpfcollect/libcprobes.h"
#include "bpfcollect/cli.h"
#include "bpfcollect/debuggers.h"
#include "bpfcollect/demangle.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/exec_image.h"
#include "bpfcollect/hostinfo.h"
#include "bpfcollect/launch.h"
#include "bpfcollect/liveset.h"
#include "bpfcollect/model.h"
#include "bpfcollect/probeable.h"
#include "bpfcollect/procinfo.h"
#include "bpfcollect/iofds.h"
#include "bpfcollect/procmaps.h"
#include "bpfcollect/mapset.h"
#include "bpfcollect/outmode.h"
#include "bpfcollect/outputs.h"
#include "bpfcollect/overview.h"
#include "bpfcollect/archive.h"
#include "bpfcollect/record_opts.h"
#include "bpfcollect/recorder.h"
#include "bpfcollect/go_binary.h"
#include "bpfcollect/return_sites.h"
#include "bpfcollect/symbols.h"
#include "bpfcollect/syscall_filter.h"
#include "bpfcollect/syscall_table.h"
#include "bpfcollect/syscalls.h"
#include "bpfcollect/uprobe_multi.h"

static bool verbose_libbpf;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose_libbpf && level != LIBBPF_WARN)
		return 0;
	if (!verbose_libbpf)
		return 0;
	bc_message_begin();
	return vfprintf(stderr, fmt, ap);
}

/* Root, or the capabilities BPF tracing needs (CAP_BPF + CAP_PERFMON, or CAP_SYS_ADMIN). */
static bool may_trace(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return false;
#define HAS_CAP(c) (data[(c) / 32].effective & (1U << ((c) % 32)))
	return HAS_CAP(21 /* CAP_SYS_ADMIN */) || (HAS_CAP(39 /* CAP_BPF */) && HAS_CAP(38));
#undef HAS_CAP
}

static void warn_unprobeable(const struct bc_func *f, const char *why)
{
	fprintf(stderr, "bpfcollect: warning: not tracing %s in %s: %s\n", f->name, f->object, why);
}

static int exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* -i with -P: a file the process had open before, as if opened now. */
static int add_inherited_fd(void *ctx, const struct bc_rec_io *rec)
{
	struct recorder *r = ctx;

	bc_recorder_on_record(r, (void *)rec, rec->h.size);
	return r->sink_error;
}

/* After -t in launch mode: the command runs on untraced; wait for it, passing signals on. */
static void wait_for_command(struct recorder *r, int sigfd)
{
	while (!r->root_reaped) {
		struct signalfd_siginfo si;
		int status;

		if (waitpid(r->root_pid, &status, WNOHANG) == (pid_t)r->root_pid) {
			r->root_reaped = true;
			r->root_status = status;
			break;
		}
		while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			if (si.ssi_signo != SIGCHLD)
				kill(r->root_pid, (int)si.ssi_signo);
		usleep(20000);
	}
}

static const char *root_label(const struct recorder *r)
{
	return r->attached ? "process" : r->opts->argv[0];
}

/* One `record`: its state across the steps new -> resolve -> prepare -> load -> begin ->
 * run -> finish -> free. */
struct record_run {
	struct bc_record_opts opts;
	struct recorder r;
	struct bc_outputs outputs;
	const char *exp_path;
	sigset_t old_mask;
	int sigfd;
	uint64_t start_ktime;
	uint32_t *attach_roots;
	char **attach_argv, *attach_argbuf;
	size_t n_probes;
	struct bc_host host;
	struct bc_session_end end;
	uint64_t bytes_written; /* by the end, the archives left out: BC_STATUS_NO_BYTES unknown */
	int exit_code;
	char err[PATH_MAX + 512], exe[PATH_MAX], cwd[PATH_MAX];
};

static void record_new(struct record_run *x)
{
	memset(x, 0, sizeof(*x));
	x->r.opts = &x->opts;
	x->r.child.release_fd = x->r.child.error_fd = -1;
	x->r.tracefs_fd = -1;
	x->r.detacher.sock = -1;
	x->exp_path = "";
	x->sigfd = -1;
	x->exit_code = 1;
	bc_functab_init(&x->r.funcs);
	bc_functab_init(&x->r.heap_funcs);
	bc_functab_init(&x->r.sync_funcs);
	bc_state_init(&x->r.state);
}

/* What to probe, before anything is created: a typo leaves no empty experiment. */
static int record_resolve(struct record_run *x)
{
	struct recorder *r = &x->r;
	struct bc_record_opts *o = &x->opts;
	char *err = x->err;
	size_t errlen = sizeof(x->err), resolved;
	int rc = 0;

	if (o->system_wide) {
		/* Every process: nothing launched, nothing to wait for but -t or a signal. */
		r->attached = true;
		r->root_exec_seen = true;
		if (o->n_specs || o->n_arg_specs || o->n_ret_specs)
			rc = bc_recorder_resolve_functions(r, NULL, 0, err, errlen);
	} else if (o->n_attach_pids) {
		rc = bc_recorder_prepare_attach(r, &x->attach_roots, err, errlen);
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
	} else {
		rc = bc_launch_find_program(o->argv[0], x->exe, sizeof(x->exe), err, errlen);
		if (rc == 0)
			rc = bc_recorder_resolve_functions(r, x->exe, 0, err, errlen);
	}
	if (rc < 0)
		return rc;
	resolved = r->funcs.n;
	rc = bc_functab_drop_unprobeable(&r->funcs, warn_unprobeable);
	if (rc >= 0) {
		rc = bc_functab_plan_go(&r->funcs, (enum bc_returns_mode)o->return_probes,
					warn_unprobeable, err, errlen);
		if (rc == -EPERM)
			return rc; /* Go code that cannot be traced safely: err says why */
	}
	if (rc >= 0)
		rc = bc_functab_plan_exits(&r->funcs, (enum bc_returns_mode)o->return_probes,
					   warn_unprobeable);
	/* -P: a debugger's breakpoints stay its own (a probe there took its place) */
	for (size_t i = 0; rc >= 0 && r->attached && i < r->n_roots; i++)
		rc = bc_functab_spare_breakpoints(&r->funcs, r->roots[i], warn_unprobeable);
	if (rc >= 0)
		rc = bc_functab_drop_unprobeable(&r->heap_funcs, warn_unprobeable);
	if (rc >= 0)
		rc = bc_functab_drop_unprobeable(&r->sync_funcs, warn_unprobeable);
	bc_libc_probes_number(BC_LIBC_HEAP, &r->heap_funcs);
	bc_libc_probes_number(BC_LIBC_SYNC, &r->sync_funcs);
	if (rc < 0) {
		snprintf(err, errlen, "cannot read the functions' code: %s", strerror(-rc));
		return rc;
	}
	if (r->funcs.n > o->max_probes) {
		snprintf(err, errlen,
			 "-u matches %zu functions, more than the limit of %u probes; name fewer "
			 "functions, or raise the limit with --max-probes=N",
			 r->funcs.n, o->max_probes);
		return -E2BIG;
	}
	if (resolved && r->funcs.n == 0) {
		snprintf(err, errlen,
			 "none of the %zu matching functions can be probed (see above); choose "
			 "others with -u",
			 resolved);
		return -ENOENT;
	}
	return 0;
}

/* Signals through a signalfd (the child gets the original mask back); the command, held. */
static int record_prepare(struct record_run *x)
{
	struct recorder *r = &x->r;
	sigset_t block;
	int rc;

	/*
	 * A reader that goes away (record -f text | head) is a write error the
	 * recording ends on, detaching in order, not a signal that kills the
	 * agent between two steps.
	 */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &x->old_mask);
	x->sigfd = signalfd(-1, &block, SFD_CLOEXEC | SFD_NONBLOCK);
	if (x->sigfd < 0) {
		snprintf(x->err, sizeof(x->err), "cannot create a signalfd: %s", strerror(errno));
		return -errno;
	}
	if (!r->attached && !x->opts.system_wide) {
		rc = bc_launch_prepare(x->exe, x->opts.argv, &x->old_mask, &r->child, x->err,
				       sizeof(x->err));
		if (rc < 0)
			return rc;
		r->root_pid = (uint32_t)r->child.pid;
		r->roots = &r->root_pid;
		r->n_roots = 1;
	}
	for (size_t i = 0; i < r->n_roots; i++)
		if (bc_live_add(&r->live, r->roots[i]) < 0) {
			snprintf(x->err, sizeof(x->err), "out of memory");
			return -ENOMEM;
		}
	return 0;
}

/* The BPF programs loaded and attached, sampling started, the roots in the filter. */
static int record_load(struct record_run *x)
{
	struct recorder *r = &x->r;
	int rc;

	r->exe = x->exe[0] ? x->exe : NULL;
	/* only when uprobes follow: function probes, -H/-s, the dynamic linker's hook */
	if (r->funcs.n || r->heap_funcs.n || r->sync_funcs.n ||
	    !(x->opts.system_wide || x->opts.kernel_exp))
		bc_uprobe_warm_start(&r->warm);
	/*
	 * -k, -a: the processes running before the probes go in, again once
	 * the process tracepoints are (bc_recorder_setup_bpf), and once every
	 * probe is (record_run): one that ends in between, after its first
	 * record, is still named as it was.
	 */
	bc_recorder_note_running(r);
	rc = bc_recorder_setup_bpf(r, x->err, sizeof(x->err));
	if (rc < 0)
		return rc;
	x->start_ktime = bc_now_ns(CLOCK_MONOTONIC);
	rc = bc_recorder_start_profile(r, x->err, sizeof(x->err));
	if (rc < 0)
		return rc;
	/* Every probe is in place: from here the roots' threads are traced. */
	rc = bc_recorder_trace_pids(r, x->err, sizeof(x->err));
	if (rc < 0 || !r->attached || x->opts.system_wide)
		return rc;
	rc = bc_recorder_drop_exited_roots(r, x->attach_roots, x->err, sizeof(x->err));
	if (rc < 0)
		return rc;
	return bc_proc_argv(r->root_pid, "(unknown)", &x->attach_argv, &x->attach_argbuf);
}

/* The outputs created and begun: nothing ran traced before, so they can come last. */
static int record_begin(struct record_run *x)
{
	static char *const system_argv[] = {"(system-wide)", NULL};
	struct bc_record_opts *o = &x->opts;
	struct recorder *r = &x->r;
	int rc;

	/* the bytes written are counted from here: the outputs' first ones too */
	bc_status_line_init(&r->status, STDERR_FILENO, x->start_ktime);
	rc = bc_outputs_open(&x->outputs, o, x->err, sizeof(x->err));
	if (rc < 0)
		return rc;
	r->sink = x->outputs.sink;
	x->exp_path = bc_outputs_name(&x->outputs);
	struct bc_session sess = {
		.argv = o->system_wide ? system_argv
			: r->attached  ? x->attach_argv
				       : o->argv,
		.root_pid = r->root_pid,
		.start_ktime = x->start_ktime,
		.options = o->options_text,
		.cwd = getcwd(x->cwd, sizeof(x->cwd)) ? x->cwd : "",
		.funcs = &r->funcs,
		.ringbuf_bytes = o->bufsize_mib << 20,
		.syscalls = o->syscalls,
		.no_follow = !o->follow,
		.profile_us = o->profile_us,
		.attached = r->attached,
		.extra_pids = r->attached ? r->roots + 1 : NULL,
		.n_extra_pids = r->attached && r->n_roots ? r->n_roots - 1 : 0,
		.kernel = o->kernel_exp,
		.system_wide = o->system_wide,
		.offcpu = o->offcpu,
		.heap = r->heap_funcs.n > 0,
		.sync = r->sync_funcs.n > 0,
		.sync_threshold_us = o->sync_threshold_us,
		.io = o->io,
	};
	sess.wall_offset_ns = (int64_t)(bc_now_ns(CLOCK_REALTIME) - bc_now_ns(CLOCK_MONOTONIC));
	/* what the sinks know of the machine and the process, they know from here */
	bc_host_read(&x->host);
	sess.host = &x->host;
	sess.libbpf = libbpf_version_string();
	sess.host_ip = bc_host_ipv4();
	/* kernel stacks are named from the symbols of the kernel that ran */
	sess.kallsyms = o->profile_us ? "/proc/kallsyms" : NULL;
	if (r->root_pid)
		bc_proc_ids(r->root_pid, &sess.ppid, &sess.pgrp, &sess.sid);
	rc = bc_state_begin(&r->state, &sess);
	if (rc < 0) {
		snprintf(x->err, sizeof(x->err), "out of memory");
		return rc;
	}
	sess.state = &r->state;
	rc = bc_sink_begin(r->sink, &sess);
	if (rc < 0) {
		snprintf(x->err, sizeof(x->err), "cannot write the experiment %s: %s", x->exp_path,
			 strerror(-rc));
		return rc;
	}
	rc = bc_recorder_name_roots(r, x->start_ktime);
	if (rc < 0) {
		snprintf(x->err, sizeof(x->err), "cannot write the experiment %s: %s", x->exp_path,
			 strerror(-rc));
		return rc;
	}
	if (o->duration_s > 0)
		r->stop_at_ns = bc_now_ns(CLOCK_MONOTONIC) + (uint64_t)(o->duration_s * 1e9);
	bc_recorder_status_begin(r, bc_outputs_on_terminal(&x->outputs));
	return 0;
}

/* What attached processes had before: their mappings, and (-i) their open files. */
static int seed_attached(struct record_run *x)
{
	struct recorder *r = &x->r;
	int rc;

	for (size_t i = 0; i < r->n_roots; i++) {
		rc = bc_procmaps_read("/proc", r->roots[i], x->start_ktime, bc_recorder_add_mapping,
				      r);
		if (rc < 0 && rc != -ESRCH) {
			snprintf(x->err, sizeof(x->err), "process %u: cannot read its mappings: %s",
				 r->roots[i], strerror(-rc));
			return rc;
		}
		rc = x->opts.io ? bc_iofds_seed("/proc", r->roots[i], x->start_ktime,
						add_inherited_fd, r)
				: 0;
		if (rc < 0 && rc != -ESRCH && !r->sink_error) {
			snprintf(x->err, sizeof(x->err),
				 "process %u: cannot read its open files: %s", r->roots[i],
				 strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* Tracing: attached processes are seeded, a launched one released; then the drain. */
static void record_run(struct record_run *x)
{
	struct recorder *r = &x->r;
	int rc;

	bc_recorder_note_running(r);
	if (!r->attached) {
		rc = bc_launch_release(&r->child, x->err, sizeof(x->err));
		if (rc < 0) {
			waitpid(r->child.pid, NULL, 0);
			r->child.pid = 0;
			r->root_reaped = true;
			bc_error("%s", x->err);
			x->exit_code = 127;
			return;
		}
	} else {
		rc = seed_attached(x);
		if (rc < 0) {
			bc_error("%s", x->err);
			r->sink_error = rc;
			return;
		}
		if (!x->opts.quiet && x->opts.system_wide)
			fprintf(stderr,
				"bpfcollect: tracing every process, %zu functions probed; Ctrl-C "
				"or -t stops\n",
				r->att.n_probes);
		else if (!x->opts.quiet)
			fprintf(stderr,
				"bpfcollect: attached to %zu process%s (%u...), %zu functions "
				"probed; Ctrl-C or -t detaches\n",
				r->n_roots, r->n_roots > 1 ? "es" : "", r->root_pid,
				r->att.n_probes);
		if (r->sink_error)
			return;
	}
	rc = bc_recorder_drain(r, x->sigfd);
	if (rc < 0 && !r->sink_error)
		bc_error("record: %s", strerror(-rc));
}

/* Detached first so nothing new arrives, then what is left, the losses and the end. */
/* On a terminal, where archiving is: it can take seconds for big libraries. */
static void archive_progress(void *arg, size_t done, size_t total, uint64_t bytes)
{
	(void)arg;
	if (done < total)
		fprintf(stderr, "\rbpfcollect: archiving %zu/%zu objects, %.1f MB\033[K", done + 1,
			total, (double)bytes / 1e6);
	else
		fprintf(stderr, "\r\033[K");
}

/*
 * Copies of the binaries, so the experiment outlives them (collect's -A
 * on), after detach: under -a/-k only what the data hits, bounded by
 * --archive-limit. A failure leaves the recording whole: archive retries.
 */
static void record_archive(struct record_run *x)
{
	struct bc_archive_opts ao = {
		.policy = x->opts.archive_all ? BC_ARCHIVE_ALL : BC_ARCHIVE_AUTO,
		.limit_bytes = x->opts.archive_limit,
		.progress = !x->opts.quiet && isatty(STDERR_FILENO) ? archive_progress : NULL,
		.io_path = bc_outputs_io(&x->outputs),
	};
	struct bc_archive_report arep = {0};
	size_t over = 0;

	if (bc_archive_experiment_opts(x->exp_path, &ao, &arep, x->err, sizeof(x->err)) < 0)
		bc_error("warning: %s; 'bpfcollect archive %s' retries", x->err, x->exp_path);
	over = arep.by_reason[BC_ARCHIVE_SKIP_CHANGED];
	/* replaced since mapped: perhaps by someone who wants another file copied */
	if (over)
		bc_error("warning: archives: %zu objects changed since they were mapped (modified, "
			 "or replaced by a link) were not copied; the first: %s",
			 over, arep.first_skipped[BC_ARCHIVE_SKIP_CHANGED]);
	over = arep.by_reason[BC_ARCHIVE_SKIP_LIMIT];
	if (!x->opts.quiet && (arep.hits_only || over)) {
		fprintf(stderr,
			"bpfcollect: archives: %zu objects (%zu copied, %zu linked, %zu there), "
			"%.1f MB",
			arep.copied + arep.linked + arep.present, arep.copied, arep.linked,
			arep.present, (double)arep.copied_bytes / 1e6);
		if (arep.hits_only)
			fprintf(stderr, "; %zu mapped but never hit, left out", arep.not_hit);
		if (over)
			fprintf(stderr, "; %zu over --archive-limit, left out", over);
		fputc('\n', stderr);
	}
	bc_archive_report_free(&arep);
}

/* Perf uprobes more than this take seconds to remove (one grace period each). */
#define SLOW_DETACH_LINKS 32

/*
 * Without uprobe_multi (6.1) each function's two perf uprobes go one grace
 * period at a time, under a lock of the kernel's: 1,000 functions took 33 s
 * to detach on 6.1 and 100 s here. When nothing traced runs on (the
 * launched command has ended), the detacher removes them in the background
 * and the recording ends at once; a process attached to (-P, -a) keeps
 * running through them, so there the recording waits, and says why.
 */
static bool detach_in_background(struct recorder *r)
{
	size_t n = r->att.n_links[0] + r->att.n_links[1];

	if (n <= SLOW_DETACH_LINKS || r->detacher.sock < 0)
		return false;
	if (r->attached || r->opts->system_wide || !r->root_reaped) {
		bc_error("note: removing %zu perf uprobes, one grace period each (no uprobe_multi "
			 "links): this takes a while",
			 n);
		return false;
	}
	return true;
}

static int record_finish(struct record_run *x)
{
	struct recorder *r = &x->r;
	int rc, cut_errno;

	x->n_probes = r->att.n_probes;
	bc_recorder_stop_profile(r);
	/* the detacher lets go; entries stop, returns detach, then entries: bc_detach_functions */
	r->detach_background = detach_in_background(r);
	if (!r->detach_background)
		bc_detacher_release(&r->detacher);
	bc_recorder_stop_entries(r);
	bc_detach_functions(&r->att);
	bc_recorder_unhook_ldso(r);
	bc_uprobe_warm_free(&r->warm);
	/*
	 * Only now, the agent's references all dropped, does the detacher begin:
	 * its are the last ones, and an agent still holding one when the
	 * detacher let go of the other would itself wait out that removal.
	 */
	if (r->detach_background)
		bc_detacher_leave(&r->detacher);
	collect_bpf__detach(r->skel);
	/* detached: what is left is bounded by the ring's size */
	while (bc_recorder_consume(r) > 0)
		;
	if (x->opts.syscalls && bc_recorder_flush_pending_syscalls(r) < 0 && !r->sink_error)
		r->sink_error = -EIO;
	bc_recorder_status_end(r);
	x->end = (struct bc_session_end){
		.end_ktime = bc_now_ns(CLOCK_MONOTONIC),
		.exit_status = r->root_reaped ? r->root_status : -1,
		.events = r->events,
		.bad_records = r->bad_records,
	};
	bc_recorder_read_lost(r, x->end.lost);
	rc = bc_recorder_emit_lost(r, x->end.end_ktime);
	if (rc < 0 && !r->sink_error)
		r->sink_error = rc;
	rc = bc_sink_end(r->sink, &x->end);
	/* what stdio still holds is the outputs' too: out before it is counted */
	for (size_t i = 0; i < x->outputs.n_files; i++)
		fflush(x->outputs.files[i].f);
	x->bytes_written = bc_status_line_bytes(&r->status);
	/*
	 * A file a full disk cut short took the records on, counting them (the
	 * rest of the recording went on): its own line says what it lacks.
	 */
	cut_errno = bc_outputs_say_cut(&x->outputs);
	/* a format of files of its own (rtl) has said which a full disk cut short */
	if (!r->sink_error && x->outputs.prefix[0] &&
	    (rc == -ENOSPC || rc == -EDQUOT || rc == -EFBIG)) {
		cut_errno = cut_errno ? cut_errno : rc;
		rc = 0;
	}
	if (r->sink_error || rc < 0) {
		int e = r->sink_error ? r->sink_error : rc;

		bc_error("cannot write %s%s: %s%s; the data written so far is kept, and %" PRIu64
			 " records after it are counted as unwritten",
			 x->outputs.exp_path[0] ? "the experiment " : "", x->exp_path, strerror(-e),
			 e == -ENOSPC  ? " (disk full)"
			 : e == -EPIPE ? " (its reader went away)"
				       : "",
			 r->unwritten + bc_er_unwritten_total());
		return e;
	}
	/* the experiment is whole even when a file beside it was cut short */
	if (x->opts.archive && x->outputs.exp_path[0])
		record_archive(x);
	return cut_errno;
}

/* The summary line, and a hint when the ring overflowed. */
static void record_summary(const struct record_run *x)
{
	struct bc_status_sample smp = {
		.elapsed_ns = x->end.end_ktime - x->start_ktime,
		.events = x->r.events,
		.procs = bc_recorder_procs(&x->r),
		.bytes = x->bytes_written,
	};
	char line[PATH_MAX + 1024];
	uint64_t lost = 0;

	if (x->opts.quiet)
		return;
	memcpy(smp.lost, x->end.lost, sizeof(smp.lost));
	for (int i = 0; i < BC_LOSS_NR; i++)
		lost += x->end.lost[i];
	bc_status_summary(line, sizeof(line), x->exp_path, &smp, x->n_probes);
	fprintf(stderr, "bpfcollect: %s%s\n", line, x->r.timed_out ? " (stopped by -t)" : "");
	if (lost)
		fprintf(stderr,
			"bpfcollect: events were lost: the ring buffer was full; try "
			"--bufsize=%u\n",
			x->opts.bufsize_mib * 4);
}

/* The command's status (a launch), or 0 for processes that were not ours. */
static int record_exit_status(struct record_run *x)
{
	struct recorder *r = &x->r;
	bool quiet = x->opts.quiet;

	if (r->attached) {
		for (size_t i = 0; i < r->n_roots && !quiet; i++)
			if (!bc_pid_finished("/proc", r->roots[i]))
				fprintf(stderr,
					"bpfcollect: process %u still runs, no longer traced\n",
					r->roots[i]);
		return 0;
	}
	if (x->exit_code == 127)
		return 127;
	if (r->timed_out) {
		if (!quiet && !r->root_reaped)
			fprintf(stderr,
				"bpfcollect: recording stopped after %gs; waiting for %s (pid %u), "
				"no longer traced\n",
				x->opts.duration_s, x->opts.argv[0], r->root_pid);
		wait_for_command(r, x->sigfd);
	}
	if (!r->root_reaped && r->stop_signal && !quiet)
		fprintf(stderr, "bpfcollect: %s (pid %" PRIu32 ") still runs, no longer traced\n",
			root_label(r), r->root_pid);
	if (r->root_reaped)
		return exit_code_of(r->root_status);
	return r->stop_signal ? 128 + r->stop_signal : 1;
}

static void record_free(struct record_run *x)
{
	struct recorder *r = &x->r;

	if (r->child.pid > 0 && !r->root_reaped && (r->child.release_fd >= 0))
		bc_launch_abort(&r->child);
	bc_recorder_stop_profile(r);
	bc_detacher_release(&r->detacher);
	bc_recorder_stop_entries(r);
	bc_detach_functions(&r->att);
	bc_recorder_unhook_ldso(r);
	bc_uprobe_warm_free(&r->warm);
	ring_buffer__free(r->ring);
	collect_bpf__destroy(r->skel);
	r->sink = NULL;
	if (bc_outputs_close(&x->outputs, x->err, sizeof(x->err)) < 0 && x->exit_code == 0) {
		bc_error("%s", x->err);
		x->exit_code = 1;
	}
	bc_functab_free(&r->funcs);
	bc_functab_free(&r->heap_funcs);
	bc_functab_free(&r->sync_funcs);
	bc_live_free(&r->live);
	bc_idmap_free(&r->seen);
	bc_recorder_free_running(r);
	bc_state_free(&r->state);
	bc_record_opts_free(&x->opts);
	free(x->attach_roots);
	free(x->attach_argv);
	free(x->attach_argbuf);
	if (x->sigfd >= 0)
		close(x->sigfd);
}

int bc_cmd_record(int argc, char **argv)
{
	struct record_run *x = malloc(sizeof(*x));
	int rc, exit_code;

	if (!x) {
		bc_error("out of memory");
		return 1;
	}
	record_new(x);
	rc = bc_record_parse_opts(argc, argv, &x->opts, x->err, sizeof(x->err));
	if (rc != 0) {
		if (rc > 0)
			bc_record_help(stdout);
		else
			bc_error("%s", x->err);
		x->exit_code = rc > 0 ? 0 : 2;
		goto out;
	}
	if (x->opts.out_mode)
		bc_out_mode_set(x->opts.out_mode);
	bc_demangle_set(!x->opts.no_demangle);
	if (bc_outputs_check(&x->opts, x->err, sizeof(x->err)) < 0) {
		bc_error("%s", x->err);
		x->exit_code = 2;
		goto out;
	}
	verbose_libbpf = x->opts.verbose;
	libbpf_set_print(libbpf_print);
	if (!may_trace()) {
		bc_error("record needs root (or CAP_BPF and CAP_PERFMON) to load BPF programs; run "
			 "it with sudo");
		goto out;
	}
	if (record_resolve(x) < 0 || record_prepare(x) < 0 || record_load(x) < 0 ||
	    record_begin(x) < 0) {
		bc_error("%s", x->err);
		goto out;
	}
	record_run(x);
	if (record_finish(x) < 0) {
		x->exit_code = 1;
		goto out;
	}
	record_summary(x);
	x->exit_code = record_exit_status(x);
out:
	record_free(x);
	exit_code = x->exit_code;
	free(x);
	return exit_code;
}
