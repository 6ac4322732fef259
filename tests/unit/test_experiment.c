// SPDX-License-Identifier: MIT
/*
 * `.er` experiments: naming, the writer sink, the reader, and the XML
 * dialect. Experiments are written from hand-built records of every kind,
 * read back through a sink that keeps what it is given, and compared field
 * by field; then they are damaged (torn, garbage, missing, corrupt, too new)
 * and must still read as far as they are whole, never crash. gprofng itself
 * checks that what we write is an experiment it accepts without warnings.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/experiment.h"
#include "bpfcollect/xml.h"

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

static int keep_begin(struct bc_sink *s, const struct bc_session *sess)
{
	((struct keep_sink *)s)->sess = *sess;
	((struct keep_sink *)s)->begins++;
	return 0;
}

static int keep_event(struct bc_sink *s, const struct bc_event *ev)
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

static int keep_mapping(struct bc_sink *s, const struct bc_mapping *m)
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

static int keep_end(struct bc_sink *s, const struct bc_session_end *end)
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

static struct keep_sink *keep_new(void)
{
	struct keep_sink *k = calloc(1, sizeof(*k));

	assert_non_null(k);
	k->sink.ops = &keep_ops;
	return k;
}

/* ------------------------------------------------------------ fixtures and helpers */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
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

