// SPDX-License-Identifier: MIT
/*
 * `.er` experiments: naming, the writer sink and the reader. Experiments are
 * written from hand-built records of every kind, read back through a sink
 * that keeps what it is given, and compared field by field; then they are
 * damaged (torn, garbage, missing, corrupt, too new) and must still read as
 * far as they are whole, never crash. gprofng itself checks that what we
 * write is an experiment it accepts without warnings. The XML dialect is
 * tested in test_xml.c.
 */
#include <signal.h>
#include <sys/resource.h>

#include "er_fixture.h"

/* ------------------------------------------------------------ naming */

static void test_naming(void **state)
{
	struct fixture *fx = *state;
	char path[4096], want[4400], err[4400], file[4200];
	int cwd = open(".", O_RDONLY | O_DIRECTORY);

	/* default name, in the current directory when dir is NULL */
	assert_true(cwd >= 0);
	assert_int_equal(chdir(fx->dir), 0);
	assert_int_equal(bc_exp_create(NULL, NULL, path, sizeof(path), NULL, err, sizeof(err)), 0);
	assert_string_equal(path, "test.1.er");
	assert_int_equal(fchdir(cwd), 0);
	close(cwd);

	/* an existing STEM.N.er moves N up, past every taken name, keeping the width */
	snprintf(want, sizeof(want), "%s/test.3.er", fx->dir);
	assert_int_equal(mkdir(want, 0755), 0);
	assert_int_equal(
		bc_exp_create(fx->dir, "test.1.er", path, sizeof(path), NULL, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s/test.2.er", fx->dir);
	assert_string_equal(path, want);
	assert_int_equal(bc_exp_create(fx->dir, NULL, path, sizeof(path), NULL, err, sizeof(err)),
			 0);
	snprintf(want, sizeof(want), "%s/test.4.er", fx->dir);
	assert_string_equal(path, want);
	assert_int_equal(
		bc_exp_create(fx->dir, "run.09.er", path, sizeof(path), NULL, err, sizeof(err)), 0);
	assert_int_equal(
		bc_exp_create(fx->dir, "run.09.er", path, sizeof(path), NULL, err, sizeof(err)), 0);
	snprintf(want, sizeof(want), "%s/run.10.er", fx->dir);
	assert_string_equal(path, want);

	/* a name without a number is never renumbered */
	assert_int_equal(
		bc_exp_create(fx->dir, "mine.er", path, sizeof(path), NULL, err, sizeof(err)), 0);
	assert_int_equal(
		bc_exp_create(fx->dir, "mine.er", path, sizeof(path), NULL, err, sizeof(err)),
		-EEXIST);
	assert_non_null(strstr(err, "mine.er already exists; remove it or pick another -o"));
	assert_int_equal(
		bc_exp_create(fx->dir, "v.1x.er", path, sizeof(path), NULL, err, sizeof(err)), 0);
	assert_int_equal(
		bc_exp_create(fx->dir, "v.1x.er", path, sizeof(path), NULL, err, sizeof(err)),
		-EEXIST);

	/* must end in .er */
	assert_int_equal(
		bc_exp_create(fx->dir, "test.1", path, sizeof(path), NULL, err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, "must end in .er"));
	assert_int_equal(bc_exp_create(fx->dir, ".er", path, sizeof(path), NULL, err, sizeof(err)),
			 -EINVAL);

	/* a directory that cannot hold it: one line naming the path and the reason */
	snprintf(file, sizeof(file), "%s/plainfile", fx->dir);
	put_file(fx->dir, "plainfile", "x", 1);
	assert_int_equal(bc_exp_create(file, NULL, path, sizeof(path), NULL, err, sizeof(err)),
			 -ENOTDIR);
	snprintf(want, sizeof(want), "cannot create experiment %s/test.1.er: Not a directory",
		 file);
	assert_string_equal(err, want);
	assert_int_equal(
		bc_exp_create("/nonexistent/dir", NULL, path, sizeof(path), NULL, err, sizeof(err)),
		-ENOENT);
	assert_string_equal(
		err,
		"cannot create experiment /nonexistent/dir/test.1.er: No such file or directory");
	if (geteuid() != 0) { /* root ignores permission bits */
		assert_int_equal(chmod(fx->dir, 0555), 0);
		assert_int_equal(bc_exp_create(fx->dir, "x.1.er", path, sizeof(path), NULL, err,
					       sizeof(err)),
				 -EACCES);
		assert_int_equal(chmod(fx->dir, 0755), 0);
	}
	assert_int_equal(bc_exp_create(fx->dir, NULL, path, 8, NULL, err, sizeof(err)),
			 -ENAMETOOLONG);
}

/* ------------------------------------------------------------ round trip */

static void test_roundtrip(void **state)
{
	struct fixture *fx = *state;
	struct keep_sink *k = keep_new();
	struct bc_er_info info;
	char err[512];
	size_t e = 0;

	write_exp(fx, false, NULL);
	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
	assert_null(info.notes);
	assert_int_equal(k->begins, 1);
	assert_int_equal(k->ends, 1);

	/* the session, as begin() saw it */
	for (int i = 0; argv_odd[i]; i++)
		assert_string_equal(k->sess.argv[i], argv_odd[i]);
	assert_null(k->sess.argv[8]);
	assert_int_equal(k->sess.root_pid, getpid());
	assert_int_equal(k->sess.start_ktime, T0);
	assert_int_equal(k->sess.wall_offset_ns, 1700000000 * (int64_t)NS - (int64_t)T0);
	assert_string_equal(k->sess.options, "record -u 'ma*' --syscalls -- /usr/bin/demo");
	assert_string_equal(k->sess.cwd, "/tmp/wd 100%");
	assert_int_equal(k->sess.ringbuf_bytes, 1 << 22);
	assert_true(k->sess.syscalls);
	assert_int_equal(k->sess.funcs->n, 3);
	for (size_t i = 0; i < 3; i++) {
		const struct bc_func *a = &k->sess.funcs->v[i], *b = &fx->funcs.v[i];

		assert_int_equal(a->id, i);
		assert_string_equal(a->name, i == 2 ? "odd?name?" : b->name);
		assert_string_equal(a->object, b->object);
		assert_int_equal(a->addr, b->addr);
		assert_int_equal(a->size, b->size);
		assert_int_equal(a->offset, b->offset);
	}

	/* r-x file mappings only, slotted in by time; before the start means at the start */
	assert_int_equal(info.mappings, 2);
	assert_int_equal(k->v[0].what, 'M');
	assert_int_equal(k->v[0].m.ktime, T0);
	assert_int_equal(k->v[0].m.start, 0x555555554000);
	assert_int_equal(k->v[0].m.end, 0x555555557000);
	assert_int_equal(k->v[0].m.offset, 0x1000);
	assert_int_equal(k->v[0].m.prot, PROT_READ | PROT_EXEC);
	assert_int_equal(k->v[0].m.pid, getpid());
	assert_string_equal(k->v[0].path, "/usr/bin/demo");
	for (size_t i = 0; i < k->n; i++) {
		if (k->v[i].what == 'E') {
			e++;
			continue;
		}
		if (i == 0)
			continue;
		assert_int_equal(e, 7); /* after the thread start at +1400, before exec at +1500 */
		assert_int_equal(k->v[i].m.ktime, T0 + 1450);
		assert_string_equal(k->v[i].path, "/usr/lib/lib odd.so");
	}
	check_events(fx, k, fx->nrecs);

	/* the end, and what log.xml says */
	assert_int_equal(k->end.end_ktime, T0 + 2000);
	assert_int_equal(k->end.exit_status, 0);
	assert_int_equal(k->end.events, 12);
	assert_int_equal(k->end.bad_records, 2);
	assert_int_equal(k->end.lost[BC_LOSS_FUNC], 1);
	assert_int_equal(k->end.lost[BC_LOSS_SYSCALL], 3);
	assert_int_equal(k->end.lost[BC_LOSS_PROC], 0);
	assert_true(info.closed);
	assert_int_equal(info.exit_tstamp, 2000);
	assert_int_equal(info.version_major, 12);
	assert_int_equal(info.version_minor, 4);
	assert_int_equal(info.format, BC_ER_FORMAT);
	assert_string_equal(info.collector, "bpfcollect " BPFCOLLECT_VERSION);
	assert_string_equal(info.cmdline, "/usr/bin/demo two words it's 100% <&\"> a\nb  mix'\"\\");
	/* the session's facts, not this machine's: a replay writes what was recorded */
	assert_int_equal(info.ppid, 4100);
	assert_int_equal(info.pgrp, 4101);
	assert_int_equal(info.sid, 4102);
	assert_true(info.have_host);
	assert_string_equal(info.hostname, "testhost");
	assert_string_equal(info.host.arch, "x86_64");
	assert_string_equal(info.host.release, "6.18.0-test");
	assert_int_equal(info.host.npages, 1024);
	assert_int_equal(info.host.ncpus, 2);
	assert_int_equal(info.host.cpu_mhz[1], 2401);
	assert_string_equal(info.kernel, "6.18.0-test");
	assert_string_equal(info.libbpf, "v1.1-test");
	assert_int_equal(info.wall_time, 1700000000);
	assert_int_equal(info.events_read, 12);
	assert_int_equal(info.records_written, 12);
	assert_int_equal(info.lost_records[BC_LOSS_SYSCALL], 3);
	assert_non_null(info.kernel);
	assert_non_null(info.libbpf);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].records, 4);
	assert_int_equal(info.files[BC_ER_SYSCALLS].records, 2);
	assert_int_equal(info.files[BC_ER_PROCTRACE].records, 6);
	bc_er_info_free(&info);
	free(k);

	/* replaying with no sink only fills info */
	assert_int_equal(read_exp(fx->exp, NULL, &info, err, sizeof(err)), 0);
	assert_int_equal(info.events_read, 12);
	bc_er_info_free(&info);
}

