// SPDX-License-Identifier: MIT
/*
 * Mapping snapshots from the dynamic linker's hook (user/agent/ldso_hook.c):
 * new mappings reach the state and the sink once, known ones (same start)
 * are not repeated, a complete snapshot's end removes what the process no
 * longer maps, and one the ring lost part of removes nothing. Snapshots of
 * two processes interleave.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/recorder.h"

/* What reached the sink. */
struct seen {
	struct bc_sink base;
	unsigned int maps, unmaps;
	uint64_t last_unmap_start;
};

static int on_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	struct seen *w = (struct seen *)s;

	if (m->unmap) {
		w->unmaps++;
		w->last_unmap_start = m->start;
	} else {
		w->maps++;
	}
	return 0;
}

static const struct bc_sink_ops seen_ops = {.name = "seen", .mapping = on_mapping};

struct fixture {
	struct recorder r;
	struct seen sink;
};

static int setup(void **state)
{
	struct fixture *fx = test_calloc(1, sizeof(*fx));

	fx->sink.base.ops = &seen_ops;
	bc_state_init(&fx->r.state);
	fx->r.sink = &fx->sink.base;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	bc_state_free(&fx->r.state);
	test_free(fx);
	return 0;
}

/* A snapshot record of pid: the mapping [start, start + 4096) of /lib/NAME. */
static void entry(struct fixture *fx, uint32_t pid, uint64_t start, const char *name)
{
	static struct bc_rec_mmap rec;
	size_t n = strlen(name) + 1;

	memset(&rec, 0, sizeof(rec));
	rec.h.size = sizeof(rec);
	rec.h.kind = BC_REC_MMAP;
	rec.h.pid = rec.h.tid = pid;
	rec.start = start;
	rec.end = start + 4096;
	rec.vm_flags = 0x5;
	rec.origin = BC_MMAP_SNAPSHOT;
	memcpy(rec.path, name, n); /* leaf first: NAME, then lib */
	memcpy(rec.path + n, "lib", 4);
	rec.path_len = (uint16_t)(n + 4);
	assert_int_equal(bc_recorder_snapshot(&fx->r, &rec), 0);
}

static void end(struct fixture *fx, uint32_t pid, uint64_t sent, uint64_t missed)
{
	struct bc_rec_mmap rec = {.h = {.size = sizeof(rec), .kind = BC_REC_MMAP, .pid = pid},
				  .start = sent,
				  .end = missed,
				  .origin = BC_MMAP_SNAPSHOT_END};

	assert_int_equal(bc_recorder_snapshot(&fx->r, &rec), 0);
}

static size_t mappings_of(struct fixture *fx, uint32_t pid)
{
	size_t n = 0;

	for (size_t i = 0; i < fx->r.state.maps.n; i++)
		n += fx->r.state.maps.v[i].pid == pid;
	return n;
}

static void test_new_and_known(void **state)
{
	struct fixture *fx = *state;

	entry(fx, 10, 0x1000, "libc.so.6");
	entry(fx, 10, 0x9000, "libm.so.6");
	end(fx, 10, 2, 0);
	assert_int_equal(fx->sink.maps, 2);
	assert_int_equal(mappings_of(fx, 10), 2);
	assert_string_equal(bc_mapset_find(&fx->r.state.maps, 10, 0x1000)->path, "/lib/libc.so.6");

	/* the next dlopen: the same two and one more; only the new one is said */
	entry(fx, 10, 0x1000, "libc.so.6");
	entry(fx, 10, 0x9000, "libm.so.6");
	entry(fx, 10, 0x20000, "libplugin.so");
	end(fx, 10, 3, 0);
	assert_int_equal(fx->sink.maps, 3);
	assert_int_equal(fx->sink.unmaps, 0);
	assert_int_equal(mappings_of(fx, 10), 3);
}

static void test_dlclose_unmaps(void **state)
{
	struct fixture *fx = *state;

	entry(fx, 10, 0x1000, "libc.so.6");
	entry(fx, 10, 0x20000, "libplugin.so");
	end(fx, 10, 2, 0);
	/* dlclose: the plugin is gone from the next snapshot */
	entry(fx, 10, 0x1000, "libc.so.6");
	end(fx, 10, 1, 0);
	assert_int_equal(fx->sink.unmaps, 1);
	assert_int_equal(fx->sink.last_unmap_start, 0x20000);
	assert_int_equal(mappings_of(fx, 10), 1);
	assert_null(bc_mapset_find(&fx->r.state.maps, 10, 0x20000));
}

static void test_incomplete_removes_nothing(void **state)
{
	struct fixture *fx = *state;

	entry(fx, 10, 0x1000, "libc.so.6");
	entry(fx, 10, 0x20000, "libplugin.so");
	end(fx, 10, 2, 0);
	/* the ring had no room for one: the BPF side says so */
	entry(fx, 10, 0x1000, "libc.so.6");
	end(fx, 10, 1, 1);
	/* or a record was lost on the way: the count does not match */
	entry(fx, 10, 0x1000, "libc.so.6");
	end(fx, 10, 2, 0);
	/* or the end came alone */
	end(fx, 10, 0, 0);
	assert_int_equal(fx->sink.unmaps, 0);
	assert_int_equal(mappings_of(fx, 10), 2);
}

static void test_interleaved_processes(void **state)
{
	struct fixture *fx = *state;

	entry(fx, 10, 0x1000, "libc.so.6");
	entry(fx, 20, 0x5000, "libc.so.6");
	entry(fx, 10, 0x20000, "libplugin.so");
	end(fx, 20, 1, 0);
	end(fx, 10, 2, 0);
	assert_int_equal(fx->sink.maps, 3);
	/* 20 drops nothing of 10's; 10's second snapshot drops its plugin only */
	entry(fx, 10, 0x1000, "libc.so.6");
	entry(fx, 20, 0x5000, "libc.so.6");
	end(fx, 10, 1, 0);
	end(fx, 20, 1, 0);
	assert_int_equal(fx->sink.unmaps, 1);
	assert_int_equal(mappings_of(fx, 10), 1);
	assert_int_equal(mappings_of(fx, 20), 1);
}

/* Mappings known before any snapshot (the exec's image) count as seen when at the same start. */
static void test_exec_image_kept(void **state)
{
	struct fixture *fx = *state;
	struct bc_mapping exe = {
		.pid = 10, .start = 0x400000, .end = 0x401000, .prot = 5, .path = "/bin/prog"};

	assert_int_equal(bc_state_mapping(&fx->r.state, &exe), 0);
	entry(fx, 10, 0x400000, "prog");
	entry(fx, 10, 0x1000, "libc.so.6");
	end(fx, 10, 2, 0);
	assert_int_equal(fx->sink.maps, 1);
	assert_int_equal(fx->sink.unmaps, 0);
	assert_string_equal(bc_mapset_find(&fx->r.state.maps, 10, 0x400000)->path, "/bin/prog");
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_new_and_known),
		T(test_dlclose_unmaps),
		T(test_incomplete_removes_nothing),
		T(test_interleaved_processes),
		T(test_exec_image_kept),
	};

	return cmocka_run_group_tests_name("snapshot", tests, NULL, NULL);
}
