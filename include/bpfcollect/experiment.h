/* SPDX-License-Identifier: MIT */
/*
 * `.er` experiments: naming, the writer sink and the reader that replays an
 * experiment into any sink. The layout of every file is in
 * docs/experiment-format.md; gprofng reads log.xml, map.xml and overview,
 * and ignores bpfcollect's private files (functions, functrace, syscalls,
 * proctrace).
 */
#ifndef BPFCOLLECT_EXPERIMENT_H
#define BPFCOLLECT_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/model.h"

struct bc_strtab;

/* Version of bpfcollect's private files and log.xml comments (`format=` key). */
#define BC_ER_FORMAT		  4
#define BC_ER_DEFAULT_NAME	  "test.1.er"
#define BC_ER_KERNEL_DEFAULT_NAME "ktest.1.er"

/* Whether name is an experiment's name: something, then ".er". 0, or -EINVAL with one line in err.
 */
int bc_exp_name_check(const char *name, char *err, size_t errlen);

/*
 * Creates a new experiment directory DIR/NAME (dir NULL: the current
 * directory; name NULL: "test.1.er") and writes its path to path. NAME must
 * end in ".er". When NAME has the form STEM.N.er and exists, N moves up to
 * the first free name (mkdir is the atomic test, so two recorders never
 * share a directory); any other existing NAME is an error. Returns 0 or a
 * negative errno with one line in err.
 *
 * *dirfd (NULL: not wanted): the directory made, opened without following a link and checked
 * to be ours; everything inside is to be written through it (or through
 * /proc/self/fd/N), never through path again: in a directory another user
 * can write, the directory could be swapped for a link between the mkdir
 * and a second open, and root's experiment would go where the link points.
 */
int bc_exp_create(const char *dir, const char *name, char *path, size_t pathlen, int *dirfd,
		  char *err, size_t errlen);

/* The private data files, by record kind. */
enum bc_er_file {
	BC_ER_FUNCTRACE, /* FUNC_ENTRY, FUNC_RETURN */
	BC_ER_SYSCALLS,	 /* SYS_ENTER, SYS_EXIT */
	BC_ER_PROCTRACE, /* PROC_FORK, THREAD_START, PROC_EXEC, THREAD_EXIT, PROC_EXIT, LOST,
			    PROC_NAME */
	BC_ER_SCHED,	 /* OFFCPU */
	/* format 2: the records gprofng's own files hold too, so they replay whole */
	BC_ER_SAMPLES, /* PROFILE (gprofng: profile) */
	BC_ER_HEAP,    /* HEAP (heaptrace) */
	BC_ER_SYNC,    /* SYNC (synctrace) */
	BC_ER_IO,      /* IO (iotrace) */
	BC_ER_USAGE,   /* USAGE: the agent's, in its own time order */
	BC_ER_NFILES,
};

const char *bc_er_file_name(enum bc_er_file f);
/* The first format (BC_ER_FORMAT) whose experiments have file f. */
unsigned int bc_er_file_since(enum bc_er_file f);
/*
 * Whether file f of a format's experiments is a sequence of compact blocks
 * (reccodec.h): the function and system call traces, from format 4.
 */
bool bc_er_file_compact(enum bc_er_file f, unsigned int format);
/* The file a record kind is stored in, or -EINVAL for a kind no file takes. */
int bc_er_file_for_kind(unsigned int kind);

/*
 * The `.er` writer sink, for an experiment directory bc_exp_create made.
 * begin() creates log.xml, map.xml, functions and the data files; records
 * are buffered (64 KiB per file) and hit the disk as whole records only.
 * Any op returns a negative errno on failure (-ENOSPC: disk full); what is
 * already on disk stays a valid experiment. Returns NULL with err set.
 */
struct bc_sink *bc_er_sink_new(const char *exp_path, char *err, size_t errlen);

/*
 * Ends and destroys *writer (a subexperiment's) at ktime with the process's
 * wait(2) status (-1 unknown); *writer becomes NULL. 0 when there is none.
 */
int bc_er_sink_close(struct bc_sink **writer, uint64_t ktime, int exit_status);

