/* SPDX-License-Identifier: MIT */
/*
 * record's live status line on stderr (user/agent/status_line.c):
 *
 *   bpfcollect: 12.3 s  1.24 M events  98.1 k/s  lost: func 120, unwritten 3  procs 4  23.4 MB
 *
 * elapsed time since tracing began, events delivered, events a second over
 * the last second or so, losses by class (bc_loss_class_name) once any is
 * non-zero, processes traced so far, bytes the agent wrote. Every number is
 * cut down, never rounded up, so no redraw says more than the summary at
 * the end.
 *
 * On a terminal that knows its size (and is not TERM=dumb) the line has
 * the bottom row to itself: the rows above it become the scroll region,
 * as apt's progress bar does, so what the traced command prints scrolls
 * above the line instead of running into it; each redraw saves the cursor,
 * writes the bottom row and puts the cursor back. The region is given back
 * and the row cleared at the end. On another terminal it is redrawn in
 * place ("\r" LINE "\033[K") and cleared ("\r\033[K") before any other
 * message and at the end. Either way at most four times a second, cut to
 * the terminal's width. Forced (--status) onto a file
 * or pipe, each redraw is a line of its own ending in "\n", with no escape
 * sequences, at most 80 columns: a reader takes the last line as the
 * latest.
 *
 * Everything it shows comes from counters the agent keeps anyway; a redraw
 * adds a read of the loss map and of /proc/self/io, no cost per event.
 */
#ifndef BPFCOLLECT_STATUS_LINE_H
#define BPFCOLLECT_STATUS_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/record.h"

#define BC_STATUS_INTERVAL_NS 250000000ULL /* at most 4 redraws a second */
#define BC_STATUS_WIDTH	      80	   /* columns when stderr is no terminal */
#define BC_STATUS_WINDOW      4		   /* redraws the rate is taken over: ~1 s */
#define BC_STATUS_NO_BYTES    UINT64_MAX   /* bytes written are not known */
#define BC_STATUS_LINE_MAX    512

/* What one redraw shows. */
struct bc_status_sample {
	uint64_t elapsed_ns;
	uint64_t events;
	uint64_t rate; /* events a second, lately */
	uint64_t lost[BC_LOSS_NR];
	uint64_t procs;
	uint64_t bytes; /* BC_STATUS_NO_BYTES: not known */
};

struct bc_status_line {
	int fd;
	bool on;		  /* drawn at all (bc_status_line_enable) */
	bool tty;		  /* in place, cut to the terminal; else a line each */
	bool drawn;		  /* tty: a line is up, to clear before other output */
	bool may_pin;		  /* tty: the terminal takes a scroll region */
	unsigned int pinned_rows; /* the bottom row is the line's, of so many; 0: not pinned */
	uint64_t start_ns;	  /* tracing began: CLOCK_MONOTONIC */
	uint64_t last_ns;	  /* the last redraw, or start_ns */
	/* (time, events) of the last redraws, a ring: the rate is taken over them */
	uint64_t win_ns[BC_STATUS_WINDOW], win_events[BC_STATUS_WINDOW];
	size_t win_next, win_n;
	uint64_t wchar_start; /* /proc/self/io wchar at init; BC_STATUS_NO_BYTES: unreadable */
	uint64_t own_bytes;   /* what the line itself wrote: not output */
	uint64_t redraws;
};

/*
 * "987", "98.1 k", "1.24 M", "3.10 G", ... (decimal prefixes, three
 * significant digits, cut down), then unit: "987 B", "23.4 MB". A space
 * separates the number from a prefix or unit. Returns what snprintf
 * returns.
 */
int bc_status_si(char *buf, size_t len, uint64_t n, const char *unit);
/* The classes that lost anything, by name, in enum order: "func 120, unwritten 3"; "" if none. */
int bc_status_lost(char *buf, size_t len, const uint64_t lost[BC_LOSS_NR]);
/*
 * The line, at most width columns (ASCII): fields are separated by two
 * spaces and left out whole from the first that does not fit (losses that
 * do not fit by class shrink to their total first). Returns its length.
 */
size_t bc_status_format(char *buf, size_t len, const struct bc_status_sample *s, size_t width);
/*
 * record's one-line summary, without the "bpfcollect: " and newline: "NAME:
 * 1234567 events, 123 lost (func 120, unwritten 3), 4 processes, 23.4 MB,
 * 12.3 s, 12 functions probed" from s (elapsed_ns: the recording's
 * length), events and losses exact; "0 lost" when nothing was. Returns what
 * snprintf returns.
 */
int bc_status_summary(char *buf, size_t len, const char *name, const struct bc_status_sample *s,
		      size_t n_probes);
/* wchar of a /proc/PID/io text: 0, or -EINVAL when it has none. */
int bc_status_parse_wchar(const char *io, uint64_t *wchar);

/* Off, counting bytes written from now on; start_ns: when tracing began. */
void bc_status_line_init(struct bc_status_line *s, int fd, uint64_t start_ns);
/* Drawn from now on: in place on a terminal (tty), else a line each redraw. */
void bc_status_line_enable(struct bc_status_line *s, bool tty);
/* Whether a redraw is due at now_ns: on, and BC_STATUS_INTERVAL_NS since the last. */
bool bc_status_line_due(const struct bc_status_line *s, uint64_t now_ns);
/*
 * Draws smp's events, lost and procs with the elapsed time, rate and bytes
 * it works out itself (it fills them in smp). 0 or -errno of the write.
 */
int bc_status_line_draw(struct bc_status_line *s, struct bc_status_sample *smp, uint64_t now_ns);
/*
 * Before another message: clears a line drawn in place; a pinned line
 * stays (messages scroll above it). Safe to call any time.
 */
void bc_status_line_clear(struct bc_status_line *s);
/* The end: the scroll region given back, the line cleared, whichever way it was drawn. */
void bc_status_line_end(struct bc_status_line *s);
/* Bytes the agent wrote since init, the line's own left out; BC_STATUS_NO_BYTES if unknown. */
uint64_t bc_status_line_bytes(const struct bc_status_line *s);

#endif /* BPFCOLLECT_STATUS_LINE_H */
