// SPDX-License-Identifier: MIT
/*
 * -f folded: collapsed stacks for flame graphs (docs/folded.md). Every
 * stack becomes a node of one trie of call paths (bpfcollect/stack_names.h)
 * that hangs from its process's name, and each node sums its weight as the
 * stream goes: clock samples (one each, or the period in ns), off-CPU
 * intervals (their ns) or calls (a path's exclusive or inclusive ns). At the
 * end each weighed path becomes one line, `COMM;outer;...;leaf WEIGHT`, in
 * sorted order so equal streams give equal files. Memory grows with the
 * distinct paths, not with the events.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/folded.h"
#include "bpfcollect/outfile.h"
#include "bpfcollect/pidtab.h"
#include "bpfcollect/shadow_stack.h"
#include "bpfcollect/stack_names.h"
#include "bpfcollect/state.h"
#include "bpfcollect/syscalls.h"

/* One table per enum of names: --weight's. */
static const char *const weight_names[BC_FOLDED_WEIGHT_NR] = {
	[BC_FOLDED_AUTO] = "auto", [BC_FOLDED_SAMPLES] = "samples", [BC_FOLDED_TIME] = "time",
	[BC_FOLDED_EXCL] = "excl", [BC_FOLDED_INCL] = "incl",
};

int bc_folded_weight_parse(struct bc_folded_opts *o, const char *arg, char *err, size_t errlen)
{
	for (int i = 0; i < BC_FOLDED_WEIGHT_NR; i++)
		if (!strcmp(arg, weight_names[i])) {
			o->weight = (enum bc_folded_weight)i;
			return 0;
		}
	snprintf(err, errlen, "--weight takes samples, time, excl, incl or auto, not '%s'", arg);
	return -EINVAL;
}

int bc_folded_opts_check(const struct bc_folded_opts *o, char *err, size_t errlen)
{
	if (o->offcpu && o->weight != BC_FOLDED_AUTO && o->weight != BC_FOLDED_TIME) {
		snprintf(err, errlen,
			 "--offcpu stacks weigh their time (--weight=time), not --weight=%s",
			 weight_names[o->weight]);
		return -EINVAL;
	}
	return 0;
}

struct folded_thread {
	uint32_t pid;
	struct bc_shadow_stack stack; /* a frame's tag is the node of its call path */
};

struct folded_sink {
	struct bc_sink base;
	FILE *out;
	struct bc_folded_opts opts;
	enum bc_folded_weight weight; /* AUTO resolved at begin */
	const struct bc_state *state;
	const struct bc_functab *funcs;
	uint64_t profile_ns;
	struct bc_pidtab threads; /* by tid: the calls open (call-trace weights only) */
	struct bc_stack_names names;
	uint64_t *weights; /* by node */
	size_t cap_weights;
	uint64_t counted; /* records that weighed a path */
};

static void thread_release(void *entry, void *ctx)
{
	(void)ctx;
	bc_stack_free(&((struct folded_thread *)entry)->stack);
}

static int folded_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct folded_sink *f = (struct folded_sink *)s;

	f->state = sess->state;
	f->funcs = sess->funcs;
	f->names.state = sess->state;
	f->profile_ns = (uint64_t)sess->profile_us * 1000;
	f->weight = f->opts.weight;
	if (f->opts.offcpu)
		f->weight = BC_FOLDED_TIME;
	else if (f->weight == BC_FOLDED_AUTO)
		f->weight = sess->profile_us ? BC_FOLDED_SAMPLES : BC_FOLDED_EXCL;
	return 0;
}

static int add_weight(struct folded_sink *f, int node, uint64_t w)
{
	size_t old = f->cap_weights;

	if (node < 0)
		return node;
	if (BC_GROW(f->weights, f->cap_weights, (size_t)node + 1))
		return -ENOMEM;
	if (f->cap_weights > old)
		memset(f->weights + old, 0, (f->cap_weights - old) * sizeof(*f->weights));
	f->weights[node] += w;
	f->counted++;
	return 0;
}

/* The node of pid's process name, which every path of it starts from. */
static int process_node(struct folded_sink *f, uint32_t pid)
{
	const struct bc_proc *p = f->state ? bc_state_proc(f->state, pid) : NULL;
	int fn = bc_stack_fn(&f->names, bc_proc_name(p), "");

	return fn < 0 ? fn : bc_stack_child(&f->names, BC_STACK_ROOT, (uint32_t)fn);
}

/* ---------------------------------------------------------------- the call trace */

/*
 * Frames dropped without their returns, top first: each is the caller of
 * the one before, whose time its child_ns lacks (only a return adds it), so
 * it is carried down to keep the exclusive weights adding up to the
 * inclusive ones.
 */
