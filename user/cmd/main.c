// SPDX-License-Identifier: MIT
/* bpfcollect: one binary, subcommands. */
#include <stdio.h>
#include <string.h>

#include "bpfcollect/cli.h"

static const char usage[] =
	"usage: bpfcollect COMMAND [OPTIONS] ...\n"
	"\n"
	"Kernel-assisted function, syscall and process tracer writing .er experiments\n"
	"that GNU gprofng also reads.\n"
	"\n"
	"commands:\n"
	"  record [OPTIONS] -- CMD [ARGS]   launch CMD, trace it and its descendants\n"
	"  report EXP [VIEW]                print functions and syscalls of an experiment\n"
	"  convert EXP -f FORMAT            write an experiment in another format\n"
	"  archive EXP                      copy the files an experiment maps into it\n"
	"  rtl-stat FILE...                 time the scopes of RTL scope logs\n"
	"  gtf-dump FILE...                 print GTF user trace records, decoded\n"
	"  version                          print the version\n"
	"\n"
	"'bpfcollect COMMAND --help' describes each command.\n";

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd || !strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(usage, cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("bpfcollect %s\n", BPFCOLLECT_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "record"))
		return bc_cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return bc_cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "convert"))
		return bc_cmd_convert(argc - 1, argv + 1);
	if (!strcmp(cmd, "archive"))
		return bc_cmd_archive(argc - 1, argv + 1);
	if (!strcmp(cmd, "rtl-stat"))
		return bc_cmd_rtl_stat(argc - 1, argv + 1);
	if (!strcmp(cmd, "gtf-dump"))
		return bc_cmd_gtf_dump(argc - 1, argv + 1);
	bc_error("unknown command '%s'; try 'bpfcollect --help'", cmd);
	return 2;
}
