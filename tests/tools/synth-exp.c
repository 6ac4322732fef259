// SPDX-License-Identifier: MIT
/*
 * synth-exp: writes an experiment from synthetic records, through the
 * library's own `er` format sink, so that convert and report can be
 * exercised (a full disk, a planted output file) without loading BPF.
 *
 *   synth-exp NAME.er [CALLS]
 *
 * The stream: a root process (two threads) that forks a child, each thread
 * making CALLS calls of work() (default 100), each call a write(2) inside,
 * then the threads and processes exit. The producer's part (the shared
 * process state) is played here as the agent plays it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpfcollect/experiment.h"
#include "bpfcollect/formats.h"
#include "bpfcollect/state.h"

#define NS	 1000000000ull
#define T0	 (5000 * NS)
#define PID	 31000u
#define CHILD	 31007u
#define NR_WRITE 1

enum { FN_WORK, FN_HELPER };

struct synth {
	struct bc_functab funcs;
	struct bc_state state;
	struct bc_sink *sink;
	uint64_t now;
	uint64_t seq[3]; /* per thread: root, its second thread, the child */
};

union rec {
	struct bc_rec_head h;
	struct bc_rec_func_entry fe;
	struct bc_rec_func_return fr;
	struct bc_rec_sys_enter se;
	struct bc_rec_sys_exit sx;
	struct bc_rec_fork fk;
	struct bc_rec_exit et;
};

/* Which of the three threads tid is, for its sequence numbers. */
static size_t thread_slot(uint32_t tid)
{
	return tid == PID ? 0 : tid == CHILD ? 2 : 1;
}

/* The head of a record of kind by tid of pid, one microsecond after the last. */
static void head(struct synth *s, union rec *r, uint16_t size, uint16_t kind, uint32_t pid,
		 uint32_t tid, uint32_t depth)
{
	memset(r, 0, sizeof(*r));
	s->now += 1000;
	r->h = (struct bc_rec_head){.size = size,
				    .kind = kind,
				    .depth = depth,
				    .pid = pid,
				    .tid = tid,
				    .seq = ++s->seq[thread_slot(tid)],
				    .ktime = s->now};
}

/* Hands r to the state, then to the sink, as the agent's drain does. */
static int feed(struct synth *s, const union rec *r)
{
	struct bc_event ev;
	int rc;

	if (bc_decode(r, r->h.size, &s->funcs, &ev) < 0) {
		fprintf(stderr, "synth-exp: a record of kind 0x%x does not decode\n", r->h.kind);
		return -EINVAL;
	}
	rc = bc_state_event(&s->state, &r->h);
	return rc ? rc : bc_sink_event(s->sink, &ev);
}

static int call(struct synth *s, uint32_t pid, uint32_t tid, uint32_t func, uint32_t depth,
		bool syscall)
{
	union rec r;
	uint64_t entered, sys_at;
	int rc;

	head(s, &r, sizeof(r.fe), BC_REC_FUNC_ENTRY, pid, tid, depth);
	r.fe.func_id = func, r.fe.sp = 0x7ffe0000 - depth * 64;
	entered = r.h.ktime;
	if ((rc = feed(s, &r)))
		return rc;
	if (syscall) {
		head(s, &r, sizeof(r.se), BC_REC_SYS_ENTER, pid, tid, depth + 1);
		r.se.nr = NR_WRITE, r.se.args[0] = 1, r.se.args[2] = 42;
		sys_at = r.h.ktime;
		if ((rc = feed(s, &r)))
			return rc;
		head(s, &r, sizeof(r.sx), BC_REC_SYS_EXIT, pid, tid, depth + 1);
		r.sx.nr = NR_WRITE, r.sx.ret = 42, r.sx.enter_ktime = sys_at;
		if ((rc = feed(s, &r)))
			return rc;
	}
	head(s, &r, sizeof(r.fr), BC_REC_FUNC_RETURN, pid, tid, depth);
	r.fr.func_id = func, r.fr.entry_ktime = entered, r.fr.retval = 42;
	return feed(s, &r);
}

static int start(struct synth *s, uint16_t kind, uint32_t child_pid, uint32_t child_tid)
{
	union rec r;

	head(s, &r, sizeof(r.fk), kind, PID, PID, 1);
	r.fk.child_pid = child_pid, r.fk.child_tid = child_tid;
	r.fk.clone_flags = kind == BC_REC_PROC_FORK ? 0x1200011 : 0x3d0f00;
	strcpy(r.fk.comm, "synth");
	return feed(s, &r);
}

