// SPDX-License-Identifier: MIT
/*
 * Reading ELF files for symbol resolution (see elf_symbols.h): opening a
 * file safely, its executable segments, its function symbols, and which of
 * them are probe-able.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/elf_symbols.h"
#include "bpfcollect/symbols.h"
#include "bpfcollect/symutil.h"

/* Functions every executable gets from crt*.o and the toolchain, not from its author. */
static const char *const crt_helpers[] = {
	"_start",
	"_init",
	"_fini",
	"__libc_csu_init",
	"__libc_csu_fini",
	"deregister_tm_clones",
	"register_tm_clones",
	"__do_global_dtors_aux",
	"frame_dummy",
	"_dl_relocate_static_pie",
};

/* --------------------------------------------------------------------- ELF */

/* Says what a file that is not ELF is, since "not ELF" alone rarely helps. */
static void describe_non_elf(int fd, const char *path, char *err, size_t errlen)
{
	char head[256];
	ssize_t len = pread(fd, head, sizeof(head) - 1, 0);

	head[len > 0 ? len : 0] = '\0';
	if (head[0] == '#' && head[1] == '!')
		bc_set_err(err, errlen,
			   "%s: not an ELF file but a '#!' script; trace its interpreter or the "
			   "program it runs",
			   path);
	else if (strstr(head, "GNU ld script") || !strncmp(head, "INPUT", 5) ||
		 !strncmp(head, "GROUP", 5))
		bc_set_err(err, errlen,
			   "%s: not an ELF file but a linker script; name the library it points to "
			   "(e.g. libc.so.6)",
			   path);
	else
		bc_set_err(err, errlen, "%s: not an ELF file", path);
}

static int check_elf(Elf *elf, int fd, const char *path, char *err, size_t errlen)
{
	GElf_Ehdr ehdr;

	switch (elf_kind(elf)) {
	case ELF_K_ELF:
		break;
	case ELF_K_AR:
		bc_set_err(
			err, errlen,
			"%s: an ar archive (static library), not an executable or shared library",
			path);
		return -ENOEXEC;
	default:
		describe_non_elf(fd, path, err, errlen);
		return -ENOEXEC;
	}
	if (gelf_getclass(elf) != ELFCLASS64) {
		bc_set_err(
			err, errlen,
			"%s: a 32-bit ELF file; only 64-bit x86-64 programs and libraries can be "
			"traced",
			path);
		return -ENOEXEC;
	}
	if (!gelf_getehdr(elf, &ehdr)) {
		bc_set_err(err, errlen, "%s: corrupt ELF header: %s", path, elf_errmsg(-1));
		return -ENOEXEC;
	}
	if (ehdr.e_machine != EM_X86_64) {
		bc_set_err(err, errlen,
			   "%s: an ELF file for another machine (e_machine %u), not x86-64", path,
			   ehdr.e_machine);
		return -ENOEXEC;
	}
	switch (ehdr.e_type) {
	case ET_EXEC:
	case ET_DYN:
		return 0;
	case ET_REL:
		bc_set_err(
			err, errlen,
			"%s: a relocatable object (.o), not an executable or shared library; link "
			"it first",
			path);
		break;
	case ET_CORE:
		bc_set_err(err, errlen, "%s: a core dump, not an executable or shared library",
			   path);
		break;
	default:
		bc_set_err(err, errlen,
			   "%s: ELF type %u is neither an executable nor a shared library", path,
			   ehdr.e_type);
		break;
	}
	return -ENOEXEC;
}

