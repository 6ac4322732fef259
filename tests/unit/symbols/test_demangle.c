// SPDX-License-Identifier: MIT
/*
 * Demangling (C++, Rust legacy), the names outputs show, and the rule by
 * which a function glob matches a mangled symbol. Expected names are what
 * c++filt prints for the same symbols.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bpfcollect/demangle.h"
#include "bpfcollect/symbols.h"

#define DEMANGLES(sym, want)                                                                       \
	do {                                                                                       \
		char out_[512];                                                                    \
		assert_int_equal(bc_demangle(sym, out_, sizeof(out_)), 0);                         \
		assert_string_equal(out_, want);                                                   \
	} while (0)

#define NAME_PART(sym, want)                                                                       \
	do {                                                                                       \
		char full_[512], part_[512];                                                       \
		assert_int_equal(bc_demangle(sym, full_, sizeof(full_)), 0);                       \
		bc_demangle_name_part(full_, part_, sizeof(part_));                                \
		assert_string_equal(part_, want);                                                  \
	} while (0)

static void cxx_signatures(void **state)
{
	(void)state;
	DEMANGLES("_Z7throweri", "thrower(int)");
	DEMANGLES("_ZN2ns5Class6methodEiPKc", "ns::Class::method(int, char const*)");
	DEMANGLES("_ZNK2ns1C3getEv", "ns::C::get() const");
	DEMANGLES("_ZN2ns3maxIiEET_S1_S1_", "int ns::max<int>(int, int)");
	DEMANGLES("_ZN12_GLOBAL__N_11fEi", "(anonymous namespace)::f(int)");
	DEMANGLES("_ZN1AC2Ev", "A::A()");
	/* GCC's clones keep their suffix, as c++filt shows it */
	DEMANGLES("_Z1fi.constprop.0", "f(int) [clone .constprop.0]");
}

static void not_demangled(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(bc_demangle("main", out, sizeof(out)), -EINVAL);
	assert_int_equal(bc_demangle("_Zbroken", out, sizeof(out)), -EINVAL);
	assert_int_equal(bc_demangle("", out, sizeof(out)), -EINVAL);
	/* Rust v0: __cxa_demangle does not know it; it stays raw */
	assert_int_equal(bc_demangle("_RNvCs1234_7mycrate3foo", out, sizeof(out)), -EINVAL);
	/* too small a buffer is said, not cut silently */
	assert_int_equal(bc_demangle("_ZN2ns5Class6methodEiPKc", out, 8), -ENOSPC);
}

static void rust_legacy(void **state)
{
	(void)state;
	/* the hash goes */
	DEMANGLES("_ZN3foo3bar17h05af221e174051e9E", "foo::bar");
	/* escapes are decoded, ".." is "::" */
	DEMANGLES("_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$"
		  "closure$u7d$$u7d$$GT$17h0123456789abcdefE",
		  "core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>");
	DEMANGLES("_ZN49_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$Drop$GT$4drop17h0011223344556677E",
		  "<alloc::vec::Vec<T> as Drop>::drop");
	/* not 16 hex digits: a C++ name that happens to end so, left alone */
	DEMANGLES("_ZN3foo3bar5h1234E", "foo::bar::h1234");
}

static void name_parts(void **state)
{
	(void)state;
	NAME_PART("_Z7throweri", "thrower");
	NAME_PART("_ZN2ns5Class6methodEiPKc", "ns::Class::method");
	NAME_PART("_ZNK2ns1C3getEv", "ns::C::get");
	/* a template instance keeps its arguments and loses its return type */
	NAME_PART("_ZN2ns3maxIiEET_S1_S1_", "ns::max<int>");
	NAME_PART("_Z1fIiEvT_", "f<int>");
	NAME_PART("_Z3addIiiEDTplfp_fp0_ET_T0_", "add<int, int>");
	/* parentheses that are not the parameters */
	NAME_PART("_ZN1FclEv", "F::operator()");
	NAME_PART("_ZN12_GLOBAL__N_11fEi", "(anonymous namespace)::f");
	NAME_PART("_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()");
	/* operators whose token holds '<' or a space */
	NAME_PART("_ZN2nsltERKNS_1AES2_", "ns::operator<");
	NAME_PART("_ZlsRSoRK1A", "operator<<");
	NAME_PART("_ZnwmPv", "operator new");
	NAME_PART("_ZN1AcviEv", "A::operator int");
	NAME_PART("_Z1fi.constprop.0", "f");
	/* ABI tags are not typed by anyone: "foo[abi:cxx11]()" is foo */
	NAME_PART("_Z3fooB5cxx11v", "foo");
	NAME_PART("_ZN2ns3barB5cxx11B3xyzEi", "ns::bar");
}

