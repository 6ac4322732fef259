/* SPDX-License-Identifier: MIT */
/*
 * `record --arg 'GLOB@SPEC'` and `--retval 'GLOB[@FMT]'`: what to capture of
 * the functions GLOB matches, spelt like uftrace's -A/-R, turned into the
 * struct bc_capture_spec BPF reads (bpfcollect/capture.h).
 *
 *   SPEC  := ITEM ("," ITEM)*
 *   ITEM  := "arg" N ["/" FMT]      N = 1..6: rdi rsi rdx rcx r8 r9
 *          | "fparg" N ["/" FPFMT]  N = 1..8: xmm0..xmm7
 *          | "retval" ["/" FMT]     rax at return
 *   FMT   := ("d"|"i"|"u"|"x") [8|16|32|64]  integer (default d64: signed, 64 bits)
 *          | "p"                           pointer (hex, NULL)
 *          | "c"                           char
 *          | "s" [":" LEN]                 C string, at most LEN bytes
 *          | "buf:" LEN                    LEN bytes of memory
 *          | "buf:arg" M [":" LEN]         as many bytes as argument M says,
 *                                          at most LEN
 *   FPFMT := "f" | "f64" | "f32"           double (default) or float
 *
 * LEN is 1..BC_STRLEN_MAX; left out, it is the --string-size value. retval
 * takes d/i/u/x, p, c and s, not buf or f. `--retval GLOB` alone is
 * retval/d64; `--retval GLOB@FMT` (or GLOB@retval/FMT) gives the format.
 * GLOB ends at the last '@' of the option (a versioned glob such as
 * malloc@GLIBC_2.2.5 then needs a SPEC after it).
 *
 * What each item becomes (struct bc_capture_item_spec):
 *   argN/d|i|u|xW   ARG,  N-1, INT, SIGNED|UNSIGNED|HEX, W/8, len_arg FIXED, max_len 0
 *   argN/p          ARG,  N-1, INT, PTR,   size 8
 *   argN/c          ARG,  N-1, INT, CHAR,  size 1
 *   argN/s:L        ARG,  N-1, STR, STR,   size 8, max_len L
 *   argN/buf:L      ARG,  N-1, BUF, BUF,   size 8, len_arg FIXED, max_len L
 *   argN/buf:argM:L ARG,  N-1, BUF, BUF,   size 8, len_arg M-1, max_len L
 *   fpargN/f|f64    FPARG, N-1, FP, DOUBLE, size 8
 *   fpargN/f32      FPARG, N-1, FP, FLOAT,  size 4
 *   retval/...      RETVAL, index 0, as for arg
 * len_arg is BC_LEN_FIXED and max_len 0 wherever they do not apply; unused
 * items and padding are zero, so two specs compare with memcmp().
 *
 * Entry items come first in the order given, the retval item last. One
 * argument at most once, one retval at most, BC_MAX_CAPTURES items at most.
 *
 * Errors are one line without a newline: the option as given, the 1-based
 * character position in it, and what is allowed there.
 */
#ifndef BPFCOLLECT_ARGSPEC_H
#define BPFCOLLECT_ARGSPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "bpfcollect/capture.h"

#define BC_MAX_FP_ARGS 8 /* floating-point arguments: xmm0..xmm7 */

/* Longest canonical text, NUL included: 8 x "fparg8/buf:arg6:4096," fits. */
#define BC_CAPTURE_TEXT_MAX 256

struct bc_argspec {
	char *glob; /* [OBJ:]GLOB before the last '@' */
	struct bc_capture_spec spec;
	char *text; /* canonical SPEC text, e.g. "arg1/d64,arg2/s:64,retval/x64" */
};

/*
 * Parses the value of --arg (is_retval_option false) or --retval (true).
 * string_size (1..BC_STRLEN_MAX) is the LEN of "s" and "buf:argM" without
 * one. Returns 0, -EINVAL with one line in err, or -ENOMEM. On error *out is
 * zeroed; bc_argspec_free() is safe on it either way.
 */
int bc_argspec_parse(const char *optarg, bool is_retval_option, unsigned int string_size,
		     struct bc_argspec *out, char *err, size_t errlen);
void bc_argspec_free(struct bc_argspec *a);

/*
 * Adds b's items to a (one function matched by two options): a's entry
 * items, then b's, then the retval item of either. -EINVAL, a unchanged and
 * one line in err ("arg1 is captured twice", "10 captures ...") if that
 * captures one argument twice, two retvals, or too many items.
 */
int bc_capture_spec_merge(struct bc_capture_spec *a, const struct bc_capture_spec *b, char *err,
			  size_t errlen);

/*
 * Checks that s is a spec bc_argspec_parse() could have made (the table
 * above): 0, or -EINVAL with one line in err (err may be NULL).
 */
int bc_capture_spec_check(const struct bc_capture_spec *s, char *err, size_t errlen);
/* An item's name as specs write it: "arg2", "fparg1", "retval". Returns what snprintf does. */
int bc_capture_item_spec_name(const struct bc_capture_item_spec *it, char *out, size_t outlen);

/*
 * The canonical text of s: every item spelt in full, e.g.
 * "arg1/d64,arg2/s:64,arg3/buf:arg4:64,fparg1/f64,retval/x64"; "" for no
 * items. Returns 0, -EINVAL if bc_capture_spec_check() refuses s, -ENOSPC
 * if outlen is too small (BC_CAPTURE_TEXT_MAX always suffices); out is ""
 * on error, never a cut text.
 */
int bc_capture_spec_format(const struct bc_capture_spec *s, char *out, size_t outlen);

/*
 * Parses a SPEC as --arg takes it (canonical or not; "s" without LEN gets
 * BC_STRLEN_DEFAULT) into *out; "" is the empty spec. For any spec s that
 * bc_capture_spec_check() accepts, format then parse_text gives s again,
 * byte for byte. 0, or -EINVAL with one line in err naming the text.
 */
int bc_capture_spec_parse_text(const char *text, struct bc_capture_spec *out, char *err,
			       size_t errlen);

#endif /* BPFCOLLECT_ARGSPEC_H */