static int teardown(void **state)
{
	struct fixture *fx = *state;

	nftw(fx->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	bc_functab_free(&fx->funcs);
	free(fx);
	return 0;
}

static union any_rec *add(struct fixture *fx, uint16_t size, uint16_t kind, uint32_t tid,
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
static void make_records(struct fixture *fx)
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

static struct bc_session session(struct fixture *fx)
{
	return (struct bc_session){
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

static void feed(struct fixture *fx, struct bc_sink *s, const union any_rec *r)
{
	struct bc_event ev;

	assert_int_equal(bc_decode(r, r->h.size, &fx->funcs, &ev), r->h.size);
	assert_int_equal(bc_sink_event(s, &ev), 0);
}

static void map(struct bc_sink *s, uint64_t ktime, uint64_t start, uint32_t prot, const char *path)
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
static void write_exp(struct fixture *fx, bool live, struct bc_sink **keep_open)
{
	char err[256];
	struct bc_session sess = session(fx);
	struct bc_session_end end = {.end_ktime = T0 + 2000,
				     .exit_status = 0,
				     .events = 12,
				     .bad_records = 2,
				     .lost = {1, 3, 0}};
	struct bc_sink *s;

	assert_int_equal(bc_exp_create(fx->dir, NULL, fx->exp, sizeof(fx->exp), err, sizeof(err)),
			 0);
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

static char *slurp(const char *dir, const char *name, size_t *len)
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

static void put_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void put_str(const char *dir, const char *name, const char *text)
{
	put_file(dir, name, text, strlen(text));
}

static void append_file(const char *dir, const char *name, const char *text)
{
	size_t len;
	char *old = slurp(dir, name, &len), *all;

	assert_true(asprintf(&all, "%s%s", old, text) > 0);
	put_file(dir, name, all, strlen(all));
	free(old);
	free(all);
}

static int read_exp(const char *exp, struct keep_sink *k, struct bc_er_info *info, char *err,
		    size_t errlen)
{
	return bc_er_read(exp, k ? &k->sink : NULL, info, err, errlen);
}

/* Order the reader must produce: ktime, then tid, then seq. */
static int by_time(const void *a, const void *b)
{
	const struct bc_rec_head *x = a, *y = b;

	if (x->ktime != y->ktime)
		return x->ktime < y->ktime ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void check_events(struct fixture *fx, struct keep_sink *k, size_t nrecs)
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

/* ------------------------------------------------------------ naming */

static void test_naming(void **state)
{
	struct fixture *fx = *state;
	char path[4096], want[4400], err[4400], file[4200];
	int cwd = open(".", O_RDONLY | O_DIRECTORY);

	/* default name, in the current directory when dir is NULL */
	assert_true(cwd >= 0);
	assert_int_equal(chdir(fx->dir), 0);
	assert_int_equal(bc_exp_create(NULL, NULL, path, sizeof(path), err, sizeof(err)), 0);
	assert_string_equal(path, "test.1.er");
	assert_int_equal(fchdir(cwd), 0);
	close(cwd);

	/* an existing STEM.N.er moves N up, past every taken name, keeping the width */
	snprintf(want, sizeof(want), "%s/test.3.er", fx->dir);
	assert_int_equal(mkdir(want, 0755), 0);
	assert_int_equal(bc_exp_create(fx->dir, "test.1.er", path, sizeof(path), err, sizeof(err)),
			 0);
	snprintf(want, sizeof(want), "%s/test.2.er", fx->dir);
	assert_string_equal(path, want);
	assert_int_equal(bc_exp_create(fx->dir, NULL, path, sizeof(path), err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s/test.4.er", fx->dir);
	assert_string_equal(path, want);
	assert_int_equal(bc_exp_create(fx->dir, "run.09.er", path, sizeof(path), err, sizeof(err)),
			 0);
	assert_int_equal(bc_exp_create(fx->dir, "run.09.er", path, sizeof(path), err, sizeof(err)),
			 0);
	snprintf(want, sizeof(want), "%s/run.10.er", fx->dir);
	assert_string_equal(path, want);

	/* a name without a number is never renumbered */
	assert_int_equal(bc_exp_create(fx->dir, "mine.er", path, sizeof(path), err, sizeof(err)),
			 0);
	assert_int_equal(bc_exp_create(fx->dir, "mine.er", path, sizeof(path), err, sizeof(err)),
			 -EEXIST);
	assert_non_null(strstr(err, "mine.er already exists; remove it or pick another -o"));
	assert_int_equal(bc_exp_create(fx->dir, "v.1x.er", path, sizeof(path), err, sizeof(err)),
			 0);
	assert_int_equal(bc_exp_create(fx->dir, "v.1x.er", path, sizeof(path), err, sizeof(err)),
			 -EEXIST);

	/* must end in .er */
	assert_int_equal(bc_exp_create(fx->dir, "test.1", path, sizeof(path), err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "must end in .er"));
	assert_int_equal(bc_exp_create(fx->dir, ".er", path, sizeof(path), err, sizeof(err)),
			 -EINVAL);

	/* a directory that cannot hold it: one line naming the path and the reason */
	snprintf(file, sizeof(file), "%s/plainfile", fx->dir);
	put_file(fx->dir, "plainfile", "x", 1);
	assert_int_equal(bc_exp_create(file, NULL, path, sizeof(path), err, sizeof(err)), -ENOTDIR);
	snprintf(want, sizeof(want), "cannot create experiment %s/test.1.er: Not a directory",
		 file);
	assert_string_equal(err, want);
	assert_int_equal(
		bc_exp_create("/nonexistent/dir", NULL, path, sizeof(path), err, sizeof(err)),
		-ENOENT);
	assert_string_equal(
		err,
		"cannot create experiment /nonexistent/dir/test.1.er: No such file or directory");
	if (geteuid() != 0) { /* root ignores permission bits */
		assert_int_equal(chmod(fx->dir, 0555), 0);
		assert_int_equal(
			bc_exp_create(fx->dir, "x.1.er", path, sizeof(path), err, sizeof(err)),
			-EACCES);
		assert_int_equal(chmod(fx->dir, 0755), 0);
	}
	assert_int_equal(bc_exp_create(fx->dir, NULL, path, 8, err, sizeof(err)), -ENAMETOOLONG);
}

/* ------------------------------------------------------------ round trip */

static void test_roundtrip(void **state)
{
	struct fixture *fx = *state;
	struct keep_sink *k = keep_new();
	struct bc_er_info info;
	char err[512];
	size_t e = 0;

	write_exp(fx, false, NULL);
	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
	assert_null(info.notes);
	assert_int_equal(k->begins, 1);
	assert_int_equal(k->ends, 1);

	/* the session, as begin() saw it */
	for (int i = 0; argv_odd[i]; i++)
		assert_string_equal(k->sess.argv[i], argv_odd[i]);
	assert_null(k->sess.argv[8]);
	assert_int_equal(k->sess.root_pid, getpid());
	assert_int_equal(k->sess.start_ktime, T0);
	assert_int_equal(k->sess.wall_offset_ns, 1700000000 * (int64_t)NS - (int64_t)T0);
	assert_string_equal(k->sess.options, "record -u 'ma*' --syscalls -- /usr/bin/demo");
	assert_string_equal(k->sess.cwd, "/tmp/wd 100%");
	assert_int_equal(k->sess.ringbuf_bytes, 1 << 22);
	assert_true(k->sess.syscalls);
	assert_int_equal(k->sess.funcs->n, 3);
	for (size_t i = 0; i < 3; i++) {
		const struct bc_func *a = &k->sess.funcs->v[i], *b = &fx->funcs.v[i];

		assert_int_equal(a->id, i);
		assert_string_equal(a->name, i == 2 ? "odd?name?" : b->name);
		assert_string_equal(a->object, b->object);
		assert_int_equal(a->addr, b->addr);
		assert_int_equal(a->size, b->size);
		assert_int_equal(a->offset, b->offset);
	}

	/* r-x file mappings only, slotted in by time; before the start means at the start */
	assert_int_equal(info.mappings, 2);
	assert_int_equal(k->v[0].what, 'M');
	assert_int_equal(k->v[0].m.ktime, T0);
	assert_int_equal(k->v[0].m.start, 0x555555554000);
	assert_int_equal(k->v[0].m.end, 0x555555557000);
	assert_int_equal(k->v[0].m.offset, 0x1000);
	assert_int_equal(k->v[0].m.prot, PROT_READ | PROT_EXEC);
	assert_int_equal(k->v[0].m.pid, getpid());
	assert_string_equal(k->v[0].path, "/usr/bin/demo");
	for (size_t i = 0; i < k->n; i++) {
		if (k->v[i].what == 'E') {
			e++;
			continue;
		}
		if (i == 0)
			continue;
		assert_int_equal(e, 7); /* after the thread start at +1400, before exec at +1500 */
		assert_int_equal(k->v[i].m.ktime, T0 + 1450);
		assert_string_equal(k->v[i].path, "/usr/lib/lib odd.so");
	}
	check_events(fx, k, fx->nrecs);

	/* the end, and what log.xml says */
	assert_int_equal(k->end.end_ktime, T0 + 2000);
	assert_int_equal(k->end.exit_status, 0);
	assert_int_equal(k->end.events, 12);
	assert_int_equal(k->end.bad_records, 2);
	assert_int_equal(k->end.lost[BC_LOSS_FUNC], 1);
	assert_int_equal(k->end.lost[BC_LOSS_SYSCALL], 3);
	assert_int_equal(k->end.lost[BC_LOSS_PROC], 0);
	assert_true(info.closed);
	assert_int_equal(info.exit_tstamp, 2000);
	assert_int_equal(info.version_major, 12);
	assert_int_equal(info.version_minor, 4);
	assert_int_equal(info.format, BC_ER_FORMAT);
	assert_string_equal(info.collector, "bpfcollect " BPFCOLLECT_VERSION);
	assert_string_equal(info.cmdline, "/usr/bin/demo two words it's 100% <&\"> a\nb  mix'\"\\");
	assert_int_equal(info.ppid, getppid());
	assert_int_equal(info.wall_time, 1700000000);
	assert_int_equal(info.events_read, 12);
	assert_int_equal(info.records_written, 12);
	assert_int_equal(info.lost_records[BC_LOSS_SYSCALL], 3);
	assert_non_null(info.kernel);
	assert_non_null(info.libbpf);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].records, 4);
	assert_int_equal(info.files[BC_ER_SYSCALLS].records, 2);
	assert_int_equal(info.files[BC_ER_PROCTRACE].records, 6);
	bc_er_info_free(&info);
	free(k);

	/* replaying with no sink only fills info */
	assert_int_equal(read_exp(fx->exp, NULL, &info, err, sizeof(err)), 0);
	assert_int_equal(info.events_read, 12);
	bc_er_info_free(&info);
}

/* A thread whose clock goes backwards in one file keeps its file order. */
static void test_thread_file_order(void **state)
{
	struct fixture *fx = *state;
	struct bc_session sess = session(fx);
	struct bc_session_end end = {.exit_status = -1};
	struct keep_sink *k = keep_new();
	struct bc_er_info info;
	char err[512];
	struct bc_sink *s;
	union any_rec *r;

	assert_int_equal(bc_exp_create(fx->dir, NULL, fx->exp, sizeof(fx->exp), err, sizeof(err)),
			 0);
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	r = add(fx, sizeof(r->fe), BC_REC_FUNC_ENTRY, 7, 1, T0 + 500);
	r = add(fx, sizeof(r->fe), BC_REC_FUNC_ENTRY, 7, 2, T0 + 300);
	r = add(fx, sizeof(r->fe), BC_REC_FUNC_ENTRY, 8, 1, T0 + 400);
	for (size_t i = 0; i < fx->nrecs; i++)
		feed(fx, s, &fx->recs[i]);
	assert_int_equal(bc_sink_end(s, &end), 0);
	bc_sink_destroy(s);
	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
	assert_int_equal(k->n, 3);
	/* thread 7: seq 1 then 2, never reordered by time; thread 8 fits where it can */
	assert_int_equal(k->v[0].rec.h.tid, 8);
	assert_int_equal(k->v[1].rec.h.tid, 7);
	assert_int_equal(k->v[1].rec.h.seq, 1);
	assert_int_equal(k->v[2].rec.h.tid, 7);
	assert_int_equal(k->v[2].rec.h.seq, 2);
	/* no end_ktime given: the end is the last thing recorded */
	assert_int_equal(info.exit_tstamp, 500);
	assert_int_equal(k->end.exit_status, -1);
	bc_er_info_free(&info);
	free(k);
}

static void test_live(void **state)
{
	struct fixture *fx = *state;
	struct keep_sink *k = keep_new();
	struct bc_er_info info;
	struct bc_sink *writer;
	char err[512];

	write_exp(fx, true, &writer);
	/* a torn element at the end of log.xml is what a live reader may meet */
	append_file(fx->exp, "log.xml", "<event kind=\"sample\" tstam");
	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
	assert_false(info.closed);
	assert_false(info.have_counts);
	assert_non_null(strstr(info.notes, "not closed"));
	assert_non_null(strstr(info.notes, "still being written"));
	check_events(fx, k, fx->nrecs);
	assert_int_equal(k->ends, 1);
	assert_int_equal(k->end.end_ktime, T0 + 1900);
	assert_int_equal(k->end.events, 12);
	assert_int_equal(k->end.exit_status, -1);
	assert_int_equal(k->end.lost[BC_LOSS_SYSCALL], 3); /* from the LOST record */
	assert_int_equal(k->sess.root_pid, getpid());
	bc_er_info_free(&info);
	free(k);
	bc_sink_destroy(writer);
}

static void test_truncated(void **state)
{
	struct fixture *fx = *state;
	struct keep_sink *k = keep_new();
	struct bc_er_info info;
	char path[4200], err[512];
	size_t len;
	char *data;

	write_exp(fx, false, NULL);
	/* cut functrace inside its last record (a 56-byte return) */
	data = slurp(fx->exp, "functrace", &len);
	assert_int_equal(len, 48 + 48 + 56 + 56);
	snprintf(path, sizeof(path), "%s/functrace", fx->exp);
	assert_int_equal(truncate(path, len - 20), 0);
	free(data);
	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].records, 3);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].truncated_bytes, 36);
	assert_false(info.files[BC_ER_FUNCTRACE].stopped);
	assert_int_equal(info.truncated_bytes, 36);
	assert_int_equal(info.events_read, 11);
	assert_non_null(strstr(info.notes, "functrace: last record torn at offset 152; 36 bytes"));
	assert_non_null(strstr(info.notes, "the writer stored 12 records, the data files hold 11"));
	/* the survivors are the first 11 in time order (the torn one was the 11th) */
	fx->recs[10] = fx->recs[11];
	check_events(fx, k, 11);
	bc_er_info_free(&info);
	free(k);
}

/* Garbage of every kind in the data files: read what is sound, report the rest. */
static void test_garbage(void **state)
{
	struct fixture *fx = *state;
	struct keep_sink *k = keep_new();
	struct bc_er_info info;
	union any_rec good[2], junk[8];
	char err[512];
	unsigned char noise[1000];

	write_exp(fx, false, NULL);
	memset(good, 0, sizeof(good));
	memset(junk, 0, sizeof(junk));
	good[0].fe = (struct bc_rec_func_entry){
		.h = {.size = 48, .kind = BC_REC_FUNC_ENTRY, .tid = 1, .seq = 1, .ktime = T0 + 5}};
	good[1] = good[0];
	good[1].h.seq = 2;
	/* unknown kind, a syscall record in functrace, too short for its kind: skipped */
	junk[0] = good[0];
	junk[0].h.kind = 0x1ff;
	junk[1].sx = (struct bc_rec_sys_exit){
		.h = {.size = 56, .kind = BC_REC_SYS_EXIT, .tid = 1, .seq = 3, .ktime = T0 + 6}};
	junk[2] = good[0];
	junk[2].h.size = 40; /* shorter than a FUNC_ENTRY */
	{
		unsigned char buf[48 * 2 + 48 + 56 + 40 + 48];
		size_t o = 0;

		memcpy(buf + o, &good[0], 48), o += 48;
		memcpy(buf + o, &junk[0], 48), o += 48;
		memcpy(buf + o, &junk[1], 56), o += 56;
		memcpy(buf + o, &junk[2], 40), o += 40;
		memcpy(buf + o, &good[1], 48), o += 48;
		put_file(fx->exp, "functrace", buf, o);
	}
	/* a zero size stops syscalls after one good record */
	{
		union any_rec buf[3];

		memset(buf, 0, sizeof(buf));
		buf[0] = fx->recs[1]; /* the SYS_ENTER */
		put_file(fx->exp, "syscalls", buf, 88 + 64);
	}
	/* proctrace: an oversized size (past the end), after random bytes in front */
	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (unsigned char)(i * 131 + 7);
	noise[0] = 16, noise[1] = 0; /* a size of 16: below the head */
	put_file(fx->exp, "proctrace", noise, sizeof(noise));

	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].records, 2);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].bad_records, 3);
	assert_int_equal(info.files[BC_ER_SYSCALLS].records, 1);
	assert_true(info.files[BC_ER_SYSCALLS].stopped);
	assert_int_equal(info.files[BC_ER_SYSCALLS].truncated_bytes, 64);
	assert_int_equal(info.files[BC_ER_PROCTRACE].records, 0);
	assert_true(info.files[BC_ER_PROCTRACE].stopped);
	assert_int_equal(info.events_read, 3);
	assert_int_equal(k->end.bad_records, 2 + 3);
	assert_non_null(strstr(info.notes, "syscalls: bad record size 0 at offset 88"));
	assert_non_null(strstr(info.notes, "functrace: 3 invalid records skipped"));
	bc_er_info_free(&info);

	/* an oversized record at the very start, and a file of 3 bytes */
	good[0].h.size = 0x7ff8;
	put_file(fx->exp, "functrace", &good[0], 48);
	put_file(fx->exp, "syscalls", "abc", 3);
	assert_int_equal(read_exp(fx->exp, NULL, &info, err, sizeof(err)), 0);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].truncated_bytes, 48);
	assert_int_equal(info.files[BC_ER_SYSCALLS].truncated_bytes, 3);
	assert_int_equal(info.events_read, 0);
	bc_er_info_free(&info);

	/* a sink error stops the replay and is reported as the sink's */
	write_exp(fx, false, NULL);
	k->n = 0;
	k->fail_at = 3;
	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "keep sink: Input/output error"));
	bc_er_info_free(&info);
	free(k);
}

