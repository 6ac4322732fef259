/* SPDX-License-Identifier: MIT */
/*
 * Inside GTF: the data layout of each record kind, one table that both
 * the sink's encoder (sink_gtf.c) and gtf-dump's decoder (gtf_layout.c)
 * walk, so the two cannot disagree.
 *
 * Every record of ours starts with the same fields: tid (4), depth (4),
 * serial (8), name length (1) and name; the kind's fields follow, each
 * big-endian, in the table's order.
 */
#ifndef BPFCOLLECT_GTF_LAYOUT_H
#define BPFCOLLECT_GTF_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

enum gtf_type {
	GTF_U8,	      /* 1 byte */
	GTF_U16,      /* 2 bytes */
	GTF_U32,      /* 4 bytes */
	GTF_S32,      /* 4 bytes, signed */
	GTF_U64,      /* 8 bytes */
	GTF_S64,      /* 8 bytes, signed */
	GTF_X64,      /* 8 bytes, shown in hex (addresses, flags, raw values) */
	GTF_TOD,      /* 8 bytes: a time of the record (a ktime) as a TOD clock value, 0: none */
	GTF_FILENAME, /* 2-byte length, bytes: exec's file name (length from the record) */
	GTF_IPS,      /* 2-byte count, 8-byte return addresses (count from the record) */
	GTF_IPS_KU,   /* as GTF_IPS, the count two 2-byte fields: kernel + user frames */
	GTF_CAPS, /* 1-byte count, items: source, index, type, flags (1 each), length (2), bytes */
	GTF_ARGS, /* 2-byte length, the command line's words, each ending in NUL */
	GTF_PATH, /* 2-byte length, the path an open was given */
};

struct gtf_field {
	const char *name;
	uint8_t type;	/* enum gtf_type */
	uint16_t off;	/* where the value is in the engine's record */
	uint16_t count; /* GTF_FILENAME, GTF_IPS*: where its length or count is */
};

struct gtf_layout {
	uint16_t eid; /* the record kind */
	uint8_t fid;
	const char *name_says; /* what the common name field holds */
	const struct gtf_field *fields;
	size_t nfields;
};

/* The layout of record kind eid; NULL for one GTF does not write. */
const struct gtf_layout *gtf_layout_of(unsigned int eid);

/* Bytes of the fields before the name: tid, depth, serial, name length. */
#define GTF_COMMON_LEN 17

#endif /* BPFCOLLECT_GTF_LAYOUT_H */
