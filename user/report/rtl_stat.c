// SPDX-License-Identifier: MIT
/* Timing the scopes of RTL logs (see bpfcollect/rtl_stat.h, docs/rtl.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/containers.h"
#include "bpfcollect/rtl_stat.h"

#define LINE_MAX_LEN (64u << 10) /* a longer line is a problem, not a scope */
#define REPORT_MAX   1000

/* A scope open on a thread of the file being read. */
struct rtl_open {
	uint32_t name_id, tid;
	uint64_t start_ms, child_ms;
	size_t line;
};

/* The scopes of one kind open on one thread, innermost last. */
struct rtl_stack {
	uint32_t tid;
	bool explicit_;
	struct rtl_open *v;
	size_t n, cap;
};

void bc_rtl_stat_init(struct bc_rtl_stat *s, bool by_thread)
{
	memset(s, 0, sizeof(*s));
	s->by_thread = by_thread;
}

/* (name, kind, thread) as one id-map key: names are fewer than 2^31 (bc_strtab). */
static uint64_t name_key(uint32_t name_id, bool explicit_, uint32_t tid)
{
	return (uint64_t)name_id << 33 | (uint64_t)explicit_ << 32 | tid;
}

static void close_all_open(struct bc_rtl_stat *s)
{
	for (size_t i = 0; i < s->n_stacks; i++)
		free(s->stacks[i].v);
	free(s->stacks);
	s->stacks = NULL;
	s->n_stacks = s->cap_stacks = 0;
	bc_idmap_free(&s->stack_index);
	bc_idmap_free(&s->open_count);
}

void bc_rtl_stat_free(struct bc_rtl_stat *s)
{
	close_all_open(s);
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	free(s->report);
	bc_strtab_free(&s->names);
	bc_idmap_free(&s->stat_index);
	memset(s, 0, sizeof(*s));
}

