"""anomtwin25: core_fingerprints' anomaly configurations: peak held, and whether the order
of started tasks is the same, for this code and another (``--against OTHER/src``).

    python bench/anomtwin25_core_moved.py --against /tmp/base/src
"""
import argparse, json, math, os, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]


def child():
    sys.path.append(here)
    import core_fingerprints as cf
    from tidegate import bridge
    from tidegate.core import Scheduler
    from tidegate.policy import Policy
    from tidegate.sim.workloads import build
    from tidegate.testing import drive

    out = {}
    for store in (False, True):
        w = build("anomaly", 40, 190e6, store=store)
        dsk, plan, sizes = cf._graph(w.graph, w.keys)
        model = w.model().sizes
        for threads, budget in ((4, math.inf), (2, 1.2e9), (4, 2e9)):
            for seed in (0, 1):
                g = bridge.to_taskgraph(plan.tasks, plan.outputs, plan.supplied, "dfs",
                                        plan.dependencies, None, sizes)
                core = Scheduler(g, [(threads, budget)], Policy())
                runs, _ = drive(core, seed=seed, size=lambda i: float(model.get(g.keys[i], 8)))
                label = f"{'s-' if store else ''}anomaly {threads}x{budget:.3g} s{seed}"
                out[label] = (core.workers[0].peak_held, repr([g.keys[i] for i in runs]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", required=True)
    ap.add_argument("--child", action="store_true")
    a = ap.parse_args()
    if a.child:
        print(json.dumps(child()))
        return
    res = {}
    for label, path in (("new", os.path.join(os.path.dirname(here), "src")), ("base", a.against)):
        env = dict(os.environ, PYTHONPATH=path, PYTHONHASHSEED="0")
        p = subprocess.run([sys.executable, __file__, "--child", "--against", "-"], env=env,
                           check=True, capture_output=True, text=True)
        res[label] = json.loads(p.stdout.strip().splitlines()[-1])
    for k, (peak, order) in res["new"].items():
        bpeak, border = res["base"][k]
        print(f"{k:28} peak held {bpeak / 1e9:6.2f} -> {peak / 1e9:6.2f} GB  "
              f"order {'same' if order == border else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
