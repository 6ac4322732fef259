// SPDX-License-Identifier: MIT
/*
 * The call-tree engine: a sink building the merged call tree and per-thread
 * statistics, and the callers-callees of a function computed from the tree.
 * Semantics are described in include/bpfcollect/report_tree.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/containers.h"
#include "bpfcollect/report_tree.h"
#include "bpfcollect/shadow_stack.h"

/* Index maps store NO_INDEX for an id whose entry could not be allocated. */
#define NO_INDEX UINT32_MAX
#define ROOT	 0 /* the root node: no function */

struct tfunc {
	uint32_t func_id;
	uint32_t first_node; /* this function's nodes, linked by next_same */
	char *name;
	char *object;
};

struct node {
	struct bc_tree_node pub; /* first: accessors cast back */
	uint32_t func;		 /* index into funcs; NO_INDEX for the root */
	uint32_t parent;
	uint32_t first_child;
	uint32_t next_sibling;
	uint32_t next_same; /* next node of the same function */
};

struct thread {
	struct bc_tree_thread pub;
	struct bc_shadow_stack stack; /* frame tags are node indices */
};

struct bc_calltree {
	struct bc_sink sink; /* first: the sink ops cast back to the tree */

	struct tfunc *funcs;
	size_t nfuncs, funcs_cap;
	struct bc_idmap func_index; /* func_id -> index into funcs */

	struct node *nodes; /* nodes[ROOT] is the root */
	size_t nnodes, nodes_cap;
	struct bc_idmap child_index; /* parent node << 32 | func_id -> node */

	struct thread *threads;
	size_t nthreads, threads_cap;
	struct bc_idmap thread_index; /* pid << 32 | tid -> index into threads */

	uint64_t session_start;
	uint32_t root_pid; /* the founder's launched or first attached process */
	struct bc_calltree_totals totals;
};

static uint64_t key2(uint32_t hi, uint32_t lo)
{
	return (uint64_t)hi << 32 | lo;
}

/* ---------------------------------------------------------------- building */

/* Index of func_id's entry, created on first sight (names copied). -errno. */
static int func_idx(struct bc_calltree *t, uint32_t func_id, const struct bc_func *func,
		    uint32_t *idx)
{
	char *name = NULL, *object = NULL;
	uint32_t *slot;
	int err;

	err = bc_idmap_get_or_add(&t->func_index, func_id, NO_INDEX, &slot);
	if (err)
		return err;
	if (*slot != NO_INDEX) {
		*idx = *slot;
		return 0;
	}
	err = BC_GROW(t->funcs, t->funcs_cap, t->nfuncs + 1);
	if (err)
		return err;
	/* Copies: the function table may be gone before the report is printed. */
	err = bc_func_label_dup(func, func_id, &name, &object);
	if (err)
		return err;
	t->funcs[t->nfuncs] = (struct tfunc){
		.func_id = func_id,
		.first_node = NO_INDEX,
		.name = name,
		.object = object,
	};
	*slot = (uint32_t)t->nfuncs++;
	*idx = *slot;
	return 0;
}

/* The child of node `parent` for function `fidx`, created on first sight. -errno. */
static int child_node(struct bc_calltree *t, const struct thread *th, uint32_t parent,
		      uint32_t fidx, uint32_t *idx)
{
	const struct tfunc *fn = &t->funcs[fidx];
	struct node *n, *p;
	uint32_t *slot;
	int err;

	err = bc_idmap_get_or_add(&t->child_index, key2(parent, fn->func_id), NO_INDEX, &slot);
	if (err)
		return err;
	if (*slot != NO_INDEX) {
		*idx = *slot;
		return 0;
	}
	if (t->nnodes >= NO_INDEX)
		return -E2BIG;
	err = BC_GROW(t->nodes, t->nodes_cap, t->nnodes + 1);
	if (err)
		return err;
	p = &t->nodes[parent];
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	n->pub.func_id = fn->func_id;
	n->pub.name = bc_sym_display(fn->name);
	n->pub.object = fn->object;
	n->pub.depth = p->pub.depth + 1;
	/* The thread's stack is exactly the path to parent. */
	n->pub.recursive = bc_stack_open(&th->stack, fn->func_id) > 0;
	n->func = fidx;
	n->parent = parent;
	n->first_child = NO_INDEX;
	n->next_sibling = p->first_child;
	p->first_child = (uint32_t)t->nnodes;
	n->next_same = fn->first_node;
	t->funcs[fidx].first_node = (uint32_t)t->nnodes;
	*slot = (uint32_t)t->nnodes++;
	*idx = *slot;
	return 0;
}

