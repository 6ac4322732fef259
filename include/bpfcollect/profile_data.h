/* SPDX-License-Identifier: MIT */
/*
 * Reading a clock profile back from an experiment, as gprofng reads it
 * (gprofng-format.md §3.1, §5, §5.1): ptimer from log.xml's <profile>
 * block, clock packets from `profile`, heap, sync and I/O packets from
 * `heaptrace`, `synctrace` and `iotrace`, stacks from `data.frameinfo`, kernel
 * symbols from `kallmodsyms`. Every file is untrusted: a bad packet ends the
 * read of its file with what came before; nothing is read out of bounds.
 */
#ifndef BPFCOLLECT_PROFILE_DATA_H
#define BPFCOLLECT_PROFILE_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bc_prof_stack {
	uint64_t uid;
	const uint64_t *pcs; /* leaf first, into the frameinfo buffer */
	size_t n;
};

struct bc_prof_sample {
	uint64_t tid, tstamp, frinfo;
	int32_t mstate, nticks;
};

/* A heap or sync packet (gprofng-format.md §5). */
struct bc_trace_event {
	uint64_t tid, tstamp, frinfo;
	uint32_t type;	     /* heap: HTYPE */
	uint64_t size, addr; /* heap: HSIZE, HVADDR; sync: addr is SOBJ */
	uint64_t old_addr;   /* heap: HOVADDR */
	uint64_t start;	     /* sync: SRQST */
};

/* An I/O packet (gprofng-format.md §5). */
struct bc_io_event {
	uint64_t tid, tstamp, frinfo;
	int32_t type, fd, ofd, fstype; /* IOTYPE, IOFD, IOOFD, IOFSTYPE */
	uint64_t nbyte, start;	       /* IONBYTE, IORQST */
	char *name;		       /* IOFNAME; NULL when empty */
};

struct bc_prof_data {
	uint32_t ptimer_us;		    /* 0: the experiment has no clock profile */
	bool has_heap, has_sync, has_io;    /* log.xml declares heaptrace, synctrace, iotrace */
	struct bc_trace_event *heap, *sync; /* in file order */
	size_t n_heap, n_sync;
	struct bc_io_event *io; /* in file order */
	size_t n_io;
	char *frame_buf;
	struct bc_prof_stack *stacks; /* sorted by uid */
	size_t n_stacks;
	struct bc_prof_sample *samples;
	size_t n_samples;
	size_t bad_packets; /* skipped or cut off */
};

/*
 * Reads the clock profile of the experiment at exp. 0 (ptimer_us 0 when
 * there is none), or -errno with one line in err. Free with
 * bc_prof_data_free whatever it returned.
 */
int bc_prof_data_read(const char *exp, struct bc_prof_data *d, char *err, size_t errlen);
void bc_prof_data_free(struct bc_prof_data *d);
/*
 * Parses the stacks of a data.frameinfo already read into d->frame_buf
 * (len bytes, malloc'ed: PCs are read in place), as bc_prof_data_read does:
 * d->stacks sorted by uid, damage counted in d->bad_packets. 0 or -ENOMEM.
 */
int bc_prof_frames_parse(struct bc_prof_data *d, size_t len);
/* The stack with this uid, or NULL. */
const struct bc_prof_stack *bc_prof_stack_find(const struct bc_prof_data *d, uint64_t uid);

/* Kernel text symbols from an experiment's kallmodsyms. */
struct bc_ksym {
	uint64_t addr, size;
	size_t order; /* line in the file */
	char *name;   /* "NAME", or "MODULE`NAME" for a module */
};

struct bc_ksyms {
	struct bc_ksym *v; /* by address */
	size_t n;
};

/* 0 (n == 0 when the file is missing), or -errno. */
/*
 * Whether gprofng makes a function of a kernel symbol: not of names with a
 * '.' (foo.part.0, foo.constprop.0, __pfx_foo.cold: their code is a gap,
 * <static>@ the end of the function before) unless ".clone.", nor of the
 * export tables' symbols.
 */
bool bc_ksym_gprofng_keeps(const char *name);
/* The experiment's kallmodsyms, the functions gprofng makes of it (text symbols it keeps). */
int bc_ksyms_read(const char *exp, struct bc_ksyms *k);
const struct bc_ksym *bc_ksyms_find(const struct bc_ksyms *k, uint64_t pc);
void bc_ksyms_free(struct bc_ksyms *k);
#endif
