// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/archive.h"
#include "bpfcollect/argspec.h"
#include "bpfcollect/capture.h"
#include "bpfcollect/cli.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/formats.h"
#include "bpfcollect/outmode.h"
#include "bpfcollect/record_opts.h"
#include "bpfcollect/return_sites.h"
#include "bpfcollect/symbols.h"
#include "bpfcollect/syscall_filter.h"

const char bc_record_usage[] =
	"usage: bpfcollect record [OPTIONS] -- CMD [ARGS]\n"
	"       bpfcollect record [OPTIONS] -P PID[,PID...]\n"
	"       bpfcollect record [OPTIONS] -a\n"
	"\n"
	"Launches CMD, or attaches to running processes, or traces the whole\n"
	"system; traces them and their descendants, writes an experiment.\n"
	"\n"
	"  -a                 system-wide: every process but bpfcollect, those\n"
	"                     running and those to come; -u needs OBJ:GLOB and\n"
	"                     probes OBJ in every process that maps it. Writes a\n"
	"                     kernel experiment (as -k); stop with -t or Ctrl-C\n"
	"  -k                 kernel experiment ktest.N.er: process lifecycle,\n"
	"                     syscalls (--syscalls) and off-CPU intervals of the\n"
	"                     traced processes in it, each process's own data\n"
	"                     (functions, profile) in _COMM_PID_PID.1.er inside\n"
	"  --offcpu           record every interval a traced thread spends off\n"
	"                     CPU (blocked, or waiting for a CPU) with its user\n"
	"                     stack at switch-out (on with -k and -a); gprofng\n"
	"                     sees it as Sleep, Wait CPU and User Lock time\n"
	"  -P PID[,PID...]    attach to running processes (all their threads, and\n"
	"                     threads and children they create later) instead of\n"
	"                     launching a command; -t or Ctrl-C detaches and leaves\n"
	"                     them running. The first is the experiment's founder;\n"
	"                     each other one gets a subexperiment _COMM_PID_PID.1.er\n"
	"  -p on|lo|hi|off|MS clock profiling: sample the traced threads' user and\n"
	"                     kernel call stacks every MS milliseconds of CPU time\n"
	"                     (on 10, lo 100, hi 1; 0.1 to 1000, whole microseconds);\n"
	"                     with -p, functions are traced only when -u names them\n"
	"  -H on|off          heap tracing: every malloc, calloc, realloc, free,\n"
	"                     memalign-style and mmap/munmap call of the target's\n"
	"                     libc, with the caller's stack (gprofng's heaptrace;\n"
	"                     report heap, leaks)\n"
	"  -s on|off|all|US   sync wait tracing: pthread_mutex_lock, cond waits,\n"
	"                     pthread_join, sem_wait, rwlocks that waited US\n"
	"                     microseconds or more (on 20, all 0) (report sync)\n"
	"  -i on|off          I/O tracing: read, write, open, close, dup, pipe,\n"
	"                     socket, fsync, lseek ... system calls with bytes,\n"
	"                     file names, file system and errors, and the\n"
	"                     caller's stack (gprofng's iotrace; report io)\n"
	"  -t SECONDS         stop recording after SECONDS (suffix s or m allowed);\n"
	"                     a launched command then runs on untraced\n"
	"  -o NAME            experiment name (default test.1.er; an existing\n"
	"                     STEM.N.er moves N up)\n"
	"  -d DIR             directory for the experiment (default: current)\n"
	"  -u [OBJ:]GLOB      trace entry and return of functions matching GLOB in\n"
	"                     OBJ (a path, or a library name such as libc); no OBJ:\n"
	"                     the main executable. Repeatable. Default: every\n"
	"                     function of the main executable.\n"
	"  --arg GLOB@SPEC    capture arguments of functions matching [OBJ:]GLOB at\n"
	"                     entry: SPEC is argN[/FMT],... as in uftrace (N 1..6;\n"
	"                     FMT d|i|u|x[8|16|32|64], p, c, s[:LEN], buf:LEN,\n"
	"                     buf:argM) and may end with retval[/FMT]. Repeatable.\n"
	"  --retval GLOB[@FMT] capture the return value (FMT as above, default d64)\n"
	"  --string-size=N    bytes of a captured string or argM buffer by default\n"
	"                     (default 64, at most 4096); s:LEN overrides\n"
	"  --syscalls[=LIST]  trace syscalls (all, or a comma-separated list of\n"
	"                     names or numbers); path arguments are captured too\n"
	"  -F on|off          follow descendants (default on)\n"
	"  -S on|off|SECONDS  overview samples of every process's usage (CPU,\n"
	"                     waits, context switches, faults) every SECONDS\n"
	"                     (default on: 1 s); off: at start and end only\n"
	"  -C COMMENT         a comment for the experiment's notes (repeatable)\n"
	"  -A on|off|copy     copy the programs and libraries into the experiment's\n"
	"                     archives/ after recording (default on): with -a or\n"
	"                     -k only those a sample or probe hit, one copy per\n"
	"                     build id; copy: every one mapped\n"
	"  --archive-limit=SIZE copy at most SIZE (K, M, G; default 256M; none),\n"
	"                     the most-hit objects first\n"
	"  --mode=MODE        permissions of what is written: files MODE (octal,\n"
	"                     e.g. 0640), directories MODE plus search where it\n"
	"                     reads (default 0600 and 0700: traces hold command\n"
	"                     lines and captured strings)\n"
	"  -f FORMAT          an output format (repeatable; default er; the list\n"
	"                     is below). With an experiment, each other format\n"
	"                     writes NAME.csv, NAME.dump, ... beside NAME.er;\n"
	"                     without one, -o names the file (- or none: stdout),\n"
	"                     NAME plus each format's suffix when there are several\n"
	"  --bufsize=MIB      ring buffer size in MiB, power of two (default 8)\n"
	"  --max-probes=N     refuse to probe more than N functions (default 4096):\n"
	"                     every process running a probed function pays for it\n"
	"  --no-uprobe-multi  attach one perf uprobe per function even where the\n"
	"                     kernel has uprobe_multi links (slow to detach)\n"
	"  --return-probes=auto|uretprobe|sites\n"
	"                     how -u functions' returns are seen: a uretprobe, or\n"
	"                     probes on the function's ret instructions and tail\n"
	"                     jumps, which exceptions pass unharmed; auto\n"
	"                     (default): sites in C++ and Go code, uretprobes\n"
	"                     elsewhere\n"
	"  --no-demangle      live outputs (-f) show C++ and Rust symbols raw\n"
	"                     (_Z7throweri), not demangled (thrower(int)); the\n"
	"                     experiment keeps raw symbols either way\n"
	"  -q, --quiet        no status line, summary or notes on stderr;\n"
	"                     warnings and errors still show\n"
	"  --status           the live status line even when stderr is not a\n"
	"                     terminal (a line per redraw, at most 4 a second);\n"
	"                     not with -q\n"
	"  -v, --verbose      libbpf diagnostics\n"
	"  -h, --help         this text\n"
	"\n"
	"Formats (-f) and their options:\n";