static void shown_names(void **state)
{
	const char *a, *b;

	(void)state;
	a = bc_sym_display("_Z7throweri");
	assert_string_equal(a, "thrower(int)");
	/* cached: the same string each time */
	b = bc_sym_display("_Z7throweri");
	assert_ptr_equal(a, b);
	assert_string_equal(bc_sym_display("_ZN2ns5Class6methodEiPKc"),
			    "ns::Class::method(int, char const*)");
	/* C names and names that do not demangle are shown as they are */
	a = "main";
	assert_ptr_equal(bc_sym_display(a), a);
	assert_string_equal(bc_sym_display("_Zbroken"), "_Zbroken");
	assert_null(bc_sym_display(NULL));
	/* --no-demangle */
	bc_demangle_set(false);
	assert_false(bc_demangle_enabled());
	assert_string_equal(bc_sym_display("_Z7throweri"), "_Z7throweri");
	bc_demangle_set(true);
	assert_string_equal(bc_sym_display("_Z7throweri"), "thrower(int)");
	/* many names: the table grows and keeps every one */
	for (int i = 0; i < 2000; i++) {
		char name[16], sym[32], want[32];

		snprintf(name, sizeof(name), "f%d", i);
		snprintf(sym, sizeof(sym), "_Z%zu%si", strlen(name), name);
		snprintf(want, sizeof(want), "%s(int)", name);
		assert_string_equal(bc_sym_display(sym), want);
	}
	assert_string_equal(bc_sym_display("_Z7throweri"), "thrower(int)");
	bc_demangle_cache_free();
}

static void glob_rule(void **state)
{
	(void)state;
	/* the raw symbol */
	assert_true(bc_sym_glob_match("_Z7throweri", "_Z7throweri"));
	assert_true(bc_sym_glob_match("_Z*", "_Z7throweri"));
	/* the name part, for a glob without '(' */
	assert_true(bc_sym_glob_match("thrower", "_Z7throweri"));
	assert_true(bc_sym_glob_match("thr*", "_Z7throweri"));
	assert_true(bc_sym_glob_match("ns::Class::*", "_ZN2ns5Class6methodEiPKc"));
	assert_true(bc_sym_glob_match("*::method", "_ZN2ns5Class6methodEiPKc"));
	assert_false(bc_sym_glob_match("method", "_ZN2ns5Class6methodEiPKc"));
	assert_false(bc_sym_glob_match("ns::Class", "_ZN2ns5Class6methodEiPKc"));
	assert_true(bc_sym_glob_match("ns::max<int>", "_ZN2ns3maxIiEET_S1_S1_"));
	assert_false(bc_sym_glob_match("ns::max", "_ZN2ns3maxIiEET_S1_S1_"));
	/* the full signature, for a glob with '(' */
	assert_true(bc_sym_glob_match("thrower(int)", "_Z7throweri"));
	assert_false(bc_sym_glob_match("thrower(long)", "_Z7throweri"));
	assert_true(bc_sym_glob_match("ns::Class::method(int,*)", "_ZN2ns5Class6methodEiPKc"));
	assert_true(bc_sym_glob_match("ns::C::get() const", "_ZNK2ns1C3getEv"));
	assert_false(bc_sym_glob_match("ns::C::get()", "_ZNK2ns1C3getEv"));
	assert_true(bc_sym_glob_match("int ns::max<int>(int, int)", "_ZN2ns3maxIiEET_S1_S1_"));
	/* overloads are told apart by their parameters */
	assert_true(bc_sym_glob_match("f(double)", "_Z1fd"));
	assert_false(bc_sym_glob_match("f(double)", "_Z1fi"));
	assert_true(bc_sym_glob_match("f", "_Z1fd"));
	assert_true(bc_sym_glob_match("f", "_Z1fi"));
	/* C symbols: fnmatch, as before */
	assert_true(bc_sym_glob_match("main", "main"));
	assert_false(bc_sym_glob_match("mai", "main"));
	assert_false(bc_sym_glob_match("f", "_Z1gi"));
	/* Rust legacy: the path without its hash */
	assert_true(bc_sym_glob_match("foo::bar", "_ZN3foo3bar17h05af221e174051e9E"));
	/* --no-demangle changes what is shown, not what matches */
	bc_demangle_set(false);
	assert_true(bc_sym_glob_match("thrower", "_Z7throweri"));
	bc_demangle_set(true);
	bc_demangle_cache_free();
}

/* "::" belongs to a C++ name: only a lone ':' separates OBJ from GLOB. */
static void spec_separator(void **state)
{
	const char *s;

	(void)state;
	assert_null(bc_spec_separator("ns::Class::*"));
	assert_null(bc_spec_separator("thrower(int)"));
	s = "libfoo:ns::Class::*";
	assert_ptr_equal(bc_spec_separator(s), s + 6);
	s = "/odd:dir/libx.so:f*";
	assert_ptr_equal(bc_spec_separator(s), s + 16);
	s = "libc:[[:alpha:]]*";
	assert_ptr_equal(bc_spec_separator(s), s + 4);
	s = "prog:*::f(int)";
	assert_ptr_equal(bc_spec_separator(s), s + 4);
	assert_false(bc_spec_has_object("ns::f"));
	assert_true(bc_spec_has_object("prog:ns::f"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cxx_signatures), cmocka_unit_test(not_demangled),
		cmocka_unit_test(rust_legacy),	  cmocka_unit_test(name_parts),
		cmocka_unit_test(shown_names),	  cmocka_unit_test(glob_rule),
		cmocka_unit_test(spec_separator),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
