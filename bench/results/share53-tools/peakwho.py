"""What the peak worker held at its peak, by key group, for the twin anomaly (build(),
store form): share53's probe.

    python peakwho.py STEPS WxT [SEED] [NAME=VALUE ...]   (policy switches, e.g.
    KEPT_SHARE_MOST=999); prints the policy's makespan and peak, then for the 3 highest
    peaks: worker, peak MB, time, counts of held keys by group, and loads run by worker.
"""
import ast
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from dask.utils import key_split  # noqa: E402

import twin_peaks  # noqa: E402
from tidegate import policy  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402

steps = int(sys.argv[1])
w, t = map(int, sys.argv[2].split("x"))
seed = int(sys.argv[3]) if len(sys.argv) > 3 and "=" not in sys.argv[3] else 0
for kv in (a for a in sys.argv[3:] if "=" in a):
    k, v = kv.split("=", 1)
    setattr(policy, k, ast.literal_eval(v))
pol = os.environ.get("POL", "tidegate")
model = build("anomaly", steps, 190e6, store=True).model()
ran = collections.defaultdict(collections.Counter)


def snapshot(worker):
    st = worker.state
    c = collections.Counter(key_split(k) for k in st.data)
    fl = collections.Counter(key_split(k) for k in st.in_flight_tasks)
    return dict(c), dict(fl)


def ended(worker, key):
    ran[worker.address][key_split(key)] += 1


with twin_peaks.watch_workers(snapshot, ended) as snap:
    r, = simulate(model, workers=w, threads_per_worker=t, seed=seed, policy=[pol],
                  record_memory=False, processes=1)
print(f"{pol} makespan {r.makespan:.3f} peak {max(r.peak_memory_per_worker)/1e6:.0f} MB "
      f"bytes {r.bytes_transferred/1e9:.2f} GB")
top = sorted(snap.items(), key=lambda kv: -kv[1][0])
for addr, (n, when, held, fl) in top[:3]:
    print(f"  {addr[-6:]} peak {n/1e6:.0f} MB at {when:.3f}: held {held} flight {fl}")
    print(f"     ran {dict(ran[addr])}")
loads = sorted((sum(v for k, v in c.items() if 'mean' not in k and 'finalize' not in k),
                a[-6:]) for a, c in ran.items())
print("  tasks run (non-mean) per worker, min/max:", loads[0], loads[-1])
