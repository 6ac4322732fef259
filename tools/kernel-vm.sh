#!/usr/bin/env bash
# Boots one of Debian's kernel packages under qemu and runs a command in it,
# on this machine's own root file system: shared read-only over 9p, with a
# tmpfs overlay on top so the guest may write anywhere, and OUT shared
# read-write so what the command leaves there survives the guest.
#
# usage: tools/kernel-vm.sh fetch SERIES
#          the newest linux-image-SERIES.*-amd64-unsigned in the archive,
#          downloaded (apt-get download) and made bootable once, in the cache;
#          prints its directory (vmlinuz, initrd.gz, version)
#        tools/kernel-vm.sh run SERIES OUT [-t SECONDS] -- CMD [ARGS...]
#          boots it with one CPU and runs CMD (as root, in the current
#          directory) inside; the guest's console goes to stdout and to
#          OUT/console; exits with CMD's status, 124 when the guest did not
#          finish in SECONDS (default 1200), 125 when it did not boot
#
# SERIES is a kernel series such as 6.1 or 6.12. The cache is
# $BPFCOLLECT_KERNEL_CACHE, else /var/cache/bpfcollect/kernels. Without the
# archive, a kernel already in the cache is used. There is no KVM here: the
# guest runs under TCG (it boots in about 8 s). One CPU, because TCG's
# text patching on several CPUs makes some kernels Oops.
set -euo pipefail

CACHE=${BPFCOLLECT_KERNEL_CACHE:-/var/cache/bpfcollect/kernels}
# What the guest needs as modules to reach its root (the rest it loads itself).
GUEST_MODULES="virtio_pci 9pnet_virtio 9p overlay"

die() {
	echo "kernel-vm: $*" >&2
	exit 2
}

usage() {
	sed -n '2,/^set -euo/{/^set/d;s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
}

# The newest package name of the series in apt's lists; nothing when none.
newest_package() { # newest_package SERIES
	local re="^linux-image-${1//./\\.}[.-][0-9][0-9.+a-z-]*[0-9]-amd64-unsigned\$"
	apt-cache search --names-only "linux-image-$1" 2>/dev/null | awk '{ print $1 }' |
		{ grep -E "$re" || true; } | sort -V | tail -n 1
}

# Unpacks the package, resolves the modules the guest needs and writes an
# initramfs of busybox, those modules (uncompressed: busybox's insmod reads
# plain ELF) and the init script below.
prepare() { # prepare DEB DIR
	local deb=$1 dir=$2 tmp ver m
	tmp=$(mktemp -d "$CACHE/.prep.XXXXXX")
	dpkg-deb -x "$deb" "$tmp/pkg"
	ver=$(ls "$tmp/pkg/lib/modules")
	depmod -b "$tmp/pkg" "$ver"
	mkdir -p "$tmp/initrd/bin" "$tmp/initrd/mods"
	cp /bin/busybox "$tmp/initrd/bin/busybox"
	: >"$tmp/initrd/mods/order"
	for m in $GUEST_MODULES; do
		modprobe -d "$tmp/pkg" -S "$ver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r m; do
		local base
		base=$(basename "$m")
		case $base in
		*.ko.xz) xz -dc "$m" >"$tmp/initrd/mods/${base%.xz}" ;;
		*.ko.zst) zstd -qdc "$m" >"$tmp/initrd/mods/${base%.zst}" ;;
		*.ko) cp "$m" "$tmp/initrd/mods/$base" ;;
		*) continue ;;
		esac
		basename "$m" | sed 's/\.\(xz\|zst\)$//' >>"$tmp/initrd/mods/order"
	done
	cp "$(dirname "$0")/kernel-vm-init" "$tmp/initrd/init"
	chmod 755 "$tmp/initrd/init"
	(cd "$tmp/initrd" && find . | cpio -o -H newc --quiet | gzip -1) >"$tmp/initrd.gz"
	mkdir -p "$dir.new"
	cp "$tmp/pkg/boot/vmlinuz-$ver" "$dir.new/vmlinuz"
	mv "$tmp/initrd.gz" "$dir.new/initrd.gz"
	echo "$ver" >"$dir.new/version"
	rm -rf "$tmp" "$dir"
	mv "$dir.new" "$dir"
}

