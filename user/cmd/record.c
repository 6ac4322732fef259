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
#include "bpfcollect/experiment.h"
#include "bpfcollect/exec_image.h"
#include "bpfcollect/launch.h"
#include "bpfcollect/liveset.h"
#include "bpfcollect/model.h"
#include "bpfcollect/probeable.h"
#include "bpfcollect/procinfo.h"
#include "bpfcollect/iofds.h"
#include "bpfcollect/procmaps.h"
#include "bpfcollect/mapset.h"
#include "bpfcollect/outputs.h"
#include "bpfcollect/overview.h"
#include "bpfcollect/archive.h"
#include "bpfcollect/record_opts.h"
#include "bpfcollect/recorder.h"
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
	fprintf(stderr,
		"bpfcollect: warning: not tracing %s in %s: its first instruction has a %s, which "
		"uprobes cannot probe\n",
		f->name, f->object, why);
}

static int exit_code_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

/* Resolves -u, --arg and --retval in the target: the program exe, or process pid (> 0). */
static int resolve_functions(struct recorder *r, const char *exe, int pid, char *err, size_t errlen)
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
static int prepare_attach(struct recorder *r, uint32_t **roots_out, char *err, size_t errlen)
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
		rc = resolve_functions(r, NULL, (int)pi.pid, err, errlen);
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

/* -i with -P: a file the process had open before, as if opened now. */
static int add_inherited_fd(void *ctx, const struct bc_rec_io *rec)
{
	struct recorder *r = ctx;

	bc_recorder_on_record(r, (void *)rec, rec->h.size);
	return r->sink_error;
}

/* The initial map.xml of an attached process: what it has mapped already. */
static int add_initial_mapping(void *ctx, const struct bc_mapping *m)
{
	struct recorder *r = ctx;
	int rc = bc_mapset_add(&r->maps, m);

	return rc < 0 ? rc : bc_sink_mapping(r->sink, m);
}

/*
 * Drops the attached processes that ended before tracing began (their
 * pid may be reused: out of the BPF filter too). -ESRCH when none is left.
 */
static int drop_exited_roots(struct recorder *r, uint32_t *roots, char *err, size_t errlen)
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

