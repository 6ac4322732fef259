// SPDX-License-Identifier: MIT
/*
 * Heap and sync views. Each event counts into every function of its stack
 * once (inclusive) and into the leaf (exclusive), as gprofng counts.
 *
 * Heap, per experiment, as gprofng's heap model: events in TSTAMP order;
 * malloc, realloc and mmap are allocations (count and bytes, at their own
 * stack); free and munmap end the block at their address, realloc ends
 * the old one; a block never ended is a leak, counted at the stack that
 * allocated it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/pcname.h"
#include "bpfcollect/profile_data.h"
#include "bpfcollect/report_traces.h"
#include "table.h"

#define NMETRIC 4

enum { HEAP_MALLOC, HEAP_FREE, HEAP_REALLOC, HEAP_MMAP, HEAP_MUNMAP };

struct func_row {
	const char *name, *object; /* owned by the index */
	uint64_t incl[NMETRIC], excl[NMETRIC];
	size_t last; /* event serial that last counted inclusive */
};

/* Leaks of one stack of one experiment. */
struct leak_group {
	size_t exp;
	uint64_t uid;
	uint64_t count, bytes;
	char **frames; /* "name" per frame, leaf first */
	size_t n_frames;
};

struct report {
	enum bc_trace_view view;
	struct bc_fnindex index;
	struct bc_pcnamer namer;
	struct func_row *funcs;
	size_t n_funcs, cap_funcs, serial;
	uint64_t total[NMETRIC];
	uint64_t frees, experiments;
	struct leak_group *leaks;
	size_t n_leaks;
};

/* The state of one experiment being read. */
struct exp_ctx {
	const char *path;
	size_t index;
	struct bc_prof_data d;
	struct bc_segments segs;
	struct bc_ksyms ks;
};

