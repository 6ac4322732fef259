/* SPDX-License-Identifier: MIT */
/*
 * Internal to the `.er` reader, not part of the library's API: shared by
 * user/readers/er_reader.c, which parses log.xml, functions and map.xml and runs
 * bc_er_read, and user/readers/er_replay.c, which maps the data files, validates
 * and indexes their records, and replays them into a sink merged in time
 * order with the mappings.
 */
#ifndef BPFCOLLECT_ER_REPLAY_H
#define BPFCOLLECT_ER_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "bpfcollect/experiment.h"
#include "bpfcollect/state.h"
#include "bpfcollect/xml.h"

#define BC_ER_NO_NEXT UINT32_MAX

/* One segment or unmap event of map.xml. */
struct bc_er_map {
	struct bc_mapping m;
	char *path;
	uint64_t order; /* file order, to keep the sort stable */
};

/*
 * map.xml's mappings, streamed (er_maps.c): the file is read through a
 * window, and replay takes its events through a reorder window of at most
 * BC_ER_MAPQ_PENDING mappings (BC_ER_MAPQ_BYTES of paths), in time order
 * as long as no event is that far out of it.
 */
#define BC_ER_MAPQ_PENDING 4096
#define BC_ER_MAPQ_BYTES   (1u << 20)

struct bc_er_mapq {
	uint64_t size; /* bytes of map.xml read at open: replay reads as many */
	bool unsorted; /* the scan found a mapping earlier than one before it */
	struct bc_xml x;
	bool reading;		/* x is open */
	struct bc_er_map *pend; /* min-heap by (ktime, order) */
	size_t n, cap;
	size_t bytes; /* of the pending paths */
	uint64_t order;
	struct bc_er_map head; /* the next to replay, when have_head */
	bool have_head;
	uint64_t last; /* the latest time replayed */
	uint64_t late; /* replayed after a later one: further out of order than the window */
};

/* One data file, mmapped, with every valid record's offset and per-thread chain. */
struct bc_er_data {
	/*
	 * The records: the file mmapped, or a compact file's decoded, in
	 * memory (decoded, base then) or in a temporary file mmapped.
	 */
	const unsigned char *base;
	unsigned char *decoded;
	uint64_t len; /* bytes at base */
	uint64_t *off;
	uint32_t *next; /* next record of the same thread in this file, or BC_ER_NO_NEXT */
	size_t n;
	size_t cap;
};

/* The records of one thread in one file: replayed in file order. */
struct bc_er_stream {
	uint32_t tid;
	uint32_t file;
	uint32_t cur;
	uint32_t tail;
};

/* The data files' index and the merge over it; owned by er_replay.c. */
struct bc_er_replay {
	struct bc_er_data data[BC_ER_NFILES];
	struct bc_er_stream *streams;
	size_t nstreams;
	uint32_t *slots; /* open-addressing map (file, tid) -> stream index + 1 */
	size_t nslots;
	uint32_t *heap;
	size_t heap_n;
};

/* One bc_er_read: zero it, then set path, dirfd, info, err and errlen. */
struct bc_er_reader {
	const char *path;
	int dirfd;
	struct bc_er_info *info;
	char *err;
	size_t errlen;
	struct bc_er_mapq mq;
	bool saw_experiment; /* log.xml's <experiment> element was read */
	bool saw_run;	     /* and its run event */
	struct bc_er_replay rp;
};

/*
 * Appends one line to info->notes in O(1) amortised: a line already there
 * is not added again, and past BC_ER_NOTES_MAX distinct lines one more says
 * the rest are left out. A note lost to a failed allocation is dropped.
 */
__attribute__((format(printf, 2, 3))) void bc_er_note(struct bc_er_info *info, const char *fmt,
						      ...);
/* A .bcreserve a killed recording left in the experiment dirfd: removed, with a note. */
void bc_er_remove_stale_reserve(int dirfd, struct bc_er_info *info);
/*
 * Opens the experiment's file name (bc_in_openat: a regular file, never
 * through a link, never waiting on a FIFO): the fd, -ENOENT quietly, or
 * -errno with one line in r->err naming the file.
 */
