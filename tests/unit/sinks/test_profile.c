// SPDX-License-Identifier: MIT
/* The clock profile in gprofng's layout: written by er_profile, read back by profile_data. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sinks/er/er_profile.h"
#include "bpfcollect/profile_data.h"

static void write_text(const char *dir, const char *name, const char *text, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void remove_dir(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A sample record with nk kernel and nu user frames (0x1000 * (i + 1) + base). */
static struct bc_rec_profile *sample(uint32_t tid, uint64_t t, int nk, int nu, uint64_t base)
{
	size_t size = sizeof(struct bc_rec_profile) + 8 * (size_t)(nk + nu);
	struct bc_rec_profile *r = calloc(1, size);

	assert_non_null(r);
	r->h.size = (uint16_t)size;
	r->h.kind = BC_REC_PROFILE;
	r->h.pid = 100;
	r->h.tid = tid;
	r->h.ktime = t;
	r->cpu = 1;
	r->n_kernel = (uint16_t)nk;
	r->n_user = (uint16_t)nu;
	for (int i = 0; i < nk; i++)
		r->ips[i] = 0xffffffff81000000ULL + 0x100 * (uint64_t)(i + 1);
	for (int i = 0; i < nu; i++)
		r->ips[nk + i] = base + 0x1000 * (uint64_t)(i + 1);
	return r;
}

static void round_trip(void **state)
{
	char dir[] = "/tmp/bc-profile.XXXXXX", decl[2048];
	struct er_profile p;
	struct bc_prof_data d;
	char err[256];
	int dirfd, n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dirfd >= 0);
	assert_int_equal(er_profile_open(&p, dirfd, 10000), 0);
	struct bc_rec_profile *user = sample(7, 1000, 0, 3, 0x400000);
	struct bc_rec_profile *kern = sample(8, 2000, 2, 2, 0x400000);

	assert_int_equal(er_profile_add(&p, user), 0);
	assert_int_equal(er_profile_add(&p, user), 0); /* same stack: one FRAME */
	assert_int_equal(er_profile_add(&p, kern), 0);
	/* No data.frameinfo before the first flush: gprofng skips an empty one. */
	assert_int_equal(faccessat(dirfd, "data.frameinfo", F_OK, 0), -1);
	assert_int_equal(er_profile_flush(&p), 0);
	assert_int_equal(faccessat(dirfd, "data.frameinfo", F_OK, 0), 0);
	assert_int_equal(p.samples, 3);
	assert_int_equal(p.n_uids, 2);
	er_profile_close(&p);
	close(dirfd);

	n = er_profile_decl(decl, sizeof(decl), 10000, false);
	assert_true(n > 0 && (size_t)n < sizeof(decl));
	assert_non_null(strstr(decl, "ptimer=\"10000\" numstates=\"2\""));
	write_text(dir, "log.xml", decl, strlen(decl));
	assert_int_equal(bc_prof_data_read(dir, &d, err, sizeof(err)), 0);
	assert_int_equal(d.ptimer_us, 10000);
	assert_int_equal(d.n_samples, 3);
	assert_int_equal(d.n_stacks, 2);
	assert_int_equal(d.bad_packets, 0);
	assert_int_equal(d.samples[0].tid, 7);
	assert_int_equal(d.samples[0].tstamp, 1000);
	assert_int_equal(d.samples[0].mstate, 0); /* user */
	assert_int_equal(d.samples[0].nticks, 1);
	assert_int_equal(d.samples[2].mstate, 1); /* system: it has kernel frames */
	assert_true(d.samples[0].frinfo == d.samples[1].frinfo);
	const struct bc_prof_stack *st = bc_prof_stack_find(&d, d.samples[2].frinfo);

	assert_non_null(st);
	assert_int_equal(st->n, 4);
	/* Kernel first; frame 0 of each side exact, callers minus one. */
	assert_true(st->pcs[0] == 0xffffffff81000100ULL);
	assert_true(st->pcs[1] == 0xffffffff81000200ULL - 1);
	assert_true(st->pcs[2] == 0x401000);
	assert_true(st->pcs[3] == 0x402000 - 1);
	assert_null(bc_prof_stack_find(&d, 12345));
	bc_prof_data_free(&d);
	free(user);
	free(kern);
	remove_dir(dir);
}

