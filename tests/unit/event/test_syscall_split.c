// SPDX-License-Identifier: MIT
/*
 * A system call written whole (BC_REC_SYSCALL) stands for its entry and
 * exit records: the split gives them as the entry and the exit would have
 * written them, each valid for the decoder, the entry's sequence number
 * just before the exit's. The experiment keeps it whole, in the syscalls
 * file; a sink that does not take it whole gets the two, in order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/experiment.h"
#include "bpfcollect/model.h"

static void test_split(void **state)
{
	struct bc_rec_syscall call = {
		.h = {.size = sizeof(call),
		      .kind = BC_REC_SYSCALL,
		      .depth = 3,
		      .pid = 10,
		      .tid = 11,
		      .seq = 8,
		      .ktime = 5000},
		.nr = 0, /* read */
		.cpu = 1,
		.ret = -4,
		.enter_ktime = 4000,
		.enter_cpu = 0,
		.enter_depth = 2,
		.args = {3, 0x7fff0000, 4096, 4, 5, 6},
	};
	struct bc_rec_sys_enter enter;
	struct bc_rec_sys_exit exit;
	struct bc_functab funcs = {0};
	struct bc_event ev;

	(void)state;
	assert_int_equal(bc_decode(&call, sizeof(call), &funcs, &ev), sizeof(call));
	assert_string_equal(ev.sys_name, "read");
	bc_syscall_split(&call, &enter, &exit);

	assert_int_equal(bc_decode(&enter, sizeof(enter), &funcs, &ev), sizeof(enter));
	assert_int_equal(enter.h.kind, BC_REC_SYS_ENTER);
	assert_int_equal(enter.h.seq, 7);
	assert_int_equal(enter.h.ktime, 4000);
	assert_int_equal(enter.h.depth, 2);
	assert_int_equal(enter.h.pid, 10);
	assert_int_equal(enter.h.tid, 11);
	assert_int_equal(enter.nr, 0);
	assert_int_equal(enter.cpu, 0);
	assert_memory_equal(enter.args, call.args, sizeof(call.args));

	assert_int_equal(bc_decode(&exit, sizeof(exit), &funcs, &ev), sizeof(exit));
	assert_int_equal(exit.h.kind, BC_REC_SYS_EXIT);
	assert_int_equal(exit.h.seq, 8);
	assert_int_equal(exit.h.ktime, 5000);
	assert_int_equal(exit.h.depth, 3);
	assert_int_equal(exit.ret, -4);
	assert_int_equal(exit.enter_ktime, 4000);
	assert_int_equal(exit.cpu, 1);

	/* kept whole, beside the entries and exits */
	assert_int_equal(bc_er_file_for_kind(BC_REC_SYSCALL), BC_ER_SYSCALLS);
	/* a record without a sequence number (none lost or given): the entry has none either */
	call.h.seq = 0;
	bc_syscall_split(&call, &enter, &exit);
	assert_int_equal(enter.h.seq, 0);
}

/* A sink that records what it is given. */
struct seen {
	struct bc_sink base;
	unsigned int kinds[4], n;
	uint64_t ktimes[4];
};

static int seen_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct seen *x = (struct seen *)s;

	if (x->n < 4) {
		x->kinds[x->n] = ev->rec->kind;
		x->ktimes[x->n++] = ev->rec->ktime;
	}
	return 0;
}

static void test_sink_gets_halves(void **state)
{
	static const struct bc_sink_ops halves = {.name = "halves", .event = seen_event};
	static const struct bc_sink_ops whole = {
		.name = "whole", .event = seen_event, .whole_syscalls = true};
	struct bc_rec_syscall call = {
		.h = {.size = sizeof(call),
		      .kind = BC_REC_SYSCALL,
		      .pid = 1,
		      .tid = 1,
		      .seq = 2,
		      .ktime = 900},
		.nr = 39,
		.enter_ktime = 800,
	};
	struct bc_event ev = {.rec = &call.h};
	struct seen a = {.base.ops = &halves}, b = {.base.ops = &whole};

	(void)state;
	assert_int_equal(bc_sink_event(&a.base, &ev), 0);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.kinds[0], BC_REC_SYS_ENTER);
	assert_int_equal(a.ktimes[0], 800);
	assert_int_equal(a.kinds[1], BC_REC_SYS_EXIT);
	assert_int_equal(a.ktimes[1], 900);
	assert_int_equal(bc_sink_event(&b.base, &ev), 0);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.kinds[0], BC_REC_SYSCALL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_sink_gets_halves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
