// SPDX-License-Identifier: MIT
/*
 * The compact encoding of function and system call records (reccodec.h).
 *
 * A record is a tag byte, then fields. The tag's low two bits say what
 * follows: a function entry, a function return, a whole system call, or a
 * record kept raw (any other kind or size: captures, entries and exits of
 * calls that did not come whole). The other bits say which fields are what
 * the thread's state predicts and so are left out. Numbers are LEB128
 * varints; signed ones and differences are zigzag-coded first.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "bpfcollect/reccodec.h"

enum {
	T_ENTRY = 0,
	T_RETURN = 1,
	T_SYSCALL = 2,
	T_RAW = 3,
	T_TYPE = 0x03,
	F_SAME_THREAD = 0x04, /* the previous record's thread */
	F_SEQ_NEXT = 0x08,    /* its sequence number plus one */
	F_CPU_SAME = 0x10,    /* on its last CPU */
	F_DEPTH = 0x20,	      /* at the depth its open calls predict */
	F_A = 0x40, /* return: its entry is the open call at its depth; syscall: entered on the same
		       CPU */
	F_B = 0x80, /* syscall: entered at the same depth */
};

static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint8_t *put_signed(uint8_t *p, int64_t v)
{
	return put_varint(p, zigzag(v));
}

void bc_rc_reset(struct bc_rc_state *s)
{
	s->n = 0;
	s->last = BC_RC_THREADS;
}

/* The thread of (pid, tid), or BC_RC_THREADS when the block has not spoken of it. */
static uint32_t thread_find(const struct bc_rc_state *s, uint32_t pid, uint32_t tid)
{
	for (uint32_t i = s->n; i-- > 0;)
		if (s->threads[i].tid == tid && s->threads[i].pid == pid)
			return i;
	return BC_RC_THREADS;
}

static void thread_new(struct bc_rc_state *s, uint32_t pid, uint32_t tid)
{
	struct bc_rc_thread *t = &s->threads[s->n++];

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
}

static uint32_t expected_depth(const struct bc_rc_thread *t, unsigned int type)
{
	return type == T_RETURN ? t->depth - 1 : t->depth;
}

/* What every kind shares: the thread, sequence number, time, depth. */
static uint8_t *encode_head(struct bc_rc_state *s, struct bc_rc_thread *t, uint32_t idx, bool fresh,
			    const struct bc_rec_head *h, uint8_t *tag, uint8_t *p)
{
	uint32_t depth = expected_depth(t, *tag & T_TYPE);

	if (idx == s->last)
		*tag |= F_SAME_THREAD;
	else
		p = put_varint(p, idx);
	if (fresh) {
		/* a thread new to the block: who it is */
		p = put_varint(p, h->pid);
		p = put_varint(p, h->tid);
	}
	if (h->seq == t->seq + 1)
		*tag |= F_SEQ_NEXT;
	else
		p = put_signed(p, (int64_t)(h->seq - t->seq - 1));
	p = put_signed(p, (int64_t)(h->ktime - t->ktime));
	if (h->depth == depth)
		*tag |= F_DEPTH;
	else
		p = put_signed(p, (int64_t)h->depth - (int64_t)depth);
	return p;
}

static uint8_t *encode_cpu(struct bc_rc_thread *t, uint32_t cpu, uint8_t *tag, uint8_t *p)
{
	if (cpu == t->cpu)
		*tag |= F_CPU_SAME;
	else
		p = put_varint(p, cpu);
	t->cpu = cpu;
	return p;
}

static void thread_after(struct bc_rc_state *s, struct bc_rc_thread *t, uint32_t idx,
			 const struct bc_rec_head *h)
{
	t->seq = h->seq;
	t->ktime = h->ktime;
	s->last = idx;
}