/* An off-CPU interval: blocked from off to woke, runnable until on. */
static struct bc_rec_offcpu *interval(uint32_t tid, uint64_t off, uint64_t woke, uint64_t on,
				      int32_t syscall)
{
	size_t size = sizeof(struct bc_rec_offcpu) + 8 * 2;
	struct bc_rec_offcpu *r = calloc(1, size);

	assert_non_null(r);
	r->h.size = (uint16_t)size;
	r->h.kind = BC_REC_OFFCPU;
	r->h.pid = 100;
	r->h.tid = tid;
	r->h.ktime = on;
	r->off_ktime = off;
	r->wake_ktime = woke;
	r->state = 1;
	r->syscall = syscall;
	r->n_user = 2;
	r->ips[0] = 0x401000;
	r->ips[1] = 0x402000;
	return r;
}

/* Sums NTICK per MSTATE of thread tid. */
static void ticks_by_state(const struct bc_prof_data *d, uint64_t tid, int64_t by_state[10])
{
	memset(by_state, 0, 10 * sizeof(*by_state));
	for (size_t i = 0; i < d->n_samples; i++)
		if (d->samples[i].tid == tid && d->samples[i].mstate >= 0 &&
		    d->samples[i].mstate < 10)
			by_state[d->samples[i].mstate] += d->samples[i].nticks;
}

static void offcpu_clock(void **state)
{
	char dir[] = "/tmp/bc-offcpu.XXXXXX", decl[2048], err[256];
	const uint64_t ms = 1000000;
	struct er_profile p;
	struct bc_prof_data d;
	int64_t by_state[10];
	int dirfd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dirfd >= 0);
	assert_int_equal(er_profile_open(&p, dirfd, 1000), 0);
	/* Thread 7 sleeps 2.6 ms five times (13 ms), then waits 0.4 ms for a CPU each time. */
	for (int i = 0; i < 5; i++) {
		struct bc_rec_offcpu *r =
			interval(7, 10 * ms * i, 10 * ms * i + 2600000, 10 * ms * i + 3000000, 35);

		assert_int_equal(er_profile_add_offcpu(&p, r), 0);
		free(r);
	}
	/* Thread 8 blocks in a futex 5.5 ms, then preempted 0.9 ms: under a tick, carried. */
	struct bc_rec_offcpu *lock = interval(8, 0, 5500000, 5500000, 202);
	struct bc_rec_offcpu *pre = interval(8, 6 * ms, 0, 6 * ms + 900000, -1);

	pre->state = 0;
	pre->preempt = 1;
	assert_int_equal(er_profile_add_offcpu(&p, lock), 0);
	assert_int_equal(er_profile_add_offcpu(&p, pre), 0);
	assert_int_equal(er_profile_flush(&p), 0);
	assert_int_equal(p.offcpu_intervals, 7);
	er_profile_close(&p);
	close(dirfd);

	er_profile_decl(decl, sizeof(decl), 1000, true);
	assert_non_null(strstr(decl, "ptimer=\"1000\" numstates=\"10\""));
	write_text(dir, "log.xml", decl, strlen(decl));
	assert_int_equal(bc_prof_data_read(dir, &d, err, sizeof(err)), 0);
	ticks_by_state(&d, 7, by_state);
	assert_int_equal(by_state[BC_ER_MSTATE_SLEEP], 13);   /* 5 x 2.6 ms: remainders carried */
	assert_int_equal(by_state[BC_ER_MSTATE_WAIT_CPU], 2); /* 5 x 0.4 ms */
	assert_int_equal(by_state[BC_ER_MSTATE_USER_LOCK], 0);
	ticks_by_state(&d, 8, by_state);
	assert_int_equal(by_state[BC_ER_MSTATE_USER_LOCK], 5);
	assert_int_equal(by_state[BC_ER_MSTATE_SLEEP], 0);
	assert_int_equal(by_state[BC_ER_MSTATE_WAIT_CPU], 0); /* 0.9 ms: not a tick yet */
	/* Every packet on the switch-out stack: frame 0 exact, the caller minus one. */
	const struct bc_prof_stack *st = bc_prof_stack_find(&d, d.samples[0].frinfo);

	assert_non_null(st);
	assert_int_equal(st->n, 2);
	assert_true(st->pcs[0] == 0x401000 && st->pcs[1] == 0x402000 - 1);
	bc_prof_data_free(&d);
	free(lock);
	free(pre);
	remove_dir(dir);
}