struct drop_ctx {
	struct folded_sink *f;
	uint64_t at;
	uint64_t carry; /* the last dropped frame's inclusive time */
	int rc;
};

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* A call that never returned weighs what it ran until at. */
static void dropped_frame(void *ctx, const struct bc_frame *fr)
{
	struct drop_ctx *d = ctx;
	uint64_t incl = minus(d->at, fr->entry_ktime);
	uint64_t excl = minus(minus(incl, fr->child_ns), d->carry);
	int rc = add_weight(d->f, (int)fr->tag, d->f->weight == BC_FOLDED_INCL ? incl : excl);

	d->carry = incl;
	if (rc < 0)
		d->rc = rc;
}

static struct folded_thread *thread_of(struct folded_sink *f, const struct bc_rec_head *h)
{
	struct folded_thread *th = bc_pidtab_find(&f->threads, h->tid);

	if (th && th->pid == h->pid)
		return th;
	if (th)
		bc_pidtab_remove(&f->threads, h->tid);
	th = bc_pidtab_add(&f->threads, h->tid);
	if (th)
		th->pid = h->pid;
	return th;
}

static int call_entry(struct folded_sink *f, const struct bc_event *ev)
{
	const struct bc_rec_func_entry *e = (const void *)ev->rec;
	struct folded_thread *th = thread_of(f, &e->h);
	const struct bc_frame *top;
	int parent, fn, node;
	char unknown[32];

	if (!th)
		return -ENOMEM;
	top = bc_stack_top(&th->stack);
	parent = top ? (int)top->tag : process_node(f, e->h.pid);
	if (parent < 0)
		return parent;
	if (ev->func) {
		const char *slash = strrchr(ev->func->object, '/');

		fn = bc_stack_fn(&f->names, ev->func->name, slash ? slash + 1 : ev->func->object);
	} else {
		snprintf(unknown, sizeof(unknown), "<unknown id %" PRIu32 ">", e->func_id);
		fn = bc_stack_fn(&f->names, unknown, "");
	}
	if (fn < 0)
		return fn;
	node = bc_stack_child(&f->names, (uint32_t)parent, (uint32_t)fn);
	if (node < 0)
		return node;
	return bc_stack_push(&th->stack, e->func_id, (uint32_t)node, e->h.ktime);
}

static int call_return(struct folded_sink *f, const struct bc_event *ev)
{
	const struct bc_rec_func_return *r = (const void *)ev->rec;
	struct folded_thread *th = thread_of(f, &r->h);
	struct drop_ctx d = {f, r->h.ktime, 0, 0};
	struct bc_frame_return ret;

	if (!th)
		return -ENOMEM;
	if (bc_stack_return(&th->stack, r->func_id, r->entry_ktime, r->h.ktime, dropped_frame, &d,
			    &ret) < 0)
		return d.rc; /* its entry was not seen: no path to weigh */
	if (d.rc < 0)
		return d.rc;
	return add_weight(f, (int)ret.frame.tag,
			  f->weight == BC_FOLDED_INCL ? ret.incl_ns : minus(ret.excl_ns, d.carry));
}

static int thread_exit(struct folded_sink *f, const struct bc_rec_head *h)
{
	struct folded_thread *th = bc_pidtab_find(&f->threads, h->tid);
	struct drop_ctx d = {f, h->ktime, 0, 0};

	if (!th || th->pid != h->pid)
		return 0;
	bc_stack_drop_all(&th->stack, dropped_frame, &d);
	if (d.rc < 0)
		return d.rc;
	return bc_pidtab_exited(&f->threads, h->tid);
}

/* ---------------------------------------------------------------- samples, off-CPU */

static int sample(struct folded_sink *f, const struct bc_rec_profile *p)
{
	int root = process_node(f, p->h.pid), node;

	if (root < 0)
		return root;
	node = bc_stack_of(&f->names, (uint32_t)root, p->h.pid, p->h.ktime, p->ips,
			   (size_t)p->n_kernel + p->n_user, p->n_kernel);
	return add_weight(f, node, f->weight == BC_FOLDED_TIME ? f->profile_ns : 1);
}

/* The user stack at switch-out, then the system call it blocked in (a kernel frame). */
static int offcpu(struct folded_sink *f, const struct bc_rec_offcpu *o)
{
	const char *sys = o->syscall >= 0 ? bc_syscall_name((uint32_t)o->syscall) : NULL;
	int root = process_node(f, o->h.pid), node, fn;

	if (root < 0)
		return root;
	node = bc_stack_of(&f->names, (uint32_t)root, o->h.pid, o->off_ktime, o->ips, o->n_user, 0);
	if (node >= 0 && sys) {
		fn = bc_stack_fn(&f->names, sys, "vmlinux");
		node = fn < 0 ? fn : bc_stack_child(&f->names, (uint32_t)node, (uint32_t)fn);
	}
	return add_weight(f, node, o->h.ktime > o->off_ktime ? o->h.ktime - o->off_ktime : 0);
}

