/* SPDX-License-Identifier: MIT */
/* Subcommands and the one way the CLI reports errors. */
#ifndef BPFCOLLECT_CLI_H
#define BPFCOLLECT_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Prints "bpfcollect: MESSAGE\n" to stderr: one line, naming the thing and
 * what to do. A line printed before (by bc_error or bc_warn) is not printed
 * again: every pass over a damaged input meets the same problem.
 */
void bc_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "bpfcollect: warning: MESSAGE\n", once per distinct text, as bc_error. */
void bc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * How many errors bc_error has printed so far: a caller whose callee failed
 * and already said why (the count moved) need not say it again.
 */
unsigned long bc_errors_said(void);
/* Forgets what was said (tests; memory back at the end). */
void bc_messages_forget(void);
/*
 * What holds the terminal's last line (record's status line) and must give
 * it up before a message is printed: clear(arg) is called by bc_error, and
 * by bc_message_begin() for messages printed otherwise. NULL: nothing.
 */
void bc_set_message_hook(void (*clear)(void *arg), void *arg);
void bc_message_begin(void);

/* The most a file reader (rtl-stat, gtf-dump) takes into memory. */
#define BC_INPUT_MAX (4ull << 30)
/*
 * The whole of path, a regular file of at most max bytes, into a new *buf
 * (one byte more allocated) of *len bytes; "-" reads standard input to its
 * end. -EINVAL: not a regular file (a FIFO or device is refused); -EFBIG;
 * -ENOMEM; -errno.
 */
int bc_read_regular_file(const char *path, uint64_t max, char **buf, size_t *len);

/*
 * A subcommand's options as its parser takes them, for `bpfcollect CMD
 * --list-opts` (completion, and the test that --help and the man page name
 * them all): listed from the very tables getopt reads, they cannot drift.
 */
struct bc_cmd_opts {
	const char *shortopts;	       /* getopt's optstring */
	const struct option *longopts; /* ends with a zeroed entry */
	bool format_opts;	       /* and every format's (bc_format_longopts) */
};

extern const struct bc_cmd_opts bc_record_cmd_opts;
extern const struct bc_cmd_opts bc_report_cmd_opts;
extern const struct bc_cmd_opts bc_convert_cmd_opts;
extern const struct bc_cmd_opts bc_archive_cmd_opts;
extern const struct bc_cmd_opts bc_rtl_stat_cmd_opts;
extern const struct bc_cmd_opts bc_gtf_dump_cmd_opts;

/*
 * Prints one option per line: -X or --NAME, followed by '=' when it takes
 * a value and by '[=]' when the value is optional; short options first, in
 * the optstring's order. 0, or -ENOSPC when the formats' options do not fit.
 */
int bc_cmd_list_opts(FILE *out, const struct bc_cmd_opts *o);

int bc_cmd_record(int argc, char **argv);
int bc_cmd_report(int argc, char **argv);
int bc_cmd_archive(int argc, char **argv);
int bc_cmd_convert(int argc, char **argv);
int bc_cmd_rtl_stat(int argc, char **argv);
int bc_cmd_gtf_dump(int argc, char **argv);

#endif
