"""The books' whole decision log of one twin run of a seed workload under the plugin: every
admission, refusal and placement as ``Books.log`` records it, one line each, then the run's
makespan and each worker's peak. What the anomaly helpers traced schedules with (their
blog.py, copied into bench/results three times before session 53).

    python bench/books_log.py anomaly 24 4x4 [--seed 0] [--set KEPT_SHARE=0 ...] [--size 190e6]

``--set X=V``: a policy switch (``tidegate.policy.X``) for this run. Lines are cut at 200
characters; worker addresses are shortened (``tcp://twin-`` dropped).
"""

from __future__ import annotations

import argparse
import ast
from collections import deque

from tidegate import books, policy
from tidegate.sim import simulate
from tidegate.sim.workloads import build


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workload", help="a seed workload of tidegate.sim.workloads (anomaly ...)")
    ap.add_argument("steps", type=int)
    ap.add_argument("shape", help="WORKERSxTHREADS, e.g. 4x4")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=float, default=190e6, help="bytes a load")
    ap.add_argument("--set", action="append", default=[], metavar="X=V",
                    help="set tidegate.policy.X to V for this run")
    args = ap.parse_args(argv)
    for kv in args.set:
        name, value = kv.split("=", 1)
        if not hasattr(policy, name):
            ap.error(f"tidegate.policy has no switch {name!r}")
        setattr(policy, name, ast.literal_eval(value))
    made = []
    init = books.Books.__init__

    def logging_init(self, *a, **kw):  # every Books the run makes keeps its whole log
        init(self, *a, **kw)
        self.log = deque(maxlen=None)
        made.append(self)

    books.Books.__init__ = logging_init
    try:
        workers, threads = map(int, args.shape.split("x"))
        model = build(args.workload, args.steps, args.size, store=True).model()
        (r,) = simulate(model, workers=workers, threads_per_worker=threads, seed=args.seed,
                        policy=["tidegate"], record_memory=False, processes=1)  # fmt: skip
    finally:
        books.Books.__init__ = init
    for b in made:
        for entry in b.log:
            print(" ".join(str(x).replace("tcp://twin-", "") for x in entry)[:200])
    print("makespan", round(r.makespan, 3), "peak MB a worker",
          [round(x / 1e6) for x in r.peak_memory_per_worker])


if __name__ == "__main__":
    main()