static struct thread *thread_get(struct bc_calltree *t, uint32_t pid, uint32_t tid)
{
	struct thread *th;
	uint32_t *slot;

	if (bc_idmap_get_or_add(&t->thread_index, key2(pid, tid), NO_INDEX, &slot))
		return NULL;
	if (*slot != NO_INDEX)
		return &t->threads[*slot];
	if (BC_GROW(t->threads, t->threads_cap, t->nthreads + 1))
		return NULL;
	th = &t->threads[t->nthreads];
	memset(th, 0, sizeof(*th));
	th->pub.pid = pid;
	th->pub.tid = tid;
	*slot = (uint32_t)t->nthreads++;
	return th;
}

static int on_func_entry(struct bc_calltree *t, struct thread *th, const struct bc_event *ev)
{
	const struct bc_rec_func_entry *rec = (const void *)ev->rec;
	const struct bc_frame *top = bc_stack_top(&th->stack);
	uint32_t fidx, node;
	int err;

	err = func_idx(t, rec->func_id, ev->func, &fidx);
	if (!err)
		err = child_node(t, th, top ? top->tag : ROOT, fidx, &node);
	if (!err)
		err = bc_stack_push(&th->stack, rec->func_id, node, rec->h.ktime);
	if (err)
		return err;
	t->nodes[node].pub.calls++;
	th->pub.func_calls++;
	t->totals.func_entries++;
	return 0;
}

static void frame_unfinished(void *ctx, const struct bc_frame *f)
{
	struct bc_calltree *t = ctx;

	(void)f;
	t->totals.incomplete++;
}

static void drop_frames(struct bc_calltree *t, struct thread *th)
{
	bc_stack_drop_all(&th->stack, frame_unfinished, t);
}

/*
 * A process's exit ends every call of it still open: its goroutines'
 * (they write no exit), and its threads' whose exit records were lost.
 */
static void drop_process(struct bc_calltree *t, uint32_t pid)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].pub.pid == pid)
			drop_frames(t, &t->threads[i]);
}

/* A frame still open when the recording ended: it was running, not broken. */
static void frame_open_at_end(void *ctx, const struct bc_frame *f)
{
	struct bc_calltree *t = ctx;

	(void)f;
	t->totals.open_at_detach++;
}

static void on_func_return(struct bc_calltree *t, struct thread *th, const struct bc_event *ev)
{
	const struct bc_rec_func_return *rec = (const void *)ev->rec;
	struct bc_frame_return fr;
	struct bc_tree_node *n;

	if (bc_stack_return(&th->stack, rec->func_id, rec->entry_ktime, rec->h.ktime,
			    frame_unfinished, t, &fr) < 0) {
		t->totals.orphan_returns++;
		return;
	}
	n = &t->nodes[fr.frame.tag].pub;
	n->returns++;
	n->incl_ns += fr.incl_ns;
	n->excl_ns += fr.excl_ns;
	if (!th->stack.depth) {
		th->pub.traced_ns += fr.incl_ns;
		th->pub.traced_frames++;
	}
}

static void set_comm(struct thread *th, const char comm[BC_COMM_LEN])
{
	/* The record's comm may fill the field without a NUL. */
	memcpy(th->pub.comm, comm, BC_COMM_LEN - 1);
	th->pub.comm[BC_COMM_LEN - 1] = '\0';
}