static void expect_error(const char *exp, int want, const char *msg)
{
	struct bc_er_info info;
	char err[512];

	memset(&info, 0, sizeof(info));
	assert_int_equal(bc_er_read(exp, NULL, &info, err, sizeof(err)), want);
	if (!strstr(err, msg))
		fail_msg("error '%s' does not contain '%s'", err, msg);
	bc_er_info_free(&info);
}

static void test_bad_experiments(void **state)
{
	struct fixture *fx = *state;
	char path[4200], msg[4300];
	size_t len;
	char *log;

	expect_error(fx->dir, -ENOENT,
		     "not an experiment (no log.xml); give the path of a .er directory");
	snprintf(path, sizeof(path), "%s/nothing.er", fx->dir);
	expect_error(path, -ENOENT, "No such file or directory");
	put_file(fx->dir, "f.er", "x", 1);
	snprintf(path, sizeof(path), "%s/f.er", fx->dir);
	expect_error(path, -ENOTDIR, "not an experiment (not a directory)");

	write_exp(fx, false, NULL);
	log = slurp(fx->exp, "log.xml", &len);
	/* an unquoted attribute on line 3 */
	put_str(fx->exp, "log.xml", "<a/>\n<b/>\n<event kind=run/>\n");
	snprintf(msg, sizeof(msg), "%s/log.xml:3: attribute kind of <event>: value must be quoted",
		 fx->exp);
	expect_error(fx->exp, -EINVAL, msg);
	put_str(fx->exp, "log.xml", "<system>\n<cpu/>\n</sys>\n");
	expect_error(fx->exp, -EINVAL, "log.xml:3: </sys> does not close <system>");
	put_str(fx->exp, "log.xml", "<event kind=\"run\" tstamp=\"1.x\"/>\n");
	expect_error(fx->exp, -EINVAL, "log.xml:1: bad run tstamp");
	put_str(fx->exp, "log.xml", "<experiment version=\"13.0\">\n</experiment>\n");
	expect_error(fx->exp, -EPROTONOSUPPORT, "experiment version 13.0 is newer than");
	put_str(fx->exp, "log.xml", "<experiment version=\"11.1\"></experiment>\n");
	expect_error(fx->exp, -EPROTONOSUPPORT, "experiment version 11.1 is too old");
	put_file(fx->exp, "log.xml", log, len);
	append_file(fx->exp, "log.xml",
		    "<event kind=\"comment\" id=\"400\">bpfcollect: format=2</event>\n");
	expect_error(fx->exp, -EPROTONOSUPPORT,
		     "written by a newer bpfcollect (format 2; this one reads format 1)");
	put_file(fx->exp, "log.xml", log, len);

	/* the function table is untrusted too */
	put_str(fx->exp, "functions", "# x\n0\t/a\t0x1\t0x1\t1\tf\n1\t/a\tzz\t0x1\t1\tg\n");
	expect_error(fx->exp, -EINVAL, "functions:3: expected id, object, offset");
	put_str(fx->exp, "functions", "5\t/a\t0x1\t0x1\t1\tf\n");
	expect_error(fx->exp, -EINVAL, "functions:1: function id 5 out of order");
	put_str(fx->exp, "map.xml", "<event kind=\"map\" object=\"segment\" tstamp=\"0.1\"/>\n");
	put_str(fx->exp, "functions", "");
	expect_error(fx->exp, -EINVAL, "map.xml:1: bad segment event");
	free(log);
}

