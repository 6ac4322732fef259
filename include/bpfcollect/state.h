/* SPDX-License-Identifier: MIT */
/*
 * What the event stream says of the processes so far: one table, hashed
 * by pid, kept by the producer of the stream (the agent's drain, the
 * experiment reader) and updated from each record before the sinks see
 * it, so every sink reads the same facts instead of tracking its own:
 * name, parent, command line, group and session, which process a pid is
 * now (a pid the kernel reuses is a new process, with a new serial), and
 * what each has mapped.
 *
 * Its memory stays flat however many processes come and go (see
 * bpfcollect/pidtab.h): an exited process is forgotten after the next
 * BC_PIDTAB_KEEP_EXITED exits, but for its pid's serial. The session's
 * root is never forgotten: the agent's losses are written under its pid.
 */
#ifndef BPFCOLLECT_STATE_H
#define BPFCOLLECT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/containers.h"
#include "bpfcollect/mapset.h"
#include "bpfcollect/model.h"
#include "bpfcollect/pidtab.h"

struct bc_proc {
	uint32_t pid;
	uint32_t serial;   /* 1 for the first process seen with this pid, +1 for each reuse */
	uint32_t ppid;	   /* its parent: from its fork, the agent's PROC_NAME, or the session */
	int32_t pgrp, sid; /* the session's for the root; a fork's as inherited */
	char comm[BC_COMM_LEN + 1];
	char *args; /* its command line: NUL-separated words; NULL: none said */
	size_t args_len;
	char *exe;	      /* the file of its last exec; NULL: none seen */
	uint64_t birth_ktime; /* its fork, or its first record */
	bool exited;
	bool root;	   /* the session's root: never forgotten */
	int32_t exit_code; /* wait(2) status, when exited */
};

/* Pids the kernel can hand out (PID_MAX_LIMIT), in chunks of serials made on first use. */
#define BC_STATE_PID_LIMIT    (1u << 22)
#define BC_STATE_SERIAL_CHUNK 4096u

struct bc_state {
	struct bc_pidtab procs; /* of struct bc_proc: the processes known now */
	/*
	 * The serial of each pid's last process, once forgotten: 4 bytes a
	 * pid, in chunks (128 KiB at pid_max 32768); a pid past the kernel's
	 * limit (a damaged file) in a map.
	 */
	uint32_t *serials[BC_STATE_PID_LIMIT / BC_STATE_SERIAL_CHUNK];
	struct bc_idmap serials_beyond;
	/*
	 * The executable mappings of the processes, as the stream's mapping
	 * events say them: emptied at a process's exec and exit, and for a
	 * fork's child until its parent's copy arrives.
	 */
	struct bc_mapset maps;
};

/* An empty state; bc_state_free() frees it. The state must not move while in use. */
void bc_state_init(struct bc_state *s);
void bc_state_free(struct bc_state *s);
/* The root process(es) of a session: its argv and ids. 0 or -ENOMEM. */
int bc_state_begin(struct bc_state *s, const struct bc_session *sess);
/* Applies one record (fork, exec, exit, PROC_NAME; any other names its process). -ENOMEM. */
int bc_state_event(struct bc_state *s, const struct bc_rec_head *h);
/* Applies one mapping event (made or unmapped) to the mappings. -ENOMEM. */
int bc_state_mapping(struct bc_state *s, const struct bc_mapping *m);
/*
 * What to call a process: its comm; before the stream says one (a root
 * before its exec), the base name of its command's first word; else "?".
 */
const char *bc_proc_name(const struct bc_proc *p);
/* The process pid is now; NULL when the stream has not named it, or it was forgotten. */
const struct bc_proc *bc_state_proc(const struct bc_state *s, uint32_t pid);

#endif /* BPFCOLLECT_STATE_H */
