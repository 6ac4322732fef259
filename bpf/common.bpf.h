/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * State shared by every bpfcollect BPF program. Each .bpf.c includes this;
 * the maps are __weak so `bpftool gen object` merges them into one object
 * and one skeleton, while each concern keeps its own source file.
 */
#ifndef BPFCOLLECT_COMMON_BPF_H
#define BPFCOLLECT_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "bpfcollect/probe_site.h"
#include "bpfcollect/record.h"

#define BC_DEPTH_MASK (BC_MAX_DEPTH - 1)

/*
 * Open traced-function frames: a thread's (task_state.fr) or a goroutine's
 * (bpf/goroutine.bpf.h). A goroutine's records carry their own tid
 * (BC_GOROUTINE_TID_BASE + goid) and sequence numbers; tid 0 is a thread's,
 * whose records carry the kernel's tid and the thread's sequence.
 */
struct frames {
	__u64 entry_ktime[BC_MAX_DEPTH];
	__u64 entry_sp[BC_MAX_DEPTH];
	__u32 entry_func[BC_MAX_DEPTH]; /* the function id (cookie) of each open frame */
	__u32 depth;			/* frames currently open */
	__u32 tid;			/* a goroutine's: BC_GOROUTINE_TID_BASE + goid */
	__u64 seq;			/* a goroutine's records' sequence */
	__u64 goid;
};

/* The key of a goroutine's frames: its process and its runtime.g. */
struct go_key {
	__u32 tgid;
	__u32 pad;
	__u64 g;
};

/* Per-thread state; lives in task storage, so it dies with the thread. */
struct task_state {
	/* first: the sequence number and the system call in progress, read by the agent */
	struct bc_task_sys sys;
	__u32 traced;	    /* 1: this thread's process is in traced_pids */
	__u32 untraced_gen; /* traced_generation + 1 when it was found untraced */
	struct frames fr;   /* its traced-function frames */
	/* off CPU since off_ktime (0: on CPU, or never seen leaving it); sched.bpf.c */
	__u64 off_ktime;
	__u64 wake_ktime;
	__u64 waker;	/* pid_tgid of the task that woke it */
	__u64 sum_exec; /* its CPU time at switch-out */
	__u32 off_state;
	__s32 off_syscall;
	__u32 off_preempt;
	__u32 off_n_user;
	__u64 off_ips[BC_OFFCPU_MAX_FRAMES];
	/* heap.bpf.c: the outermost allocator call in progress (heap_depth > 0) */
	__u32 heap_depth;
	__u32 heap_fn;
	__u64 heap_args[3];
	__u64 heap_start;
	__u64 heap_sp; /* its stack pointer at entry */
	__u64 heap_pc; /* and the function's address */
	/* sync.bpf.c: the outermost wait in progress */
	__u32 sync_depth;
	__u32 sync_fn;
	__u64 sync_object;
	__u64 sync_start;
	__u64 sync_sp;
	__u64 sync_pc;
	/* io.bpf.c: the I/O system call in progress (io_start != 0) */
	__u64 io_start;
	__u32 io_nr;
	__u32 io_pad;
	/* probe_site's key and answer (and frame_over's slot): off the stack */
	struct bc_site_key site_key;
	struct bc_site site;
	/* a Go probe's: the goroutine's key, and what was read of its g */
	struct go_key go_key;
	__u64 go_read[2];
};

/* The agent sizes it (power of two, multiple of the page size) before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps") __weak;

/*
 * Thread-group ids being traced. The agent seeds it; fork children join in
 * BPF. Not preallocated: 65536 elements made up front cost 1.6 ms at start.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u32);
} traced_pids SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} task_states SEC(".maps") __weak;

/* Ring-buffer reserve failures, per CPU, per enum bc_loss_class. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BC_LOSS_NR);
	__type(key, __u32);
	__type(value, __u64);
} lost_events SEC(".maps") __weak;

/*
 * -a: every process is traced but the agent's own (and the idle tasks,
 * tgid 0, which are no process); traced_pids is not used then.
 */
const volatile bool trace_all __weak = false;
const volatile __u32 agent_tgid __weak = 0;
/* The agent's detacher (user/agent/detacher.c), as little traced as the agent. */
volatile __u32 detacher_tgid __weak = 0;

static __always_inline bool pid_is_traced(__u32 tgid)
{
	if (trace_all)
		return tgid != 0 && tgid != agent_tgid && tgid != detacher_tgid;
	return bpf_map_lookup_elem(&traced_pids, &tgid) != NULL;
}

