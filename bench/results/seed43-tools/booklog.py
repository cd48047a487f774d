"""One wall29_small cell's tidegate twin run with the plugin's books.log printed (every
placement, refusal, landing), the roots' groups shortened: which root went where and why.

    PYTHONPATH=src python bench/results/seed43-tools/booklog.py SHAPE LAG SEED
        [--only seed-slice-add] [--naming N] [--set NAME=VALUE] [--grep WORD]
"""
import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, bench)
import ab_twin  # noqa: E402
sys.path.insert(0, bench)
import trace_twin  # noqa: E402  (for short)
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != bench]

S = ab_twin.S


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shape")
    ap.add_argument("lag", type=float)
    ap.add_argument("seed", type=int)
    ap.add_argument("--only", default="seed-slice-add")
    ap.add_argument("--naming", type=int, default=0)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--grep", default=None)
    a = ap.parse_args()
    names, values = zip(*(s.split("=", 1) for s in a.set)) if a.set else ((), ())
    sw = ab_twin.settings(list(names), list(values), list(values))
    from tidegate.distributed import Plugin
    got = {}
    orig = Plugin.uninstall

    def uninstall(self, *args, **kw):
        got["p"] = self
        return orig(self, *args, **kw)

    Plugin.uninstall = uninstall
    name, model, graphs = next(S.models([a.only], S.wall24().__dict__.get("MEASURED") or
                                        os.path.join(bench, "results", "wall24-measured.json"),
                                        a.naming + 1))
    with ab_twin.switched(sw):
        ab_twin.put(sw, 1)
        r = S.twin(model, graphs[a.naming], "tidegate", a.shape, a.lag, a.seed, 200e6)
    print(f"makespan {r.makespan:.4f} peaks {[round(p / 1e6) for p in r.peak_memory_per_worker]}")
    p = got["p"]
    n = a.naming
    import ast
    import re
    toks = {}

    def sh(x):
        t = trace_twin.short(str(x), n)
        m = re.search(r"-([0-9a-f]{32})", str(x))
        if m:
            t = t.replace("(", "%s(" % toks.setdefault(m.group(1), "ABCDEFGH"[len(toks)]), 1)
        return t
    for e in p.books.log:
        t = " ".join(sh(x) if i in (0, 3) and isinstance(x, (str, tuple))
                     and ("(" in str(x) or "-" in str(x)) else str(x)
                     for i, x in enumerate(e))
        t = t.replace("tcp://twin-", "")
        if a.grep is None or a.grep in t:
            print(t)


if __name__ == "__main__":
    main()
