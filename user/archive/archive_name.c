// SPDX-License-Identifier: MIT
/*
 * Where an experiment's archives are (docs/archives.md): gprofng's archive
 * names, the founder of a subexperiment, and finding what was archived.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcollect/archive.h"
#include "bpfcollect/symutil.h"

#define NAME_MAX_GPROFNG 255
#define BASENAME_MAX	 (NAME_MAX_GPROFNG - 1 - BC_ARCHIVE_HASH_LEN) /* 243 */
#define BASENAME_CUT	 (BASENAME_MAX - 1 - BC_ARCHIVE_HASH_LEN)     /* 231 */
#define ARCHIVES	 "archives"

/* ------------------------------------------------------------------ names */

/* Table entry b of the CRC is the carry-less product b x 0x807 (x^11+x^2+x+1). */
static uint64_t crc_entry(unsigned int b)
{
	uint64_t r = 0;

	for (unsigned int i = 0; i < 8; i++)
		if (b & (1u << i))
			r ^= 0x807ULL << i;
	return r;
}

uint64_t bc_archive_crc64(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t crc = 0;

	for (size_t i = 0; i < len; i++)
		crc = (crc << 8) ^ crc_entry((unsigned int)(crc >> 56) ^ p[i]);
	return crc;
}

char *bc_archive_hash_string(char *buf, uint64_t crc)
{
	static const char digits[] =
		"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_";

	for (int i = 0; i < BC_ARCHIVE_HASH_LEN; i++) {
		buf[i] = digits[crc & 63];
		crc >>= 6;
	}
	buf[BC_ARCHIVE_HASH_LEN] = '\0';
	return buf;
}

int bc_archive_name(const char *path, char *name, size_t len)
{
	const char *base = bc_base_name(path);
	size_t blen = strlen(base);
	char dirhash[BC_ARCHIVE_HASH_LEN + 1], namehash[BC_ARCHIVE_HASH_LEN + 1];
	int n;

	if (!blen)
		return -EINVAL;
	/* "a.out" and "./a.out" are the same file */
	bc_archive_hash_string(dirhash, base == path ? bc_archive_crc64("./", 2)
						     : bc_archive_crc64(path, base - path));
	if (blen > BASENAME_MAX) {
		bc_archive_hash_string(namehash, bc_archive_crc64(base, blen));
		n = snprintf(name, len, "%.*s_%s_%s", BASENAME_CUT, base, dirhash, namehash);
	} else {
		n = snprintf(name, len, "%s_%s", base, dirhash);
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

int bc_archive_index_name(const char *name, char *out, size_t len)
{
	size_t nlen = strlen(name), slen = strlen(BC_ARCHIVE_INDEX_SUFFIX);
	char hash[BC_ARCHIVE_HASH_LEN + 1];
	int n;

	if (nlen + slen <= NAME_MAX_GPROFNG)
		n = snprintf(out, len, "%s%s", name, BC_ARCHIVE_INDEX_SUFFIX);
	else
		n = snprintf(out, len, "%.*s_%s%s",
			     (int)(NAME_MAX_GPROFNG - slen - 1 - BC_ARCHIVE_HASH_LEN), name,
			     bc_archive_hash_string(hash, bc_archive_crc64(name, nlen)),
			     BC_ARCHIVE_INDEX_SUFFIX);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

int bc_archive_founder(const char *exp, char *out, size_t len)
{
	char real[PATH_MAX], *slash;
	size_t n = strlen(exp);
	const char *base;

	while (n > 1 && exp[n - 1] == '/')
		n--;
	if (!n || n >= len)
		return n ? -ENAMETOOLONG : -EINVAL;
	memcpy(out, exp, n);
	out[n] = '\0';
	base = bc_base_name(out);
	if (base[0] != '_' || !ends_with(base, strlen(base), ".er") || !realpath(out, real))
		return 0;
	slash = strrchr(real, '/');
	if (!slash || slash == real || !ends_with(real, (size_t)(slash - real), ".er"))
		return 0;
	*slash = '\0';
	return bc_copy_path(out, len, real);
}

static bool has_elf_magic(int fd)
{
	unsigned char m[4];

	return pread(fd, m, 4, 0) == 4 && !memcmp(m, "\177ELF", 4);
}

/* ---------------------------------------------------------------- lookup */

int bc_archive_lookup(const char *exp_path, const char *object_path, char *copy, size_t copylen,
		      struct bc_archive_syms **symsp, char *err, size_t errlen)
{
	char founder[PATH_MAX], name[BC_ARCHIVE_NAME_MAX], idx[BC_ARCHIVE_NAME_MAX];
	char path[PATH_MAX + BC_ARCHIVE_NAME_MAX + 16];
	struct bc_archive_syms *s = NULL;
	bool found = false;
	struct stat st;
	int ret, fd;

	if (copy && copylen)
		copy[0] = '\0';
	if (symsp)
		*symsp = NULL;
	ret = bc_archive_founder(exp_path, founder, sizeof(founder));
	if (!ret && bc_archive_name(object_path, name, sizeof(name)) < 0)
		ret = -EINVAL;
	if (!ret)
		ret = bc_archive_index_name(name, idx, sizeof(idx));
	if (ret) {
		bc_set_err(err, errlen, "%s: no archive name for %s", exp_path, object_path);
		return ret;
	}
	snprintf(path, sizeof(path), "%s/" ARCHIVES "/%s", founder, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0) {
		found = !fstat(fd, &st) && S_ISREG(st.st_mode) && has_elf_magic(fd);
		close(fd);
	}
	if (found && copy && bc_copy_path(copy, copylen, path))
		copy[0] = '\0';
	snprintf(path, sizeof(path), "%s/" ARCHIVES "/%s", founder, idx);
	if (symsp) {
		ret = bc_archive_syms_load(path, &s, err, errlen);
		if (ret == -ENOENT)
			ret = 0;
		else if (ret)
			return ret;
		/* a hash collision, or an index of another file: not ours */
		if (s && strcmp(s->path, object_path)) {
			bc_archive_syms_free(s);
			s = NULL;
		}
		*symsp = s;
	} else if (!faccessat(AT_FDCWD, path, F_OK, 0)) {
		found = true;
	}
	if (!found && !s) {
		bc_set_err(err, errlen, "%s: %s is not archived", founder, object_path);
		return -ENOENT;
	}
	return 0;
}

int bc_archive_parse_limit(const char *s, uint64_t *bytes)
{
	unsigned int shift = 0;
	unsigned long long v;
	char *end;

	if (!s || !*s)
		return -EINVAL;
	if (!strcmp(s, "none") || !strcmp(s, "unlimited")) {
		*bytes = 0;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	}
	if (shift && *end == 'i')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > (UINT64_MAX >> shift))
		return -EINVAL;
	*bytes = (uint64_t)v << shift;
	return 0;
}
