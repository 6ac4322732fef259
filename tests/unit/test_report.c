// SPDX-License-Identifier: MIT
/*
 * Report arithmetic: hand-built record sequences go through bc_decode() and
 * the report sink; inclusive/exclusive times, recursion, mismatched and
 * orphan returns, unfinished frames, syscall errors and the printed tables
 * are checked exactly.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/model.h"
#include "bpfcollect/report.h"

#define PID	      1000
#define NR_READ	      0
#define NR_OPENAT     257
#define NR_EXIT_GROUP 231

/* Function ids, in the order setup() adds them. */
enum { F_MAIN, F_A, F_B, F_FIB, F_LONG, NFUNCS };

#define LONG_NAME                                                                                  \
	"_ZNSt6vectorIN5boost6detail12adj_list_genINS0_14adjacency_listINS0_4vecSEES5_"            \
	"NS0_14bidirectionalSEEE6configE"

struct fixture {
	struct bc_functab funcs;
	struct bc_report *r;
	struct bc_sink *sink;
	char *text; /* last printed table */
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	bc_functab_init(&fx->funcs);
	if (bc_functab_add(&fx->funcs, "main", "/usr/bin/demo", 0x1000, 64, 0x1000) ||
	    bc_functab_add(&fx->funcs, "a", "/usr/bin/demo", 0x1040, 16, 0x1040) ||
	    bc_functab_add(&fx->funcs, "b", "/usr/lib/libb.so.1", 0x2000, 16, 0x2000) ||
	    bc_functab_add(&fx->funcs, "fib", "/usr/bin/demo", 0x1050, 32, 0x1050) ||
	    bc_functab_add(&fx->funcs, LONG_NAME, "/usr/lib/x86_64-linux-gnu/libboost_graph.so",
			   0x3000, 8, 0x3000))
		return -1;
	fx->r = bc_report_new();
	if (!fx->r)
		return -1;
	fx->sink = bc_report_sink(fx->r);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	/* A no-op by contract: the report owns its sink. */
	bc_sink_destroy(fx->sink);
	bc_report_free(fx->r);
	bc_functab_free(&fx->funcs);
	free(fx->text);
	free(fx);
	return 0;
}

static void feed(struct fixture *fx, const void *rec)
{
	const struct bc_rec_head *h = rec;
	struct bc_event ev;

	assert_int_equal(bc_decode(rec, h->size, &fx->funcs, &ev), h->size);
	assert_int_equal(bc_sink_event(fx->sink, &ev), 0);
}

static struct bc_rec_head head(uint16_t size, uint16_t kind, uint32_t tid, uint64_t ktime)
{
	return (struct bc_rec_head){
		.size = size, .kind = kind, .pid = PID, .tid = tid, .ktime = ktime};
}

static void entry(struct fixture *fx, uint32_t tid, uint32_t func_id, uint64_t ktime)
{
	struct bc_rec_func_entry rec = {
		.h = head(sizeof(rec), BC_REC_FUNC_ENTRY, tid, ktime),
		.func_id = func_id,
	};

	feed(fx, &rec);
}

/* entry_ktime 0: as if the BPF side had not seen the entry. */
static void ret_at(struct fixture *fx, uint32_t tid, uint32_t func_id, uint64_t ktime,
		   uint64_t entry_ktime)
{
	struct bc_rec_func_return rec = {
		.h = head(sizeof(rec), BC_REC_FUNC_RETURN, tid, ktime),
		.func_id = func_id,
		.entry_ktime = entry_ktime,
	};

	feed(fx, &rec);
}

static void ret(struct fixture *fx, uint32_t tid, uint32_t func_id, uint64_t ktime)
{
	ret_at(fx, tid, func_id, ktime, 0);
}

static void sys_enter(struct fixture *fx, uint32_t tid, uint32_t nr, uint64_t ktime)
{
	struct bc_rec_sys_enter rec = {
		.h = head(sizeof(rec), BC_REC_SYS_ENTER, tid, ktime),
		.nr = nr,
	};

	feed(fx, &rec);
}

static void sys_exit(struct fixture *fx, uint32_t tid, uint32_t nr, int64_t retval, uint64_t ktime,
		     uint64_t enter_ktime)
{
	struct bc_rec_sys_exit rec = {
		.h = head(sizeof(rec), BC_REC_SYS_EXIT, tid, ktime),
		.nr = nr,
		.ret = retval,
		.enter_ktime = enter_ktime,
	};

	feed(fx, &rec);
}

