// SPDX-License-Identifier: MIT
/*
 * The PRF sink fed with events as a producer hands them over: serial-number
 * gaps, LOST records, failed syscalls, returns never seen, thread hashes,
 * process names, tid reuse, exec by a non-leader thread, ClientAP of sockets.
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
#include <time.h>

#include <cmocka.h>

#include "prf_fixture.h"

#include <netinet/in.h>
#include <sys/un.h>

#include "bpfcollect/model.h"
#include "bpfcollect/prf.h"
#include "bpfcollect/record.h"
#include "bpfcollect/syscalls.h"

#define NS     1000000000ll
#define T2024  (1704067200 * NS) /* 2024/01/01 00:00:00 UTC */
#define NF     20
#define MAXREC 64

/* Column numbers of the default layout. */
enum {
	F_PRF,
	F_PROC,
	F_THREAD,
	F_TRACE,
	F_PNAME,
	F_EVENT,
	F_DATE,
	F_TIME,
	F_SUB,
	F_RC,
	F_CIP,
	F_CPID,
	F_CCOMM,
	F_RIP,
	F_RPID,
	F_RCOMM,
	F_INT,
	F_OPR,
	F_OPT,
	F_ASCII
};

struct out {
	char *buf;
	size_t len;
	FILE *f;
	struct bc_sink *sink;
	int n; /* records (lines after the header) */
	char header[512];
	char (*rec)[NF][600]; /* [MAXREC] */
};

static struct bc_func funcs[2] = {
	{.id = 0, .name = "work", .object = "/usr/lib/libwork.so.1"},
	{.id = 1, .name = "a_function_name_of_forty_characters_abcd", .object = "/opt/app/bin/app"},
};

static void open_out(struct out *o, const struct bc_prf_opts *po, uint32_t root_pid)
{
	static char *const argv[] = {"/usr/bin/myprogram-with-long-name", NULL};
	struct bc_session sess = {
		.argv = argv,
		.root_pid = root_pid,
		.start_ktime = 500,
		.wall_offset_ns = T2024,
	};

	memset(o, 0, sizeof(*o));
	o->f = open_memstream(&o->buf, &o->len);
	assert_non_null(o->f);
	o->sink = bc_prf_sink_new(o->f, po);
	assert_non_null(o->sink);
	assert_int_equal(bc_prf_sink_set_host_ip(o->sink, "10.0.0.1"), 0);
	assert_int_equal(bc_sink_begin(o->sink, &sess), 0);
}

/* Ends the sink and splits its CSV output into o->rec. */
static void close_out(struct out *o, uint64_t end_ktime)
{
	struct bc_session_end end = {.end_ktime = end_ktime};
	char *line, *save = NULL;

	assert_int_equal(bc_sink_end(o->sink, &end), 0);
	bc_sink_destroy(o->sink);
	fclose(o->f);
	o->rec = calloc(MAXREC, sizeof(*o->rec));
	assert_non_null(o->rec);
	line = strtok_r(o->buf, "\n", &save);
	assert_non_null(line);
	snprintf(o->header, sizeof(o->header), "%s", line);
	while ((line = strtok_r(NULL, "\n", &save))) {
		assert_true(o->n < MAXREC);
		assert_int_equal(csv_split(line, o->rec[o->n], NF + 1), NF);
		o->n++;
	}
}

static void free_out(struct out *o)
{
	free(o->rec);
	free(o->buf);
}

static void head(struct bc_rec_head *h, uint16_t size, uint16_t kind, uint32_t pid, uint32_t tid,
		 uint64_t seq, uint64_t ktime)
{
	*h = (struct bc_rec_head){
		.size = size, .kind = kind, .pid = pid, .tid = tid, .seq = seq, .ktime = ktime};
}

static void feed(struct out *o, const struct bc_rec_head *h, const struct bc_func *f,
		 const char *sys)
{
	struct bc_event ev = {.rec = h, .func = f, .sys_name = sys};

	assert_int_equal(bc_sink_event(o->sink, &ev), 0);
}

/* An entry at BPF depth d (frames open below it). */
static void entry(struct out *o, uint32_t pid, uint32_t tid, uint64_t seq, uint64_t kt,
		  uint32_t fid, uint32_t d)
{
	struct bc_rec_func_entry r = {.func_id = fid};

	head(&r.h, sizeof(r), BC_REC_FUNC_ENTRY, pid, tid, seq, kt);
	r.h.depth = d;
	feed(o, &r.h, &funcs[fid], NULL);
}

/* The return of the frame at BPF depth d. */
static void ret(struct out *o, uint32_t pid, uint32_t tid, uint64_t seq, uint64_t kt, uint32_t fid,
		uint64_t entry_kt, uint64_t val, uint32_t d)
{
	struct bc_rec_func_return r = {.func_id = fid, .entry_ktime = entry_kt, .retval = val};

	head(&r.h, sizeof(r), BC_REC_FUNC_RETURN, pid, tid, seq, kt);
	r.h.depth = d;
	feed(o, &r.h, &funcs[fid], NULL);
}

static void spawn(struct out *o, uint16_t kind, uint32_t pid, uint32_t tid, uint64_t seq,
		  uint64_t kt, uint32_t cpid, uint32_t ctid, const char *comm)
{
	struct bc_rec_fork r = {.child_pid = cpid, .child_tid = ctid};

	head(&r.h, sizeof(r), kind, pid, tid, seq, kt);
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	feed(o, &r.h, NULL, NULL);
}

static void leave(struct out *o, uint16_t kind, uint32_t pid, uint32_t tid, uint64_t seq,
		  uint64_t kt, const char *comm)
{
	struct bc_rec_exit r = {.exit_code = 256};

	head(&r.h, sizeof(r), kind, pid, tid, seq, kt);
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	feed(o, &r.h, NULL, NULL);
}