/* The current thread's state, created if needed; only for threads of traced processes. */
static __always_inline struct task_state *current_task_state(void)
{
	struct task_state *ts = bpf_task_storage_get(&task_states, bpf_get_current_task_btf(), 0,
						     BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (ts)
		ts->traced = 1;
	return ts;
}

/*
 * Bumped by the agent each time it puts processes into traced_pids: "not
 * traced" answers cached in task storage before then are stale.
 */
volatile __u32 traced_generation __weak = 0;

/*
 * Set by the agent before it detaches the function probes: an entry from
 * then on could never get its return recorded, and a return only closes
 * the frame it belongs to (see do_return).
 */
volatile __u32 entries_stopped __weak = 0;

/*
 * The state of the current thread if its process is traced, else NULL.
 * Hot path: a traced thread finds its flag in its task storage, one pointer
 * chase. A thread without storage pays the hash lookup: once if it is
 * traced (its storage is created then). An untraced thread pays it on every
 * hit, unless remember_untraced: then the answer is kept in its storage
 * (valid for this traced_generation), so an unrelated process running a
 * probed function pays one pointer chase per hit too. Only the uprobes ask
 * for that: they fire in the processes running probed code, while syscall
 * and scheduler hooks fire in every thread of the system, which would all
 * grow storage.
 */
static __always_inline struct task_state *traced_task_state_ex(bool remember_untraced)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct task_state *ts = bpf_task_storage_get(&task_states, task, 0, 0);
	__u32 gen = traced_generation;

	if (ts && ts->traced)
		return ts;
	if (ts && ts->untraced_gen == gen + 1)
		return NULL;
	if (!pid_is_traced(bpf_get_current_pid_tgid() >> 32)) {
		if (!remember_untraced || trace_all)
			return NULL;
		if (!ts)
			ts = bpf_task_storage_get(&task_states, task, 0,
						  BPF_LOCAL_STORAGE_GET_F_CREATE);
		/* gen + 1: a fresh storage (all zero) never reads as a cached answer */
		if (ts)
			ts->untraced_gen = gen + 1;
		return NULL;
	}
	if (!ts)
		ts = bpf_task_storage_get(&task_states, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (ts)
		ts->traced = 1;
	return ts;
}

static __always_inline struct task_state *traced_task_state(void)
{
	return traced_task_state_ex(false);
}

static __always_inline void count_lost(__u32 loss_class)
{
	__u64 *n = bpf_map_lookup_elem(&lost_events, &loss_class);

	if (n)
		*n += 1;
}

/*
 * Fills a record head. The sequence number is consumed even when the record
 * is then lost, so a loss shows as a gap in the thread's sequence.
 */
static __always_inline void fill_head_of(struct bc_rec_head *h, __u32 size, __u16 kind,
					 struct task_state *ts, struct frames *fr, __u32 depth,
					 __u64 now)
{
	__u64 id = bpf_get_current_pid_tgid();

	h->size = size;
	h->kind = kind;
	h->depth = depth;
	h->pid = id >> 32;
	if (fr && fr->tid) {
		h->tid = fr->tid;
		h->seq = ++fr->seq;
	} else {
		h->tid = (__u32)id;
		h->seq = ts ? ++ts->sys.seq : 0;
	}
	h->ktime = now;
}

static __always_inline void fill_head(struct bc_rec_head *h, __u32 size, __u16 kind,
				      struct task_state *ts, __u32 depth, __u64 now)
{
	fill_head_of(h, size, kind, ts, NULL, depth, now);
}

/*
 * A system call whose entry wrote nothing (bpf/syscalls.bpf.c): its entry
 * record, written now, when the thread writes another record before the
 * call returns (the fork a clone makes, the exit of a thread killed inside
 * read). So a thread's records keep their order in time and in sequence
 * numbers, the call's entry first.
 */
static __noinline void flush_deferred_call(struct task_state *ts)
{
	struct bc_rec_sys_enter *rec;

	ts->sys.deferred = 0;
	rec = bpf_ringbuf_reserve(&events, sizeof(*rec), 0);
	if (!rec) {
		++ts->sys.seq;
		count_lost(BC_LOSS_SYSCALL);
		return;
	}
	fill_head(&rec->h, sizeof(*rec), BC_REC_SYS_ENTER, ts, ts->sys.depth, ts->sys.enter_ktime);
	rec->nr = ts->sys.nr;
	rec->cpu = ts->sys.cpu;
	for (int i = 0; i < 6; i++)
		rec->args[i] = ts->sys.args[i];
	bpf_ringbuf_submit(rec, BPF_RB_NO_WAKEUP);
}

/*
 * The head of a record built in scratch memory, output after this: a
 * waiting call's entry first. fr: the frames whose record it is when they
 * may be a goroutine's, else NULL (the thread's).
 */
static __always_inline void stream_head(struct bc_rec_head *h, __u32 size, __u16 kind,
					struct task_state *ts, struct frames *fr, __u32 depth,
					__u64 now)
{
	if (ts && ts->sys.deferred)
		flush_deferred_call(ts);
	fill_head_of(h, size, kind, ts, fr, depth, now);
}

static __always_inline void record_head(struct bc_rec_head *h, __u32 size, __u16 kind,
					struct task_state *ts, __u32 depth, __u64 now)
{
	stream_head(h, size, kind, ts, NULL, depth, now);
}

/* Reserves a fixed-size record in the ring and fills its head (fr: as stream_head). */
static __always_inline void *stream_reserve(__u32 size, __u16 kind, __u32 loss_class,
					    struct task_state *ts, struct frames *fr, __u32 depth,
					    __u64 now)
{
	struct bc_rec_head *h;

	if (ts && ts->sys.deferred)
		flush_deferred_call(ts); /* before the reserve: the ring keeps the order */
	h = bpf_ringbuf_reserve(&events, size, 0);
	if (!h) {
		if (fr && fr->tid)
			++fr->seq;
		else if (ts)
			++ts->sys.seq;
		count_lost(loss_class);
		return NULL;
	}
	fill_head_of(h, size, kind, ts, fr, depth, now);
	return h;
}

static __always_inline void *record_reserve(__u32 size, __u16 kind, __u32 loss_class,
					    struct task_state *ts, __u32 depth, __u64 now)
{
	return stream_reserve(size, kind, loss_class, ts, NULL, depth, now);
}

/*
 * Probes armed in the traced tree share one cookie per trace event
 * (bpfcollect/probe_site.h): the probe is told by its file offset. The
 * agent sizes the map before load.
 */
const volatile bool sites_by_offset __weak = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct bc_site_key);
	__type(value, struct bc_site);
} probe_sites SEC(".maps") __weak;