/* A sys enter/exit pair taking `ns`; `at` must not be 0, which means "entry unseen". */
static void syscall_pair(struct fixture *fx, uint32_t nr, int64_t retval, uint64_t at, uint64_t ns)
{
	sys_enter(fx, 100, nr, at);
	sys_exit(fx, 100, nr, retval, at + ns, at);
}

static void end(struct fixture *fx)
{
	struct bc_session_end e = {.exit_status = 0};

	assert_int_equal(bc_sink_end(fx->sink, &e), 0);
}

static const struct bc_func_stats *func(struct fixture *fx, uint32_t id)
{
	const struct bc_func_stats *f = bc_report_func(fx->r, id);

	assert_non_null(f);
	return f;
}

static void assert_times(const struct bc_func_stats *f, uint64_t calls, uint64_t incl,
			 uint64_t excl)
{
	assert_int_equal(f->calls, calls);
	assert_int_equal(f->incl_ns, incl);
	assert_int_equal(f->excl_ns, excl);
}

/* Prints one table into fx->text, which teardown frees even if a check fails. */
static const char *print(struct fixture *fx, bool syscalls, enum bc_sort_key key, size_t top_n)
{
	size_t len = 0;
	FILE *out;

	free(fx->text);
	fx->text = NULL;
	out = open_memstream(&fx->text, &len);
	assert_non_null(out);
	if (syscalls)
		assert_int_equal(bc_report_print_syscalls(fx->r, out), 0);
	else
		assert_int_equal(bc_report_print_functions(fx->r, out, key, top_n), 0);
	assert_int_equal(fclose(out), 0);
	return fx->text;
}

#define print_functions(fx, key, top_n) print(fx, false, key, top_n)
#define print_syscalls(fx)		print(fx, true, BC_SORT_EXCL, 0)

/* ---------------------------------------------------------------- functions */

static void test_nested(void **state)
{
	struct fixture *fx = *state;
	const struct bc_func_stats *m, *a, *b;

	/* main 1000..2000 { a 1100..1700 { b 1200..1500 } } */
	entry(fx, 100, F_MAIN, 1000);
	entry(fx, 100, F_A, 1100);
	entry(fx, 100, F_B, 1200);
	ret(fx, 100, F_B, 1500);
	ret(fx, 100, F_A, 1700);
	ret(fx, 100, F_MAIN, 2000);
	end(fx);

	m = func(fx, F_MAIN);
	a = func(fx, F_A);
	b = func(fx, F_B);
	assert_times(b, 1, 300, 300);
	assert_times(a, 1, 600, 300);
	assert_times(m, 1, 1000, 400);
	assert_int_equal(m->returns, 1);
	assert_int_equal(m->incl_frames, 1);
	assert_int_equal(m->min_incl_ns, 1000);
	assert_int_equal(m->max_incl_ns, 1000);
	assert_int_equal(bc_func_stats_avg_incl(a), 600);
	assert_int_equal(m->incomplete + a->incomplete + b->incomplete, 0);
	assert_string_equal(b->name, "b");
	assert_string_equal(b->object, "/usr/lib/libb.so.1");
	assert_null(bc_report_func(fx->r, F_FIB));
	assert_int_equal(bc_report_nfuncs(fx->r), 3);
	assert_ptr_equal(bc_report_func_at(fx->r, 0), m);
	assert_null(bc_report_func_at(fx->r, 3));

	assert_int_equal(bc_report_totals(fx->r)->events, 6);
	assert_int_equal(bc_report_totals(fx->r)->func_entries, 3);
	assert_int_equal(bc_report_totals(fx->r)->func_returns, 3);
	assert_int_equal(bc_report_thread(fx->r, 100)->events, 6);
	assert_int_equal(bc_report_thread(fx->r, 100)->first_ktime, 1000);
	assert_int_equal(bc_report_thread(fx->r, 100)->last_ktime, 2000);
}

