// SPDX-License-Identifier: MIT
/* Loading, configuring and attaching the recorder's BPF programs. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "collect.skel.h"

#include "bpfcollect/cli.h"
#include "bpfcollect/features.h"
#include "bpfcollect/libcprobes.h"
#include "bpfcollect/recorder.h"
#include "bpfcollect/syscall_filter.h"
#include "bpfcollect/tracefs.h"
#include "bpfcollect/uprobe_multi.h"

/* Every uprobe link the detacher should hold: kind 1 the return probes', else the rest. */
static int link_fds(const struct recorder *r, int kind, int **out, size_t *n)
{
	const struct bc_attachment *a = &r->att;
	size_t cap = a->n_link_fds[kind] + a->n_links[kind] +
		     (kind ? 0 : r->n_ldso_fds + r->n_ldso_links + r->warm.n_links);
	int *v = cap ? malloc(cap * sizeof(*v)) : NULL;

	*out = v;
	*n = 0;
	if (cap && !v)
		return -ENOMEM;
	for (size_t i = 0; i < a->n_link_fds[kind]; i++)
		v[(*n)++] = a->link_fds[kind][i];
	for (size_t i = 0; i < a->n_links[kind]; i++)
		if (a->links[kind][i])
			v[(*n)++] = bpf_link__fd(a->links[kind][i]);
	for (size_t i = 0; !kind && i < r->n_ldso_fds; i++)
		v[(*n)++] = r->ldso_fds[i];
	for (size_t i = 0; !kind && i < r->n_ldso_links; i++)
		if (r->ldso_links[i])
			v[(*n)++] = bpf_link__fd(r->ldso_links[i]);
	for (size_t i = 0; !kind && i < r->warm.n_links; i++)
		v[(*n)++] = r->warm.links[i];
	return 0;
}

/*
 * Gives the detacher its references (bpfcollect/detacher.h), so a killed
 * agent leaves nothing attached and hangs in no detach. Without one (it
 * cannot start) the recording goes on as before.
 */
static void hand_to_detacher(struct recorder *r)
{
	int *ret = NULL, *other = NULL;
	size_t n_ret = 0, n_other = 0;

	r->detacher.sock = -1;
	bc_uprobe_warm_wait(&r->warm); /* its links too */
	if (link_fds(r, 1, &ret, &n_ret) == 0 && link_fds(r, 0, &other, &n_other) == 0 &&
	    n_ret + n_other &&
	    bc_detacher_start(&r->detacher, &r->skel->bss->entries_stopped,
			      &r->skel->bss->detacher_tgid) == 0 &&
	    (bc_detacher_hand(&r->detacher, ret, n_ret, true) < 0 ||
	     bc_detacher_hand(&r->detacher, other, n_other, false) < 0))
		bc_detacher_release(&r->detacher);
	free(ret);
	free(other);
}

/*
 * Per-function perf uprobes (no uprobe_multi: 6.1) take a descriptor per
 * probe, two per function: 1,000 functions pass the usual soft limit of
 * 1,024 (seen on 6.1: "Too many open files"). The soft limit goes up to the
 * hard one, as systemd advises programs that need many descriptors; a
 * launched command was forked before this and keeps its own, and select()
 * in it is safe.
 */
static void raise_open_files(void)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
}

/*
 * Where the uprobes are armed (enum bc_arm_mode): in every process only for
 * -a and -k; in one process alone by an uprobe_multi link's pid filter when
 * there is one and no children to follow (the cheapest: the cookie names
 * the function); otherwise trace events kept to the traced tree. Without
 * tracefs the last falls back to every process, the BPF filter keeping
 * the records to the traced ones, and says so.
 */
static enum bc_arm_mode choose_arm(struct recorder *r, bool multi)
{
	bool everywhere = r->opts->system_wide || r->opts->kernel_exp;
	bool one = !r->opts->follow && r->n_roots == 1;

