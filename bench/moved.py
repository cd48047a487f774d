"""What a change moved, in numbers, on the fingerprint benches' configurations: the twin's
peak per worker, makespan and bytes moved (plugin, sim, graph), or the core's peak held
(core), on the code PYTHONPATH points at or, with ``--against OTHER/src``, base -> new (new:
this checkout's src), each code in its own process, PYTHONHASHSEED=0. ``*``: a row that moved.

    python bench/moved.py plugin anomaly stencil [--exact] [--one-thread] [--against SRC]
        plugin_fingerprints' configurations whose label (name|opts|steps|popts) contains one
        of the words (--exact: whose name is one of them; --one-thread: every one-thread
        configuration but the sweeps), queue and tidegate, the plugin's options to tidegate.
    python bench/moved.py sim anomaly [--exact] [--policies queue,tidegate] [--against SRC]
        sim_fingerprints' configurations whose name contains one of the words, each with its
        own policy (--policies: each of these instead).
    python bench/moved.py graph f-unique:4x2 running-total:4x2 [--against SRC]
        sim_fingerprints' graphs at workers x threads, queue and tidegate.
    python bench/moved.py core anomaly s-anomaly [--shapes 4xinf] [--waves] [--against SRC]
        core_fingerprints' seed workloads (s-: the store form), per threads x budget and seed
        0-1 driven by tidegate.testing.drive: peak held, peak roots and the order of started
        tasks (a digest); --waves: the lock-step time proxy instead of the drive (every
        running task finishes together each tick: ticks, spills).

``--out F.json``: the rows of each code and the command. One script for the measurement that
anomtwin25_{core,plugin,sim}_moved, chain24_{core_,sim_,}moved, core25b_moved, probe25_moved,
probe25_sim_moved, small25_sim_moved and wall24_moved each made for their workloads.
"""
import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]
TWIN = ("queue", "tidegate")


def _twin(r) -> dict:
    return dict(peak=max(r.peak_memory_per_worker), makespan=r.makespan,
                moved=r.bytes_transferred)


def _chosen(a, name, label) -> bool:
    return name in a.names if a.exact else any(w in label for w in a.names)


def plugin(a) -> dict:
    import plugin_fingerprints as pf
    from tidegate.sim import simulate

    folder = os.path.join(tempfile.gettempdir(), a.zarr_folder)
    paths = pf._zarr_inputs(folder)
    out = {}
    for name, opts, steps, popts, store in pf.configs("all"):
        label = f"{name}|{opts}|{steps}|{popts}"
        if a.one_thread and (opts.get("threads_per_worker") != 1 or name.startswith("sweep")):
            continue
        if a.names and not _chosen(a, name, label):
            continue
        model = pf.config_model(name, steps, store, paths, folder)
        out[label] = {p: _twin(simulate(model, policy=p, processes=1, **opts,
                                        **(popts if p == "tidegate" else {})))
                      for p in a.policies or TWIN}  # fmt: skip
    return out


def sim(a) -> dict:
    import sim_fingerprints as sf
    from tidegate.sim import simulate

    built, out = {}, {}
    for name, g, opts in sf.configs():
        if not _chosen(a, name, name):
            continue
        if g not in built:
            built[g] = sf.graph(g)
        x, keys, sizes, durations = built[g]
        out[name] = {p: _twin(simulate(x, keys=keys, sizes=sizes, durations=durations,
                                       **dict(opts, policy=p, processes=1)))
                     for p in a.policies or [opts["policy"]]}  # fmt: skip
    return out


def graph(a) -> dict:
    import sim_fingerprints as sf
    from tidegate.sim import simulate

    out = {}
    for arg in a.names:
        name, shape = arg.split(":")
        w, t = map(int, shape.split("x"))
        x, keys, sizes, durations = sf.graph(name)
        out[arg] = {p: _twin(simulate(x, keys=keys, sizes=sizes, durations=durations, workers=w,
                                      threads_per_worker=t, policy=p, processes=1))
                    for p in a.policies or TWIN}  # fmt: skip
    return out


def waves(core, size, seed):
    """Finish all running tasks together each tick (a lock-step time proxy): (ticks, spills)."""
    from tidegate.core import Finished, Run, Spill

    rng = random.Random(seed)
    running, ticks, spilled = [], 0, 0

    def take(actions):
        nonlocal spilled
        for act in actions:
            if type(act) is Run:
                running.append(act.task)
            elif type(act) is Spill:
                spilled += 1

    take(core.start())
    while running:
        ticks += 1
        batch, running[:] = list(running), []
        rng.shuffle(batch)
        for i in batch:
            take(core.handle(Finished(i, size(i))))
    return ticks, spilled