/* A fork/clone names a task before it writes anything. */
static int on_fork(struct bc_calltree *t, const struct bc_event *ev)
{
	const struct bc_rec_fork *rec = (const void *)ev->rec;
	struct thread *child = thread_get(t, rec->child_pid, rec->child_tid);

	if (!child)
		return -ENOMEM;
	if (!child->pub.comm[0])
		set_comm(child, rec->comm);
	return 0;
}

/* Frames of an image that is gone can never return. */
static void on_exec(struct bc_calltree *t, struct thread *th, const struct bc_event *ev)
{
	const struct bc_rec_exec *rec = (const void *)ev->rec;
	const uint32_t *slot;

	set_comm(th, rec->comm);
	drop_frames(t, th);
	/* A non-leader thread that execs takes over the leader's tid. */
	slot = bc_idmap_find(&t->thread_index, key2(th->pub.pid, rec->old_tid));
	if (slot && *slot != NO_INDEX)
		drop_frames(t, &t->threads[*slot]);
}

static int tree_begin(struct bc_sink *s, const struct bc_session *sess)
{
	struct bc_calltree *t = (struct bc_calltree *)s;

	t->session_start = sess->start_ktime;
	/* a tree's subexperiments begin too: the founder's root is the one */
	if (!t->root_pid)
		t->root_pid = sess->root_pid;
	return 0;
}

static int tree_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct bc_calltree *t = (struct bc_calltree *)s;
	const struct bc_rec_head *h = ev->rec;
	struct thread *th;

	/* Loss records come from the agent, not from a traced task. */
	if (h->kind == BC_REC_LOST) {
		const struct bc_rec_lost *rec = (const void *)h;

		if (rec->loss_class == BC_LOSS_FUNC)
			t->totals.lost_func += rec->count;
		return 0;
	}
	th = thread_get(t, h->pid, h->tid);
	if (!th)
		return -ENOMEM;
	th->pub.events++;
	if (!th->pub.first_ktime)
		th->pub.first_ktime = h->ktime;
	th->pub.last_ktime = h->ktime;

	switch (h->kind) {
	case BC_REC_FUNC_ENTRY:
		return on_func_entry(t, th, ev);
	case BC_REC_FUNC_RETURN:
		on_func_return(t, th, ev);
		return 0;
	case BC_REC_SYS_ENTER:
		th->pub.syscalls++;
		return 0;
	case BC_REC_PROC_FORK:
	case BC_REC_THREAD_START:
		return on_fork(t, ev);
	case BC_REC_PROC_EXEC:
		on_exec(t, th, ev);
		return 0;
	case BC_REC_THREAD_EXIT:
	case BC_REC_PROC_EXIT:
		set_comm(th, ((const struct bc_rec_exit *)h)->comm);
		/* The tid may be reused: its next owner starts a fresh stack. */
		drop_frames(t, th);
		if (h->kind == BC_REC_PROC_EXIT)
			drop_process(t, h->pid);
		return 0;
	default:
		return 0;
	}
}

static int tree_end(struct bc_sink *s, const struct bc_session_end *end)
{
	struct bc_calltree *t = (struct bc_calltree *)s;

	/* its exit status known, the root ended: its calls never returned, whatever was lost */
	if (end && end->exit_status >= 0 && t->root_pid)
		drop_process(t, t->root_pid);
	for (size_t i = 0; i < t->nthreads; i++)
		bc_stack_drop_all(&t->threads[i].stack, frame_open_at_end, t);
	/* LOST records and the session end count the same losses: the larger. */
	if (end && end->lost[BC_LOSS_FUNC] > t->totals.lost_func)
		t->totals.lost_func = end->lost[BC_LOSS_FUNC];
	return 0;
}

static const struct bc_sink_ops tree_sink_ops = {
	.name = "calltree", .begin = tree_begin, .event = tree_event, .end = tree_end,
	/* No destroy: the tree owns the sink (see report_tree.h). */
};

/* ---------------------------------------------------------------- API */

