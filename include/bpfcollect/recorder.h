/* SPDX-License-Identifier: MIT */
/*
 * The recording agent's state, shared by its parts: the command
 * (record.c), the BPF setup (record_bpf.c) and the drain loop
 * (record_loop.c).
 */
#ifndef BPFCOLLECT_RECORDER_H
#define BPFCOLLECT_RECORDER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "bpfcollect/attach.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/detacher.h"
#include "bpfcollect/launch.h"
#include "bpfcollect/liveset.h"
#include "bpfcollect/mapset.h"
#include "bpfcollect/procinfo.h"
#include "bpfcollect/model.h"
#include "bpfcollect/record.h"
#include "bpfcollect/record_opts.h"
#include "bpfcollect/state.h"
#include "bpfcollect/status_line.h"
#include "bpfcollect/uprobe_warm.h"

struct collect_bpf;
struct ring_buffer;
struct bpf_link;

#define BC_LDSO_MAX	  8  /* distinct dynamic linkers hooked */
#define BC_LDSO_ROOTS_MAX 16 /* roots a tree hook is opened on (-P); more: maps_exit */

/* Where map.xml's library mappings come from (user/agent/ldso_hook.c). */
enum bc_maps_mode {
	BC_MAPS_SYSCALL, /* mmap and munmap returning: a program on every syscall */
	BC_MAPS_TREE,	 /* the dynamic linker's hook, inherited by the traced tree */
	BC_MAPS_PROCESS, /* the dynamic linker's hook, limited to the one process */
};
#define BC_SNAPSHOTS_MAX 64 /* processes whose mapping snapshots interleave in the ring */

/* A process's mapping snapshot being received (BC_MMAP_SNAPSHOT records). */
struct bc_snapshot {
	uint32_t pid; /* 0: free */
	uint32_t mark;
	uint64_t received;
};

struct recorder {
	struct bc_record_opts *opts;
	struct collect_bpf *skel;
	struct bc_sink *sink;
	struct bc_functab funcs;
	struct bc_functab heap_funcs; /* -H: ids are enum bc_heap_fn */
	struct bc_functab sync_funcs; /* -s: ids are enum bc_sync_fn */
	struct bc_attachment att;     /* all of them: one detach, returns first */
	struct ring_buffer *ring;
	struct bc_live_set live;
	struct bc_idmap seen; /* -k, -a: pids whose processes the stream has introduced */
	/*
	 * -k, -a: the processes running when tracing began, as /proc said then,
	 * for those gone before their first record is read (no fork names them).
	 */
	struct bc_proc_info *at_start;
	size_t n_at_start;
	struct bc_idmap at_start_by_pid; /* pid -> index + 1 */
	struct bc_state state; /* what the stream said of the processes: the sinks' view */
	uint32_t slice_left;   /* records the current drain slice may still take */
	uint64_t
		sample_due_ns; /* -S: when the next overview sample is due (ends a slice), 0 none */
	struct bc_child child;
	uint32_t root_pid;     /* the launched process, or the first one attached to */
	const uint32_t *roots; /* the processes traced from the start: root_pid first */
	size_t n_roots;
	bool attached;	     /* -P: roots ran before; they are not our children */
	uint64_t stop_at_ns; /* -t: CLOCK_MONOTONIC deadline, 0 = none */
	bool timed_out;	     /* -t ended the recording */
	int stop_signal;     /* the signal that ended recording, 0 if none */
	bool root_exec_seen; /* the launch exec has come through the ring */
	uint64_t unwritten;  /* records read once an output had failed (BC_LOSS_UNWRITTEN) */
	struct bc_detacher detacher; /* second owner of the uprobe links (bpfcollect/detacher.h) */
	bool root_reaped;
	int root_status;
	int sink_error;
	uint64_t events, bad_records;
	uint64_t ring_ktime;		 /* the newest time of a record drained from the ring */
	struct bpf_link **profile_links; /* -p: one cpu-clock event per CPU */
	size_t n_profile_links;
	const char *exe; /* the launched program (its dynamic linker is hooked) */
	/* mappings without sys_exit: the dynamic linkers' _dl_debug_state hooks */
	enum bc_maps_mode maps_mode;
	enum bc_arm_mode arm;	   /* where the uprobes are armed (bpfcollect/attach.h) */
	int tracefs_fd;		   /* BC_MAPS_TREE: our tracefs; -1 without */
	int ldso_ids[BC_LDSO_MAX]; /* BC_MAPS_TREE: the trace events' ids */
	size_t n_ldso_events;
	pthread_t ldso_thread; /* BC_MAPS_TREE: makes them while the programs load */
	bool ldso_thread_started;
	bool detach_background; /* the detacher removes the probes after the agent has gone */
	/* uprobe_multi links (PROCESS), inherited perf events (TREE) */
	int ldso_fds[BC_LDSO_MAX * BC_LDSO_ROOTS_MAX];
	size_t n_ldso_fds;
	struct bpf_link *ldso_links[BC_LDSO_MAX * BC_LDSO_ROOTS_MAX]; /* TREE: the program's */
	size_t n_ldso_links;
	struct bc_uprobe_warm warm; /* start-up: the first registration's wait, paid meanwhile */
	struct bc_snapshot snaps[BC_SNAPSHOTS_MAX]; /* mapping snapshots under way */
	uint32_t snap_mark;
	uint64_t forks_followed;      /* children traced beside the roots (-F on) */
	struct bc_status_line status; /* stderr's live line; off unless enabled */
};

