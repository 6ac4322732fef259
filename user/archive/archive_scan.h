/* SPDX-License-Identifier: MIT */
/*
 * Inside the archiver: the objects an experiment names (archive_scan.c)
 * and the notes of its report, shared with the copying (archive.c).
 */
#ifndef BPFCOLLECT_ARCHIVE_SCAN_H
#define BPFCOLLECT_ARCHIVE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "archive_hits.h"
#include "bpfcollect/archive.h"

#define NO_TIME INT64_MAX

struct object {
	char *path;
	int64_t mapped; /* wall-clock ns of its first mapping; NO_TIME if unknown */
	uint64_t hits;	/* stack frames and probe entries in it (BC_ARCHIVE_HITS) */
};

struct scan {
	struct object *objs;
	size_t nobjs;
	size_t cap;
	size_t dedup_at;	       /* merge duplicates when nobjs gets there */
	enum bc_archive_policy policy; /* AUTO until the founder's log.xml is read */
	struct archive_hits hits;      /* BC_ARCHIVE_HITS: what the data of each experiment hits */
};

/* Reads the founder's and its subexperiments' map.xml into sc (policy from sc). 0 or -errno. */
int archive_scan_all(struct scan *sc, int expfd, const char *founder, struct bc_archive_report *rep,
		     char *err, size_t errlen);
void archive_scan_free(struct scan *sc);

/* A "PATH: what happened" line in rep's notes (control characters shown as '?'). */
void archive_note(struct bc_archive_report *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* An object not archived, and why. */
void archive_skip(struct bc_archive_report *rep, enum bc_archive_skip why, const char *path,
		  const char *detail);

static inline bool archive_ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

#endif
