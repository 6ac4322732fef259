// SPDX-License-Identifier: MIT
/*
 * The call-tree engine and its views (calltree, callers-callees, threads):
 * hand-built record sequences go through bc_decode() into both the report
 * sink and the call-tree sink, so every test also checks that the two agree
 * on calls, inclusive and exclusive times; nodes, edges and printed text are
 * checked exactly.
 */
#include "report_fixture.h"

#include "bpfcollect/report_tree.h"

#define START 1000 /* session start ktime */

/* Feeds every event to the report and to the call tree. */
struct tee {
	struct bc_sink base;
	struct bc_sink *a, *b;
};

static int tee_begin(struct bc_sink *s, const struct bc_session *x)
{
	struct tee *t = (struct tee *)s;
	int err = bc_sink_begin(t->a, x);

	return err ? err : bc_sink_begin(t->b, x);
}

static int tee_event(struct bc_sink *s, const struct bc_event *e)
{
	struct tee *t = (struct tee *)s;
	int err = bc_sink_event(t->a, e);

	return err ? err : bc_sink_event(t->b, e);
}

static int tee_end(struct bc_sink *s, const struct bc_session_end *x)
{
	struct tee *t = (struct tee *)s;
	int err = bc_sink_end(t->a, x);

	return err ? err : bc_sink_end(t->b, x);
}

static const struct bc_sink_ops tee_ops = {
	.name = "tee", .begin = tee_begin, .event = tee_event, .end = tee_end};

struct tfx {
	struct fixture *fx;
	struct bc_calltree *t;
	struct tee tee;
	struct bc_callers_callees cc;
	char *text;
};

static int tsetup(void **state)
{
	struct tfx *x = calloc(1, sizeof(*x));
	struct bc_session sess = {.start_ktime = START};
	void *st;

	if (!x || setup(&st))
		return -1;
	x->fx = st;
	x->t = bc_calltree_new();
	if (!x->t)
		return -1;
	x->tee = (struct tee){.base.ops = &tee_ops, .a = x->fx->sink, .b = bc_calltree_sink(x->t)};
	x->fx->sink = &x->tee.base;
	if (bc_sink_begin(x->fx->sink, &sess))
		return -1;
	*state = x;
	return 0;
}

static int tteardown(void **state)
{
	struct tfx *x = *state;
	void *st = x->fx;

	x->fx->sink = bc_report_sink(x->fx->r);
	teardown(&st);
	bc_calltree_free(x->t);
	bc_callers_callees_free(&x->cc);
	free(x->text);
	free(x);
	return 0;
}

/* Records of thread `tid` of process PID (report_fixture.h). */
#define E(tid, f, k) entry(x->fx, tid, f, k)
#define R(tid, f, k) ret(x->fx, tid, f, k)

static const struct bc_tree_node *node(struct tfx *x, size_t n, ...)
{
	uint32_t path[16];
	va_list ap;

	assert_true(n <= 16);
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		path[i] = va_arg(ap, uint32_t);
	va_end(ap);
	return bc_calltree_node(x->t, path, n);
}

static void assert_node(const struct bc_tree_node *n, uint64_t calls, uint64_t returns,
			uint64_t incl, uint64_t excl, bool recursive)
{
	assert_non_null(n);
	assert_int_equal(n->calls, calls);
	assert_int_equal(n->returns, returns);
	assert_int_equal(n->incl_ns, incl);
	assert_int_equal(n->excl_ns, excl);
	assert_int_equal(n->recursive, recursive);
}

static const struct bc_callers_callees *cc_of(struct tfx *x, uint32_t func_id)
{
	bc_callers_callees_free(&x->cc);
	assert_int_equal(bc_calltree_callers_callees(x->t, func_id, &x->cc), 0);
	return &x->cc;
}

static void assert_edge(const struct bc_cc_edge *e, const char *name, uint64_t calls,
			uint64_t recursive, uint64_t timed, uint64_t time_ns)
{
	assert_string_equal(e->name, name);
	assert_int_equal(e->root, strcmp(name, "<root>") == 0);
	assert_int_equal(e->calls, calls);
	assert_int_equal(e->recursive, recursive);
	assert_int_equal(e->timed, timed);
	assert_int_equal(e->time_ns, time_ns);
}

