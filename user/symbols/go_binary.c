// SPDX-License-Identifier: MIT
/* Go binaries: release, goroutine id offset, entries (bpfcollect/go_binary.h). */
#include <capstone/capstone.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/go_binary.h"
#include "bpfcollect/probeable.h"

#define BUILDINFO_MAGIC	    "\xff Go buildinf:"
#define BUILDINFO_MAGIC_LEN 14
#define BUILDINFO_HEADER    32
/* flags: strings inline after the header (1.18+), else pointed at */
#define BUILDINFO_INLINE 0x2
/* The instructions a stack check may start after (a big frame's computes its bound first). */
#define STACK_CHECK_WINDOW 8
/* runtime.g's goid, for releases whose binary has no DWARF: 1.17 to 1.22 (1.23 moved it) */
#define GOID_OFFSET_117_122 152

int bc_go_version_minor(const char *version)
{
	const char *p = version ? strstr(version, "go1.") : NULL;
	char *end;
	long minor;

	if (!p)
		return -1;
	minor = strtol(p + 4, &end, 10);
	if (end == p + 4 || minor < 0 || minor > 1000)
		return -1;
	return (int)minor;
}

/* An unsigned varint at *p (below end); -1 when it runs past end or is too long. */
static int64_t read_uvarint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 63 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v > INT64_MAX ? -1 : (int64_t)v;
	}
	return -1;
}

static int copy_version(const char *s, size_t n, char *version, size_t len)
{
	if (n == 0 || n >= len)
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return -ENOEXEC;
	memcpy(version, s, n);
	version[n] = 0;
	if (bc_go_version_minor(version) >= 0)
		return 0;
	version[0] = 0;
	return -ENOEXEC;
}

int bc_go_buildinfo_version(const uint8_t *data, size_t n,
			    int (*read_at)(void *ctx, uint64_t vaddr, void *buf, size_t len),
			    void *ctx, char *version, size_t len)
{
	uint8_t ptr_size, flags;
	uint64_t at, header[2];
	char s[64];

	if (n < BUILDINFO_HEADER || memcmp(data, BUILDINFO_MAGIC, BUILDINFO_MAGIC_LEN) != 0)
		return -ENOEXEC;
	ptr_size = data[14];
	flags = data[15];
	if (flags & BUILDINFO_INLINE) {
		const uint8_t *p = data + BUILDINFO_HEADER, *end = data + n;
		int64_t slen = read_uvarint(&p, end);

		if (slen < 0 || (uint64_t)slen > (uint64_t)(end - p))
			return -ENOEXEC;
		return copy_version((const char *)p, (size_t)slen, version, len);
	}
	/* before 1.18: a pointer to the version's string header {data, len}; x86-64 */
	if (ptr_size != 8 || (flags & 0x1) || !read_at)
		return -ENOEXEC;
	memcpy(&at, data + 16, sizeof(at));
	if (read_at(ctx, at, header, sizeof(header)) < 0 || header[1] == 0 ||
	    header[1] >= sizeof(s) || read_at(ctx, header[0], s, header[1]) < 0)
		return -ENOEXEC;
	return copy_version(s, header[1], version, len);
}

struct elf_file {
	int fd;
	Elf *elf;
};

/* A virtual address's bytes, through the segment that loads it. */
static int read_vaddr(void *ctx, uint64_t vaddr, void *buf, size_t len)
{
	struct elf_file *f = ctx;
	size_t n_phdrs;
	GElf_Phdr ph;

	if (elf_getphdrnum(f->elf, &n_phdrs) != 0)
		return -ENOEXEC;
	for (size_t i = 0; i < n_phdrs; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr >= ph.p_filesz ||
		    len > ph.p_filesz - (vaddr - ph.p_vaddr))
			continue;
		return pread(f->fd, buf, len, (off_t)(ph.p_offset + (vaddr - ph.p_vaddr))) ==
				       (ssize_t)len
			       ? 0
			       : -EIO;
	}
	return -ENOENT;
}

/* The offset of the member goid of the structure die (runtime.g), or 0. */
static uint32_t goid_member(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die member;
	Dwarf_Word at;

	if (dwarf_child(die, &member) != 0)
		return 0;
	do {
		const char *name = dwarf_diename(&member);

		if (!name || strcmp(name, "goid") != 0 ||
		    !dwarf_attr(&member, DW_AT_data_member_location, &attr) ||
		    dwarf_formudata(&attr, &at) != 0)
			continue;
		/* a goid past a few pages of g, or unaligned, is no Go release's */
		return at > 0 && at < 4096 && at % 8 == 0 ? (uint32_t)at : 0;
	} while (dwarf_siblingof(&member, &member) == 0);
	return 0;
}

