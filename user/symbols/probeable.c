// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/probeable.h"

int bc_insn_probeable(const uint8_t *code, size_t len, const char **why)
{
	size_t i = 0;

	*why = NULL;
	/* Legacy prefixes come first, in any order; then an optional REX. */
	for (; i < len; i++) {
		switch (code[i]) {
		case 0xf0:
			*why = "LOCK prefix";
			return -ENOTSUP;
		case 0x26:
		case 0x2e:
		case 0x36:
		case 0x3e:
			*why = "segment-override prefix";
			return -ENOTSUP;
		case 0x64:
		case 0x65:
		case 0x66:
		case 0x67:
		case 0xf2:
		case 0xf3:
			continue;
		}
		break;
	}
	if (i < len && (code[i] & 0xf0) == 0x40)
		i++;
	if (i >= len) {
		*why = "no instruction bytes";
		return -ENOTSUP;
	}
	switch (code[i]) {
	case 0xcc:
	case 0xcd:
	case 0xce:
	case 0xcf:
	case 0xf1:
		*why = "interrupt instruction";
		return -ENOTSUP;
	case 0xf4:
		*why = "hlt";
		return -ENOTSUP;
	case 0x06: /* push/pop of segment registers, BCD and far ops: invalid in 64-bit mode */
	case 0x07:
	case 0x0e:
	case 0x16:
	case 0x17:
	case 0x1e:
	case 0x1f:
	case 0x27:
	case 0x2f:
	case 0x37:
	case 0x3f:
	case 0x60:
	case 0x61:
	case 0x62:
	case 0x82:
	case 0x9a:
	case 0xd4:
	case 0xd5:
	case 0xd6:
	case 0xea:
		*why = "instruction invalid in 64-bit mode";
		return -ENOTSUP;
	}
	return 0;
}

int bc_functab_drop_unprobeable(struct bc_functab *funcs,
				void (*warn)(const struct bc_func *f, const char *why))
{
	const char *open_path = NULL;
	int fd = -1, dropped = 0;
	size_t kept = 0;

	for (size_t i = 0; i < funcs->n; i++) {
		struct bc_func *f = &funcs->v[i];
		uint8_t code[16];
		const char *why = NULL;
		ssize_t n;

		if (!open_path || strcmp(open_path, f->object) != 0) {
			if (fd >= 0)
				close(fd);
			fd = open(f->object, O_RDONLY | O_CLOEXEC);
			open_path = f->object;
		}
		/* An unreadable object is the attach's to report; keep the function. */
		n = fd >= 0 ? pread(fd, code, sizeof(code), (off_t)f->offset) : -1;
		if (n > 0 && bc_insn_probeable(code, (size_t)n, &why) < 0) {
			if (warn)
				warn(f, why);
			free(f->name);
			free(f->object);
			open_path = NULL; /* freed with f->object */
			if (fd >= 0)
				close(fd);
			fd = -1;
			dropped++;
			continue;
		}
		funcs->v[kept] = *f;
		funcs->v[kept].id = (uint32_t)kept;
		kept++;
	}
	if (fd >= 0)
		close(fd);
	funcs->n = kept;
	return dropped;
}