/*
 * For every function: the center line equals the functions view, and the
 * callers' times sum to the inclusive time, their calls to the calls.
 */
static void assert_agrees_with_report(struct tfx *x)
{
	for (size_t i = 0; i < bc_report_nfuncs(x->fx->r); i++) {
		const struct bc_func_stats *f = bc_report_func_at(x->fx->r, i);
		const struct bc_callers_callees *cc = cc_of(x, f->func_id);
		uint64_t calls = 0, time = 0;

		assert_string_equal(cc->name, f->name);
		assert_int_equal(cc->calls, f->calls);
		assert_int_equal(cc->returns, f->returns);
		assert_int_equal(cc->incl_ns, f->incl_ns);
		assert_int_equal(cc->incl_frames, f->incl_frames);
		assert_int_equal(cc->excl_ns, f->excl_ns);
		for (size_t j = 0; j < cc->ncallers; j++) {
			calls += cc->callers[j].calls;
			time += cc->callers[j].time_ns;
		}
		assert_int_equal(calls, cc->calls);
		assert_int_equal(time, cc->incl_ns);
	}
	assert_int_equal(bc_calltree_totals(x->t)->incomplete,
			 bc_report_totals(x->fx->r)->incomplete);
	assert_int_equal(bc_calltree_totals(x->t)->orphan_returns,
			 bc_report_totals(x->fx->r)->orphan_returns);
	assert_int_equal(bc_calltree_totals(x->t)->func_entries,
			 bc_report_totals(x->fx->r)->func_entries);
}

enum view { CALLTREE, CALLERS_CALLEES, THREADS };

/* Prints one view into x->text, which teardown frees even if a check fails. */
static const char *print_view(struct tfx *x, enum view v, const char *glob, size_t per_level)
{
	size_t len = 0;
	FILE *out;

	free(x->text);
	x->text = NULL;
	out = open_memstream(&x->text, &len);
	assert_non_null(out);
	if (v == CALLTREE)
		assert_int_equal(bc_calltree_print(x->t, out, per_level), 0);
	else if (v == CALLERS_CALLEES)
		assert_int_equal(bc_calltree_print_callers_callees(x->t, out, glob), 0);
	else
		assert_int_equal(bc_calltree_print_threads(x->t, out), 0);
	assert_int_equal(fclose(out), 0);
	return x->text;
}

/* ---------------------------------------------------------------- tree and edges */

/* main 1000..2000 { a 1100..1700 { b 1200..1500 }  b 1800..1900 } */
static void feed_nested(struct tfx *x)
{
	E(100, F_MAIN, 1000);
	E(100, F_A, 1100);
	E(100, F_B, 1200);
	R(100, F_B, 1500);
	R(100, F_A, 1700);
	E(100, F_B, 1800);
	R(100, F_B, 1900);
	R(100, F_MAIN, 2000);
	end(x->fx);
}

static void test_nested(void **state)
{
	struct tfx *x = *state;
	const struct bc_callers_callees *cc;

	feed_nested(x);
	assert_int_equal(bc_calltree_nnodes(x->t), 4);
	assert_node(node(x, 1, F_MAIN), 1, 1, 1000, 300, false);
	assert_node(node(x, 2, F_MAIN, F_A), 1, 1, 600, 300, false);
	assert_node(node(x, 3, F_MAIN, F_A, F_B), 1, 1, 300, 300, false);
	assert_node(node(x, 2, F_MAIN, F_B), 1, 1, 100, 100, false);
	assert_int_equal(node(x, 3, F_MAIN, F_A, F_B)->depth, 3);
	assert_null(node(x, 1, F_A));
	assert_null(node(x, 3, F_MAIN, F_B, F_A));
	assert_null(node(x, 0));

	cc = cc_of(x, F_B);
	assert_int_equal(cc->calls, 2);
	assert_int_equal(cc->incl_ns, 400);
	assert_int_equal(cc->excl_ns, 400);
	assert_int_equal(cc->ncallers, 2);
	assert_edge(&cc->callers[0], "a", 1, 0, 1, 300);
	assert_edge(&cc->callers[1], "main", 1, 0, 1, 100);
	assert_int_equal(cc->ncallees, 0);

	cc = cc_of(x, F_MAIN);
	assert_int_equal(cc->ncallers, 1);
	assert_edge(&cc->callers[0], "<root>", 1, 0, 1, 1000);
	assert_int_equal(cc->excl_ns, 300);
	assert_int_equal(cc->ncallees, 2);
	assert_edge(&cc->callees[0], "a", 1, 0, 1, 600);
	assert_edge(&cc->callees[1], "b", 1, 0, 1, 100);

	bc_callers_callees_free(&x->cc);
	assert_int_equal(bc_calltree_callers_callees(x->t, F_FIB, &x->cc), -ENOENT);
	assert_agrees_with_report(x);
}