/* The writer never leaves a torn record, even when the disk fills mid-write. */
static void test_disk_full(void **state)
{
	struct fixture *fx = *state;
	struct bc_session sess = session(fx);
	struct bc_session_end end = {.exit_status = 0};
	struct rlimit old, lim;
	struct bc_er_info info;
	char err[512];
	struct bc_sink *s;
	union any_rec r;
	struct stat st;
	char path[4200];
	int rc = 0, i;

	assert_int_equal(bc_exp_create(fx->dir, NULL, fx->exp, sizeof(fx->exp), err, sizeof(err)),
			 0);
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	memset(&r, 0, sizeof(r));
	r.fe = (struct bc_rec_func_entry){.h = {.size = 48, .kind = BC_REC_FUNC_ENTRY, .tid = 1}};

	/* RLIMIT_FSIZE makes write() stop part-way, like a full disk (EFBIG, not ENOSPC) */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 100000;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (i = 0; i < 5000 && !rc; i++) {
		struct bc_event ev;

		r.h.seq = i + 1;
		r.h.ktime = T0 + i;
		assert_int_equal(bc_decode(&r, 48, &fx->funcs, &ev), 48);
		rc = bc_sink_event(s, &ev);
	}
	assert_int_equal(rc, -EFBIG);
	assert_int_equal(bc_sink_event(s, &(struct bc_event){.rec = &r.h}), -EFBIG); /* sticky */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	snprintf(path, sizeof(path), "%s/functrace", fx->exp);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size % 48, 0);
	assert_true(st.st_size > 0 && st.st_size <= 100000);
	assert_int_equal(bc_sink_end(s, &end), -EFBIG);
	bc_sink_destroy(s);

	assert_int_equal(read_exp(fx->exp, NULL, &info, err, sizeof(err)), 0);
	assert_int_equal(info.events_read, st.st_size / 48);
	assert_int_equal(info.truncated_bytes, 0);
	assert_true(info.closed);
	bc_er_info_free(&info);
}

