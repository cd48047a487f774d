"""timeit of server._inputs_all_here (asked once per non-root task entering processing:
the one per-task path slow38 touched, an empty-set test first) on a store-like task (its
load here, a shared mean elsewhere), against the same function without slow38's test
(compiled from this source with those lines cut, in one process: alternated, best of 40).

    PYTHONPATH=src python bench/results/slow38-tools/timeit_inputs_all_here.py
"""
import inspect
import textwrap
import timeit
from types import SimpleNamespace

from tidegate.distributed import server

src = textwrap.dedent(inspect.getsource(server._inputs_all_here))
cut = src.replace("    if plugin._slow_groups:\n        return False\n", "")
assert cut != src
ns = dict(vars(server))
exec(compile(cut.replace("def _inputs_all_here", "def without"), "without", "exec"), ns)
without = ns["without"]

here, there = object(), object()


def task(nbytes, who, deps=(), readers=1):
    return SimpleNamespace(nbytes=nbytes, who_has={who}, dependencies=list(deps),
                           dependents=set(range(readers)))


load = task(32e6, here, deps=[task(1, here)], readers=2)
mean = task(32e6, there, deps=[task(1, there)], readers=12)
store = SimpleNamespace(processing_on=here, dependencies=[load, mean])
plugin = SimpleNamespace(books=SimpleNamespace(roots_max=32e6), _slow_groups=set())
assert server._inputs_all_here(store, plugin) and without(store, plugin)
n = 100000
best = {"with": [], "without": []}
for _ in range(40):
    for name, fn in (("with", server._inputs_all_here), ("without", without)):
        best[name].append(timeit.timeit(lambda: fn(store, plugin), number=n) / n * 1e9)
print({k: f"{min(v):.0f} ns" for k, v in best.items()})
