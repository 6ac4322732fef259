/* SPDX-License-Identifier: MIT */
/*
 * Fixture of the experiment tests: hand-built records of every kind, the
 * standard experiment written from them, a sink that keeps what the reader
 * replays, and file helpers to damage experiments on disk. setup() makes a
 * temporary directory that teardown() removes with all it holds.
 */
#ifndef BC_TEST_ER_FIXTURE_H
#define BC_TEST_ER_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/experiment.h"
#include "bpfcollect/reccodec.h"

#define NS	   1000000000ULL
#define T0	   (1000 * NS + 123456789) /* session start, CLOCK_MONOTONIC ns */
#define TID_MAIN   4242u
#define TID_WORKER 4243u
#define NR_WRITE   1

union any_rec {
	struct bc_rec_head h;
	struct bc_rec_func_entry fe;
	struct bc_rec_func_return fr;
	struct bc_rec_sys_enter se;
	struct bc_rec_sys_exit sx;
	struct bc_rec_fork fk;
	struct bc_rec_exec ex;
	struct bc_rec_exit et;
	struct bc_rec_lost lo;
	struct {
		struct bc_rec_proc_name n;
		struct bc_rec_exec_args a;
	} pn; /* the agent's, with an argv */
};

struct fixture {
	char dir[64];
	char exp[4096];
	struct bc_functab funcs;
	union any_rec recs[16];
	size_t nrecs;
};

/* ------------------------------------------------------------ a sink that keeps everything */

struct kept {
	char what;	     /* 'M' mapping, 'E' event */
	union any_rec rec;   /* E: the record, copied (the reader's memory goes away) */
	const char *func;    /* E: resolved function name (info->funcs lives on) */
	const char *sys;     /* E: resolved syscall name */
	struct bc_mapping m; /* M */
	char path[256];
};

struct keep_sink {
	struct bc_sink sink;
	struct bc_session sess; /* pointers into the bc_er_info, valid until it is freed */
	struct bc_session_end end;
	int begins, ends;
	struct kept v[64];
	size_t n;
	int fail_at; /* event number (from 1) that fails with -EIO; 0 never */
};

static inline int keep_begin(struct bc_sink *s, const struct bc_session *sess)
{
	((struct keep_sink *)s)->sess = *sess;
	((struct keep_sink *)s)->begins++;
	return 0;
}

static inline int keep_event(struct bc_sink *s, const struct bc_event *ev)
{
	struct keep_sink *k = (struct keep_sink *)s;
	struct kept *e = &k->v[k->n];

	if (k->fail_at && (int)k->n + 1 == k->fail_at)
		return -EIO;
	assert_true(k->n < 64);
	assert_true(ev->rec->size <= sizeof(e->rec));
	assert_int_equal((uintptr_t)ev->rec & 7, 0);
	e->what = 'E';
	memcpy(&e->rec, ev->rec, ev->rec->size);
	e->func = ev->func ? ev->func->name : NULL;
	e->sys = ev->sys_name;
	k->n++;
	return 0;
}

static inline int keep_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	struct keep_sink *k = (struct keep_sink *)s;
	struct kept *e = &k->v[k->n++];

	assert_true(k->n <= 64);
	e->what = 'M';
	e->m = *m;
	snprintf(e->path, sizeof(e->path), "%s", m->path);
	e->m.path = e->path;
	return 0;
}

static inline int keep_end(struct bc_sink *s, const struct bc_session_end *end)
{
	((struct keep_sink *)s)->end = *end;
	((struct keep_sink *)s)->ends++;
	return 0;
}

static const struct bc_sink_ops keep_ops = {
	.name = "keep",
	.begin = keep_begin,
	.event = keep_event,
	.mapping = keep_mapping,
	.end = keep_end,
};

static inline struct keep_sink *keep_new(void)
{
	struct keep_sink *k = calloc(1, sizeof(*k));

	assert_non_null(k);
	k->sink.ops = &keep_ops;
	return k;
}

/* ------------------------------------------------------------ fixtures and helpers */

