/* SPDX-License-Identifier: MIT */
/*
 * Containers shared by the aggregating sinks (report.c, report_tree.c): an
 * open-addressing hash map from a 64-bit id to a 32-bit value, a table of
 * interned strings (names from untrusted files: scopes, notes, messages,
 * paths of segments), and arrays that grow by doubling.
 */
#ifndef BPFCOLLECT_CONTAINERS_H
#define BPFCOLLECT_CONTAINERS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Map from a u64 id (tid, pid, func_id, syscall nr, or two u32 packed) to a
 * u32 value: an index into a stats array, or a counter. Zero-initialised is
 * empty; free with bc_idmap_free().
 */
struct bc_idmap_slot {
	uint64_t key;
	uint32_t val;
	bool used;
};

struct bc_idmap {
	struct bc_idmap_slot *slots;
	uint32_t bits; /* capacity is 1 << bits when slots != NULL */
	uint32_t n;
};

/* The value stored for key, or NULL. */
uint32_t *bc_idmap_find(const struct bc_idmap *m, uint64_t key);
/*
 * Finds key, or inserts it with value `init`; *val points at the value,
 * valid until the next insertion. -errno.
 */
int bc_idmap_get_or_add(struct bc_idmap *m, uint64_t key, uint32_t init, uint32_t **val);
/* Removes key; false when it was not there. Pointers from find() are stale after it. */
bool bc_idmap_remove(struct bc_idmap *m, uint64_t key);
void bc_idmap_free(struct bc_idmap *m);

/*
 * SipHash-2-4 of n bytes under this process's random key: what the string
 * tables hash untrusted names with, so a file cannot be made of names
 * that all land in one slot (that would make every lookup a scan again).
 */
uint64_t bc_hash_bytes(const void *p, size_t n);

/*
 * Interned strings: each distinct string once, with a dense id (0, 1, ...)
 * in the order they came; lookups hash (expected O(1)). Strings may hold
 * any byte but NUL is their end for v[]. Zero-initialised is empty; free
 * with bc_strtab_free().
 */
struct bc_strtab {
	char **v;	 /* v[id]: the string, NUL-terminated */
	size_t *len;	 /* len[id] */
	uint64_t *hash;	 /* hash[id] */
	size_t n, cap;	 /* strings, and room in v, len, hash */
	uint32_t *slots; /* open addressing: id + 1, 0 empty */
	size_t nslots;	 /* a power of two, at least twice n */
};

/* The id of s[0..len), or -1 when it is not there. */
int64_t bc_strtab_find(const struct bc_strtab *t, const char *s, size_t len);
/*
 * The id of s[0..len) in *id, added (copied) when new: 1 added, 0 it was
 * there, -ENOMEM (or -E2BIG past 2^31 strings).
 */
int bc_strtab_intern(struct bc_strtab *t, const char *s, size_t len, uint32_t *id);
void bc_strtab_free(struct bc_strtab *t);

/* v grown (doubling, from 16) to hold `need` elements of `size` bytes, or NULL. */
void *bc_grow_array(void *v, size_t *cap, size_t need, size_t size);

/* Makes array v (capacity cap) hold `need` elements; 0 or -ENOMEM, v intact on failure. */
#define BC_GROW(v, cap, need)                                                                      \
	({                                                                                         \
		void *__grown = bc_grow_array((v), &(cap), (need), sizeof(*(v)));                  \
		if (__grown)                                                                       \
			(v) = __grown;                                                             \
		__grown ? 0 : -ENOMEM;                                                             \
	})

#endif /* BPFCOLLECT_CONTAINERS_H */
