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
#include "bpfcollect/cli.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/exec_image.h"
#include "bpfcollect/launch.h"
#include "bpfcollect/liveset.h"
#include "bpfcollect/model.h"
#include "bpfcollect/probeable.h"
#include "bpfcollect/mapset.h"
#include "bpfcollect/outputs.h"
#include "bpfcollect/overview.h"
#include "bpfcollect/archive.h"
#include "bpfcollect/record_opts.h"
#include "bpfcollect/symbols.h"
#include "bpfcollect/syscall_filter.h"
#include "bpfcollect/syscall_table.h"
#include "bpfcollect/syscalls.h"
#include "bpfcollect/uprobe_multi.h"

#define DRAIN_INTERVAL_MS 100
#define STOP_GRACE_NS	  (2ULL * 1000000000ULL)

struct recorder {
	struct bc_record_opts *opts;
	struct collect_bpf *skel;
	struct bc_sink *sink;
	struct bc_functab funcs;
	struct bc_attachment att;
	struct ring_buffer *ring;
	struct bc_mapset maps; /* executable mappings of every traced process */
	struct bc_live_set live;
	struct bc_child child;
	uint32_t root_pid;
	int stop_signal;     /* the signal that ended recording, 0 if none */
	bool root_exec_seen; /* the launch exec has come through the ring */
	bool root_reaped;
	int root_status;
	int sink_error;
	uint64_t events, bad_records;
	bool status_line;
};

static bool verbose_libbpf;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose_libbpf && level != LIBBPF_WARN)
		return 0;
	if (!verbose_libbpf)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
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

static bool is_execve(const struct bc_event *ev)
{
	uint32_t nr;

	if (ev->rec->kind == BC_REC_SYS_ENTER)
		nr = ((const struct bc_rec_sys_enter *)ev->rec)->nr;
	else if (ev->rec->kind == BC_REC_SYS_EXIT)
		nr = ((const struct bc_rec_sys_exit *)ev->rec)->nr;
	else
		return false;
	return nr == 59 /* execve */ || nr == 322 /* execveat */;
}

/* Mapping records become map.xml events (through the sink's mapping op), not records. */
static int handle_mapping(struct recorder *r, const struct bc_event *ev)
{
	char path[BC_MMAP_PATH_MAX + BC_MMAP_DEPTH + 2];
	struct bc_mapping m;
	int rc;

	if (ev->rec->kind == BC_REC_MUNMAP) {
		const struct bc_rec_munmap *u = (const void *)ev->rec;

		m = (struct bc_mapping){.pid = u->h.pid,
					.ktime = u->h.ktime,
					.start = u->start,
					.end = u->start + u->len,
					.unmap = true};
		bc_mapset_unmap(&r->maps, m.pid, m.start, m.end);
	} else {
		if (bc_mapping_from_record((const void *)ev->rec, path, sizeof(path), &m) < 0)
			return 0;
		rc = bc_mapset_add(&r->maps, &m);
		if (rc < 0)
			goto fail;
	}
	rc = bc_sink_mapping(r->sink, &m);
	if (rc >= 0)
		return 0;
fail:
	r->sink_error = rc;
	return rc;
}

