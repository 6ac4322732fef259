// SPDX-License-Identifier: MIT
/* `bpfcollect archive EXP`: copy an experiment's load objects into EXP/archives. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "bpfcollect/outmode.h"
#include "bpfcollect/archive.h"
#include "bpfcollect/cli.h"

static const char archive_usage[] =
	"usage: bpfcollect archive [OPTIONS] EXP\n"
	"\n"
	"Copies every ELF file the experiment's map.xml files name (founder and\n"
	"subexperiments) into EXP/archives/ under the names gprofng looks for, with\n"
	"a compressed symbol index next to each, so the experiment keeps its\n"
	"function names when the files change or go away: after recording, for an\n"
	"experiment whose recorder died, or again by hand. Safe to run again, and\n"
	"while the experiment is still being recorded. EXP may be a subexperiment\n"
	"(its founder is archived). Layout and policy: docs/archives.md.\n"
	"\n"
	"A system-wide (-a) or kernel (-k) experiment gets only the objects its\n"
	"data hits (a stack frame of a sample, an off-CPU, heap, sync or I/O event,\n"
	"or an entered probe), most-hit first; another file with the same build id\n"
	"and size is hard-linked to the copy, not copied again.\n"
	"\n"
	"  --all           every object mapped, whatever the experiment's kind\n"
	"  --hits          only the objects the data hits, whatever its kind\n"
	"  --limit=SIZE    copy at most SIZE bytes (K, M, G; default 256M; none)\n"
	"  --mode=MODE     permissions of the copies: MODE (octal, e.g. 0644),\n"
	"                  archives/ MODE plus search (default 0600 and 0700)\n"
	"  -v, --verbose   say what happened to each object not archived\n"
	"  -h, --help      this text\n"
	"\n"
	"Exit status: 0 when archived (objects that cannot be archived are skipped\n"
	"and counted), 1 when EXP is not an experiment or cannot be written.\n";

static void print_summary(const char *exp, const struct bc_archive_report *rep, bool verbose)
{
	const char *sep = ": ";

	if (verbose && rep->notes)
		fputs(rep->notes, stdout);
	size_t archived = rep->copied + rep->linked + rep->present;

	printf("%s: %zu object%s archived (%zu copied, ", exp, archived, archived == 1 ? "" : "s",
	       rep->copied);
	if (rep->linked)
		printf("%zu linked, ", rep->linked);
	printf("%zu already there), %zu skipped", rep->present, rep->skipped);
	if (rep->hits_only)
		printf(", %zu never hit", rep->not_hit);
	for (int i = 0; i < BC_ARCHIVE_NSKIP; i++) {
		if (!rep->by_reason[i])
			continue;
		printf("%s%zu %s", sep, rep->by_reason[i],
		       bc_archive_skip_name((enum bc_archive_skip)i));
		if (rep->first_skipped[i])
			printf(rep->by_reason[i] == 1 ? " (%s)" : " (%s, ...)",
			       rep->first_skipped[i]);
		sep = ", ";
	}
	if (!verbose && rep->notes)
		fputs("; -v tells more", stdout);
	putchar('\n');
}

enum { OPT_ALL = 256, OPT_HITS, OPT_LIMIT, OPT_MODE };

static const struct option archive_longopts[] = {
	{"all", no_argument, NULL, OPT_ALL},
	{"hits", no_argument, NULL, OPT_HITS},
	{"limit", required_argument, NULL, OPT_LIMIT},
	{"mode", required_argument, NULL, OPT_MODE},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

const struct bc_cmd_opts bc_archive_cmd_opts = {"vh", archive_longopts, false};

int bc_cmd_archive(int argc, char **argv)
{
	struct bc_archive_opts opts = {.limit_bytes = BC_ARCHIVE_DEFAULT_LIMIT};
	struct bc_archive_report rep;
	bool verbose = false;
	char err[1024];
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, bc_archive_cmd_opts.shortopts, archive_longopts,
				NULL)) != -1) {
		switch (c) {
		case OPT_ALL:
			opts.policy = BC_ARCHIVE_ALL;
			break;
		case OPT_HITS:
			opts.policy = BC_ARCHIVE_HITS;
			break;
		case OPT_LIMIT:
			if (bc_archive_parse_limit(optarg, &opts.limit_bytes) < 0) {
				bc_error("archive: --limit takes a size such as 500M or 2G, or "
					 "none, not '%s'",
					 optarg);
				return 2;
			}
			break;
		case OPT_MODE: {
			mode_t mode;

			if (bc_out_mode_parse(optarg, &mode, err, sizeof(err)) < 0) {
				bc_error("archive: %s", err);
				return 2;
			}
			bc_out_mode_set(mode);
			break;
		}
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(archive_usage, stdout);
			return 0;
		default:
			fputs(archive_usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		bc_error("archive: %s; usage: bpfcollect archive [OPTIONS] EXP",
			 optind >= argc ? "no experiment given" : "one experiment at a time");
		return 2;
	}
	ret = bc_archive_experiment_opts(argv[optind], &opts, &rep, err, sizeof(err));
	if (ret < 0) {
		bc_error("archive: %s", err);
		bc_archive_report_free(&rep);
		return 1;
	}
	print_summary(argv[optind], &rep, verbose);
	bc_archive_report_free(&rep);
	return fflush(stdout) ? 1 : 0;
}