static void test_nested_printed(void **state)
{
	struct tfx *x = *state;

	feed_nested(x);
	assert_string_equal(print_view(x, CALLTREE, NULL, 0),
			    "Call tree, all threads merged, by inclusive time:\n"
			    "   Total  Calls  Name\n"
			    "--------  -----  ----\n"
			    "1.000 us      1  main\n"
			    "  600 ns      1  +-a\n"
			    "  300 ns      1  | +-b\n"
			    "  100 ns      1  +-b\n");
	assert_string_equal(print_view(x, CALLERS_CALLEES, "b", 0),
			    "Callers and callees of b: callers, then *the function (exclusive"
			    " time), then callees\n"
			    "\n"
			    "b (libb.so.1): calls 2, inclusive 400 ns, exclusive 400 ns\n"
			    "Attr. time  Calls  Name\n"
			    "----------  -----  ----\n"
			    "    300 ns      1   a\n"
			    "    100 ns      1   main\n"
			    "    400 ns      2  *b\n");
	/* A glob: both blocks, by inclusive time. */
	assert_string_equal(print_view(x, CALLERS_CALLEES, "[ma]*", 0),
			    "Callers and callees of [ma]*: callers, then *the function (exclusive"
			    " time), then callees\n"
			    "\n"
			    "main (demo): calls 1, inclusive 1.000 us, exclusive 300 ns\n"
			    "Attr. time  Calls  Name\n"
			    "----------  -----  ----\n"
			    "  1.000 us      1   <root>\n"
			    "    300 ns      1  *main\n"
			    "    600 ns      1   a\n"
			    "    100 ns      1   b\n"
			    "\n"
			    "a (demo): calls 1, inclusive 600 ns, exclusive 300 ns\n"
			    "Attr. time  Calls  Name\n"
			    "----------  -----  ----\n"
			    "    600 ns      1   main\n"
			    "    300 ns      1  *a\n"
			    "    300 ns      1   b\n");
	assert_string_equal(print_view(x, CALLERS_CALLEES, "nothing*", 0),
			    "No calls of nothing* in this experiment.\n");
}

/* Two threads running the same paths: one tree, calls and times summed. */
static void test_threads_merged(void **state)
{
	struct tfx *x = *state;

	/* tid 100: main 1000..2000 { a 1100..1300 }
	 * tid 101: main 1050..1550 { a 1060..1460 { b 1070..1170 } } */
	E(100, F_MAIN, 1000);
	E(101, F_MAIN, 1050);
	E(101, F_A, 1060);
	E(101, F_B, 1070);
	E(100, F_A, 1100);
	R(101, F_B, 1170);
	R(100, F_A, 1300);
	R(101, F_A, 1460);
	R(101, F_MAIN, 1550);
	R(100, F_MAIN, 2000);
	end(x->fx);

	assert_int_equal(bc_calltree_nnodes(x->t), 3);
	assert_node(node(x, 1, F_MAIN), 2, 2, 1500, 900, false);
	assert_node(node(x, 2, F_MAIN, F_A), 2, 2, 600, 500, false);
	assert_node(node(x, 3, F_MAIN, F_A, F_B), 1, 1, 100, 100, false);
	assert_edge(&cc_of(x, F_A)->callers[0], "main", 2, 0, 2, 600);
	assert_agrees_with_report(x);

	assert_int_equal(bc_calltree_nthreads(x->t), 2);
	assert_int_equal(bc_calltree_thread(x->t, PID, 100)->traced_ns, 1000);
	assert_int_equal(bc_calltree_thread(x->t, PID, 101)->traced_ns, 500);
	assert_int_equal(bc_calltree_thread(x->t, PID, 101)->func_calls, 3);
	assert_int_equal(bc_calltree_thread(x->t, PID, 101)->events, 6);
	assert_null(bc_calltree_thread(x->t, PID + 1, 100));

	assert_string_equal(print_view(x, CALLTREE, NULL, 0),
			    "Call tree, all threads merged, by inclusive time:\n"
			    "   Total  Calls  Name\n"
			    "--------  -----  ----\n"
			    "1.500 us      2  main\n"
			    "  600 ns      2  +-a\n"
			    "  100 ns      1    +-b\n");
}

