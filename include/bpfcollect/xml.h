/* SPDX-License-Identifier: MIT */
/*
 * The XML dialect of gprofng experiments (log.xml, map.xml), both ways.
 *
 * gprofng's reader (SAXParserFactory.cc) is not a full XML parser: it reads
 * a sequence of top-level elements, decodes the five named entities and
 * `%XX%` hex escapes, and treats a torn element at EOF as fatal. The writer
 * side therefore escapes `%` too (as `%25%`), and control characters as
 * `%xx%`, so any byte string survives a round trip through gprofng and us.
 *
 * The tokenizer reads what bpfcollect writes and what libcollector writes:
 * elements with attributes and direct text, nested elements reported with
 * their depth. It never trusts its input: every failure is an error with a
 * line number, never a crash or an unbounded allocation. It reads a buffer
 * in memory, or streams a file through a window of its own that holds the
 * element being read: a map.xml of a million dlopens is hundreds of MB, and
 * reading it costs what its longest element does.
 */
#ifndef BPFCOLLECT_XML_H
#define BPFCOLLECT_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Writes src escaped for an attribute value or element text into dst (at
 * most dstlen bytes including the NUL; dst may be NULL when dstlen is 0).
 * Returns the length the full escaped string needs, without the NUL, like
 * snprintf: a result >= dstlen means dst was truncated.
 */
size_t bc_xml_escape(char *dst, size_t dstlen, const char *src);

/* Malloc'ed escaped copy of src, or NULL when out of memory. */
char *bc_xml_escape_dup(const char *src);

/*
 * Decodes `n` bytes of attribute value or text (entities, `&#N;`, `%XX%`)
 * into dst, which must hold n + 1 bytes (decoding never grows a string).
 * Returns the decoded length. Unknown escapes are kept literally.
 */
size_t bc_xml_decode(char *dst, const char *src, size_t n);

/*
 * Timestamps in tstamp attributes: "S.NNNNNNNNN". gprofng reads the
 * fraction as an integer count of ns, so the writer always gives 9 digits
 * ("0.5" would mean 5 ns) and the parser follows gprofng.
 */
#define BC_XML_TSTAMP_LEN 32
char *bc_xml_format_tstamp(char buf[BC_XML_TSTAMP_LEN], uint64_t ns);
bool bc_xml_parse_tstamp(const char *s, uint64_t *ns);

struct bc_xml_attr {
	const char *name;
	const char *value; /* decoded */
};

struct bc_xml_elem {
	const char *name;
	const struct bc_xml_attr *attrs;
	size_t nattrs;
	const char *text;   /* decoded text before the first child or end tag; "" if none */
	unsigned int depth; /* 0 for a top-level element */
	unsigned int line;  /* line of its '<', from 1 */
};

#define BC_XML_MAX_DEPTH 16
/*
 * A streamed file's window starts at BC_XML_WINDOW bytes (less for a
 * smaller file) and grows to hold the construct being read (a tag with
 * its text, a comment) up to BC_XML_MAX_WINDOW: past it the input is
 * refused. bpfcollect's longest elements are log.xml's command lines.
 */
#define BC_XML_WINDOW	  (128u << 10)
#define BC_XML_MAX_WINDOW (64u << 20)

struct bc_xml {
	const char *buf; /* the input, or a streamed file's window */
	size_t len;
	size_t pos;
	unsigned int line;
	/* names of open (non-leaf) elements, copied: a window moves */
	char *open_name[BC_XML_MAX_DEPTH];
	size_t open_len[BC_XML_MAX_DEPTH];
	unsigned int depth;
	/* a streamed file: the window buf points to, and what is left to read */
	char *win;
	size_t win_cap;
	int fd;	       /* -1 when nothing is left to read */
	uint64_t left; /* bytes of the file not read yet */
	size_t chunk;  /* most bytes one read() asks for; 0: as many as fit */
	bool more;     /* buf does not hold the rest of the input */
	/* decoded strings and attributes of the element last returned */
	char *arena;
	size_t arena_cap;
	struct bc_xml_attr *attrs;
	size_t attrs_cap;
	char errmsg[160];
	unsigned int errline;
};

/* Parses buf[0..len) in place; buf must stay valid while the parser is used. */
void bc_xml_init(struct bc_xml *x, const char *buf, size_t len);
/*
 * Streams the first `limit` bytes of fd (from its current offset; a file
 * that turns out shorter ends where it does). x owns fd from here on: it
 * is closed at the end of input or by bc_xml_fini, whatever happens.
 */
void bc_xml_init_fd(struct bc_xml *x, int fd, uint64_t limit);
void bc_xml_fini(struct bc_xml *x);

/*
 * Next element in document order. Returns 1 with *e filled (valid until the
 * next call), 0 at a clean end of input, -ENODATA when the input ends inside
 * a tag or an open element (a torn append: the writer may still be at
 * work), -EINVAL on a syntax error or a construct longer than
 * BC_XML_MAX_WINDOW in a streamed file, -ENOMEM, or a streamed file's read
 * error (-EIO, ...). On a negative return bc_xml_error() describes the
 * problem and its line. Whether input is streamed or not, and however its
 * reads are cut, the elements and errors are the same.
 */
int bc_xml_next(struct bc_xml *x, struct bc_xml_elem *e);
const char *bc_xml_error(const struct bc_xml *x, unsigned int *line);

/* Value of attribute name, or NULL. */
const char *bc_xml_attr(const struct bc_xml_elem *e, const char *name);

#endif /* BPFCOLLECT_XML_H */