struct bc_calltree *bc_calltree_new(void)
{
	struct bc_calltree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->sink.ops = &tree_sink_ops;
	if (BC_GROW(t->nodes, t->nodes_cap, 1)) {
		free(t);
		return NULL;
	}
	memset(&t->nodes[ROOT], 0, sizeof(t->nodes[ROOT]));
	t->nodes[ROOT].pub.name = "";
	t->nodes[ROOT].pub.object = "";
	t->nodes[ROOT].func = NO_INDEX;
	t->nodes[ROOT].first_child = NO_INDEX;
	t->nodes[ROOT].next_sibling = NO_INDEX;
	t->nodes[ROOT].next_same = NO_INDEX;
	t->nnodes = 1;
	return t;
}

void bc_calltree_free(struct bc_calltree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfuncs; i++) {
		free(t->funcs[i].name);
		free(t->funcs[i].object);
	}
	free(t->funcs);
	bc_idmap_free(&t->func_index);
	free(t->nodes);
	bc_idmap_free(&t->child_index);
	for (size_t i = 0; i < t->nthreads; i++)
		bc_stack_free(&t->threads[i].stack);
	free(t->threads);
	bc_idmap_free(&t->thread_index);
	free(t);
}

struct bc_sink *bc_calltree_sink(struct bc_calltree *t)
{
	return &t->sink;
}

const struct bc_calltree_totals *bc_calltree_totals(const struct bc_calltree *t)
{
	return &t->totals;
}

const struct bc_tree_node *bc_calltree_node(const struct bc_calltree *t, const uint32_t *path,
					    size_t n)
{
	uint32_t node = ROOT;

	for (size_t i = 0; i < n; i++) {
		const uint32_t *slot = bc_idmap_find(&t->child_index, key2(node, path[i]));

		if (!slot || *slot >= t->nnodes)
			return NULL;
		node = *slot;
	}
	return n ? &t->nodes[node].pub : NULL;
}

size_t bc_calltree_nnodes(const struct bc_calltree *t)
{
	return t->nnodes - 1;
}

const struct bc_tree_node *bc_calltree_root(const struct bc_calltree *t)
{
	return &t->nodes[ROOT].pub;
}

int bc_calltree_children(const struct bc_calltree *t, const struct bc_tree_node *node,
			 const struct bc_tree_node ***v, size_t *n)
{
	const struct node *p = (const struct node *)node;
	size_t count = 0;

	*v = NULL;
	*n = 0;
	for (uint32_t c = p->first_child; c != NO_INDEX; c = t->nodes[c].next_sibling)
		count++;
	if (!count)
		return 0;
	*v = malloc(count * sizeof(**v));
	if (!*v)
		return -ENOMEM;
	for (uint32_t c = p->first_child; c != NO_INDEX; c = t->nodes[c].next_sibling)
		(*v)[(*n)++] = &t->nodes[c].pub;
	return 0;
}

size_t bc_calltree_nfuncs(const struct bc_calltree *t)
{
	return t->nfuncs;
}

const char *bc_calltree_func_at(const struct bc_calltree *t, size_t i, uint32_t *func_id)
{
	if (i >= t->nfuncs)
		return NULL;
	*func_id = t->funcs[i].func_id;
	return t->funcs[i].name;
}

size_t bc_calltree_nthreads(const struct bc_calltree *t)
{
	return t->nthreads;
}

const struct bc_tree_thread *bc_calltree_thread_at(const struct bc_calltree *t, size_t i)
{
	return i < t->nthreads ? &t->threads[i].pub : NULL;
}

const struct bc_tree_thread *bc_calltree_thread(const struct bc_calltree *t, uint32_t pid,
						uint32_t tid)
{
	const uint32_t *slot = bc_idmap_find(&t->thread_index, key2(pid, tid));

	return slot && *slot < t->nthreads ? &t->threads[*slot].pub : NULL;
}

uint64_t bc_calltree_start_ktime(const struct bc_calltree *t)
{
	uint64_t first = 0;

	if (t->session_start)
		return t->session_start;
	for (size_t i = 0; i < t->nthreads; i++) {
		uint64_t k = t->threads[i].pub.first_ktime;

		if (k && (!first || k < first))
			first = k;
	}
	return first;
}

