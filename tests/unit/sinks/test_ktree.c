// SPDX-License-Identifier: MIT
/*
 * Kernel experiments (record -k, -a): the kernel tree sink routes
 * kernel-side records into the founder and user-level ones into one
 * subexperiment per process, named _COMM_PID_PID.N.er, with the mappings the
 * process had before it was opened; `report procs` reads them back. Records
 * are hand-built, the agent's too: the process "running before recording"
 * is introduced by a PROC_NAME record with its argv and by its mappings,
 * as the agent sends them from /proc. The sink reads nothing of /proc: its
 * pids are beyond any real one (pid_max is at most 4194304).
 */
#include "producer_fixture.h"

#include "bpfcollect/procinfo.h"
#include "bpfcollect/report_procs.h"

#define PID_KID	 4195001u
#define PID_OLD	 4195000u /* ran before recording */
#define OLD_PPID 4321u

struct offcpu_rec {
	struct bc_rec_offcpu o;
	uint64_t ips[2];
};

static struct bc_rec_head head(uint16_t size, uint16_t kind, uint32_t pid, uint32_t tid,
			       uint64_t seq, uint64_t ktime)
{
	return (struct bc_rec_head){
		.size = size, .kind = kind, .pid = pid, .tid = tid, .seq = seq, .ktime = ktime};
}

static void func_entry(struct bc_sink *s, const struct bc_functab *funcs, uint32_t pid,
		       uint64_t seq, uint64_t ktime)
{
	struct bc_rec_func_entry e = {.h = head(sizeof(e), BC_REC_FUNC_ENTRY, pid, pid, seq, ktime),
				      .func_id = 0};

	feed_raw(s, &e, funcs);
}

static void offcpu(struct bc_sink *s, uint32_t pid, uint64_t off, uint64_t wake, uint64_t on,
		   uint32_t state, uint64_t sum_exec)
{
	struct offcpu_rec r = {
		.o = {.h = head(sizeof(r), BC_REC_OFFCPU, pid, pid, 0, on),
		      .off_ktime = off,
		      .wake_ktime = wake,
		      .sum_exec = sum_exec,
		      .state = state,
		      .syscall = 0,
		      .n_user = 2},
		.ips = {0x401000, 0x401100},
	};

	feed_raw(s, &r, NULL);
}

static void kid_mapping(struct bc_sink *s, uint64_t ktime, const char *path)
{
	struct bc_mapping m = {.pid = PID_KID,
			       .ktime = ktime,
			       .start = 0x400000,
			       .end = 0x402000,
			       .prot = PROT_READ | PROT_EXEC,
			       .path = path};

	feed_mapping(s, &m);
}

static char *system_argv[] = {"(system-wide)", NULL};

/* The experiment: this process (running before), and a child it forks that execs twice. */
static void write_ktree(struct fixture *fx)
{
	uint32_t self = PID_OLD;
	struct bc_session sess = {.argv = system_argv,
				  .root_pid = 0,
				  .start_ktime = T0,
				  .funcs = &fx->funcs,
				  .kernel = true,
				  .system_wide = true,
				  .offcpu = true,
				  .attached = true};
	struct bc_session_end end = {.end_ktime = T0 + 100 * 1000000ULL, .exit_status = -1};
	char err[256];
	struct bc_sink *s;

	assert_int_equal(bc_exp_create(fx->dir, "ktest.1.er", fx->exp, sizeof(fx->exp), NULL, err,
				       sizeof(err)),
			 0);
	s = bc_er_ktree_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	begin(s, &sess);

	/* the agent introduces the process that ran before: name, parent, argv, mappings */
	struct {
		struct bc_rec_proc_name n;
		struct bc_rec_exec_args a;
	} pn = {.n = {.h = head(sizeof(pn), BC_REC_PROC_NAME, self, self, 0, T0 + 10000000),
		      .ppid = OLD_PPID,
		      .comm = "oldproc"},
		.a = {.args_len = 12, .args = "oldproc\0-x\0y"}};
	struct bc_mapping old_map = {.pid = self,
				     .ktime = T0 + 10000000,
				     .start = 0x500000,
				     .end = 0x502000,
				     .prot = PROT_READ | PROT_EXEC,
				     .path = "/usr/bin/oldproc"};

	feed_raw(s, &pn, NULL);
	feed_mapping(s, &old_map);
	/* this process: blocked 20 ms (woken after 15), then a call: its subexperiment */
	offcpu(s, self, T0 + 10000000, T0 + 25000000, T0 + 30000000, 1, 5000000);
	func_entry(s, &fx->funcs, self, 1, T0 + 31000000);

	/* it forks the kid, whose mapping is its parent's copy */
	struct bc_rec_fork f = {
		.h = head(sizeof(f), BC_REC_PROC_FORK, self, self, 2, T0 + 40000000),
		.child_pid = PID_KID,
		.child_tid = PID_KID};

	strcpy(f.comm, "kid");
	feed_raw(s, &f, NULL);
	kid_mapping(s, T0 + 40000000, "/usr/bin/kid");
	/* preempted 10 ms, then a call: _kid_PID_4195001.1.er, with the copied mapping */
	offcpu(s, PID_KID, T0 + 50000000, 0, T0 + 60000000, 0, 3000000);
	func_entry(s, &fx->funcs, PID_KID, 1, T0 + 65000000);

	/* exec under the same name: the first ends, the next call opens .2 */
	struct bc_rec_exec x = {
		.h = head(sizeof(x), BC_REC_PROC_EXEC, PID_KID, PID_KID, 2, T0 + 70000000),
		.filename_len = 12};

	strcpy(x.comm, "kid");
	strcpy(x.filename, "/usr/bin/kid");
	feed_raw(s, &x, NULL);
	kid_mapping(s, T0 + 70000000, "/usr/bin/kid2");
	func_entry(s, &fx->funcs, PID_KID, 3, T0 + 80000000);

	struct bc_rec_exit e = {
		.h = head(sizeof(e), BC_REC_PROC_EXIT, PID_KID, PID_KID, 4, T0 + 90000000),
		.exit_code = 3 << 8,
		.sum_exec = 7000000};

	strcpy(e.comm, "kid");
	feed_raw(s, &e, NULL);
	assert_int_equal(bc_sink_end(s, &end), 0);
	bc_sink_destroy(s);
}

