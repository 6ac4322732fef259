// SPDX-License-Identifier: MIT
/* The format registry (see bpfcollect/formats.h): one line per format. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/chrome.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/formats.h"
#include "bpfcollect/sink_text.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------- constructors */

static struct bc_sink *new_er(const struct bc_format_args *a, char *err, size_t errlen)
{
	return bc_er_format_sink_new(a->exp_path, err, errlen);
}

static struct bc_sink *new_prf(const struct bc_format_args *a, enum bc_prf_format format, char *err,
			       size_t errlen)
{
	struct bc_prf_opts o = a->opts->prf;
	struct bc_sink *s;

	o.format = format;
	s = bc_prf_sink_new(a->out, &o);
	if (!s)
		snprintf(err, errlen, "out of memory");
	return s;
}

static struct bc_sink *new_prf_csv(const struct bc_format_args *a, char *err, size_t errlen)
{
	return new_prf(a, BC_PRF_CSV, err, errlen);
}

static struct bc_sink *new_prf_dump(const struct bc_format_args *a, char *err, size_t errlen)
{
	return new_prf(a, BC_PRF_DUMP, err, errlen);
}

static struct bc_sink *new_rtl(const struct bc_format_args *a, char *err, size_t errlen)
{
	return bc_rtl_sink_new(a->prefix, a->replace, a->protect, &a->opts->rtl, err, errlen);
}

static struct bc_sink *new_gtf(const struct bc_format_args *a, char *err, size_t errlen)
{
	struct bc_sink *s = bc_gtf_sink_new(a->out, &a->opts->gtf);

	if (!s)
		snprintf(err, errlen, "out of memory");
	return s;
}

static struct bc_sink *new_chrome(const struct bc_format_args *a, char *err, size_t errlen)
{
	struct bc_sink *s = bc_chrome_sink_new(a->out, a->source_exp);

	if (!s)
		snprintf(err, errlen, "out of memory");
	return s;
}

static struct bc_sink *new_folded(const struct bc_format_args *a, char *err, size_t errlen)
{
	struct bc_sink *s = bc_folded_sink_new(a->out, &a->opts->folded, a->source_exp);

	if (!s)
		snprintf(err, errlen, "out of memory");
	return s;
}

static struct bc_sink *new_text(const struct bc_format_args *a, char *err, size_t errlen)
{
	struct bc_sink *s = bc_text_sink_new(a->out);

	if (!s)
		snprintf(err, errlen, "out of memory");
	return s;
}

/* ---------------------------------------------------------------- options */

static const struct option prf_longopts[] = {
	{"utc", no_argument, NULL, 0},
	{"prf-layout", required_argument, NULL, 0},
	{"prf-name", required_argument, NULL, 0},
	{"prf-truncate", required_argument, NULL, 0},
	{"prf-host-ip", required_argument, NULL, 0},
	{NULL, 0, NULL, 0},
};

static int parse_prf(struct bc_format_opts *o, const char *name, const char *arg, char *err,
		     size_t errlen)
{
	int rc = bc_prf_opt_parse(&o->prf, name, arg, err, errlen);

	return rc == -ENOENT ? -EINVAL : rc;
}

static const struct bc_format_options prf_options = {
	.longopts = prf_longopts,
	.help = bc_prf_opts_help,
	.parse = parse_prf,
};

static const struct option rtl_longopts[] = {
	{"rtl-author", required_argument, NULL, 0},
	{"rtl-message", required_argument, NULL, 0},
	{"rtl-samples", no_argument, NULL, 0},
	{NULL, 0, NULL, 0},
};

static int parse_rtl(struct bc_format_opts *o, const char *name, const char *arg, char *err,
		     size_t errlen)
{
	if (!strcmp(name, "rtl-samples")) {
		o->rtl.samples = true;
		return 0;
	}
	if (!strcmp(name, "rtl-message"))
		return bc_rtl_message_parse(&o->rtl, arg, err, errlen);
	/* one token: the author sits between parentheses in every scope name */
	if (!arg[0] || strlen(arg) >= sizeof(o->rtl.author) || strpbrk(arg, " \t\n()\\:")) {
		snprintf(err, errlen,
			 "--rtl-author takes one word (no spaces, parentheses or colons, at most "
			 "%zu characters), not '%s'",
			 sizeof(o->rtl.author) - 1, arg);
		return -EINVAL;
	}
	snprintf(o->rtl.author, sizeof(o->rtl.author), "%s", arg);
	return 0;
}