/* f 100..900 { f 200..800 { f 300..700 { a 400..500 } } } under main 0..1000 */
static void test_recursion(void **state)
{
	struct tfx *x = *state;
	const struct bc_callers_callees *cc;

	E(100, F_MAIN, START + 0);
	E(100, F_FIB, START + 100);
	E(100, F_FIB, START + 200);
	E(100, F_FIB, START + 300);
	E(100, F_A, START + 400);
	R(100, F_A, START + 500);
	R(100, F_FIB, START + 700);
	R(100, F_FIB, START + 800);
	R(100, F_FIB, START + 900);
	R(100, F_MAIN, START + 1000);
	end(x->fx);

	assert_node(node(x, 2, F_MAIN, F_FIB), 1, 1, 800, 200, false);
	assert_node(node(x, 3, F_MAIN, F_FIB, F_FIB), 1, 1, 600, 200, true);
	assert_node(node(x, 4, F_MAIN, F_FIB, F_FIB, F_FIB), 1, 1, 400, 300, true);
	assert_node(node(x, 5, F_MAIN, F_FIB, F_FIB, F_FIB, F_A), 1, 1, 100, 100, false);

	/* Recursion counted once: callers sum to incl, excl + callees too. */
	cc = cc_of(x, F_FIB);
	assert_int_equal(cc->calls, 3);
	assert_int_equal(cc->incl_ns, 800);
	assert_int_equal(cc->excl_ns, 700);
	assert_int_equal(cc->ncallers, 2);
	assert_edge(&cc->callers[0], "main", 1, 0, 1, 800);
	assert_edge(&cc->callers[1], "fib", 2, 2, 0, 0);
	assert_int_equal(cc->ncallees, 2);
	assert_edge(&cc->callees[0], "a", 1, 0, 1, 100);
	assert_edge(&cc->callees[1], "fib", 2, 2, 0, 0);
	assert_agrees_with_report(x);

	assert_string_equal(print_view(x, CALLERS_CALLEES, "fib", 0),
			    "Callers and callees of fib: callers, then *the function (exclusive"
			    " time), then callees\n"
			    "\n"
			    "fib (demo): calls 3, inclusive 800 ns, exclusive 700 ns\n"
			    "Attr. time  Calls  Name\n"
			    "----------  -----  ----\n"
			    "    800 ns      1   main\n"
			    "         -      2   fib (recursive)\n"
			    "    700 ns      3  *fib\n"
			    "    100 ns      1   a\n"
			    "         -      2   fib (recursive)\n"
			    "note: recursive calls (of a function already active on the thread)"
			    " add calls, not time: their time is in the outermost call's\n");
	assert_string_equal(print_view(x, CALLTREE, NULL, 0),
			    "Call tree, all threads merged, by inclusive time:\n"
			    "   Total  Calls  Name\n"
			    "--------  -----  ----\n"
			    "1.000 us      1  main\n"
			    "  800 ns      1  +-fib\n"
			    "  600 ns      1    +-fib (recursive)\n"
			    "  400 ns      1      +-fib (recursive)\n"
			    "  100 ns      1        +-a\n");
}

/* f -> a -> f: the inner f is recursive though its caller is a. */
static void test_indirect_recursion(void **state)
{
	struct tfx *x = *state;
	const struct bc_callers_callees *cc;

	E(100, F_FIB, 0 + START);
	E(100, F_A, 100 + START);
	E(100, F_FIB, 200 + START);
	R(100, F_FIB, 300 + START);
	R(100, F_A, 400 + START);
	R(100, F_FIB, 1000 + START);
	end(x->fx);

	assert_node(node(x, 3, F_FIB, F_A, F_FIB), 1, 1, 100, 100, true);
	cc = cc_of(x, F_FIB);
	assert_int_equal(cc->ncallers, 2);
	assert_edge(&cc->callers[0], "<root>", 1, 0, 1, 1000);
	assert_edge(&cc->callers[1], "a", 1, 1, 0, 0);
	assert_int_equal(cc->ncallees, 1);
	assert_edge(&cc->callees[0], "a", 1, 0, 1, 300);
	assert_agrees_with_report(x);
}

