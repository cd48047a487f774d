"""res27: peak / makespan / bytes moved of the plugin-fingerprint twin traces that
policy.FREES_SLOT moves (bench/plugin_fingerprints.py's configs), queue, and tidegate with
the switch off (main's decisions) and on, in one process.

    python bench/res27_moved.py [--json F] [NAME|key-with-opts ...]
"""
import json
import os
import sys
import tempfile

import tidegate.policy as P  # (first: importing tidegate drops bench/ from sys.path)

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
sys.path.append(here)
import plugin_fingerprints as pf  # noqa: E402
from tidegate.sim import simulate  # noqa: E402

MOVED = [  # (name, workers, threads, memory_limit option) that moved in /tmp/res27-fp.log
    ("anomaly", 20, {}), ("anomaly", 100, {}), ("anomaly", 20, {"memory_limit": 0.5}),
    ("rechunk-add", 20, {}), ("rechunk-add", 100, {}),
    ("zarr-anomaly", 4, {}), ("zarr-rechunk-add", 4, {}), ("zarr-vorticity-files", 4, {}),
    ("stencil-6000-s0", 2, {}),
]

if __name__ == "__main__":
    args = sys.argv[1:]
    out = None
    if args[:1] == ["--json"]:
        out, args = args[1], args[2:]
    want = set(args)
    folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
    paths = pf._zarr_inputs(folder)
    rows = []
    for name, opts, steps, popts, store in pf.configs("all"):
        base = name.removeprefix("store:")
        hit = [m for m in MOVED if m[0] == base and m[1] == opts["workers"] and m[2] == popts
               and (base != "stencil-6000-s0" or opts["threads_per_worker"] == 1)]
        if not hit or (want and name not in want):
            continue
        model = pf.config_model(name, steps, store, paths, folder)
        row = {"name": name, "opts": str(opts), "popts": str(popts)}
        for label, policy, switch in (("queue", "queue", False), ("main", "tidegate", False),
                                      ("frees", "tidegate", int(os.environ.get("RES27_BITS", "3")))):
            P.FREES_SLOT = switch
            r = simulate(model, policy=policy, processes=1, **opts, **popts)
            row[label] = (max(r.peak_memory_per_worker) / 1e6, r.makespan, r.bytes_transferred / 1e6)
        P.FREES_SLOT = False
        rows.append(row)
        q, m, f = row["queue"], row["main"], row["frees"]
        print(f"{name:24s} {opts['workers']}x{opts['threads_per_worker']} {popts or ''}: "
              f"peak q {q[0]:8.1f} main {m[0]:8.1f} frees {f[0]:8.1f} MB | makespan q {q[1]:7.3f} "
              f"main {m[1]:7.3f} frees {f[1]:7.3f} s | moved q {q[2]:8.0f} main {m[2]:8.0f} "
              f"frees {f[2]:8.0f} MB", flush=True)
    if out:
        with open(out, "w") as fh:
            json.dump(rows, fh, indent=1)
