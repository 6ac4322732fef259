/* SPDX-License-Identifier: MIT */
/*
 * Per-process usage samples: the `overview` file of an experiment.
 *
 * A struct bc_usage is one sample point of one process: cumulative values
 * since the process started, taken at `tstamp`. Consecutive points k-1 -> k
 * form sample k (gprofng-format.md section 6); gprofng shows the differences
 * in `gprofng display text -statistics` (all samples, or the ones picked
 * with -sample_select N), under these names (`-overview` shows none of
 * them: it lists the experiment's metrics):
 *
 *   field   raw_prusage_64   gprofng -statistics name
 *   utime   pr_utime   72    User CPU
 *   stime   pr_stime   88    System CPU
 *   wait    pr_wtime  200    Wait CPU
 *   sleep   pr_slptime 184   Sleep
 *   rtime   pr_rtime   56    Total Thread Time (with the states, see below)
 *   minf    pr_minf   328    Minor Page Faults
 *   majf    pr_majf   336    Major Page Faults
 *   inblk   pr_inblk  352    Input blocks
 *   oublk   pr_oublk  360    Output blocks
 *   vctx    pr_vctx   392    Voluntary context switches
 *   ictx    pr_ictx   400    Involuntary context switches
 *   sysc    pr_sysc   408    System calls
 *   ioch    pr_ioch   416    Characters of I/O
 *
 * Always 0 here (no Linux source): Trap CPU (pr_ttime), User Lock
 * (pr_ltime), Data/Text/Kernel Page Fault (pr_dftime/tftime/kftime),
 * Stopped (pr_stoptime), Process swaps, Messages sent/received, Signals
 * handled. "Duration" is the samples' tstamp span; "Start/End Time" are
 * tstamps relative to the run event.
 *
 * gprofng validates each sample (Sample::validate_usage): negative time
 * differences become 0, and when the states sum to less than the rtime
 * difference, Sleep is raised to make up the rest. Total Thread Time is
 * max(rtime, sum of states). bc_overview_interval() applies the same rules,
 * so bc_overview_print() shows gprofng's figures.
 */
#ifndef BPFCOLLECT_OVERVIEW_H
#define BPFCOLLECT_OVERVIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define BC_OVERVIEW_REC_SIZE 504 /* sizeof(raw_prusage_64) */

/*
 * One sample point of a process. Times in ns, counts in events; all
 * cumulative since the process started except tstamp and create.
 */
struct bc_usage {
	uint64_t tstamp; /* CLOCK_MONOTONIC when sampled */
	uint64_t create; /* process start, CLOCK_MONOTONIC */
	uint64_t rtime;	 /* real time: tstamp - create */
	uint64_t utime;	 /* user CPU, summed over threads */
	uint64_t stime;	 /* system CPU, summed over threads */
	uint64_t wait;	 /* runnable but not running (run-queue delay), summed over threads */
	/*
	 * Off CPU and not waiting for it: sleeping, blocked (I/O, futex, page
	 * fault reads) or stopped. One thread's real time is exactly
	 * user + system + run-queue wait + this, so sleep = rtime - utime -
	 * stime - wait, floored at 0. For a multi-threaded process the
	 * threads' states overlap in time: the sum then only says how much of
	 * the wall time no CPU/wait accounts for, and is often 0. gprofng
	 * computes the same value when pr_slptime is 0 (see above).
	 */
	uint64_t sleep;
	uint64_t vctx;	/* voluntary context switches (blocked/slept), summed over threads */
	uint64_t ictx;	/* involuntary context switches (preempted), summed over threads */
	uint64_t minf;	/* minor page faults of the process itself (not children) */
	uint64_t majf;	/* major page faults (needed I/O), own */
	uint64_t inblk; /* 512-byte blocks read from storage (getrusage ru_inblock) */
	uint64_t oublk; /* 512-byte blocks written to storage (ru_oublock) */
	uint64_t ioch;	/* bytes passed to read- and write-like syscalls */
	uint64_t sysc;	/* system calls; 0 when unknown (no cheap /proc source) */
};