static int finish(struct synth *s, uint16_t kind, uint32_t pid, uint32_t tid)
{
	union rec r;

	head(s, &r, sizeof(r.et), kind, pid, tid, 0);
	strcpy(r.et.comm, "synth");
	r.et.start_time = T0;
	return feed(s, &r);
}

/* The whole stream: a helper() call, a thread and a child, CALLS calls on each thread. */
static int stream(struct synth *s, long calls)
{
	int rc = call(s, PID, PID, FN_HELPER, 0, false);

	if (!rc)
		rc = start(s, BC_REC_THREAD_START, PID, PID + 1);
	if (!rc)
		rc = start(s, BC_REC_PROC_FORK, CHILD, CHILD);
	for (long i = 0; i < calls && !rc; i++) {
		rc = call(s, PID, PID, FN_WORK, 1, true);
		if (!rc)
			rc = call(s, PID, PID + 1, FN_WORK, 0, i % 2 == 0);
		if (!rc)
			rc = call(s, CHILD, CHILD, FN_WORK, 0, true);
	}
	if (!rc)
		rc = finish(s, BC_REC_PROC_EXIT, CHILD, CHILD);
	if (!rc)
		rc = finish(s, BC_REC_THREAD_EXIT, PID, PID + 1);
	if (!rc)
		rc = finish(s, BC_REC_PROC_EXIT, PID, PID);
	return rc;
}

static int write_exp(struct synth *s, const char *name, long calls)
{
	static char *argv[] = {"/usr/bin/synth", "--calls", NULL};
	char path[4096], err[512];
	struct bc_format_args a = {.exp_path = path};
	struct bc_session sess = {
		.argv = argv,
		.root_pid = PID,
		.start_ktime = T0,
		.wall_offset_ns = 1700000000 * (int64_t)NS - (int64_t)T0,
		.options = "record -u work --syscalls -- /usr/bin/synth --calls",
		.cwd = "/tmp",
		.libbpf = "synthetic",
		.funcs = &s->funcs,
		.ringbuf_bytes = 1 << 22,
		.syscalls = true,
		.state = &s->state,
	};
	struct bc_mapping m = {.pid = PID,
			       .ktime = T0 - 1000,
			       .start = 0x555555554000,
			       .end = 0x555555558000,
			       .offset = 0,
			       .prot = PROT_READ | PROT_EXEC,
			       .path = "/usr/bin/synth"};
	struct bc_session_end end = {.exit_status = 0};
	int rc, dirfd = -1;

	s->now = T0;
	if ((rc = bc_exp_create(NULL, name, path, sizeof(path), &dirfd, err, sizeof(err))) < 0 ||
	    !(s->sink = bc_format_find("er")->new_sink(&a, err, sizeof(err)))) {
		fprintf(stderr, "synth-exp: %s\n", err);
		return rc < 0 ? rc : -EIO;
	}
	rc = bc_state_begin(&s->state, &sess);
	if (!rc)
		rc = bc_sink_begin(s->sink, &sess);
	if (!rc)
		rc = bc_state_mapping(&s->state, &m);
	if (!rc)
		rc = bc_sink_mapping(s->sink, &m);
	if (!rc)
		rc = stream(s, calls);
	end.end_ktime = s->now + 1000;
	end.events = s->seq[0] + s->seq[1] + s->seq[2];
	if (!rc)
		rc = bc_sink_end(s->sink, &end);
	bc_sink_destroy(s->sink);
	close(dirfd);
	if (rc)
		fprintf(stderr, "synth-exp: writing %s: %s\n", path, strerror(-rc));
	else
		printf("%s\n", path);
	return rc;
}

int main(int argc, char **argv)
{
	struct synth s = {0};
	char *end = NULL;
	long calls = 100;
	int rc;

	if (argc == 3) {
		errno = 0;
		calls = strtol(argv[2], &end, 10);
	}
	if (argc < 2 || argc > 3 || (argc == 3 && (errno || calls < 0 || *end || !*argv[2]))) {
		fprintf(stderr, "usage: synth-exp NAME.er [CALLS]: CALLS a count of calls per "
				"thread (default 100)\n");
		return 2;
	}
	bc_functab_init(&s.funcs);
	bc_state_init(&s.state);
	if (bc_functab_add(&s.funcs, "work", "/usr/bin/synth", 0x1170, 32, 0x1170) ||
	    bc_functab_add(&s.funcs, "helper", "/usr/bin/synth", 0x11a0, 16, 0x11a0)) {
		fprintf(stderr, "synth-exp: out of memory\n");
		return 1;
	}
	rc = write_exp(&s, argv[1], calls);
	bc_state_free(&s.state);
	bc_functab_free(&s.funcs);
	return rc ? 1 : 0;
}
