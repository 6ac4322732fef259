// SPDX-License-Identifier: MIT
/*
 * The experiment tree routes each process into its own experiment; a pid
 * the kernel reuses after its process exited is a new process with a new
 * subexperiment (_f1.er, then _f2.er), and its events go there, not to the
 * founder. Records are built by hand; the pids are beyond any real pid
 * (pid_max is at most 4194304), so nothing of a live process is read.
 */
#include "producer_fixture.h"

#define PID_ROOT 4195000u
#define PID_KID	 4195001u

static struct bc_rec_head head(uint16_t size, uint16_t kind, uint32_t pid, uint64_t seq,
			       uint64_t ktime)
{
	return (struct bc_rec_head){
		.size = size, .kind = kind, .pid = pid, .tid = pid, .seq = seq, .ktime = ktime};
}

static void fork_kid(struct bc_sink *s, uint64_t seq, uint64_t ktime)
{
	struct bc_rec_fork f = {.h = head(sizeof(f), BC_REC_PROC_FORK, PID_ROOT, seq, ktime),
				.child_pid = PID_KID,
				.child_tid = PID_KID};

	strcpy(f.comm, "root");
	feed_raw(s, &f, NULL);
}

/* The kid makes `calls` calls and exits. */
static void kid_life(struct bc_sink *s, const struct bc_functab *funcs, int calls, uint64_t ktime)
{
	uint64_t seq = 1;

	for (int i = 0; i < calls; i++) {
		struct bc_rec_func_entry e = {.h = head(sizeof(e), BC_REC_FUNC_ENTRY, PID_KID,
							seq++, ktime + (uint64_t)i),
					      .func_id = 0};

		feed_raw(s, &e, funcs);
	}
	struct bc_rec_exit x = {.h = head(sizeof(x), BC_REC_PROC_EXIT, PID_KID, seq, ktime + 100),
				.exit_code = 0};

	strcpy(x.comm, "kid");
	feed_raw(s, &x, NULL);
}

/* Events read from one experiment alone. */
static uint64_t events_in(const char *exp)
{
	struct bc_er_info info;
	char err[256];
	uint64_t n;

	memset(&info, 0, sizeof(info));
	assert_int_equal(bc_er_read(exp, NULL, &info, err, sizeof(err)), 0);
	n = info.events_read;
	bc_er_info_free(&info);
	return n;
}

static void test_pid_reuse(void **state)
{
	struct fixture *fx = *state;
	char *argv[] = {"/bin/root", NULL};
	struct bc_session sess = {
		.argv = argv, .root_pid = PID_ROOT, .start_ktime = T0, .funcs = &fx->funcs};
	struct bc_session_end end = {.end_ktime = T0 + 10 * NS, .exit_status = 0};
	char err[256], path[4200];
	struct bc_sink *s;

	assert_int_equal(bc_exp_create(fx->dir, "test.1.er", fx->exp, sizeof(fx->exp), NULL, err,
				       sizeof(err)),
			 0);
	s = bc_er_tree_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	begin(s, &sess);
	fork_kid(s, 1, T0 + NS);
	kid_life(s, &fx->funcs, 2, T0 + 2 * NS);
	/* the same pid again: a second child */
	fork_kid(s, 2, T0 + 3 * NS);
	kid_life(s, &fx->funcs, 5, T0 + 4 * NS);
	assert_int_equal(bc_sink_end(s, &end), 0);
	bc_sink_destroy(s);

	snprintf(path, sizeof(path), "%s/_f1.er", fx->exp);
	assert_int_equal(events_in(path), 3); /* 2 calls and the exit */
	snprintf(path, sizeof(path), "%s/_f2.er", fx->exp);
	assert_int_equal(events_in(path), 6);	 /* 5 calls and the exit */
	assert_int_equal(events_in(fx->exp), 2); /* the founder: its two forks */
}

/* -P A,B: B's subexperiment is named and described by the agent's PROC_NAME, not /proc. */
static void test_attached_beside(void **state)
{
	struct fixture *fx = *state;
	char *argv[] = {"/bin/a", NULL}, err[256], path[4200];
	uint32_t extra[] = {PID_KID};
	struct bc_session sess = {.argv = argv,
				  .root_pid = PID_ROOT,
				  .start_ktime = T0,
				  .funcs = &fx->funcs,
				  .attached = true,
				  .extra_pids = extra,
				  .n_extra_pids = 1};
	struct bc_session_end end = {.end_ktime = T0 + NS, .exit_status = -1};
	struct {
		struct bc_rec_proc_name n;
		struct bc_rec_exec_args a;
	} pn = {.n = {.h = head(sizeof(pn), BC_REC_PROC_NAME, PID_KID, 0, T0), .ppid = 77},
		.a = {.args_len = 14, .args = "server\0--port\0"}};
	struct bc_er_info info;
	struct bc_sink *s;

	strcpy(pn.n.comm, "server");
	assert_int_equal(bc_exp_create(fx->dir, "test.1.er", fx->exp, sizeof(fx->exp), NULL, err,
				       sizeof(err)),
			 0);
	s = bc_er_tree_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	begin(s, &sess);
	feed_raw(s, &pn, NULL);
	kid_life(s, &fx->funcs, 1, T0 + 1000);
	assert_int_equal(bc_sink_end(s, &end), 0);
	bc_sink_destroy(s);

	snprintf(path, sizeof(path), "%s/_server_PID_%u.1.er", fx->exp, PID_KID);
	memset(&info, 0, sizeof(info));
	assert_int_equal(bc_er_read(path, NULL, &info, err, sizeof(err)), 0);
	assert_string_equal(info.cmdline, "server --port");
	assert_int_equal(info.ppid, 77);
	assert_int_equal(info.events_read, 3); /* its name, its call, its exit */
	bc_er_info_free(&info);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pid_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attached_beside, setup, teardown),
	};

	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	bc_state_free(&producer_state);
	return failed;
}