	r->tracefs_fd = -1;
	if (!everywhere) {
		r->tracefs_fd = bc_tracefs_open();
		int removed = r->tracefs_fd >= 0 ? bc_tracefs_sweep(r->tracefs_fd) : 0;

		if (removed > 0)
			bc_error(
				"note: removed the %d trace events of a bpfcollect that was killed",
				removed);
	}
	if (everywhere || (multi && one))
		return multi ? BC_ARM_MULTI : BC_ARM_PERF;
	if (r->tracefs_fd >= 0)
		return BC_ARM_TREE;
	if (r->funcs.n + r->heap_funcs.n + r->sync_funcs.n)
		bc_feature_note_fallback(BC_FEAT_TRACEFS);
	return multi ? BC_ARM_MULTI : BC_ARM_PERF;
}

int bc_recorder_setup_bpf(struct recorder *r, char *err, size_t errlen)
{
	enum bc_feature missing = bc_features_missing_required();
	bool multi = !r->opts->no_multi && bc_feature_has(BC_FEAT_UPROBE_MULTI);
	int rc;

	raise_open_files();
	if (missing != BC_FEAT_COUNT) {
		snprintf(err, errlen,
			 "this kernel has no %s, which every recording needs (%s); "
			 "bpfcollect version --features lists what it has",
			 bc_feature_name(missing), bc_feature_fallback(missing));
		return -EOPNOTSUPP;
	}
	r->skel = collect_bpf__open();
	if (!r->skel) {
		rc = -errno;
		snprintf(err, errlen, "cannot open the BPF programs: %s", strerror(-rc));
		return rc;
	}
	bpf_map__set_max_entries(r->skel->maps.events, r->opts->bufsize_mib << 20);
	r->skel->rodata->follow_children = r->opts->follow;
	r->skel->rodata->trace_all = r->opts->system_wide;
	r->skel->rodata->agent_tgid = (uint32_t)getpid();
	r->skel->rodata->sched_enabled = r->opts->offcpu;
	r->skel->rodata->ringbuf_wake_bytes = (uint64_t)(r->opts->bufsize_mib << 20) / 4;
	bool entry_caps = false, ret_caps = false;

	for (size_t i = 0; i < r->funcs.n; i++) {
		const struct bc_func *f = &r->funcs.v[i];

		/* a function returning at its exits has its return captures there, in entry_cap */
		entry_caps |= f->capture.n_entry > 0 || (f->exits_only && f->capture.n_return > 0);
		ret_caps |= f->capture.n_return > 0;
	}
	if ((entry_caps || ret_caps) && !bc_feature_has(BC_FEAT_SLEEPABLE)) {
		snprintf(err, errlen,
			 "--arg and --retval need sleepable uprobe programs, which this kernel "
			 "lacks (since 6.0); record without them");
		return -EOPNOTSUPP;
	}
	r->skel->rodata->have_copy_user_str = bc_feature_has(BC_FEAT_COPY_USER_STR);
	if ((entry_caps || ret_caps) && !r->skel->rodata->have_copy_user_str)
		bc_feature_note_fallback(BC_FEAT_COPY_USER_STR);
	if (!r->opts->no_multi && !multi && r->funcs.n + r->heap_funcs.n + r->sync_funcs.n)
		bc_feature_note_fallback(BC_FEAT_UPROBE_MULTI);
	struct bpf_program *uprogs[] = {
		r->skel->progs.func_entry,     r->skel->progs.func_return,
		r->skel->progs.func_entry_cap, r->skel->progs.func_return_cap,
		r->skel->progs.heap_entry,     r->skel->progs.heap_return,
		r->skel->progs.sync_entry,     r->skel->progs.sync_return};

	r->arm = choose_arm(r, multi);
	for (size_t i = 0; i < sizeof(uprogs) / sizeof(uprogs[0]); i++)
		if (r->arm == BC_ARM_MULTI)
			bpf_program__set_expected_attach_type(
				uprogs[i], (enum bpf_attach_type)BC_BPF_TRACE_UPROBE_MULTI);
	bc_recorder_maps_choose(r, multi);
	bc_recorder_hook_ldso_early(r);
	/* the hook limited to one process is an uprobe_multi link; the tree's a perf event */
	if (r->maps_mode == BC_MAPS_PROCESS)
		bpf_program__set_expected_attach_type(
			r->skel->progs.ldso_debug_state,
			(enum bpf_attach_type)BC_BPF_TRACE_UPROBE_MULTI);
	/* Each program only where the recording uses it: a kernel may refuse one it does not. */
	bpf_program__set_autoload(r->skel->progs.func_entry, r->funcs.n > 0);
	bpf_program__set_autoload(r->skel->progs.func_return, r->funcs.n > 0);
	bpf_program__set_autoload(r->skel->progs.func_entry_cap, entry_caps);
	bpf_program__set_autoload(r->skel->progs.func_return_cap, ret_caps);
	bpf_program__set_autoload(r->skel->progs.profile_sample, r->opts->profile_us > 0);
	bpf_program__set_autoload(r->skel->progs.heap_entry, r->heap_funcs.n > 0);
	bpf_program__set_autoload(r->skel->progs.heap_return, r->heap_funcs.n > 0);
	bpf_program__set_autoload(r->skel->progs.sync_entry, r->sync_funcs.n > 0);
	bpf_program__set_autoload(r->skel->progs.sync_return, r->sync_funcs.n > 0);
	r->skel->rodata->sync_threshold_ns = (uint64_t)r->opts->sync_threshold_us * 1000;
	/* Every context switch of the system runs these: only when asked for. */
	bpf_program__set_autoload(r->skel->progs.sched_switch, r->opts->offcpu);
	bpf_program__set_autoload(r->skel->progs.sched_wakeup, r->opts->offcpu);
	bpf_program__set_autoload(r->skel->progs.io_sys_enter, r->opts->io);
	bpf_program__set_autoload(r->skel->progs.io_sys_exit, r->opts->io);
	/*
	 * Mappings for map.xml: the dynamic linker's hook where the kernel can
	 * keep it to the one process traced (then no other process pays
	 * anything), else maps_exit on every syscall's return (bpf/maps.bpf.c).
	 */
	bpf_program__set_autoload(r->skel->progs.sys_enter, r->opts->syscalls);
	bpf_program__set_autoload(r->skel->progs.sys_exit, r->opts->syscalls);
	bpf_program__set_autoload(r->skel->progs.maps_exit, bc_recorder_maps_by_syscall(r));
	bpf_program__set_autoload(r->skel->progs.ldso_debug_state, !bc_recorder_maps_by_syscall(r));
	/* The tree's probes by their place (bpfcollect/probe_site.h): entry and return or exits. */
	size_t n_sites = 2 * (r->heap_funcs.n + r->sync_funcs.n);

	for (size_t i = 0; i < r->funcs.n; i++)
		n_sites += 1 + (r->funcs.v[i].exits_only ? r->funcs.v[i].n_exits : 1);

	r->skel->rodata->sites_by_offset = r->arm == BC_ARM_TREE;
	bpf_map__set_max_entries(r->skel->maps.probe_sites,
				 r->arm == BC_ARM_TREE && n_sites ? (uint32_t)n_sites : 1);
	/* One capture slot per function id (an array map cannot be empty). */
	bpf_map__set_max_entries(r->skel->maps.capture_specs,
				 r->funcs.n ? (uint32_t)r->funcs.n : 1);
	rc = collect_bpf__load(r->skel);
	/* the probes come next, while the warm-up's last registration keeps the way open */
	bc_uprobe_warm_release(&r->warm);
	if (rc < 0) {
		snprintf(err, errlen,
			 "cannot load the BPF programs: %s (kernel with BTF, task storage and ring "
			 "buffer needed; -v shows why)",
			 strerror(-rc));
		return rc;
	}
	if (r->opts->syscalls) {
		rc = bc_syscall_filter_set(bpf_map__fd(r->skel->maps.syscall_filter),
					   bpf_map__fd(r->skel->maps.syscall_captures),
					   r->opts->syscall_list, r->opts->string_size, err,
					   errlen);
		if (rc < 0)
			return rc;
	}
	for (uint32_t id = 0; id < r->funcs.n; id++) {
		if (!bc_func_captures(&r->funcs.v[id]))
			continue;
		if (bpf_map_update_elem(bpf_map__fd(r->skel->maps.capture_specs), &id,
					&r->funcs.v[id].capture, BPF_ANY) < 0) {
			rc = -errno;
			snprintf(err, errlen, "cannot set what to capture for %s: %s",
				 r->funcs.v[id].name, strerror(-rc));
			return rc;
		}
	}
	struct bpf_program *always[] = {r->skel->progs.proc_fork,    r->skel->progs.proc_exec,
					r->skel->progs.proc_exit,    r->skel->progs.sys_exit,
					r->skel->progs.maps_exit,    r->skel->progs.sys_enter,
					r->skel->progs.sched_switch, r->skel->progs.sched_wakeup,
					r->skel->progs.io_sys_enter, r->skel->progs.io_sys_exit};
	struct bpf_link **links[] = {&r->skel->links.proc_fork,	   &r->skel->links.proc_exec,
				     &r->skel->links.proc_exit,	   &r->skel->links.sys_exit,
				     &r->skel->links.maps_exit,	   &r->skel->links.sys_enter,
				     &r->skel->links.sched_switch, &r->skel->links.sched_wakeup,
				     &r->skel->links.io_sys_enter, &r->skel->links.io_sys_exit};

	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
		if (!bpf_program__autoload(always[i]))
			continue;
		*links[i] = bpf_program__attach(always[i]);
		if (!*links[i]) {
			rc = -errno;
			snprintf(err, errlen, "cannot attach %s: %s", bpf_program__name(always[i]),
				 strerror(-rc));
			return rc;
		}
	}
	/*
	 * -k, -a: from here every new process has its fork record; one that
	 * began before and is still running is noted now, while the probes
	 * that give it a subexperiment (uprobes, samples) are not in yet. Noted
	 * only after the programs load (that takes long), a short-lived
	 * process begun meanwhile could be sampled, end, and stay unnamed.
	 */
	bc_recorder_note_running(r);
	struct bc_arm_tree tree = {.tracefs_fd = r->tracefs_fd,
				   .sites_fd = bpf_map__fd(r->skel->maps.probe_sites),
				   .roots = r->roots,
				   .n_roots = r->n_roots,
				   .inherit = r->opts->follow};
	struct bc_attach_progs progs = {.entry = r->skel->progs.func_entry,
					.ret = r->skel->progs.func_return,
					.entry_cap = r->skel->progs.func_entry_cap,
					.ret_cap = r->skel->progs.func_return_cap,
					.mode = r->arm,
					.tree = &tree};

	/*
	 * One process and no children to follow: the kernel can keep the
	 * probes to it, and other processes running the same code pay nothing.
	 * Followed children have their own mm, which that filter would miss.
	 */
	if (!r->opts->system_wide && !r->opts->kernel_exp && !r->opts->follow && r->n_roots == 1)
		progs.pid = (int)r->roots[0];
	rc = bc_attach_functions(&progs, &r->funcs, &r->att, err, errlen);
	if (rc < 0)
		return rc;
	/* -H, -s: the libc functions, with their own programs, into the same attachment. */
	struct bc_attach_progs heap = {.entry = r->skel->progs.heap_entry,
				       .ret = r->skel->progs.heap_return,
				       .pid = progs.pid,
				       .entry_only = bc_libc_entry_only(BC_LIBC_HEAP),
				       .mode = r->arm,
				       .tree = &tree};
	struct bc_attach_progs sync = {.entry = r->skel->progs.sync_entry,
				       .ret = r->skel->progs.sync_return,
				       .pid = progs.pid,
				       .entry_only = bc_libc_entry_only(BC_LIBC_SYNC),
				       .mode = r->arm,
				       .tree = &tree};

	rc = bc_attach_more(&heap, &r->heap_funcs, &r->att, err, errlen);
	if (rc == 0)
		rc = bc_attach_more(&sync, &r->sync_funcs, &r->att, err, errlen);
	if (rc < 0)
		return rc;
	rc = bc_recorder_hook_ldso(r);
	if (rc < 0)
		return rc;
	hand_to_detacher(r);
	r->ring = ring_buffer__new(bpf_map__fd(r->skel->maps.events), bc_recorder_on_ring, r, NULL);
	if (!r->ring) {
		rc = -errno;
		snprintf(err, errlen, "cannot map the ring buffer: %s", strerror(-rc));
		return rc;
	}
	return 0;
}