/*
 * The file offset of the probe that fired. A trace event's handler leaves
 * what it dispatches (the probe, trace_uprobe, which holds the offset) in
 * current->utask->vaddr while the program runs: three reads, no lock, and
 * right for return probes too. (The hit address through its mapping,
 * bpf_find_vma, takes the mmap lock by trylock and fails while another
 * thread of the process maps memory: an attach test lost 9% of its calls.)
 */
static __always_inline __s64 probe_offset(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct uprobe_dispatch_data *udd = (void *)BPF_CORE_READ(task, utask, vaddr);

	return udd ? (__s64)BPF_CORE_READ(udd, tu, offset) : -1;
}

/*
 * What the probe that fired is, into ts->site: its cookie says, or in the
 * tree mode its place. False when unknown. The key and the answer live in
 * the thread's storage: a uprobe program's frame must stay under 64 bytes
 * (see capture_one_task).
 */
static __always_inline bool probe_site(struct pt_regs *ctx, struct task_state *ts)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	const struct bc_site *site;
	__s64 offset;

	if (!sites_by_offset) {
		ts->site.id = (__u32)cookie;
		ts->site.kind = (__u32)(cookie >> BC_COOKIE_KIND_SHIFT);
		return true;
	}
	offset = probe_offset();
	if (offset < 0)
		return false;
	ts->site_key.event = (__u32)cookie;
	ts->site_key.pad = 0;
	ts->site_key.offset = (__u64)offset;
	site = bpf_map_lookup_elem(&probe_sites, &ts->site_key);
	if (!site)
		return false;
	ts->site = *site;
	return true;
}

/* The id alone, -1 when unknown: for probes that are entries only (heap, sync). */
static __always_inline __s64 probe_id(struct pt_regs *ctx, struct task_state *ts)
{
	return probe_site(ctx, ts) ? ts->site.id : -1;
}

/* A quarter of the ring's size; the agent sets it before load. */
const volatile __u64 ringbuf_wake_bytes __weak = (8 << 20) / 4;

static __always_inline __u64 wake_flag(void)
{
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

	return avail > ringbuf_wake_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/*
 * Asking the ring how full it is costs a helper call, a tenth of what a
 * function event costs the traced thread; a thread asks once every
 * BC_WAKE_EVERY of its records. Between two asks it adds at most that many
 * records past the fill level, a few KiB against a quarter of the ring.
 */
#define BC_WAKE_EVERY 64

static __always_inline void record_submit(void *rec)
{
	const struct bc_rec_head *h = rec;

	bpf_ringbuf_submit(rec, h->seq % BC_WAKE_EVERY ? BPF_RB_NO_WAKEUP : wake_flag());
}

#endif /* BPFCOLLECT_COMMON_BPF_H */