int bc_cmd_record(int argc, char **argv)
{
	struct bc_record_opts opts = {0};
	struct recorder r = {.opts = &opts, .child = {.release_fd = -1, .error_fd = -1}};
	char err[PATH_MAX + 512] = "", exe[PATH_MAX], cwd[PATH_MAX];
	struct bc_outputs outputs = {0};
	const char *exp_path = "";
	sigset_t block, old_mask;
	int rc, sigfd = -1, exit_code = 1;
	uint32_t *attach_roots = NULL;
	char **attach_argv = NULL, *attach_argbuf = NULL;

	bc_functab_init(&r.funcs);
	bc_functab_init(&r.heap_funcs);
	bc_functab_init(&r.sync_funcs);
	rc = bc_record_parse_opts(argc, argv, &opts, err, sizeof(err));
	if (rc != 0) {
		if (rc > 0)
			bc_record_help(stdout);
		else
			bc_error("%s", err);
		bc_record_opts_free(&opts);
		return rc > 0 ? 0 : 2;
	}
	verbose_libbpf = opts.verbose;
	libbpf_set_print(libbpf_print);

	if (!may_trace()) {
		bc_error("record needs root (or CAP_BPF and CAP_PERFMON) to load BPF programs; run "
			 "it with sudo");
		goto out;
	}
	/* Resolve before creating anything, so a typo leaves no empty experiment. */
	if (opts.system_wide) {
		/* Every process: nothing launched, nothing to wait for but -t or a signal. */
		r.attached = true;
		r.root_exec_seen = true;
		rc = 0;
		if (opts.n_specs || opts.n_arg_specs || opts.n_ret_specs)
			rc = resolve_functions(&r, NULL, 0, err, sizeof(err));
	} else if (opts.n_attach_pids) {
		rc = prepare_attach(&r, &attach_roots, err, sizeof(err));
		if (rc == -ENOMEM)
			snprintf(err, sizeof(err), "out of memory");
	} else {
		rc = bc_launch_find_program(opts.argv[0], exe, sizeof(exe), err, sizeof(err));
		if (rc == 0)
			rc = resolve_functions(&r, exe, 0, err, sizeof(err));
	}
	if (rc < 0)
		goto fail;
	size_t resolved = r.funcs.n;

	rc = bc_functab_drop_unprobeable(&r.funcs, warn_unprobeable);
	if (rc >= 0)
		rc = bc_functab_drop_unprobeable(&r.heap_funcs, warn_unprobeable);
	if (rc >= 0)
		rc = bc_functab_drop_unprobeable(&r.sync_funcs, warn_unprobeable);
	bc_libc_probes_number(BC_LIBC_HEAP, &r.heap_funcs);
	bc_libc_probes_number(BC_LIBC_SYNC, &r.sync_funcs);
	if (rc < 0) {
		snprintf(err, sizeof(err), "cannot read the functions' code: %s", strerror(-rc));
		goto fail;
	}
	if (r.funcs.n > opts.max_probes) {
		snprintf(err, sizeof(err),
			 "-u matches %zu functions, more than the limit of %u probes; name fewer "
			 "functions, or raise the limit with --max-probes=N",
			 r.funcs.n, opts.max_probes);
		goto fail;
	}
	if (resolved && r.funcs.n == 0) {
		snprintf(err, sizeof(err),
			 "none of the %zu matching functions can be probed (see above); choose "
			 "others with -u",
			 resolved);
		goto fail;
	}

	/* Signals arrive through a signalfd; the child gets the original mask back. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	sigfd = signalfd(-1, &block, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sigfd < 0) {
		snprintf(err, sizeof(err), "cannot create a signalfd: %s", strerror(errno));
		goto fail;
	}
	if (!r.attached && !opts.system_wide) {
		rc = bc_launch_prepare(exe, opts.argv, &old_mask, &r.child, err, sizeof(err));
		if (rc < 0)
			goto fail;
		r.root_pid = (uint32_t)r.child.pid;
		r.roots = &r.root_pid;
		r.n_roots = 1;
	}
	for (size_t i = 0; i < r.n_roots; i++)
		if (bc_live_add(&r.live, r.roots[i]) < 0)
			goto fail;
	rc = bc_recorder_setup_bpf(&r, err, sizeof(err));
	if (rc < 0)
		goto fail;
	uint64_t start_ktime = bc_now_ns(CLOCK_MONOTONIC);

	rc = bc_recorder_start_profile(&r, err, sizeof(err));
	if (rc < 0)
		goto fail;
	/* Every probe is in place: from here the roots' threads are traced. */
	rc = bc_recorder_trace_pids(&r, err, sizeof(err));
	if (rc < 0)
		goto fail;
	if (r.attached && !opts.system_wide) {
		rc = drop_exited_roots(&r, attach_roots, err, sizeof(err));
		if (rc < 0)
			goto fail;
		rc = bc_proc_argv(r.root_pid, "(unknown)", &attach_argv, &attach_argbuf);
		if (rc < 0)
			goto fail;
	}
	/* Nothing runs traced before the release: the outputs can come last. */
	rc = bc_outputs_open(&outputs, &opts, err, sizeof(err));
	if (rc < 0)
		goto fail;
	r.sink = outputs.sink;
	exp_path = bc_outputs_name(&outputs);

	static char *const system_argv[] = {"(system-wide)", NULL};
	struct bc_session sess = {
		.argv = opts.system_wide ? system_argv
			: r.attached	 ? attach_argv
					 : opts.argv,
		.root_pid = r.root_pid,
		.start_ktime = start_ktime,
		.options = opts.options_text,
		.cwd = getcwd(cwd, sizeof(cwd)) ? cwd : "",
		.funcs = &r.funcs,
		.ringbuf_bytes = opts.bufsize_mib << 20,
		.syscalls = opts.syscalls,
		.no_follow = !opts.follow,
		.profile_us = opts.profile_us,
		.attached = r.attached,
		.extra_pids = r.attached ? r.roots + 1 : NULL,
		.n_extra_pids = r.attached && r.n_roots ? r.n_roots - 1 : 0,
		.kernel = opts.kernel_exp,
		.system_wide = opts.system_wide,
		.offcpu = opts.offcpu,
		.heap = r.heap_funcs.n > 0,
		.sync = r.sync_funcs.n > 0,
		.sync_threshold_us = opts.sync_threshold_us,
		.io = opts.io,
	};
	sess.wall_offset_ns = (int64_t)(bc_now_ns(CLOCK_REALTIME) - bc_now_ns(CLOCK_MONOTONIC));
	rc = bc_sink_begin(r.sink, &sess);
	if (rc < 0) {
		snprintf(err, sizeof(err), "cannot write the experiment %s: %s", exp_path,
			 strerror(-rc));
		goto fail;
	}
	if (opts.duration_s > 0)
		r.stop_at_ns = bc_now_ns(CLOCK_MONOTONIC) + (uint64_t)(opts.duration_s * 1e9);
	r.status_line = !opts.quiet && isatty(STDERR_FILENO);
	if (r.attached) {
		for (size_t i = 0; i < r.n_roots; i++) {
			rc = bc_procmaps_read("/proc", r.roots[i], start_ktime, add_initial_mapping,
					      &r);
			if (rc < 0 && rc != -ESRCH) {
				snprintf(err, sizeof(err),
					 "process %u: cannot read its mappings: %s", r.roots[i],
					 strerror(-rc));
				r.sink_error = rc;
				break;
			}
			rc = opts.io ? bc_iofds_seed("/proc", r.roots[i], start_ktime,
						     add_inherited_fd, &r)
				     : 0;
			if (rc < 0 && rc != -ESRCH && !r.sink_error) {
				snprintf(err, sizeof(err),
					 "process %u: cannot read its open files: %s", r.roots[i],
					 strerror(-rc));
				r.sink_error = rc;
				break;
			}
		}
		if (!opts.quiet && opts.system_wide)
			fprintf(stderr,
				"bpfcollect: tracing every process, %zu functions probed; Ctrl-C "
				"or -t stops\n",
				r.att.n_probes);
		else if (!opts.quiet)
			fprintf(stderr,
				"bpfcollect: attached to %zu process%s (%u...), %zu functions "
				"probed; Ctrl-C or -t detaches\n",
				r.n_roots, r.n_roots > 1 ? "es" : "", r.root_pid, r.att.n_probes);
		rc = r.sink_error ? r.sink_error : bc_recorder_drain(&r, sigfd);
		if (rc < 0 && !r.sink_error)
			bc_error("record: %s", strerror(-rc));
	} else {
		rc = bc_launch_release(&r.child, err, sizeof(err));
		if (rc < 0) {
			waitpid(r.child.pid, NULL, 0);
			r.child.pid = 0;
			r.root_reaped = true;
			bc_error("%s", err);
			exit_code = 127;
		} else {
			rc = bc_recorder_drain(&r, sigfd);
			if (rc < 0)
				bc_error("record: %s", strerror(-rc));
		}
	}

	/* Detach first so nothing new arrives, then take what is left. */
	size_t n_probes = r.att.n_probes;

	bc_recorder_stop_profile(&r);
	bc_detach_functions(&r.att);
	collect_bpf__detach(r.skel);
	ring_buffer__consume(r.ring);
	if (r.status_line)
		fprintf(stderr, "\r\033[K");

	struct bc_session_end end = {
		.end_ktime = bc_now_ns(CLOCK_MONOTONIC),
		.exit_status = r.root_reaped ? r.root_status : -1,
		.events = r.events,
		.bad_records = r.bad_records,
	};
	bc_recorder_read_lost(&r, end.lost);
	rc = bc_recorder_emit_lost(&r, end.end_ktime);
	if (rc < 0 && !r.sink_error)
		r.sink_error = rc;
	rc = bc_sink_end(r.sink, &end);
	if (r.sink_error || rc < 0) {
		int e = r.sink_error ? r.sink_error : rc;

		bc_error("cannot write the experiment %s: %s%s; the data written so far is kept",
			 exp_path, strerror(-e), e == -ENOSPC ? " (disk full)" : "");
		exit_code = 1;
		goto out;
	}
	/* Copies of the binaries, so the experiment outlives them (collect's -A on). */
	if (opts.archive && outputs.exp_path[0]) {
		struct bc_archive_report arep = {0};

		if (bc_archive_experiment(exp_path, &arep, err, sizeof(err)) < 0)
			bc_error("warning: %s; 'bpfcollect archive %s' retries", err, exp_path);
		bc_archive_report_free(&arep);
	}
	if (!opts.quiet) {
		uint64_t lost = 0;

		for (int i = 0; i < BC_LOSS_NR; i++)
			lost += end.lost[i];

		fprintf(stderr,
			"bpfcollect: %s: %" PRIu64 " events, %" PRIu64
			" lost, %zu functions probed%s\n",
			exp_path, r.events, lost, n_probes, r.timed_out ? " (stopped by -t)" : "");
		if (lost)
			fprintf(stderr,
				"bpfcollect: events were lost: the ring buffer was full; try "
				"--bufsize=%u\n",
				opts.bufsize_mib * 4);
	}
	if (r.attached) {
		/* Processes we attached to are not ours: their end is not our status. */
		exit_code = 0;
		for (size_t i = 0; i < r.n_roots && !opts.quiet; i++)
			if (!bc_pid_finished("/proc", r.roots[i]))
				fprintf(stderr,
					"bpfcollect: process %u still runs, no longer traced\n",
					r.roots[i]);
		goto out;
	}
	if (r.timed_out && exit_code != 127) {
		if (!opts.quiet && !r.root_reaped)
			fprintf(stderr,
				"bpfcollect: recording stopped after %gs; waiting for %s (pid %u), "
				"no longer traced\n",
				opts.duration_s, opts.argv[0], r.root_pid);
		wait_for_command(&r, sigfd);
	}
	if (exit_code != 127) {
		if (r.root_reaped)
			exit_code = exit_code_of(r.root_status);
		else if (r.stop_signal)
			exit_code = 128 + r.stop_signal;
		else
			exit_code = 1;
	}
	if (!r.root_reaped && r.stop_signal && !opts.quiet)
		fprintf(stderr, "bpfcollect: %s (pid %" PRIu32 ") still runs, no longer traced\n",
			root_label(&r), r.root_pid);
	goto out;

fail:
	bc_error("%s", err);
out:
	if (r.child.pid > 0 && !r.root_reaped && (r.child.release_fd >= 0))
		bc_launch_abort(&r.child);
	bc_recorder_stop_profile(&r);
	bc_detach_functions(&r.att);
	ring_buffer__free(r.ring);
	collect_bpf__destroy(r.skel);
	r.sink = NULL;
	if (bc_outputs_close(&outputs) < 0 && exit_code == 0) {
		bc_error("cannot write %s: %s", exp_path, strerror(errno));
		exit_code = 1;
	}
	bc_mapset_free(&r.maps);
	bc_functab_free(&r.funcs);
	bc_functab_free(&r.heap_funcs);
	bc_functab_free(&r.sync_funcs);
	bc_live_free(&r.live);
	bc_record_opts_free(&opts);
	free(attach_roots);
	free(attach_argv);
	free(attach_argbuf);
	if (sigfd >= 0)
		close(sigfd);
	return exit_code;
}
