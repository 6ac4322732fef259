/* SPDX-License-Identifier: MIT */
/*
 * An experiment's heap, sync and I/O traces (-H, -s, -i) in gprofng's own
 * layout (gprofng-format.md §3.1, §5): `heaptrace` holds 80-byte heap
 * packets (kind 5), `synctrace` 64-byte sync packets (kind 2), `iotrace`
 * I/O packets (kind 19, 88 bytes or more), each after the
 * 48-byte common head (LWPID = THRID = the thread, CPUID, TSTAMP = when
 * the call returned, FRINFO). Stacks go into the experiment's
 * data.frameinfo through its er_profile, shared with the clock profile:
 * the function called (malloc, pthread_mutex_lock, ...) is the leaf, its
 * callers follow as return address minus one.
 */
#ifndef BPFCOLLECT_ER_TRACES_H
#define BPFCOLLECT_ER_TRACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "er_profile.h"
#include "bpfcollect/record.h"

#define BC_ER_SYNC_PACKET 2
#define BC_ER_HEAP_PACKET 5
#define BC_ER_HEAP_SIZE	  80
#define BC_ER_SYNC_SIZE	  64
#define BC_ER_IO_PACKET	  19
#define BC_ER_IO_SIZE	  80 /* before the file name */

enum er_trace_kind {
	ER_TRACE_HEAP,
	ER_TRACE_SYNC,
	ER_TRACE_IO,
	ER_TRACE_NR,
};

struct er_trace_file {
	int fd; /* -1: not traced */
	char *buf;
	size_t used;
	uint64_t size, packets;
	int err; /* sticky */
};

struct er_traces {
	struct er_trace_file f[ER_TRACE_NR];
};

/*
 * The log.xml <profile> blocks of the traces asked for, into buf; its
 * length (snprintf-like). sync_threshold_us is header text for gprofng.
 */
int er_traces_decl(char *buf, size_t len, bool heap, bool sync, uint32_t sync_threshold_us,
		   bool io);
/* Creates heaptrace, synctrace and/or iotrace in dirfd. */
int er_traces_open(struct er_traces *t, int dirfd, bool heap, bool sync, bool io);
/* One call: its stack (once, through frames) and its packet, buffered. */
int er_traces_add_heap(struct er_traces *t, struct er_profile *frames, const struct bc_rec_heap *r);
int er_traces_add_sync(struct er_traces *t, struct er_profile *frames, const struct bc_rec_sync *r);
/*
 * An I/O call: its packet is 80 bytes, then the file name (opens only) and
 * its NUL, rounded up to 8 (gprofng's iotrace; 88 without a name).
 */
int er_traces_add_io(struct er_traces *t, struct er_profile *frames, const struct bc_rec_io *r);
/* Writes what is buffered, whole packets only (the frames first: er_profile_flush). */
int er_traces_flush(struct er_traces *t);
void er_traces_close(struct er_traces *t);
#endif
