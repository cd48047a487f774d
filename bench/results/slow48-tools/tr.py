"""Compact timelines of bench/twin_slow_worker.py runs: [W=4] [SW=..] PYTHONPATH=SRC python tr.py MODE FACTOR [tidegate|queue|both]"""
import sys, os, re, collections
from tidegate import policy
for kv in filter(None, os.environ.get("SW", "").split(",")):
    k, v = kv.split("="); setattr(policy, k, float(v) if "." in v else int(v))
sys.path.insert(0, "/tmp/slow48")
sys.path.insert(0, "/work/wt/slow48/bench")
import trace_slow as TS
mode, f = sys.argv[1], float(sys.argv[2])
which = sys.argv[3] if len(sys.argv) > 3 else "both"
def short(k):
    if isinstance(k, str) and k.startswith("("):
        import ast
        try:
            k = ast.literal_eval(k)
        except Exception:
            pass
    if isinstance(k, tuple):
        n = re.sub(r"-[0-9a-f]{8,}", "", k[0]).replace("mean_combine-partial", "part").replace("mean_chunk", "cm").replace("mean_agg-aggregate", "MEAN").replace("store-map", "st").replace("open-u", "L")
        return f"{n}{k[1]}"
    return str(k)[:10]
for name, r in zip(("queue", "tidegate"), TS.runs(f, mode, int(os.environ.get("W", 2)), steps=int(os.environ.get("STEPS", 12)))):
    if which not in (name, "both"):
        continue
    loads = collections.Counter(t.worker[-4:] for t in r.trace.tasks if t.group.startswith("open-"))
    print(f"== {name} {mode} x{f}: makespan {r.makespan:.3f} peak {max(r.peak_memory_per_worker)/1e6:.0f} MB bytes {r.bytes_transferred/1e6:.0f} loads {dict(loads)}")
    by = collections.defaultdict(list)
    for t in r.trace.tasks:
        by[t.worker].append(t)
    for w in sorted(by):
        print(" --", w[-4:], " ".join(f"{short(t.key)}@{t.start:.3f}-{t.stop:.3f}" for t in sorted(by[w], key=lambda t: t.start) if not str(t.key).startswith("original")))
    for tr in r.trace.transfers:
        if tr.nbytes > 1e6:
            print(f"   xfer {tr.start:.3f}-{tr.stop:.3f} {short(tr.key)} {tr.source[-4:]}->{tr.dest[-4:]} {tr.nbytes/1e6:.0f}MB")
    mx = collections.defaultdict(int)
    for m in r.trace.memory:
        mx[m.worker] = max(mx[m.worker], m.held)
    print("   peak held:", {w[-4:]: round(v / 1e6) for w, v in mx.items()})
