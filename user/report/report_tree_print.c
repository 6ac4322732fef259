// SPDX-License-Identifier: MIT
/*
 * The calltree and callers-callees views: text printed from the call-tree
 * engine's public accessors (report_tree.h). As in report_print.c, column
 * widths are measured from the data first and names come last, whole.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/containers.h"
#include "table.h"
#include "bpfcollect/report.h"
#include "bpfcollect/report_tree.h"

#define COUNT_LEN 24 /* UINT64_MAX in decimal, plus NUL */

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

/* A duration, or "-" when nothing was measured. */
static char *format_time(char buf[BC_DURATION_LEN], uint64_t ns, bool measured)
{
	if (measured)
		return bc_format_duration(buf, ns);
	strcpy(buf, "-");
	return buf;
}

static void print_tree_notes(const struct bc_calltree *t, FILE *out)
{
	const struct bc_calltree_totals *tot = bc_calltree_totals(t);

	if (tot->incomplete)
		fprintf(out,
			"note: %" PRIu64 " calls never returned (thread exit, exec or lost"
			" return); they count as calls, not time\n",
			tot->incomplete);
	if (tot->open_at_detach)
		fprintf(out,
			"note: %" PRIu64 " calls were open at detach (still running when the"
			" recording ended); they count as calls, not time\n",
			tot->open_at_detach);
	if (tot->orphan_returns)
		fprintf(out, "note: %" PRIu64 " returns without a matching entry were ignored\n",
			tot->orphan_returns);
	if (tot->lost_func)
		fprintf(out,
			"warning: %" PRIu64 " function events were lost; the tree misses the"
			" affected calls\n",
			tot->lost_func);
}

/* ---------------------------------------------------------------- calltree */

/* One printed line: a node, the sum of the siblings past the limit, or what lies too deep. */
struct tree_row {
	const struct bc_tree_node *node; /* NULL: a "(N more)" or a folded line */
	size_t depth;
	bool last; /* the last line among its siblings */
	size_t more;
	size_t folded; /* levels below BC_CALLTREE_DEPTH_SHOWN, summed on this line */
	uint64_t calls;
	uint64_t time_ns;
	bool timed;
};

struct tree_level {
	const struct bc_tree_node **kids;
	size_t n, shown, pos;
};

struct tree_rows {
	struct tree_row *v;
	size_t n, cap;
	int w_total, w_calls;
};

static int cmp_node(const void *pa, const void *pb)
{
	const struct bc_tree_node *a = *(const struct bc_tree_node *const *)pa;
	const struct bc_tree_node *b = *(const struct bc_tree_node *const *)pb;
	int c = cmp_u64_desc(a->incl_ns, b->incl_ns);

	if (!c)
		c = cmp_u64_desc(a->calls, b->calls);
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = a->func_id < b->func_id ? -1 : a->func_id > b->func_id;
	return c;
}

static int add_row(struct tree_rows *rows, const struct tree_row *row)
{
	char total[BC_DURATION_LEN], calls[COUNT_LEN];
	int err = BC_GROW(rows->v, rows->cap, rows->n + 1);

	if (err)
		return err;
	rows->v[rows->n++] = *row;
	format_time(total, row->time_ns, row->timed);
	snprintf(calls, sizeof(calls), "%" PRIu64, row->calls);
	rows->w_total = bc_max_int(rows->w_total, bc_slen(total));
	rows->w_calls = bc_max_int(rows->w_calls, bc_slen(calls));
	return 0;
}

/* Pushes the sorted children of node as a new level. -errno. */
static int push_level(const struct bc_calltree *t, struct tree_level **levels, size_t *n,
		      size_t *cap, const struct bc_tree_node *node, size_t per_level)
{
	struct tree_level *l;
	int err = BC_GROW(*levels, *cap, *n + 1);

	if (err)
		return err;
	l = &(*levels)[*n];
	memset(l, 0, sizeof(*l));
	err = bc_calltree_children(t, node, &l->kids, &l->n);
	if (err)
		return err;
	if (!l->n)
		return 0; /* nothing to visit: the level is not kept */
	qsort(l->kids, l->n, sizeof(*l->kids), cmp_node);
	/* A "(1 more)" line would take the place of the one it hides: show that one. */
	l->shown = per_level && per_level + 1 < l->n ? per_level : l->n;
	(*n)++;
	return 0;
}

/*
 * What lies below node, which is at the deepest level shown, as one row:
 * its children's calls and time, and how many levels deep the subtree
 * goes. Iterative, over every node below once. -errno.
 */
static int fold_row(const struct bc_calltree *t, const struct bc_tree_node *node, size_t depth,
		    struct tree_row *row)
{
	struct fold_item {
		const struct bc_tree_node *node;
		size_t depth;
	} *todo = NULL;
	size_t n = 0, cap = 0;
	int err = BC_GROW(todo, cap, 1);

