"""rechunk18 experiment (dropped, findings 5d): when a root's pending consumers are all single-input
tasks (a rechunk's splits), they run right after it. Same arguments as rechunk18_diag.py."""
import sys, runpy, heapq
import tidegate.core as c
orig = c.Scheduler._pull_consumers
stats = [0]
def pull(self, x, sid):
    if self._root[x]:
        deps = [d for d in self._dependents(x) if self.state[d] in (c.READY, c.WAITING)]
        if deps and all(self._ndeps[d] == 1 and not self._output[d] for d in deps):
            pr = self._priority; base, m = pr[x], len(deps) + 1
            changed = {}
            for r, t in enumerate(sorted(deps, key=pr.__getitem__), 1):
                p = base + r / m
                if p < pr[t]:
                    pr[t] = changed[t] = p
            if changed:
                stats[0] += 1
                ready = self._ready
                ready[:] = [(changed.get(t, p), t) for p, t in ready]
                heapq.heapify(ready)
            return
    return orig(self, x, sid)
c.Scheduler._pull_consumers = pull
import atexit; atexit.register(lambda: print("cut pulls", stats[0]))
sys.argv[0] = "diag.py"
import os
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "rechunk18_diag.py"), run_name="__main__")
