"""Own bytecodes and calls a task of EVERY function (dask's too) on the twin's scheduler
side, for queue and tidegate, side by side: where tidegate's total differs from queuing's.

    PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=src python allfn.py W SCALE WORKERS [N]
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import plugin_ops  # noqa: E402
from plugin_ops import STEPS, tracing  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402


def count(model, workers, policy):
    per = {}

    def local(frame, event, arg):
        if event == "opcode":
            per[frame.f_code][0] += 1
        return local

    def call(frame, event, arg):
        c = per.get(frame.f_code)
        if c is None:
            c = per[frame.f_code] = [0, 0]
        c[1] += 1
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        return local

    with tracing(call):
        r = simulate(model, workers=workers, threads_per_worker=4, policy=policy,
                     bandwidth="1GB/s", record_memory=False)
    n = len(r.trace.tasks)

    def name(c):
        return f"{os.path.basename(c.co_filename)}:{c.co_firstlineno} {c.co_qualname}"
    out = {}
    for c, (o, k) in per.items():
        key = name(c)
        a = out.setdefault(key, [0.0, 0.0])
        a[0] += o / n
        a[1] += k / n
    return out


def main():
    w, scale, workers = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 60
    wl = build(w, int(STEPS[w] * scale), 190e6, store=False)
    model = build_model(wl.graph, wl.keys, sizes=wl.sizes, durations=wl.durations)
    q = count(model, workers, "queue")
    t = count(model, workers, "tidegate")
    print("queue total", round(sum(v[0] for v in q.values()), 1),
          "tidegate total", round(sum(v[0] for v in t.values()), 1))
    names = set(q) | set(t)
    rows = []
    for k in names:
        qo, qc = q.get(k, (0, 0))
        to, tc = t.get(k, (0, 0))
        rows.append((to - qo, k, qo, qc, to, tc))
    print("non-plugin functions, tidegate - queue (own bytecodes a task):")
    plug = ("tidegate/distributed", "policy.py", "books.py")
    rows.sort(key=lambda r: -abs(r[0]))
    for d, k, qo, qc, to, tc in [r for r in rows if not any(p in r[1] for p in (
            "trim.py", "hooks.py", "admission.py", "placement.py", "policy.py", "books.py",
            "lines.py", "broadcast.py", "held.py", "holders.py", "install.py", "server.py",
            "tasks.py"))][:top]:
        print(f"{d:+9.1f}  q {qo:8.1f} ({qc:5.2f})  t {to:8.1f} ({tc:5.2f})  {k}")


if __name__ == "__main__":
    main()