void bc_elf_file_close(struct bc_elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Opens path as an ELF file we can probe (see bc_elf_check). */
int bc_elf_file_open(struct bc_elf_file *f, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	f->fd = -1;
	f->elf = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		bc_set_err(err, errlen, "libelf is too old: %s", elf_errmsg(-1));
		return -ENOTSUP;
	}
	/* O_NONBLOCK: a path from an experiment may name a FIFO; it must not hang the open */
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (f->fd < 0) {
		ret = -errno;
		bc_set_err(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(f->fd, &st)) {
		ret = -errno;
		bc_set_err(err, errlen, "%s: %s", path, strerror(-ret));
		goto err_out;
	}
	if (!S_ISREG(st.st_mode)) {
		bc_set_err(err, errlen, "%s: not a regular file", path);
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -ENOEXEC;
		goto err_out;
	}
	f->size = (uint64_t)st.st_size;
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf) {
		bc_set_err(err, errlen, "%s: cannot read: %s", path, elf_errmsg(-1));
		ret = -EIO;
		goto err_out;
	}
	ret = check_elf(f->elf, f->fd, path, err, errlen);
	if (ret)
		goto err_out;
	return 0;

err_out:
	bc_elf_file_close(f);
	return ret;
}

int bc_elf_check(const char *path, char *err, size_t errlen)
{
	struct bc_elf_file f;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!path || !*path) {
		bc_set_err(err, errlen, "empty file name");
		return -EINVAL;
	}
	ret = bc_elf_file_open(&f, path, err, errlen);
	if (!ret)
		bc_elf_file_close(&f);
	return ret;
}

/* A PT_LOAD segment with PF_X: where code lives, in memory and in the file. */
struct exec_seg {
	uint64_t vaddr;
	uint64_t filesz;
	uint64_t offset;
};

static int read_exec_segments(struct bc_elf_file *f, const char *path, struct exec_seg **segsp,
			      size_t *nsegsp, char *err, size_t errlen)
{
	struct exec_seg *segs = NULL;
	size_t phnum, nsegs = 0;

	if (elf_getphdrnum(f->elf, &phnum)) {
		bc_set_err(err, errlen, "%s: corrupt program headers: %s", path, elf_errmsg(-1));
		return -ENOEXEC;
	}
	for (size_t i = 0; i < phnum && i <= INT_MAX; i++) {
		GElf_Phdr ph;
		struct exec_seg *grown;

		if (!gelf_getphdr(f->elf, (int)i, &ph)) {
			bc_set_err(err, errlen, "%s: corrupt program header %zu: %s", path, i,
				   elf_errmsg(-1));
			free(segs);
			return -ENOEXEC;
		}
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		/* A segment reaching past the file (or wrapping) is corrupt: ignore it. */
		if (ph.p_offset > f->size || ph.p_filesz > f->size - ph.p_offset ||
		    ph.p_vaddr + ph.p_filesz < ph.p_vaddr)
			continue;
		grown = realloc(segs, (nsegs + 1) * sizeof(*segs));
		if (!grown) {
			free(segs);
			return -ENOMEM;
		}
		segs = grown;
		segs[nsegs].vaddr = ph.p_vaddr;
		segs[nsegs].filesz = ph.p_filesz;
		segs[nsegs].offset = ph.p_offset;
		nsegs++;
	}
	*segsp = segs;
	*nsegsp = nsegs;
	return 0;
}

static const struct exec_seg *find_exec_seg(const struct exec_seg *segs, size_t nsegs,
					    uint64_t addr)
{
	for (size_t i = 0; i < nsegs; i++)
		if (addr >= segs[i].vaddr && addr - segs[i].vaddr < segs[i].filesz)
			return &segs[i];
	return NULL;
}

/* ----------------------------------------------------------------- symbols */

void bc_elf_object_free(struct bc_elf_object *obj)
{
	if (!obj)
		return;
	for (size_t i = 0; i < obj->nsyms; i++)
		free(obj->syms[i].name);
	free(obj->syms);
	free(obj->path);
	free(obj);
}

static struct bc_elf_sym *object_add_sym(struct bc_elf_object *obj, const char *name,
					 size_t namelen)
{
	struct bc_elf_sym *s;

	if (obj->nsyms == obj->cap) {
		size_t cap = obj->cap ? obj->cap * 2 : 256;
		struct bc_elf_sym *v = realloc(obj->syms, cap * sizeof(*v));

		if (!v)
			return NULL;
		obj->syms = v;
		obj->cap = cap;
	}
	s = &obj->syms[obj->nsyms];
	memset(s, 0, sizeof(*s));
	s->name = strndup(name, namelen);
	if (!s->name)
		return NULL;
	obj->nsyms++;
	return s;
}

