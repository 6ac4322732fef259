// SPDX-License-Identifier: MIT
/* `bpfcollect report EXP [VIEW...]`: replay an experiment into the report engine and print it. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/cli.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/archive.h"
#include "bpfcollect/report.h"
#include "bpfcollect/report_exp.h"
#include "bpfcollect/report_offcpu.h"
#include "bpfcollect/report_procs.h"
#include "bpfcollect/report_profile.h"
#include "bpfcollect/report_io.h"
#include "bpfcollect/report_traces.h"
#include "bpfcollect/report_tree.h"
#include "bpfcollect/sink_calls.h"
#include "bpfcollect/sink_filter.h"
#include "bpfcollect/sink_text.h"
#include "bpfcollect/termsafe.h"

enum view {
	VIEW_HEADER = 1,
	VIEW_FUNCTIONS = 2,
	VIEW_SYSCALLS = 4,
	VIEW_EVENTS = 8,
	VIEW_CALLS = 16,
	VIEW_CALLTREE = 32,
	VIEW_CALLERS_CALLEES = 64,
	VIEW_THREADS = 128,
	VIEW_OVERVIEW = 256,
	VIEW_OBJECTS = 512,
	VIEW_PROFILE = 1024,
	VIEW_PROCS = 2048,
	VIEW_OFFCPU = 4096,
	VIEW_HEAP = 8192,
	VIEW_LEAKS = 16384,
	VIEW_SYNC = 32768,
	VIEW_IO = 65536,
	VIEW_TREE_VIEWS = VIEW_CALLTREE | VIEW_CALLERS_CALLEES | VIEW_THREADS,
};

/*
 * The views: the one table of their names, which the parser, --help, the
 * unknown-view error and --list-views (completion, the man page's test)
 * all read. help: lines, the first printed beside the name.
 */
static const struct view_def {
	const char *name;
	enum view view;
	bool func; /* a FUNC (a glob) follows it */
	const char *help;
} view_defs[] = {
	{"header", VIEW_HEADER, false, "command, pids, times, exit status, events and losses"},
	{"functions", VIEW_FUNCTIONS, false, "calls, inclusive and exclusive time per function"},
	{"syscalls", VIEW_SYSCALLS, false, "calls, time and errors per syscall"},
	{"events", VIEW_EVENTS, false,
	 "every event, one per line: TIME PID TID SEQ DEPTH KIND NAME ...\n"
	 "(calls, syscalls, processes, off-CPU intervals, clock samples,\n"
	 "heap, sync and I/O calls, losses: docs/text.md)"},
	{"calls", VIEW_CALLS, true,
	 "each call of functions matching FUNC (a glob) with its captured\n"
	 "arguments and return value (record with --arg/--retval)"},
	{"calltree", VIEW_CALLTREE, false,
	 "the call tree, all threads merged: for each call path, inclusive\n"
	 "time and calls; children by time (-n N: at most N per node);\n"
	 "32 levels deep, what lies deeper one line per node"},
	{"callers-callees", VIEW_CALLERS_CALLEES, true,
	 "for each function matching FUNC (a glob): its callers, then *FUNC\n"
	 "with its exclusive time, then its callees, each with the time\n"
	 "attributed to that caller or callee, and its calls"},
	{"threads", VIEW_THREADS, false,
	 "per thread: events, calls, syscalls, first and last event,\n"
	 "lifetime, time in traced functions"},
	{"overview", VIEW_OVERVIEW, false,
	 "usage samples of each process: user and system CPU, wait\n"
	 "for CPU, sleep, context switches, faults (gprofng's names)"},
	{"objects", VIEW_OBJECTS, false, "the load objects each process mapped, and when"},
	{"profile", VIEW_PROFILE, false,
	 "the clock profile (record -p): exclusive CPU with its user\n"
	 "and system parts, and inclusive CPU, by function, kernel\n"
	 "functions included (vmlinux`NAME), as gprofng lists them"},
	{"procs", VIEW_PROCS, false,
	 "per process: threads, CPU time, time off CPU (blocked, and\n"
	 "waiting for a CPU), voluntary and preempted switches,\n"
	 "syscalls, end (record -k, -a or --offcpu); the default\n"
	 "first view of a kernel experiment"},
	{"heap", VIEW_HEAP, false,
	 "allocations, bytes, leaks and leaked bytes by function\n"
	 "(record -H on), as gprofng's heap metrics"},
	{"leaks", VIEW_LEAKS, false,
	 "blocks never freed, grouped by the stack that allocated\n"
	 "them, biggest first (record -H on), as gprofng -leaks"},
	{"sync", VIEW_SYNC, false,
	 "time waited in locks, condition waits, joins and\n"
	 "semaphores by function (record -s on)"},
	{"io", VIEW_IO, false,
	 "read, write, other and error time, bytes and counts by\n"
	 "file (record -i on), as gprofng -ioactivity"},
	{"offcpu", VIEW_OFFCPU, false,
	 "time off CPU (record -k, -a or --offcpu), split into\n"
	 "blocked (Sleep) and waiting for a CPU (Wait CPU): by\n"
	 "thread, by the syscall it was in, and by function from\n"
	 "the user stack at switch-out (exclusive: the innermost\n"
	 "frame; inclusive: every function on the stack)"},
};