/*
 * Records the experiment writers of this process took and could not write
 * (what they held when a write failed): with the records read after the
 * failure, how many the recording lacks.
 */
uint64_t bc_er_unwritten_total(void);

/* Writes buffered records now, so a live reader sees them (agent's drain timer). */
int bc_er_sink_flush(struct bc_sink *sink);

/*
 * Appends one `<event kind="KIND" tstamp="REL" ATTRS/>` to the experiment's
 * log.xml (ATTRS already escaped: name="value" pairs). For descendant and
 * exec events.
 */
int bc_er_sink_log_event(struct bc_sink *sink, uint64_t ktime, const char *kind, const char *attrs);

/*
 * The experiment tree sink: the founder experiment at exp_path (created by
 * bc_exp_create) for the launched process, and one subexperiment per
 * followed descendant, flat inside it: _fN.er for the Nth fork-like child of
 * its creator, _xN.er for the Nth exec of a process image, _CN.er for a clone
 * that is neither a thread nor fork-like, chained (_f1_x1.er). The founder's
 * log.xml records every descendant event. Returns NULL with err set.
 */
struct bc_sink *bc_er_tree_sink_new(const char *exp_path, char *err, size_t errlen);

/*
 * The name of a process's subexperiment inside founder, as collect names the
 * processes of a kernel experiment: _COMM_PID_PID.N (without .er), the first
 * N from 1 that is free; an empty comm is "unknown". 0 or -ENAMETOOLONG.
 */
int bc_er_process_name(const char *founder, uint32_t pid, char *comm, size_t commlen, char *name,
		       size_t namelen);

/*
 * The kernel experiment tree (-k, -a): the founder at exp_path holds the
 * kernel-side records of every traced process (lifecycle, syscalls, off-CPU
 * intervals); each process with user-level records (calls, clock samples)
 * gets the subexperiment _COMM_PID_PID.N.er inside it.
 */
struct bc_sink *bc_er_ktree_sink_new(const char *exp_path, char *err, size_t errlen);

/*
 * The `er` format: at begin, the kernel experiment tree when the session
 * says kernel (-k, -a), else the experiment tree. NULL with err set.
 */
struct bc_sink *bc_er_format_sink_new(const char *exp_path, char *err, size_t errlen);

/* What reading one data file found. */
struct bc_er_file_stats {
	uint64_t bytes;		  /* file size */
	uint64_t records;	  /* valid records replayed */
	uint64_t bad_records;	  /* well-framed records that failed validation, skipped */
	uint64_t truncated_bytes; /* torn final record, or the rest after a bad size */
	bool stopped;		  /* a bad record size ended reading early */
};

/*
 * What an experiment says about itself, and what reading it found. Strings
 * are NULL when the experiment does not say. bc_er_read fills it; release it
 * with bc_er_info_free whatever bc_er_read returned.
 */
struct bc_er_info {
	/* log.xml */
	unsigned int version_major; /* <experiment version="12.4"> */
	unsigned int version_minor;
	unsigned int format; /* bpfcollect format=, 0 when not written by bpfcollect */
	char *collector;     /* "bpfcollect 0.1.0" */
	char *cmdline;	     /* <process> text: argv joined with spaces */
	char **argv;	     /* exact argv (command: comment), else cmdline split; never NULL */
	char *options;	     /* the record command line */
	char *cwd;
	char *hostname;
	char *os;     /* "Linux 6.1.0-..." */
	char *kernel; /* release the agent ran on */
	char *libbpf; /* libbpf version of the agent */
	uint32_t root_pid;
	uint32_t ppid;
	int32_t pgrp, sid;
	struct bc_host host; /* <system>: hostname, arch, release, pages, CPUs */
	bool have_host;
	uint64_t start_ktime;	/* run tstamp: CLOCK_MONOTONIC ns */
	int64_t wall_time;	/* run time=: seconds since the epoch */
	int64_t wall_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC at start */
	uint32_t ringbuf_bytes;
	bool syscalls;
	bool closed;	      /* exit event seen; false: still recording, or the agent died */
	uint64_t exit_tstamp; /* exit event, ns after start (closed only) */
	int exit_status;      /* wait(2) status of the root process, -1 unknown */
	bool have_counts;     /* the end-of-run counts line was found */
	int cut_short_errno;  /* a write failed with it (ENOSPC, ...): the rest was not written */
	uint64_t lost[BC_LOSS_NR];
	uint64_t events;	  /* records the agent delivered */
	uint64_t bad_records;	  /* records the agent's decoder refused */
	uint64_t records_written; /* records the writer stored in the data files */