/* A thread whose clock goes backwards in one file keeps its file order. */
static void test_thread_file_order(void **state)
{
	struct fixture *fx = *state;
	struct bc_session sess = session(fx);
	struct bc_session_end end = {.exit_status = -1};
	struct keep_sink *k = keep_new();
	struct bc_er_info info;
	char err[512];
	struct bc_sink *s;
	union any_rec *r;

	assert_int_equal(
		bc_exp_create(fx->dir, NULL, fx->exp, sizeof(fx->exp), NULL, err, sizeof(err)), 0);
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	r = add(fx, sizeof(r->fe), BC_REC_FUNC_ENTRY, 7, 1, T0 + 500);
	r = add(fx, sizeof(r->fe), BC_REC_FUNC_ENTRY, 7, 2, T0 + 300);
	r = add(fx, sizeof(r->fe), BC_REC_FUNC_ENTRY, 8, 1, T0 + 400);
	for (size_t i = 0; i < fx->nrecs; i++)
		feed(fx, s, &fx->recs[i]);
	assert_int_equal(bc_sink_end(s, &end), 0);
	bc_sink_destroy(s);
	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
	assert_int_equal(k->n, 3);
	/* thread 7: seq 1 then 2, never reordered by time; thread 8 fits where it can */
	assert_int_equal(k->v[0].rec.h.tid, 8);
	assert_int_equal(k->v[1].rec.h.tid, 7);
	assert_int_equal(k->v[1].rec.h.seq, 1);
	assert_int_equal(k->v[2].rec.h.tid, 7);
	assert_int_equal(k->v[2].rec.h.seq, 2);
	/* no end_ktime given: the end is the last thing recorded */
	assert_int_equal(info.exit_tstamp, 500);
	assert_int_equal(k->end.exit_status, -1);
	bc_er_info_free(&info);
	free(k);
}

