/* SPDX-License-Identifier: MIT */
/*
 * PRF performance-analysis records (seeds 000 and 001, DESIGN.md "PRF"):
 * one sink writing every event of the model as CSV or as the dump format,
 * used live (`record -f prf-csv|prf-dump`) and offline (`convert EXP -f ...`).
 * docs/prf.md describes every field, the event id table and the hash.
 *
 * The field formatters are separate functions so that each can be tested at
 * its limits. They all write a NUL-terminated string into out (when
 * outlen > 0), never past outlen, and return the length they needed, like
 * snprintf.
 */
#ifndef BPFCOLLECT_PRF_H
#define BPFCOLLECT_PRF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpfcollect/model.h"

enum bc_prf_format {
	BC_PRF_CSV = 0, /* prf-csv: header line, one record per line */
	BC_PRF_DUMP,	/* prf-dump: labelled lines and a hex dump of OPT */
};

enum bc_prf_layout {
	BC_PRF_LAYOUT_HITACHI = 0, /* seed 001's columns (default) */
	BC_PRF_LAYOUT_COSMINEXUS,  /* seed 000's: + SendSCD, ReceiveSCD, Lookup name */
};

/* How INT and OPR names longer than 32 characters become 33 (the seeds' three rules). */
enum bc_prf_trunc {
	BC_PRF_TRUNC_FIRST = 0, /* first 32 characters + "*" (default) */
	BC_PRF_TRUNC_MIDDLE,	/* first 16 + "*" + last 16 */
	BC_PRF_TRUNC_LAST,	/* "*" + last 32 */
};

struct bc_prf_opts {
	enum bc_prf_format format;
	enum bc_prf_layout layout;
	enum bc_prf_trunc truncation;
	bool utc;		  /* Date and Time in UTC, not local time */
	const char *process_name; /* ProcessName of every record; NULL: the process's comm */
	/*
	 * RootAP IP, dotted IPv4; NULL: the first non-loopback IPv4 address of
	 * this host (0.0.0.0 when it has none), looked up at begin.
	 */
	const char *host_ip;
};

/* Event ids (Event field); docs/prf.md has the table. Entry and return are consecutive. */
#define BC_PRF_EV_FUNC_ENTRY   0x0100
#define BC_PRF_EV_FUNC_RETURN  0x0101
#define BC_PRF_EV_FUNC_OPEN    0x0102 /* a call still running when the recording ended */
#define BC_PRF_EV_SYS_ENTER    0x0200
#define BC_PRF_EV_SYS_EXIT     0x0201
#define BC_PRF_EV_PROC_FORK    0x0300 /* a new process, written by its parent */
#define BC_PRF_EV_PROC_EXIT    0x0301 /* the last thread of a process exited */
#define BC_PRF_EV_THREAD_START 0x0302 /* a new thread, written by its creator */
#define BC_PRF_EV_THREAD_EXIT  0x0303
#define BC_PRF_EV_PROC_EXEC    0x0304
#define BC_PRF_EV_PROC_NAME    0x0305 /* a process seen first mid-life (kernel experiments) */
#define BC_PRF_EV_PROC_USAGE   0x0306 /* a process's usage so far (-S samples) */
#define BC_PRF_EV_SCHED_FIRST  0x0400 /* 0x0400..0x04ff: scheduler events */
#define BC_PRF_EV_SCHED_OFFCPU 0x0401 /* back on CPU after an interval off it */
#define BC_PRF_EV_SCHED_LAST   0x04ff
#define BC_PRF_EV_SAMPLE       0x0500 /* a clock-profile sample (-p) */
#define BC_PRF_EV_HEAP	       0x0600 /* an allocator call returned (-H) */
#define BC_PRF_EV_SYNC	       0x0700 /* a wait on a lock, condition or join (-s) */
#define BC_PRF_EV_IO	       0x0800 /* an I/O system call returned (-i) */
#define BC_PRF_EV_LOST_GAP     0x0f00 /* records missing from a thread's serial numbers */
#define BC_PRF_EV_LOST_RING    0x0f01 /* the agent's count of ring-buffer overflows */
#define BC_PRF_EV_UNKNOWN      0x0fff /* a record kind this version does not know */

/* Rc of ErrRec records the agent writes; errno values of failed syscalls are below 0x1000. */
#define BC_PRF_RC_LOST	    0x1000 /* records were lost */
#define BC_PRF_RC_NO_RETURN 0x1001 /* the return never came: thread ended, exec, end of trace */
#define BC_PRF_RC_NO_ENTRY  0x1002 /* a return whose entry was not seen (entry time 0) */
#define BC_PRF_RC_UNKNOWN   0x1003 /* unknown record kind */