static void test_writer_rejects(void **state)
{
	struct fixture *fx = *state;
	struct bc_session sess = session(fx);
	union any_rec r;
	char err[512];
	struct bc_sink *s;

	assert_null(bc_er_sink_new("/nonexistent.er", err, sizeof(err)));
	assert_non_null(strstr(err, "cannot open experiment /nonexistent.er"));
	assert_int_equal(bc_exp_create(fx->dir, NULL, fx->exp, sizeof(fx->exp), err, sizeof(err)),
			 0);
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	memset(&r, 0, sizeof(r));
	r.h = (struct bc_rec_head){.size = 48, .kind = BC_REC_FUNC_ENTRY};
	assert_int_equal(bc_sink_event(s, &(struct bc_event){.rec = &r.h}), -EINVAL); /* no begin */
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	assert_int_equal(bc_sink_begin(s, &sess), -EALREADY);
	r.h.size = 44;
	assert_int_equal(bc_sink_event(s, &(struct bc_event){.rec = &r.h}), -EINVAL);
	r.h.size = 48;
	r.h.kind = 0x1ff;
	assert_int_equal(bc_sink_event(s, &(struct bc_event){.rec = &r.h}), -EINVAL);
	assert_int_equal(bc_er_sink_flush(&(struct bc_sink){.ops = &keep_ops}), -EINVAL);
	bc_sink_destroy(s); /* without end(): still a readable, unclosed experiment */
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), -EEXIST); /* never clobbers an experiment */
	bc_sink_destroy(s);
}