	*row = (struct tree_row){.depth = depth + 1, .last = true};
	if (!err)
		todo[n++] = (struct fold_item){node, 0};
	while (!err && n) {
		struct fold_item it = todo[--n];
		const struct bc_tree_node **kids;
		size_t nk;

		if (it.depth > row->folded)
			row->folded = it.depth;
		err = bc_calltree_children(t, it.node, &kids, &nk);
		if (!err)
			err = BC_GROW(todo, cap, n + nk);
		for (size_t i = 0; !err && i < nk; i++) {
			todo[n++] = (struct fold_item){kids[i], it.depth + 1};
			if (it.depth)
				continue;
			row->calls += kids[i]->calls;
			row->time_ns += kids[i]->incl_ns;
			row->timed |= kids[i]->returns != 0;
		}
		free(kids);
	}
	free(todo);
	return err;
}

/* The rows of the tree, in print order: depth first, children sorted. -errno. */
static int collect_rows(const struct bc_calltree *t, struct tree_rows *rows, size_t per_level)
{
	struct tree_level *levels = NULL;
	size_t depth = 0, cap = 0;
	int err;

	/* Iterative: recursion in the traced program makes deep trees. */
	err = push_level(t, &levels, &depth, &cap, bc_calltree_root(t), per_level);
	while (!err && depth) {
		struct tree_level *l = &levels[depth - 1];
		struct tree_row row = {.depth = depth};

		if (l->pos < l->shown) {
			const struct bc_tree_node *node = l->kids[l->pos++];

			row.node = node;
			row.last = l->pos == l->n;
			row.calls = node->calls;
			row.time_ns = node->incl_ns;
			row.timed = node->returns != 0;
			err = add_row(rows, &row);
			/*
			 * Deep recursion makes chains thousands of levels long, and
			 * each line is indented by its depth: the output would grow
			 * with its square. Below the deepest level shown, one line.
			 */
			if (!err && depth == BC_CALLTREE_DEPTH_SHOWN) {
				err = fold_row(t, node, depth, &row);
				if (!err && row.folded)
					err = add_row(rows, &row);
			} else if (!err) {
				err = push_level(t, &levels, &depth, &cap, node, per_level);
			}
		} else if (l->pos < l->n) {
			row.last = true;
			row.more = l->n - l->pos;
			for (; l->pos < l->n; l->pos++) {
				row.calls += l->kids[l->pos]->calls;
				row.time_ns += l->kids[l->pos]->incl_ns;
				row.timed |= l->kids[l->pos]->returns != 0;
			}
			err = add_row(rows, &row);
		} else {
			free(l->kids);
			depth--;
		}
	}
	for (size_t i = 0; i < depth; i++)
		free(levels[i].kids);
	free(levels);
	return err;
}

int bc_calltree_print(const struct bc_calltree *t, FILE *out, size_t per_level)
{
	struct tree_rows rows = {.w_total = bc_slen("Total"), .w_calls = bc_slen("Calls")};
	bool *open = NULL; /* per depth: more siblings follow, draw "| " */
	size_t max_depth = 0;
	int err;

	if (!bc_calltree_nnodes(t)) {
		fprintf(out, "Call tree: no calls recorded\n");
		print_tree_notes(t, out);
		return ferror(out) ? -EIO : 0;
	}
	err = collect_rows(t, &rows, per_level);
	if (err)
		goto out;
	for (size_t i = 0; i < rows.n; i++)
		if (rows.v[i].depth > max_depth)
			max_depth = rows.v[i].depth;
	open = calloc(max_depth + 1, sizeof(*open));
	if (!open) {
		err = -ENOMEM;
		goto out;
	}

	fprintf(out, "Call tree, all threads merged, by inclusive time");
	if (per_level)
		fprintf(out, ", at most %zu children per node", per_level);
	fprintf(out, ":\n%*s  %*s  Name\n", rows.w_total, "Total", rows.w_calls, "Calls");
	bc_print_rule(out, rows.w_total);
	fputs("  ", out);
	bc_print_rule(out, rows.w_calls);
	fputs("  ", out);
	bc_print_rule(out, bc_slen("Name"));
	fputc('\n', out);
	for (size_t i = 0; i < rows.n; i++) {
		const struct tree_row *row = &rows.v[i];
		char total[BC_DURATION_LEN];

		open[row->depth] = !row->last;
		fprintf(out, "%*s  %*" PRIu64 "  ", rows.w_total,
			format_time(total, row->time_ns, row->timed), rows.w_calls, row->calls);
		/* DFS order: the last row seen at each shallower depth is an ancestor. */
		for (size_t d = 2; d < row->depth; d++)
			fputs(open[d] ? "| " : "  ", out);
		if (row->depth > 1)
			fputs("+-", out);
		if (row->node)
			fprintf(out, "%s%s\n", row->node->name,
				row->node->recursive ? " (recursive)" : "");
		else if (row->folded)
			fprintf(out, "(%zu deeper level%s folded)\n", row->folded,
				row->folded > 1 ? "s" : "");
		else
			fprintf(out, "(%zu more)\n", row->more);
	}
	print_tree_notes(t, out);
	err = ferror(out) ? -EIO : 0;
out:
	free(open);
	free(rows.v);
	return err;
}

/* ---------------------------------------------------------------- callers-callees */

