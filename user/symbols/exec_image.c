// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpfcollect/exec_image.h"

#define PAGE 4096ULL

/*
 * Adds the PF_X PT_LOAD segments of path, relocated so that the first one's
 * p_vaddr lands at `at` (anchor_on_first) or by `at` (a load base). Reads the
 * PT_INTERP path into interp (may be NULL).
 */
static int add_segments(const char *path, uint64_t at, bool anchor_on_first, uint32_t pid,
			uint64_t ktime, struct bc_exec_maps *out, char *interp, size_t interplen)
{
	uint64_t first_x = UINT64_MAX, bias;
	size_t nphdr;
	Elf *elf = NULL;
	int fd, rc = -ENOEXEC;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (elf_version(EV_CURRENT) == EV_NONE || !(elf = elf_begin(fd, ELF_C_READ, NULL)) ||
	    elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nphdr) != 0)
		goto out;
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_vaddr < first_x)
			first_x = ph.p_vaddr;
		if (ph.p_type == PT_INTERP && interp && ph.p_filesz > 1 &&
		    ph.p_filesz < interplen &&
		    pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz)
			interp[ph.p_filesz - 1] = 0;
	}
	if (first_x == UINT64_MAX)
		goto out;
	bias = anchor_on_first ? at - first_x : at;
	for (size_t i = 0; i < nphdr && out->n < BC_EXEC_MAPS_MAX; i++) {
		GElf_Phdr ph;
		struct bc_mapping *m;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		m = &out->m[out->n++];
		memset(m, 0, sizeof(*m));
		m->pid = pid;
		m->ktime = ktime;
		m->start = (bias + ph.p_vaddr) & ~(PAGE - 1);
		m->end = (bias + ph.p_vaddr + ph.p_memsz + PAGE - 1) & ~(PAGE - 1);
		m->offset = ph.p_offset & ~(PAGE - 1);
		m->prot = PROT_READ | PROT_EXEC;
		m->path = path;
	}
	rc = 0;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

int bc_exec_image_maps(const char *exe, uint64_t code_start, uint64_t interp_base, uint32_t pid,
		       uint64_t ktime, struct bc_exec_maps *out)
{
	char interp[PATH_MAX] = "";
	int rc;

	memset(out, 0, sizeof(*out));
	if (!realpath(exe, out->paths[0]))
		return -errno;
	rc = add_segments(out->paths[0], code_start, true, pid, ktime, out, interp, sizeof(interp));
	if (rc < 0 || !interp_base || !interp[0])
		return rc;
	/* The interpreter is a shared object loaded at AT_BASE; a missing one is not fatal. */
	if (realpath(interp, out->paths[1]))
		add_segments(out->paths[1], interp_base, false, pid, ktime, out, NULL, 0);
	return 0;
}

int bc_exec_interp(const char *exe, char *interp, size_t len)
{
	char raw[PATH_MAX] = "", *real;
	Elf64_Ehdr eh;
	int fd, rc = 0;

	fd = open(exe, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* the headers alone, by pread: no need to read a big program whole */
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_phoff > INT64_MAX / 2) {
		rc = -ENOEXEC;
		goto out;
	}
	for (unsigned int i = 0; i < eh.e_phnum && !raw[0]; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) != sizeof(ph))
			break;
		if (ph.p_type == PT_INTERP && ph.p_filesz > 1 && ph.p_filesz < sizeof(raw) &&
		    ph.p_offset < INT64_MAX &&
		    pread(fd, raw, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz)
			raw[ph.p_filesz - 1] = 0;
	}
	if (!raw[0]) {
		rc = -ENOENT; /* static: no dynamic linker */
		goto out;
	}
	real = realpath(raw, NULL);
	if (!real) {
		rc = -errno;
		goto out;
	}
	if (strlen(real) >= len)
		rc = -ENAMETOOLONG;
	else
		strcpy(interp, real);
	free(real);
out:
	close(fd);
	return rc;
}
