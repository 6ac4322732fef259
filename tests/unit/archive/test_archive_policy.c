// SPDX-License-Identifier: MIT
/*
 * The archive policy of system-wide and kernel experiments: only objects
 * the data hits (stack frames in data.frameinfo, entered probes in
 * functrace), most-hit first under a size limit; one copy per build id;
 * size limits as users write them; damaged data files.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "archive_fixture.h"
#include "bpfcollect/record.h"

#define SEG(i) (0x555500000000ULL + 0x100000ULL * (i)) /* make_exp's segment i */

/* Appends a line to DIR/NAME. */
static void append(const char *dir, const char *name, const void *data, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* The session comment of a kernel experiment, as the recorder writes it. */
static void mark_kernel(const char *exp)
{
	static const char line[] =
		"<event kind=\"comment\" tstamp=\"0.000000000\">bpfcollect: session exp_kernel=1 "
		"exp_system_wide=1 exp_root_pid=0</event>\n";

	append(exp, "log.xml", line, sizeof(line) - 1);
}

/* One FRAME packet (gprofng-format.md §5.1) holding the stack pcs[n]. */
static void add_stack(const char *exp, uint64_t uid, const uint64_t *pcs, size_t n)
{
	unsigned char pkt[16 + 16 + 8 * 16] = {0};
	uint16_t type = 11, tsize = (uint16_t)(32 + 8 * n);
	uint32_t hsize = 16, bsize = (uint32_t)(16 + 8 * n), kind = 1;

	assert_true(n <= 16);
	memcpy(pkt, &tsize, 2);
	memcpy(pkt + 2, &type, 2);
	memcpy(pkt + 4, &hsize, 4);
	memcpy(pkt + 8, &uid, 8);
	memcpy(pkt + 16, &bsize, 4);
	memcpy(pkt + 20, &kind, 4);
	memcpy(pkt + 32, pcs, 8 * n);
	append(exp, "data.frameinfo", pkt, tsize);
}

/* A probed function id in OBJ, and n entries of it in functrace. */
static void add_entries(const char *exp, uint32_t id, const char *obj, unsigned int n)
{
	struct bc_rec_func_entry e = {.h = {.size = sizeof(e), .kind = BC_REC_FUNC_ENTRY},
				      .func_id = id};
	char line[512];

	snprintf(line, sizeof(line), "%u\t%s\t0x1000\t0x1000\t16\tbc_fix_alpha\n", id, obj);
	append(exp, "functions", line, strlen(line));
	for (unsigned int i = 0; i < n; i++)
		append(exp, "functrace", &e, sizeof(e));
}

static off_t size_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static bool archived(const struct fixture *fx, const char *obj)
{
	char name[BC_ARCHIVE_NAME_MAX], path[512];

	assert_true(bc_archive_name(obj, name, sizeof(name)) > 0);
	archived_path(fx, name, path, sizeof(path));
	return exists(path);
}

/* A kernel experiment whose one process mapped prog, libc and prog2. */
static void make_kernel_exp(const struct fixture *fx, char *sub, size_t sublen)
{
	make_exp(fx->exp, NULL, 0, 5);
	mark_kernel(fx->exp);
	snprintf(sub, sublen, "%s/_prog_PID_7.1.er", fx->exp);
	make_exp(sub, (const char *[]){prog, LIBC, prog2}, 3, 5);
}

static void test_limit_parse(void **state)
{
	uint64_t v = 1;

	(void)state;
	assert_int_equal(bc_archive_parse_limit("256M", &v), 0);
	assert_int_equal(v, 256ull << 20);
	assert_int_equal(bc_archive_parse_limit("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(bc_archive_parse_limit("10KiB", &v), 0);
	assert_int_equal(v, 10240);
	assert_int_equal(bc_archive_parse_limit("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(bc_archive_parse_limit("none", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(bc_archive_parse_limit("0", &v), 0);
	assert_int_equal(v, 0);
	const char *bad[] = {"",
			     "M",
			     "-1",
			     "12X",
			     "1.5G",
			     "5 M",
			     "99999999999999999999",
			     "17179869184G",
			     "unlimitedly"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(bc_archive_parse_limit(bad[i], &v), -EINVAL);
}

/* Only what a stack or an entered probe hits; the rest is counted, not copied. */
static void test_hits_only(void **state)
{
	struct fixture *fx = *state;
	struct bc_archive_report rep;
	char sub[256], err[512];
	/* two frames in prog, one kernel frame, one in no mapping at all */
	const uint64_t pcs[] = {SEG(0) + 0x10, 0xffffffff81000010ULL, SEG(0) + 0x20, 0x1234};

	make_kernel_exp(fx, sub, sizeof(sub));
	add_stack(sub, 1, pcs, 4);
	add_entries(sub, 0, prog2, 1);

	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_true(rep.hits_only);
	assert_int_equal(rep.objects, 3);
	assert_int_equal(rep.not_hit, 1);
	assert_int_equal(rep.copied, 2);
	assert_int_equal(rep.copied_bytes, size_of(prog) + size_of(prog2));
	bc_archive_report_free(&rep);
	assert_true(archived(fx, prog));
	assert_true(archived(fx, prog2));
	assert_false(archived(fx, LIBC));

	/* --all takes every mapped object, whatever the kind */
	struct bc_archive_opts all = {.policy = BC_ARCHIVE_ALL};
	assert_int_equal(bc_archive_experiment_opts(fx->exp, &all, &rep, err, sizeof(err)), 0);
	assert_false(rep.hits_only);
	assert_int_equal(rep.copied, 1);
	assert_int_equal(rep.present, 2);
	bc_archive_report_free(&rep);
	assert_true(archived(fx, LIBC));
}

/* A probe with no entry does not count; a launched-command experiment keeps everything. */
static void test_policy_by_kind(void **state)
{
	struct fixture *fx = *state;
	struct bc_archive_report rep;
	struct bc_archive_opts hits = {.policy = BC_ARCHIVE_HITS};
	char sub[256], err[512];

	make_kernel_exp(fx, sub, sizeof(sub));
	add_entries(sub, 3, prog, 0);
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.not_hit, 3);
	assert_int_equal(rep.copied, 0);
	bc_archive_report_free(&rep);
	snprintf(sub, sizeof(sub), "%s/archives", fx->exp);
	assert_false(exists(sub));

	/* the same map.xml without the session's kind: every object */
	rm_tree(fx->exp);
	make_exp(fx->exp, (const char *[]){prog, prog2}, 2, 5);
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_false(rep.hits_only);
	assert_int_equal(rep.copied, 2);
	bc_archive_report_free(&rep);
	/* asked for hits: nothing hit, nothing new */
	assert_int_equal(bc_archive_experiment_opts(fx->exp, &hits, &rep, err, sizeof(err)), 0);
	assert_true(rep.hits_only);
	assert_int_equal(rep.not_hit, 2);
	bc_archive_report_free(&rep);
}

struct progress_log {
	size_t calls, last_done, last_total;
};

static void note_progress(void *arg, size_t done, size_t total, uint64_t bytes)
{
	struct progress_log *log = arg;

	(void)bytes;
	assert_true(done <= total);
	log->calls++;
	log->last_done = done;
	log->last_total = total;
}

/* The limit leaves out the least-hit objects first; progress sees every object. */
static void test_limit(void **state)
{
	struct fixture *fx = *state;
	struct progress_log log = {0};
	struct bc_archive_report rep;
	char sub[256], err[512];
	const uint64_t pcs[] = {SEG(2) + 0x10, SEG(2) + 0x18, SEG(0) + 0x10};
	struct bc_archive_opts o = {.policy = BC_ARCHIVE_AUTO,
				    .limit_bytes = (uint64_t)size_of(prog2) + 100,
				    .progress = note_progress,
				    .progress_arg = &log};

	make_kernel_exp(fx, sub, sizeof(sub));
	add_stack(sub, 9, pcs, 3);
	assert_int_equal(bc_archive_experiment_opts(fx->exp, &o, &rep, err, sizeof(err)), 0);
	/* prog2 was hit twice, prog once: prog2 fits, prog does not */
	assert_int_equal(rep.copied, 1);
	assert_int_equal(rep.by_reason[BC_ARCHIVE_SKIP_LIMIT], 1);
	assert_string_equal(rep.first_skipped[BC_ARCHIVE_SKIP_LIMIT], prog);
	assert_string_equal(bc_archive_skip_name(BC_ARCHIVE_SKIP_LIMIT), "over the limit");
	bc_archive_report_free(&rep);
	assert_true(archived(fx, prog2));
	assert_false(archived(fx, prog));
	assert_int_equal(log.calls, 3);
	assert_int_equal(log.last_done, 2);
	assert_int_equal(log.last_total, 2);
}

/* Two paths to the same bytes: one copy, a hard link under the second name. */
static void test_one_copy_per_build_id(void **state)
{
	struct fixture *fx = *state;
	struct bc_archive_report rep;
	char a[256], b[256], err[512], name[BC_ARCHIVE_NAME_MAX], pa[512], pb[512];
	struct stat sa, sb;

	snprintf(a, sizeof(a), "%s/root1", fx->dir);
	snprintf(b, sizeof(b), "%s/root2", fx->dir);
	run("mkdir -p %s %s && cp -p %s %s/prog && cp -p %s %s/prog", a, b, prog, a, prog, b);
	strcat(a, "/prog");
	strcat(b, "/prog");
	make_exp(fx->exp, (const char *[]){a, b, prog2}, 3, 5);
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.copied, 2);
	assert_int_equal(rep.linked, 1);
	assert_int_equal(rep.copied_bytes, size_of(prog) + size_of(prog2));
	assert_int_equal(rep.indexed, 3);
	bc_archive_report_free(&rep);
	assert_true(bc_archive_name(a, name, sizeof(name)) > 0);
	archived_path(fx, name, pa, sizeof(pa));
	assert_true(bc_archive_name(b, name, sizeof(name)) > 0);
	archived_path(fx, name, pb, sizeof(pb));
	assert_int_equal(stat(pa, &sa), 0);
	assert_int_equal(stat(pb, &sb), 0);
	assert_int_equal(sa.st_ino, sb.st_ino);
	/* each name keeps its own index, naming its own path */
	struct bc_archive_syms *s;
	char copy[512];
	assert_int_equal(bc_archive_lookup(fx->exp, b, copy, sizeof(copy), &s, err, sizeof(err)),
			 0);
	assert_non_null(s);
	assert_string_equal(s->path, b);
	bc_archive_syms_free(s);
}

/* Damaged frameinfo and functrace: no crash, nothing hit from the damage. */
static void test_damaged_data(void **state)
{
	struct fixture *fx = *state;
	struct bc_archive_report rep;
	char sub[256], err[512];
	unsigned char pkt[64] = {0};
	uint16_t tsize = 48, type = 11;
	uint32_t hsize = 0xfffffff0u, bsize = 0xfffffff8u, kind = 0x80000001u;
	struct bc_rec_head bad = {.size = 12, .kind = BC_REC_FUNC_ENTRY};

	make_kernel_exp(fx, sub, sizeof(sub));
	memcpy(pkt, &tsize, 2);
	memcpy(pkt + 2, &type, 2);
	memcpy(pkt + 4, &hsize, 4); /* hsize + 16 wraps in 32 bits */
	append(sub, "data.frameinfo", pkt, 48);
	hsize = 16;
	memcpy(pkt + 4, &hsize, 4);
	memcpy(pkt + 16, &bsize, 4); /* hsize + bsize wraps */
	memcpy(pkt + 20, &kind, 4);
	append(sub, "data.frameinfo", pkt, 48);
	bsize = 16; /* compressed, with no room for its last word */
	memcpy(pkt + 16, &bsize, 4);
	append(sub, "data.frameinfo", pkt, 32);
	append(sub, "data.frameinfo", pkt, 7); /* torn tail */
	add_entries(sub, 0, prog, 0);
	append(sub, "functrace", &bad, sizeof(bad));
	append(sub, "functions", "99999999999999\tx\n1\t\n#\n\n", 24);
	assert_int_equal(bc_archive_experiment(fx->exp, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.copied, 0);
	assert_int_equal(rep.not_hit, 3);
	bc_archive_report_free(&rep);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit_parse),
		T(test_hits_only),
		T(test_policy_by_kind),
		T(test_limit),
		T(test_one_copy_per_build_id),
		T(test_damaged_data),
	};

	return cmocka_run_group_tests_name("archive_policy", tests, group_setup, group_teardown);
}
