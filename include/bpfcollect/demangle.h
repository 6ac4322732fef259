/* SPDX-License-Identifier: MIT */
/*
 * Demangling of C++ and Rust symbol names, for every output that shows a
 * function's name, and the rule by which a function glob matches a symbol.
 *
 * Experiments keep symbols raw, as the ELF file spells them; names are
 * demangled when they are shown (docs/design.md, "Names"), so `report
 * --no-demangle` can show a recording's raw symbols again. The demangler is
 * libstdc++'s __cxa_demangle, opened with dlopen (no link dependency):
 * without libstdc++ every name stays raw.
 *
 * Rust legacy symbols (_ZN...17h<16 hex digits>E) lose the hash and have
 * their $..$ escapes decoded ("<impl Foo as Bar>::f"). Rust v0 symbols (_R)
 * stay raw: __cxa_demangle does not know them.
 */
#ifndef BPFCOLLECT_DEMANGLE_H
#define BPFCOLLECT_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * sym demangled into out[len]: "ns::f(int)" for "_ZN2ns1fEi". 0; -EINVAL
 * when sym is not a mangled name or does not demangle; -ENOSYS without a
 * demangler; -ENOSPC when out is too small.
 */
int bc_demangle(const char *sym, char *out, size_t len);

/*
 * The name part of a demangled signature: without the parameters, the
 * qualifiers after them, a template instance's return type and ABI tags
 * ("ns::f<int>" of "int ns::f<int>(int) const", "foo" of
 * "foo[abi:cxx11]()"; "operator()" keeps its parentheses).
 */
void bc_demangle_name_part(const char *demangled, char *out, size_t len);

/* Whether outputs show demangled names (the default) or raw symbols (--no-demangle). */
void bc_demangle_set(bool on);
bool bc_demangle_enabled(void);

/*
 * The name to show for sym: its demangled signature when demangling is on
 * and sym demangles, else sym itself. Demangled names are cached: the
 * pointer stays valid until bc_demangle_cache_free(). Thread-safe.
 */
const char *bc_sym_display(const char *sym);

/*
 * Whether a function glob (fnmatch(3)) matches sym. A glob matches the raw
 * symbol; for a symbol that demangles, a glob holding '(' also matches the
 * full demangled signature ("thrower(int)", "ns::f(int, char)"), any other
 * glob the name part ("thrower", "ns::Class::*"). Independent of
 * bc_demangle_set(): what the user may type does not depend on what is shown.
 */
bool bc_sym_glob_match(const char *glob, const char *sym);

/* Frees the cache (tests, and tools that check for leaks). */
void bc_demangle_cache_free(void);

#endif /* BPFCOLLECT_DEMANGLE_H */
