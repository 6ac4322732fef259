// SPDX-License-Identifier: MIT
/* C++ and Rust names: demangling, a cache of shown names, the glob rule (bpfcollect/demangle.h). */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/demangle.h"

/* ------------------------------------------------------------ demangler */

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;
static cxa_demangle_fn cxa_demangle;

/* libstdc++ stays loaded for the process's life: its demangler is called until exit. */
static void cxa_open(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

	if (h)
		*(void **)&cxa_demangle = dlsym(h, "__cxa_demangle");
}

/* Itanium C++ ABI names, which Rust's legacy mangling reuses. */
static bool is_mangled(const char *sym)
{
	return sym[0] == '_' && sym[1] == 'Z';
}

/* A Rust legacy symbol demangles to "path::h<16 hex digits>": the length of path, or 0. */
static size_t rust_hash_at(const char *d)
{
	size_t n = strlen(d);

	if (n < 20 || strncmp(d + n - 19, "::h", 3))
		return 0;
	for (size_t i = n - 16; i < n; i++)
		if (!isxdigit((unsigned char)d[i]))
			return 0;
	return n - 19;
}

/* Rust legacy escapes: "$LT$" for '<', "$u7b$" for '{', ".." for "::" (rustc-demangle's table). */
static size_t rust_escape(const char *s, char *c)
{
	static const struct {
		const char *esc;
		char c;
	} tab[] = {{"$SP$", '@'}, {"$BP$", '*'}, {"$RF$", '&'}, {"$LT$", '<'},
		   {"$GT$", '>'}, {"$LP$", '('}, {"$RP$", ')'}, {"$C$", ','}};
	unsigned int v;
	int k = 0;

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strncmp(s, tab[i].esc, strlen(tab[i].esc))) {
			*c = tab[i].c;
			return strlen(tab[i].esc);
		}
	if (sscanf(s, "$u%2x$%n", &v, &k) == 1 && k == 5 && v >= 0x20 && v < 0x7f) {
		*c = (char)v;
		return 5;
	}
	return 0;
}

/* out = path of a Rust legacy name, escapes decoded; -ENOSPC. */
static int rust_unescape(const char *d, size_t n, char *out, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		bool start = i == 0 || (i >= 2 && d[i - 1] == ':' && d[i - 2] == ':');
		size_t k;
		char c;

		if (o + 3 > len)
			return -ENOSPC;
		if (start && d[i] == '_' && d[i + 1] == '$') {
			i++; /* an identifier that starts with '$' gets a '_' before it */
		} else if (d[i] == '.' && d[i + 1] == '.') {
			out[o++] = ':';
			out[o++] = ':';
			i += 2;
		} else if (d[i] == '$' && (k = rust_escape(d + i, &c))) {
			out[o++] = c;
			i += k;
		} else {
			out[o++] = d[i++];
		}
	}
	out[o] = '\0';
	return 0;
}

int bc_demangle(const char *sym, char *out, size_t len)
{
	int status = -1, rc = 0;
	char *d;
	size_t rust;

	if (!sym || !is_mangled(sym))
		return -EINVAL;
	pthread_once(&cxa_once, cxa_open);
	if (!cxa_demangle)
		return -ENOSYS;
	d = cxa_demangle(sym, NULL, NULL, &status);
	if (!d || status != 0) {
		rc = -EINVAL;
		goto out;
	}
	rust = rust_hash_at(d);
	if (rust)
		rc = rust_unescape(d, rust, out, len);
	else if ((size_t)snprintf(out, len, "%s", d) >= len)
		rc = -ENOSPC;
out:
	free(d);
	return rc;
}

/* ------------------------------------------------------------ name part */

/* How many characters of an operator's token follow "operator" at s (0: none to skip). */
static size_t operator_token(const char *s)
{
	if (!strncmp(s, "()", 2) || !strncmp(s, "[]", 2))
		return 2;
	return strspn(s, "<>=!+-*/%^&|~,");
}

/* The ')' closing the '(' at d[i], or the end of d. */
static size_t closing_paren(const char *d, size_t i, size_t n)
{
	int depth = 0;

	for (; i < n; i++) {
		if (d[i] == '(')
			depth++;
		else if (d[i] == ')' && --depth == 0)
			return i;
	}
	return n;
}

/* n bytes of s into out[len], without ABI tags: "f[abi:cxx11]" is f to whoever types it. */
static void copy_without_abi_tags(const char *s, size_t n, char *out, size_t len)
{
	size_t o = 0;

	if (!len)
		return;
	for (size_t i = 0; i < n && o + 1 < len; i++) {
		const char *close;

		if (!strncmp(s + i, "[abi:", 5) && (close = memchr(s + i, ']', n - i))) {
			i = (size_t)(close - s);
			continue;
		}
		out[o++] = s[i];
	}
	out[o] = '\0';
}

