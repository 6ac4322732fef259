// SPDX-License-Identifier: MIT
/* `bpfcollect archive EXP`: copy an experiment's load objects into EXP/archives. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

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
	"(its founder is archived). Layout: docs/archives.md.\n"
	"\n"
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
	printf("%s: %zu object%s archived (%zu copied, %zu already there), %zu skipped", exp,
	       rep->copied + rep->present, rep->copied + rep->present == 1 ? "" : "s", rep->copied,
	       rep->present, rep->skipped);
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

int bc_cmd_archive(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct bc_archive_report rep;
	bool verbose = false;
	char err[1024];
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "vh", longopts, NULL)) != -1) {
		switch (c) {
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
		bc_error("archive: %s; usage: bpfcollect archive [-v] EXP",
			 optind >= argc ? "no experiment given" : "one experiment at a time");
		return 2;
	}
	ret = bc_archive_experiment(argv[optind], &rep, err, sizeof(err));
	if (ret < 0) {
		bc_error("archive: %s", err);
		bc_archive_report_free(&rep);
		return 1;
	}
	print_summary(argv[optind], &rep, verbose);
	bc_archive_report_free(&rep);
	return fflush(stdout) ? 1 : 0;
}