static const struct bc_format_options rtl_options = {
	.longopts = rtl_longopts,
	.help = "  --rtl-author=TOKEN  rtl: the author in every scope name (default: the login\n"
		"                      name)\n"
		"  --rtl-samples       rtl: a | line per clock sample (-p)\n"
		"  --rtl-message=OBJ:FUNC:ARGN  rtl: FUNC's string argument ARGN is a message:\n"
		"                      a | line each call; one starting with { or } opens or\n"
		"                      closes a logical scope (record probes FUNC)\n",
	.parse = parse_rtl,
};

static const struct option gtf_longopts[] = {
	{"gtf-ebcdic", no_argument, NULL, 0},
	{NULL, 0, NULL, 0},
};

static int parse_gtf(struct bc_format_opts *o, const char *name, const char *arg, char *err,
		     size_t errlen)
{
	(void)name;
	(void)arg;
	(void)err;
	(void)errlen;
	o->gtf.ebcdic = true; /* its only option */
	return 0;
}

static const struct bc_format_options gtf_options = {
	.longopts = gtf_longopts,
	.help = "  --gtf-ebcdic        gtf: job names in EBCDIC (code page 037)\n",
	.parse = parse_gtf,
};

static const struct option folded_longopts[] = {
	{"weight", required_argument, NULL, 0},
	{"offcpu", no_argument, NULL, 0},
	{NULL, 0, NULL, 0},
};

static int parse_folded(struct bc_format_opts *o, const char *name, const char *arg, char *err,
			size_t errlen)
{
	int rc = 0;

	if (!strcmp(name, "offcpu"))
		o->folded.offcpu = true;
	else
		rc = bc_folded_weight_parse(&o->folded, arg, err, errlen);
	return rc ? rc : bc_folded_opts_check(&o->folded, err, errlen);
}

static const struct bc_format_options folded_options = {
	.longopts = folded_longopts,
	.help = "  --weight=WEIGHT     folded: samples (count, the default with -p) or time\n"
		"                      (ns) of clock samples; excl (the default without -p)\n"
		"                      or incl: ns of each call path of the call trace\n"
		"  --offcpu            folded (convert): off-CPU intervals' stacks, weighed\n"
		"                      in ns (record's --offcpu records the intervals)\n",
	.parse = parse_folded,
};

/* ---------------------------------------------------------------- the registry */

static const struct bc_format formats[] = {
	{"er", "an experiment gprofng reads (default for record)", BC_FORMAT_EXPERIMENT, ".er",
	 new_er, NULL, false, NULL},
	{"prf-csv", "PRF records, CSV: a header line, one record per line", BC_FORMAT_FILE, ".csv",
	 new_prf_csv, &prf_options, false, NULL},
	{"prf-dump", "PRF records, dump: labelled lines and a hex dump of OPT", BC_FORMAT_FILE,
	 ".dump", new_prf_dump, &prf_options, false, NULL},
	{"text", "one line per event, as `report EXP events` prints them", BC_FORMAT_FILE, ".txt",
	 new_text, NULL, false, NULL},
	{"rtl", "RTL scope logs, { } | lines, one file per process: PREFIX_PID.log",
	 BC_FORMAT_FILES, "", new_rtl, &rtl_options, false, NULL},
	{"chrome", "Chrome trace event JSON: timelines in Perfetto, chrome://tracing, speedscope",
	 BC_FORMAT_FILE, ".json", new_chrome, NULL, false, "\n]}\n"},
	{"folded",
	 "collapsed stacks a line each: flame graphs (flamegraph.pl, inferno, speedscope)",
	 BC_FORMAT_FILE, ".folded", new_folded, &folded_options, false, NULL},
	{"gtf", "GTF user trace records, binary, split above 256 data bytes (gtf-dump reads them)",
	 BC_FORMAT_FILE, ".gtf", new_gtf, &gtf_options, true, NULL},
};

