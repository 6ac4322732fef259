// SPDX-License-Identifier: MIT
/*
 * The shared view of the processes: a fork's child runs its parent's
 * command line in its group and session, an exec says its own, an agent's
 * PROC_NAME names a process that ran before, and a pid the kernel hands
 * out again is a new process (its serial moves up), with or without a
 * fork seen.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/state.h"

#define ROOT 100u
#define KID  101u

static struct bc_rec_head head(uint16_t size, uint16_t kind, uint32_t pid, uint64_t ktime)
{
	return (struct bc_rec_head){
		.size = size, .kind = kind, .pid = pid, .tid = pid, .ktime = ktime};
}

static void fork_kid(struct bc_state *s, uint64_t ktime)
{
	struct bc_rec_fork f = {.h = head(sizeof(f), BC_REC_PROC_FORK, ROOT, ktime),
				.child_pid = KID,
				.child_tid = KID,
				.comm = "root"};

	assert_int_equal(bc_state_event(s, &f.h), 0);
}

static void exit_of(struct bc_state *s, uint32_t pid, uint64_t ktime)
{
	struct bc_rec_exit x = {.h = head(sizeof(x), BC_REC_PROC_EXIT, pid, ktime),
				.exit_code = 7 << 8};

	assert_int_equal(bc_state_event(s, &x.h), 0);
}

static void test_lifecycle(void **state)
{
	char *argv[] = {"/bin/root", "-v", NULL};
	struct bc_session sess = {
		.argv = argv, .root_pid = ROOT, .start_ktime = 5, .ppid = 1, .pgrp = 90, .sid = 91};
	struct {
		struct bc_rec_exec x;
		struct bc_rec_exec_args a;
	} ex = {.x = {.h = head(sizeof(ex), BC_REC_PROC_EXEC, KID, 30),
		      .filename_len = 7,
		      .comm = "ls",
		      .filename = "/bin/ls"},
		.a = {.args_len = 6, .args = "ls\0-l\0"}};
	const struct bc_proc *p;
	struct bc_state s;

	(void)state;
	bc_state_init(&s);
	assert_null(bc_state_proc(&s, ROOT));
	assert_int_equal(bc_state_begin(&s, &sess), 0);
	p = bc_state_proc(&s, ROOT);
	assert_non_null(p);
	assert_int_equal(p->args_len, 13);
	assert_memory_equal(p->args, "/bin/root\0-v\0", 13);
	assert_int_equal(p->pgrp, 90);

	fork_kid(&s, 20);
	p = bc_state_proc(&s, KID);
	assert_non_null(p);
	assert_int_equal(p->serial, 1);
	assert_int_equal(p->ppid, ROOT);
	assert_string_equal(p->comm, "root");
	assert_int_equal(p->sid, 91);
	assert_memory_equal(p->args, "/bin/root\0-v\0", 13);
	assert_int_equal(p->birth_ktime, 20);

	assert_int_equal(bc_state_event(&s, &ex.x.h), 0);
	p = bc_state_proc(&s, KID);
	assert_string_equal(p->comm, "ls");
	assert_string_equal(p->exe, "/bin/ls");
	assert_int_equal(p->args_len, 6);
	assert_memory_equal(p->args, "ls\0-l\0", 6);

	exit_of(&s, KID, 40);
	p = bc_state_proc(&s, KID);
	assert_true(p->exited);
	assert_int_equal(p->exit_code, 7 << 8);

	/* the pid again, forked: a new process */
	fork_kid(&s, 50);
	p = bc_state_proc(&s, KID);
	assert_int_equal(p->serial, 2);
	assert_false(p->exited);
	assert_null(p->exe);
	assert_memory_equal(p->args, "/bin/root\0-v\0", 13);

	/* and again with no fork seen (lost): its first record makes it new */
	exit_of(&s, KID, 60);
	struct bc_rec_func_entry e = {.h = head(sizeof(e), BC_REC_FUNC_ENTRY, KID, 70)};

	assert_int_equal(bc_state_event(&s, &e.h), 0);
	p = bc_state_proc(&s, KID);
	assert_int_equal(p->serial, 3);
	assert_int_equal(p->birth_ktime, 70);
	assert_null(p->args);
	bc_state_free(&s);
}

