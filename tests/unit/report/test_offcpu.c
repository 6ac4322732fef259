// SPDX-License-Identifier: MIT
/*
 * report offcpu over a kernel-style experiment tree written by the real
 * writer: off-CPU records of two processes in the founder (pid 0), the
 * mappings of one of them in its subexperiments (_x_PID_100.1.er, and
 * _x_PID_100.2.er after an exec), none for the other. Stacks hold PCs inside
 * functions of the symbols fixtures (symfix_pie, libsymfix.so.1). Also the
 * PC naming rules and the function index of bpfcollect/pcname.h.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "bpfcollect/elf_symbols.h"
#include "bpfcollect/experiment.h"
#include "bpfcollect/pcname.h"
#include "bpfcollect/report_offcpu.h"

#define MS	 1000000ULL
#define T0	 (5000 * 1000 * MS) /* session start */
#define EXE	 FIXTURE_DIR "/symfix_pie"
#define LIB	 FIXTURE_DIR "/libsymfix.so.1"
#define BASE_EXE 0x555555554000ULL /* symfix_pie in _x_PID_100.1.er */
#define BASE_X2	 0x560000000000ULL /* symfix_pie after the exec, _x_PID_100.2.er */
#define BASE_LIB 0x7f0000000000ULL
#define NR_READ	 0
#define NR_SLEEP 230 /* clock_nanosleep */

struct sym {
	uint64_t offset, size;
};