/* The image an exec mapped (not through mmap syscalls), into the new image's map.xml. */
static int exec_mappings(struct recorder *r, const struct bc_rec_exec *x)
{
	struct bc_exec_maps em;
	char file[BC_PATH_LEN + 1], self[64];
	int rc;

	memcpy(file, x->filename, x->filename_len);
	file[x->filename_len] = 0;
	/* A relative name is relative to the process's cwd: ask it while it runs. */
	if (file[0] != '/') {
		snprintf(self, sizeof(self), "/proc/%u/exe", x->h.pid);
		ssize_t n = readlink(self, file, sizeof(file) - 1);

		if (n <= 0)
			return 0;
		file[n] = 0;
	}
	if (!x->code_start ||
	    bc_exec_image_maps(file, x->code_start, x->interp_base, x->h.pid, x->h.ktime, &em) < 0)
		return 0;
	for (size_t i = 0; i < em.n; i++) {
		rc = bc_mapset_add(&r->maps, &em.m[i]);
		if (!rc)
			rc = bc_sink_mapping(r->sink, &em.m[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int handle_record(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;
	struct bc_event ev;
	int rc;

	if (bc_decode(data, size, &r->funcs, &ev) < 0) {
		r->bad_records++;
		return 0;
	}
	/*
	 * Before its exec the launched child runs our launcher (waiting on the
	 * release pipe, restoring its signal mask): not the user's program.
	 * Its execve call is where the trace starts.
	 */
	if (ev.rec->kind == BC_REC_MMAP || ev.rec->kind == BC_REC_MUNMAP) {
		r->events++;
		return handle_mapping(r, &ev);
	}
	if (ev.rec->pid == r->root_pid && !r->root_exec_seen && ev.rec->kind != BC_REC_PROC_EXEC &&
	    !is_execve(&ev))
		return 0;
	r->events++;
	switch (ev.rec->kind) {
	case BC_REC_PROC_FORK:
		if (r->opts->follow)
			bc_live_add(&r->live, ((const struct bc_rec_fork *)ev.rec)->child_pid);
		break;
	case BC_REC_PROC_EXIT:
		bc_live_remove(&r->live, ev.rec->pid);
		break;
	default:
		break;
	}
	rc = bc_sink_event(r->sink, &ev);
	if (rc < 0) {
		r->sink_error = rc;
		return rc;
	}
	/* A fork child starts with its parent's mappings; an exec with none. */
	switch (ev.rec->kind) {
	case BC_REC_PROC_FORK:
		if (r->opts->follow)
			rc = bc_mapset_fork(&r->maps, ev.rec->pid,
					    ((const struct bc_rec_fork *)ev.rec)->child_pid,
					    ev.rec->ktime, r->sink);
		break;
	case BC_REC_PROC_EXEC:
		bc_mapset_drop(&r->maps, ev.rec->pid);
		rc = exec_mappings(r, (const struct bc_rec_exec *)ev.rec);
		if (ev.rec->pid == r->root_pid)
			r->root_exec_seen = true;
		break;
	case BC_REC_PROC_EXIT:
		bc_mapset_drop(&r->maps, ev.rec->pid);
		break;
	default:
		break;
	}
	if (rc < 0)
		r->sink_error = rc;
	return rc;
}

static void read_lost(struct recorder *r, uint64_t lost[BC_LOSS_NR])
{
	int ncpu = libbpf_num_possible_cpus();
	int fd = bpf_map__fd(r->skel->maps.lost_events);
	uint64_t *vals;

	memset(lost, 0, sizeof(uint64_t) * BC_LOSS_NR);
	if (ncpu <= 0)
		return;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return;
	for (uint32_t k = 0; k < BC_LOSS_NR; k++) {
		if (bpf_map_lookup_elem(fd, &k, vals) < 0)
			continue;
		for (int c = 0; c < ncpu; c++)
			lost[k] += vals[c];
	}
	free(vals);
}

/*
 * Writes one LOST record per CPU and class that lost anything, so every
 * format can show the losses where they belong (PRF ErrRec, ...), not only
 * the experiment's log.
 */
static int emit_lost_records(struct recorder *r, uint64_t ktime)
{
	int ncpu = libbpf_num_possible_cpus();
	int fd = bpf_map__fd(r->skel->maps.lost_events);
	uint64_t *vals;
	int rc = 0;

	if (ncpu <= 0)
		return 0;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (uint32_t k = 0; k < BC_LOSS_NR && rc == 0; k++) {
		if (bpf_map_lookup_elem(fd, &k, vals) < 0)
			continue;
		for (int c = 0; c < ncpu && rc == 0; c++) {
			struct bc_rec_lost rec = {
				.h = {.size = sizeof(rec),
				      .kind = BC_REC_LOST,
				      .pid = r->root_pid,
				      .ktime = ktime},
				.loss_class = k,
				.cpu = (uint32_t)c,
				.count = vals[c],
			};
			struct bc_event ev;

			if (!vals[c] || bc_decode(&rec, sizeof(rec), &r->funcs, &ev) < 0)
				continue;
			rc = bc_sink_event(r->sink, &ev);
		}
	}
	free(vals);
	return rc;
}

static void print_status(struct recorder *r, uint64_t *last_events, uint64_t *last_ns)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), lost[BC_LOSS_NR], total_lost = 0;
	double secs = (double)(now - *last_ns) / 1e9;

	if (!r->status_line || secs < 1.0)
		return;
	read_lost(r, lost);
	for (int i = 0; i < BC_LOSS_NR; i++)
		total_lost += lost[i];
	fprintf(stderr, "\r\033[Kbpfcollect: %" PRIu64 " events, %.0f/s, %" PRIu64 " lost",
		r->events, (double)(r->events - *last_events) / secs, total_lost);
	*last_events = r->events;
	*last_ns = now;
}

/* An overview sample of every process being waited for (their last one comes at exit). */
static void sample_usage(struct recorder *r)
{
	for (size_t i = 0; i < r->live.n; i++) {
		struct bc_usage u;

		if (bc_usage_read((pid_t)r->live.pids[i], &u) == 0)
			bc_sink_usage(r->sink, r->live.pids[i], &u);
	}
}

/* Waits for CMD and its descendants, draining the ring on a timer. */
static int drain_loop(struct recorder *r, int sigfd)
{
	int epfd, ring_fd = bpf_map__fd(r->skel->maps.events);
	struct epoll_event ev = {0}, evs[4];
	uint64_t stop_deadline = 0, last_events = 0, last_status = now_ns(CLOCK_MONOTONIC);
	uint64_t next_sample = last_status + (uint64_t)r->opts->sample_ms * 1000000ULL;
	int rc = 0;

	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		return -errno;
	/*
	 * Edge-triggered: the ring only signals when BPF forces a wakeup at
	 * its fill level. Level-triggered polling would return at once while
	 * any record is pending and spin under steady traffic.
	 */
	ev.events = EPOLLIN | EPOLLET;
	ev.data.fd = ring_fd;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, ring_fd, &ev) < 0)
		goto fail;
	ev.events = EPOLLIN;
	ev.data.fd = sigfd;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, sigfd, &ev) < 0)
		goto fail;

	for (;;) {
		int n = epoll_wait(epfd, evs, 4, DRAIN_INTERVAL_MS);

		if (n < 0 && errno != EINTR)
			goto fail;
		if (ring_buffer__consume(r->ring) < 0 && r->sink_error)
			break;
		for (int i = 0; i < n; i++) {
			struct signalfd_siginfo si;

			if (evs[i].data.fd != sigfd)
				continue;
			while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGCHLD)
					continue;
				if (stop_deadline) /* second signal: stop now */
					goto out;
				/* Pass it on like a shell would, then finish the output. */
				r->stop_signal = (int)si.ssi_signo;
				if (!r->root_reaped)
					kill(r->root_pid, (int)si.ssi_signo);
				stop_deadline = now_ns(CLOCK_MONOTONIC) + STOP_GRACE_NS;
			}
		}
		if (!r->root_reaped) {
			int status;
			pid_t w = waitpid(r->root_pid, &status, WNOHANG);

			if (w == (pid_t)r->root_pid) {
				r->root_reaped = true;
				r->root_status = status;
			}
		}
		/* Exit records can be lost when the ring is full: look for ourselves. */
		for (size_t i = 0; i < r->live.n;) {
			uint32_t pid = r->live.pids[i];

			if (pid != r->root_pid && bc_pid_finished("/proc", pid))
				bc_live_remove(&r->live, pid);
			else
				i++;
		}
		if (r->root_reaped)
			bc_live_remove(&r->live, r->root_pid);
		if (r->opts->sample_ms && now_ns(CLOCK_MONOTONIC) >= next_sample) {
			sample_usage(r);
			next_sample += (uint64_t)r->opts->sample_ms * 1000000ULL;
		}
		/* Whole records reach the disk every tick, so `report` can follow a live run. */
		rc = bc_sink_flush(r->sink);
		if (rc < 0 && !r->sink_error)
			r->sink_error = rc;
		rc = 0;
		print_status(r, &last_events, &last_status);
		if (r->sink_error)
			break;
		if (r->live.n == 0 && r->root_reaped)
			break;
		if (stop_deadline && now_ns(CLOCK_MONOTONIC) > stop_deadline)
			break;
	}