#define BC_PRF_NAME_MAX	   32  /* INT/OPR longer than this are cut to 33 characters */
#define BC_PRF_PNAME_MAX   32  /* ProcessName characters */
#define BC_PRF_OPT_MAX	   256 /* OPT bytes: "0x" + 512 hex digits = 514 characters */
#define BC_PRF_FIELD_LEN   160 /* buffer size that holds any field but OPT/ASCII */
#define BC_PRF_OPT_HEX_LEN (2 + 2 * BC_PRF_OPT_MAX + 1)

/* -------------------------------------------------------------- options */

void bc_prf_opts_init(struct bc_prf_opts *o);

/* "prf-csv" or "prf-dump" into o->format: 0, or -EINVAL for any other name. */
int bc_prf_format_parse(const char *name, struct bc_prf_opts *o);

/*
 * One PRF option by its long name without dashes and its argument:
 *   "utc" (arg NULL), "prf-layout" hitachi|cosminexus,
 *   "prf-truncate" first|middle|last (also "32*", "16*16", "*32"),
 *   "prf-name" NAME, "prf-host-ip" A.B.C.D.
 * Returns 0, -ENOENT when name is not a PRF option, or -EINVAL with one
 * line in err. o keeps pointers to arg (NAME, A.B.C.D).
 */
int bc_prf_opt_parse(struct bc_prf_opts *o, const char *name, const char *arg, char *err,
		     size_t errlen);

/* The lines of --help that describe the options bc_prf_opt_parse takes. */
extern const char bc_prf_opts_help[];

/* ---------------------------------------------------------------- sink */

/*
 * The PRF sink: writes to out (not closed by destroy), copies o. begin
 * writes the CSV header; flush pushes buffered output out; end writes the
 * returns that never came and flushes. Ops return -EIO when out fails.
 * NULL when out of memory.
 */
struct bc_sink *bc_prf_sink_new(FILE *out, const struct bc_prf_opts *o);

/*
 * Sets RootAP IP (dotted IPv4; NULL: this host's) before begin, e.g. when
 * converting an experiment recorded on another host. -EINVAL if ip is no
 * IPv4 address.
 */
int bc_prf_sink_set_host_ip(struct bc_sink *s, const char *ip);

/* ----------------------------------------------------------- records */

/* ClientAP, RootAP. ip is in host byte order; all zero: 0.0.0.0,0,0x0000000000000000. */
struct bc_prf_ap {
	uint32_t ip;
	uint32_t pid;
	uint64_t commno;
};

/* One PRF record, every field as a value; bc_prf_write formats it. */
struct bc_prf_record {
	bool err; /* ErrRec, else Rec */
	uint32_t pid;
	uint64_t tid;
	uint32_t hash;
	uint64_t trace;
	const char *process_name;
	unsigned int event;
	int64_t wall_ns; /* ns since 1970-01-01 UTC */
	uint64_t rc;
	struct bc_prf_ap client;
	struct bc_prf_ap root;
	const char *intf; /* INT */
	const char *opr;  /* OPR */
	const uint8_t *opt;
	size_t opt_len; /* bytes beyond BC_PRF_OPT_MAX are not written */
};

/* The CSV header line of a layout, without the newline. */
const char *bc_prf_csv_header(enum bc_prf_layout layout);
/* Fields per CSV line: 20 (hitachi), 25 (cosminexus). */
unsigned int bc_prf_csv_nfields(enum bc_prf_layout layout);

/* Writes one record in o's format and layout (o->truncation applies to INT/OPR). -EIO. */
int bc_prf_write(FILE *out, const struct bc_prf_opts *o, const struct bc_prf_record *r);

/* ---------------------------------------------------------- formatters */

/* Process, Trace: 10 digits, zero-padded (more when the value needs them). */
int bc_prf_fmt_process(char *out, size_t outlen, uint64_t pid);
int bc_prf_fmt_trace(char *out, size_t outlen, uint64_t trace);
/* Thread: "tid(hash)", both decimal. */
int bc_prf_fmt_thread(char *out, size_t outlen, uint64_t tid, uint32_t hash);
/* Event: "0x" + 4 hex digits. */
int bc_prf_fmt_event(char *out, size_t outlen, unsigned int event);
/* Rc: "0x" + 14 hex digits. */
int bc_prf_fmt_rc(char *out, size_t outlen, uint64_t rc);
/* ClientAP/RootAP fields: "a.b.c.d"; PID 10 digits or "0"; CommNo "0x" + 16 hex digits. */
int bc_prf_fmt_ip(char *out, size_t outlen, uint32_t ip);
int bc_prf_fmt_ap_pid(char *out, size_t outlen, uint32_t pid);
int bc_prf_fmt_commno(char *out, size_t outlen, uint64_t commno);

