// SPDX-License-Identifier: MIT
/*
 * Per-process usage samples: the raw_prusage_64 encoding at its limits, torn
 * and corrupt overview files, /proc parsing (hostile comm, our own process,
 * its threads, a process that exited), the exit-time constructor, the
 * report table, and a cross-check with gprofng's -statistics (skipped when
 * gprofng is not installed).
 */
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/overview.h"

#define NS  1000000000ULL
#define MS  1000000ULL
#define T0  (5000 * NS + 111) /* a run start, CLOCK_MONOTONIC ns */
#define PID 4242

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void set_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

static struct bc_usage usage(uint64_t t, uint64_t rt, uint64_t u, uint64_t s, uint64_t w,
			     uint64_t slp)
{
	struct bc_usage x = {.tstamp = t, .create = T0 - NS / 2, .rtime = rt};

	x.utime = u;
	x.stime = s;
	x.wait = w;
	x.sleep = slp;
	return x;
}

/* The three points of the printer and gprofng cases: samples 1 (1 s) and 2 (2 s). */
static void three_points(struct bc_usage p[3])
{
	p[0] = usage(T0, NS / 2, 100 * MS, 50 * MS, 10 * MS, 0);
	p[0].minf = 100, p[0].majf = 1, p[0].vctx = 5, p[0].ictx = 1;
	p[1] = usage(T0 + NS, NS / 2 + NS, 600 * MS, 150 * MS, 30 * MS, 0);
	p[1].minf = 300, p[1].majf = 2, p[1].vctx = 15, p[1].ictx = 4;
	p[1].inblk = 8, p[1].oublk = 16, p[1].ioch = 4096;
	p[2] = usage(T0 + 3 * NS, NS / 2 + 3 * NS, 900 * MS, 250 * MS, 40 * MS, 1500 * MS);
	p[2].minf = 1300, p[2].majf = 2, p[2].vctx = 45, p[2].ictx = 10;
	p[2].inblk = 8, p[2].oublk = 16, p[2].ioch = 8192, p[2].sysc = 77;
}

static void test_encode_layout(void **state)
{
	struct bc_usage u = usage(T0, 1500 * MS, 2 * NS + 7, 999999999, 3, 4);
	uint8_t rec[BC_OVERVIEW_REC_SIZE];

	(void)state;
	u.minf = 11, u.majf = 12, u.inblk = 13, u.oublk = 14;
	u.vctx = 15, u.ictx = 16, u.sysc = 17, u.ioch = 18;
	bc_overview_encode(&u, PID, rec);
	assert_int_equal(rec[0] | rec[1] << 8 | rec[2] << 16 | rec[3] << 24, PID);
	assert_int_equal(rec[4], 1); /* count */
	assert_int_equal(le64(rec + 8), 5000);
	assert_int_equal(le64(rec + 16), 111);
	assert_int_equal(le64(rec + 24), 4999);		      /* create: T0 - 0.5 s */
	assert_int_equal(le64(rec + 32), 500000111);	      /* normalized nsec */
	assert_int_equal(le64(rec + 40) | le64(rec + 48), 0); /* term */
	assert_int_equal(le64(rec + 56), 1);
	assert_int_equal(le64(rec + 64), 500 * MS);
	assert_int_equal(le64(rec + 72), 2);
	assert_int_equal(le64(rec + 80), 7);
	assert_int_equal(le64(rec + 88), 0);
	assert_int_equal(le64(rec + 96), 999999999);
	assert_int_equal(le64(rec + 192), 4); /* slptime = sleep */
	assert_int_equal(le64(rec + 208), 3); /* wtime = wait */
	for (int off = 104; off < 184; off += 8)
		assert_int_equal(le64(rec + off), 0); /* ttime .. ltime */
	for (int off = 216; off < 328; off += 8)
		assert_int_equal(le64(rec + off), 0); /* stoptime, fillers */
	assert_int_equal(le64(rec + 328), 11);
	assert_int_equal(le64(rec + 336), 12);
	assert_int_equal(le64(rec + 344), 0); /* nswap */
	assert_int_equal(le64(rec + 352), 13);
	assert_int_equal(le64(rec + 360), 14);
	for (int off = 368; off < 392; off += 8)
		assert_int_equal(le64(rec + off), 0); /* msnd mrcv sigs */
	assert_int_equal(le64(rec + 392), 15);
	assert_int_equal(le64(rec + 400), 16);
	assert_int_equal(le64(rec + 408), 17);
	assert_int_equal(le64(rec + 416), 18);
	for (int off = 424; off < BC_OVERVIEW_REC_SIZE; off += 8)
		assert_int_equal(le64(rec + off), 0);
}

