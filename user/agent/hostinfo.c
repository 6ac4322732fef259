// SPDX-License-Identifier: MIT
/* The machine and a process's ids, for the session (see bpfcollect/hostinfo.h). */
#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bpfcollect/hostinfo.h"

void bc_host_read(struct bc_host *h)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	struct utsname u;
	char line[256];
	int cpu = -1;
	double mhz;

	memset(h, 0, sizeof(*h));
	if (uname(&u) == 0) {
		snprintf(h->hostname, sizeof(h->hostname), "%s", u.nodename);
		snprintf(h->arch, sizeof(h->arch), "%s", u.machine);
		snprintf(h->release, sizeof(h->release), "%s", u.release);
	}
	h->pagesz = sysconf(_SC_PAGESIZE);
	h->npages = sysconf(_SC_PHYS_PAGES);
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "processor : %d", &cpu) == 1)
			continue;
		if (cpu >= 0 && cpu < BC_HOST_MAX_CPUS &&
		    sscanf(line, "cpu MHz : %lf", &mhz) == 1) {
			h->cpu_mhz[cpu] = (unsigned int)(mhz + 0.5);
			if ((unsigned int)cpu + 1 > h->ncpus)
				h->ncpus = (unsigned int)cpu + 1;
			cpu = -1;
		}
	}
	if (f)
		fclose(f);
	/* no "cpu MHz" lines (some VMs, other arches): still how many there are */
	if (!h->ncpus) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		h->ncpus = n > 0 && n <= BC_HOST_MAX_CPUS ? (unsigned int)n : 1;
	}
}

void bc_proc_ids(uint32_t pid, int32_t *ppid, int32_t *pgrp, int32_t *sid)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	*ppid = *pgrp = *sid = 0;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	/* comm may hold anything, ')' included: the fields follow the last ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d %d %d", ppid, pgrp, sid) != 3)
		*ppid = *pgrp = *sid = 0;
}

uint32_t bc_host_ipv4(void)
{
	struct ifaddrs *ifs, *i;
	uint32_t ip = 0;

	if (getifaddrs(&ifs) < 0)
		return 0;
	for (i = ifs; i && !ip; i = i->ifa_next) {
		uint32_t a;

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
		    (i->ifa_flags & IFF_LOOPBACK))
			continue;
		a = ntohl(((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr.s_addr);
		if (a >> 24 != 127 && a)
			ip = a;
	}
	freeifaddrs(ifs);
	return ip;
}
