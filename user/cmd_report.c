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

#include "bpfcollect/cli.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/report.h"
#include "bpfcollect/sink_calls.h"
#include "bpfcollect/sink_text.h"

static const char report_usage[] =
	"usage: bpfcollect report [OPTIONS] EXP [VIEW...]\n"
	"\n"
	"Prints what an experiment recorded. Views (default: header functions syscalls):\n"
	"  header      command, pids, times, exit status, events and losses\n"
	"  functions   calls, inclusive and exclusive time per function\n"
	"  syscalls    calls, time and errors per syscall\n"
	"  events      every event, one per line: TIME PID TID SEQ DEPTH KIND NAME ...\n"
	"  calls FUNC  each call of functions matching FUNC (a glob) with its captured\n"
	"              arguments and return value (record with --arg/--retval)\n"
	"\n"
	"  -s, --sort KEY   functions order: excl (default), incl, calls, avg, name\n"
	"  -n, --top N      at most N functions, or N calls (default 50)\n"
	"  -h, --help       this text\n";

enum view {
	VIEW_HEADER = 1,
	VIEW_FUNCTIONS = 2,
	VIEW_SYSCALLS = 4,
	VIEW_EVENTS = 8,
	VIEW_CALLS = 16
};

static int parse_view(const char *s)
{
	if (!strcmp(s, "header"))
		return VIEW_HEADER;
	if (!strcmp(s, "functions"))
		return VIEW_FUNCTIONS;
	if (!strcmp(s, "syscalls"))
		return VIEW_SYSCALLS;
	if (!strcmp(s, "events"))
		return VIEW_EVENTS;
	if (!strcmp(s, "calls"))
		return VIEW_CALLS;
	return -EINVAL;
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

static void print_header(const char *exp, const struct bc_er_info *info,
			 const struct bc_report *rep, FILE *out)
{
	const struct bc_report_totals *t = bc_report_totals(rep);
	char when[64] = "?", status[96], dur[BC_DURATION_LEN];
	time_t wall = (time_t)info->wall_time;
	struct tm tm;
	uint64_t lost = 0;

	if (localtime_r(&wall, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", &tm);
	for (int i = 0; i < BC_LOSS_NR; i++)
		lost += info->lost[i] > t->lost[i] ? info->lost[i] : t->lost[i];
	fprintf(out, "Experiment:  %s%s\n", exp,
		info->closed ? "" : "  (live: still being recorded, or the recorder died)");
	fprintf(out, "Command:     %s\n", info->cmdline ? info->cmdline : "?");
	fprintf(out, "Process:     pid %" PRIu32 ", %zu processes, %zu threads\n", info->root_pid,
		bc_report_nprocesses(rep), bc_report_nthreads(rep));
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
	fprintf(out, "Recorded by: %s%s%s\n", info->collector ? info->collector : "?",
		info->options ? ": " : "", info->options ? info->options : "");
	fprintf(out, "Events:      %" PRIu64 " read, %" PRIu64 " lost%s\n", info->events_read, lost,
		lost ? " (the ring buffer was full: record with a larger --bufsize)" : "");
	if (info->notes)
		fprintf(out, "Notes:\n%s", info->notes);
	fputc('\n', out);
}

int bc_cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"sort", required_argument, NULL, 's'},
		{"top", required_argument, NULL, 'n'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum bc_sort_key key = BC_SORT_EXCL;
	struct bc_er_info info;
	struct bc_report *rep = NULL;
	char err[1024];
	size_t top = 0;
	int views = 0, c, rc, exit_code = 1;
	const char *exp, *calls_glob = NULL;

	memset(&info, 0, sizeof(info));
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (bc_sort_key_parse(optarg, &key) < 0) {
				bc_error("--sort takes excl, incl, calls, avg or name, not '%s'",
					 optarg);
				return 2;
			}
			break;
		case 'n': {
			char *end;

			top = strtoul(optarg, &end, 10);
			if (*end || end == optarg) {
				bc_error("--top takes a number, not '%s'", optarg);
				return 2;
			}
			break;
		}
		case 'h':
			fputs(report_usage, stdout);
			return 0;
		default:
			fputs(report_usage, stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		bc_error("report: no experiment given; usage: bpfcollect report EXP [VIEW...]");
		return 2;
	}
	exp = argv[optind++];
	for (; optind < argc; optind++) {
		int v = parse_view(argv[optind]);

		if (v < 0) {
			bc_error("report: unknown view '%s'; views: header functions syscalls "
				 "events calls FUNC",
				 argv[optind]);
			return 2;
		}
		if (v == VIEW_CALLS) {
			if (optind + 1 >= argc) {
				bc_error("report: calls needs a function name or glob, e.g. calls "
					 "'parse*'");
				return 2;
			}
			calls_glob = argv[++optind];
		}
		views |= v;
	}
	if (!views)
		views = VIEW_HEADER | VIEW_FUNCTIONS | VIEW_SYSCALLS;

	rep = bc_report_new();
	if (!rep) {
		bc_error("out of memory");
		goto out;
	}
	rc = bc_er_read(exp, bc_report_sink(rep), &info, err, sizeof(err));
	if (rc < 0) {
		bc_error("%s", err);
		goto out;
	}
	if (views & VIEW_HEADER)
		print_header(exp, &info, rep, stdout);
	if (views & VIEW_FUNCTIONS) {
		if (bc_report_nfuncs(rep) || info.funcs.n) {
			bc_report_print_functions(rep, stdout, key, top);
			putchar('\n');
		} else if (views != VIEW_HEADER) {
			printf("No function events in this experiment.\n\n");
		}
	}
	if (views & VIEW_SYSCALLS) {
		if (bc_report_nsys(rep))
			bc_report_print_syscalls(rep, stdout);
		else if (!info.syscalls)
			printf("No syscalls recorded (record with --syscalls).\n");
		else
			printf("No syscalls recorded.\n");
	}
	if (views & VIEW_EVENTS) {
		struct bc_sink *text = bc_text_sink_new(stdout);
		struct bc_er_info again;

		memset(&again, 0, sizeof(again));
		if (!text) {
			bc_error("out of memory");
			goto out;
		}
		/* A second pass: the report sink has already consumed the first. */
		rc = bc_er_read(exp, text, &again, err, sizeof(err));
		bc_sink_destroy(text);
		bc_er_info_free(&again);
		if (rc < 0) {
			bc_error("%s", err);
			goto out;
		}
	}
	if (views & VIEW_CALLS) {
		struct bc_sink *calls = bc_calls_sink_new(stdout, calls_glob, top ? top : 50);
		struct bc_er_info again;

		memset(&again, 0, sizeof(again));
		if (!calls) {
			bc_error("out of memory");
			goto out;
		}
		rc = bc_er_read(exp, calls, &again, err, sizeof(err));
		bc_sink_destroy(calls);
		bc_er_info_free(&again);
		if (rc < 0) {
			bc_error("%s", err);
			goto out;
		}
	}
	exit_code = fflush(stdout) == 0 ? 0 : 1;
out:
	bc_report_free(rep);
	bc_er_info_free(&info);
	return exit_code;
}