static void test_routing(void **state)
{
	struct fixture *fx = *state;
	uint32_t self = PID_OLD;
	char **names = NULL, path[4400], want[128], err[512];
	struct bc_er_info info;
	struct keep_sink *k;
	size_t n = 0;

	write_ktree(fx);
	/* one subexperiment per process image with user-level records */
	assert_int_equal(bc_er_list_descendants(fx->exp, &names, &n), 0);
	assert_int_equal(n, 3);
	snprintf(want, sizeof(want), "_oldproc_PID_%u.1.er", self);
	int seen = 0;

	for (size_t i = 0; i < n; i++) {
		seen |= !strcmp(names[i], want) ? 1 : 0;
		seen |= !strcmp(names[i], "_kid_PID_4195001.1.er") ? 2 : 0;
		seen |= !strcmp(names[i], "_kid_PID_4195001.2.er") ? 4 : 0;
		free(names[i]);
	}
	free(names);
	assert_int_equal(seen, 7);

	/* the founder: pid 0, kernel-side records only, the old process named as the agent said */
	k = keep_new();
	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
	assert_int_equal(info.root_pid, 0);
	size_t names_seen = 0, offcpus = 0;

	for (size_t i = 0; i < k->n; i++) {
		const struct bc_rec_head *h = &k->v[i].rec.h;

		if (k->v[i].what != 'E')
			continue;
		assert_int_not_equal(h->kind, BC_REC_FUNC_ENTRY);
		if (h->kind == BC_REC_PROC_NAME) {
			const struct bc_rec_proc_name *pn = (const void *)h;

			assert_int_equal(h->pid, self);
			assert_string_equal(pn->comm, "oldproc");
			assert_int_equal(pn->ppid, OLD_PPID);
			names_seen++;
		}
		offcpus += h->kind == BC_REC_OFFCPU;
	}
	/* named once, before its first record; the kid is named by its fork */
	assert_int_equal(names_seen, 1);
	assert_int_equal(offcpus, 2);
	bc_er_info_free(&info);
	free(k);

	/* the kid's first image: its call, and the mapping copied at fork */
	k = keep_new();
	snprintf(path, sizeof(path), "%s/_kid_PID_4195001.1.er", fx->exp);
	assert_int_equal(read_exp(path, k, &info, err, sizeof(err)), 0);
	assert_int_equal(info.root_pid, PID_KID);
	size_t calls = 0, maps = 0;

	for (size_t i = 0; i < k->n; i++) {
		calls += k->v[i].what == 'E' && k->v[i].rec.h.kind == BC_REC_FUNC_ENTRY;
		if (k->v[i].what == 'M') {
			maps++;
			assert_string_equal(k->v[i].path, "/usr/bin/kid");
		}
	}
	assert_int_equal(calls, 1);
	assert_int_equal(maps, 1);
	bc_er_info_free(&info);
	free(k);

	/* the second image has the exec's mapping, not the first one's */
	k = keep_new();
	snprintf(path, sizeof(path), "%s/_kid_PID_4195001.2.er", fx->exp);
	assert_int_equal(read_exp(path, k, &info, err, sizeof(err)), 0);
	maps = 0;
	for (size_t i = 0; i < k->n; i++) {
		if (k->v[i].what == 'M') {
			maps++;
			assert_string_equal(k->v[i].path, "/usr/bin/kid2");
		}
	}
	assert_int_equal(maps, 1);
	/* it ended with the process: exit status 3 */
	assert_int_equal(info.exit_status, 3 << 8);
	bc_er_info_free(&info);
	free(k);

	/* the old process's subexperiment starts with the mappings the agent sent, its argv */
	k = keep_new();
	snprintf(path, sizeof(path), "%s/%s", fx->exp, want);
	assert_int_equal(read_exp(path, k, &info, err, sizeof(err)), 0);
	maps = 0;
	for (size_t i = 0; i < k->n; i++) {
		if (k->v[i].what == 'M') {
			maps++;
			assert_string_equal(k->v[i].path, "/usr/bin/oldproc");
		}
	}
	assert_int_equal(maps, 1);
	assert_string_equal(info.cmdline, "oldproc -x y");
	assert_int_equal(info.ppid, OLD_PPID);
	bc_er_info_free(&info);
	free(k);
}

