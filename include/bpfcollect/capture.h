/* SPDX-License-Identifier: MIT */
/*
 * Captured arguments and return values: what the agent tells BPF to capture
 * (struct bc_capture_spec, per function id and per syscall), and how captured
 * data travels inside a record (struct bc_cap_item after the record's fixed
 * part). Shared by bpf/ and user/; part of the on-disk format.
 *
 * A record with captures is the kind's fixed struct followed by items, each
 * an 8-byte header and `len` data bytes padded to a multiple of 8; the
 * record's size covers them all. Records without captures are unchanged.
 */
#ifndef BPFCOLLECT_CAPTURE_H
#define BPFCOLLECT_CAPTURE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define BC_MAX_CAPTURES	      8	   /* items per function */
#define BC_MAX_ARG_REGS	      6	   /* integer/pointer arguments in registers (SysV x86-64) */
#define BC_STRLEN_DEFAULT     64   /* --string-size default */
#define BC_STRLEN_MAX	      4096 /* largest string or buffer one item holds */
#define BC_CAPTURE_RECORD_MAX 8192 /* a record with captures never exceeds this */

/* Where a value comes from. */
enum bc_cap_source {
	BC_SRC_ARG = 1,	   /* integer register argument, index 0..5 (arg1..arg6) */
	BC_SRC_RETVAL = 2, /* return value (rax), at return */
	BC_SRC_FPARG = 3,  /* floating-point argument, index 0..7 (xmm0..xmm7) */
};

/* What BPF reads for an item. */
enum bc_cap_type {
	BC_CAP_INT = 1, /* the 8-byte register value */
	BC_CAP_STR = 2, /* NUL-terminated string the register points to, up to max_len bytes */
	BC_CAP_BUF =
		3, /* max_len bytes (or the value of arg len_arg, at most max_len) it points to */
	BC_CAP_FP = 4, /* the 8 low bytes of an xmm register */
};

/* How the agent renders an item (BPF ignores it). */
enum bc_cap_fmt {
	BC_FMT_SIGNED = 1, /* d, i */
	BC_FMT_UNSIGNED,   /* u */
	BC_FMT_HEX,	   /* x */
	BC_FMT_PTR,	   /* p */
	BC_FMT_CHAR,	   /* c */
	BC_FMT_STR,	   /* s */
	BC_FMT_BUF,	   /* buf */
	BC_FMT_DOUBLE,	   /* f, f64 */
	BC_FMT_FLOAT,	   /* f32 */
};

#define BC_LEN_FIXED 0xff /* len_arg: the length is max_len */

struct bc_capture_item_spec {
	__u8 source;   /* enum bc_cap_source */
	__u8 index;    /* register index (0-based) */
	__u8 type;     /* enum bc_cap_type */
	__u8 fmt;      /* enum bc_cap_fmt */
	__u8 size;     /* integer width in bytes for rendering: 1, 2, 4, 8 */
	__u8 len_arg;  /* BUF: 0-based index of the argument holding the length, or BC_LEN_FIXED */
	__u16 max_len; /* STR, BUF: most bytes captured (1..BC_STRLEN_MAX) */
	__u8 at_exit;  /* syscalls: read at exit (what the kernel wrote, e.g. accept's peer) */
	__u8 pad;
};

/* Per function id (array map) and per syscall number. Items at entry come first. */
struct bc_capture_spec {
	__u8 n_entry;  /* items captured at entry (sources ARG, FPARG) */
	__u8 n_return; /* items captured at return (source RETVAL) */
	__u8 pad[6];
	struct bc_capture_item_spec items[BC_MAX_CAPTURES];
};

/* bc_cap_item.flags */
#define BC_CAPF_FAULT	  0x01 /* reading the memory failed: no data */
#define BC_CAPF_TRUNCATED 0x02 /* the value was longer than max_len: data holds max_len bytes */
#define BC_CAPF_NULL	  0x04 /* the pointer was NULL: no data */

struct bc_cap_item {
	__u8 source; /* enum bc_cap_source */
	__u8 index;
	__u8 type;  /* enum bc_cap_type */
	__u8 flags; /* BC_CAPF_* */
	__u16 len;  /* data bytes following this header (before padding) */
	__u8 spec;  /* index of the item in the function's bc_capture_spec */
	__u8 pad;
};

#endif /* BPFCOLLECT_CAPTURE_H */
