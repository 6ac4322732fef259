// SPDX-License-Identifier: MIT
/* Escaping and a small tokenizer for gprofng's XML dialect (see xml.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/xml.h"

#define NSEC_PER_SEC 1000000000ULL

static const char hexdig[] = "0123456789abcdef";

size_t bc_xml_escape(char *dst, size_t dstlen, const char *src)
{
	size_t n = 0;

#define PUT(c)                                                                                     \
	do {                                                                                       \
		if (n + 1 < dstlen)                                                                \
			dst[n] = (c);                                                              \
		n++;                                                                               \
	} while (0)
#define PUTS(s)                                                                                    \
	do {                                                                                       \
		for (const char *_s = (s); *_s; _s++)                                              \
			PUT(*_s);                                                                  \
	} while (0)

	for (const unsigned char *p = (const unsigned char *)src; *p; p++) {
		switch (*p) {
		case '&':
			PUTS("&amp;");
			break;
		case '<':
			PUTS("&lt;");
			break;
		case '>':
			PUTS("&gt;");
			break;
		case '"':
			PUTS("&quot;");
			break;
		case '%':
			/* gprofng decodes %XX% everywhere: a bare % could eat text */
			PUTS("%25%");
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				/* gprofng wants lowercase hex; newlines would break line-wise tools
				 */
				PUT('%');
				PUT(hexdig[*p >> 4]);
				PUT(hexdig[*p & 15]);
				PUT('%');
			} else {
				PUT((char)*p);
			}
		}
	}
	if (dstlen)
		dst[n < dstlen ? n : dstlen - 1] = '\0';
	return n;
#undef PUT
#undef PUTS
}

