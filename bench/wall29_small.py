"""bench/wall24_twin.py's cells (a bench/distributed.py workload in the twin with its
measured durations, 200 MB/s into each worker, 1 ms latency) over key
namings x twin seeds: tidegate / queue makespan and peak per worker, median [min-max]
(session 29, wall29). Naming n > 0 appends "-n<n>" to every key's name (dask's set order
at the graph's arrival and the twin's ties follow the names); n = 0 is wall24_twin's cell.
Senders are limited too by default (--outgoing 200e6, session 32: a real worker's NIC limits
what it sends as well as what it receives, as the big twin's 1 GB/s in and out); --outgoing inf
gives wall24_twin's free senders (the table's setting until session 31).

    python bench/wall29_small.py [--only seed-weighted] [--shapes 2x2,2x1,4x1]
        [--lags 0.002,0.01] [--namings 3] [--seeds 5] [--outgoing BYTES/S] [-v]
        [--patch FILE.py: exec'd before the runs, e.g. to switch a rule off]
        [--out FILE.json: every run's ratios] [--markdown: a table of the medians at the end]

Its cells are also bench/ab_twin.py's and bench/trace_twin.py's: they import add_cell_args,
patch, models and twin from here (none of which imports tidegate.sim before the patches ran).
"""
import argparse
import json
import os
import statistics
import sys
from pathlib import Path

_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]  # see wall24()
STEPS = 48  # of the seed-* workloads' zarr inputs (wall24-measured.json was measured at 48)


def add_cell_args(ap, only="seed-weighted", seeds=5):
    """The options that choose the cells, as wall29_small takes them."""
    ap.add_argument("--only", default=only, help="workloads, comma separated")
    ap.add_argument("--shapes", default="2x2,2x1,4x1", help="WORKERSxTHREADS, comma separated")
    ap.add_argument("--lags", default="0.002,0.01", help="thread lags (s), comma separated")
    ap.add_argument("--namings", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=seeds)
    ap.add_argument("--measured", default=str(Path(_here) / "results" / "wall24-measured.json"))
    ap.add_argument("--outgoing", type=float, default=200e6,
                    help="bytes/s out of each worker (default 200e6: senders limited, the "
                    "table's setting since session 32; inf: senders free, as wall24_twin)")
    ap.add_argument("-v", action="store_true", help="a line per run")
    ap.add_argument("--patch", action="append", default=[],
                    help="a Python file exec'd before the runs (e.g. to switch a rule off)")


def patch(paths):
    """Each file exec'd once, in a namespace of its own (its functions see its names)."""
    for p in paths:
        exec(compile(Path(p).read_text(), p, "exec"), {"__name__": "__patch__", "__file__": p})


def wall24():
    """bench/wall24_twin.py, imported at first use, after the --patch files ran: a patch that
    replaces a policy function reaches the plugin's modules (they import it by name)."""
    sys.path.insert(0, _here)
    try:
        import wall24_twin
    finally:  # (bench/distributed.py is not the package; wall24_twin's first import does this)
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
    return wall24_twin


def renamed(model, n):
    """(graph, keys, sizes, durations) of the model with "-n<n>" appended to each name."""
    def new(k):
        return (f"{k[0]}-n{n}",) + k[1:] if isinstance(k, tuple) else f"{k}-n{n}"
    ren = {k: new(k) for k in model.dsk}
    dsk = {ren[k]: v.substitute(ren, key=ren[k]) for k, v in model.dsk.items()}
    return (dsk, [ren[k] for k in model.keys], {ren[k]: v for k, v in model.sizes.items()},
            {ren[k]: v for k, v in model.durations.items()})


def models(names, measured, namings):
    """(name, model, graphs) per workload: graphs[n] is naming n (None: the model as built)."""
    w24 = wall24()
    bd = w24._bench()
    bd._INPUTS["steps"] = STEPS
    for name in names:
        model = w24.model_of(bd, name, STEPS, 3, Path(measured))
        yield name, model, [renamed(model, n) if n else None for n in range(namings)]


