// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/probeable.h"

/* Names that must not be probed, with the reason; globs for the versioned and suffixed ones. */
static const struct {
	const char *glob;
	const char *why;
} unsafe_names[] = {
	{"_start", "it is the entry point, with argc where a return address would be"},
	{"_dl_start", "it is the dynamic linker's entry point, entered without a call"},
	{"_dl_start_user", "it is the dynamic linker's entry point, entered without a call"},
	{"_dl_runtime_resolve*", "it is the lazy-binding trampoline, with a frame of its own kind"},
	{"_dl_runtime_profile*", "it is the lazy-binding trampoline, with a frame of its own kind"},
	{"__restore_rt", "it is the signal return trampoline, entered without a call"},
	{"*setjmp", "it returns twice: the return address it saves would be the probe's"},
	{"*longjmp*", "it never returns to its caller"},
	{"getcontext", "it returns twice: the return address it saves would be the probe's"},
	{"__getcontext", "it returns twice: the return address it saves would be the probe's"},
	{"swapcontext", "it returns on another context's stack"},
	{"__swapcontext", "it returns on another context's stack"},
	{"__start_context", "it starts a context, entered without a call"},
	{"*vfork", "parent and child return on one stack"},
	{"clone", "the child returns on a stack of its own"},
	{"__clone", "the child returns on a stack of its own"},
	{"clone3", "the child returns on a stack of its own"},
	{"__clone3", "the child returns on a stack of its own"},
	{"__clone_internal", "the child returns on a stack of its own"},
};

int bc_func_name_probeable(const char *name, const char **why)
{
	*why = NULL;
	for (size_t i = 0; i < sizeof(unsafe_names) / sizeof(unsafe_names[0]); i++) {
		if (!fnmatch(unsafe_names[i].glob, name, 0)) {
			*why = unsafe_names[i].why;
			return -EPERM;
		}
	}
	return 0;
}

int bc_insn_probeable(const uint8_t *code, size_t len, const char **why)
{
	size_t i = 0;

	*why = NULL;
	/* Legacy prefixes come first, in any order; then an optional REX. */
	for (; i < len; i++) {
		switch (code[i]) {
		case 0xf0:
			*why = "LOCK prefix";
			return -ENOTSUP;
		case 0x26:
		case 0x2e:
		case 0x36:
		case 0x3e:
			*why = "segment-override prefix";
			return -ENOTSUP;
		case 0x64:
		case 0x65:
		case 0x66:
		case 0x67:
		case 0xf2:
		case 0xf3:
			continue;
		}
		break;
	}
	if (i < len && (code[i] & 0xf0) == 0x40)
		i++;
	if (i >= len) {
		*why = "no instruction bytes";
		return -ENOTSUP;
	}
	switch (code[i]) {
	case 0xcc:
	case 0xcd:
	case 0xce:
	case 0xcf:
	case 0xf1:
		*why = "interrupt instruction";
		return -ENOTSUP;
	case 0xf4:
		*why = "hlt";
		return -ENOTSUP;
	case 0x06: /* push/pop of segment registers, BCD and far ops: invalid in 64-bit mode */
	case 0x07:
	case 0x0e:
	case 0x16:
	case 0x17:
	case 0x1e:
	case 0x1f:
	case 0x27:
	case 0x2f:
	case 0x37:
	case 0x3f:
	case 0x60:
	case 0x61:
	case 0x62:
	case 0x82:
	case 0x9a:
	case 0xd4:
	case 0xd5:
	case 0xd6:
	case 0xea:
		*why = "instruction invalid in 64-bit mode";
		return -ENOTSUP;
	}
	return 0;
}

/*
 * Why f must not or cannot be probed, into reason; false when it can. fd
 * and *open_path cache the object last read (an unreadable object is the
 * attach's to report: its functions are kept).
 */
struct object_cache {
	int fd;
	char path[4096]; /* a copy: a dropped function's object is freed */
};

static bool unprobeable(struct bc_func *f, struct object_cache *c, char *reason, size_t len)
{
	static const uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
	const char *why = NULL;
	uint8_t code[16];
	size_t skip = 0;
	ssize_t n;

	if (bc_func_name_probeable(f->name, &why) < 0) {
		snprintf(reason, len, "%s", why);
		return true;
	}
	if (strcmp(c->path, f->object) != 0) {
		if (c->fd >= 0)
			close(c->fd);
		c->fd = open(f->object, O_RDONLY | O_CLOEXEC);
		snprintf(c->path, sizeof(c->path), "%s", f->object);
	}
	n = c->fd >= 0 ? pread(c->fd, code, sizeof(code), (off_t)f->offset) : -1;
	/*
	 * endbr64 (every function of a CET build) is single-stepped on every
	 * hit, ten times the cost of an emulated push. It marks the function
	 * as an indirect-branch target and does nothing else: the probes go on
	 * the instruction after it, reached by every call, with the stack as
	 * at entry (the return address on top), so the return probe is the same.
	 */
	if (n >= (ssize_t)sizeof(endbr64) && memcmp(code, endbr64, sizeof(endbr64)) == 0 &&
	    (f->size == 0 || f->size > sizeof(endbr64))) {
		f->probe_offset = f->offset + sizeof(endbr64);
		skip = sizeof(endbr64);
	}
	if (n > (ssize_t)skip && bc_insn_probeable(code + skip, (size_t)n - skip, &why) < 0) {
		snprintf(reason, len, "its %s instruction has a %s, which uprobes cannot probe",
			 skip ? "second (after endbr64)" : "first", why);
		return true;
	}
	return false;
}

static int judge_probeable(void *ctx, struct bc_func *f, char *why, size_t len)
{
	return !unprobeable(f, ctx, why, len);
}

int bc_functab_drop_unprobeable(struct bc_functab *funcs,
				void (*warn)(const struct bc_func *f, const char *why))
{
	struct object_cache *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return -ENOMEM;
	c->fd = -1;
	rc = bc_functab_filter(funcs, judge_probeable, c, warn);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
	return rc;
}
