"""timeit of policy.may_load_beside, session 36's (base) against this branch's, on the
arguments it sees: (threads, roots_processing, processing[, light]) where its first two
tests answer (the common case) and where only BESIDE_BUSY's clause is asked.

    PYTHONDONTWRITEBYTECODE=1 python bench/results/sten37-tools/timeit_beside.py \
        /work/base37/src /work/wt/sten37/src
"""
import importlib.util
import sys
import timeit

CASES = [(1, 0, 1), (2, 1, 1), (2, 1, 3), (4, 1, 3), (4, 2, 5), (4, 1, 4), (4, 1, 6), (20, 2, 9)]


def load(src, name):
    spec = importlib.util.spec_from_file_location(name, f"{src}/tidegate/policy.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


for i, src in enumerate(sys.argv[1:]):
    p = load(src, f"policy{i}")
    f = p.may_load_beside
    for args in CASES:
        n = 200000
        t = min(timeit.repeat(lambda: f(*args), number=n, repeat=5)) / n * 1e9
        print(f"{src:28s} {args} -> {f(*args)!s:5s} {t:6.1f} ns")
