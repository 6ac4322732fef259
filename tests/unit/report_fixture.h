/* SPDX-License-Identifier: MIT */
/*
 * Fixture of the report tests: a function table (main, a, b, fib and a long
 * C++ name), a report and its sink per test, and helpers that build records,
 * pass them through bc_decode() into the sink and print the tables.
 */
#ifndef BC_TEST_REPORT_FIXTURE_H
#define BC_TEST_REPORT_FIXTURE_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/model.h"
#include "bpfcollect/report.h"

#define PID	      1000
#define NR_READ	      0
#define NR_OPENAT     257
#define NR_EXIT_GROUP 231

/* Function ids, in the order setup() adds them. */
enum { F_MAIN, F_A, F_B, F_FIB, F_LONG, NFUNCS };

#define LONG_NAME                                                                                  \
	"_ZNSt6vectorIN5boost6detail12adj_list_genINS0_14adjacency_listINS0_4vecSEES5_"            \
	"NS0_14bidirectionalSEEE6configE"

struct fixture {
	struct bc_functab funcs;
	struct bc_report *r;
	struct bc_sink *sink;
	char *text; /* last printed table */
};

static inline int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	bc_functab_init(&fx->funcs);
	if (bc_functab_add(&fx->funcs, "main", "/usr/bin/demo", 0x1000, 64, 0x1000) ||
	    bc_functab_add(&fx->funcs, "a", "/usr/bin/demo", 0x1040, 16, 0x1040) ||
	    bc_functab_add(&fx->funcs, "b", "/usr/lib/libb.so.1", 0x2000, 16, 0x2000) ||
	    bc_functab_add(&fx->funcs, "fib", "/usr/bin/demo", 0x1050, 32, 0x1050) ||
	    bc_functab_add(&fx->funcs, LONG_NAME, "/usr/lib/x86_64-linux-gnu/libboost_graph.so",
			   0x3000, 8, 0x3000))
		return -1;
	fx->r = bc_report_new();
	if (!fx->r)
		return -1;
	fx->sink = bc_report_sink(fx->r);
	*state = fx;
	return 0;
}

static inline int teardown(void **state)
{
	struct fixture *fx = *state;

	/* A no-op by contract: the report owns its sink. */
	bc_sink_destroy(fx->sink);
	bc_report_free(fx->r);
	bc_functab_free(&fx->funcs);
	free(fx->text);
	free(fx);
	return 0;
}

static inline void feed(struct fixture *fx, const void *rec)
{
	const struct bc_rec_head *h = rec;
	struct bc_event ev;

	assert_int_equal(bc_decode(rec, h->size, &fx->funcs, &ev), h->size);
	assert_int_equal(bc_sink_event(fx->sink, &ev), 0);
}

static inline struct bc_rec_head head(uint16_t size, uint16_t kind, uint32_t tid, uint64_t ktime)
{
	return (struct bc_rec_head){
		.size = size, .kind = kind, .pid = PID, .tid = tid, .ktime = ktime};
}

static inline void entry(struct fixture *fx, uint32_t tid, uint32_t func_id, uint64_t ktime)
{
	struct bc_rec_func_entry rec = {
		.h = head(sizeof(rec), BC_REC_FUNC_ENTRY, tid, ktime),
		.func_id = func_id,
	};

	feed(fx, &rec);
}

/* entry_ktime 0: as if the BPF side had not seen the entry. */
static inline void ret_at(struct fixture *fx, uint32_t tid, uint32_t func_id, uint64_t ktime,
			  uint64_t entry_ktime)
{
	struct bc_rec_func_return rec = {
		.h = head(sizeof(rec), BC_REC_FUNC_RETURN, tid, ktime),
		.func_id = func_id,
		.entry_ktime = entry_ktime,
	};

	feed(fx, &rec);
}

static inline void ret(struct fixture *fx, uint32_t tid, uint32_t func_id, uint64_t ktime)
{
	ret_at(fx, tid, func_id, ktime, 0);
}

static inline void sys_enter(struct fixture *fx, uint32_t tid, uint32_t nr, uint64_t ktime)
{
	struct bc_rec_sys_enter rec = {
		.h = head(sizeof(rec), BC_REC_SYS_ENTER, tid, ktime),
		.nr = nr,
	};

	feed(fx, &rec);
}

static inline void sys_exit(struct fixture *fx, uint32_t tid, uint32_t nr, int64_t retval,
			    uint64_t ktime, uint64_t enter_ktime)
{
	struct bc_rec_sys_exit rec = {
		.h = head(sizeof(rec), BC_REC_SYS_EXIT, tid, ktime),
		.nr = nr,
		.ret = retval,
		.enter_ktime = enter_ktime,
	};

	feed(fx, &rec);
}

/* A sys enter/exit pair taking `ns`; `at` must not be 0, which means "entry unseen". */
static inline void syscall_pair(struct fixture *fx, uint32_t nr, int64_t retval, uint64_t at,
				uint64_t ns)
{
	sys_enter(fx, 100, nr, at);
	sys_exit(fx, 100, nr, retval, at + ns, at);
}

static inline void end(struct fixture *fx)
{
	struct bc_session_end e = {.exit_status = 0};

	assert_int_equal(bc_sink_end(fx->sink, &e), 0);
}

static inline const struct bc_func_stats *func(struct fixture *fx, uint32_t id)
{
	const struct bc_func_stats *f = bc_report_func(fx->r, id);

	assert_non_null(f);
	return f;
}

static inline void assert_times(const struct bc_func_stats *f, uint64_t calls, uint64_t incl,
				uint64_t excl)
{
	assert_int_equal(f->calls, calls);
	assert_int_equal(f->incl_ns, incl);
	assert_int_equal(f->excl_ns, excl);
}

/* Prints one table into fx->text, which teardown frees even if a check fails. */
static inline const char *print(struct fixture *fx, bool syscalls, enum bc_sort_key key,
				size_t top_n)
{
	size_t len = 0;
	FILE *out;

	free(fx->text);
	fx->text = NULL;
	out = open_memstream(&fx->text, &len);
	assert_non_null(out);
	if (syscalls)
		assert_int_equal(bc_report_print_syscalls(fx->r, out), 0);
	else
		assert_int_equal(bc_report_print_functions(fx->r, out, key, top_n), 0);
	assert_int_equal(fclose(out), 0);
	return fx->text;
}

#define print_functions(fx, key, top_n) print(fx, false, key, top_n)
#define print_syscalls(fx)		print(fx, true, BC_SORT_EXCL, 0)

#endif /* BC_TEST_REPORT_FIXTURE_H */