uint64_t bc_now_ns(clockid_t clk);

/*
 * Resolves -u, --arg, --retval, -H and -s in the target: the program exe,
 * or process pid (> 0), into r's function tables. -errno with one line.
 */
int bc_recorder_resolve_functions(struct recorder *r, const char *exe, int pid, char *err,
				  size_t errlen);
/*
 * -P: checks every id (a thread id stands for its process), refuses what
 * cannot be traced, resolves the functions in each process and fills
 * r->roots (*roots_out, owned by the caller, in order, each once).
 */
int bc_recorder_prepare_attach(struct recorder *r, uint32_t **roots_out, char *err, size_t errlen);
/*
 * Drops the attached processes that ended before tracing began (out of
 * the BPF filter too: their pid may be reused). -ESRCH when none is left.
 */
int bc_recorder_drop_exited_roots(struct recorder *r, uint32_t *roots, char *err, size_t errlen);
/*
 * Opens and loads the BPF programs, fills their maps, attaches them and
 * maps the ring buffer. Nothing is traced until bc_recorder_trace_pids().
 * 0 or -errno with one line in err.
 */
int bc_recorder_setup_bpf(struct recorder *r, char *err, size_t errlen);

/*
 * Puts the roots into the BPF filter: from here their threads (those running
 * and those to come) and followed children are traced. Called once every
 * probe is in place, so an attached process never sees half of them.
 */
int bc_recorder_trace_pids(struct recorder *r, char *err, size_t errlen);

/*
 * -k, -a: before the first record of a process that began before recording
 * (no fork or exec of it came through the ring), what the sinks need to
 * know of it from /proc, as records: a PROC_NAME with its parent and argv,
 * and its mappings. The kernel tree reads none of /proc itself, and a
 * replay of the experiment sees the same. 0 or -errno (the sink's).
 */
int bc_recorder_introduce(struct recorder *r, const struct bc_rec_head *h);
/*
 * -k, -a: notes every process running now (r->at_start; a pid noted
 * before is updated): before the probes go in and once they are.
 */
void bc_recorder_note_running(struct recorder *r);
void bc_recorder_free_running(struct recorder *r);
/*
 * -P A,B: the processes attached beside the founder, each as a PROC_NAME
 * record (name, parent, argv from /proc), right after begin: the
 * experiment tree names their subexperiments from these. 0 or -errno.
 */
