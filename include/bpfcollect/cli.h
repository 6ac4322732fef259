/* SPDX-License-Identifier: MIT */
/* Subcommands and the one way the CLI reports errors. */
#ifndef BPFCOLLECT_CLI_H
#define BPFCOLLECT_CLI_H

/* Prints "bpfcollect: MESSAGE\n" to stderr: one line, naming the thing and what to do. */
void bc_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int bc_cmd_record(int argc, char **argv);
int bc_cmd_report(int argc, char **argv);
int bc_cmd_archive(int argc, char **argv);
int bc_cmd_convert(int argc, char **argv);
int bc_cmd_rtl_stat(int argc, char **argv);

#endif
