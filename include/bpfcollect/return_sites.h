/* SPDX-License-Identifier: MIT */
/*
 * Where a function leaves (user/symbols/return_sites.c): the places its
 * return-site probes go, for code a uretprobe must not touch (docs/design.md,
 * "Safety"): its ret instructions, and jumps out of its body (tail calls,
 * direct or through the GOT). x86-64, decoded with capstone.
 */
#ifndef BPFCOLLECT_RETURN_SITES_H
#define BPFCOLLECT_RETURN_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/model.h"

/* How functions' returns are probed (record --return-probes). */
enum bc_returns_mode {
	BC_RETURNS_AUTO,      /* at the exits in code that reads its stacks (C++, Go), else uretprobes */
	BC_RETURNS_URETPROBE, /* uretprobes everywhere */
	BC_RETURNS_SITES,     /* at the exits everywhere */
};

/*
 * Decodes code (size bytes, the function's whole body, at virtual address
 * addr) and appends the file offsets of its exits to *sites (grown with
 * realloc; *n of them), code[0] being at file offset offset. 0, -ENOMEM,
 * or -ENOEXEC when an instruction does not decode (data in the code, or
 * not x86-64): the function then has no safe return sites.
 */
int bc_return_sites_decode(const uint8_t *code, size_t size, uint64_t addr, uint64_t offset,
			   uint64_t **sites, size_t *n);

/* The same for the function at file offset offset of the file fd, size bytes long. */
int bc_return_sites_read(int fd, uint64_t offset, uint64_t addr, uint64_t size, uint64_t **sites,
			 size_t *n);

/*
 * Whether the object at path reads return addresses on its stacks: C++
 * code that exceptions may leave through (exception tables, or libstdc++'s
 * personality routine), or Go (.gopclntab: its stack copier and traceback
 * walk every frame). 1, 0, or -errno.
 */
int bc_object_throws(const char *path);

/*
 * Decides for each function of funcs how its returns are probed, as mode
 * says: at its exits (exits_only, exits[] decoded from its code), or by a
 * uretprobe. A function whose exits are needed but do not decode is
 * dropped, warn called with the reason; the others are renumbered. Returns
 * how many were dropped, or -errno.
 */
int bc_functab_plan_exits(struct bc_functab *funcs, enum bc_returns_mode mode,
			  void (*warn)(const struct bc_func *f, const char *why));

#endif
