"""One wall29_small.py run in the twin as per-worker timelines: each worker's tasks by thread,
the transfers, and what each worker held at its peak (sessions 31-34's tr.py made a tool).

    python bench/trace_twin.py SHAPE LAG SEED [--only seed-anomaly] [--naming N]
        [--policy tidegate|queue|eager] [--set NAME=VALUE ...] [--outgoing BYTES/S]
        [--patch FILE.py] [--min-mb 0.5] [--json OUT.json]

SHAPE is WORKERSxTHREADS, LAG the thread lag (s), SEED the twin's seed; --naming as
wall29_small's namings (0: the keys as built). --set gives a switch a value for the run
(ab_twin.py's switches: NAME of tidegate.policy or MODULE.NAME, a Python literal). A key is
shown as its group (the naming's "-n<n>" dropped) and indices; MB are its result's size.
"What a worker held at its peak" is read from dask's WorkerState at the stimulus that raised
its peak (twin_peaks.watch_workers): the keys in memory there, each computed there ("here")
or copied in ("copy"), and the keys in flight to it, of --min-mb or more.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _here)
try:
    import ab_twin  # (with wall29_small, takes bench/ off sys.path: see wall29_small.wall24)
finally:
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
S = ab_twin.S


def short(key: str, naming: int) -> str:
    """'group(i,j)' of a key's text, without the naming's suffix."""
    from dask.utils import key_split

    try:
        k = ast.literal_eval(key)
    except (ValueError, SyntaxError):
        k = key
    name = k[0] if isinstance(k, tuple) else k
    group = key_split(name)
    if naming:
        group = group.removesuffix(f"-n{naming}")
    idx = ",".join(map(str, k[1:])) if isinstance(k, tuple) else ""
    return f"{group[:18]}({idx})"


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shape")
    ap.add_argument("lag", type=float)
    ap.add_argument("seed", type=int)
    ap.add_argument("--only", default="seed-anomaly", help="one workload of wall29_small's")
    ap.add_argument("--naming", type=int, default=0)
    ap.add_argument("--policy", default="tidegate")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--outgoing", type=float, default=200e6,
                    help="bytes/s out of each worker (wall29_small's default; inf: free)")
    ap.add_argument("--measured",
                    default=os.path.join(_here, "results", "wall24-measured.json"))
    ap.add_argument("--patch", action="append", default=[])
    ap.add_argument("--min-mb", type=float, default=0.5,
                    help="keys held or in flight at a peak shown from this size")
    ap.add_argument("--json", help="the timelines and the peaks' holdings to this JSON file")
    a = ap.parse_args(argv)
    S.patch(a.patch)
    names, values = zip(*(s.split("=", 1) for s in a.set)) if a.set else ((), ())
    sw = ab_twin.settings(list(names), list(values), list(values))  # (.., first, value, value)
    twin_peaks = S.wall24().load_bench("twin_peaks.py", "twin_peaks")
    name, model, graphs = next(S.models([a.only], a.measured, a.naming + 1))
    ran: dict = {}
    floor = a.min_mb * 1e6

    def holdings(worker):
        """(keys in memory [(key, bytes, here|copy)], keys in flight [(key, bytes)])."""
        mine = ran.get(worker.address, ())
        mem, flight = [], []
        for ts in worker.state.tasks.values():
            if ts.state == "memory" and ts.nbytes >= floor:
                mem.append((str(ts.key), ts.nbytes, "here" if ts.key in mine else "copy"))
            elif ts.state == "flight" and (ts.nbytes or 0) >= floor:
                flight.append((str(ts.key), ts.nbytes))
        return sorted(mem), sorted(flight)

    with ab_twin.switched(sw), twin_peaks.watch_workers(
            holdings, lambda w, key: ran.setdefault(w.address, set()).add(key)) as snap:
        ab_twin.put(sw, 1)
        r = S.twin(model, graphs[a.naming], a.policy, a.shape, a.lag, a.seed, a.outgoing,
                   record_memory=True)
    tr = r.trace
    n = a.naming
    print(f"{name} {a.policy} {a.shape} lag {a.lag} seed {a.seed} n{n}"
          + "".join(f" {s}" for s in a.set) + f": makespan {r.makespan:.4f} "
          f"peaks {[round(p / 1e6) for p in r.peak_memory_per_worker]} "
          f"moved {r.bytes_transferred / 1e6:.0f}")
    out = {"command": "python bench/trace_twin.py " + " ".join(argv or sys.argv[1:]),
           "makespan": r.makespan, "peaks": r.peak_memory_per_worker,
           "moved": r.bytes_transferred, "workers": {},
           "tasks": [[x.key, x.worker, x.thread, x.start, x.stop, x.nbytes] for x in tr.tasks],
           "transfers": [[x.key, x.source, x.dest, x.start, x.stop, x.nbytes]
                         for x in tr.transfers]}
    workers = sorted({x.worker for x in tr.tasks} | set(snap))
    for wk in workers:
        peak, at, mem, flight = snap.get(wk, (0, 0.0, [], []))
        print(f"== {wk} peak {peak / 1e6:.0f} MB at {at:.4f}")
        for x in sorted((x for x in tr.tasks if x.worker == wk), key=lambda x: x.start):
            print(f"   t{x.thread} {x.start:.4f}-{x.stop:.4f} {short(x.key, n)} "
                  f"{x.nbytes / 1e6:.0f}")
        out["workers"][wk] = {"peak": peak, "at": at, "held": mem, "flight": flight}
    for x in sorted(tr.transfers, key=lambda x: x.start):
        print(f"  xfer {x.start:.4f}-{x.stop:.4f} {short(x.key, n)} {x.source[-6:]}->"
              f"{x.dest[-6:]} {x.nbytes / 1e6:.0f}")
    for wk in workers:
        w = out["workers"][wk]
        held = [f"{short(k, n)} {b / 1e6:.0f} {o}" for k, b, o in w["held"]]
        print(f"HELD {wk[-6:]} @{w['at']:.4f} {sum(b for _, b, _ in w['held']) / 1e6:.0f} MB "
              f"({len(held)} keys): " + ", ".join(held))
        if w["flight"]:
            print(f"  in flight to {wk[-6:]}: " + ", ".join(
                f"{short(k, n)} {b / 1e6:.0f}" for k, b in w["flight"]))
    return ab_twin.dump(out, a.json)


if __name__ == "__main__":
    main()
