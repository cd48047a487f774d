"""probe25: what a twin worker holds, by task group, at its peak (bench/probe25_twin.py's
model of a probe24 pipeline), per policy.
    python bench/sessions/probe25_held.py clim-anom-store [2x1]"""
import collections
import os
import sys

from dask.utils import key_split

_here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
sys.path.append(_here)  # (each bench script it imports takes bench/ off sys.path again)
import probe25_twin as pt  # noqa: E402

sys.path.append(_here)
from twin_peaks import watch_workers  # noqa: E402


def _by_group(worker):
    """Bytes and tasks in memory per task group."""
    c, n = collections.Counter(), collections.Counter()
    for k, ts in worker.state.tasks.items():
        if ts.state == "memory":
            c[key_split(k)] += ts.nbytes
            n[key_split(k)] += 1
    return c, n


def main(name, shape="2x1"):
    w, t = map(int, shape.split("x"))
    for pol in ("queue", "tidegate"):
        with watch_workers(_by_group, lambda worker, key: None) as snaps:
            pt.run(name, w, t, policies=(pol,))
        for a, (held, now, c, n) in sorted(snaps.items()):
            print(pol, a[-5:], f"peak {held/1e6:.1f} MB at {now:.2f}s:",
                  ", ".join(f"{g} {n[g]} ({c[g]/1e6:.1f})" for g, _ in c.most_common(6)))


if __name__ == "__main__":
    main(*sys.argv[1:])
