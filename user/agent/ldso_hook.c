// SPDX-License-Identifier: MIT
/*
 * Library mappings of traced processes for map.xml (bpf/maps.bpf.c): which
 * source a recording uses, the dynamic linker hooks, and the snapshots
 * they send.
 *
 * Following mmap and munmap takes a program on every syscall's return,
 * and attaching one puts every syscall of every process on the machine on
 * the kernel's slow path (~85 ns each here). The dynamic linker instead
 * tells debuggers when its library list changed: it calls _dl_debug_state()
 * once the program's libraries are loaded and after each dlopen and
 * dlclose. A uprobe there costs only the processes that load libraries,
 * and only then; but a uprobe writes its breakpoint into the processes
 * mapping the file, and programs running translated code (valgrind,
 * emulators) read it as their own instruction and die of SIGTRAP (seen: a
 * valgrind run beside a recording that hooked ld.so for everyone). So the
 * hook is kept to the traced processes, never wider:
 *
 * - BC_MAPS_TREE: a uprobe trace event (tracefs.c), opened as a perf event
 *   on each root with inherit: the kernel keeps the breakpoint in the root
 *   and in every descendant forked later, and nowhere else. The program
 *   rides on a second event of the root, not inherited: a child's copy of
 *   an event that carries a program takes the program off the trace event
 *   when the child exits, and after two children the root's later dlopens
 *   went unseen.
 * - BC_MAPS_PROCESS: without tracefs, one process and no children to
 *   follow: an uprobe_multi link limited to that process.
 * - BC_MAPS_SYSCALL: -a and -k (every process), or neither hook possible.
 *
 * What a hook does not see: executable mappings made by calling mmap
 * directly, not through the dynamic linker.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "collect.skel.h"

#include "bpfcollect/cli.h"
#include "bpfcollect/elf_symbols.h"
#include "bpfcollect/exec_image.h"
#include "bpfcollect/features.h"
#include "bpfcollect/recorder.h"
#include "bpfcollect/tracefs.h"
#include "bpfcollect/uprobe_multi.h"

/* The dynamic linker of most programs here, for a program the traced one execs. */
#define SYSTEM_LDSO "/lib64/ld-linux-x86-64.so.2"

void bc_recorder_maps_choose(struct recorder *r, bool multi)
{
	bool one = !r->opts->follow && r->n_roots == 1;

	r->maps_mode = BC_MAPS_SYSCALL;
	if (r->opts->system_wide || r->opts->kernel_exp || r->n_roots > BC_LDSO_ROOTS_MAX)
		return;
	/* the hook walks the process's mappings with an iterator older kernels lack */
	if (!bc_feature_has(BC_FEAT_ITER_TASK_VMA)) {
		bc_feature_note_fallback(BC_FEAT_ITER_TASK_VMA);
		return;
	}
	/* opened (and swept) by the recording when not -a or -k */
	if (r->tracefs_fd >= 0) {
		r->maps_mode = BC_MAPS_TREE;
	} else if (multi && one) {
		r->maps_mode = BC_MAPS_PROCESS;
	}
}

bool bc_recorder_maps_by_syscall(const struct recorder *r)
{
	return r->maps_mode == BC_MAPS_SYSCALL;
}

struct hooked {
	dev_t dev[BC_LDSO_MAX];
	ino_t ino[BC_LDSO_MAX];
	size_t n;
};

/* The file offset of _dl_debug_state in the dynamic linker at path; 0 when not found. */
static uint64_t debug_state_offset(const char *path)
{
	struct bc_elf_object *obj = NULL;
	uint64_t off = 0;

	if (bc_elf_object_load(path, &obj, NULL, 0) < 0)
		return 0;
	for (size_t i = 0; i < obj->nsyms && !off; i++)
		if (!strcmp(obj->syms[i].name, "_dl_debug_state"))
			off = obj->syms[i].offset;
	bc_elf_object_free(obj);
	return off;
}