static void test_repeated_calls_min_max(void **state)
{
	struct fixture *fx = *state;
	const struct bc_func_stats *a;

	entry(fx, 100, F_A, 0);
	ret(fx, 100, F_A, 50);
	entry(fx, 100, F_A, 100);
	ret(fx, 100, F_A, 110);
	entry(fx, 100, F_A, 200);
	ret(fx, 100, F_A, 230);
	a = func(fx, F_A);
	assert_times(a, 3, 90, 90);
	assert_int_equal(a->min_incl_ns, 10);
	assert_int_equal(a->max_incl_ns, 50);
	assert_int_equal(bc_func_stats_avg_incl(a), 30);
}

static void test_two_threads_interleaved(void **state)
{
	struct fixture *fx = *state;
	const struct bc_func_stats *a, *b;

	/* tid 100: a 0..100 { b 20..50 };  tid 200: a 10..210 { b 30..130 } */
	entry(fx, 100, F_A, 0);
	entry(fx, 200, F_A, 10);
	entry(fx, 100, F_B, 20);
	entry(fx, 200, F_B, 30);
	ret(fx, 100, F_B, 50);
	ret(fx, 100, F_A, 100);
	ret(fx, 200, F_B, 130);
	ret(fx, 200, F_A, 210);
	end(fx);

	a = func(fx, F_A);
	b = func(fx, F_B);
	assert_times(a, 2, 300, 170);
	assert_times(b, 2, 130, 130);
	assert_int_equal(a->min_incl_ns, 100);
	assert_int_equal(a->max_incl_ns, 200);
	assert_int_equal(a->incomplete + b->incomplete, 0);

	assert_int_equal(bc_report_nthreads(fx->r), 2);
	assert_int_equal(bc_report_thread(fx->r, 100)->events, 4);
	assert_int_equal(bc_report_thread(fx->r, 200)->events, 4);
	assert_int_equal(bc_report_thread(fx->r, 200)->pid, PID);
	assert_int_equal(bc_report_thread_at(fx->r, 1)->tid, 200);
	assert_int_equal(bc_report_nprocesses(fx->r), 1);
	assert_int_equal(bc_report_process(fx->r, PID)->threads, 2);
	assert_int_equal(bc_report_process(fx->r, PID)->events, 8);
	assert_int_equal(bc_report_process_at(fx->r, 0)->pid, PID);
	assert_null(bc_report_thread(fx->r, 300));
	assert_null(bc_report_process(fx->r, 1));
}

static void test_direct_recursion(void **state)
{
	struct fixture *fx = *state;
	const struct bc_func_stats *f;

	/* fib 0..100 { fib 10..70 { fib 20..50 } } */
	entry(fx, 100, F_FIB, 0);
	entry(fx, 100, F_FIB, 10);
	entry(fx, 100, F_FIB, 20);
	ret(fx, 100, F_FIB, 50);
	ret(fx, 100, F_FIB, 70);
	ret(fx, 100, F_FIB, 100);
	end(fx);

	f = func(fx, F_FIB);
	/* Inclusive: outermost frame only. Exclusive: 30 + 30 + 40. */
	assert_times(f, 3, 100, 100);
	assert_int_equal(f->returns, 3);
	assert_int_equal(f->incl_frames, 1);
	assert_int_equal(f->min_incl_ns, 100);
	assert_int_equal(f->max_incl_ns, 100);
	assert_int_equal(bc_func_stats_avg_incl(f), 100);

	/* Again, later: the recursion bookkeeping was reset. */
	entry(fx, 100, F_FIB, 1000);
	ret(fx, 100, F_FIB, 1005);
	assert_times(f, 4, 105, 105);
	assert_int_equal(f->min_incl_ns, 5);
}

static void test_indirect_recursion(void **state)
{
	struct fixture *fx = *state;
	const struct bc_func_stats *a, *b;

	/* a 0..100 { b 10..50 { a 20..30 } } */
	entry(fx, 100, F_A, 0);
	entry(fx, 100, F_B, 10);
	entry(fx, 100, F_A, 20);
	ret(fx, 100, F_A, 30);
	ret(fx, 100, F_B, 50);
	ret(fx, 100, F_A, 100);

	a = func(fx, F_A);
	b = func(fx, F_B);
	assert_times(a, 2, 100, 10 + 60);
	assert_times(b, 1, 40, 30);
	/* Exclusive times partition the outermost frame. */
	assert_int_equal(a->excl_ns + b->excl_ns, a->incl_ns);
}