char *bc_xml_escape_dup(const char *src)
{
	size_t n = bc_xml_escape(NULL, 0, src);
	char *s = malloc(n + 1);

	if (s)
		bc_xml_escape(s, n + 1, src);
	return s;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Encodes code point cp as UTF-8 into dst; returns bytes written (1..4), 0 if invalid. */
static size_t put_utf8(char *dst, unsigned long cp)
{
	if (cp == 0 || cp > 0x10ffff)
		return 0;
	if (cp < 0x80) {
		dst[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		dst[0] = (char)(0xc0 | (cp >> 6));
		dst[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		dst[0] = (char)(0xe0 | (cp >> 12));
		dst[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		dst[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	dst[0] = (char)(0xf0 | (cp >> 18));
	dst[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	dst[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	dst[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Decodes "&...;" at src[0..n) into dst; returns bytes consumed, 0 if not an entity. */
static size_t decode_entity(const char *src, size_t n, char *dst, size_t *out)
{
	static const struct {
		const char *name;
		char c;
	} named[] = {{"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"apos;", '\''}, {"quot;", '"'}};
	const char *semi = memchr(src, ';', n < 12 ? n : 12);

	if (!semi)
		return 0;
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		size_t len = strlen(named[i].name);

		if ((size_t)(semi - src) == len && memcmp(src + 1, named[i].name, len - 1) == 0) {
			dst[0] = named[i].c;
			*out = 1;
			return len + 1;
		}
	}
	if (src[1] == '#') {
		unsigned long cp = 0;
		const char *p = src + 2;
		int base = 10;

		if (*p == 'x' || *p == 'X') {
			base = 16;
			p++;
		}
		if (p == semi)
			return 0;
		for (; p < semi; p++) {
			int v = hexval(*p);

			if (v < 0 || v >= base || cp > 0x10ffff)
				return 0;
			cp = cp * base + v;
		}
		/* the entity is at least 4 bytes, its UTF-8 at most 4: never grows */
		*out = put_utf8(dst, cp);
		return *out ? (size_t)(semi - src) + 1 : 0;
	}
	return 0;
}

size_t bc_xml_decode(char *dst, const char *src, size_t n)
{
	size_t i = 0, o = 0;

	while (i < n) {
		size_t used, out;

		if (src[i] == '&' && (used = decode_entity(src + i, n - i, dst + o, &out))) {
			i += used;
			o += out;
			continue;
		}
		if (src[i] == '%' && i + 3 < n && src[i + 3] == '%' && hexval(src[i + 1]) >= 0 &&
		    hexval(src[i + 2]) >= 0) {
			char c = (char)(hexval(src[i + 1]) << 4 | hexval(src[i + 2]));

			/* a NUL would cut the C string short: keep %00% as it is */
			if (c) {
				dst[o++] = c;
				i += 4;
				continue;
			}
		}
		dst[o++] = src[i++];
	}
	dst[o] = '\0';
	return o;
}

char *bc_xml_format_tstamp(char buf[BC_XML_TSTAMP_LEN], uint64_t ns)
{
	snprintf(buf, BC_XML_TSTAMP_LEN, "%llu.%09llu", (unsigned long long)(ns / NSEC_PER_SEC),
		 (unsigned long long)(ns % NSEC_PER_SEC));
	return buf;
}

bool bc_xml_parse_tstamp(const char *s, uint64_t *ns)
{
	uint64_t sec, frac = 0;
	char *end, *fend;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	sec = strtoull(s, &end, 10);
	if (errno || sec >= UINT64_MAX / NSEC_PER_SEC - 1)
		return false;
	if (*end == '.' && end[1]) {
		if (end[1] < '0' || end[1] > '9' || strlen(end + 1) > 9)
			return false;
		frac = strtoull(end + 1, &fend, 10);
		end = fend;
	} else if (*end == '.') {
		end++;
	}
	if (*end)
		return false;
	*ns = sec * NSEC_PER_SEC + frac;
	return true;
}

void bc_xml_init(struct bc_xml *x, const char *buf, size_t len)
{
	memset(x, 0, sizeof(*x));
	x->buf = buf;
	x->len = len;
	x->line = 1;
	x->fd = -1;
}

void bc_xml_init_fd(struct bc_xml *x, int fd, uint64_t limit)
{
	bc_xml_init(x, "", 0);
	x->fd = fd;
	x->left = limit;
	x->more = limit > 0;
	if (!x->more) {
		close(fd);
		x->fd = -1;
	}
}

void bc_xml_fini(struct bc_xml *x)
{
	for (unsigned int i = 0; i < x->depth; i++)
		free(x->open_name[i]);
	if (x->fd >= 0)
		close(x->fd);
	free(x->win);
	free(x->arena);
	free(x->attrs);
	x->depth = 0;
	x->fd = -1;
	x->win = NULL;
	x->arena = NULL;
	x->attrs = NULL;
}

const char *bc_xml_error(const struct bc_xml *x, unsigned int *line)
{
	if (line)
		*line = x->errline;
	return x->errmsg;
}

const char *bc_xml_attr(const struct bc_xml_elem *e, const char *name)
{
	for (size_t i = 0; i < e->nattrs; i++)
		if (strcmp(e->attrs[i].name, name) == 0)
			return e->attrs[i].value;
	return NULL;
}

__attribute__((format(printf, 4, 5))) static int fail(struct bc_xml *x, int err, unsigned int line,
						      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->errmsg, sizeof(x->errmsg), fmt, ap);
	va_end(ap);
	x->errline = line;
	return err;
}

static void advance(struct bc_xml *x, size_t to)
{
	const char *p = x->buf + x->pos, *end = x->buf + to;

	/* memchr: lines are long next to the rest of the work on them */
	while ((p = memchr(p, '\n', end - p))) {
		x->line++;
		p++;
	}
	x->pos = to;
}

static bool is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == ':';
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static size_t name_len(const char *p, const char *end)
{
	size_t n = 0;

	if (p < end && is_name_start(*p))
		for (n = 1; p + n < end && is_name_char(p[n]); n++)
			;
	return n;
}

/* Skips a construct that ends in `term` (processing instruction, comment, declaration). */
static int skip_past(struct bc_xml *x, const char *term)
{
	unsigned int line = x->line;
	const char *end = memmem(x->buf + x->pos, x->len - x->pos, term, strlen(term));

	if (!end)
		return fail(x, -ENODATA, line, "unterminated markup (no \"%s\")", term);
	advance(x, end - x->buf + strlen(term));
	return 0;
}

/*
 * Matches "</NAME>" (spaces allowed before '>') at p. Returns its length,
 * 0 when p holds some other end tag, -ENODATA when the input ends first.
 */
static long match_end_tag(const char *p, const char *end, const char *name, size_t nlen)
{
	const char *q = p + 2;
	size_t have = name_len(q, end);

	/* a name cut by the end of input is torn if it could still become ours */
	if (q + have == end)
		return have <= nlen && memcmp(q, name, have) == 0 ? -ENODATA : 0;
	if (have != nlen || memcmp(q, name, nlen) != 0)
		return 0;
	for (q += nlen; q < end && is_space(*q); q++)
		;
	if (q == end)
		return -ENODATA;
	return *q == '>' ? q + 1 - p : 0;
}

static int end_tag(struct bc_xml *x)
{
	const char *p = x->buf + x->pos, *end = x->buf + x->len;
	size_t nlen = name_len(p + 2, end);
	long n;

	/* decided only on a whole name: the same error however the input is cut */
	if (p + 2 + nlen == end && x->more)
		return fail(x, -ENODATA, x->line, "incomplete end tag");
	if (!nlen)
		return p + 2 == end ? fail(x, -ENODATA, x->line, "incomplete end tag")
				    : fail(x, -EINVAL, x->line, "bad end tag");
	if (!x->depth)
		return fail(x, -EINVAL, x->line, "</%.*s> closes nothing", (int)nlen, p + 2);
	n = match_end_tag(p, end, x->open_name[x->depth - 1], x->open_len[x->depth - 1]);
	if (n == -ENODATA)
		return fail(x, -ENODATA, x->line, "incomplete end tag");
	if (n == 0)
		return fail(x, -EINVAL, x->line, "</%.*s> does not close <%.*s>", (int)nlen, p + 2,
			    (int)x->open_len[x->depth - 1], x->open_name[x->depth - 1]);
	x->depth--;
	free(x->open_name[x->depth]);
	x->open_name[x->depth] = NULL;
	advance(x, x->pos + n);
	return 0;
}

static int grow_attrs(struct bc_xml *x, size_t n)
{
	if (n <= x->attrs_cap)
		return 0;
	size_t cap = x->attrs_cap ? x->attrs_cap * 2 : 16;
	struct bc_xml_attr *a = realloc(x->attrs, cap * sizeof(*a));

	if (!a)
		return -ENOMEM;
	x->attrs = a;
	x->attrs_cap = cap;
	return 0;
}

/* Attributes between p and end (the tag without its name and '>' or '/>'). */
static int parse_attrs(struct bc_xml *x, const char *p, const char *end, char **arena,
		       const char *ename, unsigned int line, size_t *nattrs)
{
	*nattrs = 0;
	for (;;) {
		const char *q;
		size_t nlen;

		while (p < end && is_space(*p))
			p++;
		if (p == end)
			return 0;
		nlen = name_len(p, end);
		if (!nlen)
			return fail(x, -EINVAL, line, "bad attribute in <%s>", ename);
		if (grow_attrs(x, *nattrs + 1))
			return fail(x, -ENOMEM, line, "out of memory");
		x->attrs[*nattrs].name = *arena;
		memcpy(*arena, p, nlen);
		(*arena)[nlen] = '\0';
		*arena += nlen + 1;
		p += nlen;
		while (p < end && is_space(*p))
			p++;
		if (p == end || *p != '=')
			return fail(x, -EINVAL, line, "attribute %s of <%s> has no value",
				    x->attrs[*nattrs].name, ename);
		for (p++; p < end && is_space(*p); p++)
			;
		if (p == end || (*p != '"' && *p != '\''))
			return fail(x, -EINVAL, line, "attribute %s of <%s>: value must be quoted",
				    x->attrs[*nattrs].name, ename);
		q = memchr(p + 1, *p, end - p - 1);
		if (!q)
			return fail(x, -EINVAL, line, "attribute %s of <%s>: unterminated value",
				    x->attrs[*nattrs].name, ename);
		x->attrs[*nattrs].value = *arena;
		*arena += bc_xml_decode(*arena, p + 1, q - p - 1) + 1;
		(*nattrs)++;
		p = q + 1;
	}
}

/*
 * The tag's '>': the first outside quotes (a value is skipped whole, with
 * memchr: values are most of map.xml). end when the input ends first,
 * NULL at a '<' outside quotes.
 */
static const char *tag_end(const char *p, const char *end)
{
	for (; p < end; p++) {
		if (*p == '"' || *p == '\'') {
			const char *q = memchr(p + 1, *p, end - p - 1);

			if (!q)
				return end;
			p = q;
		} else if (*p == '>') {
			return p;
		} else if (*p == '<') {
			return NULL;
		}
	}
	return end;
}

static int start_tag(struct bc_xml *x, struct bc_xml_elem *e)
{
	const char *buf = x->buf, *end = buf + x->len;
	const char *lt = buf + x->pos, *gt, *text, *text_end, *p;
	unsigned int line = x->line;
	bool empty, leaf = false;
	size_t nlen, need, after;
	char *arena;
	int err;

	nlen = name_len(lt + 1, end);
	if (!nlen)
		return lt + 1 == end
			       ? fail(x, -ENODATA, line, "incomplete tag at end of file")
			       : fail(x, -EINVAL, line, "'<' not followed by an element name");
	p = tag_end(lt + 1, end);
	if (!p)
		return fail(x, -EINVAL, line, "'<' inside the tag <%.*s", (int)nlen, lt + 1);
	if (p == end)
		return fail(x, -ENODATA, line, "<%.*s is incomplete (end of file)", (int)nlen,
			    lt + 1);
	gt = p;
	empty = gt[-1] == '/' && gt - 1 > lt + nlen;
	text = text_end = gt + 1;
	after = gt + 1 - buf;
	if (!empty) {
		text_end = memchr(text, '<', end - text);
		/* leaf or parent is known only from the byte after the next '<' */
		if (!text_end || (end - text_end < 2 && x->more))
			return fail(x, -ENODATA, line, "<%.*s> is not closed (end of file)",
				    (int)nlen, lt + 1);
		if (end - text_end >= 2 && text_end[1] == '/') {
			long n = match_end_tag(text_end, end, lt + 1, nlen);

			if (n < 0)
				return fail(x, -ENODATA, line, "<%.*s> is not closed (end of file)",
					    (int)nlen, lt + 1);
			if (n == 0) {
				unsigned int end_line = line;

				for (p = lt; p < text_end; p++)
					end_line += *p == '\n';
				return fail(x, -EINVAL, end_line,
					    "<%.*s> closed by another end tag", (int)nlen, lt + 1);
			}
			leaf = true;
			after = text_end + n - buf;
		} else {
			if (x->depth == BC_XML_MAX_DEPTH)
				return fail(x, -EINVAL, line, "elements nested too deep");
			after = text_end - buf;
		}
	}

	/* decoding never grows a string: every name, value and text fits twice over */
	need = 2 * (size_t)(text_end - lt) + 16;
	if (need > x->arena_cap) {
		char *a = realloc(x->arena, need);

		if (!a)
			return fail(x, -ENOMEM, line, "out of memory");
		x->arena = a;
		x->arena_cap = need;
	}
	arena = x->arena;
	e->name = arena;
	memcpy(arena, lt + 1, nlen);
	arena[nlen] = '\0';
	arena += nlen + 1;
	err = parse_attrs(x, lt + 1 + nlen, empty ? gt - 1 : gt, &arena, e->name, line, &e->nattrs);
	if (err)
		return err;
	e->attrs = x->attrs;
	e->text = arena;
	bc_xml_decode(arena, text, text_end - text);
	e->depth = x->depth;
	e->line = line;
	if (!empty && !leaf) {
		x->open_name[x->depth] = strndup(lt + 1, nlen);
		if (!x->open_name[x->depth])
			return fail(x, -ENOMEM, line, "out of memory");
		x->open_len[x->depth] = nlen;
		x->depth++;
	}
	advance(x, after);
	return 1;
}

/* The next element in buf, or where buf ends (-ENODATA, or 0 with all of it skipped). */
static int next_in_buf(struct bc_xml *x, struct bc_xml_elem *e)
{
	for (;;) {
		const char *lt = memchr(x->buf + x->pos, '<', x->len - x->pos);
		size_t rest;
		int err;

		if (!lt) {
			/* bytes outside tags are skipped, as gprofng does (NUL padding) */
			advance(x, x->len);
			if (x->depth)
				return fail(
					x, -ENODATA, x->line, "<%.*s> is not closed (end of file)",
					(int)x->open_len[x->depth - 1], x->open_name[x->depth - 1]);
			return 0;
		}
		advance(x, lt - x->buf);
		rest = x->len - x->pos;
		if (rest >= 2 && lt[1] == '?')
			err = skip_past(x, "?>");
		else if (rest >= 4 && memcmp(lt, "<!--", 4) == 0)
			err = skip_past(x, "-->");
		else if (rest >= 2 && lt[1] == '!')
			err = skip_past(x, ">");
		else if (rest >= 2 && lt[1] == '/')
			err = end_tag(x);
		else
			return start_tag(x, e);
		if (err)
			return err;
	}
}

/*
 * Moves what is left of the window to its start (the construct being read)
 * and reads more after it, growing the window when that construct fills
 * it. 0, or -errno with the message set.
 */
static int refill(struct bc_xml *x)
{
	size_t keep = x->len - x->pos, room;
	ssize_t n;

	if (keep && x->pos)
		memmove(x->win, x->buf + x->pos, keep);
	x->pos = 0;
	x->len = keep;
	if (keep == x->win_cap) {
		size_t cap = x->win_cap ? x->win_cap * 2 : BC_XML_WINDOW;
		char *w;

		if (x->win_cap >= BC_XML_MAX_WINDOW)
			return fail(x, -EINVAL, x->line, "a construct longer than %u MiB",
				    BC_XML_MAX_WINDOW >> 20);
		if (!x->win_cap && x->left < cap)
			cap = (size_t)x->left; /* a small file needs no more than itself */
		w = realloc(x->win, cap);
		if (!w)
			return fail(x, -ENOMEM, x->line, "out of memory");
		x->win = w;
		x->win_cap = cap;
	}
	x->buf = x->win;
	room = x->win_cap - x->len;
	if (x->chunk && room > x->chunk)
		room = x->chunk;
	if (room > x->left)
		room = (size_t)x->left;
	do
		n = read(x->fd, x->win + x->len, room);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = errno;

		return fail(x, -err, x->line, "read: %s", strerror(err));
	}
	x->len += (size_t)n;
	x->left = n ? x->left - (uint64_t)n : 0; /* shorter than said: it ends here */
	if (!x->left) {
		x->more = false;
		close(x->fd);
		x->fd = -1;
	}
	return 0;
}

int bc_xml_next(struct bc_xml *x, struct bc_xml_elem *e)
{
	for (;;) {
		int ret = next_in_buf(x, e);

		/* an end of buf that is not the end of input only asks for more of it */
		if (!x->more || (ret != 0 && ret != -ENODATA))
			return ret;
		if ((ret = refill(x)) < 0)
			return ret;
	}
}
