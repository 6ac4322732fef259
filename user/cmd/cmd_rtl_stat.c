// SPDX-License-Identifier: MIT
/* `bpfcollect rtl-stat FILE...`: the scopes of RTL logs, timed (docs/rtl.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/cli.h"
#include "bpfcollect/rtl_stat.h"

static const char rtl_stat_usage[] =
	"usage: bpfcollect rtl-stat [OPTIONS] FILE...\n"
	"\n"
	"Times the scopes of RTL scope logs (record -f rtl, or any program's in the\n"
	"same format): per function scope ({ }) and per explicit scope (| lines whose\n"
	"messages start with { and }): count, total, average, min and max inclusive\n"
	"time, and exclusive time, in milliseconds, longest total first. Lines that do\n"
	"not parse, a } that closes nothing and scopes never closed are reported with\n"
	"file and line on stderr. Format: docs/rtl.md.\n"
	"\n"
	"  --by-thread   a row per scope and thread\n"
	"  --csv         CSV with a header line\n"
	"  -h, --help    this text\n"
	"\n"
	"Exit status: 0; 1 when a file could not be read or had problems (the table\n"
	"still shows what could be timed); 2 for usage errors.\n";

enum { OPT_BY_THREAD = 256, OPT_CSV };

static const struct option rtl_stat_longopts[] = {
	{"by-thread", no_argument, NULL, OPT_BY_THREAD},
	{"csv", no_argument, NULL, OPT_CSV},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

const struct bc_cmd_opts bc_rtl_stat_cmd_opts = {"h", rtl_stat_longopts, false};

int bc_cmd_rtl_stat(int argc, char **argv)
{
	bool by_thread = false, csv = false;
	struct bc_rtl_stat s;
	int c, exit_code = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, bc_rtl_stat_cmd_opts.shortopts, rtl_stat_longopts,
				NULL)) != -1) {
		switch (c) {
		case OPT_BY_THREAD:
			by_thread = true;
			break;
		case OPT_CSV:
			csv = true;
			break;
		case 'h':
			fputs(rtl_stat_usage, stdout);
			return 0;
		default:
			fputs(rtl_stat_usage, stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		bc_error(
			"rtl-stat: no file given; usage: bpfcollect rtl-stat [--by-thread] [--csv] "
			"FILE...");
		return 2;
	}
	bc_rtl_stat_init(&s, by_thread);
	for (int i = optind; i < argc; i++) {
		char *buf;
		size_t len;
		int rc = bc_read_regular_file(argv[i], BC_INPUT_MAX, &buf, &len);

		if (rc == 0)
			rc = bc_rtl_stat_feed(&s, argv[i], buf, len);
		free(buf);
		if (rc == -ENOMEM) {
			bc_error("rtl-stat: out of memory reading %s", argv[i]);
			bc_rtl_stat_free(&s);
			return 1;
		}
		if (rc < 0) {
			bc_error("rtl-stat: %s: %s", argv[i],
				 rc == -EINVAL ? "not a regular file" : strerror(-rc));
			exit_code = 1;
		}
	}
	bc_rtl_stat_sort(&s);
	bc_rtl_stat_print(&s, stdout, csv);
	if (s.problems) {
		if (s.report)
			fwrite(s.report, 1, s.report_len, stderr);
		bc_error("rtl-stat: %zu problem%s in %" PRIu64 " lines%s", s.problems,
			 s.problems == 1 ? "" : "s", s.lines,
			 s.problems > s.reported ? " (the first 1000 shown)" : "");
		exit_code = 1;
	}
	bc_rtl_stat_free(&s);
	return fflush(stdout) ? 1 : exit_code;
}
