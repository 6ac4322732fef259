// SPDX-License-Identifier: MIT
/* A function's exits, decoded (bpfcollect/return_sites.h). */
#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/return_sites.h"

#define MAX_FUNCTION_BYTES (16u << 20)

static int push(uint64_t **sites, size_t *n, uint64_t offset)
{
	uint64_t *v = realloc(*sites, (*n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	*sites = v;
	v[(*n)++] = offset;
	return 0;
}

/*
 * An exit: ret, or a jmp whose target is outside the body (a direct one
 * by its address; through memory only when rip-relative, a GOT slot: a
 * jump table is indexed by a register and stays inside).
 */
static bool leaves(const cs_insn *insn, uint64_t addr, size_t size)
{
	const cs_x86 *x = &insn->detail->x86;

	switch (insn->id) {
	case X86_INS_RET:
	case X86_INS_RETF:
	case X86_INS_RETFQ:
		return true;
	case X86_INS_JMP:
		if (x->op_count != 1)
			return false;
		if (x->operands[0].type == X86_OP_IMM) {
			uint64_t to = (uint64_t)x->operands[0].imm;

			return to < addr || to >= addr + size;
		}
		return x->operands[0].type == X86_OP_MEM &&
		       x->operands[0].mem.base == X86_REG_RIP &&
		       x->operands[0].mem.index == X86_REG_INVALID;
	default:
		return false;
	}
}

int bc_return_sites_decode(const uint8_t *code, size_t size, uint64_t addr, uint64_t offset,
			   uint64_t **sites, size_t *n)
{
	const uint8_t *p = code;
	uint64_t at = addr;
	size_t left = size;
	cs_insn *insn;
	int rc = 0;
	csh h;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return -ENOEXEC;
	if (cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK || !(insn = cs_malloc(h))) {
		cs_close(&h);
		return -ENOMEM;
	}
	while (left > 0 && rc == 0) {
		if (!cs_disasm_iter(h, &p, &left, &at, insn)) {
			/* padding after the last exit is not code: int3 or nothing */
			rc = *p == 0xcc || *p == 0x00 ? 0 : -ENOEXEC;
			break;
		}
		if (leaves(insn, addr, size))
			rc = push(sites, n, offset + (insn->address - addr));
	}
	cs_free(insn, 1);
	cs_close(&h);
	return rc;
}

int bc_return_sites_read(int fd, uint64_t offset, uint64_t addr, uint64_t size, uint64_t **sites,
			 size_t *n)
{
	uint8_t *code;
	ssize_t got;
	int rc;

	if (size == 0 || size > MAX_FUNCTION_BYTES)
		return -ENOEXEC;
	code = malloc(size);
	if (!code)
		return -ENOMEM;
	got = pread(fd, code, size, (off_t)offset);
	rc = got == (ssize_t)size ? bc_return_sites_decode(code, size, addr, offset, sites, n)
				  : (got < 0 ? -errno : -ENOEXEC);
	free(code);
	return rc;
}

static bool undefined_dynamic(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	GElf_Sym sym;

	for (size_t i = 0; data && i < count; i++) {
		const char *s;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx != SHN_UNDEF)
			continue;
		s = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (s && !strcmp(s, name))
			return true;
	}
	return false;
}

int bc_object_throws(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		found = -ENOEXEC;
		goto out;
	}
	while (!found && (scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		/* Go: its stack copier and traceback read return addresses too */
		if (name && (!strcmp(name, ".gcc_except_table") || !strcmp(name, ".gopclntab") ||
			     !strcmp(name, ".go.buildinfo")))
			found = 1;
		else if (sh.sh_type == SHT_DYNSYM)
			found = undefined_dynamic(elf, scn, &sh, "__gxx_personality_v0");
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

struct exits_plan {
	enum bc_returns_mode mode;
	char object[4096]; /* the object judged last (a copy: a dropped function's is freed) */
	bool throws;
};

/* Whether f's returns go to its exits: the mode, and for auto its object (cached). */
static bool wants_exits(const struct bc_func *f, struct exits_plan *p)
{
	if (p->mode != BC_RETURNS_AUTO)
		return p->mode == BC_RETURNS_SITES;
	if (strcmp(p->object, f->object) != 0) {
		snprintf(p->object, sizeof(p->object), "%s", f->object);
		p->throws = bc_object_throws(f->object) > 0;
	}
	return p->throws;
}

/* Its exits, from its code; 0, or -errno with the reason for dropping it. */
static int plan_one(struct bc_func *f, char *why, size_t len)
{
	int fd = open(f->object, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0) {
		rc = -errno;
		snprintf(why, len, "its object cannot be read (%s)", strerror(-rc));
		return rc;
	}
	rc = bc_return_sites_read(fd, f->offset, f->addr, f->size, &f->exits, &f->n_exits);
	close(fd);
	if (rc == -ENOEXEC)
		snprintf(why, len,
			 "its code does not decode to its end, so its returns cannot be found "
			 "(a return probe would make exceptions through it abort)");
	else if (rc < 0)
		snprintf(why, len, "its exits cannot be found (%s)", strerror(-rc));
	f->exits_only = rc == 0;
	return rc;
}

static int judge_exits(void *ctx, struct bc_func *f, char *why, size_t len)
{
	int rc = wants_exits(f, ctx) ? plan_one(f, why, len) : 0;

	return rc == -ENOMEM ? rc : rc == 0;
}

int bc_functab_plan_exits(struct bc_functab *funcs, enum bc_returns_mode mode,
			  void (*warn)(const struct bc_func *f, const char *why))
{
	struct exits_plan *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return -ENOMEM;
	p->mode = mode;
	rc = bc_functab_filter(funcs, judge_exits, p, warn);
	free(p);
	return rc;
}
