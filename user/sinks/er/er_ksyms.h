/* SPDX-License-Identifier: MIT */
/*
 * A recording's kernel symbols (a kallmodsyms file: ADDR SIZE TYPE NAME
 * [MODULE], sorted by address), read once and shared by every writer of
 * the recording, so each subexperiment can write a kallmodsyms of only
 * the kernel functions its own samples hit: gprofng then loads each in
 * milliseconds instead of parsing 120,000 symbols per subexperiment.
 */
#ifndef BPFCOLLECT_ER_KSYMS_H
#define BPFCOLLECT_ER_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct er_ksyms;

/* The table of the kallmodsyms file at path, loaded on first use; NULL: unreadable. */
struct er_ksyms *er_ksyms_acquire(const char *path);
void er_ksyms_release(struct er_ksyms *k);
/* The kernel's text start (_stext), 0 when the file has none. */
uint64_t er_ksyms_text_start(const struct er_ksyms *k);
/*
 * Writes dirfd/kallmodsyms with the lines of the symbols that hold any of
 * pcs[n] (in any order, repeats allowed), in address order, each with the
 * nearest symbols before and after it that gprofng keeps: so every PC
 * resolves as it would against the whole file (a symbol gprofng drops,
 * such as NAME.isra.0, is the same <static>@ADDR gap). 0 or -errno.
 */
int er_ksyms_write_subset(const struct er_ksyms *k, int dirfd, const uint64_t *pcs, size_t n);

#endif /* BPFCOLLECT_ER_KSYMS_H */