static void exec_rec(struct out *o, uint32_t pid, uint32_t old_tid, uint64_t seq, uint64_t kt,
		     const char *comm, const char *file)
{
	struct bc_rec_exec r = {.old_tid = old_tid};

	head(&r.h, sizeof(r), BC_REC_PROC_EXEC, pid, pid, seq, kt);
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	snprintf(r.filename, sizeof(r.filename), "%s", file);
	r.filename_len = (uint32_t)strlen(r.filename);
	feed(o, &r.h, NULL, NULL);
}

static char *thread_field(char *buf, size_t len, uint32_t tid, uint32_t pid, uint64_t birth)
{
	bc_prf_fmt_thread(buf, len, tid, bc_prf_thread_hash(pid, tid, birth));
	return buf;
}

static void expect(const struct out *o, int i, const char *prf, const char *trace,
		   const char *event, const char *rc, const char *intf, const char *opr)
{
	assert_true(i < o->n);
	assert_string_equal(o->rec[i][F_PRF], prf);
	assert_string_equal(o->rec[i][F_TRACE], trace);
	assert_string_equal(o->rec[i][F_EVENT], event);
	assert_string_equal(o->rec[i][F_RC], rc);
	assert_string_equal(o->rec[i][F_INT], intf);
	assert_string_equal(o->rec[i][F_OPR], opr);
}

