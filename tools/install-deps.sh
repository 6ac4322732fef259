#!/bin/sh
# Installs what bpfcollect needs to build, test and benchmark, with apt-get,
# only when something is missing. Safe to run again; needs root.
set -eu

need=""
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

for p in clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev libcmocka-dev pkg-config make gcc \
         binutils valgrind linux-libc-dev util-linux procps; do
	have_pkg "$p" || need="$need $p"
done
# Peers for the benchmark and the cross-checking tests.
if [ "${BPFCOLLECT_NO_PEERS:-0}" != 1 ]; then
	have_cmd bpftrace || need="$need bpftrace"
fi
# gprofng ships in binutils on Debian 12; it must be there to check experiments.
have_cmd gprofng || need="$need binutils"

if [ -z "$need" ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$need; run this script as root" >&2
	exit 1
fi
echo "install-deps: installing$need" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $need >&2
