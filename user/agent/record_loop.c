// SPDX-License-Identifier: MIT
/*
 * The recording agent's loop: drains the ring buffer on a timer into the
 * sinks, keeps the set of live traced processes and their mappings, and
 * watches for the signals that end a recording.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect.skel.h"

#include "bpfcollect/cli.h"
#include "bpfcollect/exec_image.h"
#include "bpfcollect/overview.h"
#include "bpfcollect/recorder.h"

#define DRAIN_INTERVAL_MS 100
/*
 * Records one drain slice takes before the loop looks at the clock and the
 * signals again: a few milliseconds of sink work. libbpf's consume runs
 * until the ring is empty, which it never is while producers outpace the
 * agent; a callback's error stops it after that record.
 */
#define DRAIN_SLICE	     4096
#define SLICE_FULL	     (-EAGAIN)
#define SAMPLE_CHECK_RECORDS 64 /* records between looks at the clock for -S */
#define STOP_GRACE_NS	     (2ULL * 1000000000ULL)

uint64_t bc_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
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

	if (ev->rec->kind == BC_REC_MMAP &&
	    ((const struct bc_rec_mmap *)ev->rec)->origin != BC_MMAP_SYSCALL)
		return bc_recorder_snapshot(r, (const struct bc_rec_mmap *)ev->rec);
	if (ev->rec->kind == BC_REC_MUNMAP) {
		const struct bc_rec_munmap *u = (const void *)ev->rec;

		m = (struct bc_mapping){.pid = u->h.pid,
					.ktime = u->h.ktime,
					.start = u->start,
					.end = u->start + u->len,
					.unmap = true};
	} else if (bc_mapping_from_record((const void *)ev->rec, path, sizeof(path), &m) < 0) {
		return 0;
	}
	rc = bc_state_mapping(&r->state, &m);
	if (rc < 0)
		goto fail;
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
		rc = bc_state_mapping(&r->state, &em.m[i]);
		if (!rc)
			rc = bc_sink_mapping(r->sink, &em.m[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* One record into the state and the sinks; -errno when an output failed. */
static int deliver(struct recorder *r, void *data, size_t size)
{
	struct bc_event ev;
	int rc;

	if (bc_decode(data, size, &r->funcs, &ev) < 0) {
		r->bad_records++;
		return 0;
	}
	rc = bc_recorder_introduce(r, ev.rec);
	if (rc < 0) {
		r->sink_error = rc;
		return rc;
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
		if (r->opts->follow) {
			bc_live_add(&r->live, ((const struct bc_rec_fork *)ev.rec)->child_pid);
			r->forks_followed++;
		}
		break;
	case BC_REC_PROC_EXIT:
		bc_live_remove(&r->live, ev.rec->pid);
		/* an attached root is not our child: its exit record is all there is of its status
		 */
		if (r->attached && ev.rec->pid == r->root_pid && !r->root_reaped) {
			r->root_reaped = true;
			r->root_status = ((const struct bc_rec_exit *)ev.rec)->exit_code;
		}
		break;
	default:
		break;
	}
	/* the shared view of the processes first, so every sink reads it up to date */
	rc = bc_state_event(&r->state, ev.rec);
	if (rc >= 0)
		rc = bc_sink_event(r->sink, &ev);
	if (rc < 0) {
		r->sink_error = rc;
		return rc;
	}
	/* A fork child starts with its parent's mappings; an exec with none. */
	switch (ev.rec->kind) {
	case BC_REC_PROC_FORK:
		if (r->opts->follow)
			rc = bc_mapset_fork(&r->state.maps, ev.rec->pid,
					    ((const struct bc_rec_fork *)ev.rec)->child_pid,
					    ev.rec->ktime, r->sink);
		break;
	case BC_REC_PROC_EXEC: /* the state dropped the old image's mappings */
		rc = exec_mappings(r, (const struct bc_rec_exec *)ev.rec);
		if (ev.rec->pid == r->root_pid)
			r->root_exec_seen = true;
		break;
	default:
		break;
	}
	if (rc < 0)
		r->sink_error = rc;
	return rc;
}

/*
 * Once an output failed (a full disk), the records are still taken from the
 * ring, so the tracing side never stalls, and counted as unwritten: the
 * outputs say the recording was cut short, and by how much.
 */
int bc_recorder_on_record(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;

	if (r->sink_error || deliver(r, data, size) < 0)
		r->unwritten++;
	return 0;
}

void bc_recorder_read_lost(struct recorder *r, uint64_t lost[BC_LOSS_NR])
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
	lost[BC_LOSS_UNWRITTEN] += r->unwritten;
	free(vals);
}

/*
 * Writes one LOST record per CPU and class that lost anything, so every
 * format can show the losses where they belong (PRF ErrRec, ...), not only
 * the experiment's log.
 */
int bc_recorder_emit_lost(struct recorder *r, uint64_t ktime)
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
		if (k == BC_LOSS_UNWRITTEN) { /* the agent's own count, on one CPU */
			memset(vals, 0, (size_t)ncpu * sizeof(*vals));
			vals[0] = r->unwritten;
		} else if (bpf_map_lookup_elem(fd, &k, vals) < 0) {
			continue;
		}
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

uint64_t bc_recorder_procs(const struct recorder *r)
{
	/* -a has no roots and follows every process: those the stream introduced */
	if (r->opts->system_wide)
		return r->seen.n;
	return r->n_roots + r->forks_followed;
}

/* bc_error's hook: the status line gives up the terminal's line to a message. */
static void clear_status(void *arg)
{
	bc_status_line_clear(arg);
}

void bc_recorder_status_begin(struct recorder *r, bool records_on_tty)
{
	const struct bc_record_opts *o = r->opts;
	bool tty = isatty(r->status.fd);

	if (!o->status && (o->quiet || !tty || records_on_tty))
		return;
	bc_status_line_enable(&r->status, tty);
	bc_set_message_hook(clear_status, &r->status);
}

void bc_recorder_status_end(struct recorder *r)
{
	bc_status_line_end(&r->status);
	bc_set_message_hook(NULL, NULL);
}

/*
 * The status line, when a redraw is due: the agent's own counters, and the
 * loss map read once per redraw (not per event).
 */
static void status_redraw(struct recorder *r)
{
	uint64_t now = bc_now_ns(CLOCK_MONOTONIC);
	struct bc_status_sample smp = {.events = r->events};

	if (!bc_status_line_due(&r->status, now))
		return;
	smp.procs = bc_recorder_procs(r);
	bc_recorder_read_lost(r, smp.lost);
	bc_status_line_draw(&r->status, &smp, now);
}

/*
 * Overview samples of every process being waited for (their last one comes
 * at exit), read from /proc when due and handed to the sinks once the ring
 * has given every record older than them: when the ring is empty, or its
 * records have passed the samples' time. A busy ring that never empties
 * would otherwise keep every sample out.
 */
/* Samples read, oldest first, each waiting until the ring has passed its time. */
struct usage_batch {
	struct bc_rec_usage *v;
	size_t n, cap;
};

/* A ring this far behind skips the samples due meanwhile (records waiting, at most). */
#define USAGE_WAITING_MAX 4096

/* Hands the sinks the samples the ring has passed (all: every one). */
static void usage_deliver(struct recorder *r, struct usage_batch *b, bool all)
{
	size_t i = 0;

	/* a record like any other: every sink sees it, the experiment keeps it */
	for (; i < b->n && (all || b->v[i].h.ktime <= r->ring_ktime); i++)
		bc_recorder_on_record(r, &b->v[i], sizeof(b->v[i]));
	memmove(b->v, b->v + i, (b->n - i) * sizeof(*b->v));
	b->n -= i;
}

static void usage_read(struct recorder *r, struct usage_batch *b)
{
	if (b->n >= USAGE_WAITING_MAX)
		return;
	for (size_t i = 0; i < r->live.n; i++) {
		struct bc_usage u;

		if (bc_usage_read((pid_t)r->live.pids[i], &u) < 0 ||
		    BC_GROW(b->v, b->cap, b->n + 1))
			continue;
		bc_usage_to_record(&u, r->live.pids[i], &b->v[b->n++]);
	}
}

int bc_recorder_on_ring(void *ctx, void *data, size_t size)
{
	struct recorder *r = ctx;
	const struct bc_rec_head *h = data;
	int rc = bc_recorder_on_record(r, data, size);

	if (size >= sizeof(*h) && h->ktime > r->ring_ktime)
		r->ring_ktime = h->ktime;
	if (rc < 0)
		return rc;
	if (--r->slice_left == 0)
		return SLICE_FULL;
	/*
	 * An overview sample falling due ends the slice: a slice of a busy
	 * ring can outlast a short process, which was then never sampled.
	 */
	if (r->sample_due_ns && !(r->slice_left % SAMPLE_CHECK_RECORDS) &&
	    bc_now_ns(CLOCK_MONOTONIC) >= r->sample_due_ns)
		return SLICE_FULL;
	return 0;
}

int bc_recorder_consume(struct recorder *r)
{
	int rc;

	r->slice_left = DRAIN_SLICE;
	rc = ring_buffer__consume(r->ring);
	if (rc == SLICE_FULL && !r->sink_error)
		return 1;
	return rc < 0 ? rc : 0;
}

/* Slices of DRAIN_SLICE records that a full ring holds, at most (records are 40 bytes or more). */
static uint64_t ring_slices(const struct recorder *r)
{
	return ((uint64_t)r->opts->bufsize_mib << 20) / 40 / DRAIN_SLICE + 1;
}

/* The drain timer's next wait: the drain interval, or less when a -S sample is due sooner. */
static int wait_ms(const struct recorder *r, uint64_t next_sample)
{
	uint64_t now = bc_now_ns(CLOCK_MONOTONIC), ms;

	if (!r->opts->sample_ms)
		return DRAIN_INTERVAL_MS;
	ms = next_sample > now ? (next_sample - now + 999999) / 1000000 : 0;
	return ms < DRAIN_INTERVAL_MS ? (int)ms : DRAIN_INTERVAL_MS;
}

/* Waits for the traced processes, draining the ring on a timer. */
int bc_recorder_drain(struct recorder *r, int sigfd)
{
	int epfd, ring_fd = bpf_map__fd(r->skel->maps.events);
	struct epoll_event ev = {0}, evs[4];
	uint64_t stop_deadline = 0;
	uint64_t next_sample =
		bc_now_ns(CLOCK_MONOTONIC) + (uint64_t)r->opts->sample_ms * 1000000ULL;
	struct usage_batch usage = {0};
	bool more = false;
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
		/* with records left from the last slice, no wait: just a look at the signals */
		int n = epoll_wait(epfd, evs, 4, more ? 0 : wait_ms(r, next_sample));

		if (n < 0 && errno != EINTR)
			goto fail;
		rc = bc_recorder_consume(r);
		if (rc < 0 && r->sink_error)
			break;
		more = rc > 0;
		rc = 0;
		for (int i = 0; i < n; i++) {
			struct signalfd_siginfo si;

			if (evs[i].data.fd != sigfd)
				continue;
			while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGCHLD)
					continue;
				if (stop_deadline) /* second signal: stop now */
					goto out;
				r->stop_signal = (int)si.ssi_signo;
				/* Attached processes are not ours: stop tracing them, no more. */
				if (r->attached)
					goto out;
				/* Pass it on like a shell would, then finish the output. */
				if (!r->root_reaped)
					kill(r->root_pid, (int)si.ssi_signo);
				stop_deadline = bc_now_ns(CLOCK_MONOTONIC) + STOP_GRACE_NS;
			}
		}
		if (!r->root_reaped && !r->attached) {
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

			if ((pid != r->root_pid || r->attached) && bc_pid_finished("/proc", pid))
				bc_live_remove(&r->live, pid);
			else
				i++;
		}
		if (r->root_reaped)
			bc_live_remove(&r->live, r->root_pid);
		/*
		 * Samples wait until the ring has passed their time: handed over
		 * before, they would reach the sinks out of order, and the live
		 * outputs would differ from the converted ones.
		 */
		if (r->opts->sample_ms && bc_now_ns(CLOCK_MONOTONIC) >= next_sample) {
			usage_read(r, &usage);
			next_sample += (uint64_t)r->opts->sample_ms * 1000000ULL;
		}
		r->sample_due_ns = r->opts->sample_ms ? next_sample : 0;
		if (usage.n)
			usage_deliver(r, &usage, !more);
		/* Whole records reach the disk every tick, so `report` can follow a live run. */
		rc = bc_sink_flush(r->sink);
		if (rc < 0 && !r->sink_error)
			r->sink_error = rc;
		rc = 0;
		status_redraw(r);
		if (r->sink_error)
			break;
		if (r->live.n == 0 && !r->opts->system_wide && (r->root_reaped || r->attached))
			break;
		if (r->stop_at_ns && bc_now_ns(CLOCK_MONOTONIC) >= r->stop_at_ns) {
			r->timed_out = true;
			break;
		}
		if (stop_deadline && bc_now_ns(CLOCK_MONOTONIC) > stop_deadline)
			break;
	}
out:
	r->sample_due_ns = 0;
	/*
	 * What the ring holds was made before the batch was read: it goes
	 * first. At most a ring's worth: the probes are still attached, and a
	 * traced process that keeps running (-t, -P) refills it as fast as it
	 * drains (a -t 0.6 recording of a busy target ran as long as the target).
	 */
	for (uint64_t slices = ring_slices(r); usage.n && slices-- && bc_recorder_consume(r) > 0;)
		;
	usage_deliver(r, &usage, true);
	free(usage.v);
	close(epfd);
	return rc;
fail:
	rc = -errno;
	r->sample_due_ns = 0;
	free(usage.v);
	close(epfd);
	return rc;
}
