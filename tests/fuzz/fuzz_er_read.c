// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the `.er` reader and every report view on an experiment
 * made of the input. The input is a list of files: one byte picking the
 * file (index into names[], modulo), a 2-byte little-endian length, the
 * bytes; they are written into a scratch directory (a founder with one
 * subexperiment), which is then replayed, founder and descendant, into
 * every stream sink, and read by the views that read gprofng's packet files
 * (profile, heap, leaks, sync, io, offcpu, procs, overview, objects).
 * `make fuzz` runs it from tests/fuzz/corpus/er_read/ (real experiments).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/experiment.h"
#include "bpfcollect/report_exp.h"
#include "bpfcollect/report_io.h"
#include "bpfcollect/report_offcpu.h"
#include "bpfcollect/report_procs.h"
#include "bpfcollect/report_profile.h"
#include "bpfcollect/report_traces.h"
#include "fuzz_sinks.h"
#include "sinks/sink_tee.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
	"log.xml",
	"map.xml",
	"functions",
	"overview",
	"functrace",
	"syscalls",
	"proctrace",
	"sched",
	"samples",
	"heap",
	"sync",
	"io",
	"usage",
	"data.frameinfo",
	"profile",
	"heaptrace",
	"synctrace",
	"iotrace",
	"kallmodsyms",
	"notes",
	"_f1.er/log.xml",
	"_f1.er/map.xml",
	"_f1.er/functions",
	"_f1.er/functrace",
	"_f1.er/proctrace",
	"_f1.er/overview",
	"_f1.er/profile",
	"_f1.er/data.frameinfo",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static char dir[64];

static void remove_all(void)
{
	char path[128];

	for (size_t i = 0; i < NNAMES; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/_f1.er", dir);
	rmdir(path);
}

static void cleanup(void)
{
	remove_all();
	rmdir(dir);
}

static int setup(void)
{
	if (dir[0])
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/fuzz_er_read.XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = 0;
		return -1;
	}
	atexit(cleanup);
	return 0;
}

static void write_files(const uint8_t *data, size_t size)
{
	char path[128];
	size_t off = 0;

	snprintf(path, sizeof(path), "%s/_f1.er", dir);
	mkdir(path, 0700);
	while (off + 3 <= size) {
		const char *name = names[data[off] % NNAMES];
		size_t len = (size_t)data[off + 1] | (size_t)data[off + 2] << 8;
		int fd;

		off += 3;
		if (len > size - off)
			len = size - off;
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		if (fd >= 0) {
			if (write(fd, data + off, len) < 0) {
				/* nothing: a short file is input too */
			}
			close(fd);
		}
		off += len;
	}
}

static void views(FILE *null)
{
	char err[512];

	bc_report_profile(dir, true, 5, null, err, sizeof(err));
	bc_report_traces(dir, true, BC_VIEW_HEAP, 5, null, err, sizeof(err));
	bc_report_traces(dir, true, BC_VIEW_LEAKS, 5, null, err, sizeof(err));
	bc_report_traces(dir, true, BC_VIEW_SYNC, 5, null, err, sizeof(err));
	bc_report_io(dir, true, 5, null, err, sizeof(err));
	bc_report_offcpu(dir, true, 0, 5, null, err, sizeof(err));
	bc_report_procs(dir, true, 0, null, err, sizeof(err));
	bc_report_overview(dir, true, null, err, sizeof(err));
	bc_report_objects(dir, true, null, err, sizeof(err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bc_er_info info;
	struct fuzz_sinks f;
	struct bc_sink *tee;
	char err[512];

	if (setup() < 0)
		return 0;
	remove_all();
	write_files(data, size);
	fuzz_sinks_open(&f);
	if (!f.null)
		return 0;
	tee = bc_tee_sink_new(f.s, FUZZ_NSINKS);
	if (tee) {
		memset(&info, 0, sizeof(info));
		bc_er_read_tree(dir, true, tee, &info, NULL, err, sizeof(err));
		bc_er_info_free(&info);
		bc_sink_destroy(tee);
		memset(f.s, 0, sizeof(f.s)); /* the tee owned them */
	}
	views(f.null);
	fuzz_sinks_close(&f, NULL);
	return 0;
}