/* GCC's out-of-line unlikely parts: "foo.cold", older GCC "foo.cold.12". */
static bool is_cold_part(const char *name)
{
	for (const char *p = strstr(name, ".cold"); p; p = strstr(p + 1, ".cold"))
		if (p[5] == '\0' || p[5] == '.' || p[5] == '@')
			return true;
	return false;
}

static bool is_crt_helper(const char *name)
{
	if (!strncmp(name, "__x86.get_pc_thunk.", 19))
		return true;
	for (size_t i = 0; i < sizeof(crt_helpers) / sizeof(crt_helpers[0]); i++)
		if (!strcmp(name, crt_helpers[i]))
			return true;
	return false;
}

/* Symbols some linkers put on PLT entries: stubs that jump elsewhere. */
static bool in_plt_section(Elf *elf, size_t shstrndx, size_t shndx)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	const char *name;

	if (shstrndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return false;
	scn = elf_getscn(elf, shndx);
	if (!scn || !gelf_getshdr(scn, &sh))
		return false;
	name = elf_strptr(elf, shstrndx, sh.sh_name);
	return name && (!strncmp(name, ".plt", 4) || !strcmp(name, ".iplt"));
}

static int read_symbols(struct bc_elf_file *f, const char *path, Elf_Scn *symscn, Elf_Scn *verscn,
			const struct exec_seg *segs, size_t nsegs, struct bc_elf_object *obj,
			char *err, size_t errlen)
{
	size_t entsize = gelf_fsize(f->elf, ELF_T_SYM, 1, EV_CURRENT);
	Elf_Data *data, *vdata = NULL;
	size_t shstrndx, nsyms;
	GElf_Shdr sh;

	if (!gelf_getshdr(symscn, &sh) || !(data = elf_getdata(symscn, NULL)) || !entsize ||
	    (data->d_size && !data->d_buf)) {
		bc_set_err(err, errlen, "%s: corrupt symbol table: %s", path, elf_errmsg(-1));
		return -ENOEXEC;
	}
	/* Without section names we only lose the PLT check. */
	if (elf_getshdrstrndx(f->elf, &shstrndx))
		shstrndx = SHN_UNDEF;
	/* Version info is a refinement; a broken .gnu.version is ignored. */
	if (verscn) {
		vdata = elf_getdata(verscn, NULL);
		if (vdata && vdata->d_size && !vdata->d_buf)
			vdata = NULL;
	}
	nsyms = data->d_size / entsize;
	if (nsyms > INT_MAX)
		nsyms = INT_MAX;

	for (size_t i = 1; i < nsyms; i++) {
		const struct exec_seg *seg;
		const char *name, *at;
		struct bc_elf_sym *s;
		GElf_Versym vs;
		uint64_t offset;
		GElf_Sym sym;
		int type;

		if (!gelf_getsym(data, (int)i, &sym)) {
			bc_set_err(err, errlen, "%s: corrupt symbol %zu: %s", path, i,
				   elf_errmsg(-1));
			return -ENOEXEC;
		}
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		name = elf_strptr(f->elf, sh.sh_link, sym.st_name);
		if (!name || !*name || *name == '@')
			continue;
		seg = find_exec_seg(segs, nsegs, sym.st_value);
		if (!seg)
			continue;
		offset = sym.st_value - seg->vaddr + seg->offset;
		if (offset < seg->offset || offset >= f->size)
			continue;
		at = strchr(name, '@');
		if (at && !strcmp(at, "@plt"))
			continue;
		/* Parts are never entry points; dropped here so no mode sees them. */
		if (is_cold_part(name) || in_plt_section(f->elf, shstrndx, sym.st_shndx))
			continue;

		s = object_add_sym(obj, name, at ? (size_t)(at - name) : strlen(name));
		if (!s)
			return -ENOMEM;
		s->addr = sym.st_value;
		s->size = sym.st_size;
		s->offset = offset;
		s->order = (uint32_t)i;
		s->bind = GELF_ST_BIND(sym.st_info);
		s->ifunc = type == STT_GNU_IFUNC;
		/* .symtab spells versions in the name, .dynsym in .gnu.version. */
		if (at)
			s->hidden = at[1] != '@';
		else if (vdata && gelf_getversym(vdata, (int)i, &vs))
			s->hidden = (vs & 0x8000) != 0;
		s->helper = !sym.st_size || is_crt_helper(s->name);
	}
	return 0;
}

