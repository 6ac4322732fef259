// SPDX-License-Identifier: MIT
/*
 * Text tables for the report: functions and syscalls. Everything here goes
 * through the public accessors of report.h, so other views can be written
 * the same way. Column widths are measured from the data first, so long
 * (C++) names, huge counts and long durations never break the alignment.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "bpfcollect/demangle.h"
#include "bpfcollect/report.h"

#define NS_PER_US UINT64_C(1000)
#define NS_PER_MS UINT64_C(1000000)
#define NS_PER_S  UINT64_C(1000000000)

#define COUNT_LEN 24 /* UINT64_MAX in decimal, plus NUL */

static const char *const sort_key_names[] = {
	[BC_SORT_EXCL] = "excl", [BC_SORT_INCL] = "incl", [BC_SORT_CALLS] = "calls",
	[BC_SORT_AVG] = "avg",	 [BC_SORT_NAME] = "name",
};

static const char *const sort_key_titles[] = {
	[BC_SORT_EXCL] = "exclusive time", [BC_SORT_INCL] = "inclusive time",
	[BC_SORT_CALLS] = "calls",	   [BC_SORT_AVG] = "average inclusive time",
	[BC_SORT_NAME] = "name",
};

int bc_sort_key_parse(const char *s, enum bc_sort_key *key)
{
	for (size_t i = 0; i < sizeof(sort_key_names) / sizeof(sort_key_names[0]); i++) {
		if (strcmp(s, sort_key_names[i]) == 0) {
			*key = (enum bc_sort_key)i;
			return 0;
		}
	}
	return -EINVAL;
}

char *bc_format_duration(char buf[BC_DURATION_LEN], uint64_t ns)
{
	/* Integer arithmetic: truncation, so 999999 ns is 999.999 us, not 1000.000. */
	if (ns < NS_PER_US)
		snprintf(buf, BC_DURATION_LEN, "%" PRIu64 " ns", ns);
	else if (ns < NS_PER_MS)
		snprintf(buf, BC_DURATION_LEN, "%" PRIu64 ".%03" PRIu64 " us", ns / NS_PER_US,
			 ns % NS_PER_US);
	else if (ns < NS_PER_S)
		snprintf(buf, BC_DURATION_LEN, "%" PRIu64 ".%03" PRIu64 " ms", ns / NS_PER_MS,
			 ns / NS_PER_US % 1000);
	else
		snprintf(buf, BC_DURATION_LEN, "%" PRIu64 ".%03" PRIu64 " s", ns / NS_PER_S,
			 ns / NS_PER_MS % 1000);
	return buf;
}

static int finish(FILE *out)
{
	return ferror(out) ? -EIO : 0;
}

/* ---------------------------------------------------------------- functions */

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_func(const void *pa, const void *pb, void *arg)
{
	const struct bc_func_stats *a = *(const struct bc_func_stats *const *)pa;
	const struct bc_func_stats *b = *(const struct bc_func_stats *const *)pb;
	enum bc_sort_key key = *(const enum bc_sort_key *)arg;
	int c = 0;

	switch (key) {
	case BC_SORT_EXCL:
		c = cmp_u64_desc(a->excl_ns, b->excl_ns);
		break;
	case BC_SORT_INCL:
		c = cmp_u64_desc(a->incl_ns, b->incl_ns);
		break;
	case BC_SORT_CALLS:
		c = cmp_u64_desc(a->calls, b->calls);
		break;
	case BC_SORT_AVG:
		c = cmp_u64_desc(bc_func_stats_avg_incl(a), bc_func_stats_avg_incl(b));
		break;
	case BC_SORT_NAME:
		break;
	}
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->object, b->object);
	if (!c)
		c = a->func_id < b->func_id ? -1 : a->func_id > b->func_id;
	return c;
}

struct func_row {
	char calls[COUNT_LEN];
	char incl[BC_DURATION_LEN];
	char excl[BC_DURATION_LEN];
	char avg[BC_DURATION_LEN];
	const char *object; /* basename */
	const char *name;
};

static const char *basename_or_dash(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash)
		path = slash + 1;
	return *path ? path : "-";
}

