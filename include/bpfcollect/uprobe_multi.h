/* SPDX-License-Identifier: MIT */
/*
 * uprobe_multi links through BPF_LINK_CREATE directly: libbpf 1.1 (Debian 12)
 * has no API for them, and per-function perf uprobes take ~0.1 s each to
 * detach, which makes exiting a trace of 1,000 functions take minutes.
 */
#ifndef BPFCOLLECT_UPROBE_MULTI_H
#define BPFCOLLECT_UPROBE_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kernel ABI values (include/uapi/linux/bpf.h, 6.6+); not in Debian 12's headers. */
#define BC_BPF_TRACE_UPROBE_MULTI    48
#define BC_BPF_F_UPROBE_MULTI_RETURN 1U

/*
 * Creates one link attaching prog_fd to cnt functions of the ELF file at
 * path (file offsets), each with its cookie. retprobe selects return probes;
 * pid > 0 restricts the probes to that process. Returns the link fd or a
 * negative errno. The program must have been loaded with expected attach
 * type BC_BPF_TRACE_UPROBE_MULTI.
 */
int bc_uprobe_multi_attach(int prog_fd, const char *path, const uint64_t *offsets,
			   const uint64_t *cookies, size_t cnt, bool retprobe, int pid);

/*
 * Whether the running kernel can create uprobe_multi links: loads a trivial
 * program with that expected attach type. Cached after the first call.
 */
bool bc_uprobe_multi_supported(void);

#endif