/* Date "yyyy/mm/dd", Time "hh:mm:ss", sub-second "mmm/uuu/nnn". */
struct bc_prf_time {
	char date[48];
	char time[40];
	char sub[40];
};

/* wall_ns (ns since 1970 UTC) in local time (TZ), or UTC. -EINVAL if out of range. */
int bc_prf_fmt_time(struct bc_prf_time *t, int64_t wall_ns, bool utc);

/*
 * INT, OPR: the name itself up to 32 characters, else 33 by method m.
 * Characters are UTF-8 sequences (a lone invalid byte counts as one).
 */
int bc_prf_fmt_name(char *out, size_t outlen, const char *name, enum bc_prf_trunc m);
/* ProcessName: the first 32 characters. */
int bc_prf_fmt_process_name(char *out, size_t outlen, const char *name);

/* OPT: "0x" + 2 hex digits per byte of the first BC_PRF_OPT_MAX bytes ("0x" for none). */
int bc_prf_fmt_opt(char *out, size_t outlen, const uint8_t *data, size_t len);
/* ASCII: the same bytes, printable ASCII as is, "." for the others. */
int bc_prf_fmt_ascii(char *out, size_t outlen, const uint8_t *data, size_t len);

/*
 * One CSV field per RFC 4180: in double quotes, quotes doubled, when it
 * holds a comma, a double quote, CR or LF; as is otherwise.
 */
int bc_prf_csv_field(char *out, size_t outlen, const char *s);

/* The dump's "Offset +0 ... 0123456789abcdef" header and its rows of OPT. -EIO. */
int bc_prf_write_hexdump(FILE *out, const uint8_t *data, size_t len);

/* ------------------------------------------------------- field values */

/*
 * The thread's hash: 32-bit FNV-1a over pid, tid (4 bytes each) and birth
 * (8 bytes), little-endian; birth is the ktime (ns) at which the sink first
 * learnt of the thread (its creation record, or its first record).
 */
uint32_t bc_prf_thread_hash(uint32_t pid, uint32_t tid, uint64_t birth_ktime);

/* Rc of a syscall's return value: its errno (1..4095) when it failed, else 0. */
uint64_t bc_prf_sys_rc(int64_t ret);

/* The 16-byte entry time of return records: seconds and microseconds, big-endian u64 each. */
void bc_prf_entry_time(uint8_t out[16], int64_t wall_ns);

/* Big-endian u64 at p. */
void bc_prf_put_be64(uint8_t *p, uint64_t v);

/* Dotted IPv4 to host order: 0 or -EINVAL. */
int bc_prf_parse_ip(const char *s, uint32_t *ip);

/* ------------------------------------------------ ClientAP: socket peers */

/*
 * The IPv4 peer in len raw bytes of a struct sockaddr (untrusted): AF_INET
 * of at least sizeof(struct sockaddr_in) bytes, or an IPv4-mapped AF_INET6
 * address (::ffff:a.b.c.d) of at least sizeof(struct sockaddr_in6). ip and
 * port in host order. false for anything else: other families, too short.
 */
bool bc_prf_sockaddr_ipv4(const uint8_t *sa, size_t len, uint32_t *ip, uint16_t *port);

/*
 * ClientAP of syscall records (docs/prf.md "ClientAP"): per process, the fds
 * bound to an IPv4 peer by connect, accept/accept4 and sendto with a
 * destination (their peer capture items), numbered 1, 2, 3... in the order
 * they were made; per thread, the syscall in progress, so that its exit
 * carries what its entry did.
 */
struct bc_prf_peers;

struct bc_prf_peers *bc_prf_peers_new(void);
void bc_prf_peers_free(struct bc_prf_peers *pp);

/*
 * Follows one record of h->size bytes, in the order of a thread's records:
 * syscalls bind, use and release fds, a fork copies the parent's bindings
 * to the child, a process exit drops its own. *ap is the record's ClientAP:
 * zero but for syscall records on an IPv4 peer. 0, or -ENOMEM.
 */
int bc_prf_peers_event(struct bc_prf_peers *pp, const struct bc_rec_head *h, struct bc_prf_ap *ap);

#endif /* BPFCOLLECT_PRF_H */