static void a_session(void **state)
{
	struct bc_prf_opts po;
	struct out o;
	char th[64];

	(void)state;
	bc_prf_opts_init(&po);
	open_out(&o, &po, 100);
	entry(&o, 100, 100, 1, 1000, 0, 0);	    /* 0 */
	ret(&o, 100, 100, 2, 5000, 0, 1000, 42, 0); /* 1 */
	{
		struct bc_rec_sys_enter e = {.nr = 257, .args = {(uint64_t)-100, 0x1000, 0}};
		struct bc_rec_sys_exit x = {.nr = 257, .ret = -2, .enter_ktime = 6000};

		head(&e.h, sizeof(e), BC_REC_SYS_ENTER, 100, 100, 3, 6000);
		feed(&o, &e.h, NULL, "openat"); /* 2 */
		head(&x.h, sizeof(x), BC_REC_SYS_EXIT, 100, 100, 4, 7000);
		feed(&o, &x.h, NULL, "openat"); /* 3 */
	}
	spawn(&o, BC_REC_THREAD_START, 100, 100, 5, 8000, 100, 101, "worker"); /* 4 */
	entry(&o, 100, 101, 1, 9000, 0, 0);				       /* 5 */
	entry(&o, 100, 101, 4, 10000, 1, 1); /* 6: gap of 2, then 7 */
	{
		struct bc_rec_lost l = {.loss_class = BC_LOSS_FUNC, .cpu = 3, .count = 2};

		head(&l.h, sizeof(l), BC_REC_LOST, 100, 0, 0, 11000);
		feed(&o, &l.h, NULL, NULL); /* 8 */
	}
	leave(&o, BC_REC_THREAD_EXIT, 100, 101, 5, 12000, "worker"); /* 9, 10 returns; 11 */
	entry(&o, 100, 100, 6, 13000, 0, 0);			     /* 12 */
	{
		struct bc_rec_sys_exit x = {.nr = 39, .ret = 100, .enter_ktime = 0};

		head(&x.h, sizeof(x), BC_REC_SYS_EXIT, 100, 100, 7, 14000);
		feed(&o, &x.h, NULL, "getpid"); /* 13 */
	}
	/* BPF had no entry left: the call of 12 was abandoned (14), then 15 */
	ret(&o, 100, 100, 8, 15000, 1, 0, 7, 0);
	spawn(&o, BC_REC_PROC_FORK, 100, 100, 9, 16000, 200, 200, "myprogram-with-"); /* 16 */
	exec_rec(&o, 200, 200, 1, 17000, "child", "/bin/child");		      /* 17 */
	leave(&o, BC_REC_PROC_EXIT, 200, 200, 2, 18000, "child");		      /* 18 */
	entry(&o, 100, 100, 10, 19000, 0, 0);					      /* 19 */
	close_out(&o, 20000); /* 20: the return of the call opened in 19 */

	assert_string_equal(o.header, bc_prf_csv_header(BC_PRF_LAYOUT_HITACHI));
	assert_int_equal(o.n, 21);
	/* function entry and return */
	expect(&o, 0, "Rec", "0000000001", "0x0100", "0x00000000000000", "libwork.so.1", "work");
	assert_string_equal(o.rec[0][F_PROC], "0000000100");
	assert_string_equal(o.rec[0][F_THREAD], thread_field(th, sizeof(th), 100, 100, 500));
	assert_string_equal(o.rec[0][F_PNAME], "myprogram-with-");
	assert_string_equal(o.rec[0][F_DATE], "2024/01/01");
	assert_string_equal(o.rec[0][F_TIME], "00:00:00");
	assert_string_equal(o.rec[0][F_SUB], "000/001/000");
	assert_string_equal(o.rec[0][F_CIP], "0.0.0.0");
	assert_string_equal(o.rec[0][F_CPID], "0");
	assert_string_equal(o.rec[0][F_CCOMM], "0x0000000000000000");
	assert_string_equal(o.rec[0][F_RIP], "10.0.0.1");
	assert_string_equal(o.rec[0][F_RPID], "0000000100");
	assert_string_equal(o.rec[0][F_RCOMM], "0x0000000000000000");
	assert_string_equal(o.rec[0][F_OPT], "0x");
	expect(&o, 1, "Rec", "0000000002", "0x0101", "0x00000000000000", "libwork.so.1", "work");
	/* entry time 1704067200 (0x65920080) s + 1 us, return value 42 */
	assert_string_equal(o.rec[1][F_OPT], "0x00000000659200800000000000000001000000000000002a");
	/* syscall entry: the call, decoded; exit: ErrRec with errno */
	expect(&o, 2, "Rec", "0000000003", "0x0200", "0x00000000000000", "syscall", "openat");
	assert_int_equal(strncmp(o.rec[2][F_ASCII], "openat(AT_FDCWD, 0x1000, O_RDONLY", 33), 0);
	expect(&o, 3, "ErrRec", "0000000004", "0x0201", "0x00000000000002", "syscall", "openat");
	assert_string_equal(o.rec[3][F_OPT], "0x00000000659200800000000000000006fffffffffffffffe");
	/* thread start; the new thread's hash is fixed at its creation */
	expect(&o, 4, "Rec", "0000000005", "0x0302", "0x00000000000000", "process", "thread_start");
	expect(&o, 5, "Rec", "0000000001", "0x0100", "0x00000000000000", "libwork.so.1", "work");
	assert_string_equal(o.rec[5][F_THREAD], thread_field(th, sizeof(th), 101, 100, 8000));
	assert_string_equal(o.rec[5][F_PNAME], "myprogram-with-");
	/* the gap: one ErrRec at the first missing number, counting the missing */
	expect(&o, 6, "ErrRec", "0000000002", "0x0f00", "0x00000000001000", "agent", "lost");
	assert_string_equal(o.rec[6][F_OPT], "0x0000000000000002");
	assert_string_equal(o.rec[6][F_THREAD], o.rec[5][F_THREAD]);
	expect(&o, 7, "Rec", "0000000004", "0x0100", "0x00000000000000", "app",
	       "a_function_name_of_forty_charact*");
	/* the agent's LOST record */
	expect(&o, 8, "ErrRec", "0000000000", "0x0f01", "0x00000000001000", "agent", "lost_func");
	assert_string_equal(o.rec[8][F_THREAD], "0(0)");
	assert_string_equal(o.rec[8][F_OPT], "0x00000000000000020000000000000003");
	/* the thread exits inside two calls: their returns, innermost first, then the exit */
	expect(&o, 9, "ErrRec", "0000000000", "0x0101", "0x00000000001001", "app",
	       "a_function_name_of_forty_charact*");
	assert_string_equal(o.rec[9][F_OPT], "0x0000000065920080000000000000000a0000000000000000");
	expect(&o, 10, "ErrRec", "0000000000", "0x0101", "0x00000000001001", "libwork.so.1",
	       "work");
	assert_string_equal(o.rec[10][F_SUB], "000/012/000");
	expect(&o, 11, "Rec", "0000000005", "0x0303", "0x00000000000000", "process", "thread_exit");
	assert_string_equal(o.rec[11][F_ASCII], "................worker");
	/* returns without their entry; the call BPF no longer had was abandoned */
	expect(&o, 13, "ErrRec", "0000000007", "0x0201", "0x00000000001002", "syscall", "getpid");
	expect(&o, 14, "ErrRec", "0000000000", "0x0101", "0x00000000001001", "libwork.so.1",
	       "work");
	assert_string_equal(o.rec[14][F_SUB], "000/015/000");
	assert_string_equal(o.rec[14][F_OPT], "0x0000000065920080000000000000000d0000000000000000");
	expect(&o, 15, "ErrRec", "0000000008", "0x0101", "0x00000000001002", "app",
	       "a_function_name_of_forty_charact*");
	assert_string_equal(o.rec[15][F_OPT], "0x000000000000000000000000000000000000000000000007");
	/* fork, exec, exit: the child's name is its comm, and after exec the new one */
	expect(&o, 16, "Rec", "0000000009", "0x0300", "0x00000000000000", "process", "fork");
	assert_string_equal(o.rec[16][F_ASCII], "........................myprogram-with-");
	expect(&o, 17, "Rec", "0000000001", "0x0304", "0x00000000000000", "process", "exec");
	assert_string_equal(o.rec[17][F_PROC], "0000000200");
	assert_string_equal(o.rec[17][F_PNAME], "child");
	assert_string_equal(o.rec[17][F_ASCII], "/bin/child");
	assert_string_equal(o.rec[17][F_THREAD], thread_field(th, sizeof(th), 200, 200, 16000));
	assert_string_equal(o.rec[17][F_RPID], "0000000100");
	expect(&o, 18, "Rec", "0000000002", "0x0301", "0x00000000000000", "process", "exit");
	assert_int_equal(strncmp(o.rec[18][F_OPT], "0x0000000000000100", 18), 0);
	expect(&o, 19, "Rec", "0000000010", "0x0100", "0x00000000000000", "libwork.so.1", "work");
	/* at the end: the call still running, open at detach (no error) */
	expect(&o, 20, "Rec", "0000000000", "0x0102", "0x00000000000000", "libwork.so.1",
	       "work");
	assert_string_equal(o.rec[20][F_ASCII] + 16, "open at detach");
	assert_string_equal(o.rec[20][F_SUB], "000/020/000");
	assert_string_equal(o.rec[20][F_THREAD], o.rec[0][F_THREAD]);
	free_out(&o);
}

