/* SPDX-License-Identifier: MIT */
/*
 * Reading GTF user records back (`bpfcollect gtf-dump`, docs/gtf.md): any
 * file of records in the seed's layout, ours or another program's. Every
 * record is printed with its header decoded; split series are joined into
 * one logical record; events of bpfcollect's FIDs are decoded. Every input
 * is untrusted: a truncated file, a bad length, a series with a record
 * missing, a wrong total length or a record of another series in its
 * middle, are problems, reported with the byte offset, and never a crash.
 */
#ifndef BPFCOLLECT_GTF_DUMP_H
#define BPFCOLLECT_GTF_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum bc_gtf_charset {
	BC_GTF_CHARSET_AUTO, /* EBCDIC when a job name looks so (bc_gtf_jobname_is_ebcdic) */
	BC_GTF_CHARSET_ASCII,
	BC_GTF_CHARSET_EBCDIC,
};

struct bc_gtf_dump_opts {
	bool no_hex;   /* headers and decoded events only */
	bool no_parts; /* no line per record of a series, the joined record only */
	enum bc_gtf_charset charset;
	size_t max_problems; /* reported on err at most (all are counted); 0: 1000 */
};

struct bc_gtf_dump_stats {
	uint64_t records; /* physical records read */
	uint64_t events;  /* logical records: whole ones and complete series */
	uint64_t series;  /* complete split series among them */
	uint64_t problems;
};

/*
 * Prints buf[len] (the contents of file `name`) to out, one block per
 * logical record, and each problem to err as "NAME: offset 0xOFF: WHAT".
 * Returns the number of problems (also in st).
 */
uint64_t bc_gtf_dump(const uint8_t *buf, size_t len, const char *name,
		     const struct bc_gtf_dump_opts *o, FILE *out, FILE *err,
		     struct bc_gtf_dump_stats *st);

#endif /* BPFCOLLECT_GTF_DUMP_H */
