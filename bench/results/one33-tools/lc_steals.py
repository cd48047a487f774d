"""Tasks that finished on another worker than the one dask first sent them to (work
stealing moves a processing task without a transition the plugin sees), per lc_anom run."""
import glob, json, re, sys
for f in sorted(glob.glob(sys.argv[1])):
    d = json.load(open(f))
    proc, steals = {}, []
    for r in d["where"]["rows"]:
        if r[2] == "processing":
            proc[r[1]] = r[3]
        elif r[2] == "memory" and r[1] in proc and r[3] and proc[r[1]] != r[3]:
            m = re.match(r"\('([a-z_\-]+?)-?[0-9a-f]{32}', (\d+)", r[1])
            steals.append(m.group(1) + "(" + m.group(2) + ")" if m else r[1][:25])
    print(f"{f:22s} load {d['load1']:5.2f} managed {d['peak_managed_mb']:6.1f} "
          f"moved {d['transferred_mb']:6.1f} steals {steals}")