static void problem(struct bc_rtl_stat *s, const char *file, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Counts a problem; keeps its line for the report while there is room. */
static void problem(struct bc_rtl_stat *s, const char *file, size_t line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n;

	s->problems++;
	if (s->reported >= REPORT_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	if (s->report_cap - s->report_len < sizeof(msg) + 4200) {
		size_t cap = s->report_cap ? s->report_cap * 2 : 8192;
		char *r = realloc(s->report, cap);

		if (!r)
			return; /* the count stays right; the words are lost */
		s->report = r;
		s->report_cap = cap;
	}
	n = snprintf(s->report + s->report_len, s->report_cap - s->report_len, "%.4000s:%zu: %s\n",
		     file, line, msg);
	if (n > 0)
		s->report_len += (size_t)n;
	s->reported++;
}

/* ------------------------------------------------------------ the scopes timed */

/* The index of s->v's entries again, after a sort moved them. */
static int reindex_stats(struct bc_rtl_stat *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct bc_rtl_scope_stat *e = &s->v[i];
		uint32_t *val;
		int err = bc_idmap_get_or_add(&s->stat_index,
					      name_key(e->name_id, e->explicit_, e->tid),
					      (uint32_t)i, &val);

		if (err)
			return err;
	}
	return 0;
}

static struct bc_rtl_scope_stat *stat_of(struct bc_rtl_stat *s, uint32_t name_id, bool explicit_,
					 uint32_t tid)
{
	struct bc_rtl_scope_stat *e;
	uint32_t *idx;

	if (!s->by_thread)
		tid = 0;
	if (s->n && !s->stat_index.n && reindex_stats(s))
		return NULL;
	if (bc_idmap_get_or_add(&s->stat_index, name_key(name_id, explicit_, tid), (uint32_t)s->n,
				&idx))
		return NULL;
	if (*idx < s->n)
		return &s->v[*idx];
	if (BC_GROW(s->v, s->cap, s->n + 1))
		goto fail;
	e = &s->v[s->n];
	memset(e, 0, sizeof(*e));
	e->name = strdup(s->names.v[name_id]);
	if (!e->name)
		goto fail;
	e->name_id = name_id;
	e->explicit_ = explicit_;
	e->tid = tid;
	e->min_ms = UINT64_MAX;
	s->n++;
	return e;
fail:
	bc_idmap_remove(&s->stat_index, name_key(name_id, explicit_, tid));
	return NULL;
}

/* The stack of tid's scopes of a kind; created when create. NULL: none (or -ENOMEM). */
static struct rtl_stack *stack_of(struct bc_rtl_stat *s, uint32_t tid, bool explicit_, bool create)
{
	uint64_t key = (uint64_t)explicit_ << 32 | tid;
	uint32_t *idx = bc_idmap_find(&s->stack_index, key);

	if (idx)
		return &s->stacks[*idx];
	if (!create || BC_GROW(s->stacks, s->cap_stacks, s->n_stacks + 1) ||
	    bc_idmap_get_or_add(&s->stack_index, key, (uint32_t)s->n_stacks, &idx))
		return NULL;
	s->stacks[s->n_stacks] = (struct rtl_stack){.tid = tid, .explicit_ = explicit_};
	return &s->stacks[s->n_stacks++];
}

/* How many scopes named name_id are open on st (the count kept beside it). */
static uint32_t *open_count(struct bc_rtl_stat *s, const struct rtl_stack *st, uint32_t name_id)
{
	return bc_idmap_find(&s->open_count, name_key(name_id, st->explicit_, st->tid));
}

static int push(struct bc_rtl_stat *s, uint32_t tid, bool explicit_, const char *name, uint64_t ms,
		size_t line)
{
	struct rtl_stack *st = stack_of(s, tid, explicit_, true);
	uint32_t name_id, *count;

	if (!st || BC_GROW(st->v, st->cap, st->n + 1) < 0 ||
	    bc_strtab_intern(&s->names, name, strlen(name), &name_id) < 0 ||
	    bc_idmap_get_or_add(&s->open_count, name_key(name_id, explicit_, tid), 0, &count))
		return -ENOMEM;
	(*count)++;
	st->v[st->n++] =
		(struct rtl_open){.name_id = name_id, .tid = tid, .start_ms = ms, .line = line};
	return 0;
}

/* Drops st's innermost scope. */
static void drop_top(struct bc_rtl_stat *s, struct rtl_stack *st)
{
	uint32_t *count = open_count(s, st, st->v[--st->n].name_id);

	if (count && *count)
		(*count)--;
}

/* The innermost scope is name's: times it into its stats and its parent's children. */
static int time_top(struct bc_rtl_stat *s, struct rtl_stack *st, uint64_t ms)
{
	const struct rtl_open *o = &st->v[st->n - 1];
	uint64_t d = ms >= o->start_ms ? ms - o->start_ms : 0;
	struct bc_rtl_scope_stat *e = stat_of(s, o->name_id, st->explicit_, st->tid);

	if (!e)
		return -ENOMEM;
	e->count++;
	e->total_ms += d;
	e->exclusive_ms += d > o->child_ms ? d - o->child_ms : 0;
	if (d < e->min_ms)
		e->min_ms = d;
	if (d > e->max_ms)
		e->max_ms = d;
	drop_top(s, st);
	/* its time is its parent's children's */
	if (st->n)
		st->v[st->n - 1].child_ms += d;
	return 0;
}

/* A } for name on tid: times the scope, or says what is wrong. */
static int pop(struct bc_rtl_stat *s, const char *file, size_t line, uint32_t tid, bool explicit_,
	       const char *name, uint64_t ms)
{
	struct rtl_stack *st = stack_of(s, tid, explicit_, false);
	int64_t name_id = bc_strtab_find(&s->names, name, strlen(name));
	uint32_t *count = st && name_id >= 0 ? open_count(s, st, (uint32_t)name_id) : NULL;

	if (!count || !*count) {
		problem(s, file, line, "} %s closes nothing open on thread %" PRIu32, name, tid);
		return 0;
	}
	/* the ones above it were left without their } */
	while (st->v[st->n - 1].name_id != (uint32_t)name_id) {
		const struct rtl_open *o = &st->v[st->n - 1];

		problem(s, file, line, "} %s while %s (line %zu) is open on thread %" PRIu32, name,
			s->names.v[o->name_id], o->line, tid);
		drop_top(s, st);
	}
	return time_top(s, st, ms);
}

static int by_line(const void *a, const void *b)
{
	const struct rtl_open *x = a, *y = b;

	return (x->line > y->line) - (x->line < y->line);
}

/* The scopes still open at a file's end are problems, said in the order they opened. */
static int never_closed(struct bc_rtl_stat *s, const char *file)
{
	struct rtl_open *all;
	size_t n = 0, k = 0;

	for (size_t i = 0; i < s->n_stacks; i++)
		n += s->stacks[i].n;
	if (!n)
		return 0;
	all = calloc(n, sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_stacks; i++)
		for (size_t j = 0; j < s->stacks[i].n; j++)
			all[k++] = s->stacks[i].v[j];
	qsort(all, n, sizeof(*all), by_line);
	for (size_t i = 0; i < n; i++)
		problem(s, file, all[i].line, "%s on thread %" PRIu32 " never closed",
			s->names.v[all[i].name_id], all[i].tid);
	free(all);
	return 0;
}

/* ------------------------------------------------------------ lines */

static bool parse_uint(const char **p, const char *end, uint64_t max, uint64_t *v)
{
	const char *q = *p;

	*v = 0;
	if (q == end || *q < '0' || *q > '9')
		return false;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		if (*v > (max - (uint64_t)(*q - '0')) / 10)
			return false;
		*v = *v * 10 + (uint64_t)(*q - '0');
	}
	*p = q;
	return true;
}

