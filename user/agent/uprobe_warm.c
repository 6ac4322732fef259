// SPDX-License-Identifier: MIT
/*
 * Start-up: the first uprobe registered after a quiet spell waits for an
 * RCU grace period. Registration takes a per-CPU reader/writer semaphore
 * of the kernel's for writing, and the first writer must move its readers
 * to the slow path and wait until they all see it (8-15 ms here); writers
 * that follow within about a grace period of the last one do not wait.
 * The BPF programs take ~30 ms to load before any probe can be attached.
 *
 * So while they load, a thread registers a uprobe (an uprobe_multi link of
 * an empty program, limited to our own process) on a function of ours that
 * never runs, every few milliseconds: the first pays the wait in the
 * background, and each one after keeps the switch made, so the real
 * registrations find it made whenever the load ends (11 runs: 36.9 ms
 * median from the command line to the traced program's main; 46-59 ms
 * without). When they come (bc_uprobe_warm_release), the thread removes
 * its probes; removal waits for grace periods, in the thread, and begins
 * before the traced program is released, so no return pending on a traced
 * frame can hold it up. No perf uprobe: creating or removing one takes the
 * kernel's trace-event lock, which removal holds through its grace period.
 * The recording joins the thread when it ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpfcollect/uprobe_multi.h"
#include "bpfcollect/uprobe_warm.h"

#define WARM_PERIOD_MS 4

/* Never called: its first instruction carries the warm-up probes. */
__attribute__((noinline, used)) void bc_uprobe_warm_target(void)
{
	__asm__ volatile("" ::: "memory");
}

/* The file offset of bc_uprobe_warm_target in our executable, from our own mappings. */
static int target_offset(uint64_t *offset)
{
	uint64_t addr = (uint64_t)(uintptr_t)bc_uprobe_warm_target, start, end, off;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "re");
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64, &start, &end, perms,
			   &off) == 4 &&
		    addr >= start && addr < end && perms[2] == 'x') {
			*offset = addr - start + off;
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

/* A program that does nothing, for the warm-up link. */
static int empty_program(void)
{
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = (enum bpf_attach_type)BC_BPF_TRACE_UPROBE_MULTI);

	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, "bc_warm", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &opts);
}

/*
 * Registers a probe every WARM_PERIOD_MS (the first pays the wait, the
 * others find the switch made and keep it made: each registration is a
 * writer) until the real probes come. The links stay (w->links): removed
 * now, one could wait behind the real probes' pending returns.
 */
static void *warm_loop(void *arg)
{
	struct bc_uprobe_warm *w = arg;
	struct pollfd go = {.fd = w->go[0], .events = POLLIN};

	do {
		int link = bc_uprobe_multi_attach(w->prog_fd, w->exe, &w->offset, NULL, 1, false,
						  (int)getpid());

		if (link < 0)
			break; /* nothing to gain: the real probes pay the wait */
		w->links[w->n_links++] = link;
	} while (w->n_links < BC_UPROBE_WARM_MAX && poll(&go, 1, WARM_PERIOD_MS) == 0);
	return NULL;
}

void bc_uprobe_warm_start(struct bc_uprobe_warm *w)
{
	ssize_t n;

	memset(w, 0, sizeof(*w));
	w->prog_fd = w->go[0] = w->go[1] = -1;
	n = readlink("/proc/self/exe", w->exe, sizeof(w->exe) - 1);
	if (n <= 0 || target_offset(&w->offset) < 0)
		return;
	w->exe[n] = 0;
	w->prog_fd = empty_program();
	if (w->prog_fd < 0 || pipe2(w->go, O_CLOEXEC) < 0)
		return;
	w->started = pthread_create(&w->thread, NULL, warm_loop, w) == 0;
}

void bc_uprobe_warm_release(struct bc_uprobe_warm *w)
{
	if (w->go[1] >= 0)
		close(w->go[1]); /* the thread's poll returns */
	w->go[1] = -1;
}

void bc_uprobe_warm_wait(struct bc_uprobe_warm *w)
{
	bc_uprobe_warm_release(w);
	if (w->started)
		pthread_join(w->thread, NULL);
	w->started = false;
}

void bc_uprobe_warm_free(struct bc_uprobe_warm *w)
{
	bc_uprobe_warm_wait(w);
	while (w->n_links)
		close(w->links[--w->n_links]);
	if (w->go[0] >= 0)
		close(w->go[0]);
	if (w->prog_fd >= 0)
		close(w->prog_fd);
	w->prog_fd = w->go[0] = -1;
}
