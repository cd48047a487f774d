import sys, importlib.util, pathlib
sys.path.insert(0, "tests")
import tidegate.policy as P
from _namings import NAMINGS, renamed
spec = importlib.util.spec_from_file_location("tsw", "bench/twin_slow_worker.py")
b = importlib.util.module_from_spec(spec); spec.loader.exec_module(b)
sim = b.simulate
for slow, mode, w in ((3.0, "worker", 2), (4.0, "worker", 2), (2.0, "worker", 2), (2.0, "group", 2), (2.0, "worker", 4), (2.0, "group", 4), (1.5, "worker", 2)):
    for v in (0, 1):
        P.COMBINE_BY_HELD = v
        tm = qm = 0; pk = []
        for salt in NAMINGS:
            b.simulate = lambda model, salt=salt, **kw: sim(renamed(model, salt), **kw)
            kw = {"workers": w} if "workers" in b.run.__code__.co_varnames else {}
            out = b.run(slow, mode=mode, **kw)
            t, q = out["tidegate"], out["queue"]
            tm += t["makespan"]; qm += q["makespan"]; pk.append(round(t["peak"] / q["peak"], 3))
        print(slow, mode, w, "v", v, "time", round(tm / qm, 3), "peaks", pk, t["loads_per_worker"], flush=True)
