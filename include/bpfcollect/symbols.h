/* SPDX-License-Identifier: MIT */
/*
 * Symbol resolution: turns `-u [OBJ:]GLOB` specs into uprobe targets, one
 * struct bc_func per function entry point, with the file offset the kernel's
 * uprobe API wants.
 *
 * Symbols come from .symtab, or from .dynsym when the object is stripped.
 * Only defined STT_FUNC symbols inside an executable PT_LOAD segment are
 * targets. Never probed: GNU IFUNC resolvers (STT_GNU_IFUNC, and the hidden
 * compat versions of a name whose default version is an IFUNC: probing those
 * would silently count nothing), "*.cold" parts (jumped to, never called),
 * PLT stubs. Names lose their "@VERSION" suffix; two versions of one name
 * are two entries with the same name.
 *
 * Every file read here is untrusted: corrupt ELF files, maps and ld.so.conf
 * give an error, never a crash.
 *
 * All functions return 0 or a negative errno. On error they write ONE line
 * (no trailing newline) into err[errlen] naming the thing and what to do;
 * err may be NULL.
 */
#ifndef BPFCOLLECT_SYMBOLS_H
#define BPFCOLLECT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>

#include "bpfcollect/model.h"

/*
 * Adds to `out` every function matched by `specs`, strings "[OBJ:]GLOB":
 *  - GLOB is an fnmatch(3) pattern on the symbol name, or on a C++/Rust
 *    symbol's demangled name (bc_sym_glob_match: "ns::Class::*",
 *    "f(int)"); one that matches nothing is an error naming it. One that matches only IFUNCs is an
 *    error listing the implementations they select from, the object's
 *    functions named as glibc names them ("__strlen_avx2" for "strlen"),
 *    with the -u that traces them; or saying the object has no symbols
 *    for them (libc.so.6 is stripped of those).
 *  - OBJ is found by bc_symbols_find_object(); without OBJ, the executable.
 *    The separator is the last lone ':' outside a [...] bracket expression,
 *    so "[[:alpha:]]*" and "ns::f" are globs and "/odd:dir/libx.so:f*" a path.
 *  - nspecs == 0 means every function of the executable except PLT stubs,
 *    CRT and compiler helpers (_start, _init, frame_dummy, ...), *.cold parts
 *    and zero-size symbols.
 *
 * exe is the target executable; without a '/' it is looked up in $PATH as
 * execvp(3) would. exe may be NULL when pid > 0 (then /proc/PID/exe). pid > 0
 * means the target runs: OBJ names are looked up in /proc/PID/maps and
 * absolute OBJ paths inside /proc/PID/root.
 *
 * One entry per (object, offset), also against entries already in `out`.
 * Aliases at one address keep one of the names that matched: GLOBAL before
 * WEAK before LOCAL, then the shortest, then the first in the symbol table.
 * Entries are appended per object (in the order specs name them), by offset.
 * bc_func.object is the canonical absolute path of the ELF file.
 *
 * All or nothing: on error, `out` is left as it was.
 */
int bc_symbols_resolve(const char *exe, int pid, const char *const *specs, size_t nspecs,
		       struct bc_functab *out, char *err, size_t errlen);

/* The ':' between OBJ and GLOB in a spec: the last one outside a bracket expression, or NULL. */
const char *bc_spec_separator(const char *spec);
/* true when a spec names its object (OBJ:GLOB with a non-empty OBJ). */
bool bc_spec_has_object(const char *spec);

/*
 * 0 if path is a 64-bit x86-64 ELF file we can probe (ET_EXEC or ET_DYN).
 * Otherwise -ENOEXEC (or -errno from open) and an error line saying what the
 * file is instead (script, linker script, archive, object file, 32-bit, ...).
 */
int bc_elf_check(const char *path, char *err, size_t errlen);

/*
 * Finds a load object and writes its canonical path into path[pathlen].
 * obj is a path if it contains '/' (relative to our cwd; absolute ones inside
 * /proc/PID/root when pid > 0). Otherwise it is matched against basenames,
 * first exactly, then as a prefix followed by '.' or '-' ("libc" finds
 * libc.so.6, "libpthread" libpthread.so.0); two different files matching
 * equally well is an error listing them. The candidates are:
 *  - pid > 0: the executable mappings in /proc/PID/maps;
 *  - otherwise the executable itself and, breadth first, the DT_NEEDED
 *    libraries of it and of those libraries, searched as ld.so does:
 *    DT_RPATH, LD_LIBRARY_PATH, DT_RUNPATH ($ORIGIN expanded), the
 *    directories of /etc/ld.so.conf (with its includes), then
 *    /lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib64, /usr/lib64,
 *    /lib, /usr/lib.
 *  - a library none of those needs (one the program will dlopen) is then
 *    looked for by file name along LD_LIBRARY_PATH, ld.so.conf and the
 *    default directories, as dlopen would; for a running process only when
 *    it shares our root (not in a container).
 */
int bc_symbols_find_object(const char *exe, int pid, const char *obj, char *path, size_t pathlen,
			   char *err, size_t errlen);

#endif /* BPFCOLLECT_SYMBOLS_H */
