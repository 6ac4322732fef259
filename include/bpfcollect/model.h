/* SPDX-License-Identifier: MIT */
/*
 * The event model: what every producer (the ring-buffer consumer, the `.er`
 * reader) hands to every sink (the `.er` writer, the report aggregator, and
 * the format converters). One decoder turns raw records into events; there
 * is one formatter per output format behind struct bc_sink.
 */
#ifndef BPFCOLLECT_MODEL_H
#define BPFCOLLECT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/capture.h"
#include "bpfcollect/record.h"

/* One traced function; its index in the table is the BPF cookie. */
struct bc_func {
	uint32_t id;
	char *name;	 /* symbol name as in the ELF file */
	char *object;	 /* path of the load object holding it */
	uint64_t addr;	 /* st_value: link-time virtual address */
	uint64_t size;	 /* st_size */
	uint64_t offset; /* file offset of the first instruction */
	/*
	 * Where its probes go, when not at offset: past an endbr64, which the
	 * kernel would single-step on every hit (bc_functab_drop_unprobeable).
	 */
	uint64_t probe_offset;
	/*
	 * exits_only: its returns are probed at its exits (file offsets of its
	 * ret instructions and tail jumps, bpfcollect/return_sites.h), never
	 * by a uretprobe, which C++ exceptions and Go's stack walks cannot pass.
	 */
	bool exits_only;
	uint64_t *exits;
	size_t n_exits;
	/*
	 * Go code (bpfcollect/go_binary.h): where runtime.g keeps the goroutine
	 * id in its binary, its frames paired per goroutine; 0 for other code.
	 */
	uint32_t go_goid_offset;
	/* --arg/--retval: what is captured; capture.n_entry + n_return == 0 when nothing */
	struct bc_capture_spec capture;
};

struct bc_functab {
	struct bc_func *v;
	size_t n;
	size_t cap;
};

void bc_functab_init(struct bc_functab *t);
void bc_functab_free(struct bc_functab *t);
/*
 * Keeps the functions judge keeps (1) and drops the others (0: warn is
 * called with the reason judge wrote into why), renumbering those kept.
 * judge sees each function once, in order, and may change it. Returns how
 * many were dropped, or judge's -errno (the functions not judged yet stay).
 */
int bc_functab_filter(struct bc_functab *t,
		      int (*judge)(void *ctx, struct bc_func *f, char *why, size_t len), void *ctx,
		      void (*warn)(const struct bc_func *f, const char *why));
/* Appends a copy of name/object; sets id to the new index. -errno. */
int bc_functab_add(struct bc_functab *t, const char *name, const char *object, uint64_t addr,
		   uint64_t size, uint64_t offset);
const struct bc_func *bc_functab_get(const struct bc_functab *t, uint32_t id);

/* The file offset f's uprobes are placed at. */
static inline uint64_t bc_func_probe_offset(const struct bc_func *f)
{
	return f->probe_offset ? f->probe_offset : f->offset;
}

static inline bool bc_func_captures(const struct bc_func *f)
{
	return f && (f->capture.n_entry || f->capture.n_return);
}

/*
 * Copies of a function's name and object for reports that outlive the table;
 * "<unknown id N>" and "" when func is NULL. -ENOMEM (both NULL then).
 */
int bc_func_label_dup(const struct bc_func *func, uint32_t func_id, char **name, char **object);

/* Minimum size of a record kind (its fixed struct), 0 for an unknown kind. */
size_t bc_rec_min_size(unsigned int kind);

/* ps(1)'s letter for a switch-out state: R (preempted), S, D, T, t, I, X, Z, ? */
char bc_task_state_char(uint32_t state);

void bc_offcpu_split(const struct bc_rec_offcpu *o, uint64_t *sleep_ns, uint64_t *wait_ns);
/* Whether the interval's blocked part was a wait in a futex (a user-level lock). */
bool bc_offcpu_is_lock(const struct bc_rec_offcpu *o);

/* A decoded, validated record plus what the decoder resolved for it. */
struct bc_event {
	const struct bc_rec_head *rec; /* points into the producer's buffer */
	const struct bc_func *func;    /* FUNC_ENTRY/RETURN; NULL if unknown */
	const char *sys_name;	       /* SYS_ENTER/EXIT; NULL if unknown */
};

/*
 * Validates one raw record of `len` bytes (size field, kind, per-kind size,
 * string lengths) and fills `ev`. Returns the record's size, or -EINVAL for
 * anything malformed: producers skip bad records, never trust them.
 */