static void test_live(void **state)
{
	struct fixture *fx = *state;
	struct keep_sink *k = keep_new();
	struct bc_er_info info;
	struct bc_sink *writer;
	char err[512];

	write_exp(fx, true, &writer);
	/* a torn element at the end of log.xml is what a live reader may meet */
	append_file(fx->exp, "log.xml", "<event kind=\"sample\" tstam");
	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
	assert_false(info.closed);
	assert_false(info.have_counts);
	assert_non_null(strstr(info.notes, "not closed"));
	assert_non_null(strstr(info.notes, "still being written"));
	check_events(fx, k, fx->nrecs);
	assert_int_equal(k->ends, 1);
	assert_int_equal(k->end.end_ktime, T0 + 1900);
	assert_int_equal(k->end.events, 12);
	assert_int_equal(k->end.exit_status, -1);
	assert_int_equal(k->end.lost[BC_LOSS_SYSCALL], 3); /* from the LOST record */
	assert_int_equal(k->sess.root_pid, getpid());
	bc_er_info_free(&info);
	free(k);
	bc_sink_destroy(writer);
}

static void test_truncated(void **state)
{
	struct fixture *fx = *state;
	struct keep_sink *k = keep_new();
	struct bc_er_info info;
	char path[4200], err[512];
	size_t len;
	char *data;

	write_exp(fx, false, NULL);
	to_format3(fx->exp);
	/* cut functrace inside its last record (a 56-byte return) */
	data = slurp(fx->exp, "functrace", &len);
	assert_int_equal(len, 48 + 48 + 56 + 56);
	snprintf(path, sizeof(path), "%s/functrace", fx->exp);
	assert_int_equal(truncate(path, len - 20), 0);
	free(data);
	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].records, 3);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].truncated_bytes, 36);
	assert_false(info.files[BC_ER_FUNCTRACE].stopped);
	assert_int_equal(info.truncated_bytes, 36);
	assert_int_equal(info.events_read, 11);
	assert_non_null(strstr(info.notes, "functrace: last record torn at offset 152; 36 bytes"));
	assert_non_null(strstr(info.notes, "the writer stored 12 records, the data files hold 11"));
	/* the survivors are the first 11 in time order (the torn one was the 11th) */
	fx->recs[10] = fx->recs[11];
	check_events(fx, k, 11);
	bc_er_info_free(&info);
	free(k);
}