/* runtime.g's member goid, from DWARF: its offset, or 0. */
static uint32_t goid_from_dwarf(Elf *elf)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	Dwarf_Off off = 0, next;
	uint32_t found = 0;
	size_t header;

	if (!dw)
		return 0;
	while (!found && dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, die;

		if (dwarf_offdie(dw, off + header, &cu) && dwarf_child(&cu, &die) == 0) {
			do {
				const char *name = dwarf_diename(&die);

				if (dwarf_tag(&die) == DW_TAG_structure_type && name &&
				    !strcmp(name, "runtime.g"))
					found = goid_member(&die);
			} while (!found && dwarf_siblingof(&die, &die) == 0);
		}
		off = next;
	}
	dwarf_end(dw);
	return found;
}

int bc_go_binary_read(const char *path, struct bc_go_binary *gb)
{
	struct elf_file f = {.fd = open(path, O_RDONLY | O_CLOEXEC), .elf = NULL};
	bool is_go = false;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	int rc = 0;

	memset(gb, 0, sizeof(*gb));
	gb->minor = -1;
	if (f.fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	f.elf = elf_begin(f.fd, ELF_C_READ, NULL);
	if (!f.elf || elf_getshdrstrndx(f.elf, &shstrndx) != 0) {
		rc = -ENOEXEC;
		goto out;
	}
	while ((scn = elf_nextscn(f.elf, scn))) {
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(f.elf, shstrndx, sh.sh_name)))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			gb->has_symtab = true;
		if (!strcmp(name, ".gopclntab"))
			is_go = true;
		if (strcmp(name, ".go.buildinfo") || sh.sh_type == SHT_NOBITS)
			continue;
		is_go = true;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf &&
		    bc_go_buildinfo_version(data->d_buf, data->d_size, read_vaddr, &f, gb->version,
					    sizeof(gb->version)) == 0)
			gb->minor = bc_go_version_minor(gb->version);
	}
	if (!is_go)
		goto out;
	rc = 1;
	gb->goid_offset = goid_from_dwarf(f.elf);
	gb->goid_from_dwarf = gb->goid_offset != 0;
	if (!gb->goid_offset && gb->minor >= 17 && gb->minor <= 22)
		gb->goid_offset = GOID_OFFSET_117_122;
out:
	if (f.elf)
		elf_end(f.elf);
	close(f.fd);
	return rc;
}

int bc_go_binary_check(const char *path, const struct bc_go_binary *gb, enum bc_returns_mode mode,
		       char *why, size_t len)
{
	if (mode == BC_RETURNS_URETPROBE) {
		snprintf(why, len,
			 "%s is Go: --return-probes=uretprobe would kill it (Go's stack copier "
			 "reads every return address); leave the default, auto",
			 path);
		return -EPERM;
	}
	if (gb->minor < 0) {
		snprintf(why, len,
			 "%s is Go, but its release cannot be read from .go.buildinfo: not traced "
			 "(bpfcollect traces Go 1.17 and later)",
			 path);
		return -EPERM;
	}
	if (gb->minor < 17) {
		snprintf(why, len,
			 "%s was built by %s: Go before 1.17 keeps the goroutine outside the "
			 "registers, not traced (rebuild it with Go 1.17 or later)",
			 path, gb->version);
		return -EPERM;
	}
	if (!gb->goid_offset) {
		snprintf(why, len,
			 "%s was built by %s without DWARF, and where that release keeps goroutine "
			 "ids is not known: not traced (rebuild it without -ldflags=-w)",
			 path, gb->version);
		return -EPERM;
	}
	return 0;
}

/* Whether insn compares with the goroutine's stack bound, 0x10(%r14): g.stackguard0. */
static bool is_stack_check(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	if (insn->id != X86_INS_CMP || x->op_count != 2)
		return false;
	for (int i = 0; i < 2; i++)
		if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_R14 &&
		    x->operands[i].mem.index == X86_REG_INVALID && x->operands[i].mem.disp == 0x10)
			return true;
	return false;
}

