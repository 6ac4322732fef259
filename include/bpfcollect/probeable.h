/* SPDX-License-Identifier: MIT */
/*
 * Whether x86-64 uprobes can probe a function's first instruction. The
 * kernel refuses instructions with a LOCK or ES/CS/SS/DS segment prefix and
 * a few opcodes (int3, int n, into, iret, int1, hlt, the ones invalid in
 * 64-bit mode). For a process started after the attach it refuses silently:
 * the function would just never show up, so the agent checks first.
 */
#ifndef BPFCOLLECT_PROBEABLE_H
#define BPFCOLLECT_PROBEABLE_H

#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/model.h"

/*
 * Checks the instruction bytes code[0..len). Returns 0 when probeable,
 * -ENOTSUP with a short reason ("LOCK prefix", ...) otherwise.
 */
int bc_insn_probeable(const uint8_t *code, size_t len, const char **why);

/*
 * Whether a function must not get a probe pair by its name: one entered
 * without a call (the process's entry point: a return probe would replace
 * argc on its stack), one that returns twice or on another stack (setjmp,
 * getcontext, vfork, clone: the saved or shared return address would be
 * the probe's), or one with a frame of its own kind (the dynamic linker's
 * lazy binding trampolines, the signal return). 0, or -EPERM with the
 * reason.
 */
int bc_func_name_probeable(const char *name, const char **why);

/*
 * Drops from funcs every function that must not or cannot be probed (by
 * its name, then by its first instruction, read from the file at its
 * offset), calling warn for each with the reason as a clause ("its first
 * instruction has a LOCK prefix, which uprobes cannot probe"). A function
 * that starts with endbr64 gets its probe_offset past it (the next
 * instruction is the one checked). Function ids are renumbered. Returns
 * how many were dropped, or -errno.
 */
int bc_functab_drop_unprobeable(struct bc_functab *funcs,
				void (*warn)(const struct bc_func *f, const char *why));

#endif