static inline int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	strcpy(fx->dir, "/tmp/bc-test-exp-XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	bc_functab_init(&fx->funcs);
	if (bc_functab_add(&fx->funcs, "main", "/usr/bin/demo", 0x1130, 64, 0x1130) ||
	    bc_functab_add(&fx->funcs, "worker", "/usr/bin/demo", 0x1170, 32, 0x1170) ||
	    bc_functab_add(&fx->funcs, "odd\tname\n", "/usr/lib/lib odd.so", 0x2000, 8, 0x1000))
		return -1;
	*state = fx;
	return 0;
}

static inline int teardown(void **state)
{
	struct fixture *fx = *state;

	nftw(fx->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	bc_functab_free(&fx->funcs);
	free(fx);
	return 0;
}

static inline union any_rec *add(struct fixture *fx, uint16_t size, uint16_t kind, uint32_t tid,
				 uint64_t seq, uint64_t ktime)
{
	union any_rec *r = &fx->recs[fx->nrecs++];

	memset(r, 0, sizeof(*r));
	r->h = (struct bc_rec_head){.size = size,
				    .kind = kind,
				    .depth = (uint32_t)seq % 3,
				    .pid = TID_MAIN,
				    .tid = tid,
				    .seq = seq,
				    .ktime = ktime};
	return r;
}

/*
 * One record of every kind, two threads, in time order. Two ties: the same
 * ktime on two threads (the lower tid first) and on one thread across two
 * files (its seq decides).
 */
static inline void make_records(struct fixture *fx)
{
	union any_rec *r;

	fx->nrecs = 0;
	r = add(fx, sizeof(r->fe), BC_REC_FUNC_ENTRY, TID_MAIN, 1, T0 + 1000);
	r->fe.func_id = 0, r->fe.cpu = 1, r->fe.sp = 0x7ffe0000;
	r = add(fx, sizeof(r->se), BC_REC_SYS_ENTER, TID_MAIN, 2, T0 + 1100);
	r->se.nr = NR_WRITE, r->se.cpu = 1;
	for (int i = 0; i < 6; i++)
		r->se.args[i] = 0x1111 * (i + 1);
	r = add(fx, sizeof(r->fe), BC_REC_FUNC_ENTRY, TID_WORKER, 1, T0 + 1100);
	r->fe.func_id = 1, r->fe.cpu = 0, r->fe.sp = 0x7ffd0000;
	r = add(fx, sizeof(r->sx), BC_REC_SYS_EXIT, TID_MAIN, 3, T0 + 1200);
	r->sx.nr = NR_WRITE, r->sx.ret = -11, r->sx.enter_ktime = T0 + 1100;
	r = add(fx, sizeof(r->fk), BC_REC_PROC_FORK, TID_MAIN, 4, T0 + 1200);
	r->fk.child_pid = 4250, r->fk.child_tid = 4250, r->fk.clone_flags = 0x1200011;
	strcpy(r->fk.comm, "demo");
	r = add(fx, sizeof(r->fr), BC_REC_FUNC_RETURN, TID_WORKER, 2, T0 + 1300);
	r->fr.func_id = 1, r->fr.entry_ktime = T0 + 1100, r->fr.retval = 0xfffffffffffffff2ULL;
	r = add(fx, sizeof(r->fk), BC_REC_THREAD_START, TID_MAIN, 5, T0 + 1400);
	r->fk.child_pid = TID_MAIN, r->fk.child_tid = 4244, r->fk.clone_flags = 0x3d0f00;
	strcpy(r->fk.comm, "worker-2");
	r = add(fx, sizeof(r->ex), BC_REC_PROC_EXEC, TID_MAIN, 6, T0 + 1500);
	r->ex.old_tid = TID_MAIN, r->ex.filename_len = 9;
	strcpy(r->ex.comm, "echo");
	strcpy(r->ex.filename, "/bin/echo");
	r = add(fx, sizeof(r->et), BC_REC_THREAD_EXIT, TID_WORKER, 3, T0 + 1600);
	r->et.exit_code = 0;
	strcpy(r->et.comm, "worker");
	r = add(fx, sizeof(r->lo), BC_REC_LOST, TID_MAIN, 7, T0 + 1700);
	r->lo.loss_class = BC_LOSS_SYSCALL, r->lo.cpu = 1, r->lo.count = 3;
	r = add(fx, sizeof(r->fr), BC_REC_FUNC_RETURN, TID_MAIN, 8, T0 + 1800);
	r->fr.func_id = 2, r->fr.entry_ktime = T0 + 1000, r->fr.retval = 42;
	r = add(fx, sizeof(r->et), BC_REC_PROC_EXIT, TID_MAIN, 9, T0 + 1900);
	r->et.exit_code = 256;
	strcpy(r->et.comm, "echo");
}

static char *argv_odd[] = {"/usr/bin/demo", "two words", "it's",     "100%", "<&\">",
			   "a\nb",	    "",		 "mix'\"\\", NULL};

/* A machine the test makes up: what the writer says of it comes from the session alone. */
static const struct bc_host test_host = {.hostname = "testhost",
					 .arch = "x86_64",
					 .release = "6.18.0-test",
					 .pagesz = 4096,
					 .npages = 1024,
					 .ncpus = 2,
					 .cpu_mhz = {2400, 2401}};

static inline struct bc_session session(struct fixture *fx)
{
	return (struct bc_session){
		.host = &test_host,
		.ppid = 4100,
		.pgrp = 4101,
		.sid = 4102,
		.libbpf = "v1.1-test",
		.argv = argv_odd,
		.root_pid = (uint32_t)getpid(),
		.start_ktime = T0,
		.wall_offset_ns = 1700000000 * (int64_t)NS - (int64_t)T0,
		.options = "record -u 'ma*' --syscalls -- /usr/bin/demo",
		.cwd = "/tmp/wd 100%",
		.funcs = &fx->funcs,
		.ringbuf_bytes = 1 << 22,
		.syscalls = true,
	};
}

static inline void feed(struct fixture *fx, struct bc_sink *s, const union any_rec *r)
{
	struct bc_event ev;

	assert_int_equal(bc_decode(r, r->h.size, &fx->funcs, &ev), r->h.size);
	assert_int_equal(bc_sink_event(s, &ev), 0);
}

static inline void map(struct bc_sink *s, uint64_t ktime, uint64_t start, uint32_t prot,
		       const char *path)
{
	struct bc_mapping m = {.pid = (uint32_t)getpid(),
			       .ktime = ktime,
			       .start = start,
			       .end = start + 0x3000,
			       .offset = 0x1000,
			       .prot = prot,
			       .path = path};

	assert_int_equal(bc_sink_mapping(s, &m), 0);
}

/* Writes the standard experiment; closed unless live. Records are fed file by file. */
static inline void write_exp(struct fixture *fx, bool live, struct bc_sink **keep_open)
{
	char err[256];
	struct bc_session sess = session(fx);
	struct bc_session_end end = {.end_ktime = T0 + 2000,
				     .exit_status = 0,
				     .events = 12,
				     .bad_records = 2,
				     .lost = {1, 3, 0}};
	struct bc_sink *s;

	assert_int_equal(
		bc_exp_create(fx->dir, NULL, fx->exp, sizeof(fx->exp), NULL, err, sizeof(err)), 0);
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	map(s, T0 - 5000, 0x555555554000, PROT_READ | PROT_EXEC, "/usr/bin/demo");
	map(s, T0 + 10, 0x555555558000, PROT_READ | PROT_WRITE, "/usr/bin/demo");
	map(s, T0 + 20, 0x7fff00000000, PROT_READ | PROT_EXEC, "[vdso]");
	map(s, T0 + 30, 0x7f0000000000, PROT_READ | PROT_EXEC, "/usr/lib/gone.so (deleted)");
	map(s, T0 + 1450, 0x7f1000000000, PROT_READ | PROT_EXEC, "/usr/lib/lib odd.so");
	make_records(fx);
	/* a ring buffer interleaves kinds; each file still gets its records in order */
	for (int pass = BC_ER_NFILES - 1; pass >= 0; pass--)
		for (size_t i = 0; i < fx->nrecs; i++)
			if (bc_er_file_for_kind(fx->recs[i].h.kind) == pass)
				feed(fx, s, &fx->recs[i]);
	if (live) {
		assert_int_equal(bc_er_sink_flush(s), 0);
		*keep_open = s;
		return;
	}
	assert_int_equal(bc_sink_end(s, &end), 0);
	bc_sink_destroy(s);
}

static inline char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4200];
	struct stat st;
	char *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = calloc(1, st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, st.st_size), st.st_size);
	close(fd);
	if (len)
		*len = st.st_size;
	return buf;
}