static bool is_conditional_jump(unsigned id)
{
	switch (id) {
	case X86_INS_JBE:
	case X86_INS_JB:
	case X86_INS_JA:
	case X86_INS_JAE:
	case X86_INS_JLE:
	case X86_INS_JL:
	case X86_INS_JG:
	case X86_INS_JGE:
		return true;
	default:
		return false;
	}
}

uint64_t bc_go_entry_offset(const uint8_t *code, size_t size, uint64_t addr, uint64_t offset)
{
	const uint8_t *p = code;
	uint64_t at = addr, entry = offset;
	bool checked = false;
	size_t left = size;
	cs_insn *insn;
	csh h;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return offset;
	if (cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK || !(insn = cs_malloc(h))) {
		cs_close(&h);
		return offset;
	}
	for (int i = 0; i < STACK_CHECK_WINDOW && left > 0; i++) {
		if (!cs_disasm_iter(h, &p, &left, &at, insn))
			break;
		if (checked) {
			/* the jump to runtime.morestack: the entry is the instruction after it */
			if (is_conditional_jump(insn->id) && left > 0)
				entry = offset + (at - addr);
			break;
		}
		checked = is_stack_check(insn);
	}
	cs_free(insn, 1);
	cs_close(&h);
	return entry;
}

/* Marks f as Go, its entry past the stack check; false with why when it cannot be probed. */
static bool plan_go_function(struct bc_func *f, int fd, uint32_t goid_offset, char *why, size_t len)
{
	uint8_t code[64];
	size_t n = f->size && f->size < sizeof(code) ? (size_t)f->size : sizeof(code);
	ssize_t got = pread(fd, code, n, (off_t)f->offset);
	const char *what = NULL;
	uint64_t entry;

	if (got <= 0) {
		snprintf(why, len, "its code cannot be read");
		return false;
	}
	entry = bc_go_entry_offset(code, (size_t)got, f->addr, f->offset);
	if (entry != f->offset && bc_insn_probeable(code + (entry - f->offset),
						    (size_t)got - (entry - f->offset), &what) < 0) {
		snprintf(why, len, "the instruction after its stack check has a %s", what);
		return false;
	}
	f->probe_offset = entry == f->offset ? 0 : entry;
	f->go_goid_offset = goid_offset;
	return true;
}

struct plan_go {
	enum bc_returns_mode mode;
	char object[4096]; /* the object read last (a copy: a dropped function's is freed) */
	struct bc_go_binary gb;
	int go; /* bc_go_binary_read's answer for it */
	int fd;
	char *err;
	size_t errlen;
};

static int judge_go(void *ctx, struct bc_func *f, char *why, size_t len)
{
	struct plan_go *p = ctx;
	int rc;

	if (strcmp(p->object, f->object) != 0) {
		if (p->fd >= 0)
			close(p->fd);
		p->fd = -1;
		snprintf(p->object, sizeof(p->object), "%s", f->object);
		p->go = bc_go_binary_read(f->object, &p->gb);
		if (p->go > 0 &&
		    (rc = bc_go_binary_check(f->object, &p->gb, p->mode, p->err, p->errlen)) < 0)
			return rc;
		if (p->go > 0 && (p->fd = open(f->object, O_RDONLY | O_CLOEXEC)) < 0)
			p->go = -errno;
	}
	/* not Go, or unreadable (the return sites' plan says so): as it is */
	if (p->go <= 0)
		return 1;
	return plan_go_function(f, p->fd, p->gb.goid_offset, why, len);
}

int bc_functab_plan_go(struct bc_functab *funcs, enum bc_returns_mode mode,
		       void (*warn)(const struct bc_func *f, const char *why), char *err,
		       size_t errlen)
{
	struct plan_go *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return -ENOMEM;
	p->mode = mode;
	p->fd = -1;
	p->err = err;
	p->errlen = errlen;
	rc = bc_functab_filter(funcs, judge_go, p, warn);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
	return rc;
}

int bc_go_explain_stripped(const char *path, char *why, size_t len)
{
	struct bc_go_binary gb;

	if (bc_go_binary_read(path, &gb) <= 0 || gb.has_symtab)
		return 0;
	snprintf(why, len,
		 "%s is Go without a symbol table (built with -ldflags=-s): its functions "
		 "cannot be named; rebuild it without -s",
		 path);
	return 1;
}