static void roundtrip(const struct bc_usage *u, uint32_t pid)
{
	uint8_t rec[BC_OVERVIEW_REC_SIZE];
	struct bc_usage back;
	uint32_t p = 0;

	bc_overview_encode(u, pid, rec);
	assert_int_equal(bc_overview_decode(rec, sizeof(rec), &back, &p), 0);
	assert_int_equal(p, pid);
	assert_memory_equal(&back, u, sizeof(*u));
}

static void test_roundtrip_limits(void **state)
{
	struct bc_usage u;

	(void)state;
	memset(&u, 0, sizeof(u));
	roundtrip(&u, 0);
	memset(&u, 0xff, sizeof(u)); /* UINT64_MAX ns = 18446744073 s + 709551615 ns */
	roundtrip(&u, UINT32_MAX);
	u = usage(T0, NS - 1, NS, NS + 1, 1, 123456789012345678ULL);
	u.vctx = UINT64_MAX - 1;
	roundtrip(&u, PID);
}

static void test_decode_hostile(void **state)
{
	uint8_t rec[BC_OVERVIEW_REC_SIZE];
	struct bc_usage u = usage(T0, 0, 0, 0, 0, 0), before;
	uint32_t pid = 7;

	(void)state;
	bc_overview_encode(&u, PID, rec);
	/* gprofng adds nsec as is: {1, 2.5e9} is 3.5 s */
	set_le64(rec + 72, 1);
	set_le64(rec + 80, 2500 * MS);
	assert_int_equal(bc_overview_decode(rec, sizeof(rec), &u, NULL), 0);
	assert_int_equal(u.utime, 3500 * MS);
	assert_int_equal(bc_overview_decode(rec, sizeof(rec) - 1, &u, &pid), -EINVAL);
	assert_int_equal(bc_overview_decode(NULL, sizeof(rec), &u, &pid), -EINVAL);
	/* past 64 bits of ns: refused, outputs untouched */
	before = u;
	set_le64(rec + 88, UINT64_MAX / NS + 1);
	assert_int_equal(bc_overview_decode(rec, sizeof(rec), &u, &pid), -ERANGE);
	set_le64(rec + 88, UINT64_MAX / NS);
	set_le64(rec + 96, UINT64_MAX);
	assert_int_equal(bc_overview_decode(rec, sizeof(rec), &u, &pid), -ERANGE);
	assert_memory_equal(&u, &before, sizeof(u));
	assert_int_equal(pid, 7);
}