/*
 * Reads process pid's usage from /proc, stamped now:
 * - utime, stime, minf, majf, create: /proc/PID/stat fields 14, 15, 10, 12,
 *   22. Those are thread-group totals including threads that already exited;
 *   utime/stime have clock-tick resolution (1/sysconf(_SC_CLK_TCK) s, 10 ms).
 *   create: starttime is clock ticks of CLOCK_BOOTTIME; it is converted to
 *   CLOCK_MONOTONIC by subtracting the current BOOTTIME - MONOTONIC offset
 *   (time spent suspended), so it is exact to a tick unless the machine
 *   suspended during the process's life (then it is earlier by that time).
 * - wait, vctx, ictx: summed over the live threads, /proc/PID/task/TID/
 *   schedstat field 2 (run_delay, ns) and status voluntary_ctxt_switches /
 *   nonvoluntary_ctxt_switches. /proc/PID/status and /proc/PID/schedstat
 *   show the main thread only. Threads that already exited are not counted
 *   (no /proc file keeps them), so these can shrink: see bc_usage_carry().
 * - ioch, inblk, oublk: /proc/PID/io (rchar + wchar, read_bytes / 512,
 *   write_bytes / 512), thread-group totals; left 0 if unreadable (EACCES).
 * - sysc: 0.
 * /proc is parsed as untrusted text (a comm with spaces and parentheses,
 * short reads, junk numbers). Returns 0, -ESRCH if the process is gone (a
 * zombie still reads), -EINVAL on unparsable content, or -errno.
 */
int bc_usage_read(pid_t pid, struct bc_usage *u);

/*
 * The final sample from raw task_struct numbers taken at exit by BPF, when
 * /proc is gone: now and start_time (task->start_time) are CLOCK_MONOTONIC
 * ns; utime/stime (task->utime/stime) and run_delay (sched_info.run_delay)
 * are ns; nvcsw, nivcsw, min_flt, maj_flt are counts. For a thread group
 * each must be the sum over its threads: the task_struct fields are per
 * thread, and signal_struct's utime/stime/nvcsw/nivcsw/min_flt/maj_flt
 * hold the threads that already exited (there is no such sum for
 * run_delay). Note that task->utime/stime are the raw tick-sampled split;
 * /proc scales them so that they add up to se.sum_exec_runtime: pass them
 * through bc_cputime_adjust() first when that is known, so the last
 * sample matches the /proc ones. ioch/inblk/oublk/sysc are set to 0.
 */
void bc_usage_from_task(struct bc_usage *u, uint64_t now, uint64_t start_time, uint64_t utime,
			uint64_t stime, uint64_t run_delay, uint64_t nvcsw, uint64_t nivcsw,
			uint64_t min_flt, uint64_t maj_flt);

/*
 * The kernel's cputime_adjust(): scales the tick-sampled utime/stime so
 * they add up to rtime (se.sum_exec_runtime), keeping their ratio.
 */
void bc_cputime_adjust(uint64_t rtime, uint64_t *utime, uint64_t *stime);

/*
 * Makes cur cumulative with respect to prev (an earlier sample of the same
 * process): every field becomes at least prev's. gprofng subtracts counts
 * unsigned, so a count that shrank (an exited thread's context switches, a
 * field the next source does not know) would show as ~1.8e19. Call it on
 * every sample before encoding.
 */
void bc_usage_carry(const struct bc_usage *prev, struct bc_usage *cur);

/*
 * raw_prusage_64, little-endian on any host: lwpid = pid, count = 1, the
 * times as normalized {sec, nsec} (tstamp and create absolute), every field
 * gprofng knows but bc_usage has not (term, ttime, ..., sigs) 0.
 *
 * For the writer (gprofng 2.40 Experiment::read_overview_file; torn: tested):
 * append whole records only: a torn one makes gprofng warn "overview data
 * file can't be read" and keep a sample with garbage times. Sample k spans
 * record k-1's tstamp + 1 ns to record k's, whatever log.xml's sample
 * tstamps say; records beyond the sample events get the label "<unknown>",
 * sample events beyond the records are dropped. The last record's tstamp
 * extends the experiment's end (its Duration) when later than any event.
 */
