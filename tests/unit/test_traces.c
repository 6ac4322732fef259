// SPDX-License-Identifier: MIT
/* Heap and sync packets in gprofng's layout: written by er_traces, read back by profile_data. */
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

#include "bpfcollect/er_profile.h"
#include "bpfcollect/er_traces.h"
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

static struct bc_rec_heap *heap_rec(uint32_t tid, uint64_t t, uint16_t htype, uint64_t size,
				    uint64_t addr, uint64_t old)
{
	size_t size_rec = sizeof(struct bc_rec_heap) + 8 * 2;
	struct bc_rec_heap *r = calloc(1, size_rec);

	assert_non_null(r);
	r->h.size = (uint16_t)size_rec;
	r->h.kind = BC_REC_HEAP;
	r->h.tid = tid;
	r->h.ktime = t;
	r->start_ktime = t - 100;
	r->htype = htype;
	r->size = size;
	r->addr = addr;
	r->old_addr = old;
	r->pc = 0x7000;
	r->n_user = 2;
	r->ips[0] = 0x401010;
	r->ips[1] = 0x402020;
	return r;
}

static void round_trip(void **state)
{
	char dir[] = "/tmp/bc-traces.XXXXXX", decl[8192], err[256];
	struct er_profile frames;
	struct er_traces t;
	struct bc_prof_data d;
	int dirfd, n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dirfd >= 0);
	assert_int_equal(er_profile_open(&frames, dirfd, 0), 0); /* stacks only */
	assert_int_equal(faccessat(dirfd, "profile", F_OK, 0), -1);
	assert_int_equal(er_traces_open(&t, dirfd, true, true), 0);

	struct bc_rec_heap *m = heap_rec(7, 1000, 0, 100, 0xa000, 0);
	struct bc_rec_heap *re = heap_rec(7, 2000, 2, 300, 0xb000, 0xa000);
	size_t sz = sizeof(struct bc_rec_sync) + 8;
	struct bc_rec_sync *y = calloc(1, sz);

	assert_non_null(y);
	y->h.size = (uint16_t)sz;
	y->h.kind = BC_REC_SYNC;
	y->h.tid = 8;
	y->h.ktime = 5000;
	y->start_ktime = 3000;
	y->object = 0xc0ffee;
	y->pc = 0x7100;
	y->n_user = 1;
	y->ips[0] = 0x403000;
	assert_int_equal(er_traces_add_heap(&t, &frames, m), 0);
	assert_int_equal(er_traces_add_heap(&t, &frames, re), 0);
	assert_int_equal(er_traces_add_sync(&t, &frames, y), 0);
	assert_int_equal(er_profile_flush(&frames), 0);
	assert_int_equal(er_traces_flush(&t), 0);
	assert_int_equal(t.f[ER_TRACE_HEAP].packets, 2);
	assert_int_equal(t.f[ER_TRACE_SYNC].packets, 1);
	er_traces_close(&t);
	er_profile_close(&frames);
	close(dirfd);

	n = er_traces_decl(decl, sizeof(decl), true, true, 20);
	assert_true(n > 0 && (size_t)n < sizeof(decl));
	assert_non_null(strstr(decl, "<profile name=\"heaptrace\">"));
	assert_non_null(strstr(decl, "<profile name=\"synctrace\" threshold=\"20\" scope=\"1\">"));
	/* a decl that does not fit says how long it would be, as snprintf does */
	assert_int_equal(er_traces_decl(decl, 10, true, true, 20), n);
	er_traces_decl(decl, sizeof(decl), true, true, 20);
	write_text(dir, "log.xml", decl, strlen(decl));

	assert_int_equal(bc_prof_data_read(dir, &d, err, sizeof(err)), 0);
	assert_true(d.has_heap && d.has_sync);
	assert_int_equal(d.ptimer_us, 0);
	assert_int_equal(d.n_heap, 2);
	assert_int_equal(d.n_sync, 1);
	assert_int_equal(d.bad_packets, 0);
	assert_int_equal(d.heap[0].tid, 7);
	assert_int_equal(d.heap[0].tstamp, 1000);
	assert_int_equal(d.heap[0].type, 0);
	assert_int_equal(d.heap[0].size, 100);
	assert_int_equal(d.heap[0].addr, 0xa000);
	assert_int_equal(d.heap[1].type, 2);
	assert_int_equal(d.heap[1].old_addr, 0xa000);
	assert_int_equal(d.sync[0].start, 3000);
	assert_int_equal(d.sync[0].tstamp, 5000);
	assert_int_equal(d.sync[0].addr, 0xc0ffee);
	/* the heap stack: the function's entry exact, then callers minus one */
	const struct bc_prof_stack *st = bc_prof_stack_find(&d, d.heap[0].frinfo);

	assert_non_null(st);
	assert_int_equal(st->n, 3);
	assert_true(st->pcs[0] == 0x7000 && st->pcs[1] == 0x401010 - 1 &&
		    st->pcs[2] == 0x402020 - 1);
	assert_true(d.heap[0].frinfo == d.heap[1].frinfo); /* one FRAME for both */
	assert_int_equal(d.n_stacks, 2);
	bc_prof_data_free(&d);

	/* Torn: a packet cut short at the end is dropped, the rest kept. */
	char path[600];

	snprintf(path, sizeof(path), "%s/heaptrace", dir);
	assert_int_equal(truncate(path, 80 + 40), 0);
	assert_int_equal(bc_prof_data_read(dir, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n_heap, 1);
	assert_int_equal(d.bad_packets, 1);
	bc_prof_data_free(&d);
	free(m);
	free(re);
	free(y);
	remove_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