/* Frames follow BPF's depth: longjmp leaves frames behind, losses take returns away. */
static void depths(void **state)
{
	struct bc_prf_opts po;
	struct out o;

	(void)state;
	bc_prf_opts_init(&po);
	open_out(&o, &po, 10);
	/* longjmp out of two calls: at the outer return they end as ErrRec */
	entry(&o, 10, 10, 1, 1000, 0, 0);	 /* 0 */
	entry(&o, 10, 10, 2, 2000, 1, 1);	 /* 1 */
	entry(&o, 10, 10, 3, 3000, 0, 2);	 /* 2 */
	ret(&o, 10, 10, 4, 4000, 0, 1000, 0, 0); /* 3 (depth 2), 4 (depth 1), 5 */
	/* the return of depth 1 lost in a gap, then a new call at depth 1: no ErrRec for it */
	entry(&o, 10, 10, 5, 5000, 0, 0);	   /* 6 */
	entry(&o, 10, 10, 6, 6000, 1, 1);	   /* 7 */
	entry(&o, 10, 10, 8, 8000, 0, 1);	   /* 8 gap, 9 */
	ret(&o, 10, 10, 9, 9000, 0, 8000, 0, 1);   /* 10 */
	ret(&o, 10, 10, 10, 10000, 0, 5000, 0, 0); /* 11 */
	/* returns lost in a gap with nothing after them: not reported as never seen */
	entry(&o, 10, 10, 11, 11000, 0, 0);		     /* 12 */
	entry(&o, 10, 10, 12, 12000, 1, 1);		     /* 13 */
	leave(&o, BC_REC_PROC_EXIT, 10, 10, 15, 15000, "x"); /* 14 gap, 15 */
	close_out(&o, 0);

	assert_int_equal(o.n, 16);
	expect(&o, 3, "ErrRec", "0000000000", "0x0101", "0x00000000001001", "libwork.so.1", "work");
	assert_string_equal(o.rec[3][F_SUB], "000/004/000");
	assert_string_equal(o.rec[3][F_OPT], "0x00000000659200800000000000000003"
					     "0000000000000000");
	expect(&o, 4, "ErrRec", "0000000000", "0x0101", "0x00000000001001", "app",
	       "a_function_name_of_forty_charact*");
	expect(&o, 5, "Rec", "0000000004", "0x0101", "0x00000000000000", "libwork.so.1", "work");
	expect(&o, 8, "ErrRec", "0000000007", "0x0f00", "0x00000000001000", "agent", "lost");
	expect(&o, 9, "Rec", "0000000008", "0x0100", "0x00000000000000", "libwork.so.1", "work");
	expect(&o, 10, "Rec", "0000000009", "0x0101", "0x00000000000000", "libwork.so.1", "work");
	expect(&o, 11, "Rec", "0000000010", "0x0101", "0x00000000000000", "libwork.so.1", "work");
	expect(&o, 14, "ErrRec", "0000000013", "0x0f00", "0x00000000001000", "agent", "lost");
	expect(&o, 15, "Rec", "0000000015", "0x0301", "0x00000000000000", "process", "exit");
	free_out(&o);
}

static void reuse_and_exec(void **state)
{
	struct bc_prf_opts po;
	struct out o;
	char th[64];

	(void)state;
	bc_prf_opts_init(&po);
	po.process_name = "J2EEServer,1";
	open_out(&o, &po, 300);
	spawn(&o, BC_REC_THREAD_START, 300, 300, 1, 1000, 300, 301, "t"); /* 0 */
	entry(&o, 300, 301, 1, 1100, 0, 0);				  /* 1 */
	leave(&o, BC_REC_THREAD_EXIT, 300, 301, 2, 1200, "t");		  /* 2, 3 */
	spawn(&o, BC_REC_THREAD_START, 300, 300, 2, 2000, 300, 301, "t"); /* 4: tid reused */
	entry(&o, 300, 301, 1, 2100, 0, 0);				  /* 5 */
	entry(&o, 300, 301, 2, 2200, 0, 1);				  /* 6 */
	/* thread 301 execs: it becomes 300, its serial numbers go on, its calls never return */
	exec_rec(&o, 300, 301, 3, 3000, "newimage", "/bin/newimage"); /* 7, 8, 9 */
	entry(&o, 300, 300, 4, 3100, 0, 0);			      /* 10 */
	/* a record with no serial number (BPF had no task storage) */
	entry(&o, 300, 300, 0, 3200, 0, 1); /* 11 */
	entry(&o, 300, 300, 5, 3300, 0, 2); /* 12 */
	close_out(&o, 0);		    /* 13, 14, 15 at the last ktime seen */

	assert_int_equal(o.n, 16);
	assert_string_equal(o.rec[1][F_THREAD], thread_field(th, sizeof(th), 301, 300, 1000));
	expect(&o, 2, "ErrRec", "0000000000", "0x0101", "0x00000000001001", "libwork.so.1", "work");
	expect(&o, 3, "Rec", "0000000002", "0x0303", "0x00000000000000", "process", "thread_exit");
	/* a new thread with the same tid: a new hash, serial numbers from 1, no gap */
	expect(&o, 5, "Rec", "0000000001", "0x0100", "0x00000000000000", "libwork.so.1", "work");
	assert_string_equal(o.rec[5][F_THREAD], thread_field(th, sizeof(th), 301, 300, 2000));
	assert_string_not_equal(o.rec[5][F_THREAD], o.rec[1][F_THREAD]);
	/* exec: two open calls end, then the exec record under the new tid, same hash */
	expect(&o, 7, "ErrRec", "0000000000", "0x0101", "0x00000000001001", "libwork.so.1", "work");
	expect(&o, 9, "Rec", "0000000003", "0x0304", "0x00000000000000", "process", "exec");
	assert_string_equal(strchr(o.rec[9][F_THREAD], '('), strchr(o.rec[5][F_THREAD], '('));
	assert_int_equal(strncmp(o.rec[9][F_THREAD], "300(", 4), 0);
	expect(&o, 10, "Rec", "0000000004", "0x0100", "0x00000000000000", "libwork.so.1", "work");
	expect(&o, 11, "Rec", "0000000000", "0x0100", "0x00000000000000", "libwork.so.1", "work");
	expect(&o, 12, "Rec", "0000000005", "0x0100", "0x00000000000000", "libwork.so.1", "work");
	for (int i = 13; i < 16; i++) {
		expect(&o, i, "Rec", "0000000000", "0x0102", "0x00000000000000", "libwork.so.1",
		       "work");
		assert_string_equal(o.rec[i][F_SUB], "000/003/300");
	}
	/* --prf-name: every record (quoted for its comma, or it would split in two) */
	for (int i = 0; i < o.n; i++)
		assert_string_equal(o.rec[i][F_PNAME], "J2EEServer,1");
	free_out(&o);
}