/* ------------------------------------------------------------ gprofng accepts it */

static void test_gprofng(void **state)
{
	struct fixture *fx = *state;
	char cmd[4400], line[1024], self[4096];
	bool no_errors = false, lost_line = false, command_line = false;
	struct bc_session sess = session(fx);
	struct bc_session_end end = {
		.end_ktime = T0 + 2 * NS, .exit_status = 0, .events = 3, .lost = {1, 3, 0}};
	char err[256];
	struct bc_sink *s;
	ssize_t n;
	FILE *p;

	if (access("/usr/bin/gprofng", X_OK) != 0)
		skip();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	assert_int_equal(bc_exp_create(fx->dir, NULL, fx->exp, sizeof(fx->exp), err, sizeof(err)),
			 0);
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	map(s, T0 + 5, 0x555555554000, PROT_READ | PROT_EXEC, self);
	map(s, T0 + 6, 0x7fff00000000, PROT_READ | PROT_EXEC, "[vdso]");
	make_records(fx);
	for (size_t i = 0; i < fx->nrecs; i++)
		feed(fx, s, &fx->recs[i]);
	assert_int_equal(bc_sink_end(s, &end), 0);
	bc_sink_destroy(s);

	snprintf(cmd, sizeof(cmd), "gprofng display text -header -functions '%s' 2>&1", fx->exp);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, "Warning") || strstr(line, "Error") || strstr(line, "rror:"))
			fail_msg("gprofng: %s", line);
		no_errors |= strcmp(line, "No errors\n") == 0;
		lost_line |=
			strcmp(line, "bpfcollect: lost func=1 syscall=3 proc=0 events=3\n") == 0;
		command_line |= strstr(line, "bpfcollect: command: /usr/bin/demo 'two words'") != 0;
	}
	assert_int_equal(pclose(p), 0);
	assert_true(no_errors);
	assert_true(lost_line);
	assert_true(command_line);
}

