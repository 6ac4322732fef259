/* SPDX-License-Identifier: MIT */
/*
 * Reading RTL scope logs back (`bpfcollect rtl-stat`, docs/rtl.md): any
 * file in the seed's format, ours or another program's. Lines are
 * `TIME TID KIND SCOPE : MESSAGE`; tolerated: times without padding, no
 * first stamp line, `{`/`}` lines without " : ". Scopes are timed per
 * thread: a function's `{ }` pair (implicit) and a `|` line pair whose
 * messages start with `{` and `}` (explicit, a logical scope named by the
 * rest of the message). Every input is untrusted: a line that does not
 * parse, a `}` that closes nothing, a scope left open, are problems,
 * reported with file and line, and never a crash.
 */
#ifndef BPFCOLLECT_RTL_STAT_H
#define BPFCOLLECT_RTL_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpfcollect/containers.h"

/* The times of one scope (per thread with by_thread). */
struct bc_rtl_scope_stat {
	char *name;	  /* the scope name; an explicit one is "SCOPE : LABEL" */
	uint32_t name_id; /* its id among the names read (names) */
	bool explicit_;	  /* from `|` lines whose messages start with { and } */
	uint32_t tid;	  /* by_thread only */
	uint64_t count;
	uint64_t total_ms, min_ms, max_ms; /* inclusive */
	uint64_t exclusive_ms;		   /* without the scopes of its kind opened inside it */
};

/*
 * Every lookup is hashed, so a file of many distinct scopes, threads or
 * open scopes costs linear time (a scan per line made 80,000 scopes take
 * 15 s): names are interned once, the stats found by (name, kind, thread),
 * the open scopes kept as a stack per thread and kind with a count per
 * name open on it.
 */
struct bc_rtl_stat {
	bool by_thread;
	struct bc_rtl_scope_stat *v;
	size_t n, cap;
	uint64_t lines, bad_lines; /* lines read; those that did not parse */
	size_t problems;	   /* bad lines, unbalanced braces, scopes left open */
	char *report;		   /* one "FILE:LINE: what" per problem (at most 1000 kept) */
	size_t report_len, report_cap, reported;
	struct bc_strtab names;	    /* every scope name read */
	struct bc_idmap stat_index; /* (name, kind, tid) -> index in v + 1; empty after sort */
	/* the reading of the current file */
	struct rtl_stack *stacks; /* one per thread and kind with a scope open */
	size_t n_stacks, cap_stacks;
	struct bc_idmap stack_index; /* (kind, tid) -> index in stacks */
	struct bc_idmap open_count;  /* (name, kind, tid) -> scopes of that name open */
};

void bc_rtl_stat_init(struct bc_rtl_stat *s, bool by_thread);
void bc_rtl_stat_free(struct bc_rtl_stat *s);

/*
 * Reads one file's text (len bytes, any content) into s; name is what
 * problems are reported against. Scopes still open at its end are problems
 * and are not timed. 0 or -ENOMEM.
 */
int bc_rtl_stat_feed(struct bc_rtl_stat *s, const char *name, const char *text, size_t len);

/* Sorts the scopes: total time, longest first, then by name and thread. */
void bc_rtl_stat_sort(struct bc_rtl_stat *s);
/* The table (csv: RFC 4180 with a header line). */
void bc_rtl_stat_print(const struct bc_rtl_stat *s, FILE *out, bool csv);

#endif