/*
 * The compact files (format 4) are blocks written whole: a torn last block
 * is said and ignored, a block that does not decode is skipped whole and
 * the next one read, a head that claims too much is not believed. Decoded
 * records past $BPFCOLLECT_DECODE_MEM bytes go to a temporary file.
 */
static void test_compact_blocks(void **state)
{
	struct fixture *fx = *state;
	struct bc_rc_block_head head;
	struct bc_er_info info;
	char path[4200], err[512];
	size_t len;
	char *data, *two;

	write_exp(fx, false, NULL);
	/* decoded into a temporary file past a limit (here 0 bytes): the same events */
	{
		struct keep_sink *k = keep_new();

		setenv("BPFCOLLECT_DECODE_MEM", "0", 1);
		assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
		unsetenv("BPFCOLLECT_DECODE_MEM");
		assert_null(info.notes);
		check_events(fx, k, fx->nrecs);
		bc_er_info_free(&info);
		free(k);
	}
	data = slurp(fx->exp, "functrace", &len);
	memcpy(&head, data, sizeof(head));
	assert_int_equal(head.magic, BC_RC_MAGIC);
	assert_int_equal(head.records, 4);
	assert_int_equal(head.raw_bytes, 48 + 48 + 56 + 56);
	assert_int_equal(len, sizeof(head) + head.len);
	assert_true(len < (48 + 48 + 56 + 56) / 2);

	snprintf(path, sizeof(path), "%s/functrace", fx->exp);
	assert_int_equal(truncate(path, len - 3), 0);
	assert_int_equal(read_exp(fx->exp, NULL, &info, err, sizeof(err)), 0);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].records, 0);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].truncated_bytes, len - 3);
	assert_non_null(strstr(info.notes, "functrace: last block torn at offset 0"));
	bc_er_info_free(&info);

	/* the block twice, the first one damaged: the second one read */
	two = malloc(2 * len);
	assert_non_null(two);
	memcpy(two, data, len);
	memcpy(two + len, data, len);
	two[sizeof(head)] = (char)0xff; /* no tag */
	put_file(fx->exp, "functrace", two, 2 * len);
	assert_int_equal(read_exp(fx->exp, NULL, &info, err, sizeof(err)), 0);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].records, 4);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].bad_records, 4);
	assert_false(info.files[BC_ER_FUNCTRACE].stopped);
	assert_non_null(strstr(info.notes,
			       "functrace: the block at offset 0 does not decode; its 4 records"));
	bc_er_info_free(&info);

	/* a head that says it decodes to 4 GiB: not believed, nothing allocated for it */
	memcpy(two, data, len);
	head.raw_bytes = UINT32_MAX;
	memcpy(two, &head, sizeof(head));
	put_file(fx->exp, "functrace", two, 2 * len);
	assert_int_equal(read_exp(fx->exp, NULL, &info, err, sizeof(err)), 0);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].records, 4);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].bad_records, 4);
	bc_er_info_free(&info);
	free(two);
	free(data);
}

/* More threads than a block speaks of: the writer starts another block, nothing is lost. */
static void test_compact_many_threads(void **state)
{
	struct fixture *fx = *state;
	struct bc_session sess = session(fx);
	struct bc_session_end end = {.exit_status = 0};
	struct bc_rc_block_head head;
	struct bc_er_info info;
	char err[512], *data;
	struct bc_sink *s;
	size_t len;

	assert_int_equal(
		bc_exp_create(fx->dir, NULL, fx->exp, sizeof(fx->exp), NULL, err, sizeof(err)), 0);
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	for (uint32_t t = 0; t < 100; t++) {
		union any_rec e = {.fe = {.h = {.size = sizeof(e.fe),
						.kind = BC_REC_FUNC_ENTRY,
						.pid = TID_MAIN,
						.tid = 1000 + t,
						.seq = 1,
						.ktime = T0 + 10 * t},
					  .func_id = 1,
					  .sp = 0x7ffe0000 - t}};
		union any_rec r = {.fr = {.h = {.size = sizeof(r.fr),
						.kind = BC_REC_FUNC_RETURN,
						.pid = TID_MAIN,
						.tid = 1000 + t,
						.seq = 2,
						.ktime = T0 + 10 * t + 5},
					  .func_id = 1,
					  .entry_ktime = T0 + 10 * t,
					  .retval = t}};

		feed(fx, s, &e);
		feed(fx, s, &r);
	}
	assert_int_equal(bc_sink_end(s, &end), 0);
	bc_sink_destroy(s);

	data = slurp(fx->exp, "functrace", &len);
	memcpy(&head, data, sizeof(head));
	assert_int_equal(head.records, 2 * BC_RC_THREADS);
	assert_true(len > sizeof(head) + head.len);
	free(data);
	assert_int_equal(read_exp(fx->exp, NULL, &info, err, sizeof(err)), 0);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].records, 200);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].bad_records, 0);
	assert_int_equal(info.truncated_bytes, 0);
	bc_er_info_free(&info);
}