int bc_decode(const void *data, size_t len, const struct bc_functab *funcs, struct bc_event *ev);

/*
 * The two records a BC_REC_SYSCALL stands for, as the entry and the exit
 * would have written them: the entry at enter_ktime with the sequence
 * number before the exit's, the exit as the record's head says.
 */
void bc_syscall_split(const struct bc_rec_syscall *call, struct bc_rec_sys_enter *enter,
		      struct bc_rec_sys_exit *exit);

/*
 * The path an I/O record carries (the file given to open), without its
 * NUL, in *len bytes; "" (len 0) when there is none. Within the record.
 */
const char *bc_io_path(const struct bc_rec_io *r, size_t *len);

/*
 * The argv an exec record carries: *len bytes of NUL-separated words (the
 * last may lack its NUL when it was cut); NULL when the record has none.
 */
const char *bc_exec_args(const struct bc_rec_exec *x, size_t *len);

/*
 * argv from NUL-separated words blob[len] (NULL or empty: [fallback]),
 * NULL-terminated, pointing into *buf_out. Free both. 0 or -ENOMEM.
 */
int bc_argv_split(const char *blob, size_t len, const char *fallback, char ***argv_out,
		  char **buf_out);
/* The words of argv, each with its NUL, into a new *blob of *len bytes. 0 or -ENOMEM. */
int bc_argv_join(char *const *argv, char **blob, size_t *len);

struct bc_usage; /* bpfcollect/overview.h */

/* The argv a PROC_NAME record carries, as bc_exec_args; NULL when it has none. */
const char *bc_proc_name_args(const struct bc_rec_proc_name *n, size_t *len);

/* A usage sample as the record the agent writes of it, and back (BC_REC_USAGE). */
void bc_usage_to_record(const struct bc_usage *u, uint32_t pid, struct bc_rec_usage *r);
void bc_usage_from_record(const struct bc_rec_usage *r, struct bc_usage *u);

/* An r-x (or other) mapping of a traced process, from /proc/PID/maps. */
struct bc_mapping {
	uint32_t pid;
	uint64_t ktime; /* when it was seen */
	uint64_t start;
	uint64_t end;
	uint64_t offset; /* file offset of start */
	uint32_t prot;	 /* PROT_READ|PROT_WRITE|PROT_EXEC */
	const char *path;
	bool unmap; /* [start, end) was unmapped; path and prot unused */
};

/*
 * Turns a BC_REC_MMAP record into a mapping, joining its path components
 * into path[pathlen]. -EINVAL for a malformed record.
 */
int bc_mapping_from_record(const struct bc_rec_mmap *rec, char *path, size_t pathlen,
			   struct bc_mapping *m);

/* The machine a recording ran on, as log.xml's <system> says it. */
#define BC_HOST_MAX_CPUS 1024
struct bc_host {
	char hostname[65];
	char arch[65];
	char release[65];
	long pagesz, npages;
	unsigned int ncpus;
	unsigned int cpu_mhz[BC_HOST_MAX_CPUS]; /* 0: not known */
};

struct bc_state; /* bpfcollect/state.h */

/* What is known when recording starts. */
struct bc_session {
	char *const *argv;	/* traced command, NULL-terminated */
	uint32_t root_pid;	/* the launched process */
	uint64_t start_ktime;	/* CLOCK_MONOTONIC ns at start */
	int64_t wall_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC at start */
	const char *options;	/* the record command line, for log.xml */
	const char *cwd;
	const char *hostname;	    /* where it was recorded; NULL: this host */
	const struct bc_host *host; /* the machine (NULL: not known) */
	int32_t ppid, pgrp, sid;    /* of root_pid when recording began; 0: not known */
	const char *libbpf;	    /* the recording agent's libbpf version */
	uint32_t host_ip; /* its first non-loopback IPv4 address, host order; 0: none known */
	/*
	 * For one experiment of a tree (a subexperiment, a kernel founder), the
	 * recording's own session, which log.xml keeps so a replay begins the
	 * whole tree as it was recorded; NULL: this one is it.
	 */
	const struct bc_session *whole;
	/*
	 * The kernel's symbols, for kernel stacks (-p): /proc/kallsyms as the
	 * agent names it, or (formatted) a recorded experiment's kallmodsyms.
	 * NULL: none (kernel frames stay unnamed).
	 */
	const char *kallsyms;
	bool kallsyms_formatted;
	/*
	 * What the stream has said of the processes so far, kept by the
	 * producer and updated before each record reaches the sinks
	 * (bpfcollect/state.h). NULL: a producer that keeps none.
	 */
	const struct bc_state *state;
	const struct bc_functab *funcs;
	uint32_t ringbuf_bytes;
	bool syscalls;
	bool no_follow;		    /* -F off: descendants are not traced */
	uint32_t profile_us;	    /* -p: clock-profile period (ptimer), 0 = no profile */
	bool attached;		    /* -P: root_pid (and extra_pids) ran before recording began */
	const uint32_t *extra_pids; /* -P beyond the first: each its own subexperiment */
	size_t n_extra_pids;
	bool kernel;		/* -k, -a: a kernel experiment */
	bool system_wide;	/* -a: every process; root_pid is 0 */
	bool offcpu;		/* off-CPU intervals recorded */
	bool offcpu_in_founder; /* a kernel subexperiment: its founder keeps the sched records */
	bool heap;		/* -H: allocator calls (heaptrace) */
	bool sync;		/* -s: waits (synctrace) */
	uint32_t sync_threshold_us;
	bool io; /* -i: I/O system calls (iotrace) */
};

