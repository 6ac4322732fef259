// SPDX-License-Identifier: MIT
/* bpfcollect: one binary, subcommands. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bpfcollect/cli.h"
#include "bpfcollect/features.h"
#include "bpfcollect/formats.h"

static const char usage[] =
	"usage: bpfcollect COMMAND [OPTIONS] ...\n"
	"\n"
	"Kernel-assisted function, syscall and process tracer writing .er experiments\n"
	"that GNU gprofng also reads.\n"
	"\n"
	"Recording (root, or CAP_BPF and CAP_PERFMON):\n"
	"  record [OPTIONS] -- CMD [ARGS]   launch CMD, trace it and its descendants\n"
	"  record [OPTIONS] -P PID[,PID...] attach to running processes; Ctrl-C or -t\n"
	"                                   detaches and leaves them running\n"
	"  record [OPTIONS] -a              every process of the system, until Ctrl-C or -t\n"
	"\n"
	"commands:\n"
	"  record       trace, and write an experiment (default test.1.er)\n"
	"  report       print what an experiment recorded: functions, syscalls, call\n"
	"               tree, profile, heap, I/O, ... (report EXP [VIEW...])\n"
	"  convert      write an experiment in another format (convert EXP -f FORMAT)\n"
	"  archive      copy the files an experiment maps into it (archive EXP)\n"
	"  rtl-stat     time the scopes of RTL scope logs (rtl-stat FILE...)\n"
	"  gtf-dump     print GTF user trace records, decoded (gtf-dump FILE...)\n"
	"  version      print the version\n"
	"\n"
	"options:\n"
	"  -h, --help       this text\n"
	"  --version        the version, as the version command prints it\n"
	"  --list-cmds      the commands, one per line\n"
	"  --list-formats   the output formats of record -f and convert -f, one per\n"
	"                   line: NAME file|files|experiment SUFFIX\n"
	"  --list-opts      these options, one per line ('bpfcollect COMMAND\n"
	"                   --list-opts': the command's), for completion\n"
	"\n"
	"'bpfcollect COMMAND --help' describes each command. The manual: man bpfcollect,\n"
	"man bpfcollect-record, man bpfcollect-report, ... (one page per command).\n";

static const char version_usage[] =
	"usage: bpfcollect version [OPTIONS]\n"
	"\n"
	"Prints \"bpfcollect VERSION\".\n"
	"\n"
	"  --features    then what the running kernel offers the BPF programs, one\n"
	"                line per feature: yes, no (and the fallback a recording\n"
	"                uses instead) or MISSING (every recording needs it)\n"
	"  -h, --help    this text\n";

enum { VERSION_FEATURES = 256 };

static const struct option version_longopts[] = {
	{"features", no_argument, NULL, VERSION_FEATURES},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static const struct bc_cmd_opts version_cmd_opts = {"h", version_longopts, false};

static int cmd_version(int argc, char **argv)
{
	bool features = false;
	int c;

	optind = 1;
	opterr = 0; /* our own one-line message */
	while ((c = getopt_long(argc, argv, version_cmd_opts.shortopts, version_longopts, NULL)) !=
	       -1) {
		if (c == VERSION_FEATURES) {
			features = true;
			continue;
		}
		if (c == 'h') {
			fputs(version_usage, stdout);
			return 0;
		}
		bc_error("version: unknown option '%s'; see bpfcollect version --help",
			 argv[optind - 1]);
		return 2;
	}
	if (optind < argc) {
		bc_error("version takes no arguments, not '%s'", argv[optind]);
		return 2;
	}
	printf("bpfcollect %s\n", BPFCOLLECT_VERSION);
	if (features && bc_features_print(stdout) < 0) {
		bc_error("version --features: the kernel does not let this user load BPF programs, "
			 "so it cannot be asked what it offers; run it as root");
		return 1;
	}
	return 0;
}

/* The commands, in --help's order: --list-cmds and the dispatch read this table. */
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const struct bc_cmd_opts *opts;
} commands[] = {
	{"record", bc_cmd_record, &bc_record_cmd_opts},
	{"report", bc_cmd_report, &bc_report_cmd_opts},
	{"convert", bc_cmd_convert, &bc_convert_cmd_opts},
	{"archive", bc_cmd_archive, &bc_archive_cmd_opts},
	{"rtl-stat", bc_cmd_rtl_stat, &bc_rtl_stat_cmd_opts},
	{"gtf-dump", bc_cmd_gtf_dump, &bc_gtf_dump_cmd_opts},
	{"version", cmd_version, &version_cmd_opts},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

enum { TOP_HELP = 'h', TOP_VERSION = 256, TOP_LIST_CMDS, TOP_LIST_FORMATS, TOP_LIST_OPTS };

/* The top level's options: each stands alone, in place of a command. */
static const struct option top_longopts[] = {
	{"help", no_argument, NULL, TOP_HELP},
	{"version", no_argument, NULL, TOP_VERSION},
	{"list-cmds", no_argument, NULL, TOP_LIST_CMDS},
	{"list-formats", no_argument, NULL, TOP_LIST_FORMATS},
	{"list-opts", no_argument, NULL, TOP_LIST_OPTS},
	{NULL, 0, NULL, 0},
};

static const struct bc_cmd_opts top_cmd_opts = {"h", top_longopts, false};

/* The top level's own option (argv[1] starts with '-'): an exit code. */
static int top_option(int argc, char **argv)
{
	const char *opt = argv[1];
	int which = 0;

	for (const struct option *o = top_longopts; o->name && !which; o++)
		if (!strncmp(opt, "--", 2) && !strcmp(opt + 2, o->name))
			which = o->val;
	if (!strcmp(opt, "-h"))
		which = TOP_HELP;
	if (!which) {
		bc_error("unknown option '%s'; try 'bpfcollect --help'", opt);
		return 2;
	}
	if (which == TOP_HELP) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc > 2) {
		bc_error("%s takes no arguments, not '%s'", opt, argv[2]);
		return 2;
	}
	if (which == TOP_VERSION)
		printf("bpfcollect %s\n", BPFCOLLECT_VERSION);
	else if (which == TOP_LIST_FORMATS)
		bc_formats_list(stdout);
	else if (which == TOP_LIST_OPTS)
		bc_cmd_list_opts(stdout, &top_cmd_opts);
	else
		for (size_t i = 0; i < N_COMMANDS; i++)
			puts(commands[i].name);
	return fflush(stdout) ? 1 : 0;
}

/* bpfcollect CMD --list-opts: the options CMD's parser takes. */
static int list_opts(const struct command *c, int argc, char **argv)
{
	if (argc > 3) {
		bc_error("%s --list-opts takes no arguments, not '%s'", c->name, argv[3]);
		return 2;
	}
	if (bc_cmd_list_opts(stdout, c->opts) < 0) {
		bc_error("%s --list-opts: too many format options", c->name);
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		fputs(usage, stderr);
		return 2;
	}
	if (!strcmp(cmd, "help"))
		cmd = "--help";
	if (cmd[0] == '-') {
		argv[1] = (char *)cmd;
		return top_option(argc, argv);
	}
	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (strcmp(cmd, commands[i].name))
			continue;
		if (argc > 2 && !strcmp(argv[2], "--list-opts"))
			return list_opts(&commands[i], argc, argv);
		return commands[i].run(argc - 1, argv + 1);
	}
	bc_error("unknown command '%s'; try 'bpfcollect --help'", cmd);
	return 2;
}