static void test_proc_name(void **state)
{
	struct {
		struct bc_rec_proc_name n;
		struct bc_rec_exec_args a;
	} pn = {.n = {.h = head(sizeof(pn), BC_REC_PROC_NAME, 300, 1), .ppid = 1, .comm = "sshd"},
		.a = {.args_len = 10, .args = "sshd\0-D\0-e"}};
	struct bc_rec_lost l = {.h = head(sizeof(l), BC_REC_LOST, 300, 2)};
	const struct bc_proc *p;
	struct bc_state s;

	(void)state;
	bc_state_init(&s);
	assert_int_equal(bc_state_event(&s, &pn.n.h), 0);
	p = bc_state_proc(&s, 300);
	assert_string_equal(p->comm, "sshd");
	assert_int_equal(p->ppid, 1);
	assert_int_equal(p->args_len, 10);
	/* the agent's losses are about no process */
	assert_int_equal(bc_state_event(&s, &l.h), 0);
	assert_int_equal(bc_state_proc(&s, 300)->serial, 1);
	assert_null(bc_state_proc(NULL, 300));
	bc_state_free(&s);
}

/* Mappings: kept per process, none after an exec or an exit, a child's empty at its fork. */
static void test_mappings(void **state)
{
	struct bc_mapping m = {.pid = ROOT,
			       .ktime = 1,
			       .start = 0x1000,
			       .end = 0x3000,
			       .prot = 5,
			       .path = "/bin/root"};
	struct bc_mapping u = {
		.pid = ROOT, .ktime = 2, .start = 0x1000, .end = 0x2000, .unmap = true};
	struct bc_state s;
	size_t before;

	(void)state;
	bc_state_init(&s);
	assert_int_equal(bc_state_mapping(&s, &m), 0);
	m.pid = KID;
	assert_int_equal(bc_state_mapping(&s, &m), 0);
	before = s.maps.n;
	assert_int_equal(before, 2);
	fork_kid(&s, 3); /* the kid's old mapping is gone: a new process */
	assert_int_equal(s.maps.n, 1);
	assert_int_equal(bc_state_mapping(&s, &u), 0); /* unmapped where it starts */
	assert_int_equal(s.maps.n, 0);
	m.pid = ROOT;
	assert_int_equal(bc_state_mapping(&s, &m), 0);
	exit_of(&s, ROOT, 4);
	assert_int_equal(s.maps.n, 0);
	bc_state_free(&s);
}

static void fork_of(struct bc_state *s, uint32_t parent, uint32_t child, uint64_t ktime)
{
	struct bc_rec_fork f = {.h = head(sizeof(f), BC_REC_PROC_FORK, parent, ktime),
				.child_pid = child,
				.child_tid = child,
				.comm = "sh"};

	assert_int_equal(bc_state_event(s, &f.h), 0);
}

/*
 * Thousands of short processes, as a build or a shell loop makes: the
 * table keeps the last exits and forgets older ones, so it does not grow;
 * a pid used again after it was forgotten still gets the next serial, and
 * the root is known after its exit however many exits follow.
 */