int bc_recorder_trace_pids(struct recorder *r, char *err, size_t errlen)
{
	int fd = bpf_map__fd(r->skel->maps.traced_pids);
	uint32_t one = 1;

	for (size_t i = 0; i < r->n_roots; i++) {
		if (bpf_map_update_elem(fd, &r->roots[i], &one, BPF_ANY) < 0) {
			int rc = -errno;

			snprintf(err, errlen, "cannot register process %u for tracing: %s",
				 r->roots[i], strerror(-rc));
			return rc;
		}
	}
	/* Threads that found themselves untraced before now must look again. */
	__atomic_add_fetch(&r->skel->bss->traced_generation, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/*
 * -p: a cpu-clock event on every CPU, sampling every period of CPU time
 * (a fixed period, not a frequency: each sample stands for exactly ptimer
 * of CPU). Per CPU rather than per thread, so threads and processes that
 * appear later are sampled without a new event; the BPF filter keeps only
 * traced threads.
 */
int bc_recorder_start_profile(struct recorder *r, char *err, size_t errlen)
{
	int ncpu = libbpf_num_possible_cpus();
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = (uint64_t)r->opts->profile_us * 1000,
	};
	int rc;

	if (!r->opts->profile_us)
		return 0;
	if (ncpu <= 0) {
		snprintf(err, errlen, "cannot count the CPUs to profile: %s", strerror(-ncpu));
		return ncpu;
	}
	r->profile_links = calloc((size_t)ncpu, sizeof(*r->profile_links));
	if (!r->profile_links)
		return -ENOMEM;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpu, -1,
				      PERF_FLAG_FD_CLOEXEC);
		struct bpf_link *link;

		if (fd < 0 && errno == ENODEV) /* a possible CPU that is offline */
			continue;
		if (fd < 0) {
			rc = -errno;
			snprintf(err, errlen,
				 "cannot open the cpu-clock event for -p on CPU %d: %s%s", cpu,
				 strerror(-rc),
				 rc == -EACCES ? " (kernel.perf_event_paranoid? run as root)" : "");
			return rc;
		}
		link = bpf_program__attach_perf_event(r->skel->progs.profile_sample, fd);
		if (!link) {
			rc = -errno;
			close(fd);
			snprintf(err, errlen, "cannot attach the profiling program on CPU %d: %s",
				 cpu, strerror(-rc));
			return rc;
		}
		r->profile_links[r->n_profile_links++] = link;
	}
	return 0;
}

void bc_recorder_stop_entries(struct recorder *r)
{
	if (r->skel && r->skel->bss)
		__atomic_store_n(&r->skel->bss->entries_stopped, 1, __ATOMIC_SEQ_CST);
}

void bc_recorder_stop_profile(struct recorder *r)
{
	for (size_t i = 0; i < r->n_profile_links; i++)
		bpf_link__destroy(r->profile_links[i]);
	free(r->profile_links);
	r->profile_links = NULL;
	r->n_profile_links = 0;
}