#define N_VIEWS (sizeof(view_defs) / sizeof(view_defs[0]))

/* A view's help lines, the first beside its name, the others under it. */
static void print_view_help(FILE *out, const char *help)
{
	const char *nl;

	while ((nl = strchr(help, '\n'))) {
		fprintf(out, "%.*s\n%14s", (int)(nl - help), help, "");
		help = nl + 1;
	}
	fprintf(out, "%s\n", help);
}

static void report_usage(FILE *out)
{
	fputs("usage: bpfcollect report [OPTIONS] EXP [VIEW...]\n"
	      "\n"
	      "Prints what an experiment recorded. Views (default: header functions syscalls):\n",
	      out);
	for (size_t i = 0; i < N_VIEWS; i++) {
		char head[32];
		int w = snprintf(head, sizeof(head), "%s%s", view_defs[i].name,
				 view_defs[i].func ? " FUNC" : "");

		/* a name too wide for the column gets the help on the lines below */
		if (w > 11)
			fprintf(out, "  %s\n%14s", head, "");
		else
			fprintf(out, "  %-11s ", head);
		print_view_help(out, view_defs[i].help);
	}
	fputs("\n"
	      "  -s, --sort KEY   functions order: excl (default), incl, calls, avg, name\n"
	      "  -n, --top N      at most N functions, or N calls (default 50), or N children\n"
	      "                   per calltree node\n"
	      "  --pid PID        one process only: descends into it in a kernel\n"
	      "                   experiment (its kernel-side records and its\n"
	      "                   subexperiment's functions)\n"
	      "  --founder-only   the founder experiment alone; by default its descendants'\n"
	      "                   subexperiments (_f1.er, _x1.er, ...) are merged in. A\n"
	      "                   subexperiment's own path reports it alone.\n"
	      "  --no-demangle    show C++ and Rust symbols raw (_Z7throweri), not\n"
	      "                   demangled (thrower(int)); FUNC globs match either\n"
	      "  --list-views     the views, one per line (NAME, or NAME FUNC for a view\n"
	      "                   that takes a function), for scripts and completion\n"
	      "  -h, --help       this text\n",
	      out);
}

/* --list-views: "NAME" or "NAME FUNC" per view, in --help's order. */
static void list_views(FILE *out)
{
	for (size_t i = 0; i < N_VIEWS; i++)
		fprintf(out, "%s%s\n", view_defs[i].name, view_defs[i].func ? " FUNC" : "");
}

/* "header functions ... calls FUNC ...": for the unknown-view error. */
static const char *view_names(char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = 0;
	for (size_t i = 0; i < N_VIEWS && pos < len; i++) {
		int n = snprintf(buf + pos, len - pos, "%s%s%s", i ? " " : "", view_defs[i].name,
				 view_defs[i].func ? " FUNC" : "");

		if (n < 0)
			break;
		pos += (size_t)n;
	}
	return buf;
}

static const struct view_def *find_view(const char *s)
{
	for (size_t i = 0; i < N_VIEWS; i++)
		if (!strcmp(s, view_defs[i].name))
			return &view_defs[i];
	return NULL;
}

