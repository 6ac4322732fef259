/* SPDX-License-Identifier: MIT */
/*
 * RTL scope logs (docs/rtl.md): one file per process, one line per event,
 *
 *   %d %d %c %s : %s
 *
 * milliseconds since the file's first stamp (at least 6 digits, zero
 * padded), thread id, '{' '}' or '|', scope name, message. The pieces
 * here are pure functions; the sink is user/sinks/rtl/.
 */
#ifndef BPFCOLLECT_RTL_H
#define BPFCOLLECT_RTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A token when no author is given and the login name is unknown. */
#define BC_RTL_DEFAULT_AUTHOR "bpfcollect"
/* The longest line the sink writes (scope and message are cut to fit, whole characters). */
#define BC_RTL_LINE_MAX 4096

enum bc_rtl_escape_flags {
	BC_RTL_ESC_NAME = 1,  /* a scope name: " : " (the separator) is written " \: " */
	BC_RTL_ESC_BRACE = 2, /* a leading '{' or '}' is written "\{" "\}" (not a logical scope) */
};

/*
 * Appends s[0..n) to out (which holds *pos bytes of outlen) with the escaping
 * rule of docs/rtl.md: '\' as "\\", newline "\n", carriage return "\r",
 * tab "\t", other control bytes and DEL "\xHH", plus what flags ask. Stops
 * before a piece that would not fit (out stays NUL-terminated); returns
 * false then.
 */
bool bc_rtl_escape(char *out, size_t outlen, size_t *pos, const char *s, size_t n,
		   unsigned int flags);

/*
 * The fully qualified name of a function symbol with its leading "::":
 * "::name" for C, "::ns::Class::method" for a C++ symbol (demangled, its
 * parameters and qualifiers dropped; "operator()" and templates kept).
 * A symbol that does not demangle, or any with --no-demangle
 * (bc_demangle_set), stays as it is. 0 or -ENOSPC.
 */
int bc_rtl_qualified(const char *symbol, char *out, size_t len);

/* The load object's short name: its file name up to the first '.' ("libc" for libc.so.6). */
void bc_rtl_module(const char *object, char *out, size_t len);

/* "module (author) ::qualified::name", escaped as a scope name. 0 or -ENOSPC. */
int bc_rtl_scope(const char *object, const char *author, const char *symbol, char *out, size_t len);

/*
 * One line with its newline: time (ms since the file's first stamp), tid,
 * kind ('{' '}' '|'), scope (already escaped), message (raw: escaped here,
 * with BC_RTL_ESC_BRACE unless marker). The colon is always written. Cut to
 * len with whole escapes. Returns the length.
 */
size_t bc_rtl_line(char *out, size_t len, uint64_t ms, uint32_t tid, char kind, const char *scope,
		   const char *msg, size_t msglen, bool marker);

#define BC_RTL_MESSAGES_MAX 8

/* --rtl-message OBJ:FUNC:ARGN: a function whose string argument is a message. */
struct bc_rtl_message_fn {
	char spec[512];	  /* as given */
	char object[256]; /* OBJ: a path or a library name */
	char func[256];
	unsigned int arg; /* 1..6 */
};

/* The sink's options (record/convert --rtl-...). */
struct bc_rtl_opts {
	char author[64]; /* --rtl-author: one token; the login name by default */
	bool samples;	 /* --rtl-samples: a `|` line per clock sample */
	struct bc_rtl_message_fn messages[BC_RTL_MESSAGES_MAX];
	size_t n_messages;
};

/* Parses OBJ:FUNC:ARGN (ARGN 1..6 or arg1..arg6) into o. 0, or -EINVAL with one line in err. */
int bc_rtl_message_parse(struct bc_rtl_opts *o, const char *spec, char *err, size_t errlen);

/* Whether the function name in object is one of o's message functions: its argument, else 0. */
unsigned int bc_rtl_message_arg(const struct bc_rtl_opts *o, const char *object, const char *name);

struct bc_sink;

/*
 * The RTL sink: PREFIX_PID.log per process (PREFIX_PID.N.log for the N-th
 * process with that pid), made new (replace: through a temporary file,
 * renamed at the end; never inside protect). NULL with one line in err.
 */
struct bc_sink *bc_rtl_sink_new(const char *prefix, bool replace, const char *protect,
				const struct bc_rtl_opts *o, char *err, size_t errlen);

#endif /* BPFCOLLECT_RTL_H */
