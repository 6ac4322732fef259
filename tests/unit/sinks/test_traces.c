// SPDX-License-Identifier: MIT
/* Heap, sync and I/O packets in gprofng's layout: written by er_traces, read back by profile_data.
 */
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
#include "sinks/er/er_traces.h"
#include "bpfcollect/model.h"
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
	assert_int_equal(er_traces_open(&t, dirfd, true, true, false), 0);

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

	n = er_traces_decl(decl, sizeof(decl), true, true, 20, false);
	assert_true(n > 0 && (size_t)n < sizeof(decl));
	assert_non_null(strstr(decl, "<profile name=\"heaptrace\">"));
	assert_non_null(strstr(decl, "<profile name=\"synctrace\" threshold=\"20\" scope=\"1\">"));
	/* a decl that does not fit says how long it would be, as snprintf does */
	assert_int_equal(er_traces_decl(decl, 10, true, true, 20, false), n);
	er_traces_decl(decl, sizeof(decl), true, true, 20, false);
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

/* An I/O record with two frames and, when name is not NULL, name_len bytes of it. */
static struct bc_rec_io *io_rec(uint64_t t, uint16_t iotype, int32_t fd, int32_t ofd,
				uint64_t nbyte, const char *name, size_t name_len)
{
	size_t size = sizeof(struct bc_rec_io) + 16 + ((name_len + 7) & ~(size_t)7);
	struct bc_rec_io *r = calloc(1, size);

	assert_non_null(r);
	r->h.size = (uint16_t)size;
	r->h.kind = BC_REC_IO;
	r->h.tid = 9;
	r->h.ktime = t;
	r->start_ktime = t - 50;
	r->iotype = iotype;
	r->fd = fd;
	r->ofd = ofd;
	r->nbyte = nbyte;
	r->fstype = BC_FS_EXT4;
	r->n_user = 2;
	r->ips[0] = 0x7010; /* the pc after the syscall instruction */
	r->ips[1] = 0x401100;
	r->name_len = (uint16_t)name_len;
	if (name)
		memcpy((char *)r->ips + 16, name, name_len);
	return r;
}

static void io_round_trip(void **state)
{
	char dir[] = "/tmp/bc-io.XXXXXX", decl[8192], err[256], path[600];
	static const char long_name[] = "/tmp/abcdefgh"; /* sent without its NUL: cut to 7 */
	struct er_profile frames;
	struct er_traces t;
	struct bc_prof_data d;
	size_t len;
	int dirfd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dirfd >= 0);
	assert_int_equal(er_profile_open(&frames, dirfd, 0), 0);
	assert_int_equal(er_traces_open(&t, dirfd, false, false, true), 0);

	struct bc_rec_io *op = io_rec(1000, BC_IO_OPEN, 3, -1, 0, "/tmp/f", 7);
	struct bc_rec_io *wr = io_rec(2000, BC_IO_WRITE, 3, -1, 4096, NULL, 0);
	struct bc_rec_io *bad =
		io_rec(3000, BC_IO_OPEN + BC_IO_ERROR_OFFSET, -1, -1, 0, long_name, 8);

	assert_string_equal(bc_io_path(op, &len), "/tmp/f");
	assert_int_equal(len, 6);
	assert_int_equal(strlen(bc_io_path(wr, &len)), 0);
	assert_int_equal(er_traces_add_io(&t, &frames, op), 0);
	assert_int_equal(er_traces_add_io(&t, &frames, wr), 0);
	assert_int_equal(er_traces_add_io(&t, &frames, bad), 0);
	/* a record whose frames pass its end is refused */
	wr->n_user = 200;
	assert_int_equal(er_traces_add_io(&t, &frames, wr), -EINVAL);
	wr->n_user = 2;
	assert_int_equal(er_profile_flush(&frames), 0);
	assert_int_equal(er_traces_flush(&t), 0);
	assert_int_equal(t.f[ER_TRACE_IO].packets, 3);
	/* 80 + "/tmp/f" + NUL -> 88; no name -> 88; 7 bytes kept + NUL -> 88 */
	assert_int_equal(t.f[ER_TRACE_IO].size, 3 * 88);
	er_traces_close(&t);
	er_profile_close(&frames);
	close(dirfd);

	assert_true(er_traces_decl(decl, sizeof(decl), false, false, 0, true) > 0);
	assert_null(strstr(decl, "heaptrace"));
	assert_non_null(strstr(decl, "<profpckt kind=\"19\""));
	assert_non_null(strstr(decl, "name=\"IOFNAME\" uname=\"File name\" offset=\"80\""));
	write_text(dir, "log.xml", decl, strlen(decl));

	assert_int_equal(bc_prof_data_read(dir, &d, err, sizeof(err)), 0);
	assert_true(d.has_io && !d.has_heap && !d.has_sync);
	assert_int_equal(d.n_io, 3);
	assert_int_equal(d.bad_packets, 0);
	assert_int_equal(d.io[0].type, BC_IO_OPEN);
	assert_int_equal(d.io[0].fd, 3);
	assert_int_equal(d.io[0].ofd, -1);
	assert_int_equal(d.io[0].fstype, BC_FS_EXT4);
	assert_int_equal(d.io[0].start, 950);
	assert_string_equal(d.io[0].name, "/tmp/f");
	assert_int_equal(d.io[1].type, BC_IO_WRITE);
	assert_int_equal(d.io[1].nbyte, 4096);
	assert_null(d.io[1].name);
	assert_int_equal(d.io[2].type, BC_IO_OPEN + BC_IO_ERROR_OFFSET);
	assert_string_equal(d.io[2].name, "/tmp/ab");
	/* the stack: the exact pc, then the caller minus one */
	const struct bc_prof_stack *st = bc_prof_stack_find(&d, d.io[1].frinfo);

	assert_non_null(st);
	assert_int_equal(st->n, 2);
	assert_true(st->pcs[0] == 0x7010 && st->pcs[1] == 0x401100 - 1);
	bc_prof_data_free(&d);

	/* Torn in the middle of the second packet: the first is kept. */
	snprintf(path, sizeof(path), "%s/iotrace", dir);
	assert_int_equal(truncate(path, 88 + 60), 0);
	assert_int_equal(bc_prof_data_read(dir, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n_io, 1);
	assert_int_equal(d.bad_packets, 1);
	bc_prof_data_free(&d);
	free(op);
	free(wr);
	free(bad);
	remove_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(io_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