static void test_missing_child_return(void **state)
{
	struct fixture *fx = *state;
	const struct bc_func_stats *m, *a, *b;

	/* main 0..100 { a 10..50 { b 20..? } }: b's return was lost. */
	entry(fx, 100, F_MAIN, 0);
	entry(fx, 100, F_A, 10);
	entry(fx, 100, F_B, 20);
	ret(fx, 100, F_A, 50);
	ret(fx, 100, F_MAIN, 100);
	end(fx);

	m = func(fx, F_MAIN);
	a = func(fx, F_A);
	b = func(fx, F_B);
	assert_times(b, 1, 0, 0);
	assert_int_equal(b->incomplete, 1);
	assert_int_equal(b->returns, 0);
	assert_int_equal(b->incl_frames, 0);
	/* b's time cannot be told apart from a's own. */
	assert_times(a, 1, 40, 40);
	assert_times(m, 1, 100, 60);
	assert_int_equal(a->incomplete + m->incomplete, 0);
	assert_int_equal(bc_report_totals(fx->r)->incomplete, 1);
	assert_int_equal(bc_report_totals(fx->r)->orphan_returns, 0);
}

static void test_recursion_missing_inner_return(void **state)
{
	struct fixture *fx = *state;
	const struct bc_func_stats *f;

	/* fib 5..100 { fib 10..? }: entry_ktime says which frame returns. */
	entry(fx, 100, F_FIB, 5);
	entry(fx, 100, F_FIB, 10);
	ret_at(fx, 100, F_FIB, 100, 5);
	f = func(fx, F_FIB);
	assert_times(f, 2, 95, 95);
	assert_int_equal(f->incomplete, 1);
	assert_int_equal(f->returns, 1);
	assert_int_equal(f->incl_frames, 1);

	/*
	 * Without entry_ktime the topmost frame is taken: the inner frame
	 * gets the return and the outer one stays open.
	 */
	entry(fx, 200, F_FIB, 0);
	entry(fx, 200, F_FIB, 10);
	ret(fx, 200, F_FIB, 100);
	end(fx);
	assert_times(f, 4, 95, 95 + 90);
	assert_int_equal(f->incomplete, 2);

	/* An entry_ktime matching no frame falls back to the topmost frame. */
	entry(fx, 300, F_FIB, 1000);
	entry(fx, 300, F_A, 1010);
	ret_at(fx, 300, F_FIB, 1100, 999);
	assert_times(f, 5, 195, 195 + 90);
	assert_int_equal(func(fx, F_A)->incomplete, 1);
}

static void test_orphan_return(void **state)
{
	struct fixture *fx = *state;
	const struct bc_func_stats *m, *a, *unknown;

	entry(fx, 100, F_MAIN, 0);
	ret(fx, 100, F_A, 5); /* a's entry was never seen */
	ret(fx, 100, 77, 6);  /* not even in the function table */
	ret(fx, 200, F_MAIN, 7);
	ret(fx, 100, F_MAIN, 10);
	end(fx);

	m = func(fx, F_MAIN);
	a = func(fx, F_A);
	unknown = func(fx, 77);
	assert_times(m, 1, 10, 10);
	assert_int_equal(m->orphan_returns, 1);
	assert_times(a, 0, 0, 0);
	assert_int_equal(a->orphan_returns, 1);
	assert_int_equal(a->returns, 0);
	assert_string_equal(unknown->name, "<unknown id 77>");
	assert_string_equal(unknown->object, "");
	assert_int_equal(unknown->orphan_returns, 1);
	assert_int_equal(bc_report_totals(fx->r)->orphan_returns, 3);
	assert_int_equal(bc_report_totals(fx->r)->incomplete, 0);
}

static void test_unknown_function(void **state)
{
	struct fixture *fx = *state;
	const struct bc_func_stats *u;

	entry(fx, 100, 4000000000u, 0);
	ret(fx, 100, 4000000000u, 42);
	u = func(fx, 4000000000u);
	assert_string_equal(u->name, "<unknown id 4000000000>");
	assert_times(u, 1, 42, 42);
}

