/* SPDX-License-Identifier: MIT */
/*
 * Archives and notes of an experiment (layout: docs/archives.md).
 *
 * bc_archive_experiment copies every ELF load object the founder's and its
 * subexperiments' map.xml name into FOUNDER/archives/ under gprofng's name
 * BASENAME_HASH, so gprofng reads symbols from the copy even after the file
 * changed or went away, and writes next to each copy bpfcollect's own
 * compressed symbol index BASENAME_HASH.bcsyms.gz (gprofng ignores it), so
 * functions can be named even without the copy. Safe to run twice, by two
 * processes at once, and on a live experiment: files appear under their
 * final name only when whole (temp name + rename).
 *
 * Functions return 0 or a negative errno and write one error line into
 * err[errlen] (err may be NULL).
 */
#ifndef BPFCOLLECT_ARCHIVE_H
#define BPFCOLLECT_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* gprofng's NAME_MAX-bounded archive names: at most 255 bytes. */
#define BC_ARCHIVE_NAME_MAX 256
#define BC_ARCHIVE_HASH_LEN 11
/* Suffix of bpfcollect's symbol index next to an archived copy. */
#define BC_ARCHIVE_INDEX_SUFFIX ".bcsyms.gz"

/*
 * gprofng's 64-bit CRC (polynomial x^64+x^11+x^2+x+1, init 0, no final xor)
 * and its 11-character spelling ("0-9a-zA-Z-_", 6 bits at a time, least
 * significant first) into buf[BC_ARCHIVE_HASH_LEN + 1].
 */
uint64_t bc_archive_crc64(const void *data, size_t len);
char *bc_archive_hash_string(char *buf, uint64_t crc);

/*
 * The name gprofng 2.40 looks for in archives/ for the load object at path:
 * BASENAME_HASH(DIRNAME/) ("./" when path has no '/'); a basename longer
 * than 243 bytes is cut to 231 and gets _HASH(BASENAME) after the dir hash.
 * Returns the length, or -EINVAL (empty basename), -ENAMETOOLONG (len).
 */
int bc_archive_name(const char *path, char *name, size_t len);

/*
 * The name of bpfcollect's symbol index for the archive name `name`:
 * NAME.bcsyms.gz, or when that exceeds 255 bytes, NAME cut to 233 bytes,
 * '_' and the hash of NAME, then .bcsyms.gz. Returns 0 or -ENAMETOOLONG.
 */
int bc_archive_index_name(const char *name, char *out, size_t len);

/*
 * The founder of the experiment at exp into out: exp itself (trailing
 * slashes dropped), or for a subexperiment (FOUNDER.er/_NAME.er, which
 * gprofng reads with its founder's archives/) the founder's real path.
 */
int bc_archive_founder(const char *exp, char *out, size_t len);

/* Why an object named in map.xml was not archived. */
enum bc_archive_skip {
	BC_ARCHIVE_SKIP_MISSING,    /* the file is gone (and no copy was made earlier) */
	BC_ARCHIVE_SKIP_UNREADABLE, /* cannot open or read it, or not a regular file */
	BC_ARCHIVE_SKIP_NOT_ELF,    /* no ELF magic: gprofng would break on such a copy */
	BC_ARCHIVE_SKIP_CHANGED,    /* modified after it was mapped, or while copied */
	BC_ARCHIVE_SKIP_CONFLICT,   /* archives/ holds a different ELF file under its name */
	BC_ARCHIVE_SKIP_LIMIT,	    /* copying it would pass the size limit */
	BC_ARCHIVE_NSKIP,
};

/* "missing", "unreadable", "not ELF", "changed", "conflict", "over the limit". */
const char *bc_archive_skip_name(enum bc_archive_skip why);

struct bc_archive_report {
	unsigned int experiments; /* map.xml files read: founder + subexperiments */
	size_t objects;		  /* distinct load objects named */
	bool hits_only;		  /* the policy was BC_ARCHIVE_HITS */
	size_t not_hit;		  /* named, but no stack or probe hit them: left out */
	size_t copied;		  /* copied into archives/ by this run */
	size_t linked;		  /* the same file (build id, size) as another copy: linked to it */
	uint64_t copied_bytes;	  /* bytes this run copied */
	size_t present;		  /* an identical copy was there already */
	size_t indexed;		  /* symbol indexes (re)written by this run */
	size_t skipped;		  /* sum of by_reason */
	size_t by_reason[BC_ARCHIVE_NSKIP];
	char *first_skipped[BC_ARCHIVE_NSKIP]; /* a path skipped for that reason */
	char *notes; /* "PATH: what happened" per skipped object or problem, one per line */
};

/*
 * Archives the experiment at exp_path (a founder, or a subexperiment: then
 * its founder) as described above. Objects that cannot be archived are
 * skipped and described in rep; only a failure to read the experiment or to
 * write into it (-ENOTDIR/-EINVAL not an experiment, -EACCES, -EROFS,
 * -ENOSPC, -EDQUOT, -ENOMEM, ...) is an error. Release rep with
 * bc_archive_report_free whatever this returns.
 */
int bc_archive_experiment(const char *exp_path, struct bc_archive_report *rep, char *err,
			  size_t errlen);

