// SPDX-License-Identifier: MIT
#include <errno.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpfcollect/uprobe_multi.h"

/*
 * The BPF_LINK_CREATE part of union bpf_attr with the uprobe_multi member,
 * laid out as in the kernel's uapi header (Debian 12 ships an older one).
 */
struct link_create_uprobe_multi_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t um_flags;
	uint32_t pid;
	uint32_t pad;
};

int bc_uprobe_multi_attach(int prog_fd, const char *path, const uint64_t *offsets,
			   const uint64_t *cookies, size_t cnt, bool retprobe, int pid)
{
	struct link_create_uprobe_multi_attr attr;
	long fd;

	if (prog_fd < 0 || !path || !offsets || cnt == 0 || cnt > UINT32_MAX || pid < 0)
		return -EINVAL;
	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = prog_fd;
	attr.attach_type = BC_BPF_TRACE_UPROBE_MULTI;
	attr.path = (uint64_t)(uintptr_t)path;
	attr.offsets = (uint64_t)(uintptr_t)offsets;
	attr.cookies = (uint64_t)(uintptr_t)cookies;
	attr.cnt = (uint32_t)cnt;
	attr.um_flags = retprobe ? BC_BPF_F_UPROBE_MULTI_RETURN : 0;
	attr.pid = (uint32_t)pid;

	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		return -errno;
	return (int)fd;
}

bool bc_uprobe_multi_supported(void)
{
	static int cached = -1;
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = (enum bpf_attach_type)BC_BPF_TRACE_UPROBE_MULTI);
	int prog_fd, link_fd;
	uint64_t offset = 0;

	if (cached >= 0)
		return cached;
	prog_fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "bc_um_probe", "GPL", insns,
				sizeof(insns) / sizeof(insns[0]), &opts);
	if (prog_fd < 0) {
		cached = 0;
		return false;
	}
	/*
	 * Loading alone is no proof: older kernels accept any expected attach
	 * type for kprobe programs. Ask for a link on a directory: only a
	 * kernel that parses uprobe_multi requests answers EBADF (not a
	 * regular file); others say EINVAL or EOPNOTSUPP.
	 */
	link_fd = bc_uprobe_multi_attach(prog_fd, "/", &offset, NULL, 1, false, 0);
	if (link_fd >= 0)
		close(link_fd);
	cached = link_fd == -EBADF;
	close(prog_fd);
	return cached;
}