static void fill_func_row(struct func_row *row, const struct bc_func_stats *f)
{
	snprintf(row->calls, sizeof(row->calls), "%" PRIu64, f->calls);
	/* "-": never measured, which is not the same as 0 ns. */
	if (f->incl_frames) {
		bc_format_duration(row->incl, f->incl_ns);
		bc_format_duration(row->avg, bc_func_stats_avg_incl(f));
	} else {
		strcpy(row->incl, "-");
		strcpy(row->avg, "-");
	}
	if (f->returns)
		bc_format_duration(row->excl, f->excl_ns);
	else
		strcpy(row->excl, "-");
	row->object = basename_or_dash(f->object);
	row->name = bc_sym_display(f->name);
}

static void print_func_notes(const struct bc_report *r, FILE *out)
{
	const struct bc_report_totals *t = bc_report_totals(r);

	if (t->incomplete)
		fprintf(out,
			"note: %" PRIu64
			" calls never returned (thread exit, exec or lost return); their time is"
			" not counted\n",
			t->incomplete);
	if (t->open_at_detach)
		fprintf(out,
			"note: %" PRIu64
			" calls were open at detach (still running when the recording ended); they"
			" count as calls, not time\n",
			t->open_at_detach);
	if (t->orphan_returns)
		fprintf(out, "note: %" PRIu64 " returns without a matching entry were ignored\n",
			t->orphan_returns);
	if (t->lost[BC_LOSS_FUNC])
		fprintf(out,
			"warning: %" PRIu64 " function events were lost; times of the affected"
			" calls are missing\n",
			t->lost[BC_LOSS_FUNC]);
}

int bc_report_print_functions(const struct bc_report *r, FILE *out, enum bc_sort_key key,
			      size_t top_n)
{
	size_t n = bc_report_nfuncs(r), shown;
	const struct bc_func_stats **sorted = NULL;
	struct func_row *rows = NULL, total;
	uint64_t calls = 0, excl = 0;
	int w_calls, w_incl, w_excl, w_avg, w_obj;
	int err = 0;

	if ((unsigned)key >= sizeof(sort_key_titles) / sizeof(sort_key_titles[0]))
		return -EINVAL;
	if (!n) {
		fprintf(out, "Functions: no calls recorded\n");
		print_func_notes(r, out);
		return finish(out);
	}
	shown = top_n && top_n < n ? top_n : n;
	sorted = calloc(n, sizeof(*sorted));
	rows = calloc(shown, sizeof(*rows));
	if (!sorted || !rows) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		sorted[i] = bc_report_func_at(r, i);
		calls += sorted[i]->calls;
		excl += sorted[i]->excl_ns;
	}
	qsort_r(sorted, n, sizeof(*sorted), cmp_func, &key);

	memset(&total, 0, sizeof(total));
	snprintf(total.calls, sizeof(total.calls), "%" PRIu64, calls);
	bc_format_duration(total.excl, excl);
	w_calls = bc_max_int(bc_slen("Calls"), bc_slen(total.calls));
	w_incl = bc_slen("Incl. total");
	w_excl = bc_max_int(bc_slen("Excl. total"), bc_slen(total.excl));
	w_avg = bc_slen("Avg incl.");
	w_obj = bc_slen("Object");
	for (size_t i = 0; i < shown; i++) {
		fill_func_row(&rows[i], sorted[i]);
		w_calls = bc_max_int(w_calls, bc_slen(rows[i].calls));
		w_incl = bc_max_int(w_incl, bc_slen(rows[i].incl));
		w_excl = bc_max_int(w_excl, bc_slen(rows[i].excl));
		w_avg = bc_max_int(w_avg, bc_slen(rows[i].avg));
		w_obj = bc_max_int(w_obj, bc_slen(rows[i].object));
	}

	if (shown < n)
		fprintf(out, "Functions, top %zu of %zu by %s:\n", shown, n, sort_key_titles[key]);
	else
		fprintf(out, "Functions, by %s:\n", sort_key_titles[key]);
	fprintf(out, "%*s  %*s  %*s  %*s  %-*s  %s\n", w_calls, "Calls", w_incl, "Incl. total",
		w_excl, "Excl. total", w_avg, "Avg incl.", w_obj, "Object", "Name");
	bc_print_rule(out, w_calls);
	fputs("  ", out);
	bc_print_rule(out, w_incl);
	fputs("  ", out);
	bc_print_rule(out, w_excl);
	fputs("  ", out);
	bc_print_rule(out, w_avg);
	fputs("  ", out);
	bc_print_rule(out, w_obj);
	fputs("  ", out);
	bc_print_rule(out, bc_slen("Name"));
	fputc('\n', out);
	for (size_t i = 0; i < shown; i++)
		fprintf(out, "%*s  %*s  %*s  %*s  %-*s  %s\n", w_calls, rows[i].calls, w_incl,
			rows[i].incl, w_excl, rows[i].excl, w_avg, rows[i].avg, w_obj,
			rows[i].object, rows[i].name);
	/* Inclusive times nest, so their sum means nothing: only calls and excl. */
	fprintf(out, "%*s  %*s  %*s  %*s  %*s  total (%zu functions)\n", w_calls, total.calls,
		w_incl, "", w_excl, total.excl, w_avg, "", w_obj, "", n);
	print_func_notes(r, out);
	err = finish(out);