struct fx {
	char dir[64];
	char exp[512];
	struct bc_functab funcs;
	struct sym square, cube, add;
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static struct sym find_sym(const char *path, const char *name)
{
	struct bc_elf_object *obj = NULL;
	char err[256];
	struct sym s = {0};

	assert_int_equal(bc_elf_object_load(path, &obj, err, sizeof(err)), 0);
	for (size_t i = 0; i < obj->nsyms; i++)
		if (!strcmp(obj->syms[i].name, name))
			s = (struct sym){obj->syms[i].offset, obj->syms[i].size};
	bc_elf_object_free(obj);
	assert_true(s.size >= 4); /* the stacks below stay inside 4 bytes */
	return s;
}

static char *argv_x[] = {"x", NULL};

static struct bc_sink *exp_new(struct fx *f, const char *name, uint32_t pid, uint64_t start,
			       char *path, size_t pathlen)
{
	struct bc_session sess = {.argv = argv_x,
				  .root_pid = pid,
				  .start_ktime = start,
				  .options = "record -k",
				  .cwd = "/",
				  .funcs = &f->funcs,
				  .ringbuf_bytes = 1 << 20,
				  .kernel = pid == 0,
				  .offcpu = pid == 0};
	char err[256];
	struct bc_sink *s;

	assert_int_equal(bc_exp_create(name[0] == '_' ? f->exp : f->dir, name, path, pathlen, NULL,
				       err, sizeof(err)),
			 0);
	s = bc_er_sink_new(path, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	return s;
}

static void exp_end(struct bc_sink *s, uint64_t end)
{
	struct bc_session_end e = {.end_ktime = end, .exit_status = 0};

	assert_int_equal(bc_sink_end(s, &e), 0);
	bc_sink_destroy(s);
}

static void map_at(struct bc_sink *s, uint32_t pid, uint64_t ktime, uint64_t start,
		   const char *path)
{
	struct bc_mapping m = {.pid = pid,
			       .ktime = ktime,
			       .start = start,
			       .end = start + 0x100000,
			       .offset = 0,
			       .prot = PROT_READ | PROT_EXEC,
			       .path = path};

	assert_int_equal(bc_sink_mapping(s, &m), 0);
}

/* One off-CPU record through the decoder into the writer; times in ms after T0. */
static void offcpu(struct fx *f, struct bc_sink *s, uint32_t pid, uint32_t tid, uint64_t off_ms,
		   uint64_t on_ms, uint64_t wake_ms, uint32_t state, uint8_t preempt, int32_t nr,
		   int n, const uint64_t *ips)
{
	size_t size = sizeof(struct bc_rec_offcpu) + 8 * (size_t)n;
	struct bc_rec_offcpu *o = calloc(1, size);
	struct bc_event ev;

	assert_non_null(o);
	o->h = (struct bc_rec_head){.size = (uint16_t)size,
				    .kind = BC_REC_OFFCPU,
				    .pid = pid,
				    .tid = tid,
				    .ktime = T0 + on_ms * MS};
	o->off_ktime = T0 + off_ms * MS;
	o->wake_ktime = wake_ms ? T0 + wake_ms * MS : 0;
	o->state = state;
	o->preempt = preempt;
	o->syscall = nr;
	o->waker_pid = o->waker_tid = 1;
	o->n_user = (uint16_t)n;
	if (n)
		memcpy(o->ips, ips, 8 * (size_t)n);
	assert_int_equal(bc_decode(o, size, &f->funcs, &ev), (int)size);
	assert_int_equal(bc_sink_event(s, &ev), 0);
	free(o);
}

/*
 * The tree. Per record (pid/tid, interval in ms, split, syscall, stack):
 *  1  100/100  1..11   blocked, woken at 9: sleep 8 wait 2   read   add < cube+5 < square+5
 *  2  100/100  20..23  preempted: wait 3                     -      square(start) < square+3
 *                      (after the exec at 15: _x_PID_100.2.er)        < cube+5
 *  3  100/101  5..25   blocked, no wakeup: sleep 20          sleep  add+3 < end of cube
 *  4  100/101  30..34  blocked, woken at 30 (= off): sleep 4 sleep  no user stack
 *  5  200/200  2..9    blocked but preempted: wait 7         read   <Unknown>: no experiment
 *  6  200/200  40..46  blocked, woken at 50 (after on): sleep 6 -   <Unknown> x 2
 */
static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char sub[4096];
	struct bc_sink *s;

	assert_non_null(f);
	strcpy(f->dir, "/tmp/bc-test-offcpu-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	bc_functab_init(&f->funcs);
	f->square = find_sym(EXE, "fix_square");
	f->cube = find_sym(EXE, "fix_cube");
	f->add = find_sym(LIB, "symfix_add");

	s = exp_new(f, "ktest.1.er", 0, T0, f->exp, sizeof(f->exp));
	uint64_t r1[] = {BASE_LIB + f->add.offset + 1, BASE_EXE + f->cube.offset + 5,
			 BASE_EXE + f->square.offset + 5};
	uint64_t r2[] = {BASE_X2 + f->square.offset, BASE_X2 + f->square.offset + 3,
			 BASE_X2 + f->cube.offset + 5};
	uint64_t r3[] = {BASE_LIB + f->add.offset + 3, BASE_EXE + f->cube.offset + f->cube.size};
	uint64_t r5[] = {BASE_EXE + f->square.offset + 1};
	uint64_t r6[] = {BASE_EXE + f->square.offset + 1, BASE_EXE + f->cube.offset + 1};

	offcpu(f, s, 100, 100, 1, 11, 9, 1, 0, NR_READ, 3, r1);
	offcpu(f, s, 200, 200, 2, 9, 3, 1, 1, NR_READ, 1, r5);
	offcpu(f, s, 100, 101, 5, 25, 0, 2, 0, NR_SLEEP, 2, r3);
	offcpu(f, s, 100, 100, 20, 23, 0, 0, 1, -1, 3, r2);
	offcpu(f, s, 100, 101, 30, 34, 30, 1, 0, NR_SLEEP, 0, NULL);
	offcpu(f, s, 200, 200, 40, 46, 50, 1, 0, -1, 2, r6);
	exp_end(s, T0 + 60 * MS);

	s = exp_new(f, "_x_PID_100.1.er", 100, T0, sub, sizeof(sub));
	map_at(s, 100, T0, BASE_EXE, EXE);
	map_at(s, 100, T0, BASE_LIB, LIB);
	exp_end(s, T0 + 15 * MS);
	s = exp_new(f, "_x_PID_100.2.er", 100, T0 + 15 * MS, sub, sizeof(sub));
	map_at(s, 100, T0 + 15 * MS, BASE_X2, EXE);
	exp_end(s, T0 + 60 * MS);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	bc_functab_free(&f->funcs);
	free(f);
	return 0;
}

/* The report as text; rc its return value, err its message. */
static char *run(const char *exp, bool descendants, uint32_t pid, size_t top, int *rc, char *err,
		 size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	err[0] = '\0';
	*rc = bc_report_offcpu(exp, descendants, pid, top, out, err, errlen);
	fclose(out);
	return text;
}

/* The line of section `section` whose text ends with `tail`, or NULL. */
static const char *row(const char *text, const char *section, const char *tail, char *line,
		       size_t linelen)
{
	const char *p = strstr(text, section);

	assert_non_null(p);
	p += strlen(section);
	while (*p && *p != '\n')
		p++;
	while (*p == '\n' && p[1] && p[1] != '\n') {
		const char *start = p + 1, *end = strchr(start, '\n');
		size_t n = end ? (size_t)(end - start) : strlen(start), tl = strlen(tail);

		if (n >= tl && !memcmp(start + n - tl, tail, tl) && n < linelen) {
			memcpy(line, start, n);
			line[n] = '\0';
			return line;
		}
		p = start + n;
	}
	return NULL;
}

/* The row of thread pid/tid in "By thread:" (NULL: none); its numbers checked when count. */
static const char *thread_row(const char *text, unsigned pid, unsigned tid)
{
	const char *p = strstr(text, "By thread:");

	assert_non_null(p);
	for (p = strchr(p, '\n'); p && p[1] && p[1] != '\n'; p = strchr(p + 1, '\n')) {
		unsigned a, b;

		if (sscanf(p + 1, "%u %u", &a, &b) == 2 && a == pid && b == tid)
			return p + 1;
	}
	return NULL;
}

static const char *expect_thread(const char *text, unsigned pid, unsigned tid, unsigned count,
				 double off, double sleep, double wait, unsigned vol, unsigned pre,
				 double longest)
{
	const char *line = thread_row(text, pid, tid);
	unsigned a, b, c, v, p;
	double o, s, k, w, l;

	assert_non_null(line);
	assert_int_equal(sscanf(line, "%u %u %u %lf %lf %lf %lf %u %u %lf", &a, &b, &c, &o, &s, &k,
				&w, &v, &p, &l),
			 10);
	assert_float_equal(k, 0, 1e-9); /* no futex waits here */
	assert_int_equal(c, count);
	assert_float_equal(o, off, 1e-9);
	assert_float_equal(s, sleep, 1e-9);
	assert_float_equal(w, wait, 1e-9);
	assert_int_equal(v, vol);
	assert_int_equal(p, pre);
	assert_float_equal(l, longest, 1e-9);
	return line;
}

/* The syscall row of name (which may hold a space); its numbers checked. */
static const char *expect_syscall(const char *text, const char *name, unsigned count, double off,
				  double sleep, double wait)
{
	const char *p = strstr(text, "By syscall at switch-out:");
	size_t nl = strlen(name);

	assert_non_null(p);
	for (p = strchr(p, '\n'); p && p[1] && p[1] != '\n'; p = strchr(p + 1, '\n')) {
		const char *q = p + 1;
		unsigned c;
		double o, s, k, w;

		while (*q == ' ')
			q++;
		if (strncmp(q, name, nl) || q[nl] != ' ')
			continue;
		assert_int_equal(sscanf(q + nl, "%u %lf %lf %lf %lf", &c, &o, &s, &k, &w), 5);
		assert_float_equal(k, 0, 1e-9);
		assert_int_equal(c, count);
		assert_float_equal(o, off, 1e-9);
		assert_float_equal(s, sleep, 1e-9);
		assert_float_equal(w, wait, 1e-9);
		return q;
	}
	fail_msg("no syscall row %s", name);
	return NULL;
}

static void expect_func(const char *text, const char *object, const char *name, double excl,
			double excl_sleep, double excl_wait, double incl)
{
	char line[512], tail[256];
	double e, s, k, w, i;

	snprintf(tail, sizeof(tail), "  %s", name);
	assert_non_null(row(text, "By function", tail, line, sizeof(line)));
	assert_int_equal(sscanf(line, "%lf %lf %lf %lf %lf", &e, &s, &k, &w, &i), 5);
	assert_float_equal(k, 0, 1e-9);
	assert_float_equal(e, excl, 1e-9);
	assert_float_equal(s, excl_sleep, 1e-9);
	assert_float_equal(w, excl_wait, 1e-9);
	assert_float_equal(i, incl, 1e-9);
	if (object[0])
		assert_non_null(strstr(line, object));
}

static bool has_func(const char *text, const char *name)
{
	char line[512], tail[256];

	snprintf(tail, sizeof(tail), "  %s", name);
	return row(text, "By function", tail, line, sizeof(line)) != NULL;
}

/* Names of the function rows in order, one per line. */
static void func_order(const char *text, char *names, size_t len)
{
	const char *p = strstr(text, "<Total>");

	names[0] = '\0';
	assert_non_null(p);
	for (p = strchr(p, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		const char *end = strchr(p + 1, '\n'), *name;

		end = end ? end : p + 1 + strlen(p + 1);
		/* the name is what follows the last run of two spaces */
		name = p + 1;
		for (const char *q = p + 1; q + 1 < end; q++)
			if (q[0] == ' ' && q[1] == ' ' && q + 2 < end && q[2] != ' ')
				name = q + 2;
		snprintf(names + strlen(names), len - strlen(names), "%.*s\n", (int)(end - name),
			 name);
	}
}

static void whole_tree(void **state)
{
	struct fx *f = *state;
	char err[256], order[1024];
	int rc;
	char *text = run(f->exp, true, 0, 0, &rc, err, sizeof(err));

	assert_int_equal(rc, 0);
	assert_non_null(strstr(text, "Off-CPU: 6 intervals in 3 threads: 0.050 s off CPU (sleep "
				     "0.038 s, user lock 0.000 s, wait CPU 0.012 s)\n"));
	const char *t1 = expect_thread(text, 100, 100, 2, 0.013, 0.008, 0.005, 1, 1, 10.0);
	const char *t2 = expect_thread(text, 100, 101, 2, 0.024, 0.024, 0.000, 2, 0, 20.0);
	const char *t3 = expect_thread(text, 200, 200, 2, 0.013, 0.006, 0.007, 1, 1, 7.0);

	/* by off-CPU, then pid and tid */
	assert_true(t2 < t1 && t1 < t3);
	const char *s1 = expect_syscall(text, "clock_nanosleep", 2, 0.024, 0.024, 0.0);
	const char *s2 = expect_syscall(text, "read", 2, 0.017, 0.008, 0.009);
	const char *s3 = expect_syscall(text, "(user code)", 2, 0.009, 0.006, 0.003);

	assert_true(s1 < s2 && s2 < s3);

	/* The leaf in the library takes exclusive time; its callers inclusive. */
	expect_func(text, "libsymfix.so.1", "symfix_add", 0.030, 0.028, 0.002, 0.030);
	/* Leaf exact at the function's first byte; recursion counted once. */
	expect_func(text, "symfix_pie", "fix_square", 0.003, 0.0, 0.003, 0.013);
	/* A return address just past its end is still the caller's (pc - 1). */
	expect_func(text, "symfix_pie", "fix_cube", 0.0, 0.0, 0.0, 0.033);
	expect_func(text, "", "<no user stack>", 0.004, 0.004, 0.0, 0.004);
	/* pid 200 has no experiment: one <Unknown>, once per interval inclusive. */
	expect_func(text, "<Unknown>", "<Unknown>", 0.013, 0.006, 0.007, 0.013);
	expect_func(text, "", "<Total>", 0.050, 0.038, 0.012, 0.050);
	func_order(text, order, sizeof(order));
	assert_string_equal(order,
			    "symfix_add\n<Unknown>\n<no user stack>\nfix_square\nfix_cube\n");
	free(text);

	/* top 2 */
	text = run(f->exp, true, 0, 2, &rc, err, sizeof(err));
	assert_int_equal(rc, 0);
	assert_non_null(strstr(text, "By function, top 2 of 5 by exclusive off-CPU:\n"));
	func_order(text, order, sizeof(order));
	assert_string_equal(order, "symfix_add\n<Unknown>\n");
	free(text);
}

static void one_process(void **state)
{
	struct fx *f = *state;
	char err[256];
	int rc;
	char *text = run(f->exp, true, 100, 0, &rc, err, sizeof(err));

	assert_int_equal(rc, 0);
	assert_non_null(strstr(text, "Off-CPU: 4 intervals in 2 threads: 0.037 s off CPU (sleep "
				     "0.032 s, user lock 0.000 s, wait CPU 0.005 s)\n"));
	expect_thread(text, 100, 100, 2, 0.013, 0.008, 0.005, 1, 1, 10.0);
	expect_thread(text, 100, 101, 2, 0.024, 0.024, 0.000, 2, 0, 20.0);
	assert_null(thread_row(text, 200, 200));
	expect_syscall(text, "read", 1, 0.010, 0.008, 0.002);
	expect_func(text, "libsymfix.so.1", "symfix_add", 0.030, 0.028, 0.002, 0.030);
	assert_false(has_func(text, "<Unknown>"));
	free(text);

	text = run(f->exp, true, 300, 0, &rc, err, sizeof(err));
	assert_int_equal(rc, -ENOENT);
	assert_string_equal(text, "");
	assert_non_null(strstr(err, "has no off-CPU data for process 300"));
	assert_non_null(strstr(err, f->exp));
	assert_null(strchr(err, '\n'));
	free(text);
}

static void founder_only(void **state)
{
	struct fx *f = *state;
	char err[256];
	int rc;
	/* Without the subexperiments no pid has mappings: every frame is <Unknown>. */
	char *text = run(f->exp, false, 0, 0, &rc, err, sizeof(err));

	assert_int_equal(rc, 0);
	expect_func(text, "<Unknown>", "<Unknown>", 0.046, 0.034, 0.012, 0.046);
	assert_false(has_func(text, "symfix_add"));
	free(text);
}

static void no_data(void **state)
{
	struct fx *f = *state;
	char err[256], path[1024], want[1200];
	int rc;
	char *text;

	/* A subexperiment alone has mappings but no off-CPU records. */
	snprintf(path, sizeof(path), "%s/_x_PID_100.1.er", f->exp);
	text = run(path, true, 0, 0, &rc, err, sizeof(err));
	assert_int_equal(rc, -ENOENT);
	assert_string_equal(text, "");
	free(text);
	snprintf(want, sizeof(want), "%s has no off-CPU data (record with -k or --offcpu)", path);
	assert_string_equal(err, want);
	/* Not an experiment: the reader's error. */
	snprintf(path, sizeof(path), "%s/none.er", f->dir);
	text = run(path, true, 0, 0, &rc, err, sizeof(err));
	assert_true(rc < 0);
	assert_true(err[0] != '\0');
	free(text);
}

static void pc_naming(void **state)
{
	struct fx *f = *state;
	struct bc_pcnamer n = {0};
	struct bc_segments segs = {0};
	struct bc_ksyms ks = {0};
	struct bc_ksym k[2] = {{0xffffffff81000000ULL, 0x100, 0, "do_sys_poll"},
			       {0xffffffffa0000000ULL, 0x80, 1, "ext4`ext4_read"}};
	struct bc_mapping m = {.start = BASE_EXE, .end = BASE_EXE + 0x100000, .path = EXE};
	const char *name, *object;
	char path[4200], err[256];

	(void)f;
	ks.v = k;
	ks.n = 2;
	assert_int_equal(
		bc_pcname(&n, "/nonexistent", &segs, &ks, 0xffffffff81000010ULL, 0, &name, &object),
		0);
	assert_string_equal(name, "vmlinux`do_sys_poll");
	assert_string_equal(object, "vmlinux");
	assert_int_equal(
		bc_pcname(&n, "/nonexistent", &segs, &ks, 0xffffffffa0000010ULL, 0, &name, &object),
		0);
	assert_string_equal(name, "ext4`ext4_read");
	/* between functions: gprofng's <static>@ the end of the one before */
	assert_int_equal(
		bc_pcname(&n, "/nonexistent", &segs, &ks, 0xffffffff90000000ULL, 0, &name, &object),
		0);
	assert_string_equal(name, "<static>@0xffffffff81000100");
	assert_string_equal(object, "vmlinux");
	/* before the first, after the last: no frame gprofng shows */
	assert_int_equal(
		bc_pcname(&n, "/nonexistent", &segs, &ks, 0xffffffff80000000ULL, 0, &name, &object),
		2);
	assert_int_equal(
		bc_pcname(&n, "/nonexistent", &segs, &ks, 0xffffffffa0000090ULL, 0, &name, &object),
		2);
	assert_string_equal(name, "<Unknown>");
	assert_string_equal(object, "<Unknown>");
	assert_int_equal(bc_pcname(&n, "/nonexistent", &segs, &ks, 0x1234, 0, &name, &object), 0);
	assert_string_equal(name, "<Unknown>");

	/* Segments read back from map.xml. */
	snprintf(path, sizeof(path), "%s/_x_PID_100.1.er", f->exp);
	assert_int_equal(bc_segments_read(path, &segs, err, sizeof(err)), 0);
	assert_int_equal(segs.n, 2);
	assert_true(bc_segments_timeless(&segs));
	assert_int_equal(
		bc_pcname(&n, path, &segs, &ks, BASE_EXE + f->cube.offset, T0, &name, &object), 0);
	assert_string_equal(name, "fix_cube");
	assert_string_equal(object, "symfix_pie");
	bc_segments_free(&segs);

	/* Two mappings of one range: the one live at the time wins, else any. */
	m.ktime = T0;
	assert_int_equal(bc_segments_add(&segs, &m), 0);
	m.ktime = T0 + 10;
	m.offset = 0x1000000; /* past the file: no symbol there */
	assert_int_equal(bc_segments_add(&segs, &m), 0);
	m.unmap = true; /* skipped */
	assert_int_equal(bc_segments_add(&segs, &m), 0);
	assert_int_equal(segs.n, 2);
	assert_false(bc_segments_timeless(&segs));
	assert_int_equal(bc_pcname(&n, "/nonexistent", &segs, &ks, BASE_EXE + f->cube.offset,
				   T0 + 5, &name, &object),
			 0);
	assert_string_equal(name, "fix_cube");
	assert_int_equal(bc_pcname(&n, "/nonexistent", &segs, &ks, BASE_EXE + f->cube.offset,
				   T0 + 10, &name, &object),
			 0);
	/* past the last symbol: <static>@ the end of the last one */
	assert_true(!strncmp(name, "<static>@0x", 11));
	assert_string_equal(object, "symfix_pie");

	/*
	 * The first mapped again (a dlopen loop), later and earlier: kept once,
	 * named by the latest of its times made by then, as if kept each time.
	 */
	m.unmap = false;
	m.offset = 0;
	m.ktime = T0 + 20;
	assert_int_equal(bc_segments_add(&segs, &m), 0);
	m.ktime = T0 - 5;
	assert_int_equal(bc_segments_add(&segs, &m), 0);
	assert_int_equal(bc_segments_add(&segs, &m), 0);
	assert_int_equal(segs.n, 2);
	assert_int_equal(segs.v[0].ktime, T0 - 5);
	assert_int_equal(segs.v[0].n_later, 2);
	static const struct {
		uint64_t when;
		bool cube;
	} at[] = {{T0 + 25, true}, {T0 + 15, false}, {T0 + 5, true},
		  {T0 - 1, true},  {T0 - 10, true},  {T0 + 10, false}};
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		assert_int_equal(bc_pcname(&n, "/nonexistent", &segs, &ks,
					   BASE_EXE + f->cube.offset, at[i].when, &name, &object),
				 0);
		if (at[i].cube != !strcmp(name, "fix_cube"))
			fail_msg("at T0%+lld: %s", (long long)(at[i].when - T0), name);
	}
	bc_segments_free(&segs);
	bc_pcnamer_free(&n);
}

static void function_index(void **state)
{
	struct bc_fnindex ix = {0};
	char name[32];

	(void)state;
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(bc_fnindex_get(&ix, name, i % 2 ? "a" : "b"), i);
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(bc_fnindex_get(&ix, name, i % 2 ? "a" : "b"), i);
	}
	/* the same name in another object is another function */
	assert_int_equal(bc_fnindex_get(&ix, "f1", "b"), 5000);
	assert_int_equal(bc_fnindex_get(&ix, "f1", "a"), 1);
	assert_int_equal(bc_fnindex_get(&ix, "", ""), 5001);
	assert_string_equal(ix.v[5000].object, "b");
	assert_int_equal(ix.n, 5002);
	bc_fnindex_free(&ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(whole_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(one_process, setup, teardown),
		cmocka_unit_test_setup_teardown(founder_only, setup, teardown),
		cmocka_unit_test_setup_teardown(no_data, setup, teardown),
		cmocka_unit_test_setup_teardown(pc_naming, setup, teardown),
		cmocka_unit_test(function_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
