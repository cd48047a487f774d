"""How often COMBINE_LEVELS is asked and moves a combine on the small twin table's cells
(wall29_small's 11 workloads, shapes, lags, namings x seeds), tidegate with the rule on:
Placement._combine_level wrapped, its calls and non-None answers counted per cell. A cell
where it is never asked runs the same with the rule off (runs identical by construction).
Needs a src that still has the rule (main's: /work/base51/src).

    PYTHONPATH=/work/base51/src python bench/results/comb51-tools/count_level_calls.py \
        [--only W,...] [--shapes 2x2,2x1,4x1] [--namings 1] [--seeds 1]
"""
import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
bench = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, bench)
import wall29_small as S  # noqa: E402

sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != bench]

ELEVEN = ("loaders,open-read-select,stack-sum,offset-slices,stencil,rechunk,vorticity-files,"
          "seed-slice-add,seed-rechunk-add,seed-weighted,seed-anomaly")


def main(argv=None):
    ap = argparse.ArgumentParser()
    S.add_cell_args(ap, only=ELEVEN, seeds=1)
    a = ap.parse_args(argv)
    from tidegate.distributed.placement import Placement

    calls = [0, 0]
    original = Placement._combine_level

    def counted(self, ts, local, chosen):
        got = original(self, ts, local, chosen)
        calls[0] += 1
        calls[1] += got is not None
        return got

    Placement._combine_level = counted
    total = [0, 0]
    for name, model, graphs in S.models(a.only.split(","), a.measured, a.namings):
        for shape in a.shapes.split(","):
            for lag in map(float, a.lags.split(",")):
                before = list(calls)
                for g in graphs:
                    for seed in range(a.seeds):
                        S.twin(model, g, ["tidegate"], shape, lag, seed, a.outgoing)
                asked, moved = calls[0] - before[0], calls[1] - before[1]
                total[0] += asked
                total[1] += moved
                print(f"{name} {shape} lag{lag * 1e3:g}: asked {asked}, moved {moved}",
                      flush=True)
    print(f"all cells: asked {total[0]}, moved {total[1]}")


if __name__ == "__main__":
    main()
