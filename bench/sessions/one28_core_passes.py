"""one28 (issue 9 item 4): the thread runtime's core on pickled real graphs
(bench/core26_drive.py's dumps), counting what policy.frees_slot changes: per run, peak
held MB, peak roots held, how often the core asked whether a root completes a consumer
(``_completes_consumer``), how often the answer was yes, and how often policy.frees_slot
would turn that yes into no (the completed consumer's waiting input holds no slot).
Runs every configuration with the rule off (FREES_SLOT 0), on as the plugin's
(FREES_SLOT_THREADS 1) and on every worker (FREES_SLOT_THREADS 99), plus Policy
"priority" (dask threaded's strict order, no withholding) as the reference.

    PYTHONHASHSEED=0 PYTHONPATH=SRC python bench/sessions/one28_core_passes.py DIR 1xinf,2xinf,2x1e8
"""
import glob
import json
import os
import pickle
import statistics
import sys

sys.path[:] = [p for p in sys.path if not p.endswith("bench")]


def main(folder, cfgs, seeds=(0, 1, 2)):
    from tidegate import core as C
    from tidegate import policy as P
    from tidegate.policy import Policy
    from tidegate.testing import drive

    asked = [0, 0, 0]
    ask = C.Scheduler._completes_consumer

    def counted(self, i, w, frees=False):  # (frees: admission's question, since one29)
        old = P.FREES_SLOT, P.FREES_SLOT_THREADS
        try:
            P.FREES_SLOT = 0
            plain = ask(self, i, w, True)
            P.FREES_SLOT, P.FREES_SLOT_THREADS = 3, 99
            strict = ask(self, i, w, True)
        finally:
            P.FREES_SLOT, P.FREES_SLOT_THREADS = old
        asked[0] += 1
        asked[1] += bool(plain)
        asked[2] += bool(plain) and not strict  # (frees_slot would say no, any variant)
        return ask(self, i, w, frees)

    C.Scheduler._completes_consumer = counted
    variants = {"off": ("tidegate", 0, 1), "plugin": ("tidegate", 3, 1),
                "every": ("tidegate", 3, 99), "priority": ("priority", 0, 1)}
    rows = {}
    for path in sorted(glob.glob(os.path.join(folder, "g*.pkl"))):
        with open(path, "rb") as f:
            d = pickle.load(f)
        g = os.path.basename(path)[:-4]
        for cfg in cfgs.split(","):
            threads, budget = int(cfg.split("x")[0]), float(cfg.split("x")[1])
            for name, (pol, bits, most) in variants.items():
                P.FREES_SLOT, P.FREES_SLOT_THREADS = bits, most
                for seed in seeds:
                    asked[:] = [0, 0, 0]
                    c = C.Scheduler(d["graph"], [(threads, budget)], Policy(pol))
                    c.views[:] = d["views"]
                    c.buffer[:] = d["buffer"]
                    runs, _ = drive(c, seed=seed, size=d["size"].__getitem__)
                    rows.setdefault((cfg, name), []).append(dict(
                        g=g, seed=seed, peak_MB=round(c.workers[0].peak_held / 1e6, 2),
                        roots=c.peak_roots_held, spilled_MB=round(c.bytes_spilled / 1e6, 1),
                        asked=asked[0], yes=asked[1], frees_none=asked[2],
                        order=hash(tuple(runs)) % 10**6))
    print(f"{'cfg':10} {'variant':9} {'peak MB med [min..max]':26} {'roots':8} {'spill':6} "
          f"asked yes frees_none  same-as-off")
    for (cfg, name), rs in rows.items():
        peaks = [r["peak_MB"] for r in rs]
        off = rows[(cfg, "off")]
        same = sum(a["order"] == b["order"] for a, b in zip(rs, off))
        print(f"{cfg:10} {name:9} {statistics.median(peaks):7.1f} "
              f"[{min(peaks):.1f}..{max(peaks):.1f}]"
              f"{'':6} {statistics.median([r['roots'] for r in rs]):5} "
              f"{statistics.median([r['spilled_MB'] for r in rs]):6} "
              f"{sum(r['asked'] for r in rs):5} {sum(r['yes'] for r in rs):4} "
              f"{sum(r['frees_none'] for r in rs):5}      {same}/{len(rs)}")
    return {f"{k[0]} {k[1]}": v for k, v in rows.items()}


if __name__ == "__main__":
    out = main(sys.argv[1], sys.argv[2])
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump(out, f, indent=1)
