"""rech37: a rolling build's run (grp35's builds, /tmp/grp35/roll/gN.pkl) at its peak: the
peak worker, when, and the keys there that a task finished and whose dependents had not all
finished by then (held, approximately), by group; both policies.
  python rpeak.py g3 2 2x2"""
import collections, re, sys
import cloudpickle
from dask.utils import key_split
from tidegate.sim import simulate

g, seed, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
dsk, out, took, size = cloudpickle.load(open(f"/tmp/grp35/roll/{g}.pkl", "rb"))
w, t = map(int, shape.split("x"))
deps = {}
for k, v in dsk.items():
    for d in getattr(v, "dependencies", ()):
        deps.setdefault(d, []).append(k)
for pol in ("queue", "tidegate"):
    r = simulate(dsk, keys=out, workers=w, threads_per_worker=t, policy=pol,
                 sizes=lambda k: size.get(k, 0), durations=lambda k: took.get(k, 1e-3),
                 seed=seed, bandwidth=1e9, record_memory=True)
    tr = r.trace
    top = max(tr.memory, key=lambda m: m.held)
    print(f"{pol} makespan {r.makespan:.3f} peaks {[round(p / 1e6) for p in r.peak_memory_per_worker]}"
          f" peak {top.held / 1e6:.0f} MB on {top.worker[-4:-2]} at {top.time:.3f}")
    stop = {x.key: x for x in tr.tasks}
    held = collections.Counter()
    n = collections.Counter()
    for x in tr.tasks:
        if x.worker != top.worker or x.stop > top.time or not x.nbytes:
            continue
        users = deps.get(x.key, [])
        if users and all(u in stop and stop[u].stop <= top.time for u in users):
            continue
        held[key_split(x.key)] += x.nbytes
        n[key_split(x.key)] += 1
    print("   held (made there, users not all done):",
          {k: f"{n[k]} x = {v / 1e6:.0f} MB" for k, v in held.most_common()})
    loads = sorted((x for x in tr.tasks if x.worker == top.worker and "open_dataset" in x.key
                    and x.start <= top.time), key=lambda x: x.start)
    print("   loads there by then:", [(re.findall(r"\d+", str(x.key))[0], round(x.start, 2)) for x in loads])