/* ------------------------------------------------------------ the XML dialect */

static void test_xml_escape(void **state)
{
	const char *src = "a<b>&\"c' 100% \t\n\x7f\xc3\xa9";
	char buf[128], small[8];
	size_t n;

	(void)state;
	n = bc_xml_escape(buf, sizeof(buf), src);
	assert_string_equal(buf, "a&lt;b&gt;&amp;&quot;c' 100%25% %09%%0a%%7f%\xc3\xa9");
	assert_int_equal(n, strlen(buf));
	assert_int_equal(bc_xml_escape(small, sizeof(small), src), n); /* like snprintf */
	assert_string_equal(small, "a&lt;b&");
	{
		char out[128];

		assert_int_equal(bc_xml_decode(out, buf, n), strlen(src));
		assert_string_equal(out, src);
		/* what other writers may use; unknown escapes stay as they are */
		const char *other = "&apos;&#65;&#x42;&#x20ac;%41%%4%&bogus;%00%";

		bc_xml_decode(out, other, strlen(other));
		assert_string_equal(out, "'AB\xe2\x82\xac"
					 "A%4%&bogus;%00%");
	}
}

static void test_xml_tstamp(void **state)
{
	char t[BC_XML_TSTAMP_LEN];
	uint64_t ns;

	(void)state;
	assert_string_equal(bc_xml_format_tstamp(t, T0), "1000.123456789");
	assert_string_equal(bc_xml_format_tstamp(t, 5), "0.000000005");
	assert_true(bc_xml_parse_tstamp("1000.123456789", &ns));
	assert_int_equal(ns, T0);
	assert_true(bc_xml_parse_tstamp("0.5", &ns)); /* gprofng: 5 ns, not half a second */
	assert_int_equal(ns, 5);
	assert_true(bc_xml_parse_tstamp("7", &ns));
	assert_int_equal(ns, 7 * NS);
	assert_false(bc_xml_parse_tstamp("1.1234567890", &ns));
	assert_false(bc_xml_parse_tstamp("-1.0", &ns));
	assert_false(bc_xml_parse_tstamp("1.0x", &ns));
	assert_false(bc_xml_parse_tstamp("99999999999999999999.0", &ns));
	assert_false(bc_xml_parse_tstamp("", &ns));
}