static void test_unfinished_at_end(void **state)
{
	struct fixture *fx = *state;
	struct bc_rec_exit exit_rec = {
		.h = head(sizeof(exit_rec), BC_REC_THREAD_EXIT, 300, 60),
	};
	const struct bc_func_stats *m, *a;

	/* tid 300 dies inside a: its frame is unfinished at the exit record. */
	entry(fx, 300, F_A, 50);
	feed(fx, &exit_rec);
	a = func(fx, F_A);
	assert_int_equal(a->incomplete, 1);
	/* The tid is reused: a fresh stack, and this a is outermost again. */
	entry(fx, 300, F_A, 500);
	ret(fx, 300, F_A, 600);
	assert_times(a, 2, 100, 100);

	/* Recording stops inside main -> a. */
	entry(fx, 100, F_MAIN, 0);
	entry(fx, 100, F_A, 10);
	end(fx);
	m = func(fx, F_MAIN);
	assert_times(m, 1, 0, 0);
	assert_int_equal(m->incomplete, 1);
	assert_int_equal(a->incomplete, 2);
	assert_int_equal(a->calls, 3);
	assert_int_equal(bc_report_totals(fx->r)->incomplete, 3);
	/* Ending twice finds nothing left open. */
	end(fx);
	assert_int_equal(bc_report_totals(fx->r)->incomplete, 3);
}

static void test_exec_closes_frames(void **state)
{
	struct fixture *fx = *state;
	struct bc_rec_exec exec_rec = {
		.h = head(sizeof(exec_rec), BC_REC_PROC_EXEC, PID, 100),
		.old_tid = 101,
	};

	/* A non-leader thread (101) execs and becomes the leader (PID). */
	entry(fx, PID, F_MAIN, 0);
	entry(fx, 101, F_A, 10);
	feed(fx, &exec_rec);
	assert_int_equal(func(fx, F_MAIN)->incomplete, 1);
	assert_int_equal(func(fx, F_A)->incomplete, 1);
	/* The new image's main is outermost, with a stack of its own. */
	entry(fx, PID, F_MAIN, 200);
	ret(fx, PID, F_MAIN, 250);
	assert_times(func(fx, F_MAIN), 2, 50, 50);
}

static void test_deep_stack(void **state)
{
	struct fixture *fx = *state;
	const uint32_t depth = 100000;
	const struct bc_func_stats *f;

	/* Far deeper than BC_MAX_DEPTH: the shadow stack grows. */
	for (uint32_t i = 0; i < depth; i++)
		entry(fx, 100, F_FIB, i);
	for (uint32_t i = 0; i < depth; i++)
		ret_at(fx, 100, F_FIB, depth + i, depth - 1 - i);
	f = func(fx, F_FIB);
	assert_times(f, depth, 2 * depth - 1, 2 * depth - 1);
	assert_int_equal(f->incl_frames, 1);
	assert_int_equal(f->incomplete, 0);
}

static void test_many_threads(void **state)
{
	struct fixture *fx = *state;
	const uint32_t nthreads = 5000;

	/* Sparse tids spread over the hash map; each thread open at once. */
	for (uint32_t t = 0; t < nthreads; t++)
		entry(fx, 1 + t * 7919, F_A, t);
	for (uint32_t t = 0; t < nthreads; t++)
		ret(fx, 1 + t * 7919, F_A, 10000 + t);
	assert_times(func(fx, F_A), nthreads, (uint64_t)nthreads * 10000, nthreads * 10000ull);
	assert_int_equal(bc_report_nthreads(fx->r), nthreads);
	assert_int_equal(bc_report_thread(fx->r, 1 + 4999 * 7919)->events, 2);
	assert_int_equal(bc_report_process(fx->r, PID)->threads, nthreads);
}

