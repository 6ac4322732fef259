/* SPDX-License-Identifier: MIT */
/* What the agent tells the sinks about the machine and a process, from uname and /proc. */
#ifndef BPFCOLLECT_HOSTINFO_H
#define BPFCOLLECT_HOSTINFO_H

#include <stdint.h>

#include "bpfcollect/model.h"

/* This machine: uname, page size and count, CPUs and their clock from /proc/cpuinfo. */
void bc_host_read(struct bc_host *h);

/* ppid, pgrp and sid of pid from /proc/PID/stat; zeros when it is gone. */
void bc_proc_ids(uint32_t pid, int32_t *ppid, int32_t *pgrp, int32_t *sid);

#endif
