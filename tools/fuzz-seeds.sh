#!/bin/bash
# tools/fuzz-seeds.sh EXP OUTDIR: seed inputs for the fuzz targets from a
# real experiment EXP (with one descendant, _f1.er): OUTDIR/er_read/ (the
# experiment packed as fuzz_er_read.c reads it), OUTDIR/decode/ (its raw
# records end to end), OUTDIR/reccodec/ (the first compact block of its
# function and syscall traces), OUTDIR/xml/ (its log.xml and map.xml). Files
# larger than a seed may be (kallmodsyms, a long trace) are cut.
set -euo pipefail
exp=${1:?usage: tools/fuzz-seeds.sh EXP OUTDIR}
out=${2:?usage: tools/fuzz-seeds.sh EXP OUTDIR}
[ -d "$exp" ] || { echo "fuzz-seeds: $exp is not an experiment directory" >&2; exit 2; }
mkdir -p "$out/er_read" "$out/decode" "$out/reccodec" "$out/xml"

# The order of names[] in tests/fuzz/fuzz_er_read.c: a file's index is its byte.
names=(log.xml map.xml functions overview functrace syscalls proctrace sched samples heap sync io
	usage data.frameinfo profile heaptrace synctrace iotrace kallmodsyms notes _f1.er/log.xml
	_f1.er/map.xml _f1.er/functions _f1.er/functrace _f1.er/proctrace _f1.er/overview
	_f1.er/profile _f1.er/data.frameinfo)
MAX=4096 # bytes of one file in a seed

byte() { printf "\\x$(printf %02x "$1")"; }

pack() { # pack FILE...: each as index, 2-byte little-endian length, bytes
	local i f len
	for f in "$@"; do
		for i in "${!names[@]}"; do
			[ "${names[$i]}" = "$f" ] || continue
			[ -f "$exp/$f" ] || continue
			len=$(stat -c %s "$exp/$f")
			[ "$len" -le $MAX ] || len=$MAX
			byte "$i"
			byte $((len & 255))
			byte $((len >> 8))
			head -c "$len" "$exp/$f"
		done
	done
}

pack "${names[@]}" >"$out/er_read/experiment.bin"
pack log.xml map.xml functions functrace proctrace _f1.er/log.xml _f1.er/map.xml \
	_f1.er/functrace >"$out/er_read/calls.bin"
pack log.xml map.xml data.frameinfo profile heaptrace synctrace iotrace overview \
	>"$out/er_read/gprofng_files.bin"
# "BCB1": a compact file (format 4) holds blocks, not records end to end
compact() { [ -s "$1" ] && [ "$(od -An -tu4 -N 4 "$1" | tr -d ' ')" = 826426178 ]; }
for f in functrace syscalls proctrace sched samples heap sync io usage; do
	[ -f "$exp/$f" ] && ! compact "$exp/$f" && head -c $MAX "$exp/$f"
done >"$out/decode/records.bin"
for f in functrace syscalls; do
	compact "$exp/$f" || continue
	read -r _ len _ < <(od -An -tu4 -N 12 "$exp/$f")
	[ "$len" -le 65536 ] && tail -c +17 "$exp/$f" | head -c "$len" >"$out/reccodec/$f.bin"
done
cp "$exp/log.xml" "$out/xml/log.xml"
cp "$exp/map.xml" "$out/xml/map.xml"