/* Garbage of every kind in the data files: read what is sound, report the rest. */
static void test_garbage(void **state)
{
	struct fixture *fx = *state;
	struct keep_sink *k = keep_new();
	struct bc_er_info info;
	union any_rec good[2], junk[8];
	char err[512];
	unsigned char noise[1000];

	write_exp(fx, false, NULL);
	to_format3(fx->exp);
	memset(good, 0, sizeof(good));
	memset(junk, 0, sizeof(junk));
	good[0].fe = (struct bc_rec_func_entry){
		.h = {.size = 48, .kind = BC_REC_FUNC_ENTRY, .tid = 1, .seq = 1, .ktime = T0 + 5}};
	good[1] = good[0];
	good[1].h.seq = 2;
	/* unknown kind, a syscall record in functrace, too short for its kind: skipped */
	junk[0] = good[0];
	junk[0].h.kind = 0x1ff;
	junk[1].sx = (struct bc_rec_sys_exit){
		.h = {.size = 56, .kind = BC_REC_SYS_EXIT, .tid = 1, .seq = 3, .ktime = T0 + 6}};
	junk[2] = good[0];
	junk[2].h.size = 40; /* shorter than a FUNC_ENTRY */
	{
		unsigned char buf[48 * 2 + 48 + 56 + 40 + 48];
		size_t o = 0;

		memcpy(buf + o, &good[0], 48), o += 48;
		memcpy(buf + o, &junk[0], 48), o += 48;
		memcpy(buf + o, &junk[1], 56), o += 56;
		memcpy(buf + o, &junk[2], 40), o += 40;
		memcpy(buf + o, &good[1], 48), o += 48;
		put_file(fx->exp, "functrace", buf, o);
	}
	/* a zero size stops syscalls after one good record */
	{
		union any_rec buf[3];

		memset(buf, 0, sizeof(buf));
		buf[0] = fx->recs[1]; /* the SYS_ENTER */
		put_file(fx->exp, "syscalls", buf, 88 + 64);
	}
	/* proctrace: an oversized size (past the end), after random bytes in front */
	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (unsigned char)(i * 131 + 7);
	noise[0] = 16, noise[1] = 0; /* a size of 16: below the head */
	put_file(fx->exp, "proctrace", noise, sizeof(noise));

	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), 0);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].records, 2);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].bad_records, 3);
	assert_int_equal(info.files[BC_ER_SYSCALLS].records, 1);
	assert_true(info.files[BC_ER_SYSCALLS].stopped);
	assert_int_equal(info.files[BC_ER_SYSCALLS].truncated_bytes, 64);
	assert_int_equal(info.files[BC_ER_PROCTRACE].records, 0);
	assert_true(info.files[BC_ER_PROCTRACE].stopped);
	assert_int_equal(info.events_read, 3);
	assert_int_equal(k->end.bad_records, 2 + 3);
	assert_non_null(strstr(info.notes, "syscalls: bad record size 0 at offset 88"));
	assert_non_null(strstr(info.notes, "functrace: 3 invalid records skipped"));
	bc_er_info_free(&info);

	/* an oversized record at the very start, and a file of 3 bytes */
	good[0].h.size = 0x7ff8;
	put_file(fx->exp, "functrace", &good[0], 48);
	put_file(fx->exp, "syscalls", "abc", 3);
	assert_int_equal(read_exp(fx->exp, NULL, &info, err, sizeof(err)), 0);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].truncated_bytes, 48);
	assert_int_equal(info.files[BC_ER_SYSCALLS].truncated_bytes, 3);
	assert_int_equal(info.events_read, 0);
	bc_er_info_free(&info);

	/* a compact file (format 4) that is no sequence of blocks: said, and nothing read */
	write_exp(fx, false, NULL);
	put_file(fx->exp, "functrace", &good[1], 48);
	assert_int_equal(read_exp(fx->exp, NULL, &info, err, sizeof(err)), 0);
	assert_true(info.files[BC_ER_FUNCTRACE].stopped);
	assert_int_equal(info.files[BC_ER_FUNCTRACE].records, 0);
	assert_non_null(
		strstr(info.notes, "functrace: no block at offset 0; last 48 bytes skipped"));
	bc_er_info_free(&info);

	/* a sink error stops the replay and is reported as the sink's */
	write_exp(fx, false, NULL);
	k->n = 0;
	k->fail_at = 3;
	assert_int_equal(read_exp(fx->exp, k, &info, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "keep sink: Input/output error"));
	bc_er_info_free(&info);
	free(k);
}