static void test_fork_and_lost(void **state)
{
	struct fixture *fx = *state;
	struct bc_rec_fork fork_rec = {
		.h = head(sizeof(fork_rec), BC_REC_PROC_FORK, 100, 10),
		.child_pid = 2000,
		.child_tid = 2000,
	};
	struct bc_rec_fork thread_rec = {
		.h = head(sizeof(thread_rec), BC_REC_THREAD_START, 100, 20),
		.child_pid = PID,
		.child_tid = 1001,
	};
	struct bc_rec_lost lost_rec = {
		.h = head(sizeof(lost_rec), BC_REC_LOST, 0, 30),
		.loss_class = BC_LOSS_FUNC,
		.count = 5,
	};
	struct bc_session_end e = {.lost = {[BC_LOSS_FUNC] = 3, [BC_LOSS_SYSCALL] = 2}};
	const struct bc_report_totals *t = bc_report_totals(fx->r);

	feed(fx, &fork_rec);
	feed(fx, &thread_rec);
	feed(fx, &lost_rec);
	assert_int_equal(bc_report_thread(fx->r, 2000)->events, 0);
	assert_int_equal(bc_report_thread(fx->r, 2000)->pid, 2000);
	assert_int_equal(bc_report_thread(fx->r, 1001)->pid, PID);
	assert_int_equal(bc_report_process(fx->r, 2000)->threads, 1);
	assert_int_equal(bc_report_process(fx->r, PID)->threads, 2);
	assert_int_equal(bc_report_process(fx->r, PID)->events, 2);
	/* The agent's loss record names no task. */
	assert_null(bc_report_thread(fx->r, 0));
	assert_int_equal(t->events, 3);

	/* The end repeats the same losses: the larger count wins. */
	assert_int_equal(bc_sink_end(fx->sink, &e), 0);
	assert_int_equal(t->lost[BC_LOSS_FUNC], 5);
	assert_int_equal(t->lost[BC_LOSS_SYSCALL], 2);
	assert_int_equal(t->lost[BC_LOSS_PROC], 0);
}

/* ---------------------------------------------------------------- syscalls */

static void test_syscalls(void **state)
{
	struct fixture *fx = *state;
	const struct bc_sys_stats *s;

	syscall_pair(fx, NR_OPENAT, -ENOENT, 100, 100);
	syscall_pair(fx, NR_OPENAT, 3, 1000, 500);
	syscall_pair(fx, NR_OPENAT, -ENOENT, 2000, 300);
	syscall_pair(fx, NR_READ, -EAGAIN, 3000, 50);
	syscall_pair(fx, NR_READ, 10, 4000, 150);
	/* Entry unseen: counts the error, not the time. */
	sys_exit(fx, 100, NR_READ, -EINTR, 4500, 0);
	/* A successful -4096 is not an error: only -4095..-1 are. */
	syscall_pair(fx, 999, -4096, 5000, 7);
	sys_enter(fx, 100, NR_EXIT_GROUP, 6000);
	end(fx);

	s = bc_report_sys(fx->r, NR_OPENAT);
	assert_non_null(s);
	assert_string_equal(s->name, "openat");
	assert_int_equal(s->calls, 3);
	assert_int_equal(s->exits, 3);
	assert_int_equal(s->timed, 3);
	assert_int_equal(s->total_ns, 900);
	assert_int_equal(s->min_ns, 100);
	assert_int_equal(s->max_ns, 500);
	assert_int_equal(bc_sys_stats_avg(s), 300);
	assert_int_equal(s->errors, 2);
	assert_int_equal(bc_sys_stats_errno_count(s, ENOENT), 2);
	assert_int_equal(s->n_errnos, 1);

	s = bc_report_sys(fx->r, NR_READ);
	assert_int_equal(s->calls, 2);
	assert_int_equal(s->exits, 3);
	assert_int_equal(s->timed, 2);
	assert_int_equal(s->total_ns, 200);
	assert_int_equal(s->errors, 2);
	assert_int_equal(bc_sys_stats_errno_count(s, EAGAIN), 1);
	assert_int_equal(bc_sys_stats_errno_count(s, EINTR), 1);
	assert_int_equal(bc_sys_stats_errno_count(s, ENOENT), 0);

	s = bc_report_sys(fx->r, NR_EXIT_GROUP);
	assert_string_equal(s->name, "exit_group");
	assert_int_equal(s->calls, 1);
	assert_int_equal(s->exits, 0);
	assert_int_equal(s->timed, 0);
	assert_int_equal(s->total_ns, 0);
	assert_int_equal(bc_sys_stats_avg(s), 0);

	s = bc_report_sys(fx->r, 999);
	assert_string_equal(s->name, "syscall_999");
	assert_int_equal(s->errors, 0);
	assert_int_equal(s->total_ns, 7);

	assert_null(bc_report_sys(fx->r, 1));
	assert_int_equal(bc_report_nsys(fx->r), 4);
	assert_int_equal(bc_report_sys_at(fx->r, 0)->nr, NR_OPENAT);
	assert_int_equal(bc_report_totals(fx->r)->sys_enters, 7);
	assert_int_equal(bc_report_totals(fx->r)->sys_exits, 7);
}

/* ---------------------------------------------------------------- printing */