static void test_flat(void **state)
{
	char *argv[] = {"/bin/make", NULL};
	struct bc_session sess = {.argv = argv, .root_pid = ROOT, .start_ktime = 1};
	const uint32_t first = 1000, count = 20000;
	struct {
		struct bc_rec_exec x;
		struct bc_rec_exec_args a;
	} ex = {.x = {.h = head(sizeof(ex), BC_REC_PROC_EXEC, 0, 0),
		      .filename_len = 9,
		      .comm = "true",
		      .filename = "/bin/true"},
		.a = {.args_len = 5, .args = "true\0"}};
	uint64_t t = 10;
	struct bc_state s;
	size_t cap_after_warmup = 0;

	(void)state;
	bc_state_init(&s);
	assert_int_equal(bc_state_begin(&s, &sess), 0);
	exit_of(&s, ROOT, t++); /* the root ends first: its children run on */
	for (uint32_t n = 0; n < count; n++) {
		/* pids cycle through 5000, as the kernel's do past pid_max */
		uint32_t pid = first + n % 5000;

		fork_of(&s, ROOT, pid, t++);
		ex.x.h.pid = ex.x.h.tid = pid;
		ex.x.h.ktime = t++;
		assert_int_equal(bc_state_event(&s, &ex.x.h), 0);
		assert_string_equal(bc_state_proc(&s, pid)->exe, "/bin/true");
		/* the fourth time round a pid is the fourth process with it */
		assert_int_equal(bc_state_proc(&s, pid)->serial, n / 5000 + 1);
		exit_of(&s, pid, t++);
		if (n == 1000)
			cap_after_warmup = s.procs.cap;
	}
	/* the last exits are still known, older ones are not */
	assert_true(bc_state_proc(&s, first + (count - 1) % 5000)->exited);
	assert_non_null(bc_state_proc(&s, first + (count - BC_PIDTAB_KEEP_EXITED) % 5000));
	assert_null(bc_state_proc(&s, first + (count - BC_PIDTAB_KEEP_EXITED - 1) % 5000));
	/* slots: the root and the kept exits (and the one being born), from early on */
	assert_int_equal(s.procs.cap, cap_after_warmup);
	assert_true(s.procs.n <= BC_PIDTAB_KEEP_EXITED + 2);
	assert_true(s.procs.by_pid.n <= BC_PIDTAB_KEEP_EXITED + 1);
	/* pids 1000..5999: two chunks of serials, no more */
	assert_non_null(s.serials[1]);
	assert_null(s.serials[2]);
	assert_non_null(s.serials[0]);
	/* the root: still there, with its command line */
	assert_non_null(bc_state_proc(&s, ROOT));
	assert_true(bc_state_proc(&s, ROOT)->exited);
	assert_memory_equal(bc_state_proc(&s, ROOT)->args, "/bin/make", 10);
	bc_state_free(&s);
}

/* A pid past the kernel's limit (a damaged file): its serial is kept all the same. */
static void test_pid_beyond_limit(void **state)
{
	const uint32_t far = BC_STATE_PID_LIMIT + 5;
	struct bc_state s;

	(void)state;
	bc_state_init(&s);
	fork_of(&s, ROOT, far, 1);
	exit_of(&s, far, 2);
	for (uint32_t pid = 1000; pid < 1000 + BC_PIDTAB_KEEP_EXITED; pid++) {
		fork_of(&s, ROOT, pid, 3);
		exit_of(&s, pid, 4);
	}
	assert_null(bc_state_proc(&s, far)); /* forgotten */
	fork_of(&s, ROOT, far, 5);
	assert_int_equal(bc_state_proc(&s, far)->serial, 2);
	bc_state_free(&s);
}

/* A damaged fork naming no child, or its own pid, makes no process. */
static void test_bad_fork(void **state)
{
	struct bc_state s;

	(void)state;
	bc_state_init(&s);
	fork_of(&s, ROOT, 0, 1);
	fork_of(&s, ROOT, ROOT, 2);
	assert_null(bc_state_proc(&s, ROOT));
	assert_null(bc_state_proc(&s, 0));
	bc_state_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lifecycle),	 cmocka_unit_test(test_proc_name),
		cmocka_unit_test(test_mappings),	 cmocka_unit_test(test_flat),
		cmocka_unit_test(test_pid_beyond_limit), cmocka_unit_test(test_bad_fork),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