static void dump_and_layouts(void **state)
{
	struct bc_prf_opts po;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct bc_sink *s;
	struct bc_rec_func_return r = {.func_id = 0, .entry_ktime = 1000, .retval = 1};
	struct bc_event ev = {.rec = &r.h, .func = &funcs[0]};
	struct bc_session sess = {.root_pid = 7, .wall_offset_ns = T2024};

	(void)state;
	assert_non_null(f);
	bc_prf_opts_init(&po);
	po.format = BC_PRF_DUMP;
	po.layout = BC_PRF_LAYOUT_COSMINEXUS;
	po.host_ip = "192.168.1.2";
	s = bc_prf_sink_new(f, &po);
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	head(&r.h, sizeof(r), BC_REC_FUNC_RETURN, 7, 7, 1, 2000);
	assert_int_equal(bc_sink_event(s, &ev), 0);
	assert_int_equal(bc_sink_flush(s), 0);
	assert_int_equal(bc_sink_end(s, NULL), 0);
	bc_sink_destroy(s);
	fclose(f);
	/* no header in a dump; every line of the record */
	assert_int_equal(strncmp(buf, "PRF: Rec Process: 0000000007 Thread: 7(", 39), 0);
	assert_non_null(strstr(buf, "\nProcessName: unknown\n"));
	assert_non_null(
		strstr(buf, "\nEvent: 0x0101 Time: 2024/01/01 00:00:00 000/002/000 Rc: "
			    "0x00000000000000\n"
			    "ClientAP: 0.0.0.0 0 - 0x0000000000000000\n"
			    "RootAP: 192.168.1.2 0000000007 - 0x0000000000000000\n"
			    "SendSCD: **** **** ReceiveSCD: **** ****\n"
			    "INT: libwork.so.1 OPR: work Lookup: ****\n"
			    "Offset +0 +1 +2 +3 +4 +5 +6 +7 +8 +9 +a +b +c +d +e +f "
			    "0123456789abcdef\n"
			    "000000 00 00 00 00 65 92 00 80 00 00 00 00 00 00 00 01 ....e...."
			    ".......\n"
			    "000010 00 00 00 00 00 00 00 01                         ........\n\n"));
	free(buf);

	/* bad host addresses */
	po.host_ip = "not-an-ip";
	assert_null(bc_prf_sink_new(stdout, &po));
	po.host_ip = NULL;
	s = bc_prf_sink_new(stdout, &po);
	assert_non_null(s);
	assert_int_equal(bc_prf_sink_set_host_ip(s, "1.2.3"), -EINVAL);
	assert_int_equal(bc_prf_sink_set_host_ip(s, NULL), 0);
	bc_sink_destroy(s);
}

/* A CSV sink given nothing still writes its header; every record has 20 fields. */
static void empty_and_many(void **state)
{
	struct bc_prf_opts po;
	struct out o;

	(void)state;
	bc_prf_opts_init(&po);
	open_out(&o, &po, 1);
	/* many threads and deep stacks: the tables grow */
	for (uint32_t t = 2; t < 600; t++)
		for (uint64_t d = 1; d <= 3; d++)
			entry(&o, 1, t, d, 1000 * t + d, (uint32_t)(d % 2), (uint32_t)d - 1);
	bc_sink_end(o.sink, NULL);
	bc_sink_destroy(o.sink);
	fclose(o.f);
	/* 598 threads x 3 entries + 3 unfinished returns each, + the header */
	{
		size_t lines = 0;

		for (char *p = o.buf; *p; p++)
			lines += *p == '\n';
		assert_int_equal(lines, 1 + 598 * 6);
	}
	free(o.buf);

	open_out(&o, &po, 0);
	close_out(&o, 0);
	assert_int_equal(o.n, 0);
	assert_string_equal(o.header, bc_prf_csv_header(BC_PRF_LAYOUT_HITACHI));
	free_out(&o);
}

/* ------------------------------------------------------------ ClientAP */

/* A capture item of a syscall record: arg index (0-based), flags, len bytes of data. */
struct item {
	uint8_t index, flags;
	uint16_t len;
	const void *data;
};

static uint64_t peer_kt = 100000;

static void add_item(uint8_t *rec, uint16_t *size, const struct item *it)
{
	struct bc_cap_item ci = {BC_SRC_ARG, it->index, BC_CAP_BUF, it->flags, it->len, 0, 0};

	memcpy(rec + *size, &ci, sizeof(ci));
	if (it->len)
		memcpy(rec + *size + sizeof(ci), it->data, it->len);
	*size = (uint16_t)(*size + sizeof(ci) + ((it->len + 7u) & ~7u));
}

/* A syscall entry of thread tid (args a0..a2, an item or NULL), serial number ++*seq. */
static void sys_in(struct out *o, uint32_t pid, uint32_t tid, uint64_t *seq, const char *name,
		   uint64_t a0, uint64_t a1, uint64_t a2, const struct item *in)
{
	uint64_t buf[64] = {0};
	struct bc_rec_sys_enter *e = (void *)buf;
	uint16_t size = sizeof(*e);

	*e = (struct bc_rec_sys_enter){.nr = (uint32_t)bc_syscall_nr(name), .args = {a0, a1, a2}};
	if (in)
		add_item((uint8_t *)buf, &size, in);
	head(&e->h, size, BC_REC_SYS_ENTER, pid, tid, ++*seq, peer_kt += 1000);
	feed(o, &e->h, NULL, name);
}

