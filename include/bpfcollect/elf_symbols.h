/* SPDX-License-Identifier: MIT */
/*
 * Reading ELF files for symbol resolution (internal; the API is symbols.h):
 * opening a file safely, its executable PT_LOAD segments, its function
 * symbols from .symtab or .dynsym with their file offsets, and which of them
 * are probe-able (see symbols.h for the rules).
 *
 * Files are read with libelf in ELF_C_READ mode, not mmap: a file truncated
 * while we read it must give an error, not SIGBUS. Every count and index that
 * comes from a file is checked before use.
 *
 * Functions return 0 or a negative errno and write one error line into
 * err[errlen] (err may be NULL).
 */
#ifndef BPFCOLLECT_ELF_SYMBOLS_H
#define BPFCOLLECT_ELF_SYMBOLS_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An open ELF file we can probe: 64-bit x86-64, ET_EXEC or ET_DYN. */
struct bc_elf_file {
	int fd;
	Elf *elf;
	uint64_t size;
};

/* Opens path as an ELF file we can probe (see bc_elf_check). */
int bc_elf_file_open(struct bc_elf_file *f, const char *path, char *err, size_t errlen);
void bc_elf_file_close(struct bc_elf_file *f);

/* A function symbol inside an executable segment. */
struct bc_elf_sym {
	char *name; /* without @VERSION */
	uint64_t addr;
	uint64_t size;
	uint64_t offset;
	uint32_t order; /* index in the symbol table: "first" among aliases */
	unsigned char bind;
	bool ifunc;    /* not probed: an IFUNC, or a compat version of an IFUNC's name */
	bool hidden;   /* a non-default version (name@VER, not name@@VER) */
	bool helper;   /* left out when no spec is given */
	bool selected; /* for the caller: to be emitted */
};

/* The function symbols of one ELF file. */
struct bc_elf_object {
	char *path; /* canonical */
	struct bc_elf_sym *syms;
	size_t nsyms;
	size_t cap;
	bool from_dynsym; /* no .symtab (stripped): only exported symbols are known */
	/* the PLT sections (.plt, .plt.got, .plt.sec): [start, end) file offsets */
	uint64_t plt[4][2];
	size_t nplt;
};

/*
 * Reads the function symbols of the ELF file at path (canonical) into a new
 * object: .symtab when there is one, else .dynsym. "*.cold" parts and PLT
 * stubs are left out; IFUNCs are kept, marked.
 */
int bc_elf_object_load(const char *path, struct bc_elf_object **objp, char *err, size_t errlen);
void bc_elf_object_free(struct bc_elf_object *obj);

#endif /* BPFCOLLECT_ELF_SYMBOLS_H */