static void skip_spaces(const char **p, const char *end)
{
	while (*p < end && **p == ' ')
		(*p)++;
}

/* A copy of s[0..n) without surrounding spaces. */
static char *trimmed(const char *s, size_t n)
{
	while (n && *s == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	return strndup(s, n);
}

/*
 * One line: TIME TID KIND SCOPE : MESSAGE. 1 taken, 0 not a line
 * (counted as a problem), -ENOMEM.
 */
static int feed_line(struct bc_rtl_stat *s, const char *file, size_t lineno, const char *p,
		     const char *end)
{
	uint64_t ms, tid;
	const char *rest, *sep = NULL;
	char kind, *scope, *msg;
	int rc = 0;

	if (end > p && end[-1] == '\r')
		end--;
	if (!parse_uint(&p, end, UINT64_MAX, &ms) || p == end || *p != ' ')
		return 0;
	skip_spaces(&p, end);
	if (!parse_uint(&p, end, UINT32_MAX, &tid) || p == end || *p != ' ')
		return 0;
	skip_spaces(&p, end);
	if (p == end || (*p != '{' && *p != '}' && *p != '|') || (p + 1 < end && p[1] != ' '))
		return 0;
	kind = *p++;
	rest = p;
	for (const char *q = rest; q + 3 <= end; q++)
		if (q[0] == ' ' && q[1] == ':' && q[2] == ' ') {
			sep = q;
			break;
		}
	/* "name :" at the end, or a { } line with no colon at all (the seed's own example) */
	if (!sep && end - rest >= 2 && end[-1] == ':' && end[-2] == ' ')
		sep = end - 2;
	scope = trimmed(rest, (size_t)((sep ? sep : end) - rest));
	msg = sep ? trimmed(sep + 2 < end ? sep + 2 : end,
			    (size_t)(end - (sep + 2 < end ? sep + 2 : end)))
		  : strdup("");
	if (!scope || !msg) {
		rc = -ENOMEM;
		goto out;
	}
	if (kind == '{') {
		rc = push(s, (uint32_t)tid, false, scope, ms, lineno);
	} else if (kind == '}') {
		rc = pop(s, file, lineno, (uint32_t)tid, false, scope, ms);
	} else if (msg[0] == '{' || msg[0] == '}') {
		/* a logical scope: "SCOPE : LABEL" */
		char *label = trimmed(msg + 1, strlen(msg + 1)), *name = NULL;

		if (!label || asprintf(&name, "%s : %s", scope, label) < 0)
			rc = -ENOMEM;
		else if (msg[0] == '{')
			rc = push(s, (uint32_t)tid, true, name, ms, lineno);
		else
			rc = pop(s, file, lineno, (uint32_t)tid, true, name, ms);
		free(label);
		free(name);
	}
out:
	free(scope);
	free(msg);
	return rc < 0 ? rc : 1;
}

int bc_rtl_stat_feed(struct bc_rtl_stat *s, const char *name, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t lineno = 0;
	int rc = 0;

	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;

		lineno++;
		s->lines++;
		if ((size_t)(eol - p) > LINE_MAX_LEN) {
			s->bad_lines++;
			problem(s, name, lineno, "a line of %zu bytes: not one of a scope log",
				(size_t)(eol - p));
		} else if (eol > p) {
			rc = feed_line(s, name, lineno, p, eol);
			if (rc == 0) {
				s->bad_lines++;
				problem(s, name, lineno,
					"not a scope log line (TIME TID {|} SCOPE : MESSAGE)");
			}
			rc = rc < 0 ? rc : 0;
		}
		p = nl ? nl + 1 : end;
	}
	if (!rc)
		rc = never_closed(s, name);
	close_all_open(s);
	return rc;
}

