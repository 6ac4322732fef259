// SPDX-License-Identifier: MIT
/* The shadow call stack of a traced thread; see include/bpfcollect/shadow_stack.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "bpfcollect/shadow_stack.h"

void bc_stack_free(struct bc_shadow_stack *s)
{
	free(s->frames);
	bc_idmap_free(&s->active);
	memset(s, 0, sizeof(*s));
}

uint32_t bc_stack_open(const struct bc_shadow_stack *s, uint32_t func_id)
{
	const uint32_t *active = bc_idmap_find(&s->active, func_id);

	return active ? *active : 0;
}

int bc_stack_push(struct bc_shadow_stack *s, uint32_t func_id, uint32_t tag, uint64_t ktime)
{
	uint32_t *active;
	int err;

	err = BC_GROW(s->frames, s->cap, s->depth + 1);
	if (err)
		return err;
	err = bc_idmap_get_or_add(&s->active, func_id, 0, &active);
	if (err)
		return err;
	(*active)++;
	s->frames[s->depth++] = (struct bc_frame){
		.func_id = func_id,
		.tag = tag,
		.entry_ktime = ktime,
	};
	return 0;
}

/* Pops the top frame; returns how many frames of its function stay open. */
static uint32_t pop(struct bc_shadow_stack *s, struct bc_frame *f)
{
	uint32_t *active;

	*f = s->frames[--s->depth];
	active = bc_idmap_find(&s->active, f->func_id);
	if (active && *active)
		(*active)--;
	return active ? *active : 0;
}

/* The nearest frame of func_id below the top depth frames, or NULL. */
static struct bc_frame *enclosing(struct bc_shadow_stack *s, uint32_t func_id)
{
	for (size_t i = s->depth; i-- > 0;)
		if (s->frames[i].func_id == func_id)
			return &s->frames[i];
	return NULL;
}

/*
 * A frame of a recursive function ended (returned, incl_ns; or dropped):
 * the next frame of it below keeps what was not counted as inclusive.
 */
static void pass_nested(struct bc_shadow_stack *s, const struct bc_frame *f, uint64_t incl_ns)
{
	struct bc_frame *outer = enclosing(s, f->func_id);

	if (outer)
		outer->nested_incl_ns += incl_ns ? incl_ns : f->nested_incl_ns;
}

static void drop_top(struct bc_shadow_stack *s, bc_frame_drop_fn dropped, void *ctx)
{
	struct bc_frame f;

	f.outermost = pop(s, &f) == 0;
	if (!f.outermost)
		pass_nested(s, &f, 0);
	if (dropped)
		dropped(ctx, &f);
}

void bc_stack_drop_all(struct bc_shadow_stack *s, bc_frame_drop_fn dropped, void *ctx)
{
	while (s->depth)
		drop_top(s, dropped, ctx);
}

/*
 * The frame a return closes: the topmost open frame of the function, except
 * that a deeper frame of it whose entry time is exactly the return's
 * entry_ktime wins. That matters in recursion: when an inner frame lost its
 * return, the outer frame's return must not be taken for the inner one's.
 * Frames are pushed in time order, so once a fallback is found the search
 * stops where entry times fall below entry_ktime. -1 when nothing matches.
 */
static ssize_t find_frame(const struct bc_shadow_stack *s, uint32_t func_id, uint64_t entry_ktime)
{
	ssize_t topmost = -1;

	for (size_t i = s->depth; i-- > 0;) {
		const struct bc_frame *f = &s->frames[i];

		if (topmost >= 0 && f->entry_ktime < entry_ktime)
			break;
		if (f->func_id != func_id)
			continue;
		if (topmost < 0)
			topmost = (ssize_t)i;
		if (!entry_ktime || f->entry_ktime == entry_ktime)
			return (ssize_t)i;
	}
	return topmost;
}

int bc_stack_return(struct bc_shadow_stack *s, uint32_t func_id, uint64_t entry_ktime,
		    uint64_t ktime, bc_frame_drop_fn dropped, void *ctx,
		    struct bc_frame_return *ret)
{
	ssize_t match = find_frame(s, func_id, entry_ktime);
	struct bc_frame *f = &ret->frame;

	if (match < 0)
		return -ENOENT;
	while (s->depth > (size_t)match + 1)
		drop_top(s, dropped, ctx);
	ret->outermost = pop(s, f) == 0;
	f->outermost = ret->outermost;
	/* Clamp: a corrupt experiment must not wrap times around. */
	ret->incl_ns = ktime > f->entry_ktime ? ktime - f->entry_ktime : 0;
	ret->excl_ns = ret->incl_ns > f->child_ns ? ret->incl_ns - f->child_ns : 0;
	if (!ret->outermost)
		pass_nested(s, f, ret->incl_ns);
	if (s->depth)
		s->frames[s->depth - 1].child_ns += ret->incl_ns;
	return 0;
}
