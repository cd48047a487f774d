# Check (ci41): where HEAVY_PARTNER's filter (Placement._unheavy) is taken by _decide, does
# any books.place call of that decision get a heavier worker (as a partner or a listed
# free worker), or does the root go there? And later placements of such a root.
import atexit, collections
from tidegate.distributed.placement import Placement

_stats = collections.Counter()
_heavy_of: dict = {}
_orig_decide = Placement._decide
_orig_by_held = Placement._by_held
_orig_place = Placement._place


def _by_held(self, ts, *a, **k):
    out = _orig_by_held(self, ts, *a, **k)
    kept = self._unheavy
    if out is None and kept is not None and kept[0] is ts:
        self._ci41_heavy = set(kept[2])
    return out


def _decide(self, ts, stimulus_id=None):
    books = self.books
    calls = []
    place = books.place

    def rec(key, known, group, partners, listed, *a, **k):
        seen = []

        def gen():
            for x in listed:
                seen.append(x)
                yield x
        calls.append((dict(partners), seen))
        return place(key, known, group, partners, gen(), *a, **k)

    self._ci41_heavy = None
    books.place = rec
    try:
        out = _orig_decide(self, ts, stimulus_id)
    finally:
        del books.place
    heavy = self._ci41_heavy
    _stats["decide"] += 1
    if heavy:
        _stats["bound"] += 1
        _stats[f"place calls {len(calls)}"] += 1
        _heavy_of[ts.key] = heavy
        for partners, seen in calls:
            if heavy & set(partners):
                _stats["heavy partner given"] += 1
            if seen:
                _stats["listed read"] += 1
            if heavy & set(seen):
                _stats["heavy listed read"] += 1
        if out[0] is not None and getattr(out[0], "address", out[0]) in heavy:
            _stats["placed on heavy"] += 1
        if not out[1]:
            _stats["bound, no partners left"] += 1
    return out


def _place(self, ts, stimulus_id=None):
    n = _stats["decide"]
    out = _orig_place(self, ts, stimulus_id)
    heavy = _heavy_of.get(ts.key)
    if heavy is not None and _stats["decide"] == n:  # answered without _decide (memo paths)
        _stats["later, by a memo path"] += 1
        if out[0] is not None and getattr(out[0], "address", out[0]) in heavy:
            _stats["later memo placed on heavy"] += 1
    return out


Placement._by_held = _by_held
Placement._decide = _decide
Placement._place = _place
atexit.register(lambda: print("ci41-heavy", dict(sorted(_stats.items()))))
