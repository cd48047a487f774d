"""(cpu37a) Join sample.py's own time per function with cpu36a_allfn.py's own bytecodes per
function (same workload, scale, workers): us a task, share, bytecodes a task, calls a task,
ns per bytecode, for tidegate and queue. python join.py SAMPLE.pkl ALLFN.pkl [N]"""
import pickle, statistics, sys
s = pickle.load(open(sys.argv[1], "rb"))
b = pickle.load(open(sys.argv[2], "rb"))
N = int(sys.argv[3]) if len(sys.argv) > 3 else 40
for p in ("tidegate", "queue"):
    runs = s[p]
    tot = statistics.median(r["total"] for r in runs)
    own = {k: statistics.median(r["own"].get(k, 0.0) for r in runs)
           for k in {k for r in runs for k in r["own"]}}
    ops, calls = b[p]
    allops = sum(ops.values())
    print(f"== {p}: {tot:.1f} us/task sampled, {allops:.0f} bytecodes/task, "
          f"{1000 * tot / allops:.1f} ns/bytecode overall")
    print(f"{'us/task':>8} {'share':>6} {'ops/task':>9} {'calls/t':>8} {'ns/op':>6}  function")
    for k in sorted(own, key=lambda k: -own[k])[:N]:
        o = ops.get(k, 0.0)
        print(f"{own[k]:8.2f} {100 * own[k] / tot:5.1f}% {o:9.1f} {calls.get(k, 0):8.2f} "
              f"{(1000 * own[k] / o if o else float('nan')):6.1f}  {k}")