static void expect_error(const char *exp, int want, const char *msg)
{
	struct bc_er_info info;
	char err[512];

	memset(&info, 0, sizeof(info));
	assert_int_equal(bc_er_read(exp, NULL, &info, err, sizeof(err)), want);
	if (!strstr(err, msg))
		fail_msg("error '%s' does not contain '%s'", err, msg);
	bc_er_info_free(&info);
}

static void test_bad_experiments(void **state)
{
	struct fixture *fx = *state;
	char path[4200], msg[4300];
	size_t len;
	char *log;

	expect_error(fx->dir, -ENOENT,
		     "not an experiment (no log.xml); give the path of a .er directory");
	snprintf(path, sizeof(path), "%s/nothing.er", fx->dir);
	expect_error(path, -ENOENT, "No such file or directory");
	put_file(fx->dir, "f.er", "x", 1);
	snprintf(path, sizeof(path), "%s/f.er", fx->dir);
	expect_error(path, -ENOTDIR, "not an experiment (not a directory)");

	write_exp(fx, false, NULL);
	log = slurp(fx->exp, "log.xml", &len);
	/* an unquoted attribute on line 3 */
	put_str(fx->exp, "log.xml", "<a/>\n<b/>\n<event kind=run/>\n");
	snprintf(msg, sizeof(msg), "%s/log.xml:3: attribute kind of <event>: value must be quoted",
		 fx->exp);
	expect_error(fx->exp, -EINVAL, msg);
	put_str(fx->exp, "log.xml", "<system>\n<cpu/>\n</sys>\n");
	expect_error(fx->exp, -EINVAL, "log.xml:3: </sys> does not close <system>");
	put_str(fx->exp, "log.xml", "<event kind=\"run\" tstamp=\"1.x\"/>\n");
	expect_error(fx->exp, -EINVAL, "log.xml:1: bad run tstamp");
	put_str(fx->exp, "log.xml", "<experiment version=\"13.0\">\n</experiment>\n");
	expect_error(fx->exp, -EPROTONOSUPPORT, "experiment version 13.0 is newer than");
	put_str(fx->exp, "log.xml", "<experiment version=\"11.1\"></experiment>\n");
	expect_error(fx->exp, -EPROTONOSUPPORT, "experiment version 11.1 is too old");
	put_file(fx->exp, "log.xml", log, len);
	append_file(fx->exp, "log.xml",
		    "<event kind=\"comment\" id=\"400\">bpfcollect: format=5</event>\n");
	expect_error(fx->exp, -EPROTONOSUPPORT,
		     "written by a newer bpfcollect (format 5; this one reads format 4)");
	put_file(fx->exp, "log.xml", log, len);

	/* the function table is untrusted too */
	put_str(fx->exp, "functions", "# x\n0\t/a\t0x1\t0x1\t1\tf\n1\t/a\tzz\t0x1\t1\tg\n");
	expect_error(fx->exp, -EINVAL, "functions:3: expected id, object, offset");
	put_str(fx->exp, "functions", "5\t/a\t0x1\t0x1\t1\tf\n");
	expect_error(fx->exp, -EINVAL, "functions:1: function id 5 out of order");
	put_str(fx->exp, "map.xml", "<event kind=\"map\" object=\"segment\" tstamp=\"0.1\"/>\n");
	put_str(fx->exp, "functions", "");
	expect_error(fx->exp, -EINVAL, "map.xml:1: bad segment event");
	free(log);
}

/*
 * What log.xml says of the session is untrusted: bad numbers, pids and
 * addresses are no facts, never errors; what parses is kept.
 */
static void test_bad_session_facts(void **state)
{
	struct fixture *fx = *state;
	struct bc_er_info info;
	char err[512];

	write_exp(fx, false, NULL);
	append_file(fx->exp, "log.xml",
		    "<event kind=\"comment\" id=\"400\">bpfcollect: session exp_kernel=x "
		    "exp_profile_us=99999999999 exp_sync_us=-4 exp_host_ip=1.2.3.4 "
		    "exp_root_pid=42 exp_extra_pids=7,0,x,9</event>\n"
		    "<system hostname=\"h\" os=\"BSD\" pagesz=\"-1\" npages=\"zz\"/>\n"
		    "<cpu id=\"99999\" clk=\"1\"/><cpu id=\"1\" clk=\"nan\"/>\n");
	memset(&info, 0, sizeof(info));
	assert_int_equal(bc_er_read(fx->exp, NULL, &info, err, sizeof(err)), 0);
	assert_false(info.kernel_exp);
	assert_int_equal(info.profile_us, 0);
	assert_int_equal(info.host_ip, 0);
	assert_true(info.have_session_root);
	assert_int_equal(info.session_root_pid, 42);
	assert_int_equal(info.n_extra_pids, 1); /* 7, then 0 ends what parses */
	assert_int_equal(info.extra_pids[0], 7);
	assert_string_equal(info.host.release, "BSD");
	assert_int_equal(info.host.cpu_mhz[1], 0);
	bc_er_info_free(&info);
}

