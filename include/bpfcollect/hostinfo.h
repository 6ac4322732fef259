/* SPDX-License-Identifier: MIT */
/* What the agent tells the sinks about the machine and a process, from uname and /proc. */
#ifndef BPFCOLLECT_HOSTINFO_H
#define BPFCOLLECT_HOSTINFO_H

#include <stdint.h>

#include "bpfcollect/model.h"

/* This machine: uname, page size and count, CPUs and their clock from /proc/cpuinfo. */
void bc_host_read(struct bc_host *h);

/*
 * This host's address: its first non-loopback IPv4 address that is up, in
 * getifaddrs() order, host byte order; 0 without one.
 */
uint32_t bc_host_ipv4(void);

/* ppid, pgrp and sid of pid from /proc/PID/stat; zeros when it is gone. */
void bc_proc_ids(uint32_t pid, int32_t *ppid, int32_t *pgrp, int32_t *sid);

#endif