int bc_recorder_name_roots(struct recorder *r, uint64_t ktime);
/* A mapping from /proc into the recorder's mappings and the sinks (ctx: the recorder). */
int bc_recorder_add_mapping(void *ctx, const struct bc_mapping *m);

/*
 * Takes at most one slice of records (a few thousand) from the ring into
 * the sinks, so the drain loop looks at the clock and the signals however
 * fast the traced processes write: 1 when records are left, 0 when the
 * ring is empty, or the sinks' -errno.
 */
int bc_recorder_consume(struct recorder *r);
/* The ring buffer's callback: a record into the sinks, within the slice (ctx: the recorder). */
int bc_recorder_on_ring(void *ctx, void *data, size_t size);

/* One record into the sinks (ctx is the recorder): the ring's, or one the agent makes. */
int bc_recorder_on_record(void *ctx, void *data, size_t size);

/* -p: starts the cpu-clock sampling on every CPU (nothing without -p). 0 or -errno + err. */
int bc_recorder_start_profile(struct recorder *r, char *err, size_t errlen);
/* Stops it; safe to call twice or when it never started. */
void bc_recorder_stop_profile(struct recorder *r);
/*
 * Before the function probes are detached: entries stop being recorded, so
 * none is left without its return probe (the calls then still running are
 * "open at detach", docs/design.md).
 */
void bc_recorder_stop_entries(struct recorder *r);

/*
 * Chooses the mappings' source before the programs load (multi: the kernel
 * has uprobe_multi links): see enum bc_maps_mode.
 */
void bc_recorder_maps_choose(struct recorder *r, bool multi);
/* Whether mappings come from maps_exit (mmap/munmap returning), not the hook. */
bool bc_recorder_maps_by_syscall(const struct recorder *r);
/*
 * Hooks _dl_debug_state of the dynamic linkers the traced processes may
 * use (their programs', the system's), kept to them (BC_MAPS_TREE,
 * BC_MAPS_PROCESS). One that cannot be hooked is said on stderr, not
 * fatal. 0.
 */
int bc_recorder_hook_ldso(struct recorder *r);
/* BC_MAPS_TREE: starts making the hook's trace events while the programs load. */
void bc_recorder_hook_ldso_early(struct recorder *r);
/* Removes the hooks; safe to call twice. */
void bc_recorder_unhook_ldso(struct recorder *r);
/*
 * A BC_MMAP_SNAPSHOT or _END record: new mappings into the state and the
 * sinks, and at a complete snapshot's end, the process's mappings it no
 * longer has removed. 0 or -errno.
 */
int bc_recorder_snapshot(struct recorder *r, const struct bc_rec_mmap *rec);

/*
 * Processes traced so far: the roots and every child followed; under -a,
 * every process the stream has named (all of them are traced).
 */
uint64_t bc_recorder_procs(const struct recorder *r);

/*
 * The status line from here on (its counting began at bc_status_line_init):
 * with --status, or when stderr is a terminal, -q is not given and no
 * format writes its records to a terminal on stdout (records_on_tty). Its
 * hook clears it before any bc_error message.
 */
void bc_recorder_status_begin(struct recorder *r, bool records_on_tty);
/* Clears it for good, before the summary: the terminal's line is the messages' again. */
void bc_recorder_status_end(struct recorder *r);

/* Drains the ring into the sink until the traced processes end or a signal stops it. */
int bc_recorder_drain(struct recorder *r, int sigfd);

/* Ring-buffer losses per class, summed over CPUs. */
void bc_recorder_read_lost(struct recorder *r, uint64_t lost[BC_LOSS_NR]);

/* One LOST record per CPU and class that lost anything, into the sink. */
int bc_recorder_emit_lost(struct recorder *r, uint64_t ktime);
/*
 * At the end, programs detached and the ring drained: the system calls
 * traced threads are still in (blocked in read, say), whose entries wrote
 * nothing, as the entry records they stand for (user/agent/pending_sys.c).
 * 0 or -errno from an output.
 */
int bc_recorder_flush_pending_syscalls(struct recorder *r);
#endif