/* The argv after an exec or PROC_NAME record: exactly its size, a sane length, or refused. */
static void test_args_tails(void **state)
{
	struct {
		struct bc_rec_exec x;
		struct bc_rec_exec_args a;
	} ex = {.x.h = {.size = sizeof(ex), .kind = BC_REC_PROC_EXEC, .pid = 1, .tid = 1},
		.a = {.args_len = 8, .args = "ls\0-l\0/x"}};
	struct {
		struct bc_rec_proc_name n;
		struct bc_rec_exec_args a;
	} pn = {.n.h = {.size = sizeof(pn), .kind = BC_REC_PROC_NAME, .pid = 1, .tid = 1},
		.a = {.args_len = 3, .args = "sh"}};
	struct bc_event ev;
	const char *args;
	size_t len;

	(void)state;
	assert_int_equal(bc_decode(&ex, sizeof(ex), NULL, &ev), (int)sizeof(ex));
	args = bc_exec_args(&ex.x, &len);
	assert_non_null(args);
	assert_int_equal(len, 8);
	assert_memory_equal(args, "ls\0-l\0/x", 8);
	ex.a.args_len = BC_EXEC_ARGS_MAX + 1; /* longer than it can be */
	assert_int_equal(bc_decode(&ex, sizeof(ex), NULL, &ev), -EINVAL);
	ex.a.args_len = 0; /* none read: no argv */
	assert_int_equal(bc_decode(&ex, sizeof(ex), NULL, &ev), (int)sizeof(ex));
	assert_null(bc_exec_args(&ex.x, &len));
	ex.x.h.size = sizeof(ex.x) + 8; /* a tail of another size */
	assert_int_equal(bc_decode(&ex, sizeof(ex), NULL, &ev), -EINVAL);
	ex.x.h.size = sizeof(ex.x); /* format 1: no tail */
	assert_int_equal(bc_decode(&ex, sizeof(ex), NULL, &ev), (int)sizeof(ex.x));
	assert_null(bc_exec_args(&ex.x, &len));

	assert_int_equal(bc_decode(&pn, sizeof(pn), NULL, &ev), (int)sizeof(pn));
	args = bc_proc_name_args(&pn.n, &len);
	assert_non_null(args);
	assert_int_equal(len, 3);
	pn.a.args_len = 5000;
	assert_int_equal(bc_decode(&pn, sizeof(pn), NULL, &ev), -EINVAL);
	pn.n.h.size = sizeof(pn.n) + 16;
	assert_int_equal(bc_decode(&pn, sizeof(pn), NULL, &ev), -EINVAL);
}

/* The writer never leaves a torn record, even when the disk fills mid-write. */
static void test_disk_full(void **state)
{
	struct fixture *fx = *state;
	struct bc_session sess = session(fx);
	struct bc_session_end end = {.exit_status = 0};
	struct rlimit old, lim;
	struct bc_er_info info;
	char err[512];
	struct bc_sink *s;
	union any_rec r;
	struct stat st;
	char path[4200];
	int rc = 0, i;

	assert_int_equal(
		bc_exp_create(fx->dir, NULL, fx->exp, sizeof(fx->exp), NULL, err, sizeof(err)), 0);
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	memset(&r, 0, sizeof(r));
	r.fe = (struct bc_rec_func_entry){.h = {.size = 48, .kind = BC_REC_FUNC_ENTRY, .tid = 1}};

	/* RLIMIT_FSIZE makes write() stop part-way, like a full disk (EFBIG, not ENOSPC) */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 100000;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (i = 0; i < 200000 && !rc; i++) {
		struct bc_event ev;

		r.h.seq = i + 1;
		r.h.ktime = T0 + i;
		assert_int_equal(bc_decode(&r, 48, &fx->funcs, &ev), 48);
		rc = bc_sink_event(s, &ev);
	}
	assert_int_equal(rc, -EFBIG);
	assert_int_equal(bc_sink_event(s, &(struct bc_event){.rec = &r.h}), -EFBIG); /* sticky */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	snprintf(path, sizeof(path), "%s/functrace", fx->exp);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 0 && st.st_size <= 100000);
	/* the cut is said in the experiment (from the reserve), not an error of the end */
	assert_int_equal(bc_sink_end(s, &end), 0);
	bc_sink_destroy(s);

	assert_int_equal(read_exp(fx->exp, NULL, &info, err, sizeof(err)), 0);
	/* the whole blocks' records, and the LOST record that counts the rest */
	assert_true(info.files[BC_ER_FUNCTRACE].records > 0);
	assert_int_equal(info.events_read, info.files[BC_ER_FUNCTRACE].records + 1);
	assert_int_equal(info.truncated_bytes, 0);
	assert_true(info.closed);
	assert_int_equal(info.cut_short_errno, EFBIG);
	/* the buffered records the failed write dropped */
	assert_true(info.lost[BC_LOSS_UNWRITTEN] >= 1);
	assert_true(info.lost[BC_LOSS_UNWRITTEN] + info.files[BC_ER_FUNCTRACE].records <=
		    (uint64_t)i);
	snprintf(path, sizeof(path), "%s/.bcreserve", fx->exp);
	assert_int_equal(access(path, F_OK), -1); /* released */
	bc_er_info_free(&info);
}

