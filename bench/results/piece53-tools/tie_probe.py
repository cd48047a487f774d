"""Probe of rev51m's tie graph: C_i = f(M_i, F_i), M_i a load read by C_i and E_i,
F_i = piece i of one big root R. Prints time / peak / moved for queue and tidegate.
usage: tie_probe.py N SHAPE [SIZE_MB] [SEEDS] [switch=value ...]"""
import sys
import tidegate.policy as P
from tidegate.sim import simulate


def f(*a):
    return None


def graph(n, msize=100e6):
    dsk = {("R", 0): (f,)}
    keys = []
    for i in range(n):
        dsk[("F", i)] = (f, ("R", 0))
        dsk[("M", i)] = (f,)
        dsk[("E", i)] = (f, ("M", i))
        dsk[("C", i)] = (f, ("M", i), ("F", i))
        keys += [("C", i), ("E", i)]
    size = {"R": 100e6 * n, "F": 100e6, "M": msize, "E": 1e3, "C": 1e3}
    dur = {"R": 1.0, "F": 0.05, "M": 1.0, "E": 0.1, "C": 1.0}
    return dsk, keys, size, dur


def run(n, shape, policy, seed=0, msize=100e6, **kw):
    w, t = map(int, shape.split("x"))
    dsk, keys, size, dur = graph(n, msize)
    return simulate(dsk, keys=keys, sizes=lambda k: size[k[0]],
                    durations=lambda k: dur[k[0]], policy=policy, workers=w,
                    threads_per_worker=t, seed=seed, record_memory=False, processes=1, **kw)


if __name__ == "__main__":
    n = int(sys.argv[1]); shape = sys.argv[2]
    msize = float(sys.argv[3]) * 1e6 if len(sys.argv) > 3 else 100e6
    seeds = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    for a in sys.argv[5:]:
        k, v = a.split("=")
        setattr(P, k, type(getattr(P, k))(float(v)) if "." in v else int(v))
    for pol in ("queue", "tidegate"):
        for seed in range(seeds):
            r = run(n, shape, pol, seed, msize)
            print(f"{pol:9s} seed={seed} time {r.makespan:.3f} peak "
                  f"{max(r.peak_memory_per_worker)/1e6:.0f} "
                  f"sum {sum(r.peak_memory_per_worker)/1e6:.0f} "
                  f"moved {r.bytes_transferred/1e6:.0f} MB")
