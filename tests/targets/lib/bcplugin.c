// SPDX-License-Identifier: MIT
/* A library tests/targets/family loads with dlopen: traced after it appears. */
#include "../traced.h"

TRACED int tgt_plugin_work(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3;
}
