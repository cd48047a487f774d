"""Compares two sweep_runs.py outputs (OLD NEW): per cell (median of seeds) time / peak /
moved ratios to queue's, and counts of runs over 1.05x time, over queue's peak, bytes.
Also lists cells newly over queue's peak in NEW (median ratio > 1.0001) against OLD and
runs newly over. usage: compare_runs.py OLD.json NEW.json [--all]"""
import json
import statistics
import sys

old, new = (json.load(open(f)) for f in sys.argv[1:3])
show_all = "--all" in sys.argv


def ratios(r):
    q, t = r["queue"], r["tidegate"]
    return t[0] / q[0], t[1] / q[1], t[2] / max(q[2], 1)


cells = {}
for k in old:
    shape, n, mb, seed = k.split()
    cells.setdefault((shape, int(n), mb), []).append(k)
tot = {"old": [0, 0, 0, 0], "new": [0, 0, 0, 0]}
newly_peak_runs = []
newly_peak_cells = []
newly_bytes_cells = []
for k in old:
    for side, d in (("old", old), ("new", new)):
        t, p, m = ratios(d[k])
        c = tot[side]
        c[0] += 1
        c[1] += t > 1.05
        c[2] += p > 1.0001
        c[3] += d[k]["tidegate"][2] > d[k]["queue"][2]
    if ratios(new[k])[1] > 1.0001 and ratios(old[k])[1] <= 1.0001:
        newly_peak_runs.append(k)
print("shape n MB | old time peak moved | new time peak moved (medians of ratios to queue)")
for c, ks in cells.items():
    f = lambda d: [statistics.median(ratios(d[k])[i] for k in ks) for i in range(3)]
    o, nw = f(old), f(new)
    same = all(old[k]["tidegate"] == new[k]["tidegate"] for k in ks)
    if nw[1] > 1.0001 and o[1] <= 1.0001:
        newly_peak_cells.append(c)
    if nw[2] > 1.0001 and o[2] <= 1.0001:
        newly_bytes_cells.append(c)
    if show_all or not same:
        print(f"{c[0]} {c[1]:3d} {c[2]:>4s} | " + " ".join(f"{x:.3f}" for x in o) + " | "
              + " ".join(f"{x:.3f}" for x in nw) + (" SAME" if same else " moved"))
for side in ("old", "new"):
    c = tot[side]
    print(f"{side}: runs {c[0]}, over 1.05x time {c[1]}, over peak {c[2]}, over bytes {c[3]}")
print("cells newly over queue's peak (medians):", len(newly_peak_cells), newly_peak_cells)
print("runs newly over queue's peak:", len(newly_peak_runs), newly_peak_runs)
print("cells newly over queue's bytes (medians):", len(newly_bytes_cells), newly_bytes_cells)
