"""The twin's dask.order rank (tidegate.sim.hashing.stable_order) of the stencil's blocks (random_sample) for wall29_small's namings:
a 6 x 6 grid of each block's rank among the blocks. python order.py N [N ...]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
import wall29_small as S  # noqa: E402
from tidegate.sim.hashing import stable_order as order  # noqa: E402

names = [int(a) for a in sys.argv[1:]]
_, model, graphs = next(S.models(["stencil"], os.path.join(
    os.path.dirname(S.__file__), "results", "wall24-measured.json"), 1 + max(names)))
for n in names:
    dsk = graphs[n][0] if graphs[n] is not None else model.dsk
    pr = order(dsk)
    blocks = sorted((pr[k], k[1:]) for k in dsk if isinstance(k, tuple)
                    and "random_sample" in k[0])
    rank = {b: i for i, (_, b) in enumerate(blocks)}
    print(f"naming {n}:")
    for i in range(6):
        print("   ", " ".join(f"{rank[i, j]:3d}" for j in range(6)))
