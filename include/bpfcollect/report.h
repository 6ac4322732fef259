/* SPDX-License-Identifier: MIT */
/*
 * The report engine: a sink that aggregates the event stream into
 * per-function and per-syscall statistics, and printers for them.
 *
 * Feed events through bc_report_sink() (live, or replayed from an `.er`
 * experiment), then read the statistics or print them. The sink is owned by
 * the report: free everything with bc_report_free(); bc_sink_destroy() on
 * the sink is a no-op, so generic sink teardown code cannot double free it.
 *
 * Function times come from a shadow call stack per thread:
 *  - inclusive time of a call = return ktime - entry ktime; it is added to
 *    incl_ns only for the outermost active frame of that function on the
 *    thread, so recursion is not counted twice;
 *  - exclusive time = inclusive time minus the inclusive time of traced
 *    callees; it is added for every frame, so the exclusive times of all
 *    frames of a recursion sum to the inclusive time of the outermost one
 *    (minus the other functions it called);
 *  - a return matches the topmost open frame of the same function (the
 *    frame whose entry ktime equals the return's entry_ktime wins when
 *    there is one); open frames above it never got their return: they are
 *    counted as `incomplete` and their time is dropped. A return matching
 *    no open frame is counted in `orphan_returns` and otherwise ignored.
 *  - frames still open when their thread exits or execs are counted as
 *    `incomplete` too, and so are all of a process's when it exits (its
 *    goroutines', its threads' whose exit records were lost), and the root
 *    process's at the end when its exit status is known; those still open
 *    when the sink ends (the recording stopped while they ran) as
 *    `open_at_detach`: no error, and no time;
 *  - an outermost frame that ends without its return (either way) adds to
 *    incl_ns the inclusive time of the frames of its function that
 *    returned inside it (the widest ones), whose exclusive time was added:
 *    exclusive never passes inclusive, whatever was lost.
 *
 * Pointers returned by the accessors stay valid until the next event is fed
 * or the report is freed.
 */
#ifndef BPFCOLLECT_REPORT_H
#define BPFCOLLECT_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpfcollect/model.h"

struct bc_report; /* opaque */

struct bc_func_stats {
	uint32_t func_id;
	const char *name;	 /* symbol name, or "<unknown id N>" */
	const char *object;	 /* load object path; "" when unknown */
	uint64_t calls;		 /* entries seen */
	uint64_t returns;	 /* frames closed by their return */
	uint64_t incl_ns;	 /* inclusive, outermost frames only */
	uint64_t incl_frames;	 /* frames summed in incl_ns */
	uint64_t min_incl_ns;	 /* over those frames; 0 if none */
	uint64_t max_incl_ns;	 /* over those frames */
	uint64_t excl_ns;	 /* exclusive, every returned frame */
	uint64_t incomplete;	 /* entries whose return never came */
	uint64_t open_at_detach; /* entries still running when the recording ended */
	uint64_t orphan_returns; /* returns without an open entry */
};

struct bc_errno_count {
	int err; /* positive errno value */
	uint64_t count;
};

struct bc_sys_stats {
	uint32_t nr;
	const char *name;  /* syscall name, or "syscall_N" */
	uint64_t calls;	   /* SYS_ENTER records */
	uint64_t exits;	   /* SYS_EXIT records */
	uint64_t timed;	   /* exits with a known entry time */
	uint64_t total_ns; /* over timed exits */
	uint64_t min_ns;   /* 0 if none timed */
	uint64_t max_ns;
	uint64_t errors;	       /* exits with -4095 <= ret < 0 */
	struct bc_errno_count *errnos; /* one per distinct errno, first seen first */
	size_t n_errnos;
};

struct bc_thread_stats {
	uint32_t tid;
	uint32_t pid;
	uint64_t events;      /* records this thread wrote */
	uint64_t first_ktime; /* 0 if only known from a fork/clone record */
	uint64_t last_ktime;
};

struct bc_proc_stats {
	uint32_t pid;
	uint32_t threads; /* distinct tids seen in this process */
	uint64_t events;
	uint64_t first_ktime;
	uint64_t last_ktime;
};