def core(a) -> dict:
    import core_fingerprints as cf
    from tidegate import bridge
    from tidegate.core import Scheduler
    from tidegate.policy import Policy
    from tidegate.sim.workloads import build
    from tidegate.testing import drive

    out = {}
    for name in a.names:
        store = name.startswith("s-")
        w = build(name[2:] if store else name, 40, 190e6, store=store)
        dsk, plan, sizes = cf._graph(w.graph, w.keys)
        model = w.model().sizes
        for shape in a.shapes.split(","):
            threads, budget = int(shape.split("x")[0]), float(shape.split("x")[1])
            for seed in (0, 1):
                g = bridge.to_taskgraph(plan.tasks, plan.outputs, plan.supplied, "dfs",
                                        plan.dependencies, None, sizes)
                c = Scheduler(g, [(threads, budget)], Policy())
                size = lambda i, g=g: float(model.get(g.keys[i], 8))  # noqa: E731
                if a.waves:
                    ticks, spills = waves(c, size, seed)
                    row = dict(ticks=ticks, spills=spills)
                else:
                    runs, _ = drive(c, seed=seed, size=size)
                    started = repr([g.keys[i] for i in runs]).encode()
                    row = dict(order=hashlib.sha256(started).hexdigest()[:16])
                out[f"{name} {threads}x{budget:.3g} s{seed}"] = {"core": dict(
                    peak=c.workers[0].peak_held, peak_roots=c.peak_roots_held, **row)}
    return out


UNITS = {"peak": (1e6, "MB", ".2f"), "moved": (1e6, "MB", ".2f"), "makespan": (1, "s", ".3f")}


def _value(k, v) -> str:
    scale, unit, f = UNITS.get(k, (1, "", ""))
    return f"{v / scale:{f}}{' ' + unit if unit else ''}" if k in UNITS else str(v)


def show(new: dict, base: dict | None) -> None:
    for config, by in new.items():
        print(config[:120])
        for who, m in by.items():
            b = (base or {}).get(config, {}).get(who)
            parts = []
            for k, v in m.items():
                if k == "order" and b is not None:
                    parts.append("order " + ("same" if b[k] == v else "DIFFERENT"))
                elif b is not None:
                    parts.append(f"{k} {_value(k, b[k])} -> {_value(k, v)}")
                else:
                    parts.append(f"{k} {_value(k, v)}")
            flag = ("  (no base)" if base is not None else "") if b is None else (
                "  *" if b != m else "")
            print(f"   {who:9} " + "  ".join(parts) + flag, flush=True)
        if "queue" in by and "tidegate" in by:
            def tq(rows, k):
                q = rows["queue"][k]
                return f"{rows['tidegate'][k] / q:.2f}" if q else "nan"

            b = (base or {}).get(config)
            print("   tidegate/queue " + ", ".join(
                f"{k} {tq(b, k) + ' -> ' if b else ''}{tq(by, k)}"
                for k in ("peak", "makespan", "moved")))  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kind", choices=("plugin", "sim", "graph", "core"))
    ap.add_argument("names", nargs="*", help="words of a label (plugin, sim), graph:WxT "
                    "(graph) or workload names (core)")
    ap.add_argument("--exact", action="store_true", help="names are whole configuration names")
    ap.add_argument("--one-thread", action="store_true", help="plugin: the one-thread configs")
    ap.add_argument("--policies", type=lambda s: s.split(","), default=None)
    ap.add_argument("--shapes", default="4xinf,2x1.2e9,4x2e9", help="core: THREADSxBUDGET,...")
    ap.add_argument("--waves", action="store_true", help="core: the lock-step time proxy")
    ap.add_argument("--zarr-folder", default="tidegate-twin-zarr", help="plugin: the zarr "
                    "inputs' folder under the temp dir; its path is in the keys, which break "
                    "the twin's ties (plugin_fingerprints': tidegate-twin-zarr)")
    ap.add_argument("--against", default=None, metavar="SRC")
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if not a.names and not (a.kind == "plugin" and a.one_thread):
        ap.error("name the configurations (or plugin --one-thread)")
    if a.child:
        sys.path.append(HERE)
        print(json.dumps({"plugin": plugin, "sim": sim, "graph": graph, "core": core}[a.kind](a)))
        return
    argv = [a.kind, *a.names, "--shapes", a.shapes, "--zarr-folder", a.zarr_folder]
    argv += [f"--{o.replace('_', '-')}" for o in ("exact", "one_thread", "waves") if getattr(a, o)]
    argv += ["--policies", ",".join(a.policies)] if a.policies else []
    codes = [("new", None)]
    if a.against:
        codes = [("new", os.path.join(os.path.dirname(HERE), "src")), ("base", a.against)]
    res = {}
    for label, src in codes:
        env = dict(os.environ, PYTHONHASHSEED="0", **({"PYTHONPATH": src} if src else {}))
        p = subprocess.run([sys.executable, __file__, "--child", *argv], env=env, check=True,
                           stdout=subprocess.PIPE, text=True)
        res[label] = json.loads(p.stdout.strip().splitlines()[-1])
    show(res["new"], res.get("base"))
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"command": "python bench/moved.py " + " ".join(sys.argv[1:]), **res}, f,
                      indent=1)


if __name__ == "__main__":
    main()