# The newest kernel of the series already prepared in the cache: prints its directory.
cached() { # cached SERIES
	local dir
	dir=$(find "$CACHE" -maxdepth 1 -type d -name "linux-image-$1[.-]*" | sort -V | tail -n 1)
	[ -n "$dir" ] && [ -f "$dir/initrd.gz" ] && echo "$dir"
}

fetch() { # fetch SERIES: prints the directory of its prepared kernel
	local series=$1 pkg deb dir
	[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || die "'$series' is not a kernel series (such as 6.1)"
	for c in qemu-system-x86_64 depmod modprobe cpio busybox; do
		command -v "$c" >/dev/null || die "$c is missing (tools/install-deps.sh --kernels installs it)"
	done
	mkdir -p "$CACHE"
	pkg=$(newest_package "$series")
	if [ -z "$pkg" ]; then
		apt-get update -qq >/dev/null 2>&1 || true
		pkg=$(newest_package "$series")
	fi
	if [ -z "$pkg" ]; then
		cached "$series" || die "no linux-image-$series package in apt's lists and none cached in $CACHE"
		return
	fi
	dir="$CACHE/$pkg"
	# the initramfs follows this script's init: made again when that changes
	if [ -f "$dir/initrd.gz" ] && [ "$dir/initrd.gz" -nt "$(dirname "$0")/kernel-vm-init" ]; then
		echo "$dir"
		return
	fi
	deb=$(find "$CACHE" -maxdepth 1 -name "${pkg}_*.deb" | sort -V | tail -n 1)
	if [ -z "$deb" ]; then
		if ! (cd "$CACHE" && apt-get download -q "$pkg" >/dev/null 2>&1); then
			# the archive moved on and the lists did not, or no network
			cached "$series" || die "apt-get download $pkg failed, and no linux-image-$series is cached in $CACHE"
			return
		fi
		deb=$(find "$CACHE" -maxdepth 1 -name "${pkg}_*.deb" | sort -V | tail -n 1)
	fi
	prepare "$deb" "$dir" >&2
	echo "$dir"
}

run() { # run SERIES OUT [-t SECONDS] -- CMD...
	local series=$1 out=$2 limit=1200 dir rc
	shift 2
	if [ "${1:-}" == -t ]; then
		limit=$2
		shift 2
	fi
	[ "${1:-}" == -- ] || usage
	shift
	[ $# -gt 0 ] || usage
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	dir=$(fetch "$series")
	rm -f "$out/rc" "$out/console"
	{
		echo "cd $(printf %q "$PWD")"
		printf '%q ' "$@"
		echo
	} >"$out/cmd"
	set +e
	timeout --foreground -k 10 "$limit" qemu-system-x86_64 -machine q35 -cpu max -smp 1 -m 2048 \
		-nographic -no-reboot -nodefaults -serial stdio -monitor none \
		-fw_cfg name=etc/sercon-port,string=0 \
		-kernel "$dir/vmlinuz" -initrd "$dir/initrd.gz" \
		-append "console=ttyS0 panic=-1 quiet loglevel=4 bc_out=$out" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$out,mount_tag=out,security_model=none,multidevs=remap" \
		</dev/null 2>&1 | tr -d '\r' | sed '/externally provided fw_cfg/d' | tee "$out/console"
	rc=${PIPESTATUS[0]}
	set -e
	[ "$rc" -eq 124 ] && return 124
	[ -f "$out/rc" ] || return 125
	return "$(cat "$out/rc")"
}

[ $# -ge 1 ] || usage
case $1 in
fetch)
	[ $# -eq 2 ] || usage
	fetch "$2"
	;;
run)
	[ $# -ge 4 ] || usage
	shift
	run "$@"
	;;
*) usage ;;
esac