/* Its exit: ret, an item or NULL; cut > 0 ends the record that many bytes into the item. */
static void sys_out(struct out *o, uint32_t pid, uint32_t tid, uint64_t *seq, const char *name,
		    int64_t ret, const struct item *out, uint16_t cut)
{
	uint64_t buf[64] = {0};
	struct bc_rec_sys_exit *x = (void *)buf;
	uint16_t size = sizeof(*x);

	*x = (struct bc_rec_sys_exit){
		.nr = (uint32_t)bc_syscall_nr(name), .ret = ret, .enter_ktime = peer_kt};
	if (out)
		add_item((uint8_t *)buf, &size, out);
	head(&x->h, cut ? sizeof(*x) + cut : size, BC_REC_SYS_EXIT, pid, tid, ++*seq,
	     peer_kt += 1000);
	feed(o, &x->h, NULL, name);
}

/* One whole syscall: its entry and its exit. */
static void call(struct out *o, uint32_t pid, uint32_t tid, uint64_t *seq, const char *name,
		 uint64_t a0, uint64_t a1, uint64_t a2, int64_t ret, const struct item *in,
		 const struct item *out)
{
	sys_in(o, pid, tid, seq, name, a0, a1, a2, in);
	sys_out(o, pid, tid, seq, name, ret, out, 0);
}

static struct sockaddr_in sin4(uint32_t ip, uint16_t port)
{
	return (struct sockaddr_in){
		.sin_family = AF_INET, .sin_port = htons(port), .sin_addr = {htonl(ip)}};
}

/* Records i .. i + n - 1 carry ClientAP ip, PID 0, CommNo commno. */
static void expect_ap(const struct out *o, int i, int n, const char *ip, const char *commno)
{
	for (int k = i; k < i + n; k++) {
		assert_true(k < o->n);
		assert_string_equal(o->rec[k][F_CIP], ip);
		assert_string_equal(o->rec[k][F_CPID], "0");
		assert_string_equal(o->rec[k][F_CCOMM], commno);
	}
}

#define ZERO_IP "0.0.0.0"
#define NO_COMM "0x0000000000000000"
#define COMM(n) "0x000000000000000" #n

/* connect and accept bind fds to their peers; later calls on the fds carry them. */
static void clientap_connections(void **state)
{
	struct sockaddr_in srv = sin4(0x0a010203, 80), cli = sin4(0xc0a80007, 5555);
	struct sockaddr_in dns = sin4(0x08080808, 53);
	struct item to_srv = {1, 0, sizeof(srv), &srv}, from_cli = {1, 0, sizeof(cli), &cli};
	struct item no_dest = {4, BC_CAPF_NULL, 0, NULL}, to_dns = {4, 0, sizeof(dns), &dns};
	struct out o;
	uint64_t s = 0;

	(void)state;
	open_out(&o, NULL, 100);
	call(&o, 100, 100, &s, "socket", 2, 1, 0, 3, NULL, NULL);		 /* 0, 1 */
	call(&o, 100, 100, &s, "connect", 3, 0x1000, 16, 0, &to_srv, NULL);	 /* 2 */
	call(&o, 100, 100, &s, "write", 3, 0x2000, 5, 5, NULL, NULL);		 /* 4 */
	call(&o, 100, 100, &s, "sendto", 3, 0x2000, 5, 5, &no_dest, NULL);	 /* 6 */
	call(&o, 100, 100, &s, "getppid", 0, 0, 0, 1, NULL, NULL);		 /* 8 */
	call(&o, 100, 100, &s, "socket", 2, 1, 0, 4, NULL, NULL);		 /* 10 */
	call(&o, 100, 100, &s, "accept", 4, 0x3000, 0x3010, 5, NULL, &from_cli); /* 12 */
	call(&o, 100, 100, &s, "read", 5, 0x2000, 64, 3, NULL, NULL);		 /* 14 */
	call(&o, 100, 100, &s, "write", 4, 0x2000, 5, -EBADF, NULL, NULL);	 /* 16 */
	call(&o, 100, 100, &s, "close", 3, 0, 0, 0, NULL, NULL);		 /* 18 */
	call(&o, 100, 100, &s, "write", 3, 0x2000, 5, -EBADF, NULL, NULL);	 /* 20 */
	/* dup2 copies 5's binding to 9; 5 is then reused by openat without a close seen */
	call(&o, 100, 100, &s, "dup2", 5, 9, 0, 9, NULL, NULL); /* 22 */
	call(&o, 100, 100, &s, "openat", (uint64_t)-100, 0x4000, 0, 5, NULL, NULL);
	call(&o, 100, 100, &s, "read", 5, 0x2000, 64, 3, NULL, NULL); /* 26 */
	call(&o, 100, 100, &s, "read", 9, 0x2000, 64, 3, NULL, NULL); /* 28 */
	/* a datagram socket: sendto with a destination, twice to it, then elsewhere */
	call(&o, 100, 100, &s, "socket", 2, 2, 0, 3, NULL, NULL);	  /* 30 */
	call(&o, 100, 100, &s, "sendto", 3, 0x2000, 5, 5, &to_dns, NULL); /* 32 */
	call(&o, 100, 100, &s, "read", 3, 0x2000, 64, 3, NULL, NULL);	  /* 34 */
	call(&o, 100, 100, &s, "sendto", 3, 0x2000, 5, 5, &to_dns, NULL); /* 36 */
	dns.sin_port = htons(5353);
	call(&o, 100, 100, &s, "sendto", 3, 0x2000, 5, 5, &to_dns, NULL); /* 38: another port */
	/* an item of another argument is not sendto's destination */
	call(&o, 100, 100, &s, "sendto", 3, 0x2000, 5, 5, &to_srv, NULL); /* 40 */
	to_srv.index = 4;
	call(&o, 100, 100, &s, "sendto", 3, 0x2000, 5, 5, &to_srv, NULL); /* 42 */
	call(&o, 100, 100, &s, "read", 3, 0x2000, 64, 3, NULL, NULL);	  /* 44 */
	close_out(&o, 0);

	assert_int_equal(o.n, 46);
	expect_ap(&o, 0, 2, ZERO_IP, NO_COMM);
	/* connect: the entry and the exit; then the fd's write and send */
	expect_ap(&o, 2, 6, "10.1.2.3", COMM(1));
	expect_ap(&o, 8, 4, ZERO_IP, NO_COMM);
	/* accept: the exit only, the new fd with it */
	expect(&o, 13, "Rec", "0000000014", "0x0201", "0x00000000000000", "syscall", "accept");
	expect_ap(&o, 12, 1, ZERO_IP, NO_COMM);
	expect_ap(&o, 13, 3, "192.168.0.7", COMM(2));
	/* the listener, and a failed call: ErrRec, still zero */
	expect(&o, 17, "ErrRec", "0000000018", "0x0201", "0x00000000000009", "syscall", "write");
	expect_ap(&o, 16, 2, ZERO_IP, NO_COMM);
	/* close carries the fd's peer and ends the binding */
	expect_ap(&o, 18, 2, "10.1.2.3", COMM(1));
	expect_ap(&o, 20, 2, ZERO_IP, NO_COMM);
	expect_ap(&o, 22, 2, "192.168.0.7", COMM(2));
	expect_ap(&o, 24, 4, ZERO_IP, NO_COMM);
	expect_ap(&o, 28, 2, "192.168.0.7", COMM(2));
	/* datagrams: a number per destination, the fd bound to the last one */
	expect_ap(&o, 30, 2, ZERO_IP, NO_COMM);
	expect_ap(&o, 32, 6, "8.8.8.8", COMM(3));
	expect_ap(&o, 38, 4, "8.8.8.8", COMM(4));
	expect_ap(&o, 42, 4, "10.1.2.3", COMM(5));
	free_out(&o);
}

