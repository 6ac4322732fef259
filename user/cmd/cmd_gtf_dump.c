// SPDX-License-Identifier: MIT
/* `bpfcollect gtf-dump FILE...`: GTF user records, decoded (docs/gtf.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/cli.h"
#include "bpfcollect/gtf.h"
#include "bpfcollect/gtf_dump.h"

static const char gtf_dump_usage[] =
	"usage: bpfcollect gtf-dump [OPTIONS] FILE...\n"
	"\n"
	"Prints GTF user trace records (record -f gtf, or any program's in the same\n"
	"layout): each record's header decoded (AID, FID, EID, the TOD time stamp as\n"
	"UTC with microseconds, pid, job name), split series (AID F0, F1..., F3 or F2)\n"
	"joined into one record, bpfcollect's events decoded, and the data as hex and\n"
	"ASCII. A truncated file, a bad length, a series with a record missing, a wrong\n"
	"total length or a record of another series inside one are reported on stderr\n"
	"with the byte offset. Format: docs/gtf.md.\n"
	"\n"
	"  --no-hex      no hex dump of the data\n"
	"  --no-parts    no line per record of a split series, only the joined record\n"
	"  --ebcdic      job names are EBCDIC (code page 037)\n"
	"  --ascii       job names are ASCII (default: EBCDIC when they look so)\n"
	"  --ids         print the table of bpfcollect's FIDs and EIDs and exit\n"
	"  -h, --help    this text\n"
	"\n"
	"Exit status: 0; 1 when a file could not be read or had problems (what could\n"
	"be read is still printed); 2 for usage errors.\n";

enum { OPT_NO_HEX = 256, OPT_NO_PARTS, OPT_EBCDIC, OPT_ASCII, OPT_IDS };

static const struct option gtf_dump_longopts[] = {
	{"no-hex", no_argument, NULL, OPT_NO_HEX},
	{"no-parts", no_argument, NULL, OPT_NO_PARTS},
	{"ebcdic", no_argument, NULL, OPT_EBCDIC},
	{"ascii", no_argument, NULL, OPT_ASCII},
	{"ids", no_argument, NULL, OPT_IDS},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

const struct bc_cmd_opts bc_gtf_dump_cmd_opts = {"h", gtf_dump_longopts, false};

int bc_cmd_gtf_dump(int argc, char **argv)
{
	struct bc_gtf_dump_opts o = {0};
	int c, exit_code = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, bc_gtf_dump_cmd_opts.shortopts, gtf_dump_longopts,
				NULL)) != -1) {
		switch (c) {
		case OPT_NO_HEX:
			o.no_hex = true;
			break;
		case OPT_NO_PARTS:
			o.no_parts = true;
			break;
		case OPT_EBCDIC:
			o.charset = BC_GTF_CHARSET_EBCDIC;
			break;
		case OPT_ASCII:
			o.charset = BC_GTF_CHARSET_ASCII;
			break;
		case OPT_IDS:
			bc_gtf_ids_print(stdout);
			return fflush(stdout) ? 1 : 0;
		case 'h':
			fputs(gtf_dump_usage, stdout);
			return 0;
		default:
			fputs(gtf_dump_usage, stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		bc_error("gtf-dump: no file given; usage: bpfcollect gtf-dump [--no-hex] FILE...");
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		struct bc_gtf_dump_stats st;
		char *buf;
		size_t len;
		int rc = bc_read_regular_file(argv[i], BC_INPUT_MAX, &buf, &len);

		if (rc < 0) {
			bc_error("gtf-dump: %s: %s", argv[i],
				 rc == -EINVAL ? "not a regular file" : strerror(-rc));
			exit_code = 1;
			continue;
		}
		if (argc - optind > 1)
			printf("== %s\n", argv[i]);
		if (bc_gtf_dump((const uint8_t *)buf, len, argv[i], &o, stdout, stderr, &st)) {
			bc_error("gtf-dump: %s: %" PRIu64 " problem%s (see above)", argv[i],
				 st.problems, st.problems == 1 ? "" : "s");
			exit_code = 1;
		}
		free(buf);
	}
	return fflush(stdout) ? 1 : exit_code;
}