out:
	close(epfd);
	return rc;
fail:
	rc = -errno;
	close(epfd);
	return rc;
}

static int setup_bpf(struct recorder *r, char *err, size_t errlen)
{
	bool multi = !r->opts->no_multi && bc_uprobe_multi_supported();
	uint32_t one = 1;
	int rc;

	r->skel = collect_bpf__open();
	if (!r->skel) {
		rc = -errno;
		snprintf(err, errlen, "cannot open the BPF programs: %s", strerror(-rc));
		return rc;
	}
	bpf_map__set_max_entries(r->skel->maps.events, r->opts->bufsize_mib << 20);
	r->skel->rodata->follow_children = r->opts->follow;
	r->skel->rodata->ringbuf_wake_bytes = (uint64_t)(r->opts->bufsize_mib << 20) / 4;
	bool entry_caps = false, ret_caps = false;

	for (size_t i = 0; i < r->funcs.n; i++) {
		entry_caps |= r->funcs.v[i].capture.n_entry > 0;
		ret_caps |= r->funcs.v[i].capture.n_return > 0;
	}
	struct bpf_program *uprogs[] = {r->skel->progs.func_entry, r->skel->progs.func_return,
					r->skel->progs.func_entry_cap,
					r->skel->progs.func_return_cap};

	for (size_t i = 0; i < sizeof(uprogs) / sizeof(uprogs[0]); i++)
		if (multi)
			bpf_program__set_expected_attach_type(
				uprogs[i], (enum bpf_attach_type)BC_BPF_TRACE_UPROBE_MULTI);
	/* The sleepable capture programs need a 6.12+ kfunc: load them only when used. */
	bpf_program__set_autoload(r->skel->progs.func_entry_cap, entry_caps);
	bpf_program__set_autoload(r->skel->progs.func_return_cap, ret_caps);
	/* sys_exit also follows mmap/munmap for map.xml: it is always there. */
	if (!r->opts->syscalls)
		bpf_program__set_autoload(r->skel->progs.sys_enter, false);
	/* One capture slot per function id (an array map cannot be empty). */
	bpf_map__set_max_entries(r->skel->maps.capture_specs,
				 r->funcs.n ? (uint32_t)r->funcs.n : 1);
	rc = collect_bpf__load(r->skel);
	if (rc < 0) {
		snprintf(err, errlen,
			 "cannot load the BPF programs: %s (kernel with BTF, task storage and ring "
			 "buffer needed; -v shows why)",
			 strerror(-rc));
		return rc;
	}
	if (r->opts->syscalls) {
		rc = bc_syscall_filter_set(bpf_map__fd(r->skel->maps.syscall_filter),
					   bpf_map__fd(r->skel->maps.syscall_captures),
					   r->opts->syscall_list, r->opts->string_size, err,
					   errlen);
		if (rc < 0)
			return rc;
	}
	for (uint32_t id = 0; id < r->funcs.n; id++) {
		if (!bc_func_captures(&r->funcs.v[id]))
			continue;
		if (bpf_map_update_elem(bpf_map__fd(r->skel->maps.capture_specs), &id,
					&r->funcs.v[id].capture, BPF_ANY) < 0) {
			rc = -errno;
			snprintf(err, errlen, "cannot set what to capture for %s: %s",
				 r->funcs.v[id].name, strerror(-rc));
			return rc;
		}
	}
	rc = bpf_map_update_elem(bpf_map__fd(r->skel->maps.traced_pids), &r->root_pid, &one,
				 BPF_ANY);
	if (rc < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot register the command's pid: %s", strerror(-rc));
		return rc;
	}
	struct bpf_program *always[] = {r->skel->progs.proc_fork, r->skel->progs.proc_exec,
					r->skel->progs.proc_exit, r->skel->progs.sys_exit,
					r->skel->progs.sys_enter};
	struct bpf_link **links[] = {&r->skel->links.proc_fork, &r->skel->links.proc_exec,
				     &r->skel->links.proc_exit, &r->skel->links.sys_exit,
				     &r->skel->links.sys_enter};

	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
		if (i >= 4 && !r->opts->syscalls)
			break;
		*links[i] = bpf_program__attach(always[i]);
		if (!*links[i]) {
			rc = -errno;
			snprintf(err, errlen, "cannot attach %s: %s", bpf_program__name(always[i]),
				 strerror(-rc));
			return rc;
		}
	}
	struct bc_attach_progs progs = {r->skel->progs.func_entry, r->skel->progs.func_return,
					r->skel->progs.func_entry_cap,
					r->skel->progs.func_return_cap};

	rc = bc_attach_functions(&progs, &r->funcs, multi, &r->att, err, errlen);
	if (rc < 0)
		return rc;
	r->ring = ring_buffer__new(bpf_map__fd(r->skel->maps.events), handle_record, r, NULL);
	if (!r->ring) {
		rc = -errno;
		snprintf(err, errlen, "cannot map the ring buffer: %s", strerror(-rc));
		return rc;
	}
	return 0;
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

