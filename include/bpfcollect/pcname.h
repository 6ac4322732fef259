/* SPDX-License-Identifier: MIT */
/*
 * Naming PCs the way gprofng names them, so reports and gprofng agree
 * function by function. A user PC is named through the mapping live in an
 * experiment's map.xml (file offset = offset + pc - start) and the function
 * symbols of that file (its copy in the experiment's archives/ first): the
 * shortest alias at the symbol's offset (then the first); a PC past the end
 * of the symbol before it is <static>@0xOFF of that symbol's end; a PC in no
 * symbol of a readable file is <static>@0xOFF of the file offset. A kernel
 * PC is vmlinux`NAME or MODULE`NAME through kallmodsyms. A PC in no known
 * mapping or kernel symbol is the single <Unknown> (object <Unknown>).
 */
#ifndef BPFCOLLECT_PCNAME_H
#define BPFCOLLECT_PCNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpfcollect/containers.h"
#include "bpfcollect/model.h"
#include "bpfcollect/profile_data.h"

/* PCs at or above this are kernel text. */
#define BC_KERNEL_SPACE 0xffff800000000000ULL

/*
 * One file mapping of an experiment's map.xml, with every time the same
 * range of the same file was mapped again (a library dlopened in a loop).
 */
struct bc_segment {
	uint64_t start, end, offset;
	uint64_t ktime; /* the first time it was mapped */
	const char *path;
	uint64_t *later; /* the times it was mapped again, ascending; NULL: none */
	size_t n_later, cap_later;
};

/*
 * The segments of one experiment, in map.xml order, each distinct one
 * once: memory grows with the distinct mappings (and 8 bytes a repeat),
 * not with the file.
 */
struct bc_segments {
	struct bc_segment *v;
	size_t n;
	size_t cap;
	struct bc_idmap index; /* hash of start, end, offset, path -> index in v */
	struct bc_strtab paths;
};

/*
 * Reads the segments of the experiment at exp (its map.xml, through
 * bc_er_read). 0, or -errno with one line in err. Free with
 * bc_segments_free whatever it returned.
 */
int bc_segments_read(const char *exp, struct bc_segments *segs, char *err, size_t errlen);
/*
 * Adds one map.xml entry (unmaps and pathless entries are skipped): for a
 * sink that reads an experiment's events and its segments in one pass. -ENOMEM.
 */
int bc_segments_add(struct bc_segments *segs, const struct bc_mapping *m);
void bc_segments_free(struct bc_segments *segs);
/*
 * True when no two segments overlap, so a user PC names the same function
 * whatever the time: a caller may then cache names by PC.
 */
bool bc_segments_timeless(const struct bc_segments *segs);

struct bc_pcname_elf; /* one cached object file */

/*
 * The namer: the function symbols of every object file it has named a PC
 * in, by path, shared across the experiments of a tree. Zero it to start.
 */
struct bc_pcnamer {
	struct bc_pcname_elf *elves;
	size_t n_elves;
	char buf[640]; /* names built for the last call */
};

void bc_pcnamer_free(struct bc_pcnamer *n);

/*
 * Names pc of the experiment at exp (whose segments are segs; ks its
 * kernel symbols, may be empty) at time when (CLOCK_MONOTONIC ns: among
 * mappings of pc, the latest made by then is used, else the first). *name and
 * *object stay valid until the next bc_pcname on n, bc_pcnamer_free(n) or
 * bc_segments_free(segs), whichever comes first: copy them to keep them.
 * *object is the file's base name, "vmlinux" or "<Unknown>". 0, 1 when pc
 * is in a PLT stub (which keeps no frame: gprofng counts a sample there as
 * its caller's), 2 for a kernel pc before or after every function gprofng
 * knows (<Unknown>: gprofng shows no such frame), or -ENOMEM.
 */
int bc_pcname(struct bc_pcnamer *n, const char *exp, const struct bc_segments *segs,
	      const struct bc_ksyms *ks, uint64_t pc, uint64_t when, const char **name,
	      const char **object);

/*
 * Functions by (name, object): each distinct pair gets the next index from
 * 0, found again through a hash table. Zero it to start.
 */
struct bc_fnkey {
	char *name;
	char *object;
};

struct bc_fnindex {
	struct bc_fnkey *v; /* by index; owned */
	size_t n, cap;
	uint32_t *slots; /* hash table: index + 1, 0 when free */
	size_t n_slots;	 /* power of 2 */
};

/* The index of (name, object), added when new; -ENOMEM. */
int bc_fnindex_get(struct bc_fnindex *ix, const char *name, const char *object);
void bc_fnindex_free(struct bc_fnindex *ix);

#endif
