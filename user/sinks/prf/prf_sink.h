/* SPDX-License-Identifier: MIT */
/*
 * Inside the PRF sink: its state, and what the writers of each record
 * kind share (sink_prf.c: threads, names, calls, syscalls, processes,
 * losses; prf_kinds.c: off-CPU, samples, heap, sync, I/O, usage).
 */
#ifndef BPFCOLLECT_PRF_SINK_H
#define BPFCOLLECT_PRF_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpfcollect/model.h"
#include "bpfcollect/pidtab.h"
#include "bpfcollect/prf.h"

/* A function entry whose return has not been seen yet. */
struct prf_frame {
	uint64_t entry_ktime;
	uint64_t seq;	/* of the entry record */
	uint32_t depth; /* BPF's frame index (the entry record's depth) */
	uint32_t name;	/* index into the sink's names */
};

struct prf_thread {
	uint32_t tid;
	uint32_t pid;
	uint32_t hash;
	bool dead;	      /* its exit record was seen */
	uint64_t last_seq;    /* 0: no record seen yet */
	uint64_t gap_seq;     /* the first record after the latest gap, 0: none */
	uint64_t confirm_seq; /* the last function record: its depth confirmed the frames below */
	char comm[BC_COMM_LEN + 1]; /* for a leader (tid == pid): the process's name */
	struct prf_frame *frames;
	uint32_t depth, cap;
};

/* INT and OPR of open frames, interned: "INT\0OPR\0". */
struct prf_name {
	char *s;
	size_t len;
};

struct prf_sink {
	struct bc_sink base;
	FILE *out;
	struct bc_prf_opts o;
	char *process_name; /* owned copies of the opts' strings */
	bool have_ip;
	uint32_t host_ip;
	uint32_t root_pid;
	int64_t wall_offset;
	uint64_t last_ktime;
	bool header_done;
	/* by tid; a dead thread's released after later exits (bpfcollect/pidtab.h) */
	struct bc_pidtab threads;
	struct prf_thread zero; /* thread id 0 (records of no thread, or corrupt ones) */
	bool zero_seen;
	struct prf_name *names;
	size_t nnames, ncap;
	uint32_t *nslots; /* index + 1 into names, 0 empty */
	size_t nslot_cap;
	struct bc_prf_peers *peers; /* ClientAP of syscall records */
	struct bc_prf_ap client;    /* of the next record emit writes */
	uint8_t opt[BC_PRF_OPT_MAX];
	char text[2048];
};

/*
 * Writes one record: t's process and thread (or pid, t NULL), Trace, the
 * Event id, the time, Rc (err: ErrRec), INT and OPR, and opt_len bytes of
 * p->opt as OPT. 0 or -EIO.
 */
int prf_emit(struct prf_sink *p, const struct prf_thread *t, uint32_t pid, uint64_t trace,
	     unsigned int event, uint64_t ktime, uint64_t rc, bool err, const char *intf,
	     const char *opr, size_t opt_len);
/* Appends len bytes of s to p->opt at n, as many as fit; the new length. */
size_t prf_opt_text(struct prf_sink *p, size_t n, const char *s, size_t len);
/* The entry time (16 bytes: seconds and microseconds since 1970) into p->opt; 16. */
size_t prf_opt_entry_time(struct prf_sink *p, uint64_t entry_ktime);

/* The records of the kinds without a pairing (prf_kinds.c). */
int prf_sched_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev);
int prf_sample_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev);
int prf_heap_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev);
int prf_sync_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev);
int prf_io_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev);
int prf_usage_event(struct prf_sink *p, struct prf_thread *t, const struct bc_event *ev);

#endif /* BPFCOLLECT_PRF_SINK_H */