static void untrusted_files(void **state)
{
	char dir[] = "/tmp/bc-profile.XXXXXX", err[256];
	const char *decl = "<profile name=\"profile\" ptimer=\"1000\" numstates=\"2\">";
	struct bc_prof_data d;
	char junk[300];

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* No <profile>: no clock profile, no error. */
	write_text(dir, "log.xml", "<experiment version=\"12.4\"/>", 28);
	assert_int_equal(bc_prof_data_read(dir, &d, err, sizeof(err)), 0);
	assert_int_equal(d.ptimer_us, 0);
	bc_prof_data_free(&d);
	/* A profile but no data files yet (nothing sampled). */
	write_text(dir, "log.xml", decl, strlen(decl));
	assert_int_equal(bc_prof_data_read(dir, &d, err, sizeof(err)), 0);
	assert_int_equal(d.ptimer_us, 1000);
	assert_int_equal(d.n_samples, 0);
	bc_prof_data_free(&d);
	/* Garbage: sizes past the end, zero sizes, odd alignment. Never a crash. */
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 37 + 11);
	write_text(dir, "data.frameinfo", junk, sizeof(junk));
	write_text(dir, "profile", junk, sizeof(junk));
	assert_int_equal(bc_prof_data_read(dir, &d, err, sizeof(err)), 0);
	assert_true(d.bad_packets > 0);
	bc_prof_data_free(&d);
	/* A truncated packet at the end: what came before is kept. */
	char pkt[56 + 20] = {0};
	uint16_t tsize = 56, type = 8;

	memcpy(pkt, &tsize, 2);
	memcpy(pkt + 2, &type, 2);
	memcpy(pkt + 56, &tsize, 2);
	memcpy(pkt + 58, &type, 2);
	write_text(dir, "profile", pkt, sizeof(pkt));
	write_text(dir, "data.frameinfo", "", 0);
	assert_int_equal(bc_prof_data_read(dir, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n_samples, 1);
	assert_int_equal(d.bad_packets, 1);
	bc_prof_data_free(&d);
	/* No log.xml: an error naming it. */
	remove_dir(dir);
	assert_true(bc_prof_data_read(dir, &d, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "log.xml"));
	bc_prof_data_free(&d);
}

static void kernel_symbols(void **state)
{
	char dir[] = "/tmp/bc-ksyms.XXXXXX";
	const char *text = "ffffffff81000000 10 T _stext\n"
			   "ffffffff81000100 40 T __x64_sys_getppid\n"
			   "ffffffff81000100 40 t __do_sys_getppid\n"
			   "ffffffff81000100 40 T __ia32_sys_getppid\n"
			   "ffffffff81000200 20 D not_text\n"
			   "garbage line\n"
			   "ffffffffa0000000 80 t ext4_write [ext4]\n";
	struct bc_ksyms k;
	const struct bc_ksym *s;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(bc_ksyms_read(dir, &k), 0); /* no file: none */
	assert_int_equal(k.n, 0);
	write_text(dir, "kallmodsyms", text, strlen(text));
	assert_int_equal(bc_ksyms_read(dir, &k), 0);
	assert_int_equal(k.n, 5);
	s = bc_ksyms_find(&k, 0xffffffff81000120ULL);
	assert_non_null(s);
	assert_string_equal(s->name, "__do_sys_getppid");      /* the shortest alias */
	assert_null(bc_ksyms_find(&k, 0xffffffff81000140ULL)); /* past its size */
	assert_null(bc_ksyms_find(&k, 0x1000));
	s = bc_ksyms_find(&k, 0xffffffffa0000010ULL);
	assert_non_null(s);
	assert_string_equal(s->name, "ext4`ext4_write");
	bc_ksyms_free(&k);
	remove_dir(dir);
}

static void stack_uids(void **state)
{
	uint64_t a[] = {1, 2, 3}, b[] = {1, 2, 4}, zero[1] = {0};

	(void)state;
	assert_true(er_stack_uid(a, 3) != er_stack_uid(b, 3));
	assert_true(er_stack_uid(a, 2) != er_stack_uid(a, 3));
	assert_true(er_stack_uid(a, 3) == er_stack_uid(a, 3));
	assert_true(er_stack_uid(zero, 0) != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),	   cmocka_unit_test(offcpu_clock),
		cmocka_unit_test(untrusted_files), cmocka_unit_test(kernel_symbols),
		cmocka_unit_test(stack_uids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