static inline void put_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static inline void put_str(const char *dir, const char *name, const char *text)
{
	put_file(dir, name, text, strlen(text));
}

/*
 * Makes the experiment at dir one of format 3: its compact files decoded
 * to the records they hold, one after another, and log.xml saying format=3.
 */
static inline void to_format3(const char *dir)
{
	static const char *const names[] = {"functrace", "syscalls"};
	struct bc_rc_state *rc = malloc(sizeof(*rc));
	char *log, *at;
	size_t len;

	assert_non_null(rc);
	for (size_t i = 0; i < 2; i++) {
		char *enc = slurp(dir, names[i], &len);
		size_t off = 0, used = 0, cap = 64 * len + 64;
		uint8_t *raw = malloc(cap);

		assert_non_null(raw);
		while (off < len) {
			struct bc_rc_block_head head;

			memcpy(&head, enc + off, sizeof(head));
			assert_int_equal(head.magic, BC_RC_MAGIC);
			assert_true(bc_rc_decode(rc, (uint8_t *)enc + off + sizeof(head), head.len,
						 raw, cap, &used) >= 0);
			off += sizeof(head) + head.len;
		}
		put_file(dir, names[i], raw, used);
		free(raw);
		free(enc);
	}
	free(rc);
	log = slurp(dir, "log.xml", &len);
	at = strstr(log, "format=4");
	assert_non_null(at);
	at[7] = '3';
	put_file(dir, "log.xml", log, len);
	free(log);
}