static void test_xml_tokenizer(void **state)
{
	const char doc[] = "<?xml version=\"1.0\"?>\n<!-- c <x> -->\n"
			   "<experiment version=\"12.4\">\n<collector>bpf %25% &amp;</collector>\n"
			   "</experiment>\n<system a='1' b = \"x&lt;y\">\n  <cpu id=\"0\"/>\n"
			   "</system>\n\0\0\0<event kind=\"exit\" tstamp=\"1.000000000\"/>\n";
	struct bc_xml x;
	struct bc_xml_elem e;
	unsigned int line;

	(void)state;
	bc_xml_init(&x, doc, sizeof(doc) - 1);
	assert_int_equal(bc_xml_next(&x, &e), 1);
	assert_string_equal(e.name, "experiment");
	assert_string_equal(bc_xml_attr(&e, "version"), "12.4");
	assert_int_equal(e.depth, 0);
	assert_int_equal(e.line, 3);
	assert_int_equal(bc_xml_next(&x, &e), 1);
	assert_string_equal(e.name, "collector");
	assert_string_equal(e.text, "bpf % &");
	assert_int_equal(e.depth, 1);
	assert_int_equal(bc_xml_next(&x, &e), 1);
	assert_string_equal(e.name, "system");
	assert_int_equal(e.nattrs, 2);
	assert_string_equal(bc_xml_attr(&e, "a"), "1");
	assert_string_equal(bc_xml_attr(&e, "b"), "x<y");
	assert_null(bc_xml_attr(&e, "c"));
	assert_int_equal(bc_xml_next(&x, &e), 1);
	assert_string_equal(e.name, "cpu");
	assert_int_equal(e.depth, 1);
	assert_int_equal(e.line, 7);
	assert_int_equal(bc_xml_next(&x, &e), 1); /* NUL padding skipped */
	assert_string_equal(e.name, "event");
	assert_int_equal(e.line, 9);
	assert_int_equal(bc_xml_next(&x, &e), 0);
	assert_int_equal(bc_xml_next(&x, &e), 0);
	bc_xml_fini(&x);

	static const struct {
		const char *doc;
		int ret;
		unsigned int line;
		const char *msg;
	} bad[] = {
		{"<a>\n<b x=\"1", -ENODATA, 2, "<b is incomplete"},
		{"<a>\n<b/>", -ENODATA, 2, "<a> is not closed"},
		{"<a>text", -ENODATA, 1, "<a> is not closed"},
		{"<a", -ENODATA, 1, "<a is incomplete"},
		{"<", -ENODATA, 1, "incomplete tag"},
		{"<!-- x", -ENODATA, 1, "unterminated"},
		{"<a>x</a", -ENODATA, 1, "not closed"},
		{"\n\n< a/>", -EINVAL, 3, "not followed by an element name"},
		{"<a b=1/>", -EINVAL, 1, "value must be quoted"},
		{"<a b/>", -EINVAL, 1, "attribute b of <a> has no value"},
		{"<a 1=\"x\"/>", -EINVAL, 1, "bad attribute in <a>"},
		{"<a <b/>", -EINVAL, 1, "inside the tag"},
		{"<a>\n</b>", -EINVAL, 2, "closed by another end tag"},
		{"</a>", -EINVAL, 1, "closes nothing"},
		{"<a>\n<c/>\n</b>", -EINVAL, 3, "</b> does not close <a>"},
		{"<a><a><a><a><a><a><a><a><a><a><a><a><a><a><a><a><a><b/>", -EINVAL, 1, "too deep"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret;

		bc_xml_init(&x, bad[i].doc, strlen(bad[i].doc));
		while ((ret = bc_xml_next(&x, &e)) > 0)
			;
		if (ret != bad[i].ret || !strstr(bc_xml_error(&x, &line), bad[i].msg) ||
		    line != bad[i].line)
			fail_msg("'%s': got %d '%s' line %u", bad[i].doc, ret,
				 bc_xml_error(&x, NULL), line);
		bc_xml_fini(&x);
	}
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_naming),
		T(test_roundtrip),
		T(test_thread_file_order),
		T(test_live),
		T(test_truncated),
		T(test_garbage),
		T(test_bad_experiments),
		T(test_disk_full),
		T(test_writer_rejects),
		T(test_gprofng),
		T(test_xml_escape),
		T(test_xml_tstamp),
		T(test_xml_tokenizer),
	};

	return cmocka_run_group_tests_name("experiments", tests, NULL, NULL);
}
