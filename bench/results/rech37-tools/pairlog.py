"""rech37: every pair_commits opener Books._admits answers (admitted or withheld by
pair_waits), with its worker's books, and the worker's highest memory in the WINDOW seconds
after it; per run, the worker peak, queuing's peak. Rechunk only (wall29_small's model).

  PYTHONPATH=/work/wt/rech37/src python pairlog.py --shapes 2x4,3x4 --lag 0.002 \
      [--set PAIR_LOADS=1] [--namings 3] [--seeds 5] > out.txt
Lines: RUN shape n s q_peak peaks makespan q_makespan; OPEN t worker admitted rp ru p cap
owed consuming held_MB est_MB after_MB (max MB on that worker in the window after).
"""
import argparse
import ast
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.abspath(os.path.join(here, "..", ".."))
sys.path.insert(0, bench)
import wall29_small as S  # noqa: E402

sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != bench]
import tidegate.books as B  # noqa: E402
import tidegate.policy as P  # noqa: E402
import tidegate.sim.cluster as C  # noqa: E402
import tidegate.sim.worker as SW  # noqa: E402

CL = []
MEM = []  # (t, addr, bytes)
OPENS = []
_oi = C.SimCluster.__init__


def _init(self, *a, **k):
    _oi(self, *a, **k)
    CL.append(self)


C.SimCluster.__init__ = _init
_oh = SW.SimWorker.handle_stimulus


def _hs(self, *events):
    r = _oh(self, *events)
    MEM.append((self.clock.now, str(self.address), self.state.nbytes))
    return r


SW.SimWorker.handle_stimulus = _hs
_oa = B.Books._admits


def _admits(self, book, w, task, est, completes_consumer, stimulus_id, progress=True,
            reserved=0, spread=False, waiting=0, opens=0, awaits=None, pair=False):
    r = _oa(self, book, w, task, est, completes_consumer, stimulus_id, progress, reserved,
            spread, waiting, opens, awaits, pair)
    if pair and opens:
        OPENS.append((CL[-1].clock.now if CL else -1, str(w), r, book.roots_processing,
                      book.roots_untouched, book.processing, book.cap, book.owed,
                      book.consuming, book.held, book.estimated, str(task)))
    return r


B.Books._admits = _admits


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="2x4,3x4")
    ap.add_argument("--lag", type=float, default=0.002)
    ap.add_argument("--namings", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--window", type=float, default=0.025)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--only-run", default="", help="nN,sS: one run")
    a = ap.parse_args()
    for s in a.set:
        n, v = s.split("=")
        mod, _, attr = n.rpartition(".")
        setattr(sys.modules.get(mod, P) if mod else P, attr, ast.literal_eval(v))
    for name, model, graphs in S.models(["rechunk"], os.path.join(bench, "results", "wall24-measured.json"),
                                        a.namings):
        for shape in a.shapes.split(","):
            for n, g in enumerate(graphs):
                for seed in range(a.seeds):
                    if a.only_run and a.only_run != f"n{n},s{seed}":
                        continue
                    q = S.twin(model, g, "queue", shape, a.lag, seed, 200e6)
                    MEM.clear()
                    OPENS.clear()
                    r = S.twin(model, g, "tidegate", shape, a.lag, seed, 200e6)
                    qp = max(q.peak_memory_per_worker)
                    print(f"RUN {shape} n{n} s{seed} q {qp / 1e6:.0f} peaks "
                          f"{[round(x / 1e6) for x in r.peak_memory_per_worker]} "
                          f"{r.makespan:.4f} q {q.makespan:.4f}")
                    for w in sorted({m[1] for m in MEM}):
                        top = max(m[2] for m in MEM if m[1] == w)
                        first = min(m[0] for m in MEM if m[1] == w and m[2] == top)
                        print(f"  PEAK {w[-4:-2]} {top / 1e6:.0f} at {first:.4f}")
                    for o in OPENS:
                        t, w = o[0], o[1]
                        after = max((m for (tt, ww, m) in MEM
                                     if ww == w and t <= tt <= t + a.window), default=0)
                        print(f"  OPEN {t:.4f} {w[-4:-2]} {'ADM' if o[2] else 'no '} rp{o[3]}"
                              f" ru{o[4]} p{o[5]} cap{o[6]:g} o{o[7]} c{o[8]}"
                              f" h{o[9] / 1e6:.0f} e{o[10] / 1e6:.0f}"
                              f" after {after / 1e6:.0f}")


if __name__ == "__main__":
    main()
