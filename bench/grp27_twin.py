"""grp27 (issue 9): probe25's clim-anom-store twin over several graph builds and seeds.

Each build is probe25's cached model (``bench/probe25_twin.py``'s ``model``: the graph
``Client.compute`` sends, every task timed and sized once), saved under its own name, since
key names (a store's fresh folder) and measured durations differ per build and the twin's
results depend on both. Per (shape, build, seed): queue and tidegate, peak (largest worker),
makespan, bytes moved; then per shape the median and max of the tidegate / queue ratios,
naming the build and seed of each worst ratio (grp28).

Per naming also the peak of the sum over workers (how much is held at once) and the
imbalance (workers x largest worker's peak / that sum: where it is held), and per shape
the spread of both policies' own peaks (grp30: over 6 builds x 6 seeds queuing's largest
worker peak ranged 157-241 MB at 2 x 2, tidegate's 164-233; the ratio's max pairs one's
low naming with the other's high one).

    PYTHONPATH=src python bench/grp27_twin.py --build 3          # once: /tmp/grp27/g1..g3.pkl
    PYTHONPATH=src python bench/grp27_twin.py --shapes 2x1,2x2,4x1 --seeds 0,1,2
    PYTHONPATH=src python bench/grp27_twin.py --folder /tmp/grp30 --build 6   # grp30's six
    PYTHONPATH=src python bench/grp27_twin.py --folder /tmp/grp30 --shapes 2x2 --seeds 0,1,2,3,4,5
    PYTHONPATH=src python bench/grp27_twin.py --folder /tmp/grp32/roll --name rolling-max --build 4
    ... --outgoing inf                       # senders free (default: as --bandwidth, 1 GB/s)

grp32: --name (any probe24 workload; builds differ in measured durations, and a store's in
its keys), --bandwidth / --outgoing (the sender model: limited by default, inf = free).
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import statistics
import sys

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

import cloudpickle  # noqa: E402

from tidegate.sim import simulate  # noqa: E402

FOLDER = "/tmp/grp27"
NAME = "clim-anom-store"


def _sum_peak(r) -> float:
    """The largest sum over workers of their held bytes at one instant (r.trace.memory)."""
    held: dict = {}
    total = best = 0.0
    for m in sorted(r.trace.memory, key=lambda m: m.time):
        total += m.held - held.get(m.worker, 0.0)
        held[m.worker] = m.held
        best = max(best, total)
    return best


def build(n: int) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("probe25_twin",
                                                  os.path.join(_here, "probe25_twin.py"))
    p25 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(p25)
    p25.CACHE = os.path.join(FOLDER, "cache")  # (not probe25's own: others read it)
    os.makedirs(FOLDER, exist_ok=True)
    for i in range(1, n + 1):
        dest = os.path.join(FOLDER, f"g{i}.pkl")
        if os.path.exists(dest):
            continue
        cached = os.path.join(p25.CACHE, NAME + ".pkl")
        if os.path.exists(cached):
            os.remove(cached)
        p25.model(NAME)
        shutil.move(cached, dest)


def main(argv=None):
    global FOLDER, NAME
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", type=int, default=0, help="make this many graph builds first")
    ap.add_argument("--shapes", default="2x1,2x2,4x1")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--graphs", default="", help="comma list of build names (g1,...)")
    ap.add_argument("--processes", type=int, default=1, help="simulate's processes")
    ap.add_argument("--folder", default=FOLDER, help="where the builds are (gN.pkl)")
    ap.add_argument("--name", default=NAME, help="probe24 workload the builds are of (--build)")
    ap.add_argument("--bandwidth", type=float, default=1e9, help="each worker's incoming B/s")
    ap.add_argument("--outgoing", type=float, default=None,
                    help="each worker's outgoing B/s (default: --bandwidth; inf: free senders)")
    a = ap.parse_args(argv)
    FOLDER = a.folder
    NAME = a.name
    if a.build:
        build(a.build)
        return
    names = a.graphs.split(",") if a.graphs else sorted(
        os.path.basename(p)[:-4] for p in glob.glob(os.path.join(FOLDER, "g*.pkl")))
    for shape in a.shapes.split(","):
        w, t = map(int, shape.split("x"))
        ratios: dict = {"peak": [], "time": [], "moved": []}
        own: dict = {"q": [], "t": [], "sq": [], "st": [], "iq": [], "it": []}
        labels: list = []
        for g in names:
            with open(os.path.join(FOLDER, g + ".pkl"), "rb") as f:
                dsk, out, took, size = cloudpickle.load(f)
            for seed in map(int, a.seeds.split(",")):
                rs = {r.policy: r for r in simulate(
                    dsk, keys=out, workers=w, threads_per_worker=t,
                    policy=["queue", "tidegate"], sizes=lambda k: size.get(k, 0),
                    durations=lambda k: took.get(k, 1e-3), seed=seed,
                    bandwidth=a.bandwidth, outgoing_bandwidth=a.outgoing,
                    processes=a.processes)}
                q, d = rs["queue"], rs["tidegate"]
                pq, pt = max(q.peak_memory_per_worker) / 1e6, max(d.peak_memory_per_worker) / 1e6
                mq = sum(x.nbytes for x in q.trace.transfers) / 1e6
                mt = sum(x.nbytes for x in d.trace.transfers) / 1e6
                sq, st = _sum_peak(q) / 1e6, _sum_peak(d) / 1e6
                for k, v in (("q", pq), ("t", pt), ("sq", sq), ("st", st),
                             ("iq", w * pq / sq), ("it", w * pt / st)):
                    own[k].append(v)
                labels.append(f"{g} s{seed}")
                ratios["peak"].append(pt / pq)
                ratios["time"].append(d.makespan / q.makespan)
                ratios["moved"].append(mt / mq if mq else float("nan"))
                print(f"{NAME} {shape} {g} s{seed} peak q {pq:6.1f} t {pt:6.1f} ({pt / pq:.2f})"
                      f"  time q {q.makespan:.3f} t {d.makespan:.3f} "
                      f"({d.makespan / q.makespan:.3f})  moved q {mq:6.1f} t {mt:6.1f}"
                      f"  sum q {sq:6.1f} t {st:6.1f} ({st / sq:.2f})"
                      f"  imbalance q {w * pq / sq:.2f} t {w * pt / st:.2f}", flush=True)
        s = {k: (statistics.median(v), max(v)) for k, v in ratios.items()}
        print(f"== {NAME} {shape}: peak/q median {s['peak'][0]:.2f} max {s['peak'][1]:.2f}; "
              f"time/q median {s['time'][0]:.3f} max {s['time'][1]:.3f}; "
              f"moved/q median {s['moved'][0]:.2f} max {s['moved'][1]:.2f}"
              f" (worst: peak {labels[ratios['peak'].index(s['peak'][1])]},"
              f" time {labels[ratios['time'].index(s['time'][1])]})", flush=True)
        m = {k: (statistics.median(v), min(v), max(v)) for k, v in own.items()}
        print(f"   {shape} own peaks, median [min-max] MB: largest worker q {m['q'][0]:.0f}"
              f" [{m['q'][1]:.0f}-{m['q'][2]:.0f}] t {m['t'][0]:.0f} [{m['t'][1]:.0f}-"
              f"{m['t'][2]:.0f}]; sum q {m['sq'][0]:.0f} [{m['sq'][1]:.0f}-{m['sq'][2]:.0f}]"
              f" t {m['st'][0]:.0f} [{m['st'][1]:.0f}-{m['st'][2]:.0f}]; imbalance q"
              f" {m['iq'][0]:.2f} [{m['iq'][1]:.2f}-{m['iq'][2]:.2f}] t {m['it'][0]:.2f}"
              f" [{m['it'][1]:.2f}-{m['it'][2]:.2f}]", flush=True)


if __name__ == "__main__":
    main()