/* ---------------------------------------------------------------- lost returns */

static void test_missing_return(void **state)
{
	struct tfx *x = *state;
	const struct bc_callers_callees *cc;

	/* main 0..1000 { a 100.. (return lost) { b 200..300 } }, then an orphan return of b */
	E(100, F_MAIN, START + 0);
	E(100, F_A, START + 100);
	E(100, F_B, START + 200);
	R(100, F_B, START + 300);
	R(100, F_MAIN, START + 1000);
	R(100, F_B, START + 1100);
	end(x->fx);

	assert_node(node(x, 1, F_MAIN), 1, 1, 1000, 1000, false);
	assert_node(node(x, 2, F_MAIN, F_A), 1, 0, 0, 0, false);
	assert_node(node(x, 3, F_MAIN, F_A, F_B), 1, 1, 100, 100, false);
	assert_int_equal(bc_calltree_totals(x->t)->incomplete, 1);
	assert_int_equal(bc_calltree_totals(x->t)->orphan_returns, 1);
	cc = cc_of(x, F_A);
	assert_edge(&cc->callers[0], "main", 1, 0, 0, 0);
	assert_edge(&cc->callees[0], "b", 1, 0, 1, 100);
	assert_int_equal(cc->returns, 0);
	assert_agrees_with_report(x);

	assert_string_equal(print_view(x, CALLTREE, NULL, 0),
			    "Call tree, all threads merged, by inclusive time:\n"
			    "   Total  Calls  Name\n"
			    "--------  -----  ----\n"
			    "1.000 us      1  main\n"
			    "       -      1  +-a\n"
			    "  100 ns      1    +-b\n"
			    "note: 1 calls never returned (thread exit, exec or lost return); they"
			    " count as calls, not time\n"
			    "note: 1 returns without a matching entry were ignored\n");
	assert_string_equal(print_view(x, CALLERS_CALLEES, "a", 0),
			    "Callers and callees of a: callers, then *the function (exclusive"
			    " time), then callees\n"
			    "\n"
			    "a (demo): calls 1, inclusive -, exclusive -\n"
			    "Attr. time  Calls  Name\n"
			    "----------  -----  ----\n"
			    "         -      1   main\n"
			    "         -      1  *a\n"
			    "    100 ns      1   b\n"
			    "note: 1 calls never returned (thread exit, exec or lost return); they"
			    " count as calls, not time\n"
			    "note: 1 returns without a matching entry were ignored\n");
}

/* The inner frame of a recursion lost its return: the outer one's closes by entry time. */
static void test_missing_inner_return(void **state)
{
	struct tfx *x = *state;

	E(100, F_FIB, 100);
	E(100, F_FIB, 200);
	ret_at(x->fx, 100, F_FIB, 900, 100);
	end(x->fx);

	assert_node(node(x, 1, F_FIB), 1, 1, 800, 800, false);
	assert_node(node(x, 2, F_FIB, F_FIB), 1, 0, 0, 0, true);
	assert_int_equal(bc_calltree_totals(x->t)->incomplete, 1);
	assert_agrees_with_report(x);
}

/* ---------------------------------------------------------------- limits */