/*
 * A ktime as wall time (ns since 1970) with the session's offset; computed
 * unsigned, so a corrupt ktime or offset read from a file wraps instead of
 * overflowing.
 */
static inline int64_t bc_wall_ns(uint64_t ktime, int64_t wall_offset_ns)
{
	return (int64_t)(ktime + (uint64_t)wall_offset_ns);
}

/* What is known when recording ends. */
struct bc_session_end {
	uint64_t end_ktime;
	int exit_status;	   /* wait(2) status of the root process, -1 unknown */
	uint64_t events;	   /* records delivered */
	uint64_t bad_records;	   /* records the decoder refused */
	uint64_t lost[BC_LOSS_NR]; /* reserve failures, summed over CPUs */
};

struct bc_sink;

struct bc_sink_ops {
	const char *name;
	int (*begin)(struct bc_sink *s, const struct bc_session *sess);
	int (*event)(struct bc_sink *s, const struct bc_event *ev);
	int (*mapping)(struct bc_sink *s, const struct bc_mapping *m);
	int (*end)(struct bc_sink *s, const struct bc_session_end *end);
	/* Pushes buffered output out, so a live reader sees it (the agent's drain timer). */
	int (*flush)(struct bc_sink *s);
	void (*destroy)(struct bc_sink *s);
	/*
	 * Takes a BC_REC_SYSCALL as it is (the experiment writer stores it, the
	 * tee and the trees pass it on); any other sink is given the entry and
	 * the exit it stands for, one after the other (bc_sink_event).
	 */
	bool whole_syscalls;
};

/* e's BC_REC_SYSCALL as its entry and its exit events, into s. */
int bc_sink_event_split(struct bc_sink *s, const struct bc_event *e);

struct bc_outfile;

/* Sinks embed this as their first member. Any op may be NULL. */
struct bc_sink {
	const struct bc_sink_ops *ops;
	/*
	 * The file a format's sink writes (bc_format_file_sink_new sets it;
	 * NULL otherwise). A sink that writes several records in one step (a
	 * reorder window let out, the end's open calls) ends each there
	 * (bc_outfile_record), so that a full disk cuts the file at a whole
	 * record.
	 */
	struct bc_outfile *file;
};

static inline int bc_sink_begin(struct bc_sink *s, const struct bc_session *x)
{
	return s->ops->begin ? s->ops->begin(s, x) : 0;
}
static inline int bc_sink_event(struct bc_sink *s, const struct bc_event *e)
{
	if (e->rec->kind == BC_REC_SYSCALL && !s->ops->whole_syscalls)
		return bc_sink_event_split(s, e);
	return s->ops->event ? s->ops->event(s, e) : 0;
}
static inline int bc_sink_mapping(struct bc_sink *s, const struct bc_mapping *m)
{
	return s->ops->mapping ? s->ops->mapping(s, m) : 0;
}
static inline int bc_sink_end(struct bc_sink *s, const struct bc_session_end *x)
{
	return s->ops->end ? s->ops->end(s, x) : 0;
}
static inline int bc_sink_flush(struct bc_sink *s)
{
	return s->ops->flush ? s->ops->flush(s) : 0;
}
static inline void bc_sink_destroy(struct bc_sink *s)
{
	if (s && s->ops->destroy)
		s->ops->destroy(s);
}

#endif /* BPFCOLLECT_MODEL_H */
