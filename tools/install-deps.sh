#!/bin/sh
# Installs what bpfcollect needs to build, test and benchmark, with apt-get,
# only when something is missing. Safe to run again; needs root.
set -eu

need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# The kernel's include/linux/syscalls.h (syscall prototypes, read by
# tools/gen-syscall-table.sh) ships in a linux-headers-<abi>-common package.
# Any version will do: the table does not depend on the running kernel.
have_kheaders() {
	for f in /usr/src/linux-headers-*-common/include/linux/syscalls.h; do
		[ -r "$f" ] && return 0
	done
	return 1
}
# Name of the current linux-headers-*-common package: the one the
# architecture's linux-headers-<arch> metapackage leads to, else the newest
# one apt knows. Prints nothing when apt knows none.
kheaders_pkg() {
	arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
	flavour=$(apt-cache depends "linux-headers-$arch" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-headers-/ { print $2; exit }')
	if [ -n "$flavour" ]; then
		common=$(apt-cache depends "$flavour" 2>/dev/null |
			awk '$1 == "Depends:" && $2 ~ /^linux-headers-.*-common$/ { print $2; exit }')
		if [ -n "$common" ]; then
			echo "$common"
			return 0
		fi
	fi
	apt-cache search --names-only '^linux-headers-[0-9].*-common$' 2>/dev/null |
		awk '{ print $1 }' | sort -V | tail -n 1
}

for p in clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libcmocka-dev pkg-config make gcc \
         binutils valgrind linux-libc-dev util-linux procps libclang-rt-dev python3; do
	have_pkg "$p" || need="$need $p"
done
# Peers for the benchmark and the cross-checking tests.
if [ "${BPFCOLLECT_NO_PEERS:-0}" != 1 ]; then
	have_cmd bpftrace || need="$need bpftrace"
	have_cmd uftrace || need="$need uftrace"
fi
# gprofng ships in binutils on Debian 12; it must be there to check experiments.
have_cmd gprofng || need="$need binutils"
need_kheaders=0
have_kheaders || need_kheaders=1

if [ -z "$need" ] && [ "$need_kheaders" = 0 ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	if [ "$need_kheaders" = 1 ]; then
		echo "install-deps: no linux-headers-*-common (kernel syscalls.h); run this script as root to install it" >&2
	fi
	if [ -n "$need" ]; then
		echo "install-deps: missing packages:$need; run this script as root" >&2
		exit 1
	fi
	# Only the syscall prototypes are missing: the build degrades, it does not fail.
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
if [ -n "$need" ]; then
	echo "install-deps: installing$need" >&2
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $need >&2
fi
if [ "$need_kheaders" = 1 ]; then
	kh=$(kheaders_pkg)
	if [ -z "$kh" ]; then
		echo "install-deps: no linux-headers-*-common package found; syscall arguments will be shown in hex" >&2
	else
		echo "install-deps: installing $kh (kernel syscall prototypes)" >&2
		# Its prototypes are optional for the build: a failure here is a warning.
		apt-get install -y -qq --no-install-recommends "$kh" >&2 ||
			echo "install-deps: installing $kh failed; syscall arguments will be shown in hex" >&2
	fi
fi
exit 0