int bc_er_open_file(struct bc_er_reader *r, const char *name, struct stat *st);
/* Writes the message into r->err and returns err. */
__attribute__((format(printf, 3, 4))) int bc_er_fail(struct bc_er_reader *r, int err,
						     const char *fmt, ...);

/*
 * Opens the experiment's XML file `name` for streaming into x: its first
 * `limit` bytes, or (UINT64_MAX) as many as it has now, in *size. -ENOENT
 * quietly; another error with a message.
 */
int bc_er_open_xml(struct bc_er_reader *r, const char *name, uint64_t limit, struct bc_xml *x,
		   uint64_t *size);
/*
 * bc_xml_next for the reader: a torn last element (a live experiment, or
 * what a crash leaves) ends the file quietly, or with a note when `note`;
 * other errors fail with a message naming file and line.
 */
int bc_er_xml_next(struct bc_er_reader *r, struct bc_xml *x, struct bc_xml_elem *e,
		   const char *file, bool note);

/*
 * map.xml read through at open: every event checked (a bad segment fails
 * the read), info->mappings counted, info->last_ktime pushed on. A
 * missing map.xml is a note.
 */
int bc_er_maps_scan(struct bc_er_reader *r);
/* Starts replaying map.xml: its first mapping becomes the head. 0 or -errno with r->err. */
int bc_er_maps_start(struct bc_er_reader *r);
/* The next mapping to replay, or NULL when none is left. */
const struct bc_mapping *bc_er_maps_head(const struct bc_er_reader *r);
/* Drops the head for the next one. 0 or -errno with r->err. */
int bc_er_maps_next(struct bc_er_reader *r);
void bc_er_maps_free(struct bc_er_reader *r);

/*
 * A compact file's blocks (p, info->files[f].bytes long) decoded into
 * r->rp.data[f] (base, len; decoded when in memory): past
 * BC_ER_DECODE_MEM_DEFAULT bytes, or $BPFCOLLECT_DECODE_MEM, they go to a
 * temporary file mmapped instead. Damaged blocks are noted and counted.
 * 0 or -errno (-ENOMEM, or the temporary file's write error: -ENOSPC).
 */
#define BC_ER_DECODE_MEM_DEFAULT (64ull << 20)
int bc_er_decode_compact(struct bc_er_reader *r, enum bc_er_file f, const unsigned char *p);

/*
 * Maps data file f and indexes its whole, valid records into r->rp,
 * filling info->files[f] and the totals read. A missing file is a note.
 * Needs info->funcs (records are validated against it).
 */
int bc_er_index_file(struct bc_er_reader *r, enum bc_er_file f);

/*
 * Replays the indexed records into sink: begin, then events merged in time
 * order with map.xml's mappings, then end. A sink error is returned as is.
 */
int bc_er_replay(struct bc_er_reader *r, struct bc_sink *sink);

/*
 * The same in steps, so several experiments replay as one stream: start,
 * then while peek gives the time of r's next item (false: none left), step
 * passes that one item to sink, state (the producer's view of the
 * processes, bpfcollect/state.h) updated first. Errors as bc_er_replay's.
 */
int bc_er_replay_start(struct bc_er_reader *r);
bool bc_er_replay_peek(const struct bc_er_reader *r, uint64_t *ktime);
int bc_er_replay_step(struct bc_er_reader *r, struct bc_sink *sink, struct bc_state *state);
/* The session and end that replay's begin and end pass, from r's log.xml. */
void bc_er_replay_session(const struct bc_er_reader *r, struct bc_session *sess);
void bc_er_replay_end(const struct bc_er_reader *r, struct bc_session_end *end);

/*
 * Opens exp_path into r (zeroed by it): log.xml, functions, map.xml, the
 * data files indexed, info filled. 0 or -errno with err set; close r
 * with bc_er_reader_close whatever it returned.
 */
int bc_er_reader_open(struct bc_er_reader *r, const char *exp_path, struct bc_er_info *info,
		      char *err, size_t errlen);
void bc_er_reader_close(struct bc_er_reader *r);

/* Unmaps the data files and frees r->rp. */
void bc_er_replay_free(struct bc_er_reader *r);

#endif /* BPFCOLLECT_ER_REPLAY_H */
