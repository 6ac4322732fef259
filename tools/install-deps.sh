#!/bin/sh
# Installs what bpfcollect needs to build, test and benchmark, with apt-get,
# only when something is missing. Safe to run again; needs root.
#
# usage: tools/install-deps.sh [--viewers] [--kernels]
#   --viewers  also what the integration test `viewer` opens exports in:
#              chromium and chromium-driver (apt), node and npm when missing,
#              and speedscope's static build (npm package, pinned in
#              tools/viewers.conf) in /var/cache/bpfcollect/viewers
#   --kernels  also what the integration test `kernels` boots: qemu, busybox,
#              kmod and cpio (apt), and the newest of Debian's 6.1 and 6.12
#              kernel packages (apt-get download), made bootable by
#              tools/kernel-vm.sh in /var/cache/bpfcollect/kernels
set -eu

viewers=0
kernels=0
for arg in "$@"; do
	case $arg in
	--viewers) viewers=1 ;;
	--kernels) kernels=1 ;;
	-h | --help)
		sed -n '2,/^set -eu/{/^set/d;s/^# \{0,1\}//;p}' "$0"
		exit 0
		;;
	*)
		echo "install-deps: unknown option '$arg' (usage: tools/install-deps.sh [--viewers] [--kernels])" >&2
		exit 2
		;;
	esac
done

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

for p in clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev libcmocka-dev libcapstone-dev pkg-config make gcc g++ \
         binutils valgrind linux-libc-dev util-linux procps libclang-rt-dev python3 time; do
	have_pkg "$p" || need="$need $p"
done
# Peers for the benchmark and the cross-checking tests.
if [ "${BPFCOLLECT_NO_PEERS:-0}" != 1 ]; then
	have_cmd bpftrace || need="$need bpftrace"
	have_cmd uftrace || need="$need uftrace"
	# Go programs built by the safety tests
	have_cmd go || need="$need golang-go"
	# the debugger whose breakpoints -P must leave working (test debugger)
	have_cmd gdb || need="$need gdb"
fi
# gprofng ships in binutils on Debian 12; it must be there to check experiments.
have_cmd gprofng || need="$need binutils"
need_kheaders=0
have_kheaders || need_kheaders=1
# The viewer test's browser and its driver. fonts-liberation is only a
# Recommends of chromium, which --no-install-recommends drops: without it
# the screenshots' text falls back to whatever font fontconfig finds.
if [ "$viewers" = 1 ]; then
	have_cmd chromium || need="$need chromium"
	have_cmd chromedriver || need="$need chromium-driver"
	have_pkg fonts-liberation || need="$need fonts-liberation"
	# node and npm may come from elsewhere (NodeSource's nodejs ships npm):
	# a command that is there is enough.
	have_cmd node || need="$need nodejs"
	have_cmd npm || need="$need npm"
fi

# The kernel matrix's guests: qemu under TCG, an initramfs of busybox and
# the kernel's own modules (depmod, modprobe and cpio make it).
if [ "$kernels" = 1 ]; then
	have_cmd qemu-system-x86_64 || need="$need qemu-system-x86"
	have_cmd busybox || need="$need busybox-static"
	have_cmd depmod || need="$need kmod"
	have_cmd cpio || need="$need cpio"
fi

# speedscope's static build, from its npm package at the pinned version,
# into a fresh directory renamed into place: a run that stops half-way
# leaves nothing that passes for an install. Needs npm.
install_speedscope() {
	# shellcheck source=tools/viewers.conf
	. "$(dirname "$0")/viewers.conf"
	[ -f "$SPEEDSCOPE_STATIC/index.html" ] && return 0
	if ! mkdir -p "$VIEWERS_DIR" 2>/dev/null || [ ! -w "$VIEWERS_DIR" ]; then
		echo "install-deps: cannot write $VIEWERS_DIR for speedscope; run this script as root (or set BPFCOLLECT_VIEWERS)" >&2
		return 1
	fi
	echo "install-deps: installing speedscope $SPEEDSCOPE_VERSION (npm) in $SPEEDSCOPE_DIR" >&2
	tmp=$(mktemp -d "$VIEWERS_DIR/.speedscope.XXXXXX") || return 1
	# npm pack fetches the package's tarball alone (no dependencies, no
	# install scripts; the static build needs none); its cache is ours.
	if ! (cd "$tmp" && npm pack --no-audit --no-fund --silent --cache "$tmp/npm-cache" \
		"speedscope@$SPEEDSCOPE_VERSION" </dev/null >pack.out); then
		rm -rf "$tmp"
		echo "install-deps: npm pack speedscope@$SPEEDSCOPE_VERSION failed" >&2
		return 1
	fi
	tgz="$tmp/speedscope-$SPEEDSCOPE_VERSION.tgz"
	sum=$(sha1sum "$tgz" 2>/dev/null | cut -d' ' -f1)
	if [ "$sum" != "$SPEEDSCOPE_SHA1" ]; then
		rm -rf "$tmp"
		echo "install-deps: speedscope-$SPEEDSCOPE_VERSION.tgz has sha1 ${sum:-none}, not the pinned $SPEEDSCOPE_SHA1" >&2
		return 1
	fi
	if ! mkdir "$tmp/pkg" || ! tar -xzf "$tgz" -C "$tmp/pkg" --strip-components=1 --no-same-owner ||
		[ ! -f "$tmp/pkg/dist/release/index.html" ]; then
		rm -rf "$tmp"
		echo "install-deps: speedscope $SPEEDSCOPE_VERSION has no dist/release/index.html" >&2
		return 1
	fi
	# Another run may have won the race: then its copy stays.
	mv -T "$tmp/pkg" "$SPEEDSCOPE_DIR" 2>/dev/null || [ -f "$SPEEDSCOPE_STATIC/index.html" ]
	rc=$?
	rm -rf "$tmp"
	return $rc
}

# The kernels themselves: each series' newest package, fetched once.
fetch_kernels() {
	for series in ${KERNEL_SERIES:-6.1 6.12}; do
		"$(dirname "$0")/kernel-vm.sh" fetch "$series" >/dev/null || return 1
	done
}

viewers_done() { # the last step of every successful way out
	if [ "$viewers" = 1 ]; then
		install_speedscope || exit 1
	fi
	if [ "$kernels" = 1 ]; then
		fetch_kernels || exit 1
	fi
	exit 0
}

if [ -z "$need" ] && [ "$need_kheaders" = 0 ]; then
	viewers_done
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
	viewers_done
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
viewers_done