static int folded_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct folded_sink *f = (struct folded_sink *)s;
	const struct bc_rec_head *h = ev->rec;
	bool calls = f->weight == BC_FOLDED_EXCL || f->weight == BC_FOLDED_INCL;

	switch (h->kind) {
	case BC_REC_FUNC_ENTRY:
		return calls ? call_entry(f, ev) : 0;
	case BC_REC_FUNC_RETURN:
		return calls ? call_return(f, ev) : 0;
	case BC_REC_PROC_EXEC:
	case BC_REC_THREAD_EXIT:
	case BC_REC_PROC_EXIT:
		return calls ? thread_exit(f, h) : 0;
	case BC_REC_PROFILE:
		return !calls && !f->opts.offcpu ? sample(f, (const void *)h) : 0;
	case BC_REC_OFFCPU:
		return f->opts.offcpu ? offcpu(f, (const void *)h) : 0;
	}
	return 0;
}

/* ---------------------------------------------------------------- the lines */

/* A frame's name as one folded field: no ';' (the separator) and no control bytes. */
static void put_frame(FILE *out, const struct bc_fnkey *fn)
{
	bool kernel = bc_stack_fn_is_kernel(fn);
	const char *name = bc_sym_display(fn->name);

	if (kernel && !strncmp(name, "vmlinux`", 8))
		name += 8;
	for (const char *p = name; *p; p++)
		fputc(*p == ';' ? ':' : (unsigned char)*p < ' ' || *p == 0x7f ? '?' : *p, out);
	if (kernel)
		fputs("_[k]", out); /* flamegraph.pl's mark of a kernel frame */
}

struct line {
	char *text;
	uint64_t weight;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

/* The path of node, outermost first, into a new string. */
static char *path_text(const struct folded_sink *f, uint32_t node)
{
	uint32_t chain[1024];
	size_t n = 0, len = 0;
	char *text = NULL;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return NULL;
	for (uint32_t k = node; k != BC_STACK_ROOT && n < 1024; k = f->names.nodes[k].parent)
		chain[n++] = k;
	while (n-- > 0) {
		put_frame(mem, bc_stack_node_fn(&f->names, chain[n]));
		if (n)
			fputc(';', mem);
	}
	if (fclose(mem)) {
		free(text);
		return NULL;
	}
	return text;
}

static int folded_end(struct bc_sink *s, const struct bc_session_end *end)
{
	struct folded_sink *f = (struct folded_sink *)s;
	struct line *lines = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	for (size_t i = 0; i < f->threads.n; i++) {
		struct folded_thread *th = bc_pidtab_at(&f->threads, i);
		struct drop_ctx d = {f, end->end_ktime, 0, 0};

		bc_stack_drop_all(&th->stack, dropped_frame, &d); /* open at detach */
		if (d.rc < 0)
			return d.rc;
	}
	for (size_t node = 1; node < f->cap_weights && node < f->names.n_nodes; node++) {
		if (!f->weights[node])
			continue;
		if (BC_GROW(lines, cap, n + 1)) {
			rc = -ENOMEM;
			goto out;
		}
		lines[n].weight = f->weights[node];
		lines[n].text = path_text(f, (uint32_t)node);
		if (!lines[n++].text) {
			rc = -ENOMEM;
			goto out;
		}
	}
	if (!f->counted && !f->opts.quiet)
		fprintf(stderr, "bpfcollect: warning: -f folded: %s\n",
			f->opts.offcpu ? "no off-CPU intervals in the stream (record with "
					 "--offcpu, -k or -a)"
			: f->weight == BC_FOLDED_SAMPLES || f->weight == BC_FOLDED_TIME
				? "no clock samples in the stream (record with -p)"
				: "no function calls in the stream");
	if (n)
		qsort(lines, n, sizeof(*lines), cmp_line);
	/* each line a record of its own: a full disk cuts the file at a whole one */
	for (size_t i = 0; i < n; i++) {
		fprintf(f->out, "%s %" PRIu64 "\n", lines[i].text, lines[i].weight);
		bc_outfile_record(f->base.file);
	}
	if (fflush(f->out) || ferror(f->out))
		rc = bc_io_errno();
out:
	for (size_t i = 0; i < n; i++)
		free(lines[i].text);
	free(lines);
	return rc;
}

static void folded_destroy(struct bc_sink *s)
{
	struct folded_sink *f = (struct folded_sink *)s;

	bc_pidtab_free(&f->threads);
	bc_stack_names_free(&f->names);
	free(f->weights);
	free(f);
}

static const struct bc_sink_ops folded_ops = {
	.name = "folded",
	.begin = folded_begin,
	.event = folded_event,
	.end = folded_end,
	.destroy = folded_destroy,
};

struct bc_sink *bc_folded_sink_new(FILE *out, const struct bc_folded_opts *o, const char *exp)
{
	struct folded_sink *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->base.ops = &folded_ops;
	f->out = out;
	f->opts = *o;
	f->names.exp = exp;
	bc_pidtab_init(&f->threads, sizeof(struct folded_thread), thread_release, NULL);
	return &f->base;
}
