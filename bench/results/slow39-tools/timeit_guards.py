"""timeit of the guards slow39 added on the per-task path, as they run with no worker
lagging (every workload but a lagging process): the one in _left_processing
(``self._readers and startstops and worker is not None``: _readers empty, or nonempty
with the group not a reader) and one exit test of _decide_worker_non_rootish
(``self._lagging and addr in self._lagging``: empty). Best of 40 repeats of 200,000.

    python bench/results/slow39-tools/timeit_guards.py
"""
import timeit


class P:
    pass


p = P()
p._readers = {}
p._lagging = {}
q = P()
q._readers = {"mean_chunk-x": ("open-u", {})}
ss = [{"action": "compute", "start": 0.0, "stop": 1.0}]


def left_empty(self=p, startstops=ss, worker="w", name="open-u"):
    if self._readers and startstops and worker is not None:
        read = self._readers.get(name)


def left_other(self=q, startstops=ss, worker="w", name="store-map-x"):
    if self._readers and startstops and worker is not None:
        read = self._readers.get(name)
        if read is not None:
            pass


def nothing(self=p, startstops=ss, worker="w", name="open-u"):
    pass


def exit_empty(self=p, addr="tcp://w0"):
    if self._lagging and addr in self._lagging:
        return None
    return addr


def exit_nothing(self=p, addr="tcp://w0"):
    return addr


for f in (nothing, left_empty, left_other, exit_nothing, exit_empty):
    best = min(timeit.repeat(f, number=200_000, repeat=40)) / 200_000
    print(f"{f.__name__:14} {best * 1e9:6.1f} ns a call")