static void test_parse_torn(void **state)
{
	uint8_t buf[4 * BC_OVERVIEW_REC_SIZE];
	struct bc_usage p[3], *v = NULL;
	size_t n = 9, torn = 9, bad = 9;
	uint32_t pid = 9;

	(void)state;
	three_points(p);
	for (int i = 0; i < 3; i++)
		bc_overview_encode(&p[i], PID + (uint32_t)i, buf + i * BC_OVERVIEW_REC_SIZE);
	memset(buf + 3 * BC_OVERVIEW_REC_SIZE, 0x5a, BC_OVERVIEW_REC_SIZE);
	/* three whole records and 100 bytes of a fourth */
	assert_int_equal(
		bc_overview_parse(buf, 3 * BC_OVERVIEW_REC_SIZE + 100, &v, &n, &pid, &torn, &bad),
		0);
	assert_int_equal(n, 3);
	assert_int_equal(torn, 100);
	assert_int_equal(bad, 0);
	assert_int_equal(pid, PID); /* the first record's */
	assert_memory_equal(v, p, sizeof(p));
	free(v);
	/* a record with an impossible time is skipped, the others kept */
	set_le64(buf + BC_OVERVIEW_REC_SIZE + 8, UINT64_MAX);
	assert_int_equal(bc_overview_parse(buf, 3 * BC_OVERVIEW_REC_SIZE, &v, &n, NULL, NULL, &bad),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(bad, 1);
	assert_memory_equal(&v[1], &p[2], sizeof(p[2]));
	free(v);
	/* nothing whole */
	assert_int_equal(bc_overview_parse(buf, 503, &v, &n, &pid, &torn, NULL), 0);
	assert_null(v);
	assert_int_equal(n, 0);
	assert_int_equal(pid, 0);
	assert_int_equal(torn, 503);
	assert_int_equal(bc_overview_parse(NULL, 0, &v, &n, NULL, NULL, NULL), 0);
	assert_int_equal(bc_overview_parse(NULL, 1, &v, &n, NULL, NULL, NULL), -EINVAL);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(path);
}

static void rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_read_file(void **state)
{
	char dir[] = "/tmp/test_overview.XXXXXX";
	uint8_t buf[2 * BC_OVERVIEW_REC_SIZE + 10];
	struct bc_usage p[3], *v = NULL;
	size_t n = 0;
	uint32_t pid = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(bc_overview_read_file(dir, &v, &n, &pid), -ENOENT);
	three_points(p);
	bc_overview_encode(&p[0], PID, buf);
	bc_overview_encode(&p[1], PID, buf + BC_OVERVIEW_REC_SIZE);
	memset(buf + 2 * BC_OVERVIEW_REC_SIZE, 1, 10);
	write_file(dir, "overview", buf, sizeof(buf)); /* torn: a note on stderr */
	assert_int_equal(bc_overview_read_file(dir, &v, &n, &pid), 0);
	assert_int_equal(n, 2);
	assert_int_equal(pid, PID);
	assert_memory_equal(v, p, 2 * sizeof(p[0]));
	free(v);
	write_file(dir, "overview", buf, 0);
	assert_int_equal(bc_overview_read_file(dir, &v, &n, &pid), 0);
	assert_int_equal(n, 0);
	assert_null(v);
	rm_tree(dir);
	assert_int_equal(bc_overview_read_file(dir, &v, &n, &pid), -ENOENT);
}

static void test_stat_parse(void **state)
{
	static const char tail[] = " S 1 2 3 0 -1 4194304 99 7 5 8 120 34 0 -2 20 0 3 0 384526 "
				   "3133440 362 18446744073709551615 1 2\n";
	struct bc_proc_stat st;
	char line[512];

	(void)state;
	/* a comm with spaces, parentheses and a fake ") R 9 9" inside */
	snprintf(line, sizeof(line), "27333 (a) R 9 9 (b) c)%s", tail);
	assert_int_equal(bc_proc_stat_parse(line, strlen(line), &st), 0);
	assert_int_equal(st.state, 'S');
	assert_int_equal(st.minflt, 99);
	assert_int_equal(st.majflt, 5);
	assert_int_equal(st.utime, 120);
	assert_int_equal(st.stime, 34);
	assert_int_equal(st.starttime, 384526);
	/* not NUL-terminated: the length is what counts */
	assert_int_equal(bc_proc_stat_parse(line, strlen(line) - 1, &st), 0);
	/* cut before field 22, junk numbers, no parenthesis, overflow */
	assert_int_equal(bc_proc_stat_parse(line, (size_t)(strstr(line, "384526") - line), &st),
			 -EINVAL);
	snprintf(line, sizeof(line), "1 (x) S 1 2 3 0 -1 4194304 9x 7 5 8 120 34 0 -2 20 0 3 0 1");
	assert_int_equal(bc_proc_stat_parse(line, strlen(line), &st), -EINVAL);
	snprintf(line, sizeof(line), "1 x) S 1 2 3 0 -1 4 99 7 5 8 120 34 0 -2 20 0 3 0 1");
	assert_int_equal(bc_proc_stat_parse(line, strlen(line), &st), -EINVAL);
	snprintf(line, sizeof(line),
		 "1 (x) S 1 2 3 0 -1 4 99 7 5 8 18446744073709551616 34 0 -2 20 0 3 0 1");
	assert_int_equal(bc_proc_stat_parse(line, strlen(line), &st), -EINVAL);
	snprintf(line, sizeof(line), "1 (x)  S 1 2 3 0 -1 4 99 7 5 8 120 34 0 -2 20 0 3 0 1");
	assert_int_equal(bc_proc_stat_parse(line, strlen(line), &st), -EINVAL);
	assert_int_equal(bc_proc_stat_parse("", 0, &st), -EINVAL);
}

static void test_status_ctx(void **state)
{
	static const char status[] = "Name:\tvoluntary_ctxt_switches: 999\n"
				     "voluntary_ctxt_switches_x:\t5\n"
				     "State:\tS (sleeping)\n"
				     "voluntary_ctxt_switches:\t42\n"
				     "nonvoluntary_ctxt_switches:\t7\n";
	uint64_t v = 0, i = 0;

	(void)state;
	assert_int_equal(bc_proc_status_ctx(status, sizeof(status) - 1, &v, &i), 0);
	assert_int_equal(v, 42);
	assert_int_equal(i, 7);
	assert_int_equal(bc_proc_status_ctx(status, 40, &v, &i), -EINVAL);
	assert_int_equal(bc_proc_status_ctx("voluntary_ctxt_switches:\t\n", 26, &v, &i), -EINVAL);
}

static void burn_cpu(uint64_t ns)
{
	struct timespec a, b;
	volatile uint64_t x = 0;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((uint64_t)(b.tv_sec - a.tv_sec) * NS + (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec <
		 ns);
}

static void test_read_self(void **state)
{
	struct bc_usage a, b, c;
	uint64_t t0 = mono_ns();

	(void)state;
	assert_int_equal(bc_usage_read(getpid(), &a), 0);
	assert_true(a.tstamp >= t0 && a.tstamp <= mono_ns());
	assert_true(a.create <= a.tstamp && a.create > 0);
	assert_int_equal(a.rtime, a.tstamp - a.create);
	assert_true(a.minf > 0);
	burn_cpu(300 * MS);
	assert_int_equal(bc_usage_read(getpid(), &b), 0);
	/* clock ticks: 300 ms of CPU shows as at least 200 ms more of user + system */
	assert_true(b.utime + b.stime >= a.utime + a.stime + 200 * MS);
	assert_true(b.utime > a.utime);
	assert_true(b.create == a.create || b.create + 20 * MS > a.create);
	for (int i = 0; i < 5; i++)
		usleep(2000);
	assert_int_equal(bc_usage_read(getpid(), &c), 0);
	assert_true(c.vctx >= b.vctx + 5);
	/*
	 * Sleep is what the run time leaves after user, system and wait time,
	 * and user and system time advance in clock ticks: the burn's last tick
	 * may be counted only by the later read, so sleep may seem to shrink
	 * by up to that tick (seen in a full check).
	 */
	assert_true(c.sleep + 2 * (uint64_t)(1000000000 / sysconf(_SC_CLK_TCK)) >= b.sleep);
	assert_int_equal(c.sleep, c.rtime > c.utime + c.stime + c.wait
					  ? c.rtime - c.utime - c.stime - c.wait
					  : 0);
	assert_int_equal(bc_usage_read(0, &c), -EINVAL);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int phase;

static void *sleeper(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20; i++)
		usleep(1000);
	pthread_mutex_lock(&lock);
	phase = 1;
	pthread_cond_broadcast(&cond);
	while (phase != 2)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void test_read_threads_summed(void **state)
{
	char path[64], buf[4096];
	uint64_t main_v, main_i;
	struct bc_usage u;
	pthread_t t;
	FILE *f;
	size_t len;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, sleeper, NULL), 0);
	pthread_mutex_lock(&lock);
	while (phase != 1)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	assert_int_equal(bc_usage_read(getpid(), &u), 0);
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", gettid());
	f = fopen(path, "r");
	assert_non_null(f);
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(bc_proc_status_ctx(buf, len, &main_v, &main_i), 0);
	/* the sleeper's 20 sleeps count, not only the main thread's switches */
	assert_true(u.vctx >= main_v + 20);
	pthread_mutex_lock(&lock);
	phase = 2;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	assert_int_equal(pthread_join(t, NULL), 0);
}

static void test_read_exited(void **state)
{
	struct bc_usage u;
	char path[64], buf[512];
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	/* a zombie still reads */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (int i = 0; i < 2000; i++) {
		FILE *f = fopen(path, "r");
		size_t len = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[len] = 0;
		if (strstr(buf, ") Z "))
			break;
		usleep(1000);
	}
	assert_non_null(strstr(buf, ") Z "));
	assert_int_equal(bc_usage_read(pid, &u), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(bc_usage_read(pid, &u), -ESRCH);
}

static void test_from_task_and_carry(void **state)
{
	struct bc_usage u, prev;
	uint64_t ut = 3, st = 1;

	(void)state;
	bc_usage_from_task(&u, T0 + 2 * NS, T0, 500 * MS, 200 * MS, 100 * MS, 10, 3, 1000, 2);
	assert_int_equal(u.tstamp, T0 + 2 * NS);
	assert_int_equal(u.create, T0);
	assert_int_equal(u.rtime, 2 * NS);
	assert_int_equal(u.sleep, 1200 * MS);
	assert_int_equal(u.wait, 100 * MS);
	assert_int_equal(u.vctx + u.ictx + u.minf + u.majf, 10 + 3 + 1000 + 2);
	assert_int_equal(u.ioch + u.inblk + u.oublk + u.sysc, 0);
	/* a multi-threaded process: CPU beyond the wall time, no sleep; a clock going back */
	bc_usage_from_task(&u, T0, T0 + 1, 3 * NS, NS, 0, 0, 0, 0, 0);
	assert_int_equal(u.rtime, 0);
	assert_int_equal(u.sleep, 0);

	bc_cputime_adjust(1000, &ut, &st);
	assert_int_equal(ut, 750);
	assert_int_equal(st, 250);
	ut = 5, st = 0;
	bc_cputime_adjust(1000, &ut, &st);
	assert_true(ut == 1000 && st == 0);
	ut = 0, st = 5;
	bc_cputime_adjust(UINT64_MAX, &ut, &st);
	assert_true(ut == 0 && st == UINT64_MAX);
	ut = UINT64_MAX, st = UINT64_MAX;
	bc_cputime_adjust(UINT64_MAX, &ut, &st);
	assert_int_equal(ut + st, UINT64_MAX);

	/* /proc's last sample had I/O counts and more switches (a thread since exited) */
	prev = usage(T0 + NS, NS, 400 * MS, 100 * MS, 50 * MS, 450 * MS);
	prev.create = T0 - 5 * MS, prev.vctx = 50, prev.ioch = 4096;
	bc_usage_from_task(&u, T0 + 2 * NS, T0, 500 * MS, 200 * MS, 40 * MS, 10, 3, 1000, 2);
	bc_usage_carry(&prev, &u);
	assert_int_equal(u.create, T0 - 5 * MS);
	assert_int_equal(u.vctx, 50);
	assert_int_equal(u.ioch, 4096);
	assert_int_equal(u.wait, 50 * MS);
	assert_int_equal(u.utime, 500 * MS);
	assert_int_equal(u.ictx, 3);
}

static void test_interval_and_print(void **state)
{
	struct bc_overview_interval iv;
	struct bc_usage p[3];
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	three_points(p);
	bc_overview_interval(&p[0], &p[1], &iv);
	/* sleep makes up rtime: 1 s - (0.5 + 0.1 + 0.02) */
	assert_int_equal(iv.sleep, 380 * MS);
	assert_int_equal(iv.rtime, NS);
	bc_overview_interval(&p[1], &p[2], &iv);
	assert_int_equal(iv.sleep, 1590 * MS); /* 1.5 recorded + 0.09 unaccounted */
	/* a drop is 0, and states beyond rtime raise the total */
	bc_overview_interval(&p[2], &p[1], &iv);
	assert_int_equal(iv.utime + iv.vctx + iv.rtime + iv.sleep, 0);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(bc_overview_print(f, p, 3, PID), 0);
	assert_int_equal(bc_overview_print(f, p, 1, PID), 0);
	fclose(f);
	assert_string_equal(
		text,
		"Overview: pid 4242, 2 samples (times in seconds, relative to the first point)\n"
		"Sample     Start       End  User CPU System CPU  Wait CPU     Sleep  Vol ctxsw  "
		"Invol ctxsw Minor faults Major faults\n"
		"     1     0.000     1.000     0.500      0.100     0.020     0.380         10  "
		"          3          200            1\n"
		"     2     1.000     3.000     0.300      0.100     0.010     1.590         30  "
		"          6         1000            0\n"
		" Total     0.000     3.000     0.800      0.200     0.030     1.970         40  "
		"          9         1200            1\n"
		"Total Thread Time: 3.000\n"
		"Overview: pid 4242, 0 samples (times in seconds, relative to the first point)\n"
		"  no sample: the overview needs two points\n");
	free(text);
	assert_int_equal(bc_overview_print(NULL, p, 3, PID), -EINVAL);
}

/* ---------------------------------------------------------------- gprofng */

static void write_experiment(const char *dir, const struct bc_usage *p, size_t n)
{
	uint8_t rec[BC_OVERVIEW_REC_SIZE];
	char log[4096], path[512];
	size_t len;
	FILE *f;

	len = (size_t)snprintf(
		log, sizeof(log),
		"<experiment version=\"12.4\">\n<collector>test</collector>\n"
		"</experiment>\n<system hostname=\"h\" arch=\"x86_64\" os=\"Linux 6\" "
		"pagesz=\"4096\" npages=\"1000\">\n</system>\n"
		"<process pid=\"%d\"></process>\n<process wsize=\"64\"></process>\n"
		"<process>/bin/true</process>\n"
		"<event kind=\"run\" tstamp=\"%llu.%09llu\" time=\"1700000000\" "
		"tm_zone=\"0\"/>\n",
		PID, (unsigned long long)(p[0].tstamp / NS),
		(unsigned long long)(p[0].tstamp % NS));
	for (size_t k = 0; k < n; k++) {
		uint64_t rel = p[k].tstamp - p[0].tstamp;

		len += (size_t)snprintf(log + len, sizeof(log) - len,
					"<event kind=\"sample\" tstamp=\"%llu.%09llu\" id=\"%zu\" "
					"label=\"s%zu\"/>\n",
					(unsigned long long)(rel / NS),
					(unsigned long long)(rel % NS), k, k);
	}
	len += (size_t)snprintf(log + len, sizeof(log) - len,
				"<event kind=\"exit\" tstamp=\"%llu.%09llu\"/>\n",
				(unsigned long long)((p[n - 1].tstamp - p[0].tstamp) / NS),
				(unsigned long long)((p[n - 1].tstamp - p[0].tstamp) % NS));
	write_file(dir, "log.xml", log, len);
	snprintf(path, sizeof(path), "%s/overview", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (size_t k = 0; k < n; k++) {
		bc_overview_encode(&p[k], PID, rec);
		assert_int_equal(fwrite(rec, 1, sizeof(rec), f), sizeof(rec));
	}
	assert_int_equal(fclose(f), 0);
}

/* "Name: VALUE" of the block-th statistics block of gprofng's output, or -1. */
static double stat_value(const char *out, int block, const char *name)
{
	const char *p = out;
	char key[64];

	for (int b = 0; b <= block; b++) {
		p = strstr(p, "Aggregated statistics");
		if (!p)
			return -1;
		p++;
	}
	snprintf(key, sizeof(key), " %s: ", name);
	p = strstr(p, key);
	return p ? strtod(p + strlen(key), NULL) : -1;
}

static char *run_gprofng(const char *exp)
{
	char cmd[600], *out = NULL;
	size_t len = 0, cap = 0, r;
	FILE *pipe;

	snprintf(cmd, sizeof(cmd),
		 "gprofng display text -sample_select all -statistics -sample_select 1 "
		 "-statistics -sample_select 2 -statistics '%s' 2>&1",
		 exp);
	pipe = popen(cmd, "r");
	assert_non_null(pipe);
	do {
		if (cap - len < 4096) {
			char *n = realloc(out, cap ? cap * 2 : 8192);

			assert_non_null(n);
			out = n;
			cap = cap ? cap * 2 : 8192;
		}
		r = fread(out + len, 1, cap - len - 1, pipe);
		len += r;
	} while (r);
	out[len] = 0;
	assert_int_equal(pclose(pipe), 0);
	return out;
}

static void check_block(const char *out, int block, const struct bc_overview_interval *iv)
{
	static const struct {
		const char *name;
		size_t off;
		bool time;
	} m[] = {
		{"User CPU", offsetof(struct bc_overview_interval, utime), true},
		{"System CPU", offsetof(struct bc_overview_interval, stime), true},
		{"Wait CPU", offsetof(struct bc_overview_interval, wait), true},
		{"Sleep", offsetof(struct bc_overview_interval, sleep), true},
		{"Total Thread Time (sec.)", offsetof(struct bc_overview_interval, rtime), true},
		{"Minor Page Faults", offsetof(struct bc_overview_interval, minf), false},
		{"Major Page Faults", offsetof(struct bc_overview_interval, majf), false},
		{"Input blocks", offsetof(struct bc_overview_interval, inblk), false},
		{"Output blocks", offsetof(struct bc_overview_interval, oublk), false},
		{"Voluntary context switches", offsetof(struct bc_overview_interval, vctx), false},
		{"Involuntary context switches", offsetof(struct bc_overview_interval, ictx),
		 false},
		{"System calls", offsetof(struct bc_overview_interval, sysc), false},
		{"Characters of I/O", offsetof(struct bc_overview_interval, ioch), false},
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		uint64_t v;
		double got = stat_value(out, block, m[i].name), want;

		memcpy(&v, (const char *)iv + m[i].off, sizeof(v));
		want = m[i].time ? (double)v / 1e9 : (double)v;
		if (got < 0 || got < want - (m[i].time ? 0.0011 : 0.5) ||
		    got > want + (m[i].time ? 0.0011 : 0.5))
			fail_msg("block %d, %s: gprofng %.4f, ours %.4f\n%s", block, m[i].name, got,
				 want, out);
	}
}

static void crosscheck(const struct bc_usage *p)
{
	char dir[] = "/tmp/test_overview.XXXXXX", exp[64];
	struct bc_overview_interval iv[2], tot;
	char *out;

	assert_non_null(mkdtemp(dir));
	snprintf(exp, sizeof(exp), "%s/t.er", dir);
	assert_int_equal(mkdir(exp, 0755), 0);
	write_experiment(exp, p, 3);
	out = run_gprofng(exp);
	bc_overview_interval(&p[0], &p[1], &iv[0]);
	bc_overview_interval(&p[1], &p[2], &iv[1]);
	tot = iv[0];
	for (size_t i = 0; i < sizeof(tot) / sizeof(uint64_t); i++) {
		uint64_t a, b;

		memcpy(&a, (char *)&tot + i * 8, 8);
		memcpy(&b, (char *)&iv[1] + i * 8, 8);
		a += b;
		memcpy((char *)&tot + i * 8, &a, 8);
	}
	check_block(out, 0, &tot);
	check_block(out, 1, &iv[0]);
	check_block(out, 2, &iv[1]);
	free(out);
	rm_tree(dir);
}

static void test_gprofng_crosscheck(void **state)
{
	struct bc_usage p[3];

	(void)state;
	if (system("command -v gprofng >/dev/null 2>&1") != 0)
		skip();
	/* exact figures, gprofng's sleep top-up and a sample without any sleep */
	three_points(p);
	crosscheck(p);
	/* live figures of this process: a busy second, then a sleepy one */
	assert_int_equal(bc_usage_read(getpid(), &p[0]), 0);
	burn_cpu(200 * MS);
	assert_int_equal(bc_usage_read(getpid(), &p[1]), 0);
	for (int i = 0; i < 10; i++)
		usleep(5000);
	assert_int_equal(bc_usage_read(getpid(), &p[2]), 0);
	bc_usage_carry(&p[0], &p[1]);
	bc_usage_carry(&p[1], &p[2]);
	crosscheck(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_layout),
		cmocka_unit_test(test_roundtrip_limits),
		cmocka_unit_test(test_decode_hostile),
		cmocka_unit_test(test_parse_torn),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_stat_parse),
		cmocka_unit_test(test_status_ctx),
		cmocka_unit_test(test_read_self),
		cmocka_unit_test(test_read_threads_summed),
		cmocka_unit_test(test_read_exited),
		cmocka_unit_test(test_from_task_and_carry),
		cmocka_unit_test(test_interval_and_print),
		cmocka_unit_test(test_gprofng_crosscheck),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