void bc_record_help(FILE *out)
{
	fputs(bc_record_usage, out);
	bc_formats_help(out);
}

enum {
	OPT_SYSCALLS = 256,
	OPT_BUFSIZE,
	OPT_NO_MULTI,
	OPT_RETURN_PROBES,
	OPT_NO_DEMANGLE,
	OPT_ARG,
	OPT_RETVAL,
	OPT_STRING_SIZE,
	OPT_OFFCPU,
	OPT_MAX_PROBES,
	OPT_ARCHIVE_LIMIT,
	OPT_MODE,
	OPT_STATUS,
	OPT_FORMAT_FIRST = 1024, /* the formats' options (bc_format_longopts) */
};

static const struct option base_longopts[] = {
	{"syscalls", optional_argument, NULL, OPT_SYSCALLS},
	{"bufsize", required_argument, NULL, OPT_BUFSIZE},
	{"no-uprobe-multi", no_argument, NULL, OPT_NO_MULTI},
	{"return-probes", required_argument, NULL, OPT_RETURN_PROBES},
	{"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},
	{"arg", required_argument, NULL, OPT_ARG},
	{"retval", required_argument, NULL, OPT_RETVAL},
	{"string-size", required_argument, NULL, OPT_STRING_SIZE},
	{"mode", required_argument, NULL, OPT_MODE},
	{"offcpu", no_argument, NULL, OPT_OFFCPU},
	{"max-probes", required_argument, NULL, OPT_MAX_PROBES},
	{"archive-limit", required_argument, NULL, OPT_ARCHIVE_LIMIT},
	{"quiet", no_argument, NULL, 'q'},
	{"status", no_argument, NULL, OPT_STATUS},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

const struct bc_cmd_opts bc_record_cmd_opts = {
	.shortopts = "+:o:d:u:F:S:C:A:f:P:t:p:H:s:i:akqvh",
	.longopts = base_longopts,
	.format_opts = true,
};

static int bad(char *err, size_t errlen, const char *msg, const char *arg)
{
	snprintf(err, errlen, msg, arg);
	return -EINVAL;
}

/* -f FORMAT: known, each once; one experiment at most. */
static int add_format(struct bc_record_opts *o, const char *name, char *err, size_t errlen)
{
	const struct bc_format *f = bc_format_find(name);
	char names[128];

	if (!f) {
		snprintf(err, errlen, "-f takes one of %s, not '%s'",
			 bc_format_names(names, sizeof(names), ", "), name);
		return -EINVAL;
	}
	for (size_t i = 0; i < o->n_formats; i++)
		if (o->formats[i] == f)
			return 0;
	if (o->n_formats == BC_MAX_FORMATS)
		return bad(err, errlen, "%s", "too many -f formats");
	o->formats[o->n_formats++] = f;
	return 0;
}

/* -P PID[,PID...]: positive ids, each once, at most BC_MAX_ATTACH_PIDS in all. */
static int parse_pids(struct bc_record_opts *o, const char *arg, char *err, size_t errlen)
{
	const char *p = arg;

	if (!o->attach_pids) {
		o->attach_pids = calloc(BC_MAX_ATTACH_PIDS, sizeof(*o->attach_pids));
		if (!o->attach_pids)
			return bad(err, errlen, "%s", "out of memory");
	}
	for (;;) {
		char *end;
		unsigned long v;
		bool dup = false;

		errno = 0;
		v = strtoul(p, &end, 10);
		if (end == p || errno || v == 0 || v > INT32_MAX || (*end && *end != ',') ||
		    !(*p >= '0' && *p <= '9'))
			return bad(err, errlen,
				   "-P takes process ids separated by commas (e.g. -P 1234,5678), "
				   "not '%s'",
				   arg);
		for (size_t i = 0; i < o->n_attach_pids; i++)
			dup |= o->attach_pids[i] == (uint32_t)v;
		if (!dup) {
			if (o->n_attach_pids == BC_MAX_ATTACH_PIDS)
				return bad(err, errlen,
					   "-P takes at most 64 processes, not more (%s)", arg);
			o->attach_pids[o->n_attach_pids++] = (uint32_t)v;
		}
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* -p: collect's spelling; a number is milliseconds, kept as whole microseconds. */
static int parse_profile(const char *arg, unsigned int *us)
{
	char *end;
	double ms;

	if (!strcmp(arg, "on"))
		*us = BC_PROFILE_ON_US;
	else if (!strcmp(arg, "lo"))
		*us = 100000;
	else if (!strcmp(arg, "hi"))
		*us = 1000;
	else if (!strcmp(arg, "off"))
		*us = 0;
	else {
		ms = strtod(arg, &end);
		if (end == arg || *end || !(ms >= 0.1 && ms <= 1000))
			return -EINVAL;
		*us = (unsigned int)(ms * 1000 + 0.5);
	}
	return 0;
}

/*
 * -s: on (waits of BC_SYNC_ON_US or more), all (every call), off, or a
 * threshold in microseconds.
 */
static int parse_sync(const char *arg, struct bc_record_opts *o)
{
	char *end;
	unsigned long v;

	o->sync = true;
	if (!strcmp(arg, "on")) {
		o->sync_threshold_us = BC_SYNC_ON_US;
	} else if (!strcmp(arg, "all")) {
		o->sync_threshold_us = 0;
	} else if (!strcmp(arg, "off")) {
		o->sync = false;
	} else {
		errno = 0;
		v = strtoul(arg, &end, 10);
		if (end == arg || *end || errno || arg[0] == '-' || v > 10000000)
			return -EINVAL;
		o->sync_threshold_us = (unsigned int)v;
	}
	return 0;
}

/* -t: seconds, with an optional unit s or m. */
static int parse_duration(const char *arg, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || v <= 0 || v != v)
		return -EINVAL;
	if (!strcmp(end, "m"))
		v *= 60;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	if (v > 366.0 * 24 * 3600)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Which processes, for how long, with what limits: one option; -ENOENT when c is none. */
static int parse_limit_option(struct bc_record_opts *o, int c, char *err, size_t errlen)
{
	switch (c) {
	case 'F':
		if (strcmp(optarg, "on") && strcmp(optarg, "off"))
			return bad(err, errlen, "-F takes on or off, not '%s'", optarg);
		o->follow = strcmp(optarg, "on") == 0;
		return 0;
	case OPT_BUFSIZE: {
		char *end;
		unsigned long v = strtoul(optarg, &end, 10);

		if (*end || end == optarg || v == 0 || v > 1024 || (v & (v - 1)))
			return bad(err, errlen,
				   "--bufsize takes a power of two of MiB from 1 to 1024, "
				   "not '%s'",
				   optarg);
		o->bufsize_mib = (unsigned int)v;
		return 0;
	}
	case OPT_NO_MULTI:
		o->no_multi = true;
		return 0;
	case OPT_RETURN_PROBES: {
		static const char *const modes[] = {[BC_RETURNS_AUTO] = "auto",
						    [BC_RETURNS_URETPROBE] = "uretprobe",
						    [BC_RETURNS_SITES] = "sites"};

		for (int m = 0; m < (int)(sizeof(modes) / sizeof(modes[0])); m++)
			if (!strcmp(optarg, modes[m])) {
				o->return_probes = m;
				return 0;
			}
		return bad(err, errlen, "--return-probes takes auto, uretprobe or sites, not '%s'",
			   optarg);
	}
	case OPT_NO_DEMANGLE:
		o->no_demangle = true;
		return 0;
	case OPT_MODE:
		return bc_out_mode_parse(optarg, &o->out_mode, err, errlen);
	case OPT_STRING_SIZE: {
		char *end;
		unsigned long v = strtoul(optarg, &end, 10);

		if (*end || end == optarg || v == 0 || v > BC_STRLEN_MAX)
			return bad(err, errlen,
				   "--string-size takes a number of bytes from 1 to 4096, "
				   "not '%s'",
				   optarg);
		o->string_size = (unsigned int)v;
		return 0;
	}
	case 'P':
		if (parse_pids(o, optarg, err, errlen) < 0)
			return -EINVAL;
		return 0;
	case 't':
		if (parse_duration(optarg, &o->duration_s) < 0)
			return bad(err, errlen,
				   "-t takes a duration in seconds (e.g. 10, 2.5, 10s or "
				   "1m), not '%s'",
				   optarg);
		return 0;
	case OPT_MAX_PROBES: {
		char *end;
		unsigned long v = strtoul(optarg, &end, 10);

		if (*end || end == optarg || v == 0 || v > 1000000)
			return bad(err, errlen,
				   "--max-probes takes a number of functions from 1 to "
				   "1000000, not '%s'",
				   optarg);
		o->max_probes = (unsigned int)v;
		return 0;
	}
	case OPT_ARCHIVE_LIMIT:
		if (bc_archive_parse_limit(optarg, &o->archive_limit) < 0)
			return bad(err, errlen,
				   "--archive-limit takes a size such as 500M or 2G, or none, "
				   "not '%s'",
				   optarg);
		return 0;
	}
	return -ENOENT;
}

/* What to trace: one option; 0, or -ENOENT when c is none of these. */
static int parse_trace_option(struct bc_record_opts *o, int c, char *err, size_t errlen)
{
	switch (c) {
	case 'u':
		if (!*optarg)
			return bad(err, errlen, "%s",
				   "-u needs [OBJ:]GLOB, e.g. -u 'compute*' or -u "
				   "libc:malloc");
		o->specs[o->n_specs++] = optarg;
		return 0;
	case OPT_SYSCALLS:
		o->syscalls = true;
		o->syscall_list = optarg && *optarg && strcmp(optarg, "all") ? optarg : NULL;
		return 0;
	case OPT_ARG:
		o->arg_specs[o->n_arg_specs++] = optarg;
		return 0;
	case OPT_RETVAL:
		o->ret_specs[o->n_ret_specs++] = optarg;
		return 0;
	case 'p':
		if (parse_profile(optarg, &o->profile_us) < 0)
			return bad(err, errlen,
				   "-p takes on, lo, hi, off or a period in milliseconds "
				   "(0.1 to 1000), not '%s'",
				   optarg);
		return 0;
	case 'H':
		if (strcmp(optarg, "on") && strcmp(optarg, "off"))
			return bad(err, errlen, "-H takes on or off, not '%s'", optarg);
		o->heap = !strcmp(optarg, "on");
		return 0;
	case 'i':
		if (strcmp(optarg, "on") && strcmp(optarg, "off"))
			return bad(err, errlen, "-i takes on or off, not '%s'", optarg);
		o->io = !strcmp(optarg, "on");
		return 0;
	case 's':
		if (parse_sync(optarg, o) < 0)
			return bad(err, errlen,
				   "-s takes on, off, all or a threshold in microseconds "
				   "(0 to 10000000), not '%s'",
				   optarg);
		return 0;
	case 'a':
		o->system_wide = true;
		o->kernel_exp = true;
		o->offcpu = true;
		return 0;
	case 'k':
		o->kernel_exp = true;
		o->offcpu = true;
		return 0;
	case OPT_OFFCPU:
		o->offcpu = true;
		return 0;
	}
	return parse_limit_option(o, c, err, errlen);
}

/* One option getopt returned: 0, 1 for --help, or -EINVAL with one line in err. */
static int parse_option(struct bc_record_opts *o, int c, char **argv, char *err, size_t errlen)
{
	int rc;

	switch (c) {
	case 'o':
		o->exp_name = optarg;
		return 0;
	case 'd':
		o->exp_dir = optarg;
		return 0;
	case 'S': {
		char *end;
		double v;

		if (!strcmp(optarg, "on")) {
			o->sample_ms = 1000;
			o->archive = true;
			return 0;
		}
		if (!strcmp(optarg, "off")) {
			o->sample_ms = 0;
			return 0;
		}
		v = strtod(optarg, &end);
		if (*end || end == optarg || v < 0.01 || v > 3600)
			return bad(err, errlen,
				   "-S takes on, off or an interval in seconds (0.01 to "
				   "3600), not '%s'",
				   optarg);
		o->sample_ms = (unsigned int)(v * 1000 + 0.5);
		return 0;
	}
	case 'C':
		o->comments[o->n_comments++] = optarg;
		return 0;
	case 'f':
		if (add_format(o, optarg, err, errlen) < 0)
			return -EINVAL;
		return 0;
	case 'A':
		if (strcmp(optarg, "on") && strcmp(optarg, "off") && strcmp(optarg, "copy"))
			return bad(err, errlen, "-A takes on, off or copy, not '%s'", optarg);
		o->archive = strcmp(optarg, "off") != 0;
		o->archive_all = strcmp(optarg, "copy") == 0;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case OPT_STATUS:
		o->status = true;
		return 0;
	case 'v':
		o->verbose = true;
		return 0;
	case 'h':
		return 1;
	case ':':
		return bad(err, errlen, "option '%s' needs a value; see bpfcollect record --help",
			   argv[optind - 1]);
	default:
		if (c >= OPT_FORMAT_FIRST)
			return bc_format_option_parse(c, OPT_FORMAT_FIRST, optarg, &o->fopts, err,
						      errlen) < 0
				       ? -EINVAL
				       : 0;
		rc = parse_trace_option(o, c, err, errlen);
		if (rc != -ENOENT)
			return rc;
		return bad(err, errlen, "unknown option '%s'; see bpfcollect record --help",
			   argv[optind - 1]);
	}
}

/* The defaults, and room for the repeatable options. -ENOMEM. */
static int opts_init(struct bc_record_opts *o, int argc)
{
	memset(o, 0, sizeof(*o));
	o->follow = true;
	o->bufsize_mib = BC_DEFAULT_BUFSIZE_MIB;
	o->max_probes = BC_DEFAULT_MAX_PROBES;
	o->string_size = BC_STRLEN_DEFAULT;
	o->sample_ms = 1000;
	o->archive = true;
	o->archive_limit = BC_ARCHIVE_DEFAULT_LIMIT;
	bc_format_opts_init(&o->fopts);
	o->specs = calloc((size_t)argc + 1, sizeof(*o->specs));
	o->arg_specs = calloc((size_t)argc + 1, sizeof(*o->arg_specs));
	o->ret_specs = calloc((size_t)argc + 1, sizeof(*o->ret_specs));
	o->comments = calloc((size_t)argc + 1, sizeof(*o->comments));
	return o->specs && o->arg_specs && o->ret_specs && o->comments ? 0 : -ENOMEM;
}

/*
 * What can be judged of the option values alone, before anything is
 * loaded: --arg and --retval specs, the --syscalls list, the experiment's
 * name. Usage errors all (exit 2).
 */
static int check_values(const struct bc_record_opts *o, char *err, size_t errlen)
{
	uint8_t on[BC_SYSCALL_MAX];
	int rc = 0;

	for (size_t i = 0; i < o->n_arg_specs + o->n_ret_specs && !rc; i++) {
		bool ret = i >= o->n_arg_specs;
		struct bc_argspec a;

		rc = bc_argspec_parse(ret ? o->ret_specs[i - o->n_arg_specs] : o->arg_specs[i], ret,
				      o->string_size, &a, err, errlen);
		bc_argspec_free(&a);
	}
	if (!rc && o->syscalls)
		rc = bc_syscall_list_parse(o->syscall_list, on, err, errlen);
	for (size_t i = 0; i < o->n_formats && !rc; i++)
		if (o->formats[i]->output == BC_FORMAT_EXPERIMENT && o->exp_name)
			rc = bc_exp_name_check(o->exp_name, err, errlen);
	return rc == -ENOMEM ? bad(err, errlen, "%s", "out of memory") : rc ? -EINVAL : 0;
}

/* What is traced, once every option is in: a command, -P or -a, and what each allows. */
static int check_target(struct bc_record_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	if (!o->n_formats)
		o->formats[o->n_formats++] = bc_format_find("er");
	if (o->system_wide && (o->n_attach_pids || optind < argc))
		return bad(err, errlen,
			   "record: -a traces every process; give -a, -P PID or a command, not "
			   "more than one%s",
			   "");
	if (o->system_wide) {
		for (size_t i = 0; i < o->n_specs; i++)
			if (!bc_spec_has_object(o->specs[i]))
				return bad(err, errlen,
					   "-u '%s': with -a, name the object too (OBJ:GLOB, e.g. "
					   "libc:malloc or /usr/bin/prog:main)",
					   o->specs[i]);
		return 0;
	}
	if (o->n_attach_pids && optind < argc)
		return bad(err, errlen,
			   "record: give a command or -P PID, not both ('%s' follows -P)",
			   argv[optind]);
	if (!o->n_attach_pids && optind >= argc)
		return bad(err, errlen, "%s",
			   "record: no command given; usage: bpfcollect record [OPTIONS] -- CMD "
			   "[ARGS], or -P PID to attach to a running process");
	o->argv = o->n_attach_pids ? NULL : argv + optind;
	return 0;
}

/*
 * --rtl-message OBJ:FUNC:ARGN: FUNC is probed (-u OBJ:FUNC) and its string
 * argument captured (--arg OBJ:FUNC@argN/s:256) for the RTL sink.
 */
static int rtl_message_probes(struct bc_record_opts *o, char *err, size_t errlen)
{
	const struct bc_rtl_opts *r = &o->fopts.rtl;
	bool rtl = false;

	for (size_t i = 0; i < o->n_formats; i++)
		rtl |= !strcmp(o->formats[i]->name, "rtl");
	if (r->n_messages && !rtl)
		return bad(err, errlen, "--rtl-message '%s' is for -f rtl; add -f rtl",
			   r->messages[0].spec);
	for (size_t i = 0; i < r->n_messages; i++) {
		const struct bc_rtl_message_fn *m = &r->messages[i];
		char **probe = &o->rtl_probes[o->n_rtl_probes], **arg = probe + 1;

		if (asprintf(probe, "%s:%s", m->object, m->func) < 0)
			return bad(err, errlen, "%s", "out of memory");
		if (asprintf(arg, "%s:%s@arg%u/s:256", m->object, m->func, m->arg) < 0) {
			free(*probe);
			return bad(err, errlen, "%s", "out of memory");
		}
		o->n_rtl_probes += 2;
		/* room: every --rtl-message took an argv slot, and the arrays have argc + 1 */
		o->specs[o->n_specs++] = *probe;
		o->arg_specs[o->n_arg_specs++] = *arg;
	}
	return 0;
}

int bc_record_parse_opts(int argc, char **argv, struct bc_record_opts *o, char *err, size_t errlen)
{
	struct option longopts[64];
	size_t used = 0, n_opts;
	int c, rc;

	if (opts_init(o, argc) < 0)
		return bad(err, errlen, "%s", "out of memory");
	n_opts = sizeof(base_longopts) / sizeof(base_longopts[0]) - 1;
	memcpy(longopts, base_longopts, n_opts * sizeof(*longopts));
	if (bc_format_longopts(longopts, &n_opts, sizeof(longopts) / sizeof(longopts[0]),
			       OPT_FORMAT_FIRST) < 0)
		return bad(err, errlen, "%s", "too many format options");
	optind = 1;
	opterr = 0; /* our own one-line messages */
	while ((c = getopt_long(argc, argv, bc_record_cmd_opts.shortopts, longopts, NULL)) != -1)
		if ((rc = parse_option(o, c, argv, err, errlen)))
			return rc;
	/* neither can win without surprising someone: -q in an alias, --status typed after */
	if (o->quiet && o->status)
		return bad(err, errlen, "%s",
			   "-q silences the status line that --status asks for; give one of them");
	rc = check_target(o, argc, argv, err, errlen);
	if (!rc)
		rc = rtl_message_probes(o, err, errlen);
	if (!rc)
		rc = check_values(o, err, errlen);
	if (rc)
		return rc;
	for (int i = 0; i < optind && used < sizeof(o->options_text) - 1; i++)
		used += (size_t)snprintf(o->options_text + used, sizeof(o->options_text) - used,
					 "%s%s", i ? " " : "", argv[i]);
	return 0;
}

void bc_record_opts_free(struct bc_record_opts *o)
{
	free(o->specs);
	free(o->arg_specs);
	for (size_t i = 0; i < o->n_rtl_probes; i++)
		free(o->rtl_probes[i]);
	o->n_rtl_probes = 0;
	free(o->ret_specs);
	free(o->comments);
	free(o->attach_pids);
	o->attach_pids = NULL;
	o->n_attach_pids = 0;
	o->comments = NULL;
	o->n_comments = 0;
	o->specs = NULL;
	o->arg_specs = o->ret_specs = NULL;
	o->n_specs = o->n_arg_specs = o->n_ret_specs = 0;
}
