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
 * Drops from funcs every function whose first instruction cannot be
 * probed (reading it from the file at its offset), calling warn for each.
 * Function ids are renumbered. Returns how many were dropped, or -errno.
 */
int bc_functab_drop_unprobeable(struct bc_functab *funcs,
				void (*warn)(const struct bc_func *f, const char *why));

#endif
