# --patch: force the seed rechunk-add's from-zarr roots onto chosen workers (the bound's
# experiments). FORCE=mode: p31 (a unit's 4th load on an idle worker), pairs (A pair / B pair
# on two workers, 12 pairs round robin), none.
import math, os
from tidegate.distributed import placement as P
MODE = None
orig = P.Placement._place

def _target(self, ts):
    MODE = os.environ.get("FORCE", "none")
    name = ts.key[0] if isinstance(ts.key, tuple) else ts.key
    if not name.startswith("from-zarr") or not isinstance(ts.key, tuple):
        return None
    s = self.scheduler
    addrs = sorted(s.workers, key=lambda a: int(a.split("-w")[1].split(":")[0]))
    best = {}
    for t in s.tasks.values():
        g = t.group.name
        if g.startswith("from-zarr") and isinstance(t.key, tuple):
            best[g] = min(best.get(g, t.priority), t.priority)
    groups = sorted(best, key=best.get)
    arr = groups.index(ts.group.name)
    i = ts.key[1]
    k = i // 2
    W = len(addrs)
    if MODE == "p31":
        # unit k on w(2 + k); load (B, 2k+1) to w0 for k < 3, w1 else
        if arr == 1 and i % 2 == 1:
            return addrs[0 if k < 3 else 1]
        return addrs[2 + k]
    if MODE == "p31b":
        # the 4th load of unit k: A's 2k+1 (so A's merges cross)
        if arr == 0 and i % 2 == 1:
            return addrs[0 if k < 3 else 1]
        return addrs[2 + k]
    if MODE.startswith("stag"):
        # unit k whole on w(2 + k), at most N of its loads processing or held at once
        n = int(MODE[4:])
        ws = s.workers[addrs[2 + k]]
        live = sum(1 for t in list(ws.processing) + list(ws.has_what)
                   if t.group.name.startswith("from-zarr") and isinstance(t.key, tuple))
        return addrs[2 + k] if live < n else "WAIT"
    if MODE in ("pairsS", "pairsL", "pairsM"):
        # 12 pairs round robin; a worker's second pair waits until its first pair's loads
        # (pairsL) or also splits and merges (pairsS) are gone from it
        p = 2 * k + arr
        ws = s.workers[addrs[p % W]]
        pref = {"pairsL": ("from-zarr",), "pairsM": ("from-zarr", "rechunk-split")}.get(
            MODE, ("from-zarr", "rechunk-split", "rechunk-merge"))
        mine = {("%s" % (2 * k)), ("%s" % (2 * k + 1))}
        busy = any(t.group.name.startswith(pref) and isinstance(t.key, tuple)
                   and not (t.group.name == ts.group.name and t.key[1] // 2 == k)
                   for t in list(ws.processing) + list(ws.has_what))
        return addrs[p % W] if not busy else "WAIT"
    if MODE == "pairs":
        p = 2 * k + arr  # 12 pairs round robin over the workers
        return addrs[p % W]
    if MODE == "pairs2":
        # A pair on w(2+k); B pairs of units 0, 1 on w0, w1, the rest after the A pairs
        if arr == 0:
            return addrs[2 + k]
        return addrs[k] if k < 2 else addrs[2 + (k + 2) % 6]
    return None

def _place(self, ts, stimulus_id=None):
    try:
        t = _target(self, ts)
    except Exception:
        import traceback; traceback.print_exc(); raise
    if t is None:
        return orig(self, ts, stimulus_id)
    if t == "WAIT":
        return None, {}
    return self.books.place(ts.key, math.nan, ts.group.name, {}, iter((t,)), stimulus_id,
                            set(), {}, {t}), {}
P.Placement._place = _place
