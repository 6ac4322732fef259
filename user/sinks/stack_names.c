// SPDX-License-Identifier: MIT
/* Call stacks as paths of named functions (bpfcollect/stack_names.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/stack_names.h"
#include "bpfcollect/state.h"

void bc_stack_names_free(struct bc_stack_names *sn)
{
	bc_pcnamer_free(&sn->namer);
	bc_ksyms_free(&sn->ks);
	bc_fnindex_free(&sn->fns);
	bc_idmap_free(&sn->children);
	free(sn->nodes);
	sn->nodes = NULL;
	sn->n_nodes = sn->cap_nodes = 0;
}

int bc_stack_fn(struct bc_stack_names *sn, const char *name, const char *object)
{
	return bc_fnindex_get(&sn->fns, name, object);
}

/* FNV-1a of the caller's id, the name and the object. */
static uint64_t path_id(uint64_t parent, const struct bc_fnkey *fn)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const char *parts[2] = {fn->name, fn->object};

	for (int i = 0; i < 8; i++)
		h = (h ^ ((parent >> (8 * i)) & 0xff)) * 0x100000001b3ull;
	for (int k = 0; k < 2; k++)
		for (const char *p = parts[k];; p++) {
			h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
			if (!*p)
				break;
		}
	return h;
}

int bc_stack_child(struct bc_stack_names *sn, uint32_t parent, uint32_t fn)
{
	uint64_t key = (uint64_t)parent << 32 | fn;
	uint32_t *slot;

	if (!sn->n_nodes) {
		if (BC_GROW(sn->nodes, sn->cap_nodes, 1))
			return -ENOMEM;
		sn->nodes[0] = (struct bc_stack_node){BC_STACK_ROOT, 0, 0};
		sn->n_nodes = 1;
	}
	if (bc_idmap_get_or_add(&sn->children, key, 0, &slot))
		return -ENOMEM;
	if (*slot)
		return (int)*slot;
	if (sn->n_nodes >= INT32_MAX || BC_GROW(sn->nodes, sn->cap_nodes, sn->n_nodes + 1)) {
		bc_idmap_remove(&sn->children, key);
		return -ENOMEM;
	}
	sn->nodes[sn->n_nodes] =
		(struct bc_stack_node){parent, fn, path_id(sn->nodes[parent].id, &sn->fns.v[fn])};
	*slot = (uint32_t)sn->n_nodes;
	return (int)sn->n_nodes++;
}

bool bc_stack_fn_is_kernel(const struct bc_fnkey *fn)
{
	return !strcmp(fn->object, "vmlinux");
}

/* The segment pid has mapped over pc now, as one-segment list for bc_pcname; false: none. */
static bool segment_of(const struct bc_state *st, uint32_t pid, uint64_t pc, struct bc_segment *seg)
{
	if (!st)
		return false;
	for (size_t i = 0; i < st->maps.n; i++) {
		const struct bc_mapset_entry *m = &st->maps.v[i];

		if (m->pid == pid && pc >= m->start && pc < m->end && m->path) {
			*seg = (struct bc_segment){.start = m->start,
						   .end = m->end,
						   .offset = m->offset,
						   .path = m->path};
			return true;
		}
	}
	return false;
}

/* The function at pc as its index; -ENOENT when gprofng shows no frame there. */
static int fn_at(struct bc_stack_names *sn, uint32_t pid, uint64_t when, uint64_t pc)
{
	struct bc_segment seg;
	struct bc_segments segs = {.v = &seg};
	const char *name, *object;
	int rc;

	if (pc >= BC_KERNEL_SPACE) {
		if (!sn->ks_read && sn->exp && sn->exp[0])
			(void)bc_ksyms_read(sn->exp,
					    &sn->ks); /* none: kernel frames stay unnamed */
		sn->ks_read = true;
	} else if (segment_of(sn->state, pid, pc, &seg)) {
		segs.n = 1;
	}
	rc = bc_pcname(&sn->namer, sn->exp ? sn->exp : "", &segs, &sn->ks, pc, when, &name,
		       &object);
	if (rc < 0)
		return rc;
	if (rc > 0)
		return -ENOENT;
	if (pc >= BC_KERNEL_SPACE && !sn->ks.n)
		name = "[kernel]";
	return bc_stack_fn(sn, name, object);
}

int bc_stack_of(struct bc_stack_names *sn, uint32_t root, uint32_t pid, uint64_t when,
		const __u64 *ips, size_t n, size_t n_kernel)
{
	int node = (int)root;

	/* outermost first: the user frames' last, then the kernel's */
	for (size_t k = n; k-- > 0;) {
		bool leaf = k == 0 || k == n_kernel; /* each part's own innermost frame is exact */
		int fn;

		if (!ips[k])
			continue;
		fn = fn_at(sn, pid, when, leaf ? ips[k] : ips[k] - 1);
		if (fn == -ENOENT)
			continue;
		if (fn < 0)
			return fn;
		node = bc_stack_child(sn, (uint32_t)node, (uint32_t)fn);
		if (node < 0)
			return node;
	}
	return node;
}