static inline void append_file(const char *dir, const char *name, const char *text)
{
	size_t len;
	char *old = slurp(dir, name, &len), *all;

	assert_true(asprintf(&all, "%s%s", old, text) > 0);
	put_file(dir, name, all, strlen(all));
	free(old);
	free(all);
}

static inline int read_exp(const char *exp, struct keep_sink *k, struct bc_er_info *info, char *err,
			   size_t errlen)
{
	return bc_er_read(exp, k ? &k->sink : NULL, info, err, errlen);
}

/* Order the reader must produce: ktime, then tid, then seq. */
static inline int by_time(const void *a, const void *b)
{
	const struct bc_rec_head *x = a, *y = b;

	if (x->ktime != y->ktime)
		return x->ktime < y->ktime ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static inline void check_events(struct fixture *fx, struct keep_sink *k, size_t nrecs)
{
	union any_rec sorted[16];
	size_t e = 0;

	memcpy(sorted, fx->recs, sizeof(sorted));
	qsort(sorted, nrecs, sizeof(sorted[0]), by_time);
	for (size_t i = 0; i < k->n; i++) {
		if (k->v[i].what != 'E')
			continue;
		assert_true(e < nrecs);
		assert_int_equal(k->v[i].rec.h.size, sorted[e].h.size);
		assert_memory_equal(&k->v[i].rec, &sorted[e], sorted[e].h.size);
		switch (sorted[e].h.kind) {
		case BC_REC_FUNC_ENTRY:
		case BC_REC_FUNC_RETURN:
			assert_string_equal(k->v[i].func,
					    fx->funcs.v[sorted[e].fe.func_id].name[0] == 'o'
						    ? "odd?name?"
						    : fx->funcs.v[sorted[e].fe.func_id].name);
			break;
		case BC_REC_SYS_ENTER:
		case BC_REC_SYS_EXIT:
			assert_string_equal(k->v[i].sys, "write");
			break;
		}
		e++;
	}
	assert_int_equal(e, nrecs);
}

#endif /* BC_TEST_ER_FIXTURE_H */
