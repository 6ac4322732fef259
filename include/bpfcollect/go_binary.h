/* SPDX-License-Identifier: MIT */
/*
 * Go binaries (user/symbols/go_binary.c): what the agent must know to trace
 * one per goroutine (bpf/goroutine.bpf.h), read from the file: the Go
 * release that built it (.go.buildinfo), where runtime.g keeps the
 * goroutine id (DWARF, else a table per release), and where each function's
 * entry probe goes (past its stack check). docs/design.md, "Safety".
 */
#ifndef BPFCOLLECT_GO_BINARY_H
#define BPFCOLLECT_GO_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/model.h"
#include "bpfcollect/return_sites.h"

struct bc_go_binary {
	char version[48]; /* "go1.19.8"; "" when .go.buildinfo does not say */
	int minor;	  /* 19 for go1.19.8; -1 unknown */
	bool has_symtab;
	uint32_t goid_offset; /* in runtime.g; 0 unknown */
	bool goid_from_dwarf;
};

/* The release "go1.N..." names: N, or -1. */
int bc_go_version_minor(const char *version);

/*
 * The release from a .go.buildinfo section's bytes (data, n, at virtual
 * address addr), into version (len bytes): 0, or -ENOEXEC when it is not
 * one. read_at reads len bytes at a virtual address of the file (the
 * releases before 1.18 point at their strings); NULL: they are not read.
 */
int bc_go_buildinfo_version(const uint8_t *data, size_t n,
			    int (*read_at)(void *ctx, uint64_t vaddr, void *buf, size_t len),
			    void *ctx, char *version, size_t len);

/*
 * Reads the file at path: 1 when it is Go (*gb filled), 0 when it is not,
 * -errno when it cannot be read.
 */
int bc_go_binary_read(const char *path, struct bc_go_binary *gb);

/*
 * Whether Go code from path, read into gb, can be traced safely with mode:
 * 0, or -EPERM with the one-line reason in why.
 */
int bc_go_binary_check(const char *path, const struct bc_go_binary *gb, enum bc_returns_mode mode,
		       char *why, size_t len);

/*
 * Where a Go function's entry probe goes (file offset), its code being
 * code (size bytes at virtual address addr, file offset offset): past the
 * stack check and its conditional jump, since runtime.morestack runs the
 * function again from its start once the stack has grown, so a probe at
 * the start would count such calls twice. The start when it has none.
 */
uint64_t bc_go_entry_offset(const uint8_t *code, size_t size, uint64_t addr, uint64_t offset);

/*
 * For each Go object among funcs' functions: refuses what cannot be traced
 * safely (-EPERM, the reason in err), else marks its functions as Go
 * (goid_offset) with their entries past the stack check. A function whose
 * entry cannot be probed is dropped, warn called. Returns how many were
 * dropped, or -errno.
 */
int bc_functab_plan_go(struct bc_functab *funcs, enum bc_returns_mode mode,
		       void (*warn)(const struct bc_func *f, const char *why), char *err,
		       size_t errlen);

/* When no function matched in path: a Go binary without symbols gets its own reason. 1 if so. */
int bc_go_explain_stripped(const char *path, char *why, size_t len);

#endif