def twin(model, g, policy, shape, lag, seed, outgoing, record_memory=False):
    """One cell's twin run(s) of ``policy`` (a name or a list) on naming ``g`` of model."""
    from tidegate.sim import simulate

    w, t = map(int, shape.split("x"))
    kw = dict(workers=w, threads_per_worker=t, bandwidth=200e6, outgoing_bandwidth=outgoing,
              latency=0.001, thread_lag=lag, seed=seed, record_memory=record_memory,
              processes=1)
    if g is None:
        return simulate(model, policy=policy, **kw)
    return simulate(g[0], keys=g[1], sizes=g[2], durations=g[3], policy=policy, **kw)


def main(argv=None):
    ap = argparse.ArgumentParser()
    add_cell_args(ap)
    ap.add_argument("--out", help="write every run's ratios (per cell) to this JSON file")
    ap.add_argument("--markdown", action="store_true",
                    help="end with a markdown table: makespan / peak medians per cell, max of each")
    a = ap.parse_args(argv)
    patch(a.patch)
    cells = {}  # (name, shape, lag) -> [(makespan ratio, peak ratio, moved tidegate, moved queue)]
    for name, model, graphs in models(a.only.split(","), a.measured, a.namings):
        for lag in map(float, a.lags.split(",")):
            for shape in a.shapes.split(","):
                rows = []
                for n, g in enumerate(graphs):
                    for seed in range(a.seeds):
                        q, d = twin(model, g, ["queue", "tidegate"], shape, lag, seed,
                                    a.outgoing)
                        mr = d.makespan / q.makespan
                        pr = max(d.peak_memory_per_worker) / max(q.peak_memory_per_worker)
                        rows.append((mr, pr, d.bytes_transferred, q.bytes_transferred))
                        if a.v:
                            print(f"  n{n} s{seed} tg {d.makespan:.4f} q {q.makespan:.4f} "
                                  f"x{mr:.3f} peak {max(d.peak_memory_per_worker) / 1e6:.1f}/"
                                  f"{max(q.peak_memory_per_worker) / 1e6:.1f} moved "
                                  f"{d.bytes_transferred / 1e6:.1f}/"
                                  f"{q.bytes_transferred / 1e6:.1f}")
                cells[name, shape, lag] = rows
                ms = sorted(r[0] for r in rows)
                ps = sorted(r[1] for r in rows)
                mv = sorted(r[2] / r[3] if r[3] else 1.0 for r in rows)
                print(f"{name} {shape} lag{lag * 1e3:g}ms n={len(rows)} makespan "
                      f"{statistics.median(ms):.3f} [{ms[0]:.3f}-{ms[-1]:.3f}] mean "
                      f"{statistics.mean(ms):.3f}  peak {statistics.median(ps):.2f} "
                      f"[{ps[0]:.2f}-{ps[-1]:.2f}]  moved {statistics.median(mv):.2f} "
                      f"[{mv[0]:.2f}-{mv[-1]:.2f}]", flush=True)

    if a.out:
        Path(a.out).write_text(json.dumps(
            [dict(workload=n, shape=s, lag=lg, runs=[dict(zip(("makespan", "peak", "moved",
                                                               "moved_queue"), r)) for r in rows])
             for (n, s, lg), rows in cells.items()], indent=1))
    if a.markdown:
        # One row per workload, one column per shape and lag: makespan / peak ratio medians,
        # and the worst run's of each in brackets (the spread is the point: namings x seeds).
        order = a.shapes.split(",")
        cols = sorted({(s, lg) for _, s, lg in cells}, key=lambda c: (c[1], order.index(c[0])))
        print("\n| workload | " + " | ".join(f"{s}, {lg * 1e3:g} ms" for s, lg in cols) + " |")
        print("|---|" + "---|" * len(cols))
        for name in a.only.split(","):
            out = []
            for s, lg in cols:
                rows = cells[name, s, lg]
                m = [r[0] for r in rows]
                p = [r[1] for r in rows]
                out.append(f"{statistics.median(m):.2f} / {statistics.median(p):.2f} "
                           f"({max(m):.2f} / {max(p):.2f})")
            print(f"| {name} | " + " | ".join(out) + " |")


if __name__ == "__main__":
    main()