static void test_format_duration(void **state)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = {
		{0, "0 ns"},
		{999, "999 ns"},
		{1000, "1.000 us"},
		{1234, "1.234 us"},
		{999999, "999.999 us"},
		{1000000, "1.000 ms"},
		{12345678, "12.345 ms"},
		{999999999, "999.999 ms"},
		{1000000000, "1.000 s"},
		{100000000000, "100.000 s"},
		{UINT64_MAX, "18446744073.709 s"},
	};
	char buf[BC_DURATION_LEN];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(bc_format_duration(buf, cases[i].ns), cases[i].text);
}

static void test_sort_key_parse(void **state)
{
	enum bc_sort_key key = BC_SORT_EXCL;

	(void)state;
	assert_int_equal(bc_sort_key_parse("name", &key), 0);
	assert_int_equal(key, BC_SORT_NAME);
	assert_int_equal(bc_sort_key_parse("avg", &key), 0);
	assert_int_equal(key, BC_SORT_AVG);
	assert_int_equal(bc_sort_key_parse("excl", &key), 0);
	assert_int_equal(key, BC_SORT_EXCL);
	assert_int_equal(bc_sort_key_parse("self", &key), -EINVAL);
}

/* Six sequential top-level calls, one per unit boundary. */
static void feed_boundaries(struct fixture *fx)
{
	entry(fx, 100, F_MAIN, 0);
	ret(fx, 100, F_MAIN, 999);
	entry(fx, 100, F_A, 1000);
	ret(fx, 100, F_A, 2000);
	entry(fx, 100, F_B, 2000);
	ret(fx, 100, F_B, 2000 + 999999);
	entry(fx, 100, F_FIB, 1002000);
	ret(fx, 100, F_FIB, 2002000);
	entry(fx, 100, F_LONG, 3000000);
	ret(fx, 100, F_LONG, 1003000000);
	entry(fx, 100, 9, 2000000000);
	ret(fx, 100, 9, 102000000000);
	/* One call that never returns. */
	entry(fx, 100, F_A, 200000000000);
	end(fx);
}

static void test_print_functions(void **state)
{
	struct fixture *fx = *state;
	const char *text;

	feed_boundaries(fx);
	text = print_functions(fx, BC_SORT_EXCL, 0);
	assert_string_equal(
		text,
		"Functions, by exclusive time:\n"
		"Calls  Incl. total  Excl. total   Avg incl.  Object             Name\n"
		"-----  -----------  -----------  ----------  -----------------  ----\n"
		"    1    100.000 s    100.000 s   100.000 s  -                  <unknown id 9>\n"
		"    1      1.000 s      1.000 s     1.000 s  libboost_graph.so  " LONG_NAME "\n"
		"    1     1.000 ms     1.000 ms    1.000 ms  demo               fib\n"
		"    1   999.999 us   999.999 us  999.999 us  libb.so.1          b\n"
		"    2     1.000 us     1.000 us    1.000 us  demo               a\n"
		"    1       999 ns       999 ns      999 ns  demo               main\n"
		"    7                 101.002 s                                 total (6 "
		"functions)\n"
		"note: 1 calls never returned (thread exit, exec, end of recording or lost return);"
		" their time is not counted\n");
}

static void test_print_functions_sorted(void **state)
{
	struct fixture *fx = *state;
	const char *text;

	feed_boundaries(fx);
	text = print_functions(fx, BC_SORT_NAME, 3);
	assert_string_equal(
		text,
		"Functions, top 3 of 6 by name:\n"
		"Calls  Incl. total  Excl. total  Avg incl.  Object             Name\n"
		"-----  -----------  -----------  ---------  -----------------  ----\n"
		"    1    100.000 s    100.000 s  100.000 s  -                  <unknown id 9>\n"
		"    1      1.000 s      1.000 s    1.000 s  libboost_graph.so  " LONG_NAME "\n"
		"    2     1.000 us     1.000 us   1.000 us  demo               a\n"
		"    7                 101.002 s                                total (6 "
		"functions)\n"
		"note: 1 calls never returned (thread exit, exec, end of recording or lost return);"
		" their time is not counted\n");

	text = print_functions(fx, BC_SORT_CALLS, 1);
	assert_non_null(strstr(text, "top 1 of 6 by calls:\n"));
	assert_non_null(strstr(text, "  a\n"));
}