static int func_of(struct report *r, struct exp_ctx *x, uint64_t pc, uint64_t when)
{
	const char *name, *object;
	int rc = bc_pcname(&r->namer, x->path, &x->segs, &x->ks, pc, when, &name, &object);

	if (rc < 0)
		return rc;
	rc = bc_fnindex_get(&r->index, name, object);
	if (rc < 0 || (size_t)rc < r->n_funcs)
		return rc;
	if (r->n_funcs == r->cap_funcs) {
		size_t cap = r->cap_funcs ? r->cap_funcs * 2 : 64;
		struct func_row *v = realloc(r->funcs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->funcs = v;
		r->cap_funcs = cap;
	}
	memset(&r->funcs[r->n_funcs], 0, sizeof(r->funcs[0]));
	r->funcs[r->n_funcs].name = bc_sym_display(r->index.v[rc].name);
	r->funcs[r->n_funcs].object = r->index.v[rc].object;
	return (int)r->n_funcs++;
}

/* Adds m[] to the totals, to the stack's leaf (exclusive) and its functions (inclusive). */
static int attribute(struct report *r, struct exp_ctx *x, uint64_t uid, uint64_t when,
		     const uint64_t m[NMETRIC])
{
	const struct bc_prof_stack *st = bc_prof_stack_find(&x->d, uid);

	for (int k = 0; k < NMETRIC; k++)
		r->total[k] += m[k];
	if (!st)
		return 0;
	r->serial++;
	for (size_t f = 0; f < st->n; f++) {
		int fi = func_of(r, x, st->pcs[f], when);

		if (fi < 0)
			return fi;
		for (int k = 0; k < NMETRIC && f == 0; k++)
			r->funcs[fi].excl[k] += m[k];
		if (r->funcs[fi].last != r->serial) {
			r->funcs[fi].last = r->serial;
			for (int k = 0; k < NMETRIC; k++)
				r->funcs[fi].incl[k] += m[k];
		}
	}
	return 0;
}

/* ------------------------------------------------------------ heap model */

/* Live blocks: open addressing by address, each the index of its allocating event. */
struct live_map {
	uint64_t *addr;
	size_t *ev;
	size_t n, cap; /* cap: power of 2 */
};

static size_t slot(const struct live_map *m, uint64_t a)
{
	size_t i = (size_t)((a >> 4) * 0x9e3779b97f4a7c15ULL) & (m->cap - 1);

	while (m->addr[i] && m->addr[i] != a)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int live_put(struct live_map *m, uint64_t a, size_t ev)
{
	size_t i;

	if (!a)
		return 0;
	if ((m->n + 1) * 2 > m->cap) {
		struct live_map g = {.cap = m->cap ? m->cap * 2 : 1024};

		g.addr = calloc(g.cap, sizeof(*g.addr));
		g.ev = calloc(g.cap, sizeof(*g.ev));
		if (!g.addr || !g.ev) {
			free(g.addr);
			free(g.ev);
			return -ENOMEM;
		}
		for (size_t k = 0; k < m->cap; k++) {
			if (!m->addr[k])
				continue;
			i = slot(&g, m->addr[k]);
			g.addr[i] = m->addr[k];
			g.ev[i] = m->ev[k];
			g.n++;
		}
		free(m->addr);
		free(m->ev);
		*m = g;
	}
	i = slot(m, a);
	if (!m->addr[i])
		m->n++;
	m->addr[i] = a;
	m->ev[i] = ev;
	return 0;
}

/* Removes a (backward-shift deletion keeps every probe chain whole). */
static void live_drop(struct live_map *m, uint64_t a)
{
	size_t i, j, home;

	if (!a || !m->cap)
		return;
	i = slot(m, a);
	if (!m->addr[i])
		return;
	m->addr[i] = 0;
	m->n--;
	for (j = (i + 1) & (m->cap - 1); m->addr[j]; j = (j + 1) & (m->cap - 1)) {
		home = (size_t)((m->addr[j] >> 4) * 0x9e3779b97f4a7c15ULL) & (m->cap - 1);
		if (((j - home) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			m->addr[i] = m->addr[j];
			m->ev[i] = m->ev[j];
			m->addr[j] = 0;
			i = j;
		}
	}
}

static int cmp_event_time(const void *a, const void *b)
{
	const struct bc_trace_event *x = a, *y = b;

	return (x->tstamp > y->tstamp) - (x->tstamp < y->tstamp);
}

static int add_leak(struct report *r, struct exp_ctx *x, const struct bc_trace_event *e)
{
	const struct bc_prof_stack *st = bc_prof_stack_find(&x->d, e->frinfo);
	struct leak_group *g = NULL, *v;

	for (size_t i = 0; i < r->n_leaks && !g; i++)
		if (r->leaks[i].exp == x->index && r->leaks[i].uid == e->frinfo)
			g = &r->leaks[i];
	if (!g) {
		v = realloc(r->leaks, (r->n_leaks + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->leaks = v;
		g = &v[r->n_leaks++];
		memset(g, 0, sizeof(*g));
		g->exp = x->index;
		g->uid = e->frinfo;
		g->frames = calloc(st && st->n ? st->n : 1, sizeof(*g->frames));
		if (!g->frames)
			return -ENOMEM;
		for (size_t f = 0; st && f < st->n; f++) {
			int fi = func_of(r, x, st->pcs[f], e->tstamp);

			if (fi < 0)
				return fi;
			g->frames[g->n_frames] = strdup(r->funcs[fi].name);
			if (!g->frames[g->n_frames++])
				return -ENOMEM;
		}
	}
	g->count++;
	g->bytes += e->size;
	return 0;
}

static int heap_experiment(struct report *r, struct exp_ctx *x)
{
	struct bc_trace_event *ev = x->d.heap;
	struct live_map live = {0};
	int rc = 0;

	/* gprofng sorts by time; a stable order for ties keeps the file's order */
	for (size_t i = 1; i < x->d.n_heap; i++) {
		if (ev[i].tstamp < ev[i - 1].tstamp) {
			qsort(ev, x->d.n_heap, sizeof(*ev), cmp_event_time);
			break;
		}
	}
	for (size_t i = 0; i < x->d.n_heap && !rc; i++) {
		const struct bc_trace_event *e = &ev[i];
		uint64_t m[NMETRIC] = {1, e->size, 0, 0};

		switch (e->type) {
		case HEAP_MALLOC:
		case HEAP_MMAP:
			rc = attribute(r, x, e->frinfo, e->tstamp, m);
			if (!rc)
				rc = live_put(&live, e->addr, i);
			break;
		case HEAP_REALLOC:
			rc = attribute(r, x, e->frinfo, e->tstamp, m);
			live_drop(&live, e->old_addr);
			if (!rc)
				rc = live_put(&live, e->addr, i);
			break;
		case HEAP_FREE:
		case HEAP_MUNMAP:
			r->frees++;
			live_drop(&live, e->addr);
			break;
		default:
			break;
		}
	}
	/* what is left leaked, in allocation order */
	for (size_t i = 0; i < x->d.n_heap && !rc; i++) {
		const struct bc_trace_event *e = &ev[i];
		size_t s;

		if (e->type != HEAP_MALLOC && e->type != HEAP_MMAP && e->type != HEAP_REALLOC)
			continue;
		if (!e->addr || !live.cap)
			continue;
		s = slot(&live, e->addr);
		if (live.addr[s] != e->addr || live.ev[s] != i)
			continue;
		uint64_t m[NMETRIC] = {0, 0, 1, e->size};

		rc = attribute(r, x, e->frinfo, e->tstamp, m);
		if (!rc)
			rc = add_leak(r, x, e);
	}
	free(live.addr);
	free(live.ev);
	return rc;
}

static int sync_experiment(struct report *r, struct exp_ctx *x)
{
	int rc = 0;

	for (size_t i = 0; i < x->d.n_sync && !rc; i++) {
		const struct bc_trace_event *e = &x->d.sync[i];
		uint64_t m[NMETRIC] = {e->tstamp > e->start ? e->tstamp - e->start : 0, 1, 0, 0};

		rc = attribute(r, x, e->frinfo, e->tstamp, m);
	}
	return rc;
}

static int one_experiment(struct report *r, const char *path, size_t index, char *err,
			  size_t errlen)
{
	struct exp_ctx x = {.path = path, .index = index};
	int rc;

	rc = bc_prof_data_read(path, &x.d, err, errlen);
	if (rc < 0)
		goto out;
	if (r->view == BC_VIEW_SYNC ? !x.d.has_sync : !x.d.has_heap)
		goto out;
	r->experiments++;
	rc = bc_segments_read(path, &x.segs, err, errlen);
	if (rc == 0)
		rc = bc_ksyms_read(path, &x.ks);
	if (rc == 0)
		rc = r->view == BC_VIEW_SYNC ? sync_experiment(r, &x) : heap_experiment(r, &x);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory reading %s", path);
out:
	bc_segments_free(&x.segs);
	bc_ksyms_free(&x.ks);
	bc_prof_data_free(&x.d);
	return rc;
}

/* ------------------------------------------------------------ printing */

static int sort_metric; /* qsort has no context: the metric rows are ordered by */

static int cmp_row(const void *a, const void *b)
{
	const struct func_row *x = a, *y = b;
	int c;

	if (x->incl[sort_metric] != y->incl[sort_metric])
		return x->incl[sort_metric] < y->incl[sort_metric] ? 1 : -1;
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->object, y->object);
}

static int cmp_leak(const void *a, const void *b)
{
	const struct leak_group *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return (x->exp > y->exp) - (x->exp < y->exp);
}

static void print_heap(struct report *r, size_t top, FILE *out)
{
	size_t shown = top && top < r->n_funcs ? top : r->n_funcs;
	int objw = bc_slen("Object");

	fprintf(out,
		"Heap: %" PRIu64 " allocations, %" PRIu64 " bytes; %" PRIu64 " frees; %" PRIu64
		" leaks, %" PRIu64 " bytes leaked (%" PRIu64 " experiment%s)\n",
		r->total[0], r->total[1], r->frees, r->total[2], r->total[3], r->experiments,
		r->experiments == 1 ? "" : "s");
	sort_metric = 1;
	if (r->n_funcs)
		qsort(r->funcs, r->n_funcs, sizeof(*r->funcs), cmp_row);
	for (size_t i = 0; i < shown; i++)
		objw = bc_max_int(objw, bc_slen(r->funcs[i].object));
	fprintf(out, "Functions, by inclusive bytes allocated:\n");
	fprintf(out, "  %11s  %14s  %6s  %12s  %11s  %14s  %-*s  %s\n", "Incl.Allocs", "Incl.Bytes",
		"Leaks", "Leaked bytes", "Excl.Allocs", "Excl.Bytes", objw, "Object", "Name");
	fprintf(out,
		"  %11" PRIu64 "  %14" PRIu64 "  %6" PRIu64 "  %12" PRIu64 "  %11" PRIu64
		"  %14" PRIu64 "  %-*s  %s\n",
		r->total[0], r->total[1], r->total[2], r->total[3], r->total[0], r->total[1], objw,
		"", "<Total>");
	for (size_t i = 0; i < shown; i++) {
		const struct func_row *f = &r->funcs[i];

		fprintf(out,
			"  %11" PRIu64 "  %14" PRIu64 "  %6" PRIu64 "  %12" PRIu64 "  %11" PRIu64
			"  %14" PRIu64 "  %-*s  %s\n",
			f->incl[0], f->incl[1], f->incl[2], f->incl[3], f->excl[0], f->excl[1],
			objw, f->object, f->name);
	}
}

static void print_leaks(struct report *r, size_t top, FILE *out)
{
	size_t shown = top && top < r->n_leaks ? top : r->n_leaks;

	if (r->n_leaks)
		qsort(r->leaks, r->n_leaks, sizeof(*r->leaks), cmp_leak);
	fprintf(out, "Leaks: %zu distinct, %" PRIu64 " instances, %" PRIu64 " bytes\n", r->n_leaks,
		r->total[2], r->total[3]);
	for (size_t i = 0; i < shown; i++) {
		const struct leak_group *g = &r->leaks[i];

		fprintf(out, "\nLeak #%zu, instances %" PRIu64 ", bytes %" PRIu64 "\n", i + 1,
			g->count, g->bytes);
		for (size_t f = 0; f < g->n_frames; f++)
			fprintf(out, "  %s\n", g->frames[f]);
		if (!g->n_frames)
			fprintf(out, "  <no stack>\n");
	}
}

static void print_sync(struct report *r, size_t top, FILE *out)
{
	size_t shown = top && top < r->n_funcs ? top : r->n_funcs;
	int objw = bc_slen("Object");

	fprintf(out, "Sync waits: %" PRIu64 " waits, %.6f s waited (%" PRIu64 " experiment%s)\n",
		r->total[1], (double)r->total[0] / 1e9, r->experiments,
		r->experiments == 1 ? "" : "s");
	sort_metric = 0;
	if (r->n_funcs)
		qsort(r->funcs, r->n_funcs, sizeof(*r->funcs), cmp_row);
	for (size_t i = 0; i < shown; i++)
		objw = bc_max_int(objw, bc_slen(r->funcs[i].object));
	fprintf(out, "Functions, by inclusive wait time:\n");
	fprintf(out, "  %12s  %11s  %12s  %11s  %-*s  %s\n", "Incl.Wait(s)", "Incl.Waits",
		"Excl.Wait(s)", "Excl.Waits", objw, "Object", "Name");
	fprintf(out, "  %12.6f  %11" PRIu64 "  %12.6f  %11" PRIu64 "  %-*s  %s\n",
		(double)r->total[0] / 1e9, r->total[1], (double)r->total[0] / 1e9, r->total[1],
		objw, "", "<Total>");
	for (size_t i = 0; i < shown; i++) {
		const struct func_row *f = &r->funcs[i];

		fprintf(out, "  %12.6f  %11" PRIu64 "  %12.6f  %11" PRIu64 "  %-*s  %s\n",
			(double)f->incl[0] / 1e9, f->incl[1], (double)f->excl[0] / 1e9, f->excl[1],
			objw, f->object, f->name);
	}
}

static int each_experiment(const char *path, const char *name, size_t index, void *arg, char *err,
			   size_t errlen)
{
	(void)name;
	return one_experiment(arg, path, index, err, errlen);
}

int bc_report_traces(const char *exp_path, bool descendants, enum bc_trace_view view, size_t top,
		     FILE *out, char *err, size_t errlen)
{
	struct report r = {.view = view};
	int rc;

	rc = bc_er_tree_each(exp_path, descendants, each_experiment, &r, err, errlen);
	if (rc < 0)
		goto out;
	if (!r.experiments) {
		snprintf(err, errlen, "%s has no %s trace (record it with %s)", exp_path,
			 view == BC_VIEW_SYNC ? "sync" : "heap",
			 view == BC_VIEW_SYNC ? "-s on" : "-H on");
		rc = -ENOENT;
		goto out;
	}
	if (view == BC_VIEW_HEAP)
		print_heap(&r, top, out);
	else if (view == BC_VIEW_LEAKS)
		print_leaks(&r, top, out);
	else
		print_sync(&r, top, out);
out:
	for (size_t i = 0; i < r.n_leaks; i++) {
		for (size_t f = 0; f < r.leaks[i].n_frames; f++)
			free(r.leaks[i].frames[f]);
		free(r.leaks[i].frames);
	}
	free(r.leaks);
	free(r.funcs);
	bc_fnindex_free(&r.index);
	bc_pcnamer_free(&r.namer);
	return rc;
}
