"""slad47: the cells of ra45-tools/abra.py outputs where OLD and NEW differ (median time /
peak over queuing's), and counts over 1.05x time and over 1.0x peak per side.
    python abdiff.py FILE...
"""
import re
import sys

pat = re.compile(r"^(\S+) steps (\d+) (\S+) n=\d+ old time ([\d.]+) \(max ([\d.]+)\) peak ([\d.]+)"
                 r" \(max ([\d.]+)\).*\| new time ([\d.]+) \(max ([\d.]+)\) peak ([\d.]+) \(max ([\d.]+)\)")
for f in sys.argv[1:]:
    n = moved = 0
    over = {"old": [0, 0], "new": [0, 0]}
    for line in open(f):
        m = pat.match(line)
        if not m:
            continue
        name, steps, shape, ot, otm, op, opm, nt, ntm, np_, npm = m.groups()
        n += 1
        for side, t, p in (("old", ot, op), ("new", nt, np_)):
            over[side][0] += float(t) > 1.05
            over[side][1] += float(p) > 1.0
        if (ot, otm, op, opm) != (nt, ntm, np_, npm):
            moved += 1
            print(f"  {name} {steps} {shape}: time {ot} -> {nt} (max {otm} -> {ntm}), "
                  f"peak {op} -> {np_} (max {opm} -> {npm})")
    print(f"{f}: {moved} of {n} cells moved; medians over 1.05x time / 1.0x peak: "
          f"old {over['old'][0]} / {over['old'][1]}, new {over['new'][0]} / {over['new'][1]}")