void bc_overview_encode(const struct bc_usage *u, uint32_t pid, uint8_t out[BC_OVERVIEW_REC_SIZE]);

/*
 * The inverse for one record of len >= 504 bytes. Accepts nsec >= 1e9 the
 * way gprofng does (sec * 1e9 + nsec). Fields bc_usage has no place for are
 * ignored. -EINVAL if len < 504, -ERANGE if a time does not fit 64 bits of
 * ns; *u and *pid are then unchanged.
 */
int bc_overview_decode(const uint8_t *in, size_t len, struct bc_usage *u, uint32_t *pid);

/*
 * Decodes a whole overview file's bytes into a malloc'd array (*samples,
 * *n; NULL, 0 when empty). *pid is the first record's lwpid (0 if none).
 * A torn tail (len % 504 bytes) is ignored and reported in *torn_bytes;
 * records that do not decode (-ERANGE) are skipped and counted in *bad
 * (either out-pointer may be NULL). Returns 0 or -ENOMEM.
 */
int bc_overview_parse(const uint8_t *buf, size_t len, struct bc_usage **samples, size_t *n,
		      uint32_t *pid, size_t *torn_bytes, size_t *bad);

/*
 * Reads EXP/overview with bc_overview_parse(); a torn tail or skipped
 * records are noted on stderr ("bpfcollect: EXP/overview: ..."). Returns 0,
 * -ENOENT if the file is absent, -EINVAL if it is not a regular file,
 * -EFBIG beyond 1 GiB, or -errno. Free *samples with free().
 */
int bc_overview_read_file(const char *exp_path, struct bc_usage **samples, size_t *n,
			  uint32_t *pid);

/*
 * The /proc parsers bc_usage_read() uses, exposed for tests. Parses the
 * stat line in buf[0..len) (need not be NUL-terminated): the comm is
 * skipped up to the last ')', whatever it contains; times in clock ticks.
 * Returns 0 or -EINVAL.
 */
struct bc_proc_stat {
	char state;
	uint64_t minflt, majflt; /* fields 10, 12 */
	uint64_t utime, stime;	 /* fields 14, 15, ticks */
	uint64_t starttime;	 /* field 22, ticks since boot */
};

int bc_proc_stat_parse(const char *buf, size_t len, struct bc_proc_stat *st);

/* voluntary_ctxt_switches / nonvoluntary_ctxt_switches of a status file. 0 or -EINVAL. */
int bc_proc_status_ctx(const char *buf, size_t len, uint64_t *vctx, uint64_t *ictx);

/* One sample (prev -> cur) as gprofng shows it: differences, validated. */
struct bc_overview_interval {
	uint64_t start, end; /* prev->tstamp, cur->tstamp */
	uint64_t rtime;	     /* Total Thread Time: max(rtime diff, sum of the states) */
	uint64_t utime, stime, wait, sleep;
	uint64_t vctx, ictx, minf, majf, inblk, oublk, ioch, sysc; /* a drop counts 0 */
};

void bc_overview_interval(const struct bc_usage *prev, const struct bc_usage *cur,
			  struct bc_overview_interval *iv);

/*
 * `bpfcollect report EXP overview`: one line per sample (samples[k-1] ->
 * samples[k]), times relative to samples[0].tstamp, then a Total line,
 * with gprofng's figures (bc_overview_interval). n < 2 prints a line saying
 * there is no sample. Returns 0, -EINVAL, or -EIO if writing failed.
 */
int bc_overview_print(FILE *out, const struct bc_usage *samples, size_t n, uint32_t pid);

#endif /* BPFCOLLECT_OVERVIEW_H */
