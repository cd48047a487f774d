"""probe25: what a twin worker holds, by task group, at its peak (bench/probe25_twin.py's
model of a probe24 pipeline), per policy.  python bench/probe25_held.py clim-anom-store [2x1]"""
import collections, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dask.utils import key_split
import probe25_twin as pt
from tidegate.sim import worker as sw

def main(name, shape="2x1"):
    w, t = map(int, shape.split("x"))
    snaps = {}
    orig = sw.SimWorker.handle_stimulus

    def hs(self, *ev):
        orig(self, *ev)
        held = self.state.nbytes
        s = snaps.get(self.address)
        if s is None or held > s[0]:
            c = collections.Counter(); n = collections.Counter()
            for k, ts in self.state.tasks.items():
                if ts.state == "memory":
                    c[key_split(k)] += ts.nbytes; n[key_split(k)] += 1
            snaps[self.address] = (held, self.cluster.clock.now, c, n)
    sw.SimWorker.handle_stimulus = hs
    for pol in ("queue", "tidegate"):
        snaps.clear()
        r = pt.run(name, w, t, policies=(pol,))[0]
        for a, (held, now, c, n) in sorted(snaps.items()):
            print(pol, a[-5:], f"peak {held/1e6:.1f} MB at {now:.2f}s:",
                  ", ".join(f"{g} {n[g]} ({c[g]/1e6:.1f})" for g, _ in c.most_common(6)))

if __name__ == "__main__":
    main(*sys.argv[1:])