/* Which objects an archive run copies. */
enum bc_archive_policy {
	/* system-wide and kernel experiments (log.xml says so): BC_ARCHIVE_HITS; else ALL */
	BC_ARCHIVE_AUTO,
	BC_ARCHIVE_ALL,	 /* every object map.xml names */
	BC_ARCHIVE_HITS, /* only objects a stack or an entered probe of the data hits */
};

struct bc_archive_opts {
	enum bc_archive_policy policy;
	/*
	 * Copy at most this many bytes (0: no limit). Objects go most-hit
	 * first, so the limit leaves out the least used; links and copies
	 * already there cost nothing.
	 */
	uint64_t limit_bytes;
	/* Called before each object (done of total) and once at the end (done == total). */
	void (*progress)(void *arg, size_t done, size_t total, uint64_t bytes);
	void *progress_arg;
	/*
	 * The founder itself, to open instead of by its name (record's own
	 * experiment, /proc/self/fd/N: bc_exp_create); exp_path still names it.
	 */
	const char *io_path;
};

/* The default limit of what a recording copies into archives/: 256 MiB. */
#define BC_ARCHIVE_DEFAULT_LIMIT (256ull << 20)

/*
 * A size limit as users write it: N, NK, NM or NG (binary units, an
 * optional trailing B or iB), or 0, none or unlimited for no limit.
 * 0 or -EINVAL.
 */
int bc_archive_parse_limit(const char *s, uint64_t *bytes);

/* bc_archive_experiment with a policy, a limit and progress (opts may be NULL: the defaults). */
int bc_archive_experiment_opts(const char *exp_path, const struct bc_archive_opts *opts,
			       struct bc_archive_report *rep, char *err, size_t errlen);
void bc_archive_report_free(struct bc_archive_report *rep);

/* ------------------------------------------------------------ symbol index */

struct bc_archive_sym {
	char *name;
	uint64_t value; /* st_value */
	uint64_t size;
};

/* A PT_LOAD segment: maps file offsets (map.xml foffset + pc - vaddr) to values. */
struct bc_archive_load {
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
	uint32_t flags; /* PF_R | PF_W | PF_X */
};

struct bc_archive_syms {
	char *path;	/* the object's original path */
	char *build_id; /* lowercase hex, "" when the file has none */
	uint64_t size;	/* of the file archived */
	int64_t mtime_ns;
	bool from_dynsym; /* stripped: only exported functions */
	struct bc_archive_load *loads;
	size_t nloads;
	struct bc_archive_sym *syms; /* function symbols, by value */
	size_t nsyms;
};

/*
 * Finds what the experiment (founder or subexperiment) archived for the
 * object at object_path. copy (may be NULL) receives the path of the ELF
 * copy, "" when there is none; *symsp (may be NULL) receives the loaded
 * symbol index, NULL when there is none. Returns 0 when either exists,
 * -ENOENT when neither does, another negative errno (a corrupt index: -EBADMSG)
 * with err set.
 */
int bc_archive_lookup(const char *exp_path, const char *object_path, char *copy, size_t copylen,
		      struct bc_archive_syms **symsp, char *err, size_t errlen);

/* Reads one index file (untrusted: every line checked, sizes capped). */
int bc_archive_syms_load(const char *index_path, struct bc_archive_syms **symsp, char *err,
			 size_t errlen);
void bc_archive_syms_free(struct bc_archive_syms *syms);

/* The function containing value (value < sym.value + max(size, 1)), or NULL. */
const struct bc_archive_sym *bc_archive_syms_find(const struct bc_archive_syms *syms,
						  uint64_t value);

/* Converts a file offset to a value through the PT_LOAD segments; false if none holds it. */
bool bc_archive_syms_offset_to_value(const struct bc_archive_syms *syms, uint64_t offset,
				     uint64_t *value);

/*
 * Reads the ELF file at elf_path and writes its index to index_path,
 * relative to dirfd (AT_FDCWD: a path), via a temp name + rename, never
 * through a link; records object_path and the given size and mtime of the
 * original. Used by bc_archive_experiment; exposed for tests.
 */
int bc_archive_index_write(const char *elf_path, int dirfd, const char *index_path,
			   const char *object_path, uint64_t size, int64_t mtime_ns, char *err,
			   size_t errlen);

/* ------------------------------------------------------------------- notes */

/* At most this much of EXP/notes is read back. */
#define BC_NOTES_MAX (64u << 10)

/*
 * Appends comments to EXP/notes, one per line (control characters in a
 * comment become spaces), creating the file if needed, in one write.
 * gprofng prints the notes at the top of `display text -header`.
 */
/*
 * Gives the experiment to_exp (a conversion of from_exp) from_exp's
 * archives/ and notes: hard links where they can be, else copies. 0, or
 * -errno with one line in err.
 */
int bc_archive_carry(const char *from_exp, const char *to_exp, char *err, size_t errlen);

int bc_notes_write(const char *exp_path, const char *const *comments, size_t n, char *err,
		   size_t errlen);

/*
 * Malloc'ed text of EXP/notes, at most BC_NOTES_MAX bytes, or NULL (errno
 * set) when there is no notes file, it is empty or not a regular file.
 */
char *bc_notes_read(const char *exp_path);

#endif /* BPFCOLLECT_ARCHIVE_H */