struct bc_report_totals {
	uint64_t events; /* every event the sink received */
	uint64_t func_entries;
	uint64_t func_returns;
	uint64_t incomplete;	 /* sum over functions */
	uint64_t open_at_detach; /* sum over functions */
	uint64_t orphan_returns; /* sum over functions */
	uint64_t sys_enters;
	uint64_t sys_exits;
	/* From BC_REC_LOST records, or the session end if it says more. */
	uint64_t lost[BC_LOSS_NR];
};

struct bc_report *bc_report_new(void);
void bc_report_free(struct bc_report *r);
/* The aggregating sink; borrowed, valid until bc_report_free(). */
struct bc_sink *bc_report_sink(struct bc_report *r);

/* Lookups; NULL when nothing about that id was seen. */
const struct bc_func_stats *bc_report_func(const struct bc_report *r, uint32_t func_id);
const struct bc_sys_stats *bc_report_sys(const struct bc_report *r, uint32_t nr);
const struct bc_thread_stats *bc_report_thread(const struct bc_report *r, uint32_t tid);
const struct bc_proc_stats *bc_report_process(const struct bc_report *r, uint32_t pid);
const struct bc_report_totals *bc_report_totals(const struct bc_report *r);

/* Iteration, in first-seen order. */
size_t bc_report_nfuncs(const struct bc_report *r);
const struct bc_func_stats *bc_report_func_at(const struct bc_report *r, size_t i);
size_t bc_report_nsys(const struct bc_report *r);
const struct bc_sys_stats *bc_report_sys_at(const struct bc_report *r, size_t i);
size_t bc_report_nthreads(const struct bc_report *r);
const struct bc_thread_stats *bc_report_thread_at(const struct bc_report *r, size_t i);
size_t bc_report_nprocesses(const struct bc_report *r);
/* Of those, the processes that took the pid of one that had exited (each counted apart). */
size_t bc_report_pids_reused(const struct bc_report *r);
const struct bc_proc_stats *bc_report_process_at(const struct bc_report *r, size_t i);

/* Average inclusive time per outermost frame; 0 if none returned. */
uint64_t bc_func_stats_avg_incl(const struct bc_func_stats *f);
/* Average time per timed exit; 0 if none. */
uint64_t bc_sys_stats_avg(const struct bc_sys_stats *s);
/* How many exits failed with errno `err` (positive). */
uint64_t bc_sys_stats_errno_count(const struct bc_sys_stats *s, int err);

/* ---------------------------------------------------------------- printing */

enum bc_sort_key {
	BC_SORT_EXCL,  /* exclusive total, descending (the default) */
	BC_SORT_INCL,  /* inclusive total, descending */
	BC_SORT_CALLS, /* calls, descending */
	BC_SORT_AVG,   /* average inclusive, descending */
	BC_SORT_NAME,  /* name, ascending */
};

/* "excl", "incl", "calls", "avg", "name" -> key; -EINVAL otherwise. */
int bc_sort_key_parse(const char *s, enum bc_sort_key *key);

#define BC_DURATION_LEN 32

/*
 * Human-readable duration, uftrace style: "123 ns", "1.234 us",
 * "12.345 ms", "1.234 s". Values are truncated, not rounded, so a value
 * never shows as 1000.000 of the smaller unit. Returns buf.
 */
char *bc_format_duration(char buf[BC_DURATION_LEN], uint64_t ns);

/*
 * Functions table, sorted by `key` (ties broken by name, then object), at
 * most `top_n` rows (0: all), then a totals line over all functions and
 * notes about incomplete frames, orphan returns and lost events.
 * Columns: Calls, Incl. total, Excl. total, Avg incl. (per outermost frame
 * that returned, see incl_frames), Object (basename of the load object),
 * Name (last, never truncated). "-" marks a time that was never measured
 * (no frame of the function returned). -errno.
 */
int bc_report_print_functions(const struct bc_report *r, FILE *out, enum bc_sort_key key,
			      size_t top_n);

/*
 * Syscalls table, sorted by total time descending (ties: calls descending,
 * then name). Columns: Calls, Total, Avg, Errors, Name, Error codes (e.g.
 * "ENOENT:3 EAGAIN:1", most frequent first; past the fifth, the remaining
 * failures are summed as "+N more"). Syscalls that never return
 * (exit_group) show "-" for times. -errno.
 */
int bc_report_print_syscalls(const struct bc_report *r, FILE *out);

#endif /* BPFCOLLECT_REPORT_H */
