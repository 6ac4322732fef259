// SPDX-License-Identifier: MIT
/*
 * One name table per enum: every value of every enum has a name, names
 * are distinct within a table, values past the end have none, and the
 * sinks print the table's name for every loss class (none prints "(null)").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/model.h"
#include "bpfcollect/names.h"
#include "bpfcollect/prf.h"
#include "bpfcollect/record.h"
#include "bpfcollect/sink_text.h"

typedef const char *(*name_fn)(unsigned int);

/* Names for first..last all set and distinct; none just outside. */
static void check_table(name_fn fn, unsigned int first, unsigned int last)
{
	for (unsigned int v = first; v <= last; v++) {
		const char *name = fn(v);

		assert_non_null(name);
		assert_true(name[0] != '\0');
		for (unsigned int w = first; w < v; w++)
			assert_string_not_equal(name, fn(w));
	}
	assert_null(fn(last + 1));
	if (first)
		assert_null(fn(first - 1));
	assert_null(fn(UINT32_MAX));
}

static void test_every_enum_named(void **state)
{
	(void)state;
	check_table(bc_rec_kind_name, BC_REC_FUNC_ENTRY, BC_REC_SYSCALL);
	check_table(bc_loss_class_name, 0, BC_LOSS_NR - 1);
	check_table(bc_heap_fn_name, 0, BC_HEAP_FN_NR - 1);
	check_table(bc_heap_type_name, BC_HEAP_MALLOC, BC_HEAP_MUNMAP);
	check_table(bc_sync_fn_name, 0, BC_SYNC_FN_NR - 1);
	check_table(bc_io_type_name, BC_IO_READ, BC_IO_OTHER);
	check_table(bc_fs_type_name, 0, BC_FS_UNKNOWN - 1);
	/* the values a Linux superblock maps to have gprofng's names */
	assert_string_equal(bc_fs_type_name(BC_FS_EXT4), "ext4");
	assert_string_equal(bc_fs_type_name(BC_FS_TMPFS), "tmpfs");
	assert_string_equal(bc_fs_type_name(BC_FS_SOCKFS), "sockfs");
	assert_string_equal(bc_loss_class_name(BC_LOSS_IO), "io");
}

/* A LOST record of class c fed through sink; what it printed. */
static char *lost_through(struct bc_sink *(*make)(FILE *), unsigned int c)
{
	struct bc_rec_lost l = {
		.h = {.size = sizeof(l), .kind = BC_REC_LOST, .pid = 7, .tid = 7, .ktime = 2000},
		.loss_class = c,
		.cpu = 1,
		.count = 42,
	};
	struct bc_functab funcs;
	struct bc_session sess = {.root_pid = 7, .start_ktime = 1000, .funcs = &funcs};
	struct bc_session_end end = {.end_ktime = 3000, .exit_status = 0};
	struct bc_event ev;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct bc_sink *sink;

	assert_non_null(out);
	bc_functab_init(&funcs);
	sink = make(out);
	assert_non_null(sink);
	assert_int_equal(bc_decode(&l, sizeof(l), &funcs, &ev), (int)sizeof(l));
	assert_int_equal(bc_sink_begin(sink, &sess), 0);
	assert_int_equal(bc_sink_event(sink, &ev), 0);
	assert_int_equal(bc_sink_end(sink, &end), 0);
	bc_sink_destroy(sink);
	assert_int_equal(fclose(out), 0);
	bc_functab_free(&funcs);
	return text;
}

static struct bc_sink *prf_csv(FILE *out)
{
	struct bc_prf_opts o;

	bc_prf_opts_init(&o);
	o.format = BC_PRF_CSV;
	return bc_prf_sink_new(out, &o);
}

static void test_sinks_name_every_loss_class(void **state)
{
	(void)state;
	for (unsigned int c = 0; c < BC_LOSS_NR; c++) {
		char want[64], *text;

		text = lost_through(bc_text_sink_new, c);
		snprintf(want, sizeof(want), " lost %s count=42 ", bc_loss_class_name(c));
		assert_non_null(strstr(text, want));
		assert_null(strstr(text, "(null)"));
		free(text);

		text = lost_through(prf_csv, c);
		snprintf(want, sizeof(want), ",lost_%s,", bc_loss_class_name(c));
		assert_non_null(strstr(text, want));
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_enum_named),
		cmocka_unit_test(test_sinks_name_every_loss_class),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
