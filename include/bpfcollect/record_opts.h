/* SPDX-License-Identifier: MIT */
/* The options of `bpfcollect record`, parsed apart from the agent so they can be tested. */
#ifndef BPFCOLLECT_RECORD_OPTS_H
#define BPFCOLLECT_RECORD_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "bpfcollect/formats.h"

#define BC_MAX_FORMATS	       8 /* -f given at most, each format once */
#define BC_DEFAULT_BUFSIZE_MIB 8
#define BC_MAX_ATTACH_PIDS     64
#define BC_PROFILE_ON_US       10000 /* -p on: collect's 10 ms */
/* -s on: above what a probed uncontended lock costs (a single-stepped first instruction ~12 us) */
#define BC_SYNC_ON_US	      20
#define BC_DEFAULT_MAX_PROBES 4096 /* --max-probes */

struct bc_record_opts {
	const char *exp_name; /* -o, NULL: default */
	const char *exp_dir;  /* -d, NULL: current directory */
	const char **specs;   /* -u, in order; points into argv */
	size_t n_specs;
	bool syscalls;		  /* --syscalls given */
	const char *syscall_list; /* --syscalls=LIST; NULL: all */
	unsigned int bufsize_mib; /* --bufsize, power of two */
	bool follow;		  /* -F on|off */
	bool quiet;		  /* -q: no status line, summary or notes */
	bool status;		  /* --status: the status line even when stderr is not a terminal */
	bool verbose;
	bool no_multi;		/* --no-uprobe-multi */
	bool no_demangle;	/* --no-demangle: live outputs show raw symbols */
	const char **arg_specs; /* --arg GLOB@SPEC, raw; points into argv */
	size_t n_arg_specs;
	const char **ret_specs; /* --retval GLOB[@FMT], raw */
	size_t n_ret_specs;
	unsigned int string_size; /* --string-size: default most bytes of a captured string */
	mode_t out_mode;	  /* --mode: 0 for the default (bpfcollect/outmode.h) */
	unsigned int sample_ms;	  /* -S: overview sample interval, 0 = start and end only */
	bool archive;		  /* -A on|off: copy the load objects into archives/ at the end */
	bool archive_all;	  /* -A copy: every object mapped, even under -a/-k */
	char *rtl_probes[2 * BC_RTL_MESSAGES_MAX]; /* -u and --arg made for --rtl-message */
	size_t n_rtl_probes;
	uint64_t archive_limit; /* --archive-limit: bytes copied at most, 0 = no limit */
	const struct bc_format *formats[BC_MAX_FORMATS]; /* -f, in order; default er */
	size_t n_formats;
	struct bc_format_opts fopts; /* the formats' options (--utc, --prf-layout, ...) */
	const char **comments;	     /* -C, in order */
	size_t n_comments;
	uint32_t *attach_pids; /* -P PID[,PID]: running processes, in order */
	size_t n_attach_pids;
	unsigned int profile_us; /* -p: clock-profile period in microseconds, 0 = off */
	double duration_s;	 /* -t: stop recording after this many seconds, 0 = no limit */
	bool system_wide;	 /* -a */
	bool kernel_exp;	 /* -k (and -a): ktest.N.er with per-process subexperiments */
	bool offcpu;		 /* --offcpu (and -k, -a): off-CPU intervals */
	bool heap;		 /* -H on: allocator calls (heaptrace) */
	bool sync;		 /* -s on|all|US: waits on locks, conditions, joins */
	unsigned int sync_threshold_us; /* -s: shorter waits are not recorded */
	bool io;			/* -i on: file and socket system calls (iotrace) */
	int return_probes;		/* --return-probes: enum bc_returns_mode */
	unsigned int max_probes;	/* --max-probes: most functions probed at once */
	char *const *argv;		/* the command, NULL-terminated; NULL with -P and -a */
	char options_text[1024];	/* the record command line up to the command, for the log */
};

extern const char bc_record_usage[];
/* --help: the usage, then the formats and their options from the registry. */
void bc_record_help(FILE *out);

/*
 * Parses `record [OPTIONS] -- CMD [ARGS]` or `record [OPTIONS] -P PID[,PID]`
 * (argv[0] is "record"). Returns 0,
 * 1 when --help was asked (nothing else to do), or -EINVAL with one line in
 * err naming the option and what it takes. Release with
 * bc_record_opts_free() whatever it returned.
 */
int bc_record_parse_opts(int argc, char **argv, struct bc_record_opts *o, char *err, size_t errlen);
void bc_record_opts_free(struct bc_record_opts *o);

#endif
