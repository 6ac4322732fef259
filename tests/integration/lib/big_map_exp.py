#!/usr/bin/env python3
"""Writes an experiment whose map.xml is huge, without tracing anything.

usage: big_map_exp.py EXP CYCLES

What a process that dlopens and dlcloses libm CYCLES times (one cycle a
microsecond) would leave: map.xml holds the executable's segment, then for
each cycle libm's r-x segment and its unmap (~274 bytes a cycle: 1.1
million cycles make 300 MB). The data is small: 1000 calls of one probed
function (functrace, format 2 records) and 1000 clock samples (profile,
data.frameinfo) in libm's __acosh_finite called from the executable, each
while one of the mappings is live. log.xml says what a closed bpfcollect
experiment says, so gprofng opens it as well.
"""
import os
import struct
import sys

T0 = 1000 * 10**9  # the run's CLOCK_MONOTONIC ns
PID = 4242
EXE = "/usr/bin/true"
LIB = "/usr/lib/x86_64-linux-gnu/libm.so.6"
EXE_VADDR = 0x555555554000
# libm's r-x LOAD segment (file offset 0x10000, 0x74000 bytes, Debian 12)
LIB_VADDR, LIB_SIZE, LIB_FOFF = 0x7F0000010000, 0x74000, 0x10000
LIB_PC = LIB_VADDR + 0x25690 - LIB_FOFF  # in __acosh_finite (file offset 0x25680)
EXE_PC = EXE_VADDR + 0x10
STACK_UID = 0x1234567
CALLS = 1000


def tstamp(ns):
    return "%d.%09d" % (ns // 10**9, ns % 10**9)


def put(exp, name, data):
    with open(os.path.join(exp, name), "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def functrace(cycles):
    recs, seq = [], 0
    for i in range(CALLS):
        t = T0 + i * (cycles // CALLS) * 1000 + 500
        seq += 1  # FUNC_ENTRY: func_id, cpu, sp
        recs.append(struct.pack("<HHIIIQQIIQ", 48, 0x101, 0, PID, PID, seq, t, 0, 0, 0x7FFC0000))
        seq += 1  # FUNC_RETURN: func_id, cpu, entry_ktime, retval
        recs.append(struct.pack("<HHIIIQQIIQQ", 56, 0x102, 0, PID, PID, seq, t + 100, 0, 0, t, 0))
    return b"".join(recs)


def profile(cycles):
    # clock packets: tsize, type 8, LWPID, THRID, CPUID, TSTAMP, FRINFO, MSTATE, NTICK, pad
    return b"".join(
        struct.pack("<HHIQQIQQiiI", 56, 8, 0, PID, PID, 0,
                    T0 + i * (cycles // CALLS) * 1000 + 250, STACK_UID, 0, 1, 0)
        for i in range(CALLS))


def frameinfo():
    block = struct.pack("<IIQQQ", 32, 1, STACK_UID, LIB_PC, EXE_PC)
    return struct.pack("<HHIQ", 16 + len(block), 11, 16, STACK_UID) + block


def log_xml(cycles, records):
    end = cycles * 1000 + 10**6
    fields = [("LWPID", 8, "INT64"), ("THRID", 16, "INT64"), ("CPUID", 24, "INT32"),
              ("TSTAMP", 28, "INT64"), ("FRINFO", 36, "INT64"), ("MSTATE", 44, "INT32"),
              ("NTICK", 48, "INT32")]
    comment = '<event kind="comment" id="400">bpfcollect: %s</event>\n'
    return "".join([
        '<experiment version="12.4">\n<collector>bpfcollect 0.1.0</collector>\n</experiment>\n',
        '<process pid="%d"></process>\n<process>%s</process>\n' % (PID, EXE),
        '<profile name="profile" ptimer="10000" numstates="2">\n<profdata fname="profile"/>\n',
        '<profpckt kind="8" uname="Clock profiling data">\n',
        "".join('<field name="%s" offset="%d" type="%s"/>\n' % f for f in fields),
        "</profpckt>\n</profile>\n",
        '<event kind="run" tstamp="%s" time="1700000000" tm_zone="0"/>\n' % tstamp(T0),
        comment % "format=2 version=0.1.0",
        comment % ("session exp_profile_us=10000 exp_root_pid=%d exp_extra_pids=-" % PID),
        comment % ("command: " + EXE),
        comment % ("lost func=0 syscall=0 proc=0 sample=0 sched=0 events=%d" % records),
        comment % ("end end_ktime=%d exit_status=0 bad_records=0 records=%d mappings=%d"
                   % (T0 + end, records, cycles + 1)),
        '<event kind="exit" tstamp="%s"/>\n' % tstamp(end),
    ])


def map_xml(exp, cycles):
    seg = ('<event kind="map" object="segment" tstamp="%s" vaddr="0x%016X" size="%d" '
           'pagesz="4096" foffset="+0x%08X" modes="0x005" chksum="0x0" name="%s"/>\n')
    unmap = '<event kind="unmap" tstamp="%s" vaddr="0x%016X"/>\n'
    with open(os.path.join(exp, "map.xml"), "w") as f:
        f.write(seg % (tstamp(0), EXE_VADDR, 4096, 0x1000, EXE))
        lines = []
        for i in range(cycles):
            lines.append(seg % (tstamp(i * 1000), LIB_VADDR, LIB_SIZE, LIB_FOFF, LIB))
            lines.append(unmap % (tstamp(i * 1000 + 500), LIB_VADDR))
            if len(lines) >= 20000:
                f.write("".join(lines))
                lines = []
        f.write("".join(lines))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    exp, cycles = sys.argv[1], int(sys.argv[2])
    if cycles < CALLS:
        sys.exit("big_map_exp.py: at least %d cycles" % CALLS)
    os.makedirs(exp, mode=0o700)
    put(exp, "functrace", functrace(cycles))
    put(exp, "profile", profile(cycles))
    put(exp, "data.frameinfo", frameinfo())
    put(exp, "functions", "# id\tobject\toffset\taddr\tsize\tname\n0\t%s\t0x1000\t0x1000\t16\twork\n"
        % EXE)
    put(exp, "log.xml", log_xml(cycles, 2 * CALLS))
    map_xml(exp, cycles)


if __name__ == "__main__":
    main()
