/* SPDX-License-Identifier: MIT */
/*
 * TRACED marks a function a test counts calls of. It must stay a real call
 * under its own symbol name. noinline alone is not enough at -O2: GCC may
 * still clone a function into NAME.constprop.0 (and call the clone), or merge
 * identical bodies, and a uprobe on NAME would then miss calls. noipa forbids
 * all of that.
 */
#ifndef BPFCOLLECT_TESTS_TRACED_H
#define BPFCOLLECT_TESTS_TRACED_H

#if defined(__has_attribute)
#if __has_attribute(noipa)
#define TRACED __attribute__((noinline, noipa))
#endif
#endif
#ifndef TRACED
#define TRACED __attribute__((noinline))
#endif

/*
 * NO_ENDBR: with -fcf-protection every function starts with endbr64; one
 * marked so does not. Only meaningful (and only accepted without a warning)
 * when CET is on.
 */
#ifdef __CET__
#define NO_ENDBR __attribute__((nocf_check))
#else
#define NO_ENDBR
#endif

#endif
