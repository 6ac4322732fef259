// SPDX-License-Identifier: MIT
/*
 * floor BIN FUNC -- CMD [ARGS]: the floor tracer (floor.bpf.c). Runs CMD
 * with entry and return probes on FUNC of BIN (one uprobe_multi link each,
 * as bpfcollect attaches), drains the ring every 10 ms without being woken,
 * and says on stderr how many records it read:
 *
 *   floor: entries=N returns=N lost=N
 *
 * It exits with CMD's status. tools/bench-cost.sh runs it beside the
 * tracers it compares; it is the reference of "per call, against the floor".
 * FLOOR_NO_RETURN=1 in the environment leaves the return probe out.
 *
 * floor --syscalls -- CMD [ARGS] records one 32-byte record per system
 * call of CMD instead (at its exit, tp_btf), and says "syscalls=N lost=N".
 * floor --syscalls-timed -- CMD [ARGS] does the same with each call's entry
 * time in its record (kept in task storage by a sys_enter program): the
 * floor of a tracer that times calls.
 *
 * floor --offset BIN FUNC prints the file offset a uprobe on FUNC goes at
 * (0x...), for the tracers that take one (tracefs uprobe_events).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpfcollect/uprobe_multi.h"
#include "floor.skel.h"

struct floor_rec {
	unsigned long long ktime, pid_tgid, cookie, is_return;
};

static unsigned long long entries, returns, syscalls;

static int on_record(void *ctx, void *data, size_t size)
{
	const struct floor_rec *r = data;

	(void)ctx;
	if (size < sizeof(*r))
		return 0;
	if (r->is_return == 2)
		syscalls++;
	else if (r->is_return)
		returns++;
	else
		entries++;
	return 0;
}

/* The file offset of FUNC's code in BIN (what a uprobe is placed at), or -1. */
static long long func_offset(const char *bin, const char *func)
{
	long long off = -1;
	unsigned long long value = 0;
	Elf_Scn *scn = NULL;
	bool found = false;
	size_t nph;
	Elf *e;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(bin, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !found && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC)
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (name && strcmp(name, func) == 0 && s.st_value) {
				value = s.st_value;
				found = true;
				break;
			}
		}
	}
	if (found && elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    (ph.p_flags & PF_X) && value >= ph.p_vaddr &&
			    value < ph.p_vaddr + ph.p_memsz)
				off = (long long)(value - ph.p_vaddr + ph.p_offset);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return off;
}

/*
 * Runs cmd under the floor: probes on the function at offset of bin, or
 * (bin NULL) a record per system call. Returns cmd's exit status, or 1.
 */
static int run(const char *bin, const uint64_t *offset, bool timed, char **cmd)
{
	struct ring_buffer *rb = NULL;
	struct floor_bpf *skel;
	int go[2], status = 0, rc = 1, entry_fd = -1, return_fd = -1;
	uint64_t cookie = 1;
	pid_t child;

	skel = floor_bpf__open();
	if (skel) {
		/* uprobe_multi links take programs loaded for them (libbpf 1.1 knows no such type)
		 */
		bpf_program__set_expected_attach_type(skel->progs.floor_entry,
						      BC_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_expected_attach_type(skel->progs.floor_return,
						      BC_BPF_TRACE_UPROBE_MULTI);
		bpf_program__set_autoload(skel->progs.floor_entry, bin != NULL);
		bpf_program__set_autoload(skel->progs.floor_return, bin != NULL);
		bpf_program__set_autoload(skel->progs.floor_sys, bin == NULL && !timed);
		bpf_program__set_autoload(skel->progs.floor_sys_enter, timed);
		bpf_program__set_autoload(skel->progs.floor_sys_timed, timed);
	}
	if (!skel || floor_bpf__load(skel)) {
		fprintf(stderr, "floor: cannot load the BPF programs: %s\n", strerror(errno));
		floor_bpf__destroy(skel);
		return 1;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.floor_ring), on_record, NULL, NULL);
	if (!rb || pipe(go) < 0)
		goto out;
	child = fork();
	if (child < 0)
		goto out;
	if (child == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	close(go[0]);
	if (bin) {
		/* the return probe first, as bpfcollect attaches: no entry without its return */
		return_fd =
			getenv("FLOOR_NO_RETURN")
				? 0
				: bc_uprobe_multi_attach(bpf_program__fd(skel->progs.floor_return),
							 bin, offset, &cookie, 1, true, child);
		entry_fd = bc_uprobe_multi_attach(bpf_program__fd(skel->progs.floor_entry), bin,
						  offset, &cookie, 1, false, child);
	} else {
		skel->bss->floor_tgid = (uint32_t)child;
		entry_fd = floor_bpf__attach(skel) ? -EINVAL : 0;
		return_fd = 0;
	}
	if (entry_fd < 0 || return_fd < 0) {
		fprintf(stderr, "floor: cannot attach: %s\n",
			strerror(-(entry_fd < 0 ? entry_fd : return_fd)));
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		goto out;
	}
	if (write(go[1], "g", 1) != 1)
		goto out;
	close(go[1]);
	for (;;) {
		struct timespec tick = {.tv_nsec = 10 * 1000 * 1000};
		pid_t w = waitpid(child, &status, WNOHANG);

		ring_buffer__consume(rb);
		if (w == child)
			break;
		nanosleep(&tick, NULL);
	}
	ring_buffer__consume(rb);
	if (bin)
		fprintf(stderr, "floor: entries=%llu returns=%llu lost=%llu\n", entries, returns,
			(unsigned long long)skel->bss->floor_lost);
	else
		fprintf(stderr, "floor: syscalls=%llu lost=%llu\n", syscalls,
			(unsigned long long)skel->bss->floor_lost);
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	if (entry_fd > 0)
		close(entry_fd);
	if (return_fd > 0)
		close(return_fd);
	ring_buffer__free(rb);
	floor_bpf__destroy(skel);
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t offset;
	long long off;

	if (argc == 4 && strcmp(argv[1], "--offset") == 0) {
		off = func_offset(argv[2], argv[3]);
		if (off < 0) {
			fprintf(stderr, "floor: no function %s in %s\n", argv[3], argv[2]);
			return 2;
		}
		printf("0x%llx\n", off);
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "--syscalls") == 0 && strcmp(argv[2], "--") == 0)
		return run(NULL, NULL, false, argv + 3);
	if (argc >= 4 && strcmp(argv[1], "--syscalls-timed") == 0 && strcmp(argv[2], "--") == 0)
		return run(NULL, NULL, true, argv + 3);
	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "usage: floor BIN FUNC -- CMD [ARGS] | floor --syscalls[-timed] -- "
				"CMD [ARGS] | floor --offset BIN FUNC\n");
		return 2;
	}
	off = func_offset(argv[1], argv[2]);
	if (off < 0) {
		fprintf(stderr, "floor: no function %s in %s\n", argv[2], argv[1]);
		return 2;
	}
	offset = (uint64_t)off;
	return run(argv[1], &offset, false, argv + 4);
}
