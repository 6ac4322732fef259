/* SPDX-License-Identifier: MIT */
/*
 * An experiment's clock profile (-p) in gprofng's own layout
 * (gprofng-format.md §3.1, §5, §5.1): `profile` holds 56-byte clock packets
 * (kind 8, numstates 2: MSTATE 0 user, 1 system), `data.frameinfo` one FRAME
 * packet per distinct call stack (kernel frames, then user frames, leaf
 * first; callers as return address minus one), deduplicated by a 64-bit
 * hash of the PCs. Kernel PCs resolve through map.xml's LinuxKernel segment
 * and the experiment's `kallmodsyms`, written from /proc/kallsyms.
 * data.frameinfo only appears with the first stack: gprofng skips a
 * subexperiment whose data.frameinfo is empty.
 */
#ifndef BPFCOLLECT_ER_PROFILE_H
#define BPFCOLLECT_ER_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/record.h"

#define BC_ER_CLOCK_PACKET 8
#define BC_ER_FRAME_PACKET 11
#define BC_ER_CLOCK_SIZE   56
/* The tick off-CPU time counts in when there is no -p to set ptimer: 1 ms, collect's -p hi */
#define BC_ER_OFFCPU_TICK_US 1000
#define BC_ER_MSTATE_USER    0
#define BC_ER_MSTATE_SYSTEM  1
/* numstates 10 only: time off CPU */
#define BC_ER_MSTATE_USER_LOCK 6
#define BC_ER_MSTATE_SLEEP     7
#define BC_ER_MSTATE_WAIT_CPU  8

/* A thread's off-CPU time not yet written: less than a tick per state. */
struct er_residue {
	uint32_t tid;	/* 0: free slot */
	uint64_t ns[3]; /* sleep, user lock, wait CPU */
};

struct er_profile {
	int dirfd;
	int prof_fd, frame_fd; /* frame_fd: -1 until the first stack */
	uint64_t prof_size, frame_size;
	char *prof_buf, *frame_buf; /* whole packets waiting for er_profile_flush */
	size_t prof_used, frame_used, frame_cap;
	uint64_t *uids; /* open-addressing set of stack hashes written */
	size_t n_uids, cap_uids;
	uint64_t ptimer_ns;
	struct er_residue *residues; /* open addressing by tid */
	size_t n_residues, cap_residues;
	uint64_t samples, offcpu_intervals;
	uint64_t *kpcs; /* the kernel PCs of the stacks written, for the symbols they need */
	size_t n_kpcs, cap_kpcs;
	int err; /* sticky */
};

/*
 * The log.xml <profile> block for ptimer_us, into buf; its length
 * (snprintf-like). offcpu: numstates 10, so Sleep, Wait CPU and User Lock
 * columns exist; else numstates 2 (User and System CPU).
 */
int er_profile_decl(char *buf, size_t len, uint32_t ptimer_us, bool offcpu);
/*
 * Creates `profile` in dirfd; ptimer_us is the tick every packet counts
 * in. 0: no clock profile, only the stacks of other data (heap, sync).
 */
int er_profile_open(struct er_profile *p, int dirfd, uint32_t ptimer_us);
/* One sample: its stack (once) and its clock packet, buffered. */
int er_profile_add(struct er_profile *p, const struct bc_rec_profile *rec);
/*
 * One off-CPU interval as clock packets on its switch-out stack: the
 * blocked part as User Lock (in a futex) or Sleep, the runnable part as
 * Wait CPU, each NTICK = whole ticks. What is left under a tick is carried
 * to the thread's next interval of that state, so a thread's totals stay
 * within one tick of the exact time.
 */
int er_profile_add_offcpu(struct er_profile *p, const struct bc_rec_offcpu *rec);
/*
 * The FRAME packet of pcs[n] (leaf first, as written) once, and its uid
 * in *uid (0 when n is 0: an event without a stack). For every data kind
 * that shares data.frameinfo.
 */
int er_profile_stack(struct er_profile *p, const uint64_t *pcs, size_t n, uint64_t *uid);
/* Writes what is buffered, data.frameinfo first, whole packets only. */
int er_profile_flush(struct er_profile *p);
void er_profile_close(struct er_profile *p);

/*
 * Writes `kallmodsyms` into dirfd (text symbols, each sized to the next
 * address: ADDR SIZE TYPE NAME [MODULE]) from source: a kallsyms file
 * (/proc/kallsyms), or one already in this format (formatted: a recorded
 * experiment's, linked or copied). A subexperiment links its founder's
 * copy when there is one. Also gives the kernel's text start (_stext) for
 * the LinuxKernel segment. 0 or -errno.
 */
int er_kallmodsyms_write(int dirfd, const char *source, bool formatted, int is_subexperiment,
			 uint64_t *text_start);

/* The 64-bit stack uid of a PC list: never 0. */
uint64_t er_stack_uid(const uint64_t *pcs, size_t n);
#endif
