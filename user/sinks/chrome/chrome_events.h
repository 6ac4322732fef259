/* SPDX-License-Identifier: MIT */
/* The chrome sink's state, shared by its two files (sink_chrome.c, chrome_other.c). */
#ifndef BPFCOLLECT_SINKS_CHROME_EVENTS_H
#define BPFCOLLECT_SINKS_CHROME_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bpfcollect/model.h"
#include "bpfcollect/pidtab.h"
#include "bpfcollect/shadow_stack.h"
#include "bpfcollect/stack_names.h"
#include "bpfcollect/sys_merge.h"
#include "../reorder.h"

/* JSON members (`,"k":"v"...`) being gathered. */
struct chrome_buf {
	char *v;
	size_t len, cap;
};

struct chrome_thread {
	uint32_t pid, tid;
	struct bc_shadow_stack stack; /* calls open; a frame's tag is where its args start */
	struct chrome_buf args;	      /* the open calls' entry captures, outermost first */
};

/* A process's last usage sample, for the CPU counter's next rates. */
struct chrome_usage {
	uint64_t ktime, utime, stime, wait;
};

struct chrome_sink {
	struct bc_sink base;
	FILE *file; /* the output */
	/*
	 * The events of the record at hand are written here, then wait in q
	 * with its key (bytes ordered as GTF's are), so a live recording and
	 * its conversion write the same file.
	 */
	FILE *out;
	char *out_buf;
	size_t out_len;
	size_t n_out; /* events in out so far (a comma before the next) */
	struct bc_reorder q;
	const struct bc_state *state;
	const struct bc_functab *funcs;
	uint64_t start_ktime;
	uint64_t profile_ns;	  /* a clock sample's weight; 0: no clock profile */
	bool first;		  /* no event in the file yet (no comma before the next) */
	struct bc_pidtab threads; /* by tid */
	struct bc_pidtab usage;	  /* by pid */
	struct bc_sys_merge calls;
	struct chrome_buf ret;	     /* a return's captures */
	struct bc_stack_names names; /* the stack frames of samples and off-CPU intervals */
	char text[4096];	     /* a rendered system call */
};

/*
 * `{"ph":PH,"pid":..,"tid":..,"ts":..,"name":NAME,"cat":CAT` after the
 * separator the previous event needs; the caller adds members and `}`.
 */
void chrome_event_head(struct chrome_sink *c, uint32_t pid, uint32_t tid, const char *ph,
		       const char *name, const char *cat, uint64_t ktime);
/* The thread of record h, made (and its track named) on its first record; NULL: no memory. */
struct chrome_thread *chrome_thread_of(struct chrome_sink *c, const struct bc_rec_head *h);
/* Every record kind but calls and system calls. */
int chrome_other_event(struct chrome_sink *c, const struct bc_event *ev);
/* Calls still open in th, as events ending at `at` with note. */
void chrome_drop_calls(struct chrome_sink *c, struct chrome_thread *th, uint64_t at,
		       const char *note);
/* "stackFrames": every frame the samples and intervals named, in the file. -ENOMEM. */
int chrome_write_frames(struct chrome_sink *c);

#endif
