/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets that replay events share: every stream sink that
 * writes to one FILE (text, PRF CSV and dump, GTF, chrome, folded by
 * every kind of stack) and the report
 * aggregator, fed as the producers feed them (the shared process state
 * updated first), all writing to /dev/null.
 */
#ifndef BPFCOLLECT_FUZZ_SINKS_H
#define BPFCOLLECT_FUZZ_SINKS_H

#include <stdio.h>
#include <string.h>

#include "bpfcollect/chrome.h"
#include "bpfcollect/folded.h"
#include "bpfcollect/formats.h"
#include "bpfcollect/gtf.h"
#include "bpfcollect/model.h"
#include "bpfcollect/prf.h"
#include "bpfcollect/report.h"
#include "bpfcollect/sink_text.h"
#include "bpfcollect/state.h"

#define FUZZ_NSINKS 9

struct fuzz_sinks {
	FILE *null;
	struct bc_report *report;
	struct bc_sink *s[FUZZ_NSINKS];
};

static inline void fuzz_sinks_open(struct fuzz_sinks *f)
{
	struct bc_prf_opts csv, dump;
	struct bc_gtf_opts gtf = {.ebcdic = true};
	struct bc_folded_opts calls = {.weight = BC_FOLDED_INCL},
			      samples = {.weight = BC_FOLDED_TIME}, offcpu = {.offcpu = true};

	memset(f, 0, sizeof(*f));
	f->null = fopen("/dev/null", "w");
	if (!f->null)
		return;
	bc_prf_opts_init(&csv);
	bc_prf_opts_init(&dump);
	dump.format = BC_PRF_DUMP;
	f->report = bc_report_new();
	f->s[0] = bc_text_sink_new(f->null);
	f->s[1] = bc_prf_sink_new(f->null, &csv);
	f->s[2] = bc_prf_sink_new(f->null, &dump);
	f->s[3] = bc_gtf_sink_new(f->null, &gtf);
	f->s[4] = f->report ? bc_report_sink(f->report) : NULL;
	f->s[5] = bc_chrome_sink_new(f->null, NULL);
	f->s[6] = bc_folded_sink_new(f->null, &calls, NULL);
	f->s[7] = bc_folded_sink_new(f->null, &samples, NULL);
	f->s[8] = bc_folded_sink_new(f->null, &offcpu, NULL);
}

/* Each sink stops at its first error, as a recording would (the report's destroy is a no-op). */
static inline void fuzz_sinks_drop(struct fuzz_sinks *f, int i)
{
	bc_sink_destroy(f->s[i]);
	f->s[i] = NULL;
}

static inline void fuzz_sinks_begin(struct fuzz_sinks *f, const struct bc_session *sess)
{
	for (int i = 0; i < FUZZ_NSINKS; i++)
		if (f->s[i] && bc_sink_begin(f->s[i], sess) < 0)
			fuzz_sinks_drop(f, i);
}

static inline void fuzz_sinks_event(struct fuzz_sinks *f, const struct bc_event *ev)
{
	for (int i = 0; i < FUZZ_NSINKS; i++)
		if (f->s[i] && bc_sink_event(f->s[i], ev) < 0)
			fuzz_sinks_drop(f, i);
}

static inline void fuzz_sinks_mapping(struct fuzz_sinks *f, const struct bc_mapping *m)
{
	for (int i = 0; i < FUZZ_NSINKS; i++)
		if (f->s[i] && bc_sink_mapping(f->s[i], m) < 0)
			fuzz_sinks_drop(f, i);
}

/* Ends and frees them all. */
static inline void fuzz_sinks_close(struct fuzz_sinks *f, const struct bc_session_end *end)
{
	for (int i = 0; i < FUZZ_NSINKS; i++) {
		if (!f->s[i])
			continue;
		bc_sink_end(f->s[i], end);
		fuzz_sinks_drop(f, i);
	}
	bc_report_free(f->report);
	if (f->null)
		fclose(f->null);
}

#endif