int bc_cmd_record(int argc, char **argv)
{
	struct bc_record_opts opts = {0};
	struct recorder r = {.opts = &opts, .child = {.release_fd = -1, .error_fd = -1}};
	char err[PATH_MAX + 512] = "", exe[PATH_MAX], cwd[PATH_MAX];
	struct bc_outputs outputs = {0};
	const char *exp_path = "";
	sigset_t block, old_mask;
	int rc, sigfd = -1, exit_code = 1;

	bc_functab_init(&r.funcs);
	rc = bc_record_parse_opts(argc, argv, &opts, err, sizeof(err));
	if (rc != 0) {
		if (rc > 0)
			fputs(bc_record_usage, stdout);
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
	rc = bc_launch_find_program(opts.argv[0], exe, sizeof(exe), err, sizeof(err));
	if (rc < 0)
		goto fail;
	/* Resolve before creating anything, so a typo leaves no empty experiment. */
	rc = bc_symbols_resolve(exe, 0, opts.specs, opts.n_specs, &r.funcs, err, sizeof(err));
	if (rc == -ENOENT && opts.n_specs == 0 && opts.syscalls) {
		/* A stripped program: the syscalls asked for are still worth having. */
		if (!opts.quiet)
			fprintf(stderr,
				"bpfcollect: %s has no function symbols: recording syscalls only\n",
				exe);
		rc = 0;
	} else if (rc == -ENOENT && opts.n_specs == 0) {
		snprintf(err, sizeof(err),
			 "%s: no function symbols to trace (stripped?); name functions with -u, or "
			 "record syscalls with --syscalls",
			 exe);
		goto fail;
	}
	if (rc < 0)
		goto fail;
	rc = bc_capture_plan(exe, &opts, &r.funcs, err, sizeof(err));
	if (rc < 0)
		goto fail;
	size_t resolved = r.funcs.n;

	rc = bc_functab_drop_unprobeable(&r.funcs, warn_unprobeable);
	if (rc < 0) {
		snprintf(err, sizeof(err), "cannot read the functions' code: %s", strerror(-rc));
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
	rc = bc_launch_prepare(exe, opts.argv, &old_mask, &r.child, err, sizeof(err));
	if (rc < 0)
		goto fail;
	r.root_pid = (uint32_t)r.child.pid;
	if (bc_live_add(&r.live, r.root_pid) < 0)
		goto fail;
	rc = setup_bpf(&r, err, sizeof(err));
	if (rc < 0)
		goto fail;
	/* Nothing runs traced before the release: the outputs can come last. */
	rc = bc_outputs_open(&outputs, &opts, err, sizeof(err));
	if (rc < 0)
		goto fail;
	r.sink = outputs.sink;
	exp_path = bc_outputs_name(&outputs);

	struct bc_session sess = {
		.argv = opts.argv,
		.root_pid = r.root_pid,
		.start_ktime = now_ns(CLOCK_MONOTONIC),
		.options = opts.options_text,
		.cwd = getcwd(cwd, sizeof(cwd)) ? cwd : "",
		.funcs = &r.funcs,
		.ringbuf_bytes = opts.bufsize_mib << 20,
		.syscalls = opts.syscalls,
		.no_follow = !opts.follow,
	};
	sess.wall_offset_ns = (int64_t)(now_ns(CLOCK_REALTIME) - sess.start_ktime);
	rc = bc_sink_begin(r.sink, &sess);
	if (rc < 0) {
		snprintf(err, sizeof(err), "cannot write the experiment %s: %s", exp_path,
			 strerror(-rc));
		goto fail;
	}
	r.status_line = !opts.quiet && isatty(STDERR_FILENO);
	rc = bc_launch_release(&r.child, err, sizeof(err));
	if (rc < 0) {
		waitpid(r.child.pid, NULL, 0);
		r.child.pid = 0;
		r.root_reaped = true;
		bc_error("%s", err);
		exit_code = 127;
	} else {
		rc = drain_loop(&r, sigfd);
		if (rc < 0)
			bc_error("record: %s", strerror(-rc));
	}

	/* Detach first so nothing new arrives, then take what is left. */
	size_t n_probes = r.att.n_probes;

	bc_detach_functions(&r.att);
	collect_bpf__detach(r.skel);
	ring_buffer__consume(r.ring);
	if (r.status_line)
		fprintf(stderr, "\r\033[K");

	struct bc_session_end end = {
		.end_ktime = now_ns(CLOCK_MONOTONIC),
		.exit_status = r.root_reaped ? r.root_status : -1,
		.events = r.events,
		.bad_records = r.bad_records,
	};
	read_lost(&r, end.lost);
	rc = emit_lost_records(&r, end.end_ktime);
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
		uint64_t lost = end.lost[0] + end.lost[1] + end.lost[2];

		fprintf(stderr,
			"bpfcollect: %s: %" PRIu64 " events, %" PRIu64
			" lost, %zu functions probed\n",
			exp_path, r.events, lost, n_probes);
		if (lost)
			fprintf(stderr,
				"bpfcollect: events were lost: the ring buffer was full; try "
				"--bufsize=%u\n",
				opts.bufsize_mib * 4);
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
			opts.argv[0], r.root_pid);
	goto out;

fail:
	bc_error("%s", err);
out:
	if (r.child.pid > 0 && !r.root_reaped && (r.child.release_fd >= 0))
		bc_launch_abort(&r.child);
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
	bc_live_free(&r.live);
	bc_record_opts_free(&opts);
	if (sigfd >= 0)
		close(sigfd);
	return exit_code;
}