out:
	free(rows);
	free(sorted);
	return err;
}

/* ---------------------------------------------------------------- syscalls */

static int cmp_sys(const void *pa, const void *pb)
{
	const struct bc_sys_stats *a = *(const struct bc_sys_stats *const *)pa;
	const struct bc_sys_stats *b = *(const struct bc_sys_stats *const *)pb;
	int c = cmp_u64_desc(a->total_ns, b->total_ns);

	if (!c)
		c = cmp_u64_desc(a->calls, b->calls);
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = a->nr < b->nr ? -1 : a->nr > b->nr;
	return c;
}

static int cmp_errno_count(const void *pa, const void *pb)
{
	const struct bc_errno_count *a = pa, *b = pb;
	int c = cmp_u64_desc(a->count, b->count);

	return c ? c : (a->err > b->err) - (a->err < b->err);
}

/*
 * Kernel-internal restart codes reach the raw sys_exit tracepoint when a
 * signal interrupts a syscall; libc has no names for them.
 */
static const char *errno_name(int err, char *buf, size_t len)
{
	static const char *const kernel_errnos[] = {
		[512 - 512] = "ERESTARTSYS",
		[513 - 512] = "ERESTARTNOINTR",
		[514 - 512] = "ERESTARTNOHAND",
		[515 - 512] = "ENOIOCTLCMD",
		[516 - 512] = "ERESTART_RESTARTBLOCK",
		[517 - 512] = "EPROBE_DEFER",
		[518 - 512] = "EOPENSTALE",
		[519 - 512] = "ENOPARAM",
	};
	const char *name = strerrorname_np(err);

	if (name)
		return name;
	if (err >= 512 && err < 512 + (int)(sizeof(kernel_errnos) / sizeof(kernel_errnos[0])))
		return kernel_errnos[err - 512];
	snprintf(buf, len, "errno_%d", err);
	return buf;
}

/* Errnos named per syscall; the rest are summed, so a row stays readable. */
#define ERRNOS_SHOWN 5

/* "ENOENT:3 EAGAIN:1", most frequent first, then "+N more". -errno. */
static int print_errnos(FILE *out, const struct bc_sys_stats *s)
{
	struct bc_errno_count *v;
	char buf[32];

	v = malloc(s->n_errnos * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, s->errnos, s->n_errnos * sizeof(*v));
	qsort(v, s->n_errnos, sizeof(*v), cmp_errno_count);
	for (size_t i = 0; i < s->n_errnos && i < ERRNOS_SHOWN; i++)
		fprintf(out, "%s%s:%" PRIu64, i ? " " : "", errno_name(v[i].err, buf, sizeof(buf)),
			v[i].count);
	if (s->n_errnos > ERRNOS_SHOWN) {
		uint64_t rest = 0;

		for (size_t i = ERRNOS_SHOWN; i < s->n_errnos; i++)
			rest += v[i].count;
		fprintf(out, " +%" PRIu64 " more", rest);
	}
	free(v);
	return 0;
}

struct sys_row {
	char calls[COUNT_LEN];
	char total[BC_DURATION_LEN];
	char avg[BC_DURATION_LEN];
	char errors[COUNT_LEN];
};

static void fill_sys_row(struct sys_row *row, const struct bc_sys_stats *s)
{
	snprintf(row->calls, sizeof(row->calls), "%" PRIu64, s->calls);
	snprintf(row->errors, sizeof(row->errors), "%" PRIu64, s->errors);
	/* Never returned (exit_group) or entry unseen: no time, not 0 ns. */
	if (s->timed) {
		bc_format_duration(row->total, s->total_ns);
		bc_format_duration(row->avg, bc_sys_stats_avg(s));
	} else {
		strcpy(row->total, "-");
		strcpy(row->avg, "-");
	}
}