static void test_per_level_limit(void **state)
{
	struct tfx *x = *state;

	/* main { a 300 ns, b 200 ns x2, fib 100 ns, a 100 ns again } */
	E(100, F_MAIN, 0);
	E(100, F_A, 100);
	R(100, F_A, 400);
	E(100, F_B, 500);
	R(100, F_B, 600);
	E(100, F_B, 700);
	R(100, F_B, 800);
	E(100, F_FIB, 900);
	R(100, F_FIB, 950);
	E(100, F_A, 1000);
	R(100, F_A, 1100);
	E(100, F_LONG, 1200);
	R(100, F_MAIN, 2000);
	end(x->fx);

	assert_string_equal(print_view(x, CALLTREE, NULL, 0),
			    "Call tree, all threads merged, by inclusive time:\n"
			    "   Total  Calls  Name\n"
			    "--------  -----  ----\n"
			    "2.000 us      1  main\n"
			    "  400 ns      2  +-a\n"
			    "  200 ns      2  +-b\n"
			    "   50 ns      1  +-fib\n"
			    "       -      1  +-" LONG_NAME "\n"
			    "note: 1 calls never returned (thread exit, exec or lost return); they"
			    " count as calls, not time\n");
	assert_string_equal(print_view(x, CALLTREE, NULL, 2),
			    "Call tree, all threads merged, by inclusive time, at most 2 children"
			    " per node:\n"
			    "   Total  Calls  Name\n"
			    "--------  -----  ----\n"
			    "2.000 us      1  main\n"
			    "  400 ns      2  +-a\n"
			    "  200 ns      2  +-b\n"
			    "   50 ns      2  +-(2 more)\n"
			    "note: 1 calls never returned (thread exit, exec or lost return); they"
			    " count as calls, not time\n");
	/* Hiding one node would print as many lines: it is shown. */
	assert_string_equal(print_view(x, CALLTREE, NULL, 3),
			    "Call tree, all threads merged, by inclusive time, at most 3 children"
			    " per node:\n"
			    "   Total  Calls  Name\n"
			    "--------  -----  ----\n"
			    "2.000 us      1  main\n"
			    "  400 ns      2  +-a\n"
			    "  200 ns      2  +-b\n"
			    "   50 ns      1  +-fib\n"
			    "       -      1  +-" LONG_NAME "\n"
			    "note: 1 calls never returned (thread exit, exec or lost return); they"
			    " count as calls, not time\n");
}

/* main { fib { fib { ... depth-1 fibs } } }: fib k enters at 10 k ns, returns at 100000 - 10 k. */
static void feed_chain(struct tfx *x, uint32_t depth)
{
	E(100, F_MAIN, 0);
	for (uint32_t k = 1; k < depth; k++)
		E(100, F_FIB, 10 * k);
	for (uint32_t k = depth - 1; k >= 1; k--)
		R(100, F_FIB, 100000 - 10 * k);
	R(100, F_MAIN, 200000);
	end(x->fx);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * Levels down to BC_CALLTREE_DEPTH_SHOWN are printed; below, one line says
 * how many were folded, with the time and calls of the level under it.
 * Each line is indented by its depth: 20,000 levels of recursion printed
 * 400 MB.
 */
static void test_depth_folded(void **state)
{
	struct tfx *x = *state;
	const char *text;
	char want[256];
	size_t fibs = 0;

	feed_chain(x, BC_CALLTREE_DEPTH_SHOWN + 9);
	text = print_view(x, CALLTREE, NULL, 0);
	/* the title, the heads and the rule; 32 levels; the folded line */
	assert_int_equal(count_lines(text), 3 + BC_CALLTREE_DEPTH_SHOWN + 1);
	/*
	 * fib 31 is the 32nd level (100000 - 620 ns), indented by 2 per level
	 * past the 2nd; under it one line for fib 32 to fib 40: 9 levels, the
	 * time and calls of fib 32 (100000 - 640 ns).
	 */
	snprintf(want, sizeof(want), "\n 99.380 us      1  %60s+-fib (recursive)\n", "");
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof(want), "\n 99.360 us      1  %62s+-(9 deeper levels folded)\n", "");
	assert_non_null(strstr(text, want));
	for (const char *p = text; (p = strstr(p, "fib")); p++)
		fibs++;
	assert_int_equal(fibs, BC_CALLTREE_DEPTH_SHOWN - 1);
}

static void test_depth_bounded(void **state)
{
	struct tfx *x = *state;
	const char *text;

	feed_chain(x, 5000);
	text = print_view(x, CALLTREE, NULL, 0);
	assert_true(strlen(text) < 16384);
	assert_non_null(strstr(text, "+-(4968 deeper levels folded)\n"));
}

static void test_empty(void **state)
{
	struct tfx *x = *state;

	end(x->fx);
	assert_string_equal(print_view(x, CALLTREE, NULL, 0), "Call tree: no calls recorded\n");
	assert_string_equal(print_view(x, THREADS, NULL, 0), "Threads: none recorded\n");
	assert_string_equal(print_view(x, CALLERS_CALLEES, "*", 0),
			    "No calls of * in this experiment.\n");
}

/* ---------------------------------------------------------------- threads */