void bc_format_opts_init(struct bc_format_opts *o)
{
	const char *login = getlogin();
	struct passwd *pw = login ? NULL : getpwuid(geteuid());

	memset(o, 0, sizeof(*o));
	bc_prf_opts_init(&o->prf);
	/* the author is one token: a login name with anything odd in it is not used */
	if (!login && pw)
		login = pw->pw_name;
	if (login && login[0] && strlen(login) < sizeof(o->rtl.author) &&
	    !strpbrk(login, " \t\n()\\:"))
		snprintf(o->rtl.author, sizeof(o->rtl.author), "%s", login);
	else
		snprintf(o->rtl.author, sizeof(o->rtl.author), "%s", BC_RTL_DEFAULT_AUTHOR);
}

const struct bc_format *bc_format_find(const char *name)
{
	for (size_t i = 0; name && i < NELEM(formats); i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

int bc_format_check_output(const struct bc_format *f, const char *path, char *err, size_t errlen)
{
	if (!f->binary || (path && strcmp(path, "-")) || !isatty(STDOUT_FILENO))
		return 0;
	snprintf(err, errlen,
		 "-f %s is binary and standard output is a terminal: give -o FILE, or redirect "
		 "it",
		 f->name);
	return -EINVAL;
}

const struct bc_format *bc_format_at(size_t i)
{
	return i < NELEM(formats) ? &formats[i] : NULL;
}

const char *bc_format_names(char *buf, size_t len, const char *sep)
{
	size_t pos = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < NELEM(formats) && pos < len; i++) {
		int n = snprintf(buf + pos, len - pos, "%s%s", i ? sep : "", formats[i].name);

		if (n < 0)
			break;
		pos += (size_t)n;
	}
	return buf;
}

/* Whether formats[i] is the first to name its options (families share them). */
static bool first_with_options(size_t i)
{
	if (!formats[i].options)
		return false;
	for (size_t k = 0; k < i; k++)
		if (formats[k].options == formats[i].options)
			return false;
	return true;
}

void bc_formats_list(FILE *out)
{
	for (size_t i = 0; i < NELEM(formats); i++)
		fprintf(out, "%s %s %s\n", formats[i].name,
			formats[i].output == BC_FORMAT_EXPERIMENT ? "experiment"
			: formats[i].output == BC_FORMAT_FILES	  ? "files"
								  : "file",
			formats[i].suffix);
}

void bc_formats_help(FILE *out)
{
	for (size_t i = 0; i < NELEM(formats); i++)
		fprintf(out, "  %-10s %s\n", formats[i].name, formats[i].help);
	for (size_t i = 0; i < NELEM(formats); i++)
		if (first_with_options(i))
			fputs(formats[i].options->help, out);
}

int bc_format_longopts(struct option *opts, size_t *n, size_t cap, int first_val)
{
	int k = 0;

	for (size_t i = 0; i < NELEM(formats); i++) {
		if (!first_with_options(i))
			continue;
		for (const struct option *o = formats[i].options->longopts; o->name; o++, k++) {
			if (*n + 1 >= cap)
				return -ENOSPC;
			opts[*n] = *o;
			opts[*n].val = first_val + k;
			(*n)++;
		}
	}
	memset(&opts[*n], 0, sizeof(opts[*n]));
	return 0;
}

int bc_format_option_parse(int val, int first_val, const char *arg, struct bc_format_opts *o,
			   char *err, size_t errlen)
{
	int k = first_val;

	for (size_t i = 0; i < NELEM(formats); i++) {
		if (!first_with_options(i))
			continue;
		for (const struct option *opt = formats[i].options->longopts; opt->name; opt++, k++)
			if (k == val)
				return formats[i].options->parse(o, opt->name, arg, err, errlen);
	}
	return -ENOENT;
}
