// SPDX-License-Identifier: MIT
/* `bpfcollect convert EXP -f FORMAT`: replay an experiment into a format's sink. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/cli.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/prf.h"

static const char convert_usage[] =
	"usage: bpfcollect convert [OPTIONS] EXP -f FORMAT [-o FILE]\n"
	"\n"
	"Writes what an experiment recorded in another format. Formats:\n"
	"  prf-csv    PRF records, CSV: a header line, one record per line\n"
	"  prf-dump   PRF records, dump format: labelled lines and a hex dump of OPT\n"
	"\n"
	"  -f, --format FORMAT    the output format (required)\n"
	"  -o, --output FILE      write to FILE (default, and '-': standard output)\n"
	"  --founder-only         the founder experiment alone; by default its\n"
	"                         descendants' subexperiments (_f1.er, _x1.er, ...)\n"
	"                         are merged in\n"
	"%s"
	"  -h, --help             this text\n"
	"\n"
	"The RootAP IP is this host's address when the experiment was recorded on this\n"
	"host, else 0.0.0.0 (give it with --prf-host-ip). docs/prf.md describes the fields.\n";

/*
 * Passes everything to the PRF sink; at begin, which comes after the
 * reader parsed log.xml, it sets RootAP IP from the recording host.
 */
struct host_check {
	struct bc_sink base;
	struct bc_sink *to;
	const struct bc_er_info *info;
	bool ip_given;
};

static int hc_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct host_check *h = (struct host_check *)s;
	char me[256];

	if (!h->ip_given && h->info->hostname &&
	    (gethostname(me, sizeof(me)) < 0 || strcmp(me, h->info->hostname)))
		bc_prf_sink_set_host_ip(h->to, "0.0.0.0");
	return bc_sink_begin(h->to, sess);
}

static int hc_event(struct bc_sink *s, const struct bc_event *e)
{
	return bc_sink_event(((struct host_check *)s)->to, e);
}

static int hc_end(struct bc_sink *s, const struct bc_session_end *x)
{
	return bc_sink_end(((struct host_check *)s)->to, x);
}

static const struct bc_sink_ops host_check_ops = {
	.name = "prf-host",
	.begin = hc_begin,
	.event = hc_event,
	.end = hc_end,
};

enum { OPT_FOUNDER = 256, OPT_UTC, OPT_LAYOUT, OPT_NAME, OPT_TRUNC, OPT_HOST };

static int convert(const char *exp, bool descendants, const char *output,
		   const struct bc_prf_opts *po)
{
	bool to_stdout = !output || !strcmp(output, "-");
	struct host_check hc = {.base.ops = &host_check_ops, .ip_given = po->host_ip != NULL};
	struct bc_er_info info;
	struct bc_sink *sink = NULL;
	FILE *out = stdout;
	char err[1024];
	int rc, exit_code = 1;

	memset(&info, 0, sizeof(info));
	if (!to_stdout && !(out = fopen(output, "w"))) {
		bc_error("convert: cannot write %s: %s", output, strerror(errno));
		return 1;
	}
	sink = bc_prf_sink_new(out, po);
	if (!sink) {
		bc_error("out of memory");
		goto out;
	}
	hc.to = sink;
	hc.info = &info;
	rc = bc_er_read_tree(exp, descendants, &hc.base, &info, NULL, err, sizeof(err));
	if (rc < 0) {
		bc_error("%s", err[0] ? err : strerror(-rc));
		goto out;
	}
	if (fflush(out) || ferror(out)) {
		bc_error("convert: writing %s: %s", to_stdout ? "standard output" : output,
			 strerror(errno ? errno : EIO));
		goto out;
	}
	exit_code = 0;
out:
	bc_sink_destroy(sink);
	bc_er_info_free(&info);
	if (!to_stdout) {
		if (fclose(out) && !exit_code) {
			bc_error("convert: writing %s: %s", output, strerror(errno));
			exit_code = 1;
		}
		if (exit_code)
			unlink(output); /* no half-written file is left to be mistaken for a whole
					   one */
	}
	return exit_code;
}

int bc_cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"founder-only", no_argument, NULL, OPT_FOUNDER},
		{"utc", no_argument, NULL, OPT_UTC},
		{"prf-layout", required_argument, NULL, OPT_LAYOUT},
		{"prf-name", required_argument, NULL, OPT_NAME},
		{"prf-truncate", required_argument, NULL, OPT_TRUNC},
		{"prf-host-ip", required_argument, NULL, OPT_HOST},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *format = NULL, *output = NULL, *exp;
	struct bc_prf_opts po;
	bool descendants = true;
	char err[256];
	int c, idx;

	bc_prf_opts_init(&po);
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:o:h", longopts, &idx)) != -1) {
		switch (c) {
		case 'f':
			if (format) {
				bc_error("convert: one -f FORMAT at a time ('%s' and '%s')", format,
					 optarg);
				return 2;
			}
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_FOUNDER:
			descendants = false;
			break;
		case OPT_UTC:
		case OPT_LAYOUT:
		case OPT_NAME:
		case OPT_TRUNC:
		case OPT_HOST:
			if (bc_prf_opt_parse(&po, longopts[idx].name, optarg, err, sizeof(err)) <
			    0) {
				bc_error("convert: %s", err);
				return 2;
			}
			break;
		case 'h':
			printf(convert_usage, bc_prf_opts_help);
			return 0;
		default:
			fprintf(stderr, convert_usage, bc_prf_opts_help);
			return 2;
		}
	}
	if (optind >= argc) {
		bc_error("convert: no experiment given; usage: bpfcollect convert EXP -f prf-csv");
		return 2;
	}
	if (optind + 1 < argc) {
		bc_error("convert: one experiment at a time ('%s' and '%s')", argv[optind],
			 argv[optind + 1]);
		return 2;
	}
	exp = argv[optind];
	if (!format) {
		bc_error("convert: no format given; add -f prf-csv or -f prf-dump");
		return 2;
	}
	if (bc_prf_format_parse(format, &po) < 0) {
		bc_error("convert: unknown format '%s'; formats: prf-csv prf-dump", format);
		return 2;
	}
	return convert(exp, descendants, output, &po);
}