static char *procs_text(const char *exp, uint32_t pid, int *rc)
{
	char *buf = NULL, err[512] = "";
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	*rc = bc_report_procs(exp, true, pid, out, err, sizeof(err));
	fclose(out);
	if (*rc < 0) {
		free(buf);
		return strdup(err);
	}
	return buf;
}

static const char *row_of(const char *text, uint32_t pid)
{
	char key[32];
	const char *line = text;

	snprintf(key, sizeof(key), "%u ", pid);
	while (line && *line) {
		const char *p = line;

		while (*p == ' ')
			p++;
		if (!strncmp(p, key, strlen(key)))
			return p;
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return NULL;
}

static void test_procs(void **state)
{
	struct fixture *fx = *state;
	uint32_t self = PID_OLD;
	char *text, comm[32];
	const char *row;
	unsigned int pid, threads, vol, pre;
	double cpu, off, sleep, wait;
	char cpu_s[32], end1[16], end2[16];
	int rc;

	write_ktree(fx);
	text = procs_text(fx->exp, 0, &rc);
	assert_int_equal(rc, 0);
	/* the kid: born here and exited, CPU exact from its exit record; preempted 10 ms */
	row = row_of(text, PID_KID);
	assert_non_null(row);
	assert_int_equal(sscanf(row, "%u %31s %u %31s %lf %lf %lf %u %u %*u %*f %15s %15s", &pid,
				comm, &threads, cpu_s, &off, &sleep, &wait, &vol, &pre, end1, end2),
			 11);
	assert_string_equal(comm, "kid");
	assert_string_equal(cpu_s, "0.007");
	assert_true(off > 0.0099 && off < 0.0101);
	assert_true(wait > 0.0099 && wait < 0.0101);
	assert_true(sleep < 0.0001);
	assert_int_equal(vol, 0);
	assert_int_equal(pre, 1);
	assert_string_equal(end1, "exit");
	assert_string_equal(end2, "3");
	/* this process: ran before, still runs; blocked 20 ms of which 15 asleep */
	row = row_of(text, self);
	assert_non_null(row);
	assert_int_equal(sscanf(row, "%u %31s %u %31s %lf %lf %lf %u %u", &pid, comm, &threads,
				cpu_s, &off, &sleep, &wait, &vol, &pre),
			 9);
	cpu = atof(cpu_s);
	assert_non_null(strchr(cpu_s, '+')); /* at least: it ran before and after */
	assert_true(cpu >= 0.0);
	assert_true(off > 0.0199 && off < 0.0201);
	assert_true(sleep > 0.0149 && sleep < 0.0151);
	assert_true(wait > 0.0049 && wait < 0.0051);
	assert_int_equal(vol, 1);
	assert_non_null(strstr(row, "running"));
	free(text);

	/* one process */
	text = procs_text(fx->exp, PID_KID, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(row_of(text, PID_KID));
	assert_null(row_of(text, self));
	free(text);
	text = procs_text(fx->exp, 4, &rc);
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(text, "no record of process 4"));
	free(text);
}

static void test_split(void **state)
{
	struct bc_rec_offcpu o = {.h = {.ktime = 1000}, .off_ktime = 100};
	uint64_t s, w;

	(void)state;
	o.state = 1, o.wake_ktime = 700;
	bc_offcpu_split(&o, &s, &w);
	assert_int_equal(s, 600);
	assert_int_equal(w, 300);
	o.wake_ktime = 0; /* no wakeup seen: asleep throughout */
	bc_offcpu_split(&o, &s, &w);
	assert_int_equal(s, 900);
	assert_int_equal(w, 0);
	o.wake_ktime = 50; /* a wakeup outside the interval is not this one's */
	bc_offcpu_split(&o, &s, &w);
	assert_int_equal(s, 900);
	o.state = 0x2001, o.preempt = 1, o.wake_ktime = 700; /* preempted: waited throughout */
	bc_offcpu_split(&o, &s, &w);
	assert_int_equal(s, 0);
	assert_int_equal(w, 900);
	assert_int_equal(bc_task_state_char(0), 'R');
	assert_int_equal(bc_task_state_char(0x2001), 'S');
	assert_int_equal(bc_task_state_char(0x2), 'D');
	assert_int_equal(bc_task_state_char(0x402), 'I');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_routing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_procs, setup, teardown),
		cmocka_unit_test(test_split),
	};

	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	bc_state_free(&producer_state);
	return failed;
}