static int cmp_cc(const void *pa, const void *pb)
{
	const struct bc_callers_callees *a = pa, *b = pb;
	int c = cmp_u64_desc(a->incl_ns, b->incl_ns);

	if (!c)
		c = cmp_u64_desc(a->calls, b->calls);
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->object, b->object);
	return c;
}

static void edge_cells(const struct bc_cc_edge *e, char time[BC_DURATION_LEN],
		       char calls[COUNT_LEN])
{
	format_time(time, e->time_ns, e->timed != 0);
	snprintf(calls, COUNT_LEN, "%" PRIu64, e->calls);
}

static void measure_edges(const struct bc_cc_edge *v, size_t n, int *w_time, int *w_calls)
{
	char time[BC_DURATION_LEN], calls[COUNT_LEN];

	for (size_t i = 0; i < n; i++) {
		edge_cells(&v[i], time, calls);
		*w_time = bc_max_int(*w_time, bc_slen(time));
		*w_calls = bc_max_int(*w_calls, bc_slen(calls));
	}
}

/* Prints the edges; returns whether one carried recursive calls. */
static bool print_edges(FILE *out, const struct bc_cc_edge *v, size_t n, int w_time, int w_calls)
{
	char time[BC_DURATION_LEN], calls[COUNT_LEN];
	bool recursive = false;

	for (size_t i = 0; i < n; i++) {
		const struct bc_cc_edge *e = &v[i];

		edge_cells(e, time, calls);
		fprintf(out, "%*s  %*s   %s", w_time, time, w_calls, calls, e->name);
		if (e->recursive && e->recursive == e->calls)
			fputs(" (recursive)", out);
		else if (e->recursive)
			fprintf(out, " (%" PRIu64 " recursive)", e->recursive);
		fputc('\n', out);
		recursive |= e->recursive != 0;
	}
	return recursive;
}

static const char *basename_or_dash(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash)
		path = slash + 1;
	return *path ? path : "-";
}

/* One block: title, callers, *FUNC, callees. Returns whether recursion showed. */
static bool print_cc(FILE *out, const struct bc_callers_callees *cc)
{
	char incl[BC_DURATION_LEN], excl[BC_DURATION_LEN], calls[COUNT_LEN];
	int w_time = bc_slen("Attr. time"), w_calls = bc_slen("Calls");
	bool recursive;

	format_time(incl, cc->incl_ns, cc->incl_frames != 0);
	format_time(excl, cc->excl_ns, cc->returns != 0);
	snprintf(calls, sizeof(calls), "%" PRIu64, cc->calls);
	measure_edges(cc->callers, cc->ncallers, &w_time, &w_calls);
	measure_edges(cc->callees, cc->ncallees, &w_time, &w_calls);
	w_time = bc_max_int(w_time, bc_slen(excl));
	w_calls = bc_max_int(w_calls, bc_slen(calls));

	fprintf(out, "%s (%s): calls %s, inclusive %s, exclusive %s\n", cc->name,
		basename_or_dash(cc->object), calls, incl, excl);
	fprintf(out, "%*s  %*s  Name\n", w_time, "Attr. time", w_calls, "Calls");
	bc_print_rule(out, w_time);
	fputs("  ", out);
	bc_print_rule(out, w_calls);
	fputs("  ", out);
	bc_print_rule(out, bc_slen("Name"));
	fputc('\n', out);
	recursive = print_edges(out, cc->callers, cc->ncallers, w_time, w_calls);
	fprintf(out, "%*s  %*s  *%s\n", w_time, excl, w_calls, calls, cc->name);
	recursive |= print_edges(out, cc->callees, cc->ncallees, w_time, w_calls);
	return recursive;
}

int bc_calltree_print_callers_callees(const struct bc_calltree *t, FILE *out, const char *glob)
{
	struct bc_callers_callees *v = NULL;
	size_t n = 0, cap = 0;
	bool recursive = false;
	int err = 0;

	for (size_t i = 0; i < bc_calltree_nfuncs(t); i++) {
		uint32_t id;
		const char *name = bc_calltree_func_at(t, i, &id);

		if (!bc_sym_glob_match(glob, name))
			continue;
		err = BC_GROW(v, cap, n + 1);
		if (!err)
			err = bc_calltree_callers_callees(t, id, &v[n]);
		if (err)
			goto out;
		n++;
	}
	if (!n) {
		fprintf(out, "No calls of %s in this experiment.\n", glob);
		goto out;
	}
	qsort(v, n, sizeof(*v), cmp_cc);
	fprintf(out,
		"Callers and callees of %s: callers, then *the function (exclusive"
		" time), then callees\n\n",
		glob);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc('\n', out);
		recursive |= print_cc(out, &v[i]);
	}
	if (recursive)
		fprintf(out, "note: recursive calls (of a function already active on the thread)"
			     " add calls, not time: their time is in the outermost call's\n");
	print_tree_notes(t, out);
out:
	for (size_t i = 0; i < n; i++)
		bc_callers_callees_free(&v[i]);
	free(v);
	return err ? err : ferror(out) ? -EIO : 0;
}
