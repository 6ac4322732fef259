// SPDX-License-Identifier: MIT
/*
 * Interned strings (bpfcollect/containers.h): a keyed hash, so names read
 * from untrusted files cannot be chosen to collide, over open addressing.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "bpfcollect/containers.h"

static uint64_t sip_key[2];
static pthread_once_t sip_once = PTHREAD_ONCE_INIT;

static void sip_seed(void)
{
	/* without entropy (early boot), time and pid still keep the key from being known */
	if (getrandom(sip_key, sizeof(sip_key), GRND_NONBLOCK) != (ssize_t)sizeof(sip_key)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		sip_key[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
		sip_key[1] = (uint64_t)ts.tv_sec * 0xc2b2ae3d27d4eb4fULL ^ (uintptr_t)&ts;
	}
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                   \
	do {                                                                                       \
		v0 += v1;                                                                          \
		v1 = ROTL(v1, 13);                                                                 \
		v1 ^= v0;                                                                          \
		v0 = ROTL(v0, 32);                                                                 \
		v2 += v3;                                                                          \
		v3 = ROTL(v3, 16);                                                                 \
		v3 ^= v2;                                                                          \
		v0 += v3;                                                                          \
		v3 = ROTL(v3, 21);                                                                 \
		v3 ^= v0;                                                                          \
		v2 += v1;                                                                          \
		v1 = ROTL(v1, 17);                                                                 \
		v1 ^= v2;                                                                          \
		v2 = ROTL(v2, 32);                                                                 \
	} while (0)

uint64_t bc_hash_bytes(const void *p, size_t n)
{
	const unsigned char *in = p;
	uint64_t v0, v1, v2, v3, m, b = (uint64_t)n << 56;
	size_t i;

	pthread_once(&sip_once, sip_seed);
	v0 = sip_key[0] ^ 0x736f6d6570736575ULL;
	v1 = sip_key[1] ^ 0x646f72616e646f6dULL;
	v2 = sip_key[0] ^ 0x6c7967656e657261ULL;
	v3 = sip_key[1] ^ 0x7465646279746573ULL;
	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&m, in + i, 8); /* little-endian, as SipHash reads words */
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	for (size_t k = 0; i + k < n; k++)
		b |= (uint64_t)in[i + k] << (8 * k);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* The slot holding s, or the empty one where it goes. */
static size_t slot_of(const struct bc_strtab *t, const uint32_t *slots, size_t nslots, uint64_t h,
		      const char *s, size_t len)
{
	size_t mask = nslots - 1, i = (size_t)h & mask;

	for (; slots[i]; i = (i + 1) & mask) {
		uint32_t id = slots[i] - 1;

		if (s && t->hash[id] == h && t->len[id] == len && !memcmp(t->v[id], s, len))
			break;
	}
	return i;
}

int64_t bc_strtab_find(const struct bc_strtab *t, const char *s, size_t len)
{
	uint64_t h;
	size_t i;

	if (!t->nslots)
		return -1;
	h = bc_hash_bytes(s, len);
	i = slot_of(t, t->slots, t->nslots, h, s, len);
	return t->slots[i] ? (int64_t)t->slots[i] - 1 : -1;
}

/* Room for one more string: the arrays, and slots at most half full. */
static int strtab_room(struct bc_strtab *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **v = realloc(t->v, cap * sizeof(*v));
		size_t *len;
		uint64_t *hash;

		if (!v)
			return -ENOMEM;
		t->v = v;
		len = realloc(t->len, cap * sizeof(*len));
		if (!len)
			return -ENOMEM;
		t->len = len;
		hash = realloc(t->hash, cap * sizeof(*hash));
		if (!hash)
			return -ENOMEM;
		t->hash = hash;
		t->cap = cap;
	}
	if (2 * (t->n + 1) > t->nslots) {
		size_t n = t->nslots ? t->nslots * 2 : 128;
		uint32_t *slots = calloc(n, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (size_t id = 0; id < t->n; id++)
			slots[slot_of(t, slots, n, t->hash[id], NULL, 0)] = (uint32_t)id + 1;
		free(t->slots);
		t->slots = slots;
		t->nslots = n;
	}
	return 0;
}

int bc_strtab_intern(struct bc_strtab *t, const char *s, size_t len, uint32_t *id)
{
	uint64_t h = bc_hash_bytes(s, len);
	size_t i;
	char *copy;
	int err;

	if (t->nslots) {
		i = slot_of(t, t->slots, t->nslots, h, s, len);
		if (t->slots[i]) {
			*id = t->slots[i] - 1;
			return 0;
		}
	}
	if (t->n >= INT32_MAX)
		return -E2BIG;
	err = strtab_room(t);
	if (err)
		return err;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	i = slot_of(t, t->slots, t->nslots, h, s, len);
	t->v[t->n] = copy;
	t->len[t->n] = len;
	t->hash[t->n] = h;
	t->slots[i] = (uint32_t)t->n + 1;
	*id = (uint32_t)t->n++;
	return 1;
}

void bc_strtab_free(struct bc_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->len);
	free(t->hash);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
