// SPDX-License-Identifier: MIT
/*
 * Report arithmetic: hand-built record sequences go through bc_decode() and
 * the report sink; inclusive/exclusive times, recursion, mismatched and
 * orphan returns, unfinished frames and syscall errors are checked exactly.
 * The printed tables are tested in test_report_print.c.
 */
#include "report_fixture.h"

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
	/*
	 * The inner frame's 90 count as inclusive too, once the outer one is
	 * known never to return here: exclusive never passes inclusive.
	 */
	assert_times(f, 4, 95 + 90, 95 + 90);
	assert_int_equal(f->incomplete, 1);
	assert_int_equal(f->open_at_detach, 1); /* running when the recording ended */

	/* An entry_ktime matching no frame falls back to the topmost frame. */
	entry(fx, 300, F_FIB, 1000);
	entry(fx, 300, F_A, 1010);
	ret_at(fx, 300, F_FIB, 1100, 999);
	assert_times(f, 5, 195 + 90, 195 + 90);
	assert_int_equal(func(fx, F_A)->incomplete, 1);
}

/*
 * Recursion whose outermost frame never returns (its return lost): the
 * frames that returned inside it count as inclusive once, the widest of
 * them, so exclusive time stays within inclusive.
 */
static void test_recursion_missing_outer_return(void **state)
{
	struct fixture *fx = *state;
	const struct bc_func_stats *f;

	entry(fx, 100, F_FIB, 0);
	entry(fx, 100, F_FIB, 10);
	entry(fx, 100, F_FIB, 20);
	ret(fx, 100, F_FIB, 30);
	ret(fx, 100, F_FIB, 40);
	end(fx);
	f = func(fx, F_FIB);
	assert_times(f, 3, 30, 30);
	assert_int_equal(f->open_at_detach, 1);
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

	/* Recording stops inside main -> a: both open at detach, no error. */
	entry(fx, 100, F_MAIN, 0);
	entry(fx, 100, F_A, 10);
	end(fx);
	m = func(fx, F_MAIN);
	assert_times(m, 1, 0, 0);
	assert_int_equal(m->incomplete, 0);
	assert_int_equal(m->open_at_detach, 1);
	assert_int_equal(a->incomplete, 1);
	assert_int_equal(a->open_at_detach, 1);
	assert_int_equal(a->calls, 3);
	assert_int_equal(bc_report_totals(fx->r)->incomplete, 1);
	assert_int_equal(bc_report_totals(fx->r)->open_at_detach, 2);
	/* Ending twice finds nothing left open. */
	end(fx);
	assert_int_equal(bc_report_totals(fx->r)->open_at_detach, 2);
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
		T(test_recursion_missing_outer_return),
		T(test_orphan_return),
		T(test_unknown_function),
		T(test_unfinished_at_end),
		T(test_exec_closes_frames),
		T(test_deep_stack),
		T(test_many_threads),
		T(test_fork_and_lost),
		T(test_syscalls),
	};

	return cmocka_run_group_tests_name("report arithmetic", tests, NULL, NULL);
}