/* A perf event of trace event id on pid: inherited by its children, or carrying the program. */
static int open_on(struct recorder *r, int id, uint32_t pid, bool inherit)
{
	struct perf_event_attr attr = {.size = sizeof(attr),
				       .type = PERF_TYPE_TRACEPOINT,
				       .config = (uint64_t)id,
				       .sample_period = 1,
				       .inherit = inherit};
	struct bpf_link *link;
	int pfd =
		(int)syscall(__NR_perf_event_open, &attr, (pid_t)pid, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (pfd < 0)
		return -errno;
	if (inherit) {
		/* the breakpoint's keeper: counts, no program */
		if (ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
			int rc = -errno;

			close(pfd);
			return rc;
		}
		r->ldso_fds[r->n_ldso_fds++] = pfd;
		return 0;
	}
	link = bpf_program__attach_perf_event(r->skel->progs.ldso_debug_state, pfd);
	if (!link) {
		int rc = -errno;

		close(pfd);
		return rc;
	}
	r->ldso_links[r->n_ldso_links++] = link;
	return 0;
}

/*
 * Hooks the dynamic linker at path once per file (uprobes live on the
 * inode). BC_MAPS_TREE: the trace event and its inherited keepers on each
 * root (the program's events come after the programs load);
 * BC_MAPS_PROCESS: an uprobe_multi link limited to the traced process (a
 * perf uprobe would take the kernel's trace-event lock, which a perf uprobe
 * being removed anywhere holds through an SRCU grace period).
 */
static void hook_one(struct recorder *r, struct hooked *h, const char *path)
{
	uint64_t off, cookie = 0;
	int fd = -ENOENT;
	struct stat st;
	char event[32];

	if (stat(path, &st) < 0)
		return;
	for (size_t i = 0; i < h->n; i++)
		if (h->dev[i] == st.st_dev && h->ino[i] == st.st_ino)
			return;
	if (h->n == BC_LDSO_MAX)
		return;
	off = debug_state_offset(path);
	if (off && r->maps_mode == BC_MAPS_TREE) {
		snprintf(event, sizeof(event), "ldso_%zu", r->n_ldso_events);
		fd = bc_tracefs_uprobe_add(r->tracefs_fd, event, path, off);
		if (fd > 0) {
			r->ldso_ids[r->n_ldso_events++] = fd;
			for (size_t i = 0; i < r->n_roots && fd > 0; i++)
				fd = open_on(r, r->ldso_ids[r->n_ldso_events - 1], r->roots[i],
					     true);
		}
	} else if (off) {
		fd = bc_uprobe_multi_attach(bpf_program__fd(r->skel->progs.ldso_debug_state), path,
					    &off, &cookie, 1, false, (int)r->roots[0]);
		if (fd >= 0)
			r->ldso_fds[r->n_ldso_fds++] = fd;
	}
	if (fd < 0) {
		bc_error("warning: cannot hook the dynamic linker %s (%s): libraries the program "
			 "loads after start are not in the experiment's maps",
			 path, off ? strerror(-fd) : "no _dl_debug_state");
		return;
	}
	h->dev[h->n] = st.st_dev;
	h->ino[h->n++] = st.st_ino;
}

/* The dynamic linkers the traced processes may use: their programs', the system's. */
static void hook_all(struct recorder *r)
{
	char interp[PATH_MAX], exe[64];
	struct hooked h = {0};

	if (r->exe && bc_exec_interp(r->exe, interp, sizeof(interp)) == 0)
		hook_one(r, &h, interp);
	for (size_t i = 0; r->attached && i < r->n_roots; i++) {
		snprintf(exe, sizeof(exe), "/proc/%u/exe", r->roots[i]);
		if (bc_exec_interp(exe, interp, sizeof(interp)) == 0)
			hook_one(r, &h, interp);
	}
	/* the processes may exec other programs: the system's dynamic linker too */
	hook_one(r, &h, SYSTEM_LDSO);
}

static void *hook_all_thread(void *arg)
{
	hook_all(arg);
	return NULL;
}

/*
 * BC_MAPS_TREE: the trace events need no program, and making one waits for
 * an RCU grace period (~15 ms): a thread makes them while the programs load.
 */
void bc_recorder_hook_ldso_early(struct recorder *r)
{
	if (r->maps_mode == BC_MAPS_TREE)
		r->ldso_thread_started =
			pthread_create(&r->ldso_thread, NULL, hook_all_thread, r) == 0;
}

int bc_recorder_hook_ldso(struct recorder *r)
{
	int rc = 0;

	if (r->maps_mode == BC_MAPS_PROCESS) {
		hook_all(r);
		return 0;
	}
	if (r->maps_mode != BC_MAPS_TREE)
		return 0;
	if (r->ldso_thread_started)
		pthread_join(r->ldso_thread, NULL);
	else
		hook_all(r); /* no thread: made here */
	r->ldso_thread_started = false;
	/* the program, on an event of each root that children do not copy (see above) */
	for (size_t k = 0; k < r->n_ldso_events && !rc; k++)
		for (size_t i = 0; i < r->n_roots && !rc; i++)
			rc = open_on(r, r->ldso_ids[k], r->roots[i], false);
	if (rc < 0)
		bc_error("warning: cannot attach the dynamic linker hook (%s): libraries loaded "
			 "after start are not in the experiment's maps",
			 strerror(-rc));
	return 0;
}

void bc_recorder_unhook_ldso(struct recorder *r)
{
	char event[32];

	if (r->ldso_thread_started)
		pthread_join(r->ldso_thread, NULL);
	r->ldso_thread_started = false;
	for (size_t i = 0; i < r->n_ldso_links; i++)
		bpf_link__destroy(r->ldso_links[i]);
	r->n_ldso_links = 0;
	for (size_t i = 0; i < r->n_ldso_fds; i++)
		close(r->ldso_fds[i]);
	r->n_ldso_fds = 0;
	/*
	 * Left to the detacher, the events are still in use, and removing one
	 * would wait behind its detach for the kernel's trace-event lock: the
	 * next recording's sweep removes them.
	 */
	for (size_t i = 0; i < r->n_ldso_events && !r->detach_background; i++) {
		snprintf(event, sizeof(event), "ldso_%zu", i);
		bc_tracefs_uprobe_remove(r->tracefs_fd, event);
	}
	r->n_ldso_events = 0;
	if (r->tracefs_fd >= 0)
		close(r->tracefs_fd);
	r->tracefs_fd = -1;
}

/* The snapshot of pid under way, started when create; NULL if none (or no room). */
static struct bc_snapshot *snapshot_of(struct recorder *r, uint32_t pid, bool create)
{
	struct bc_snapshot *free_slot = NULL;

	for (size_t i = 0; i < BC_SNAPSHOTS_MAX; i++) {
		if (r->snaps[i].pid == pid)
			return &r->snaps[i];
		if (!r->snaps[i].pid && !free_slot)
			free_slot = &r->snaps[i];
	}
	if (!create || !free_slot)
		return NULL;
	free_slot->pid = pid;
	free_slot->mark = ++r->snap_mark ? r->snap_mark : ++r->snap_mark; /* never 0 */
	free_slot->received = 0;
	return free_slot;
}

static int apply(struct recorder *r, const struct bc_mapping *m)
{
	int rc = bc_state_mapping(&r->state, m);

	if (!rc)
		rc = bc_sink_mapping(r->sink, m);
	if (rc < 0)
		r->sink_error = rc;
	return rc < 0 ? rc : 0;
}

/* One mapping of a snapshot: new ones are made, known ones (same start) marked. */
static int snapshot_entry(struct recorder *r, const struct bc_rec_mmap *rec)
{
	char path[BC_MMAP_PATH_MAX + BC_MMAP_DEPTH + 2];
	struct bc_snapshot *snap = snapshot_of(r, rec->h.pid, true);
	struct bc_mapset_entry *e = bc_mapset_find(&r->state.maps, rec->h.pid, rec->start);
	struct bc_mapping m;
	int rc;

	if (snap)
		snap->received++;
	if (!e) {
		if (bc_mapping_from_record(rec, path, sizeof(path), &m) < 0)
			return 0;
		rc = apply(r, &m);
		if (rc < 0)
			return rc;
		e = bc_mapset_find(&r->state.maps, rec->h.pid, rec->start);
	}
	if (e && snap)
		e->mark = snap->mark;
	return 0;
}

/* A complete snapshot's end: what the process no longer maps was unmapped (dlclose). */
static int snapshot_end(struct recorder *r, const struct bc_rec_mmap *rec)
{
	struct bc_snapshot *snap = snapshot_of(r, rec->h.pid, false);
	const struct bc_mapset *maps = &r->state.maps;
	struct bc_mapping *gone = NULL;
	size_t n = 0;
	int rc = 0;

	if (!snap)
		return 0;
	/* a snapshot the ring lost part of says nothing of what is gone */
	if (snap->received == rec->start && !rec->end) {
		for (size_t i = 0; i < maps->n; i++)
			n += maps->v[i].pid == rec->h.pid && maps->v[i].mark != snap->mark;
		gone = n ? calloc(n, sizeof(*gone)) : NULL;
		if (n && !gone)
			rc = -ENOMEM;
		n = 0;
		for (size_t i = 0; gone && i < maps->n; i++)
			if (maps->v[i].pid == rec->h.pid && maps->v[i].mark != snap->mark)
				gone[n++] = (struct bc_mapping){.pid = rec->h.pid,
								.ktime = rec->h.ktime,
								.start = maps->v[i].start,
								.end = maps->v[i].end,
								.unmap = true};
	}
	for (size_t i = 0; i < n && !rc; i++)
		rc = apply(r, &gone[i]);
	free(gone);
	snap->pid = 0;
	if (rc == -ENOMEM)
		r->sink_error = rc;
	return rc;
}

int bc_recorder_snapshot(struct recorder *r, const struct bc_rec_mmap *rec)
{
	if (rec->origin == BC_MMAP_SNAPSHOT_END)
		return snapshot_end(r, rec);
	return snapshot_entry(r, rec);
}