/* ---------------------------------------------------------------- callers-callees */

/* Edges being summed: the other end's function index -> index into v. */
struct edge_set {
	struct bc_cc_edge *v;
	size_t n, cap;
	struct bc_idmap index;
};

#define ROOT_KEY (UINT64_C(1) << 32) /* beyond any function index */

/* Adds the frames of node n (the callee end) to the edge towards `other`. -errno. */
static int add_edge(const struct bc_calltree *t, struct edge_set *s, uint32_t other,
		    const struct node *n)
{
	struct bc_cc_edge *e;
	uint32_t *slot;
	int err;

	err = bc_idmap_get_or_add(&s->index, other == NO_INDEX ? ROOT_KEY : other, NO_INDEX, &slot);
	if (err)
		return err;
	if (*slot == NO_INDEX) {
		err = BC_GROW(s->v, s->cap, s->n + 1);
		if (err)
			return err;
		e = &s->v[s->n];
		memset(e, 0, sizeof(*e));
		if (other == NO_INDEX) {
			e->root = true;
			e->name = "<root>";
		} else {
			e->func_id = t->funcs[other].func_id;
			e->name = bc_sym_display(t->funcs[other].name);
		}
		*slot = (uint32_t)s->n++;
	}
	e = &s->v[*slot];
	e->calls += n->pub.calls;
	if (n->pub.recursive) {
		e->recursive += n->pub.calls;
	} else {
		e->timed += n->pub.returns;
		e->time_ns += n->pub.incl_ns;
	}
	return 0;
}

static int cmp_edge(const void *pa, const void *pb)
{
	const struct bc_cc_edge *a = pa, *b = pb;

	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? 1 : -1;
	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	/* <root> first among equals: it is not a function. */
	if (a->root != b->root)
		return a->root ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Sorted edges out of s, into *v and *n; s's index is freed. */
static void finish_edges(struct edge_set *s, struct bc_cc_edge **v, size_t *n)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_edge);
	*v = s->v;
	*n = s->n;
	bc_idmap_free(&s->index);
}

int bc_calltree_callers_callees(const struct bc_calltree *t, uint32_t func_id,
				struct bc_callers_callees *cc)
{
	struct edge_set callers = {0}, callees = {0};
	const uint32_t *fslot = bc_idmap_find(&t->func_index, func_id);
	const struct tfunc *fn;
	int err = 0;

	memset(cc, 0, sizeof(*cc));
	if (!fslot || *fslot >= t->nfuncs)
		return -ENOENT;
	fn = &t->funcs[*fslot];
	cc->func_id = func_id;
	cc->name = bc_sym_display(fn->name);
	cc->object = fn->object;
	for (uint32_t i = fn->first_node; i != NO_INDEX; i = t->nodes[i].next_same) {
		const struct node *n = &t->nodes[i];

		cc->calls += n->pub.calls;
		cc->returns += n->pub.returns;
		cc->excl_ns += n->pub.excl_ns;
		if (!n->pub.recursive) {
			cc->incl_ns += n->pub.incl_ns;
			cc->incl_frames += n->pub.returns;
		}
		err = add_edge(t, &callers, t->nodes[n->parent].func, n);
		if (err)
			goto out;
		for (uint32_t c = n->first_child; c != NO_INDEX; c = t->nodes[c].next_sibling) {
			err = add_edge(t, &callees, t->nodes[c].func, &t->nodes[c]);
			if (err)
				goto out;
		}
	}
out:
	finish_edges(&callers, &cc->callers, &cc->ncallers);
	finish_edges(&callees, &cc->callees, &cc->ncallees);
	if (err)
		bc_callers_callees_free(cc);
	return err;
}

void bc_callers_callees_free(struct bc_callers_callees *cc)
{
	free(cc->callers);
	free(cc->callees);
	memset(cc, 0, sizeof(*cc));
}
