// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "er_traces.h"
#include "bpfcollect/model.h"
#include "bpfcollect/outmode.h"

#define BUF_FLUSH  (64u << 10)
#define MAX_PACKET (BC_ER_IO_SIZE + BC_PATH_LEN + 8)

static const char *const file_names[ER_TRACE_NR] = {"heaptrace", "synctrace", "iotrace"};

static const char common_fields[] =
	"<field name=\"LWPID\" uname=\"Lightweight process id\" offset=\"8\" type=\"INT64\"/>\n"
	"<field name=\"THRID\" uname=\"Thread number\" offset=\"16\" type=\"INT64\"/>\n"
	"<field name=\"CPUID\" uname=\"CPU id\" offset=\"24\" type=\"INT32\"/>\n"
	"<field name=\"TSTAMP\" uname=\"High resolution timestamp\" offset=\"32\" "
	"type=\"INT64\"/>\n"
	"<field name=\"FRINFO\" offset=\"40\" type=\"INT64\"/>\n";

int er_traces_decl(char *buf, size_t len, bool heap, bool sync, uint32_t sync_threshold_us, bool io)
{
	size_t n = 0;
	int k;

	if (len)
		buf[0] = 0;
	if (sync) {
		k = snprintf(buf, len,
			     "<profile name=\"synctrace\" threshold=\"%u\" scope=\"1\">\n"
			     "<profdata fname=\"synctrace\"/>\n"
			     "<profpckt kind=\"%d\" uname=\"Synchronization tracing data\">\n%s"
			     "<field name=\"SRQST\" uname=\"Synchronization start time\" "
			     "offset=\"48\" type=\"INT64\"/>\n"
			     "<field name=\"SOBJ\" uname=\"Synchronization object address\" "
			     "offset=\"56\" type=\"INT64\"/>\n"
			     "</profpckt>\n</profile>\n",
			     sync_threshold_us, BC_ER_SYNC_PACKET, common_fields);
		if (k < 0)
			return k;
		n += (size_t)k;
	}
	if (heap) {
		k = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,
			     "<profile name=\"heaptrace\">\n"
			     "<profdata fname=\"heaptrace\"/>\n"
			     "<profpckt kind=\"%d\" uname=\"Heap tracing data\">\n%s"
			     "<field name=\"HTYPE\" uname=\"Heap trace function type\" "
			     "offset=\"48\" type=\"INT32\"/>\n"
			     "<field name=\"HSIZE\" uname=\"Memory size\" offset=\"56\" "
			     "type=\"UINT64\"/>\n"
			     "<field name=\"HVADDR\" uname=\"Memory address\" offset=\"64\" "
			     "type=\"UINT64\"/>\n"
			     "<field name=\"HOVADDR\" uname=\"Previous memory address\" "
			     "offset=\"72\" type=\"UINT64\"/>\n"
			     "</profpckt>\n</profile>\n",
			     BC_ER_HEAP_PACKET, common_fields);
		if (k < 0)
			return k;
		n += (size_t)k;
	}
	if (io) {
		k = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,
			     "<profile name=\"iotrace\">\n"
			     "<profdata fname=\"iotrace\"/>\n"
			     "<profpckt kind=\"%d\" uname=\"IO tracing data\">\n%s"
			     "<field name=\"IOTYPE\" uname=\"IO trace function type\" "
			     "offset=\"48\" type=\"INT32\"/>\n"
			     "<field name=\"IOFD\" uname=\"File descriptor\" offset=\"52\" "
			     "type=\"INT32\"/>\n"
			     "<field name=\"IONBYTE\" uname=\"Number of bytes\" offset=\"56\" "
			     "type=\"INT64\"/>\n"
			     "<field name=\"IORQST\" uname=\"Time of IO requested\" offset=\"64\" "
			     "type=\"INT64\"/>\n"
			     "<field name=\"IOOFD\" uname=\"Original file descriptor\" "
			     "offset=\"72\" type=\"INT32\"/>\n"
			     "<field name=\"IOFSTYPE\" uname=\"File system type\" offset=\"76\" "
			     "type=\"INT32\"/>\n"
			     "<field name=\"IOFNAME\" uname=\"File name\" offset=\"80\" "
			     "type=\"STRING\"/>\n"
			     "</profpckt>\n</profile>\n",
			     BC_ER_IO_PACKET, common_fields);
		if (k < 0)
			return k;
		n += (size_t)k;
	}
	return (int)n;
}

int er_traces_open(struct er_traces *t, int dirfd, bool heap, bool sync, bool io)
{
	bool want[ER_TRACE_NR] = {heap, sync, io};

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < ER_TRACE_NR; i++)
		t->f[i].fd = -1;
	for (int i = 0; i < ER_TRACE_NR; i++) {
		if (!want[i])
			continue;
		t->f[i].buf = malloc(BUF_FLUSH + MAX_PACKET);
		if (!t->f[i].buf)
			return -ENOMEM;
		t->f[i].fd = bc_out_openat(dirfd, file_names[i],
					   O_WRONLY | O_EXCL | O_APPEND | O_CLOEXEC);
		if (t->f[i].fd < 0)
			return -errno;
	}
	return 0;
}

static int flush_file(struct er_trace_file *f)
{
	size_t done = 0;

	if (f->err)
		return f->err;
	while (done < f->used) {
		ssize_t n = write(f->fd, f->buf + done, f->used - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			f->err = n < 0 ? -errno : -EIO;
			/* Never a torn packet: gprofng would lose the rest of its chunk. */
			if (done && ftruncate(f->fd, (off_t)f->size) < 0)
				f->err = -errno;
			return f->err;
		}
		done += (size_t)n;
	}
	f->size += f->used;
	f->used = 0;
	return 0;
}