int bc_report_print_syscalls(const struct bc_report *r, FILE *out)
{
	size_t n = bc_report_nsys(r);
	const struct bc_sys_stats **sorted = NULL;
	struct sys_row *rows = NULL, total;
	uint64_t calls = 0, total_ns = 0, errors = 0;
	int w_calls, w_total, w_avg, w_errors, w_name;
	bool any_errors;
	int err = 0;

	if (!n) {
		fprintf(out, "Syscalls: none recorded\n");
		return finish(out);
	}
	sorted = calloc(n, sizeof(*sorted));
	rows = calloc(n, sizeof(*rows));
	if (!sorted || !rows) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		sorted[i] = bc_report_sys_at(r, i);
		calls += sorted[i]->calls;
		total_ns += sorted[i]->total_ns;
		errors += sorted[i]->errors;
	}
	qsort(sorted, n, sizeof(*sorted), cmp_sys);

	snprintf(total.calls, sizeof(total.calls), "%" PRIu64, calls);
	bc_format_duration(total.total, total_ns);
	snprintf(total.errors, sizeof(total.errors), "%" PRIu64, errors);
	any_errors = errors != 0;
	w_calls = bc_max_int(bc_slen("Calls"), bc_slen(total.calls));
	w_total = bc_max_int(bc_slen("Total"), bc_slen(total.total));
	w_avg = bc_slen("Avg");
	w_errors = bc_max_int(bc_slen("Errors"), bc_slen(total.errors));
	w_name = bc_slen("Name");
	for (size_t i = 0; i < n; i++) {
		fill_sys_row(&rows[i], sorted[i]);
		w_calls = bc_max_int(w_calls, bc_slen(rows[i].calls));
		w_total = bc_max_int(w_total, bc_slen(rows[i].total));
		w_avg = bc_max_int(w_avg, bc_slen(rows[i].avg));
		w_errors = bc_max_int(w_errors, bc_slen(rows[i].errors));
		w_name = bc_max_int(w_name, bc_slen(sorted[i]->name));
	}

	fprintf(out, "Syscalls, by total time:\n");
	fprintf(out, "%*s  %*s  %*s  %*s  ", w_calls, "Calls", w_total, "Total", w_avg, "Avg",
		w_errors, "Errors");
	/* The error codes column exists only when some syscall failed. */
	if (any_errors)
		fprintf(out, "%-*s  Error codes\n", w_name, "Name");
	else
		fprintf(out, "Name\n");
	bc_print_rule(out, w_calls);
	fputs("  ", out);
	bc_print_rule(out, w_total);
	fputs("  ", out);
	bc_print_rule(out, w_avg);
	fputs("  ", out);
	bc_print_rule(out, w_errors);
	fputs("  ", out);
	if (any_errors) {
		bc_print_rule(out, w_name);
		fputs("  ", out);
		bc_print_rule(out, bc_slen("Error codes"));
	} else {
		bc_print_rule(out, bc_slen("Name"));
	}
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		const struct bc_sys_stats *s = sorted[i];

		fprintf(out, "%*s  %*s  %*s  %*s  ", w_calls, rows[i].calls, w_total, rows[i].total,
			w_avg, rows[i].avg, w_errors, rows[i].errors);
		/* No padding after the last non-empty column: no trailing blanks. */
		if (!s->n_errnos) {
			fprintf(out, "%s\n", s->name);
			continue;
		}
		fprintf(out, "%-*s  ", w_name, s->name);
		err = print_errnos(out, s);
		if (err)
			goto out;
		fputc('\n', out);
	}
	fprintf(out, "%*s  %*s  %*s  %*s  total (%zu syscalls)\n", w_calls, total.calls, w_total,
		total.total, w_avg, "", w_errors, total.errors, n);
	if (bc_report_totals(r)->lost[BC_LOSS_SYSCALL])
		fprintf(out, "warning: %" PRIu64 " syscall events were lost\n",
			bc_report_totals(r)->lost[BC_LOSS_SYSCALL]);
	err = finish(out);
out:
	free(rows);
	free(sorted);
	return err;
}