/*
 * "memcpy@GLIBC_2.2.5" is a FUNC but only binaries linked before 2.14 call
 * it; today's callers bind to the "memcpy@@GLIBC_2.14" IFUNC. Probing the
 * compat version alone would show no calls, so a name whose default version
 * is an IFUNC is not probed at all: its compat versions count as IFUNCs.
 */
static void mark_ifunc_compat_versions(struct bc_elf_object *obj)
{
	for (size_t i = 0; i < obj->nsyms; i++) {
		if (!obj->syms[i].ifunc || obj->syms[i].hidden)
			continue;
		for (size_t j = 0; j < obj->nsyms; j++)
			if (obj->syms[j].hidden && !strcmp(obj->syms[j].name, obj->syms[i].name))
				obj->syms[j].ifunc = true;
	}
}

int bc_elf_object_load(const char *path, struct bc_elf_object **objp, char *err, size_t errlen)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL, *versym = NULL;
	struct bc_elf_object *obj = NULL;
	struct exec_seg *segs = NULL;
	struct bc_elf_file f;
	size_t nsegs = 0;
	int ret;

	ret = bc_elf_file_open(&f, path, err, errlen);
	if (ret)
		return ret;
	ret = read_exec_segments(&f, path, &segs, &nsegs, err, errlen);
	if (ret)
		goto out;
	obj = calloc(1, sizeof(*obj));
	if (!obj || !(obj->path = strdup(path))) {
		ret = -ENOMEM;
		goto out;
	}
	if (elf_getshdrstrndx(f.elf, &shstrndx) < 0)
		shstrndx = SHN_UNDEF;
	while ((scn = elf_nextscn(f.elf, scn))) {
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh)) {
			bc_set_err(err, errlen, "%s: corrupt section header: %s", path,
				   elf_errmsg(-1));
			ret = -ENOEXEC;
			goto out;
		}
		name = shstrndx != SHN_UNDEF ? elf_strptr(f.elf, shstrndx, sh.sh_name) : NULL;
		/* a sample in a PLT stub is its caller's (the stub keeps no frame) */
		if (name && sh.sh_type == SHT_PROGBITS && !strncmp(name, ".plt", 4) &&
		    obj->nplt < sizeof(obj->plt) / sizeof(obj->plt[0])) {
			obj->plt[obj->nplt][0] = sh.sh_offset;
			obj->plt[obj->nplt++][1] = sh.sh_offset + sh.sh_size;
		}
		if (sh.sh_type == SHT_SYMTAB && !symtab)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM && !dynsym)
			dynsym = scn;
		else if (sh.sh_type == SHT_GNU_versym && !versym)
			versym = scn;
	}
	/* .symtab has everything, static functions too; stripped files keep .dynsym. */
	if (symtab) {
		ret = read_symbols(&f, path, symtab, NULL, segs, nsegs, obj, err, errlen);
	} else if (dynsym) {
		obj->from_dynsym = true;
		ret = read_symbols(&f, path, dynsym, versym, segs, nsegs, obj, err, errlen);
	}
	if (ret)
		goto out;
	mark_ifunc_compat_versions(obj);
	*objp = obj;
	obj = NULL;
out:
	if (ret == -ENOMEM)
		bc_set_err(err, errlen, "%s: out of memory reading symbols", path);
	bc_elf_object_free(obj);
	free(segs);
	bc_elf_file_close(&f);
	return ret;
}
