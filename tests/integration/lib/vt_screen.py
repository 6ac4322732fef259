#!/usr/bin/env python3
"""What a terminal of ROWS x COLS shows after the bytes on stdin: one line per row.

usage: vt_screen.py ROWS COLS < BYTES

Just enough of a VT100 for the status line's tests: printable ASCII,
CR, LF (scrolling inside the scroll region), ESC 7 / ESC 8 (save and
restore the cursor), CSI r (scroll region; homes the cursor), CSI H and f
(move), CSI A (up), CSI K and 2K (erase in line). Other sequences are
skipped. Each row is printed with its trailing blanks cut.
"""
import re
import sys


def main():
    rows, cols = int(sys.argv[1]), int(sys.argv[2])
    data = sys.stdin.buffer.read().decode("latin-1")
    screen = [[" "] * cols for _ in range(rows)]
    r = c = 0
    top, bottom = 0, rows - 1
    saved = (0, 0)

    def linefeed():
        nonlocal r
        if r == bottom:
            del screen[top]
            screen.insert(bottom, [" "] * cols)
        elif r < rows - 1:
            r += 1

    i = 0
    while i < len(data):
        ch = data[i]
        if ch == "\x1b":
            if data[i + 1:i + 2] == "7":
                saved, i = (r, c), i + 2
                continue
            if data[i + 1:i + 2] == "8":
                (r, c), i = saved, i + 2
                continue
            m = re.match(r"\x1b\[([0-9;]*)([A-Za-z])", data[i:])
            if not m:
                i += 1
                continue
            args = [int(a) if a else 0 for a in m.group(1).split(";")] if m.group(1) else []
            op = m.group(2)
            if op == "r":
                top = (args[0] if args and args[0] else 1) - 1
                bottom = (args[1] if len(args) > 1 and args[1] else rows) - 1
                r, c = 0, 0
            elif op in "Hf":
                r = min(rows - 1, max(0, (args[0] if args and args[0] else 1) - 1))
                c = min(cols - 1, max(0, (args[1] if len(args) > 1 and args[1] else 1) - 1))
            elif op == "A":
                r = max(0, r - (args[0] if args and args[0] else 1))
            elif op == "K":
                mode = args[0] if args else 0
                if mode == 2:
                    screen[r] = [" "] * cols
                else:
                    screen[r][c:] = [" "] * (cols - c)
            i += len(m.group(0))
            continue
        if ch == "\r":
            c = 0
        elif ch == "\n":
            linefeed()
        elif " " <= ch <= "~":
            if c >= cols:
                c = 0
                linefeed()
            screen[r][c] = ch
            c += 1
        i += 1
    for row in screen:
        print("".join(row).rstrip())


if __name__ == "__main__":
    main()
