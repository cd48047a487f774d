"""stencil11: the twin of bench/distributed.py workloads, queue vs tidegate, at several shapes.

    PYTHONPATH=$PWD/src python bench/results/stencil11-twin.py stencil 2x1,4x1,4x2 [200MB/s]
    SIDE=30000 PYTHONPATH=$PWD/src python bench/results/stencil11-twin.py stencil 20x4,100x4

Run from the repository root: the keys (and so the twin's tie-breaks) follow the path of
bench/distributed.py. The stencil's var chunks get their real size (24 kB; the metadata
estimate says 8 MB)."""
import importlib.util, os, sys
root = os.environ.get("TG_ROOT", os.getcwd())
spec = importlib.util.spec_from_file_location("benchd", os.path.join(root, "bench/distributed.py"))
bd = importlib.util.module_from_spec(spec); spec.loader.exec_module(bd)
from tidegate.sim import simulate
from tidegate.sim.model import build_model

names = sys.argv[1].split(",") if len(sys.argv) > 1 else ["stencil"]
shapes = [tuple(map(int, s.split("x"))) for s in (sys.argv[2].split(",") if len(sys.argv) > 2 else ["2x1", "4x1", "4x2"])]
bw = sys.argv[3] if len(sys.argv) > 3 else "200MB/s"
for name in names:
    kw = {"side": int(os.environ["SIDE"])} if os.environ.get("SIDE") else {}
    model = build_model(bd.WORKLOADS[name](**kw), sizes={"overlap-var": 24402, "var": 24402} if name == "stencil" else None)
    for w, t in shapes:
        rs = simulate(model, workers=w, threads_per_worker=t, policy=["queue", "tidegate"], bandwidth=bw, record_memory=False, processes=1)
        q, g = rs
        pq, pg = max(q.peak_memory_per_worker), max(g.peak_memory_per_worker)
        print(f"{name} {w}x{t} {bw}: peak q {pq/2**20:.0f} tg {pg/2**20:.0f} MiB ({pg/pq:.2f}x)  moved q {q.bytes_transferred/2**20:.0f} tg {g.bytes_transferred/2**20:.0f} MiB ({g.bytes_transferred/max(1,q.bytes_transferred):.2f}x)  makespan q {q.makespan:.2f} tg {g.makespan:.2f} ({g.makespan/q.makespan:.2f}x)", flush=True)
