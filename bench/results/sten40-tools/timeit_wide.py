"""timeit of what BESIDE_WIDE adds where it cannot act (workers under eight threads):
policy.may_load_beside (its new ``wide`` argument, default False) on the arguments it sees
on one-, two- and four-thread workers, base against this branch; and, on the branch,
policy.asks_wide (Books._beside_wide's first test, asked after _beside_light refused).

    PYTHONDONTWRITEBYTECODE=1 python bench/results/sten40-tools/timeit_wide.py \
        /work/base40/src /work/wt/sten40/src
"""
import importlib.util
import sys
import timeit

# (threads, roots_processing, processing)
CASES = [(1, 0, 3), (2, 1, 4), (4, 1, 9), (4, 0, 14), (4, 2, 5), (4, 2, 8), (20, 2, 30)]


def load(src, name):
    spec = importlib.util.spec_from_file_location(name, f"{src}/tidegate/policy.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


for i, src in enumerate(sys.argv[1:]):
    p = load(src, f"policy{i}")
    mlb = p.may_load_beside
    for t, r, n_ in CASES:
        n = 200000
        ns = min(timeit.repeat(lambda: mlb(t, r, n_), number=n, repeat=5)) / n * 1e9
        print(f"{src:24s} may_load_beside{(t, r, n_)} {mlb(t, r, n_)!s:5s} {ns:6.1f} ns")
    aw = getattr(p, "asks_wide", None)
    if aw is not None:
        for t, r, n_ in CASES:
            n = 200000
            ns = min(timeit.repeat(lambda: aw(t, r, n_), number=n, repeat=5)) / n * 1e9
            print(f"{src:24s} asks_wide{(t, r, n_)} {aw(t, r, n_)!s:5s} {ns:6.1f} ns")
