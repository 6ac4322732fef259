// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "bpfcollect/capture.h"
#include "bpfcollect/syscall_filter.h"
#include "bpfcollect/syscall_table.h"
#include "bpfcollect/syscalls.h"

/* Path arguments of the syscalls recorded are captured as strings at entry. */
/* x86-64 numbers of the socket calls whose peer address is captured */
#define NR_CONNECT   42
#define NR_ACCEPT    43
#define NR_SENDTO    44
#define NR_ACCEPT4   288
#define SOCKADDR_MAX 128 /* sizeof(struct sockaddr_storage) */

/*
 * The peer address of a socket call, as a buffer: connect's and sendto's
 * at entry (sized by their length argument), accept's at exit (the kernel
 * writes it; sockaddr_in and the start of sockaddr_in6 fit in 28 bytes).
 */
static void socket_peer(uint32_t nr, struct bc_capture_spec *spec)
{
	struct bc_capture_item_spec it = {
		.source = BC_SRC_ARG, .type = BC_CAP_BUF, .fmt = BC_FMT_BUF, .size = 8};

	switch (nr) {
	case NR_CONNECT:
		it.index = 1;
		it.len_arg = 2;
		it.max_len = SOCKADDR_MAX;
		break;
	case NR_SENDTO:
		it.index = 4;
		it.len_arg = 5;
		it.max_len = SOCKADDR_MAX;
		break;
	case NR_ACCEPT:
	case NR_ACCEPT4:
		it.index = 1;
		it.len_arg = BC_LEN_FIXED;
		it.max_len = 28;
		it.at_exit = 1;
		break;
	default:
		return;
	}
	if (spec->n_entry < BC_MAX_CAPTURES)
		spec->items[spec->n_entry++] = it;
}

static int set_captures(int filter_fd, int fd, unsigned int string_size, char *err, size_t errlen)
{
	for (uint32_t nr = 0; nr < BC_SYSCALL_MAX; nr++) {
		unsigned int mask = bc_syscall_path_args(nr);
		struct bc_capture_spec spec = {0};
		uint8_t on = 0;

		if (bpf_map_lookup_elem(filter_fd, &nr, &on) < 0 || !on)
			continue;
		for (uint8_t i = 0; i < BC_MAX_ARG_REGS; i++) {
			if (!(mask & (1U << i)))
				continue;
			spec.items[spec.n_entry++] = (struct bc_capture_item_spec){
				.source = BC_SRC_ARG,
				.index = i,
				.type = BC_CAP_STR,
				.fmt = BC_FMT_STR,
				.size = 8,
				.len_arg = BC_LEN_FIXED,
				.max_len = (uint16_t)string_size,
			};
		}
		socket_peer(nr, &spec);
		if (!spec.n_entry)
			continue;
		if (bpf_map_update_elem(fd, &nr, &spec, BPF_ANY) < 0) {
			snprintf(err, errlen, "cannot set the syscall captures: %s",
				 strerror(errno));
			return -errno;
		}
	}
	return 0;
}

int bc_syscall_list_parse(const char *list, uint8_t on[BC_SYSCALL_MAX], char *err, size_t errlen)
{
	char *copy, *save = NULL;

	memset(on, 0, BC_SYSCALL_MAX);
	if (!list) {
		/*
		 * uretprobe (335) and uprobe (336) are the tracer's own: the
		 * kernel returns from every probed function through them. Only
		 * an explicit list records them.
		 */
		memset(on, 1, BC_SYSCALL_MAX);
		on[BC_SYSCALL_URETPROBE] = on[BC_SYSCALL_UPROBE] = 0;
		return 0;
	}
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long nr = strtol(tok, &end, 10);

		if (*end || end == tok)
			nr = bc_syscall_nr(tok);
		if (nr < 0 || nr >= BC_SYSCALL_MAX) {
			snprintf(err, errlen,
				 "--syscalls: unknown syscall '%s' (use names like openat or "
				 "numbers below %d)",
				 tok, BC_SYSCALL_MAX);
			free(copy);
			return -EINVAL;
		}
		on[nr] = 1;
	}
	free(copy);
	return 0;
}

static int set_filter(int fd, const char *list, char *err, size_t errlen)
{
	uint8_t on[BC_SYSCALL_MAX], one = 1;
	int rc = bc_syscall_list_parse(list, on, err, errlen);

	if (rc < 0)
		return rc;
	for (uint32_t nr = 0; nr < BC_SYSCALL_MAX; nr++) {
		if (on[nr] && bpf_map_update_elem(fd, &nr, &one, BPF_ANY) < 0) {
			snprintf(err, errlen, "cannot set the syscall filter: %s", strerror(errno));
			return -errno;
		}
	}
	return 0;
}

int bc_syscall_filter_set(int filter_fd, int captures_fd, const char *list,
			  unsigned int string_size, char *err, size_t errlen)
{
	int rc = set_filter(filter_fd, list, err, errlen);

	return rc < 0 ? rc : set_captures(filter_fd, captures_fd, string_size, err, errlen);
}