static void describe_status(int status, char *buf, size_t len)
{
	if (status < 0)
		snprintf(buf, len, "unknown");
	else if (WIFEXITED(status))
		snprintf(buf, len, "exited with %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "status 0x%x", (unsigned int)status);
}

/*
 * s on one line, every control character escaped (a newline in an argv
 * would start a line of its own): in a buffer that lives until the next
 * call. Strings of log.xml are at most a few KiB; longer ones are cut.
 */
static const char *one_line(const char *s)
{
	static char buf[16384];

	return bc_term_escape(buf, sizeof(buf), s);
}

static void print_header(const char *exp, const struct bc_er_info *info,
			 const struct bc_report *rep, FILE *out)
{
	const struct bc_report_totals *t = bc_report_totals(rep);
	char when[64] = "?", status[96], dur[BC_DURATION_LEN];
	time_t wall = (time_t)info->wall_time;
	struct tm tm;
	uint64_t lost = 0;

	/* a log without a run event says no time: "?", not the epoch */
	if (wall && localtime_r(&wall, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
	for (int i = 0; i < BC_LOSS_NR; i++)
		lost += info->lost[i] > t->lost[i] ? info->lost[i] : t->lost[i];
	fprintf(out, "Experiment:  %s%s\n", exp,
		info->closed ? "" : "  (live: still being recorded, or the recorder died)");
	fprintf(out, "Command:     %s\n", info->cmdline ? one_line(info->cmdline) : "?");
	fprintf(out, "Process:     pid %" PRIu32 ", %zu processes, %zu threads\n", info->root_pid,
		bc_report_nprocesses(rep), bc_report_nthreads(rep));
	if (bc_report_pids_reused(rep))
		fprintf(out,
			"             (%zu of them took the pid of one that had exited: each is "
			"counted as its own)\n",
			bc_report_pids_reused(rep));
	fprintf(out, "Started:     %s\n", when);
	if (info->closed) {
		describe_status(info->exit_status, status, sizeof(status));
		fprintf(out, "Duration:    %s\n", bc_format_duration(dur, info->exit_tstamp));
		fprintf(out, "Exit:        %s\n", status);
	} else {
		fprintf(out, "Duration:    %s so far\n",
			bc_format_duration(dur, info->last_ktime > info->start_ktime
							? info->last_ktime - info->start_ktime
							: 0));
	}
	fprintf(out, "Recorded by: %s", info->collector ? one_line(info->collector) : "?");
	fprintf(out, "%s%s\n", info->options ? ": " : "",
		info->options ? one_line(info->options) : "");
	if (info->cut_short_errno) {
		uint64_t unwritten = info->lost[BC_LOSS_UNWRITTEN] > t->lost[BC_LOSS_UNWRITTEN]
					     ? info->lost[BC_LOSS_UNWRITTEN]
					     : t->lost[BC_LOSS_UNWRITTEN];

		fprintf(out,
			"Cut short:   %s: %" PRIu64
			" records were not written; what came before is whole\n",
			strerror(info->cut_short_errno), unwritten);
		lost -= unwritten;
	}
	fprintf(out, "Events:      %" PRIu64 " read, %" PRIu64 " lost%s\n", info->events_read, lost,
		lost ? " (the ring buffer was full: record with a larger --bufsize)" : "");
	char *comments = bc_notes_read(exp);

	if (comments) {
		fprintf(out, "Comments:\n%s%s", comments,
			comments[0] && comments[strlen(comments) - 1] != '\n' ? "\n" : "");
		free(comments);
	}
	if (info->notes)
		fprintf(out, "Reading it:\n%s", info->notes);
	fputc('\n', out);
}

/* What `report` was asked: the experiment, the views and how to show them. */
struct report_args {
	const char *exp;
	enum bc_sort_key key;
	bool descendants;
	uint32_t pid;
	size_t top;
	int views;
	bool default_views;
	const char *calls_glob;
	int argc, first_view; /* argv[first_view..argc): the views as given */
	char **argv;
	FILE *out; /* standard output, its control characters escaped (termsafe.h) */
};

/* Each `callers-callees FUNC` among the views argv[first..argc), in order. */
static int print_callers_callees(const struct bc_calltree *tree, FILE *out, int argc, char **argv,
				 int first)
{
	bool shown = false;
	int rc = 0;

	for (int i = first; !rc && i + 1 < argc; i++) {
		const struct view_def *v = find_view(argv[i]);

		/* The argument of a view taking one is not a view: skip it. */
		if (!v || !v->func)
			continue;
		i++;
		if (v->view != VIEW_CALLERS_CALLEES)
			continue;
		if (shown)
			fputc('\n', out);
		rc = bc_calltree_print_callers_callees(tree, out, argv[i]);
		shown = true;
	}
	return rc;
}

/*
 * calltree, callers-callees, threads: one more pass, into the call-tree
 * engine. argv[first..argc) are the views asked for.
 */
/* bc_er_read_tree, through a filter when one process is asked for (--pid). */
static int read_tree(const char *exp, bool descendants, uint32_t pid, struct bc_sink *sink,
		     struct bc_er_info *info, size_t *n_exps, char *err, size_t errlen)
{
	struct bc_sink *filter = NULL;
	int rc;

	if (pid) {
		filter = bc_pid_filter_sink_new(sink, pid);
		if (!filter) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		sink = filter;
	}
	rc = bc_er_read_tree(exp, descendants, sink, info, n_exps, err, errlen);
	bc_sink_destroy(filter);
	return rc;
}

static int print_tree_views(const struct report_args *a, char *err, size_t errlen)
{
	const char *exp = a->exp;
	bool descendants = a->descendants;
	uint32_t pid = a->pid;
	int views = a->views, argc = a->argc, first = a->first_view;
	char **argv = a->argv;
	size_t top = a->top;
	struct bc_calltree *tree = bc_calltree_new();
	struct bc_er_info again;
	int rc;

	memset(&again, 0, sizeof(again));
	if (!tree) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = read_tree(exp, descendants, pid, bc_calltree_sink(tree), &again, NULL, err, errlen);
	bc_er_info_free(&again);
	if (rc < 0)
		goto out;
	if (views & VIEW_CALLTREE) {
		rc = bc_calltree_print(tree, a->out, top);
		if (!rc && (views & (VIEW_CALLERS_CALLEES | VIEW_THREADS)))
			fputc('\n', a->out);
	}
	if (!rc && (views & VIEW_CALLERS_CALLEES)) {
		rc = print_callers_callees(tree, a->out, argc, argv, first);
		if (!rc && (views & VIEW_THREADS))
			fputc('\n', a->out);
	}
	if (!rc && (views & VIEW_THREADS))
		rc = bc_calltree_print_threads(tree, a->out);
	if (rc < 0)
		snprintf(err, errlen, "report: %s", strerror(-rc));
out:
	bc_calltree_free(tree);
	return rc;
}

enum { OPT_LIST_VIEWS = 256, OPT_NO_DEMANGLE };

/* 'F' and 'p' are no short options (not in shortopts): --founder-only and --pid only. */
static const struct option report_longopts[] = {
	{"sort", required_argument, NULL, 's'},
	{"top", required_argument, NULL, 'n'},
	{"founder-only", no_argument, NULL, 'F'},
	{"pid", required_argument, NULL, 'p'},
	{"list-views", no_argument, NULL, OPT_LIST_VIEWS},
	{"no-demangle", no_argument, NULL, OPT_NO_DEMANGLE},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

const struct bc_cmd_opts bc_report_cmd_opts = {"s:n:h", report_longopts, false};

/* The options: 0, or the exit code (-1: --help or a list, printed, exit 0). */
static int parse_report_options(int argc, char **argv, struct report_args *a)
{
	unsigned long v;
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, bc_report_cmd_opts.shortopts, report_longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 's':
			if (bc_sort_key_parse(optarg, &a->key) < 0) {
				bc_error("--sort takes excl, incl, calls, avg or name, not '%s'",
					 optarg);
				return 2;
			}
			break;
		case 'n':
			a->top = strtoul(optarg, &end, 10);
			if (*end || end == optarg) {
				bc_error("--top takes a number, not '%s'", optarg);
				return 2;
			}
			break;
		case 'F':
			a->descendants = false;
			break;
		case 'p':
			v = strtoul(optarg, &end, 10);
			if (*end || end == optarg || v == 0 || v > INT32_MAX) {
				bc_error("--pid takes a process id, not '%s'", optarg);
				return 2;
			}
			a->pid = (uint32_t)v;
			break;
		case OPT_NO_DEMANGLE:
			bc_demangle_set(false);
			break;
		case OPT_LIST_VIEWS:
			list_views(stdout);
			return -1;
		case 'h':
			report_usage(stdout);
			return -1;
		default:
			report_usage(stderr);
			return 2;
		}
	}
	return 0;
}

/* EXP and the views after the options: 0, or the exit code of a usage error. */
static int parse_report_views(int argc, char **argv, struct report_args *a)
{
	if (optind >= argc) {
		bc_error("report: no experiment given; usage: bpfcollect report EXP [VIEW...]");
		return 2;
	}
	a->exp = argv[optind++];
	a->argc = argc;
	a->argv = argv;
	a->first_view = optind;
	for (; optind < argc; optind++) {
		const struct view_def *v = find_view(argv[optind]);

		if (!v) {
			char names[512];

			bc_error("report: unknown view '%s'; views: %s", argv[optind],
				 view_names(names, sizeof(names)));
			return 2;
		}
		if (v->func && optind + 1 >= argc) {
			bc_error("report: %s needs a function name or glob, e.g. %s 'parse*'",
				 argv[optind], argv[optind]);
			return 2;
		}
		if (v->view == VIEW_CALLS)
			a->calls_glob = argv[optind + 1];
		if (v->func)
			optind++; /* its FUNC (print_callers_callees() reads it again) */
		a->views |= v->view;
	}
	a->default_views = !a->views;
	if (!a->views)
		a->views = VIEW_HEADER | VIEW_FUNCTIONS | VIEW_SYSCALLS;
	return 0;
}

/* One more pass over the experiment into sink (destroyed); 0 or -errno, said. */
static int replay_view(const struct report_args *a, struct bc_sink *sink)
{
	struct bc_er_info again;
	char err[1024];
	int rc;

	if (!sink) {
		bc_error("out of memory");
		return -ENOMEM;
	}
	memset(&again, 0, sizeof(again));
	rc = read_tree(a->exp, a->descendants, a->pid, sink, &again, NULL, err, sizeof(err));
	bc_sink_destroy(sink);
	bc_er_info_free(&again);
	if (rc < 0)
		bc_error("%s", err);
	return rc;
}

/* The views of the first pass (the report sink): header, procs, functions, syscalls. */
static int print_report_views(struct report_args *a, const struct bc_report *rep,
			      const struct bc_er_info *info, size_t n_exps)
{
	FILE *out = a->out;
	char err[1024];
	int rc;

	/* A kernel experiment (pid 0) opens with its processes. */
	if (a->default_views && info->root_pid == 0)
		a->views |= VIEW_PROCS;
	if (a->views & VIEW_HEADER) {
		print_header(a->exp, info, rep, out);
		if (n_exps > 1)
			fprintf(out,
				"Descendants: %zu subexperiments merged in (--founder-only: the "
				"founder alone)\n\n",
				n_exps - 1);
	}
	if (a->views & VIEW_PROCS) {
		rc = bc_report_procs(a->exp, a->descendants, a->pid, out, err, sizeof(err));
		if (rc < 0 && !(a->default_views && rc == -ENOENT)) {
			bc_error("%s", err);
			return rc;
		}
		fputc('\n', out);
	}
	if (a->views & VIEW_FUNCTIONS) {
		if (bc_report_nfuncs(rep) || info->funcs.n) {
			bc_report_print_functions(rep, out, a->key, a->top);
			fputc('\n', out);
		} else if (a->views != VIEW_HEADER) {
			fprintf(out, "No function events in this experiment.\n\n");
		}
	}
	if (a->views & VIEW_SYSCALLS) {
		if (bc_report_nsys(rep))
			bc_report_print_syscalls(rep, out);
		else if (!info->syscalls)
			fprintf(out, "No syscalls recorded (record with --syscalls).\n");
		else
			fprintf(out, "No syscalls recorded.\n");
	}
	return 0;
}

/* The views that replay the experiment again: events, calls, the call-tree views. */
static int print_replay_views(const struct report_args *a)
{
	FILE *out = a->out;
	char err[1024];
	int rc = 0;

	if (a->views & VIEW_EVENTS)
		rc = replay_view(a, bc_text_sink_new(out));
	if (!rc && (a->views & VIEW_CALLS))
		rc = replay_view(a, bc_calls_sink_new(out, a->calls_glob, a->top ? a->top : 50));
	if (!rc && (a->views & VIEW_TREE_VIEWS)) {
		/* The views above that end without a blank line. */
		if (a->views & (VIEW_SYSCALLS | VIEW_EVENTS | VIEW_CALLS))
			fputc('\n', out);
		rc = print_tree_views(a, err, sizeof(err));
		if (rc < 0)
			bc_error("%s", err);
	}
	return rc;
}

/* The views read from gprofng's files and the experiment's own: overview ... objects. */
static int print_file_views(const struct report_args *a)
{
	static const struct {
		int view;
		enum bc_trace_view which;
	} trace_views[] = {
		{VIEW_HEAP, BC_VIEW_HEAP}, {VIEW_LEAKS, BC_VIEW_LEAKS}, {VIEW_SYNC, BC_VIEW_SYNC}};
	const char *exp = a->exp;
	bool d = a->descendants;
	FILE *out = a->out;
	char err[1024];
	int rc = 0;

	if (a->views & VIEW_OVERVIEW)
		rc = bc_report_overview(exp, d, out, err, sizeof(err));
	if (!rc && (a->views & VIEW_PROFILE))
		rc = bc_report_profile(exp, d, a->top, out, err, sizeof(err));
	if (!rc && (a->views & VIEW_OFFCPU))
		rc = bc_report_offcpu(exp, d, a->pid, a->top, out, err, sizeof(err));
	for (size_t i = 0; !rc && i < sizeof(trace_views) / sizeof(trace_views[0]); i++)
		if (a->views & trace_views[i].view)
			rc = bc_report_traces(exp, d, trace_views[i].which, a->top, out, err,
					      sizeof(err));
	if (!rc && (a->views & VIEW_IO))
		rc = bc_report_io(exp, d, a->top, out, err, sizeof(err));
	if (!rc && (a->views & VIEW_OBJECTS))
		rc = bc_report_objects(exp, d, out, err, sizeof(err));
	if (rc < 0)
		bc_error("%s", err);
	return rc;
}

int bc_cmd_report(int argc, char **argv)
{
	struct report_args a = {.key = BC_SORT_EXCL, .descendants = true};
	struct bc_report *rep = NULL;
	struct bc_er_info info;
	size_t n_exps = 1;
	char err[1024];
	int rc, exit_code = 1;

	rc = parse_report_options(argc, argv, &a);
	if (!rc)
		rc = parse_report_views(argc, argv, &a);
	if (rc)
		return rc < 0 ? 0 : rc;
	memset(&info, 0, sizeof(info));
	rep = bc_report_new();
	if (!rep) {
		bc_error("out of memory");
		goto out;
	}
	rc = read_tree(a.exp, a.descendants, a.pid, bc_report_sink(rep), &info, &n_exps, err,
		       sizeof(err));
	if (rc < 0) {
		bc_error("%s", err);
		goto out;
	}
	/* every view prints through one filter: names in them are the traced programs' */
	a.out = bc_term_stream(stdout);
	if (!a.out) {
		bc_error("out of memory");
		goto out;
	}
	if (print_report_views(&a, rep, &info, n_exps) < 0 || print_replay_views(&a) < 0 ||
	    print_file_views(&a) < 0)
		goto out;
	exit_code = fflush(a.out) == 0 && fflush(stdout) == 0 ? 0 : 1;
out:
	if (a.out && fclose(a.out) != 0)
		exit_code = 1;
	bc_report_free(rep);
	bc_er_info_free(&info);
	return exit_code;
}