int er_traces_flush(struct er_traces *t)
{
	int rc = 0;

	for (int i = 0; i < ER_TRACE_NR; i++) {
		if (t->f[i].fd < 0)
			continue;
		int e = flush_file(&t->f[i]);

		if (e && !rc)
			rc = e;
	}
	return rc;
}

void er_traces_close(struct er_traces *t)
{
	for (int i = 0; i < ER_TRACE_NR; i++) {
		if (t->f[i].fd >= 0)
			close(t->f[i].fd);
		free(t->f[i].buf);
	}
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < ER_TRACE_NR; i++)
		t->f[i].fd = -1;
}

static void put16(char *b, uint16_t v)
{
	memcpy(b, &v, 2);
}

static void put32(char *b, uint32_t v)
{
	memcpy(b, &v, 4);
}

static void put64(char *b, uint64_t v)
{
	memcpy(b, &v, 8);
}

/* The called function's entry as the leaf, then its callers inside their calls. */
static int trace_stack(struct er_profile *frames, uint64_t pc, const __u64 *ips, size_t n,
		       uint64_t *uid)
{
	uint64_t pcs[1 + BC_HEAP_MAX_FRAMES];
	size_t k = 0;

	if (n > BC_HEAP_MAX_FRAMES)
		n = BC_HEAP_MAX_FRAMES;
	if (pc)
		pcs[k++] = pc;
	for (size_t i = 0; i < n; i++)
		pcs[k++] = ips[i] - 1;
	return er_profile_stack(frames, pcs, k, uid);
}

/* Room for one more packet in f; its start, zeroed, with the common head filled. */
static char *packet(struct er_trace_file *f, uint16_t size, uint16_t type,
		    const struct bc_rec_head *h, uint64_t uid)
{
	char *b;

	if (f->used + size > BUF_FLUSH && flush_file(f) < 0)
		return NULL;
	b = f->buf + f->used;
	memset(b, 0, size);
	put16(b, size);
	put16(b + 2, type);
	put64(b + 8, h->tid);
	put64(b + 16, h->tid);
	put64(b + 32, h->ktime);
	put64(b + 40, uid);
	f->used += size;
	f->packets++;
	return b;
}

/*
 * The stack and head of one packet of kind k, size bytes; NULL when k is
 * not traced or on error (*rc).
 */
static char *begin(struct er_traces *t, enum er_trace_kind k, uint16_t size,
		   struct er_profile *frames, const struct bc_rec_head *h, uint64_t pc,
		   const __u64 *ips, size_t n, int *rc)
{
	static const uint16_t type[ER_TRACE_NR] = {BC_ER_HEAP_PACKET, BC_ER_SYNC_PACKET,
						   BC_ER_IO_PACKET};
	struct er_trace_file *f = &t->f[k];
	uint64_t uid;
	char *b;

	*rc = f->fd < 0 ? 0 : f->err;
	if (f->fd < 0 || f->err)
		return NULL;
	*rc = trace_stack(frames, pc, ips, n, &uid);
	if (*rc < 0)
		return NULL;
	b = packet(f, size, type[k], h, uid);
	if (!b)
		*rc = f->err;
	return b;
}

int er_traces_add_heap(struct er_traces *t, struct er_profile *frames, const struct bc_rec_heap *r)
{
	int rc;
	char *b = begin(t, ER_TRACE_HEAP, BC_ER_HEAP_SIZE, frames, &r->h, r->pc, r->ips, r->n_user,
			&rc);

	if (!b)
		return rc;
	put32(b + 48, r->htype);
	put64(b + 56, r->size);
	put64(b + 64, r->addr);
	put64(b + 72, r->old_addr);
	return 0;
}

int er_traces_add_sync(struct er_traces *t, struct er_profile *frames, const struct bc_rec_sync *r)
{
	int rc;
	char *b = begin(t, ER_TRACE_SYNC, BC_ER_SYNC_SIZE, frames, &r->h, r->pc, r->ips, r->n_user,
			&rc);

	if (!b)
		return rc;
	put64(b + 48, r->start_ktime);
	put64(b + 56, r->object);
	return 0;
}

int er_traces_add_io(struct er_traces *t, struct er_profile *frames, const struct bc_rec_io *r)
{
	size_t name_len, n = r->n_user;
	const char *name = bc_io_path(r, &name_len);
	uint16_t size;
	int rc;
	char *b;

	if (sizeof(*r) + 8 * n > r->h.size)
		return -EINVAL;
	/* 80 bytes, the name and its NUL, rounded to 8: gprofng's 88 without a name */
	size = (uint16_t)((BC_ER_IO_SIZE + name_len + 1 + 7) & ~(size_t)7);
	/* frame 0 is the exact pc in the system call's wrapper */
	b = begin(t, ER_TRACE_IO, size, frames, &r->h, n ? r->ips[0] : 0, n ? r->ips + 1 : NULL,
		  n ? n - 1 : 0, &rc);
	if (!b)
		return rc;
	put32(b + 48, r->iotype);
	put32(b + 52, (uint32_t)r->fd);
	put64(b + 56, r->nbyte);
	put64(b + 64, r->start_ktime);
	put32(b + 72, (uint32_t)r->ofd);
	put32(b + 76, r->fstype);
	memcpy(b + 80, name, name_len);
	return 0;
}
