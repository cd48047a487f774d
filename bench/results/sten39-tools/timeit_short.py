"""timeit of Books._beside_light's first test, base (policy.may_load_beside with light = most)
against this branch's (may_load_beside, then policy.waits_behind_short where it refused), on
the arguments it sees on one-, two- and four-thread workers; and waits_behind_short alone.

    PYTHONDONTWRITEBYTECODE=1 python bench/results/sten39-tools/timeit_short.py \
        /work/base39/src /work/wt/sten39/src
"""
import importlib.util
import sys
import timeit

# (threads, roots_processing, processing, most): most = light_on(threads) = 2
CASES = [(1, 0, 3), (2, 1, 4), (4, 1, 9), (4, 0, 14), (4, 1, 20), (4, 2, 8), (20, 2, 30)]


def load(src, name):
    spec = importlib.util.spec_from_file_location(name, f"{src}/tidegate/policy.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


for i, src in enumerate(sys.argv[1:]):
    p = load(src, f"policy{i}")
    mlb = p.may_load_beside
    wbs = getattr(p, "waits_behind_short", None)
    for t, r, n_ in CASES:
        if wbs is None:
            f = lambda: not mlb(t, r, n_, 2)
        else:
            f = lambda: not mlb(t, r, n_, 2) and not wbs(t, r, n_, 2)
        n = 200000
        ns = min(timeit.repeat(f, number=n, repeat=5)) / n * 1e9
        print(f"{src:28s} {(t, r, n_)} refused={f()!s:5s} {ns:6.1f} ns")
    if wbs is not None:
        n = 200000
        ns = min(timeit.repeat(lambda: wbs(4, 1, 9, 1), number=n, repeat=5)) / n * 1e9
        print(f"{src:28s} waits_behind_short(4, 1, 9, 1) alone {ns:6.1f} ns")