static int by_total(const void *a, const void *b)
{
	const struct bc_rtl_scope_stat *x = a, *y = b;
	int c;

	if (x->total_ms != y->total_ms)
		return x->total_ms > y->total_ms ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c)
		return c;
	if (x->explicit_ != y->explicit_)
		return x->explicit_ ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

void bc_rtl_stat_sort(struct bc_rtl_stat *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), by_total);
	/* its indexes moved: made again if more is read */
	bc_idmap_free(&s->stat_index);
}

static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void bc_rtl_stat_print(const struct bc_rtl_stat *s, FILE *out, bool csv)
{
	if (csv)
		fprintf(out, "scope,kind,%scount,total_ms,avg_ms,min_ms,max_ms,exclusive_ms\n",
			s->by_thread ? "tid," : "");
	else
		fprintf(out, "%10s %12s %12s %10s %10s %12s %-8s %s%s\n", "count", "total ms",
			"avg ms", "min ms", "max ms", "excl ms", "kind",
			s->by_thread ? "tid     " : "", "scope");
	for (size_t i = 0; i < s->n; i++) {
		const struct bc_rtl_scope_stat *e = &s->v[i];
		double avg = e->count ? (double)e->total_ms / (double)e->count : 0;
		uint64_t min = e->count ? e->min_ms : 0;

		if (csv) {
			csv_field(out, e->name);
			fprintf(out, ",%s,", e->explicit_ ? "explicit" : "function");
			if (s->by_thread)
				fprintf(out, "%" PRIu32 ",", e->tid);
			fprintf(out,
				"%" PRIu64 ",%" PRIu64 ",%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
				"\n",
				e->count, e->total_ms, avg, min, e->max_ms, e->exclusive_ms);
			continue;
		}
		fprintf(out,
			"%10" PRIu64 " %12" PRIu64 " %12.3f %10" PRIu64 " %10" PRIu64 " %12" PRIu64
			" %-8s ",
			e->count, e->total_ms, avg, min, e->max_ms, e->exclusive_ms,
			e->explicit_ ? "explicit" : "function");
		if (s->by_thread)
			fprintf(out, "%-8" PRIu32 " ", e->tid);
		fprintf(out, "%s\n", e->name);
	}
}