void bc_demangle_name_part(const char *d, char *out, size_t len)
{
	size_t n = strlen(d), end = n, start = 0;
	bool conversion = false; /* "operator unsigned int": spaces are the name's */
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		if (!strncmp(d + i, "operator", 8) &&
		    (i == 0 || d[i - 1] == ':' || d[i - 1] == ' ')) {
			i += 8;
			conversion = d[i] == ' ';
			i += operator_token(d + i);
			i--;
		} else if (d[i] == '<' || d[i] == '{' || d[i] == '[') {
			depth++;
		} else if ((d[i] == '>' || d[i] == '}' || d[i] == ']') && depth > 0) {
			depth--;
		} else if (d[i] == '(' && depth == 0) {
			size_t j = closing_paren(d, i, n);

			/*
			 * "(anonymous namespace)::f", "f(int)::{lambda()#1}": a scope, and
			 * "decltype (x+y) add<int>(...)": a return type, not parameters
			 */
			if ((j + 2 < n && d[j + 1] == ':' && d[j + 2] == ':') ||
			    (i >= 9 && !strncmp(d + i - 9, "decltype ", 9))) {
				i = j;
				continue;
			}
			end = i;
			break;
		} else if (d[i] == ' ' && depth == 0 && !conversion) {
			/* a space at the top level before the parameters ends a return type */
			start = i + 1;
		}
	}
	if (start >= end) {
		/* "decltype (...) f(...)" and what else this reading gets wrong: all of it */
		start = 0;
		end = n;
	}
	copy_without_abi_tags(d + start, end - start, out, len);
}

/* ---------------------------------------------------------------- cache */

struct entry {
	char *raw;
	char *full; /* NULL: raw does not demangle */
	char *part;
};

static struct {
	pthread_mutex_t lock;
	struct entry **slots;
	size_t cap, n;
	bool off; /* --no-demangle */
} cache = {.lock = PTHREAD_MUTEX_INITIALIZER};

void bc_demangle_set(bool on)
{
	cache.off = !on;
}

bool bc_demangle_enabled(void)
{
	return !cache.off;
}

static uint64_t hash_of(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static void entry_free(struct entry *e)
{
	if (!e)
		return;
	free(e->raw);
	free(e->full);
	free(e->part);
	free(e);
}

/* The entry of sym, made on first use. NULL when out of memory. Called locked. */
static struct entry *lookup(const char *sym)
{
	char buf[4096], part[4096];
	struct entry *e;
	size_t i;

	if (2 * (cache.n + 1) > cache.cap) {
		size_t cap = cache.cap ? 2 * cache.cap : 256;
		struct entry **slots = calloc(cap, sizeof(*slots));

		if (!slots)
			return NULL;
		for (size_t k = 0; k < cache.cap; k++)
			if (cache.slots[k]) {
				for (i = hash_of(cache.slots[k]->raw) & (cap - 1); slots[i];)
					i = (i + 1) & (cap - 1);
				slots[i] = cache.slots[k];
			}
		free(cache.slots);
		cache.slots = slots;
		cache.cap = cap;
	}
	for (i = hash_of(sym) & (cache.cap - 1); cache.slots[i]; i = (i + 1) & (cache.cap - 1))
		if (!strcmp(cache.slots[i]->raw, sym))
			return cache.slots[i];
	e = calloc(1, sizeof(*e));
	if (!e || !(e->raw = strdup(sym)))
		goto fail;
	if (bc_demangle(sym, buf, sizeof(buf)) == 0) {
		e->full = strdup(buf);
		bc_demangle_name_part(buf, part, sizeof(part));
		e->part = strdup(part);
		if (!e->full || !e->part)
			goto fail;
	}
	cache.slots[i] = e;
	cache.n++;
	return e;
fail:
	entry_free(e);
	return NULL;
}

const char *bc_sym_display(const char *sym)
{
	const char *shown = sym;
	struct entry *e;

	if (!sym || cache.off || !is_mangled(sym))
		return sym;
	pthread_mutex_lock(&cache.lock);
	e = lookup(sym);
	if (e && e->full)
		shown = e->full;
	pthread_mutex_unlock(&cache.lock);
	return shown;
}

bool bc_sym_glob_match(const char *glob, const char *sym)
{
	const char *other = NULL;
	struct entry *e;

	if (!fnmatch(glob, sym, 0))
		return true;
	if (!is_mangled(sym))
		return false;
	pthread_mutex_lock(&cache.lock);
	e = lookup(sym);
	if (e && e->full)
		other = strchr(glob, '(') ? e->full : e->part;
	pthread_mutex_unlock(&cache.lock);
	/* entries are never freed but by bc_demangle_cache_free: other stays valid */
	return other && !fnmatch(glob, other, 0);
}

void bc_demangle_cache_free(void)
{
	pthread_mutex_lock(&cache.lock);
	for (size_t i = 0; i < cache.cap; i++)
		entry_free(cache.slots[i]);
	free(cache.slots);
	cache.slots = NULL;
	cache.cap = cache.n = 0;
	pthread_mutex_unlock(&cache.lock);
}