	/* the session's facts (format 2), for a replay's begin */
	bool kernel_exp; /* -k, -a */
	bool system_wide;
	bool attached;
	bool no_follow;
	bool offcpu;
	bool offcpu_in_founder;
	bool heap;
	bool sync;
	bool io;
	uint32_t profile_us;
	uint32_t sync_threshold_us;
	uint32_t host_ip;	   /* the recording host's IPv4 address, host order; 0: not known */
	uint32_t session_root_pid; /* the recording's root (a kernel founder says pid 0) */
	char *kallmodsyms;	   /* EXP/kallmodsyms when it has one, else NULL */
	bool have_session_root;
	uint32_t *extra_pids; /* owned */
	size_t n_extra_pids;

	/* functions: owned, referenced by replayed events */
	struct bc_functab funcs;

	/* what this read found */
	size_t mappings;
	uint64_t events_read;		   /* events passed to the sink */
	uint64_t last_ktime;		   /* of the last event or mapping replayed */
	uint64_t lost_records[BC_LOSS_NR]; /* sum of LOST records read */
	struct bc_er_file_stats files[BC_ER_NFILES];
	uint64_t bad_records_read; /* sum over files */
	uint64_t truncated_bytes;  /* sum over files */
	char *notes;		   /* problems found, one per line; NULL if none */
	/* the notes' buffer, and each distinct line once (at most BC_ER_NOTES_MAX) */
	size_t notes_len, notes_cap, n_notes;
	struct bc_strtab *notes_seen;
};

/* Distinct notes kept of one experiment; a line then says the rest are left out. */
#define BC_ER_NOTES_MAX 1000

/*
 * Reads the experiment at exp_path and replays it into sink (NULL: only fill
 * info): begin, then mappings and events merged in time order (ktime, then
 * tid and seq; one thread's records of one file keep their file order), then
 * end. A live or crashed experiment (no exit event) is read as far as it is
 * whole and reported in info->closed. Returns 0 or a negative errno with one
 * line in err naming the file (and line) at fault; a sink error stops the
 * replay and is returned as is.
 */
int bc_er_read(const char *exp_path, struct bc_sink *sink, struct bc_er_info *info, char *err,
	       size_t errlen);
void bc_er_info_free(struct bc_er_info *info);

/* The descendant subexperiments (_*.er) directly inside a founder, in gprofng's order. */
int bc_er_list_descendants(const char *exp_path, char ***names, size_t *n);

/* What bc_er_tree_each calls for each experiment of a tree: 0 or -errno with one line in err. */
typedef int (*bc_er_each_fn)(const char *path, const char *name, size_t index, void *arg, char *err,
			     size_t errlen);

/*
 * Calls fn for the founder (index 0, name "founder") and, with descendants,
 * each subexperiment in gprofng's order (index 1.., name "_f1.er", ...).
 * The founder's error is returned. A subexperiment that cannot be read is
 * skipped with a warning on stderr naming it (as gprofng does), and the
 * rest is read; only running out of memory stops the walk.
 */
int bc_er_tree_each(const char *exp_path, bool descendants, bc_er_each_fn fn, void *arg, char *err,
		    size_t errlen);

/*
 * Reads a founder experiment and, with descendants, every subexperiment in
 * it, into one sink: one begin (the founder's session), the experiments'
 * events one experiment after the other, one end. info describes the founder
 * (events_read counts them all); n_experiments (may be NULL) how many were read.
 */
int bc_er_read_tree(const char *exp_path, bool descendants, struct bc_sink *sink,
		    struct bc_er_info *info, size_t *n_experiments, char *err, size_t errlen);

#endif /* BPFCOLLECT_EXPERIMENT_H */