/* Numbers count per process; a child inherits its parent's; an exit ends them. */
static void clientap_processes(void **state)
{
	struct sockaddr_in a = sin4(0x0a000001, 80), b = sin4(0x0a000002, 80);
	struct item to_a = {1, 0, sizeof(a), &a}, to_b = {1, 0, sizeof(b), &b};
	struct out o;
	uint64_t s100 = 0, s101 = 0, s200 = 0, s300 = 0;

	(void)state;
	open_out(&o, NULL, 100);
	call(&o, 100, 100, &s100, "connect", 3, 0, 16, 0, &to_a, NULL); /* 0 */
	call(&o, 200, 200, &s200, "connect", 3, 0, 16, 0, &to_b, NULL); /* 2 */
	/* another thread of 100: its own connection, the process's next number */
	call(&o, 100, 101, &s101, "connect", 4, 0, 16, 0, &to_b, NULL);		       /* 4 */
	call(&o, 100, 101, &s101, "write", 3, 0, 1, 1, NULL, NULL);		       /* 6 */
	spawn(&o, BC_REC_PROC_FORK, 100, 100, ++s100, peer_kt += 1000, 300, 300, "x"); /* 8 */
	/* the child: the parent's fds, and its own numbers go on from the parent's */
	call(&o, 300, 300, &s300, "write", 4, 0, 1, 1, NULL, NULL);	/* 9 */
	call(&o, 300, 300, &s300, "connect", 5, 0, 16, 0, &to_a, NULL); /* 11 */
	call(&o, 100, 100, &s100, "connect", 5, 0, 16, 0, &to_a, NULL); /* 13: the parent's own */
	/* the child exits; a new process with its pid starts from nothing */
	leave(&o, BC_REC_PROC_EXIT, 300, 300, ++s300, peer_kt += 1000, "x");	       /* 15 */
	spawn(&o, BC_REC_PROC_FORK, 200, 200, ++s200, peer_kt += 1000, 300, 300, "y"); /* 16 */
	call(&o, 300, 300, &s300, "write", 4, 0, 1, 1, NULL, NULL);		       /* 17 */
	call(&o, 300, 300, &s300, "write", 3, 0, 1, 1, NULL, NULL);		       /* 19 */
	call(&o, 300, 300, &s300, "connect", 6, 0, 16, 0, &to_a, NULL);		       /* 21 */
	close_out(&o, 0);

	assert_int_equal(o.n, 23);
	expect_ap(&o, 0, 2, "10.0.0.1", COMM(1));
	expect_ap(&o, 2, 2, "10.0.0.2", COMM(1));
	expect_ap(&o, 4, 2, "10.0.0.2", COMM(2));
	expect_ap(&o, 6, 2, "10.0.0.1", COMM(1));
	expect(&o, 8, "Rec", "0000000003", "0x0300", "0x00000000000000", "process", "fork");
	expect_ap(&o, 8, 1, ZERO_IP, NO_COMM);
	expect_ap(&o, 9, 2, "10.0.0.2", COMM(2));
	expect_ap(&o, 11, 2, "10.0.0.1", COMM(3));
	expect_ap(&o, 13, 2, "10.0.0.1", COMM(3));
	expect_ap(&o, 15, 2, ZERO_IP, NO_COMM);
	expect_ap(&o, 17, 2, ZERO_IP, NO_COMM); /* 200 had no fd 4 */
	expect_ap(&o, 19, 2, "10.0.0.2", COMM(1));
	expect_ap(&o, 21, 2, "10.0.0.1", COMM(2));
	free_out(&o);
}