int bc_rc_encode(struct bc_rc_state *s, const struct bc_rec_head *h, uint8_t *out)
{
	unsigned int type;
	struct bc_rc_thread *t;
	uint8_t *p = out + 1, tag;
	uint32_t idx;
	bool fresh;

	if (h->kind == BC_REC_FUNC_ENTRY && h->size == sizeof(struct bc_rec_func_entry))
		type = T_ENTRY;
	else if (h->kind == BC_REC_FUNC_RETURN && h->size == sizeof(struct bc_rec_func_return))
		type = T_RETURN;
	else if (h->kind == BC_REC_SYSCALL && h->size == sizeof(struct bc_rec_syscall))
		type = T_SYSCALL;
	else
		type = T_RAW;
	if (type == T_RAW) {
		out[0] = T_RAW;
		memcpy(out + 1, h, h->size);
		return 1 + h->size;
	}
	idx = thread_find(s, h->pid, h->tid);
	fresh = idx == BC_RC_THREADS;
	if (fresh) {
		if (s->n == BC_RC_THREADS)
			return -ENOSPC;
		idx = s->n;
		thread_new(s, h->pid, h->tid);
	}
	t = &s->threads[idx];
	tag = (uint8_t)type;
	p = encode_head(s, t, idx, fresh, h, &tag, p);
	if (type == T_ENTRY) {
		const struct bc_rec_func_entry *e = (const void *)h;

		p = encode_cpu(t, e->cpu, &tag, p);
		p = put_varint(p, e->func_id);
		p = put_signed(p, (int64_t)(e->sp - t->sp));
		t->sp = e->sp;
		t->frame_func[h->depth % BC_RC_FRAMES] = e->func_id;
		t->frame_ktime[h->depth % BC_RC_FRAMES] = h->ktime;
		t->depth = h->depth + 1;
	} else if (type == T_RETURN) {
		const struct bc_rec_func_return *r = (const void *)h;

		p = encode_cpu(t, r->cpu, &tag, p);
		if (t->frame_func[h->depth % BC_RC_FRAMES] == r->func_id &&
		    t->frame_ktime[h->depth % BC_RC_FRAMES] == r->entry_ktime) {
			tag |= F_A;
		} else {
			p = put_varint(p, r->func_id);
			p = put_signed(p, (int64_t)(h->ktime - r->entry_ktime));
		}
		p = put_signed(p, (int64_t)r->retval);
		t->depth = h->depth;
	} else {
		const struct bc_rec_syscall *c = (const void *)h;

		p = encode_cpu(t, c->cpu, &tag, p);
		p = put_varint(p, c->nr);
		p = put_signed(p, c->ret);
		p = put_signed(p, (int64_t)(h->ktime - c->enter_ktime));
		if (c->enter_cpu == c->cpu)
			tag |= F_A;
		else
			p = put_varint(p, c->enter_cpu);
		if (c->enter_depth == h->depth)
			tag |= F_B;
		else
			p = put_signed(p, (int64_t)c->enter_depth - (int64_t)h->depth);
		for (int i = 0; i < 6; i++) {
			p = put_signed(p, (int64_t)(c->args[i] - t->sys_args[i]));
			t->sys_args[i] = c->args[i];
		}
		t->depth = h->depth;
	}
	thread_after(s, t, idx, h);
	out[0] = tag;
	return (int)(p - out);
}

/* ------------------------------------------------------------ decoding */

struct cursor {
	const uint8_t *p, *end;
	int err;
};

static uint64_t get_varint(struct cursor *c)
{
	uint64_t v = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (c->p >= c->end)
			break;
		b = *c->p++;
		/* the tenth byte holds one bit */
		if (shift == 63 && b > 1)
			break;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->err = -EINVAL;
	return 0;
}

static int64_t get_signed(struct cursor *c)
{
	return unzigzag(get_varint(c));
}

static uint32_t get_u32(struct cursor *c)
{
	uint64_t v = get_varint(c);

	if (v > UINT32_MAX)
		c->err = -EINVAL;
	return (uint32_t)v;
}

/* The thread a record names, new ones added; NULL when the bytes are wrong. */
static struct bc_rc_thread *decode_thread(struct bc_rc_state *s, struct cursor *c, uint8_t tag,
					  uint32_t *idx)
{
	if (tag & F_SAME_THREAD) {
		if (s->last >= s->n)
			return NULL;
		*idx = s->last;
		return &s->threads[*idx];
	}
	*idx = get_u32(c);
	if (c->err || *idx > s->n || *idx == s->last || *idx >= BC_RC_THREADS)
		return NULL;
	if (*idx == s->n) {
		uint32_t pid = get_u32(c), tid = get_u32(c);

		if (c->err)
			return NULL;
		thread_new(s, pid, tid);
	}
	return &s->threads[*idx];
}

