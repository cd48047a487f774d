"""timeit of Plugin._lag_seen (a reader's end; 2 workers, equal: no lag) and of the root
paces' update (_paced, and _windowed where lag40 adds it), on the sizes they really see
(one call per reader / root end of a group with readers registered).
    PYTHONPATH=SRC python timeit_lag_seen.py   (base: PYTHONDONTWRITEBYTECODE=1)"""
import timeit
from types import SimpleNamespace

import tidegate
from tidegate.distributed import Plugin, hooks

ss = [{"action": "transfer", "start": 0.0, "stop": 0.01},
      {"action": "compute", "start": 0.0, "stop": 0.0165}]


def stub():
    s = SimpleNamespace(_lag_ref={}, _lagging={}, _slow_groups=set(),
                        _pace={"load": {"a": (0.16, 0.16), "b": (0.161, 0.16)}},
                        _lag_roots={"load": {"a": (0.16,) * 6, "b": (0.161,) * 6}})
    read = ("load", {})
    for w in "abab":
        Plugin._lag_seen(s, "mean_chunk", read, w, ss)
    return s, read


def best(f, n=20000, repeat=25):
    """the least of ``repeat`` timings of n calls (a loaded machine: the least is the
    call's own cost)"""
    return min(timeit.repeat(f, number=n, repeat=repeat)) / n * n


s, read = stub()
n = 20000
t = best(lambda: Plugin._lag_seen(s, "mean_chunk", read, "b", ss))
print(tidegate.__file__, f"_lag_seen {t / n * 1e9:.0f} ns/call")
paces = {"a": (0.16, 0.16)}
t = best(lambda: hooks._paced(paces, "a", ss))
print(f"_paced {t / n * 1e9:.0f} ns/call")
if hasattr(hooks, "_windowed"):
    w = {"a": (0.16,) * 6}
    t = best(lambda: hooks._windowed(w, "a", ss))
    print(f"_windowed {t / n * 1e9:.0f} ns/call (added per root end of such a group)")