/* Anything but a whole IPv4 sockaddr gives a zero ClientAP and uses no number. */
static void clientap_untrusted(void **state)
{
	struct sockaddr_in a = sin4(0x7f000001, 8080), bad = a;
	struct sockaddr_in6 v6 = {.sin6_family = AF_INET6, .sin6_port = htons(80)}, mapped = v6;
	struct sockaddr_un un = {.sun_family = AF_UNIX, .sun_path = "/run/sock"};
	struct item it[] = {
		{1, 0, sizeof(v6), &v6},	       /* records 0, 1: ::1 */
		{1, 0, sizeof(un), &un},	       /* records 2, 3: AF_UNIX */
		{1, 0, sizeof(a) - 1, &a},	       /* records 4, 5: short */
		{1, BC_CAPF_FAULT, sizeof(a), &a},     /* records 6, 7: unreadable */
		{1, BC_CAPF_NULL, 0, NULL},	       /* records 8, 9: NULL */
		{1, 0, sizeof(bad), &bad},	       /* records 10, 11: family 0x1234 */
		{1, BC_CAPF_TRUNCATED, sizeof(a), &a}, /* records 12, 13: whole enough: 127.0.0.1 */
		{1, 0, sizeof(mapped), &mapped},       /* records 14, 15: ::ffff:10.9.8.7 */
	};
	struct out o;
	uint64_t s = 0;

	(void)state;
	bad.sin_family = 0x1234;
	v6.sin6_addr.s6_addr[15] = 1;
	memcpy(mapped.sin6_addr.s6_addr, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\x09\x08\x07", 16);
	open_out(&o, NULL, 100);
	for (size_t i = 0; i < sizeof(it) / sizeof(it[0]); i++)
		call(&o, 100, 100, &s, "connect", 3, 0, 16, 0, &it[i], NULL);
	/* connect to AF_UNIX releases fd 3 (bound by the last one) */
	call(&o, 100, 100, &s, "connect", 3, 0, 16, 0, &it[1], NULL); /* 16 */
	call(&o, 100, 100, &s, "write", 3, 0, 1, 1, NULL, NULL);      /* 18 */
	/* an accept that failed: whatever the buffer holds is no peer */
	call(&o, 100, 100, &s, "accept4", 4, 0, 0, -EAGAIN, NULL, &it[6]); /* 20 */
	/* an item whose length runs past the record (cut 16 bytes into the 24 of its data) */
	sys_out(&o, 100, 100, &s, "accept", 7, &(struct item){1, 0, 24, &mapped}, 8 + 16); /* 22 */
	/* connect refused: the number is used, the fd stays unbound */
	call(&o, 100, 100, &s, "connect", 3, 0, 16, -ECONNREFUSED, &it[6], NULL); /* 23 */
	call(&o, 100, 100, &s, "write", 3, 0, 1, 1, NULL, NULL);		  /* 25 */
	/* an entry whose exit was lost: the next exit is another call's */
	sys_in(&o, 100, 100, &s, "connect", 3, 0, 16, &it[6]); /* 27 */
	sys_out(&o, 100, 100, &s, "getppid", 1, NULL, 0);      /* 28 */
	close_out(&o, 0);

	assert_int_equal(o.n, 29);
	expect_ap(&o, 0, 12, ZERO_IP, NO_COMM);
	expect_ap(&o, 12, 2, "127.0.0.1", COMM(1));
	expect_ap(&o, 14, 2, "10.9.8.7", COMM(2));
	expect_ap(&o, 16, 7, ZERO_IP, NO_COMM);
	expect(&o, 24, "ErrRec", "0000000025", "0x0201", "0x0000000000006f", "syscall", "connect");
	expect_ap(&o, 23, 2, "127.0.0.1", COMM(3));
	expect_ap(&o, 25, 2, ZERO_IP, NO_COMM);
	expect_ap(&o, 27, 1, "127.0.0.1", COMM(4));
	expect_ap(&o, 28, 1, ZERO_IP, NO_COMM);
	free_out(&o);
}

/*
 * Records a reader lets through from a damaged file: thread 0 opening frames
 * (it once shared a free table slot, and a real thread taking that slot
 * lost its frames: a leak), a ktime near 2^63 (the wall time wraps, no
 * signed overflow). Under ASan+UBSan and valgrind, both fail loudly.
 */
static void corrupt_threads_and_times(void **state)
{
	struct out o;

	(void)state;
	open_out(&o, NULL, 100);
	for (uint64_t i = 1; i <= 10; i++)
		entry(&o, 0, 0, i, 1000 + i, 0, (uint32_t)i - 1);
	for (uint32_t tid = 200; tid < 210; tid++)
		entry(&o, 100, tid, 1, 2000 + tid, 1, 0);
	entry(&o, 100, 100, 1, (uint64_t)INT64_MAX - 5, 0, 0);
	ret(&o, 100, 100, 2, (uint64_t)INT64_MAX - 1, 0, (uint64_t)INT64_MAX - 5, 7, 0);
	close_out(&o, UINT64_MAX);
	/* 21 entries and a return; the frames never closed end as ErrRecs */
	assert_true(o.n >= 22);
	free_out(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_session),
		cmocka_unit_test(depths),
		cmocka_unit_test(reuse_and_exec),
		cmocka_unit_test(dump_and_layouts),
		cmocka_unit_test(empty_and_many),
		cmocka_unit_test(clientap_connections),
		cmocka_unit_test(clientap_processes),
		cmocka_unit_test(clientap_untrusted),
		cmocka_unit_test(corrupt_threads_and_times),
	};

	setenv("TZ", "UTC0", 1);
	tzset();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
