// SPDX-License-Identifier: MIT
/* RTL lines, names and escaping (see bpfcollect/rtl.h, docs/rtl.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/rtl.h"

static bool put(char *out, size_t outlen, size_t *pos, const char *piece, size_t n)
{
	if (*pos + n + 1 > outlen)
		return false;
	memcpy(out + *pos, piece, n);
	*pos += n;
	out[*pos] = '\0';
	return true;
}

bool bc_rtl_escape(char *out, size_t outlen, size_t *pos, const char *s, size_t n,
		   unsigned int flags)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[5];
		size_t k = 0;

		if (c == '\\') {
			k = (size_t)snprintf(esc, sizeof(esc), "\\\\");
		} else if (c == '\n') {
			k = (size_t)snprintf(esc, sizeof(esc), "\\n");
		} else if (c == '\r') {
			k = (size_t)snprintf(esc, sizeof(esc), "\\r");
		} else if (c == '\t') {
			k = (size_t)snprintf(esc, sizeof(esc), "\\t");
		} else if (c < 0x20 || c == 0x7f) {
			k = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", c);
		} else if (i == 0 && (flags & BC_RTL_ESC_BRACE) && (c == '{' || c == '}')) {
			k = (size_t)snprintf(esc, sizeof(esc), "\\%c", c);
		} else if ((flags & BC_RTL_ESC_NAME) && c == ':' && i > 0 && s[i - 1] == ' ' &&
			   (i + 1 == n || s[i + 1] == ' ')) {
			k = (size_t)snprintf(esc, sizeof(esc), "\\:");
		} else {
			esc[0] = (char)c;
			k = 1;
		}
		if (!put(out, outlen, pos, esc, k))
			return false;
	}
	return true;
}

int bc_rtl_qualified(const char *symbol, char *out, size_t len)
{
	char full[1024], name[1024];

	if (bc_demangle_enabled() && bc_demangle(symbol, full, sizeof(full)) == 0)
		bc_demangle_name_part(full, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", symbol);
	if ((size_t)snprintf(out, len, "::%s", name) >= len)
		return -ENOSPC;
	return 0;
}

void bc_rtl_module(const char *object, char *out, size_t len)
{
	const char *base = object ? strrchr(object, '/') : NULL;
	size_t n;

	base = base ? base + 1 : (object ? object : "");
	n = strcspn(base, ".");
	if (!n) {
		snprintf(out, len, "unknown");
		return;
	}
	snprintf(out, len, "%.*s", (int)n, base);
	/* one token: a space would split the name where parsers do not expect */
	for (char *p = out; *p; p++)
		if (*p == ' ' || *p == '(' || *p == ')' || (unsigned char)*p < 0x20)
			*p = '_';
}

int bc_rtl_scope(const char *object, const char *author, const char *symbol, char *out, size_t len)
{
	char module[256], qualified[1100], raw[1600];
	size_t pos = 0;

	bc_rtl_module(object, module, sizeof(module));
	if (bc_rtl_qualified(symbol, qualified, sizeof(qualified)) < 0)
		return -ENOSPC;
	snprintf(raw, sizeof(raw), "%s (%s) %s", module, author, qualified);
	if (!len)
		return -ENOSPC;
	out[0] = '\0';
	return bc_rtl_escape(out, len, &pos, raw, strlen(raw), BC_RTL_ESC_NAME) ? 0 : -ENOSPC;
}

int bc_rtl_message_parse(struct bc_rtl_opts *o, const char *spec, char *err, size_t errlen)
{
	const char *last = strrchr(spec, ':'), *first;
	struct bc_rtl_message_fn *m;
	char *end;
	unsigned long arg;

	if (o->n_messages == BC_RTL_MESSAGES_MAX) {
		snprintf(err, errlen, "--rtl-message: at most %d functions", BC_RTL_MESSAGES_MAX);
		return -EINVAL;
	}
	/*
	 * The function is between the last two lone colons: OBJ may hold colons
	 * of its own, and a C++ FUNC holds "::" ("libfoo:ns::Log::write:2").
	 */
	first = NULL;
	for (const char *p = spec; last && p < last; p++) {
		if (*p != ':')
			continue;
		if (p + 1 < last && p[1] == ':')
			p++;
		else
			first = p;
	}
	if (!last || !first || first == spec || last == first + 1 || !last[1]) {
		snprintf(err, errlen,
			 "--rtl-message takes OBJ:FUNC:ARGN (e.g. libfoo:log_marker:1), not '%s'",
			 spec);
		return -EINVAL;
	}
	errno = 0;
	arg = strtoul(last + 1 + (!strncmp(last + 1, "arg", 3) ? 3 : 0), &end, 10);
	if (errno || *end || arg < 1 || arg > 6 || (size_t)(first - spec) >= sizeof(m->object) ||
	    (size_t)(last - first - 1) >= sizeof(m->func) || strlen(spec) >= sizeof(m->spec)) {
		snprintf(err, errlen,
			 "--rtl-message '%s': the argument is a number from 1 to 6 (arg1..arg6), "
			 "and the names must be shorter",
			 spec);
		return -EINVAL;
	}
	m = &o->messages[o->n_messages++];
	snprintf(m->spec, sizeof(m->spec), "%s", spec);
	snprintf(m->object, sizeof(m->object), "%.*s", (int)(first - spec), spec);
	snprintf(m->func, sizeof(m->func), "%.*s", (int)(last - first - 1), first + 1);
	m->arg = (unsigned int)arg;
	return 0;
}

unsigned int bc_rtl_message_arg(const struct bc_rtl_opts *o, const char *object, const char *name)
{
	char want[256], have[256];

	for (size_t i = 0; i < o->n_messages; i++) {
		const struct bc_rtl_message_fn *m = &o->messages[i];

		/* FUNC as -u takes it: a glob on the symbol or its demangled name */
		if (!bc_sym_glob_match(m->func, name))
			continue;
		/* a path, or a library named as -u names it (libfoo for libfoo.so.1) */
		bc_rtl_module(m->object, want, sizeof(want));
		bc_rtl_module(object, have, sizeof(have));
		if (!strcmp(m->object, object) || !strcmp(want, have))
			return m->arg;
	}
	return 0;
}

size_t bc_rtl_line(char *out, size_t len, uint64_t ms, uint32_t tid, char kind, const char *scope,
		   const char *msg, size_t msglen, bool marker)
{
	char head[64];
	size_t pos = 0;
	int n = snprintf(head, sizeof(head), "%06" PRIu64 " %" PRIu32 " %c ", ms, tid, kind);

	if (len < 3)
		return 0;
	out[0] = '\0';
	/* the head and the colon always fit: a long scope or message is cut instead */
	put(out, len - 2, &pos, head, (size_t)n);
	for (const char *p = scope; *p && pos + 4 < len - 2; p++) {
		size_t k = 1;

		/* never cut an escape in two */
		if (*p == '\\' && p[1] == 'x')
			k = 4;
		else if (*p == '\\' && p[1])
			k = 2;
		if (!put(out, len - 2, &pos, p, k))
			break;
		p += k - 1;
	}
	put(out, len - 1, &pos, " : ", 3);
	bc_rtl_escape(out, len - 1, &pos, msg, msglen, marker ? 0 : BC_RTL_ESC_BRACE);
	out[pos++] = '\n';
	out[pos] = '\0';
	return pos;
}
