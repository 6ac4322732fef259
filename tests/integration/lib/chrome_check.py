#!/usr/bin/env python3
"""Reads a -f chrome file and prints facts the timelines test compares.

usage: chrome_check.py FILE QUERY [ARG]
  valid               "ok" when the file is one JSON object with traceEvents
  count PH CAT [NAME] events of phase PH with category CAT among theirs (NAME: only those)
  threads             the thread_name labels, sorted, one per line
  pids                the pids that have events, sorted
  nesting             "ok" when every thread's complete events nest, else the first that does not
  args NAME KEY       the args[KEY] of every complete event NAME, one per line
  lost                the sum of the loss instants' counts
  ts_format           "ok" when every ts in the raw text has exactly three decimals
  frames              "ok" when every sf and parent names a stack frame
  cpu_counters        how many CPU % counters; the lowest and highest user + system +
                      waiting of each but the first (which runs from the process's start)
"""
import json
import re
import sys
from collections import defaultdict


def main():
    path, query = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    with open(path, "rb") as f:
        raw = f.read()
    if query == "ts_format":
        bad = [m for m in re.findall(rb'"ts":(-?[0-9.]+)', raw) if not re.fullmatch(rb"-?[0-9]+\.[0-9]{3}", m)]
        print("ok" if not bad else "bad ts: " + bad[0].decode())
        return
    doc = json.loads(raw.decode("utf-8"))
    events = doc["traceEvents"]
    if query == "valid":
        print("ok" if isinstance(events, list) and events else "no events")
    elif query == "count":
        ph, cat = args[0], args[1]
        name = args[2] if len(args) > 2 else None
        print(sum(1 for e in events if e["ph"] == ph and cat in e.get("cat", "").split(",") and (name is None or e["name"] == name)))
    elif query == "threads":
        for label in sorted(e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"):
            print(label)
    elif query == "pids":
        for pid in sorted({e["pid"] for e in events if e["ph"] != "M"}):
            print(pid)
    elif query == "nesting":
        print(nesting(events))
    elif query == "args":
        for e in events:
            if e["ph"] == "X" and e["name"] == args[0]:
                print(e.get("args", {}).get(args[1], "-"))
    elif query == "lost":
        print(sum(e["args"]["count"] for e in events if e.get("cat") == "loss"))
    elif query == "cpu_counters":
        cpu = [e["args"] for e in events if e["ph"] == "C" and e["name"] == "CPU %"]
        busy = [a["user"] + a["system"] + a["waiting for a CPU"] for a in cpu[1:]]
        print(len(cpu), round(min(busy, default=0), 1), round(max(busy, default=0), 1))
    elif query == "frames":
        frames = doc.get("stackFrames", {})
        refs = [e["sf"] for e in events if "sf" in e] + [f["parent"] for f in frames.values() if "parent" in f]
        missing = [r for r in refs if r not in frames]
        print("ok" if not missing else "missing frame " + str(missing[0]))


def nesting(events):
    """Complete events of a thread, sorted by start (longer first), must close inside their parent."""
    by_tid = defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            start = round(e["ts"] * 1000)
            by_tid[(e["pid"], e["tid"])].append((start, -round(e["dur"] * 1000), e["name"]))
    for key, spans in by_tid.items():
        spans.sort()
        stack = []
        for start, neg_dur, name in spans:
            end = start - neg_dur
            while stack and stack[-1][0] <= start:
                stack.pop()
            if stack and end > stack[-1][0]:
                return "%s at %d ends after %s (thread %s)" % (name, start, stack[-1][1], key[1])
            stack.append((end, name))
    return "ok"


if __name__ == "__main__":
    main()
