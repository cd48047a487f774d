"""Per mode (queue, tidegate main-code runs, STEAL_SPLIT 0 / 2): managed peaks of the busiest
worker, moved MiB, and tasks that finished on another worker than dask first sent them to."""
import glob, json, re, statistics
def short(k):
    m = re.match(r"\('([a-z_\-]+?)-?[0-9a-f]{32}', (\d+)", k)
    return (m.group(1) + "(" + m.group(2) + ")") if m else k[:30]
groups = {"queue": "lc/queue-r*.json", "tidegate (main, r1-r3)": "lc/tidegate-r[123].json",
          "tidegate (rule, r4-r5)": "lc/tidegate-r[45].json",
          "STEAL_SPLIT=0": "lc/split0-r*.json", "STEAL_SPLIT=2": "lc/split2-r*.json"}
for name, pat in groups.items():
    peaks, moved, stolen, loads = [], [], 0, []
    for f in sorted(glob.glob(pat), key=lambda f: int(re.search(r"-r(\d+)", f).group(1))):
        d = json.load(open(f))
        peaks.append(round(d["peak_managed_mb"], 1)); moved.append(round(d["transferred_mb"], 1))
        loads.append(d["load1"])
        proc = {}
        for r in d["where"]["rows"]:
            if r[2] == "processing":
                proc[r[1]] = r[3]
            elif r[2] == "memory" and r[1] in proc and r[3] and proc[r[1]] != r[3] \
                    and "combine" in r[1]:
                stolen += 1
    if peaks:
        print(f"{name:24s} n={len(peaks)} load {min(loads):.1f}-{max(loads):.1f} peak MiB median "
              f"{statistics.median(peaks)} [{min(peaks)}-{max(peaks)}] {peaks}  moved median "
              f"{statistics.median(moved)} [{min(moved)}-{max(moved)}]  combines stolen {stolen}")
