// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/outmode.h"
#include "er_overview.h"

/* Whole records only: a write stopped part-way is cut back. */
static int append(struct er_overview *ov, const uint8_t *rec)
{
	ssize_t n = write(ov->fd, rec, BC_OVERVIEW_REC_SIZE);

	if (n == BC_OVERVIEW_REC_SIZE) {
		ov->size += BC_OVERVIEW_REC_SIZE;
		return 0;
	}
	int err = n < 0 ? -errno : -ENOSPC;

	if (ftruncate(ov->fd, (off_t)ov->size) < 0) {
		/* nothing more to do: the reader ignores a torn tail */
	}
	return err;
}

int er_overview_open(struct er_overview *ov, int dirfd, uint32_t pid, uint64_t start_ktime)
{
	uint8_t rec[BC_OVERVIEW_REC_SIZE];
	int err;

	memset(ov, 0, sizeof(*ov));
	ov->pid = pid;
	ov->fd = bc_out_openat(dirfd, "overview", O_WRONLY | O_EXCL | O_APPEND | O_CLOEXEC);
	if (ov->fd < 0)
		return -errno;
	ov->last.tstamp = start_ktime;
	ov->last.create = start_ktime;
	bc_overview_encode(&ov->last, pid, rec);
	err = append(ov, rec);
	if (!err)
		ov->next_id = 1;
	return err;
}

int er_overview_add(struct er_overview *ov, const struct bc_usage *u)
{
	uint8_t rec[BC_OVERVIEW_REC_SIZE];
	struct bc_usage cur = *u;
	int err;

	if (ov->fd < 0 || ov->final)
		return -EINVAL;
	if (!cur.create)
		cur.create = ov->last.create;
	if (cur.tstamp < ov->last.tstamp)
		cur.tstamp = ov->last.tstamp;
	bc_usage_carry(&ov->last, &cur);
	bc_overview_encode(&cur, ov->pid, rec);
	err = append(ov, rec);
	if (err)
		return err;
	ov->last = cur;
	return (int)ov->next_id++;
}

void er_overview_from_exit(const struct bc_rec_exit *x, struct bc_usage *u)
{
	uint64_t utime = x->utime, stime = x->stime;

	/* tick-sampled user/system split, scaled to the exact CPU time, as /proc does */
	bc_cputime_adjust(x->sum_exec, &utime, &stime);
	bc_usage_from_task(u, x->h.ktime, x->start_time, utime, stime, x->run_delay, x->nvcsw,
			   x->nivcsw, x->min_flt, x->maj_flt);
}

void er_overview_close(struct er_overview *ov)
{
	if (ov->fd >= 0)
		close(ov->fd);
	ov->fd = -1;
}
