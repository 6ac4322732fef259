// SPDX-License-Identifier: MIT
/* The threads view: one line per thread, from the call-tree engine (report_tree.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/names.h"
#include "bpfcollect/report.h"
#include "bpfcollect/report_tree.h"
#include "bpfcollect/termsafe.h"

#define COUNT_LEN 24 /* UINT64_MAX in decimal, plus NUL */
#define TIME_LEN  32 /* "-18446744073.709551615" */

enum col { PID, TID, EVENTS, CALLS, SYSCALLS, FIRST, LAST, LIFETIME, TRACED, NCOLS };

static const char *const titles[NCOLS] = {
	[PID] = "PID",	   [TID] = "TID",	    [EVENTS] = "Events",
	[CALLS] = "Calls", [SYSCALLS] = "Syscalls", [FIRST] = "First",
	[LAST] = "Last",   [LIFETIME] = "Lifetime", [TRACED] = "In functions",
};

struct thread_row {
	char cell[NCOLS][TIME_LEN];
	char comm[BC_COMM_LEN * BC_TERM_ESC_MAX + 1]; /* one line, escaped (termsafe.h) */
};

static int cmp_thread(const void *pa, const void *pb)
{
	const struct bc_tree_thread *a = *(const struct bc_tree_thread *const *)pa;
	const struct bc_tree_thread *b = *(const struct bc_tree_thread *const *)pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* Seconds since start, as the events view prints times: "0.012345678". */
static void format_rel(char buf[TIME_LEN], uint64_t ktime, uint64_t start)
{
	uint64_t d = ktime >= start ? ktime - start : start - ktime;

	snprintf(buf, TIME_LEN, "%s%" PRIu64 ".%09" PRIu64, ktime >= start ? "" : "-",
		 d / 1000000000, d % 1000000000);
}

static void fill_row(struct thread_row *row, const struct bc_tree_thread *th, uint64_t start)
{
	snprintf(row->cell[PID], TIME_LEN, "%" PRIu32, th->pid);
	bc_tid_label(th->tid, row->cell[TID], TIME_LEN);
	snprintf(row->cell[EVENTS], TIME_LEN, "%" PRIu64, th->events);
	snprintf(row->cell[CALLS], TIME_LEN, "%" PRIu64, th->func_calls);
	snprintf(row->cell[SYSCALLS], TIME_LEN, "%" PRIu64, th->syscalls);
	/* Only named by a fork/clone record: it wrote nothing, no times. */
	if (th->first_ktime) {
		format_rel(row->cell[FIRST], th->first_ktime, start);
		format_rel(row->cell[LAST], th->last_ktime, start);
		bc_format_duration(row->cell[LIFETIME], th->last_ktime >= th->first_ktime
								? th->last_ktime - th->first_ktime
								: 0);
	} else {
		strcpy(row->cell[FIRST], "-");
		strcpy(row->cell[LAST], "-");
		strcpy(row->cell[LIFETIME], "-");
	}
	if (th->traced_frames)
		bc_format_duration(row->cell[TRACED], th->traced_ns);
	else
		strcpy(row->cell[TRACED], "-");
	char raw[BC_COMM_LEN + 1];

	memcpy(raw, th->comm, BC_COMM_LEN);
	raw[BC_COMM_LEN] = 0;
	bc_term_escape(row->comm, sizeof(row->comm), raw[0] ? raw : "-");
}

static void print_cells(FILE *out, const int *w, char cell[][TIME_LEN], const char *last)
{
	for (int c = 0; c < NCOLS; c++)
		fprintf(out, "%*s  ", w[c], cell[c]);
	fprintf(out, "%s\n", last);
}

int bc_calltree_print_threads(const struct bc_calltree *t, FILE *out)
{
	size_t n = bc_calltree_nthreads(t), procs = 0;
	uint64_t start = bc_calltree_start_ktime(t);
	uint64_t events = 0, calls = 0, syscalls = 0;
	const struct bc_tree_thread **sorted = NULL;
	struct thread_row *rows = NULL, total;
	int w[NCOLS];
	int err = 0;

	if (!n) {
		fprintf(out, "Threads: none recorded\n");
		return ferror(out) ? -EIO : 0;
	}
	sorted = calloc(n, sizeof(*sorted));
	rows = calloc(n, sizeof(*rows));
	if (!sorted || !rows) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		sorted[i] = bc_calltree_thread_at(t, i);
		events += sorted[i]->events;
		calls += sorted[i]->func_calls;
		syscalls += sorted[i]->syscalls;
	}
	qsort(sorted, n, sizeof(*sorted), cmp_thread);

	memset(&total, 0, sizeof(total));
	snprintf(total.cell[EVENTS], TIME_LEN, "%" PRIu64, events);
	snprintf(total.cell[CALLS], TIME_LEN, "%" PRIu64, calls);
	snprintf(total.cell[SYSCALLS], TIME_LEN, "%" PRIu64, syscalls);
	for (int c = 0; c < NCOLS; c++)
		w[c] = (int)strlen(titles[c]) > (int)strlen(total.cell[c])
			       ? (int)strlen(titles[c])
			       : (int)strlen(total.cell[c]);
	for (size_t i = 0; i < n; i++) {
		fill_row(&rows[i], sorted[i], start);
		for (int c = 0; c < NCOLS; c++)
			if ((int)strlen(rows[i].cell[c]) > w[c])
				w[c] = (int)strlen(rows[i].cell[c]);
		if (!i || sorted[i]->pid != sorted[i - 1]->pid)
			procs++;
	}

	fprintf(out, "Threads, by pid then tid (First, Last: seconds since the start):\n");
	for (int c = 0; c < NCOLS; c++)
		fprintf(out, "%*s  ", w[c], titles[c]);
	fprintf(out, "Command\n");
	for (int c = 0; c < NCOLS; c++) {
		for (int i = 0; i < w[c]; i++)
			fputc('-', out);
		fputs("  ", out);
	}
	fputs("-------\n", out);
	for (size_t i = 0; i < n; i++)
		print_cells(out, w, rows[i].cell, rows[i].comm);
	for (int c = 0; c < NCOLS; c++)
		fprintf(out, "%*s  ", w[c], total.cell[c]);
	fprintf(out, "total (%zu threads, %zu processes)\n", n, procs);
	err = ferror(out) ? -EIO : 0;
out:
	free(rows);
	free(sorted);
	return err;
}