static int decode_one(struct bc_rc_state *s, struct cursor *c, uint8_t tag, uint8_t *rec)
{
	unsigned int type = tag & T_TYPE;
	struct bc_rec_head *h = (void *)rec;
	struct bc_rc_thread *t;
	uint32_t idx, cpu;

	if (type == T_ENTRY && (tag & (F_A | F_B)))
		return -EINVAL;
	if (type == T_RETURN && (tag & F_B))
		return -EINVAL;
	t = decode_thread(s, c, tag, &idx);
	if (!t)
		return -EINVAL;
	h->pid = t->pid;
	h->tid = t->tid;
	h->seq = t->seq + 1 + (tag & F_SEQ_NEXT ? 0 : (uint64_t)get_signed(c));
	h->ktime = t->ktime + (uint64_t)get_signed(c);
	h->depth = expected_depth(t, type);
	if (!(tag & F_DEPTH))
		h->depth = (uint32_t)(h->depth + (uint64_t)get_signed(c));
	cpu = tag & F_CPU_SAME ? t->cpu : get_u32(c);
	if (c->err)
		return c->err;
	t->cpu = cpu;
	if (type == T_ENTRY) {
		struct bc_rec_func_entry *e = (void *)rec;

		h->size = sizeof(*e);
		h->kind = BC_REC_FUNC_ENTRY;
		e->cpu = cpu;
		e->func_id = get_u32(c);
		e->sp = t->sp + (uint64_t)get_signed(c);
		t->sp = e->sp;
		t->frame_func[h->depth % BC_RC_FRAMES] = e->func_id;
		t->frame_ktime[h->depth % BC_RC_FRAMES] = h->ktime;
		t->depth = h->depth + 1;
	} else if (type == T_RETURN) {
		struct bc_rec_func_return *r = (void *)rec;

		h->size = sizeof(*r);
		h->kind = BC_REC_FUNC_RETURN;
		r->cpu = cpu;
		if (tag & F_A) {
			r->func_id = t->frame_func[h->depth % BC_RC_FRAMES];
			r->entry_ktime = t->frame_ktime[h->depth % BC_RC_FRAMES];
		} else {
			r->func_id = get_u32(c);
			r->entry_ktime = h->ktime - (uint64_t)get_signed(c);
		}
		r->retval = (uint64_t)get_signed(c);
		t->depth = h->depth;
	} else {
		struct bc_rec_syscall *y = (void *)rec;

		h->size = sizeof(*y);
		h->kind = BC_REC_SYSCALL;
		y->cpu = cpu;
		y->nr = get_u32(c);
		y->ret = get_signed(c);
		y->enter_ktime = h->ktime - (uint64_t)get_signed(c);
		y->enter_cpu = tag & F_A ? cpu : get_u32(c);
		y->enter_depth = h->depth;
		if (!(tag & F_B))
			y->enter_depth = (uint32_t)(h->depth + (uint64_t)get_signed(c));
		for (int i = 0; i < 6; i++) {
			y->args[i] = t->sys_args[i] + (uint64_t)get_signed(c);
			t->sys_args[i] = y->args[i];
		}
		t->depth = h->depth;
	}
	if (c->err)
		return c->err;
	thread_after(s, t, idx, h);
	return 0;
}

int bc_rc_decode(struct bc_rc_state *s, const uint8_t *in, size_t len, uint8_t *out, size_t cap,
		 size_t *used)
{
	struct cursor c = {.p = in, .end = in + len};
	size_t at = *used;
	int n = 0, err;

	bc_rc_reset(s);
	while (c.p < c.end) {
		uint8_t tag = *c.p++;
		struct bc_rec_head h;

		if ((tag & T_TYPE) == T_RAW) {
			if (tag != T_RAW || (size_t)(c.end - c.p) < sizeof(h))
				return -EINVAL;
			memcpy(&h, c.p, sizeof(h));
			if (h.size < sizeof(h) || (h.size & 7) || h.size > (size_t)(c.end - c.p))
				return -EINVAL;
			if (cap - at < h.size)
				return -ENOBUFS;
			memcpy(out + at, c.p, h.size);
			c.p += h.size;
		} else {
			/* the largest kind encoded */
			union {
				struct bc_rec_syscall syscall;
				uint8_t bytes[sizeof(struct bc_rec_syscall)];
			} rec = {0};

			err = decode_one(s, &c, tag, rec.bytes);
			if (err)
				return err;
			memcpy(&h, rec.bytes, sizeof(h));
			if (cap - at < h.size)
				return -ENOBUFS;
			memcpy(out + at, rec.bytes, h.size);
		}
		at += h.size;
		if (n == INT32_MAX)
			return -EINVAL;
		n++;
	}
	*used = at;
	return n;
}