static void test_print_functions_unmeasured(void **state)
{
	struct fixture *fx = *state;
	struct bc_rec_lost lost_rec = {
		.h = head(sizeof(lost_rec), BC_REC_LOST, 0, 0),
		.loss_class = BC_LOSS_FUNC,
		.count = 4,
	};
	const char *text;

	entry(fx, 100, F_MAIN, 0);
	ret(fx, 100, F_B, 1);
	feed(fx, &lost_rec);
	end(fx);
	text = print_functions(fx, BC_SORT_EXCL, 0);
	assert_string_equal(
		text,
		"Functions, by exclusive time:\n"
		"Calls  Incl. total  Excl. total  Avg incl.  Object     Name\n"
		"-----  -----------  -----------  ---------  ---------  ----\n"
		"    0            -            -          -  libb.so.1  b\n"
		"    1            -            -          -  demo       main\n"
		"    1                      0 ns                        total (2 functions)\n"
		"note: 1 calls never returned (thread exit, exec, end of recording or lost "
		"return); their time is not counted\n"
		"note: 1 returns without a matching entry were ignored\n"
		"warning: 4 function events were lost; times of the affected calls are missing\n");
}

static void test_print_syscalls(void **state)
{
	struct fixture *fx = *state;
	const char *text;

	syscall_pair(fx, NR_OPENAT, -ENOENT, 100, 1500);
	syscall_pair(fx, NR_OPENAT, -ENOENT, 10000, 2500);
	syscall_pair(fx, NR_OPENAT, 3, 20000, 2000);
	syscall_pair(fx, NR_READ, -EAGAIN, 30000, 999);
	syscall_pair(fx, NR_READ, -EINTR, 40000, 1);
	syscall_pair(fx, NR_READ, -EINTR, 50000, 1);
	syscall_pair(fx, NR_READ, -512, 60000, 1);
	syscall_pair(fx, 1, 1, 70000, 100);
	syscall_pair(fx, 998, -600, 80000, 1);
	sys_enter(fx, 100, NR_EXIT_GROUP, 90000);
	end(fx);

	text = print_syscalls(fx);
	assert_string_equal(
		text,
		"Syscalls, by total time:\n"
		"Calls     Total       Avg  Errors  Name         Error codes\n"
		"-----  --------  --------  ------  -----------  -----------\n"
		"    3  6.000 us  2.000 us       2  openat       ENOENT:2\n"
		"    4  1.002 us    250 ns       4  read         EINTR:2 EAGAIN:1 ERESTARTSYS:1\n"
		"    1    100 ns    100 ns       0  write\n"
		"    1      1 ns      1 ns       1  syscall_998  errno_600:1\n"
		"    1         -         -       0  exit_group\n"
		"   10  7.103 us                 7  total (5 syscalls)\n");

	/* Past five errnos the rest are summed: "open" fails 7 ways. */
	for (int e = 1; e <= 7; e++)
		syscall_pair(fx, 2, -e, 100000 + e * 10, 1);
	syscall_pair(fx, 2, -EPERM, 100100, 1);
	text = print_syscalls(fx);
	assert_non_null(strstr(text, " EPERM:2 ENOENT:1 ESRCH:1 EINTR:1 EIO:1 +2 more\n"));
}

static void test_print_empty(void **state)
{
	struct fixture *fx = *state;
	const char *text;

	end(fx);
	text = print_functions(fx, BC_SORT_EXCL, 0);
	assert_string_equal(text, "Functions: no calls recorded\n");
	text = print_syscalls(fx);
	assert_string_equal(text, "Syscalls: none recorded\n");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_nested),
		T(test_repeated_calls_min_max),
		T(test_two_threads_interleaved),
		T(test_direct_recursion),
		T(test_indirect_recursion),
		T(test_missing_child_return),
		T(test_recursion_missing_inner_return),
		T(test_orphan_return),
		T(test_unknown_function),
		T(test_unfinished_at_end),
		T(test_exec_closes_frames),
		T(test_deep_stack),
		T(test_many_threads),
		T(test_fork_and_lost),
		T(test_syscalls),
		T(test_format_duration),
		T(test_sort_key_parse),
		T(test_print_functions),
		T(test_print_functions_sorted),
		T(test_print_functions_unmeasured),
		T(test_print_syscalls),
		T(test_print_empty),
	};

	return cmocka_run_group_tests_name("report arithmetic", tests, NULL, NULL);
}
