"""(cpu36b, session 36) plugin_fingerprints' 62 configurations without memory samples
(record_memory=False: no twin plugin between stealing and tidegate, so server.fold_stealing
folds stealing into tidegate's hooks), each run folded and not (server.FOLD_STEALING True
and False until session 42; now fold_stealing made a no-op) in one process: every trace's
digest (tasks, transfers, peaks, makespan, bytes, messages) must be the same, and the fold
must have happened in the folded runs.
PYTHONHASHSEED=0 PYTHONPATH=<src> python bench/sessions/cpu36b_fold_fp.py [--form all]"""
import argparse, os, sys, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import plugin_fingerprints as pf  # noqa: E402
from tidegate.distributed import server  # noqa: E402
from tidegate.sim import simulate  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--form", default="all")
args = ap.parse_args()
folder = os.path.join(tempfile.gettempdir(), "tidegate-twin-zarr")
paths = pf._zarr_inputs(folder)
folds = []
_fold = server.fold_stealing


def fold(plugin, s):
    _fold(plugin, s)
    if plugin._folded is not None:
        folds.append(1)


def left(plugin, s):  # (stealing left in scheduler.plugins: dask calls it)
    pass


same = differ = 0
for name, opts, steps, popts, store in pf.configs(args.form):
    model = pf.config_model(name, steps, store, paths, folder)
    d = {}
    for on in (True, False):
        server.fold_stealing = fold if on else left
        n = len(folds)
        r = simulate(model, policy="tidegate", record_memory=False, **opts, **popts)
        d[on] = (pf.digest(r), len(folds) - n)
    ok = d[True][0] == d[False][0] and d[True][1] == 1 and d[False][1] == 0
    same += ok
    differ += not ok
    print(f"{'same' if ok else 'DIFFERS'} {d[True]} {d[False]} {name}|{opts}|{steps}|{popts}",
          flush=True)
print(f"{same} identical with and without the fold, {differ} not")