static void test_writer_rejects(void **state)
{
	struct fixture *fx = *state;
	struct bc_session sess = session(fx);
	union any_rec r;
	char err[512];
	struct bc_sink *s;

	assert_null(bc_er_sink_new("/nonexistent.er", err, sizeof(err)));
	assert_non_null(strstr(err, "cannot open experiment /nonexistent.er"));
	assert_int_equal(
		bc_exp_create(fx->dir, NULL, fx->exp, sizeof(fx->exp), NULL, err, sizeof(err)), 0);
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	memset(&r, 0, sizeof(r));
	r.h = (struct bc_rec_head){.size = 48, .kind = BC_REC_FUNC_ENTRY};
	assert_int_equal(bc_sink_event(s, &(struct bc_event){.rec = &r.h}), -EINVAL); /* no begin */
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	assert_int_equal(bc_sink_begin(s, &sess), -EALREADY);
	r.h.size = 44;
	assert_int_equal(bc_sink_event(s, &(struct bc_event){.rec = &r.h}), -EINVAL);
	r.h.size = 48;
	r.h.kind = 0x1ff;
	assert_int_equal(bc_sink_event(s, &(struct bc_event){.rec = &r.h}), -EINVAL);
	assert_int_equal(bc_er_sink_flush(&(struct bc_sink){.ops = &keep_ops}), -EINVAL);
	bc_sink_destroy(s); /* without end(): still a readable, unclosed experiment */
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), -EEXIST); /* never clobbers an experiment */
	bc_sink_destroy(s);
}

/* ------------------------------------------------------------ gprofng accepts it */

static void test_gprofng(void **state)
{
	struct fixture *fx = *state;
	char cmd[4400], line[1024], self[4096];
	bool no_errors = false, lost_line = false, command_line = false;
	struct bc_session sess = session(fx);
	struct bc_session_end end = {
		.end_ktime = T0 + 2 * NS, .exit_status = 0, .events = 3, .lost = {1, 3, 0}};
	char err[256];
	struct bc_sink *s;
	ssize_t n;
	FILE *p;

	if (access("/usr/bin/gprofng", X_OK) != 0)
		skip();
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	assert_int_equal(
		bc_exp_create(fx->dir, NULL, fx->exp, sizeof(fx->exp), NULL, err, sizeof(err)), 0);
	s = bc_er_sink_new(fx->exp, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(bc_sink_begin(s, &sess), 0);
	map(s, T0 + 5, 0x555555554000, PROT_READ | PROT_EXEC, self);
	map(s, T0 + 6, 0x7fff00000000, PROT_READ | PROT_EXEC, "[vdso]");
	make_records(fx);
	for (size_t i = 0; i < fx->nrecs; i++)
		feed(fx, s, &fx->recs[i]);
	assert_int_equal(bc_sink_end(s, &end), 0);
	bc_sink_destroy(s);

	snprintf(cmd, sizeof(cmd), "gprofng display text -header -functions '%s' 2>&1", fx->exp);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, "Warning") || strstr(line, "Error") || strstr(line, "rror:"))
			fail_msg("gprofng: %s", line);
		no_errors |= strcmp(line, "No errors\n") == 0;
		lost_line |= strcmp(line, "bpfcollect: lost func=1 syscall=3 proc=0 sample=0 "
					  "sched=0 heap=0 sync=0 io=0 unwritten=0 events=3\n") == 0;
		command_line |= strstr(line, "bpfcollect: command: /usr/bin/demo 'two words'") != 0;
	}
	assert_int_equal(pclose(p), 0);
	assert_true(no_errors);
	assert_true(lost_line);
	assert_true(command_line);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_naming),
		T(test_roundtrip),
		T(test_thread_file_order),
		T(test_live),
		T(test_truncated),
		T(test_compact_blocks),
		T(test_compact_many_threads),
		T(test_garbage),
		T(test_bad_experiments),
		T(test_bad_session_facts),
		cmocka_unit_test(test_args_tails),
		T(test_disk_full),
		T(test_writer_rejects),
		T(test_gprofng),
	};

	return cmocka_run_group_tests_name("experiments", tests, NULL, NULL);
}