static void feed_task(struct tfx *x, void *rec)
{
	feed(x->fx, rec);
}

static void test_threads(void **state)
{
	struct tfx *x = *state;
	struct bc_rec_fork fork = {
		.h = {.size = sizeof(fork),
		      .kind = BC_REC_THREAD_START,
		      .pid = PID,
		      .tid = 100,
		      .ktime = START + 50},
		.child_pid = PID,
		.child_tid = 102,
		.comm = "demo",
	};
	struct bc_rec_fork child = {
		.h = {.size = sizeof(child),
		      .kind = BC_REC_PROC_FORK,
		      .pid = PID,
		      .tid = 100,
		      .ktime = START + 60},
		.child_pid = 900,
		.child_tid = 900,
		.comm = "demo",
	};
	struct bc_rec_exit texit = {
		.h = {.size = sizeof(texit),
		      .kind = BC_REC_THREAD_EXIT,
		      .pid = PID,
		      .tid = 101,
		      .ktime = START + 4000},
		.comm = "worker-1",
	};
	struct bc_rec_func_entry child_entry = {
		.h = {.size = sizeof(child_entry),
		      .kind = BC_REC_FUNC_ENTRY,
		      .pid = 900,
		      .tid = 900,
		      .ktime = START + 2000},
		.func_id = F_MAIN,
	};

	E(100, F_MAIN, START + 10);
	feed_task(x, &fork);
	feed_task(x, &child);
	syscall_pair(x->fx, NR_READ, 0, START + 100, 20);
	E(101, F_A, START + 1000);
	E(101, F_B, START + 1100);
	R(101, F_B, START + 1200);
	R(101, F_A, START + 3000);
	E(101, F_A, START + 3500);
	feed_task(x, &texit); /* a never returns: not in the thread's time */
	feed_task(x, &child_entry);
	R(100, F_MAIN, START + 1000000010);
	end(x->fx);

	assert_int_equal(bc_calltree_nthreads(x->t), 4);
	assert_int_equal(bc_calltree_start_ktime(x->t), START);
	assert_int_equal(bc_calltree_thread(x->t, PID, 101)->traced_ns, 2000);
	assert_int_equal(bc_calltree_thread(x->t, PID, 101)->traced_frames, 1);
	assert_int_equal(bc_calltree_thread(x->t, PID, 102)->events, 0);
	assert_agrees_with_report(x);
	assert_string_equal(print_view(x, THREADS, NULL, 0),
			    "Threads, by pid then tid (First, Last: seconds since the start):\n"
			    " PID  TID  Events  Calls  Syscalls        First         Last"
			    "  Lifetime  In functions  Command\n"
			    "----  ---  ------  -----  --------  -----------  -----------"
			    "  --------  ------------  -------\n"
			    " 900  900       1      1         0  0.000002000  0.000002000"
			    "      0 ns             -  demo\n"
			    "1000  100       6      1         1  0.000000010  1.000000010"
			    "   1.000 s       1.000 s  -\n"
			    "1000  101       6      3         0  0.000001000  0.000004000"
			    "  3.000 us      2.000 us  worker-1\n"
			    "1000  102       0      0         0            -            -"
			    "         -             -  demo\n"
			    "               13      5         1"
			    "                                                    "
			    "total (4 threads, 2 processes)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nested, tsetup, tteardown),
		cmocka_unit_test_setup_teardown(test_nested_printed, tsetup, tteardown),
		cmocka_unit_test_setup_teardown(test_threads_merged, tsetup, tteardown),
		cmocka_unit_test_setup_teardown(test_recursion, tsetup, tteardown),
		cmocka_unit_test_setup_teardown(test_indirect_recursion, tsetup, tteardown),
		cmocka_unit_test_setup_teardown(test_missing_return, tsetup, tteardown),
		cmocka_unit_test_setup_teardown(test_missing_inner_return, tsetup, tteardown),
		cmocka_unit_test_setup_teardown(test_per_level_limit, tsetup, tteardown),
		cmocka_unit_test_setup_teardown(test_depth_folded, tsetup, tteardown),
		cmocka_unit_test_setup_teardown(test_depth_bounded, tsetup, tteardown),
		cmocka_unit_test_setup_teardown(test_empty, tsetup, tteardown),
		cmocka_unit_test_setup_teardown(test_threads, tsetup, tteardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
