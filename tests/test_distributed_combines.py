"""Plugin._combines_of (books.combines) finds the most held and _on_their_way only where
policy.awaits_combine can tell them apart (cpu37a, session 37): books.awaits answers as it
did when every combine's three numbers were found in full, and the same combines are pruned."""

from __future__ import annotations

import itertools
from functools import partial

from tidegate.distributed import hooks
from tidegate.policy import awaits_combine


def _reference(plugin, addr) -> list:
    """_combines_of as it was (main 36814c4): every number found for every combine."""
    from tidegate.distributed.tasks import _on_their_way

    combs = plugin._combines.get(addr)
    if not combs:
        return []
    out = []
    for key, d in list(combs.items()):
        if d.state == "waiting":
            held: dict = {}
            for x in d.dependencies:
                for ws in x.who_has or ():
                    held[ws.address] = held.get(ws.address, 0) + 1
                ws = x.processing_on
                if ws is not None:
                    held[ws.address] = held.get(ws.address, 0) + 1
            here = held.get(addr, 0)
            if here:
                out.append((here, max(held.values()), _on_their_way(d, 4)))
                continue
        del combs[key]
    if not combs:
        del plugin._combines[addr]
    return out


def _awaits(combines) -> bool:
    return any(awaits_combine(*c) for c in combines)


def test_awaits_combine_reads_the_most_and_the_way_only_as_combines_of_assumes():
    """_combines_of's shortcut needs: no answer True with a larger ``held_most`` than
    ``held_here`` tested first, nor without ``all_on_their_way`` (False for any larger most,
    False without the way)."""
    for here, most, way in itertools.product(range(8), range(10), (False, True)):
        if most < here:
            continue  # (the most held is never below the held here)
        if awaits_combine(here, most, way):
            assert awaits_combine(here, here, True) and awaits_combine(here, most, True)
            assert way


def test_combines_of_answers_and_prunes_as_the_full_count(monkeypatch):
    """Twin anomaly 400 steps 20 x 4 (a second level of combines, up to 3 noted at a worker):
    at every ask, the reference (on a copy of the noted combines) and _combines_of give
    books.awaits the same answer and leave the same combines noted."""
    from tidegate.sim import simulate
    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import build

    new = hooks.Plugin._combines_of
    seen = {"asks": 0, "awaits": 0, "short": 0, "several": 0}

    def checked(self, addr):
        copy = {a: dict(c) for a, c in self._combines.items()}
        kept = self._combines
        self._combines = copy
        try:
            ref = _reference(self, addr)
        finally:
            self._combines = kept
        out = new(self, addr)
        assert _awaits(out) == _awaits(ref), addr
        assert {a: set(c) for a, c in kept.items()} == {a: set(c) for a, c in copy.items()}
        seen["asks"] += 1
        seen["awaits"] += _awaits(out)
        seen["short"] += out != ref
        seen["several"] += len(out) > 1
        return out

    monkeypatch.setattr(hooks.Plugin, "_combines_of", checked)
    w = build("anomaly", 400, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    simulate(model, workers=20, threads_per_worker=4, policy="tidegate", bandwidth="1GB/s",
             record_memory=False)
    # (since Books._admits asks the view last, only where the rest admits: 923 asks, 859
    # answered yes, 44 short, 1 with several noted)
    assert seen["asks"] > 500 and seen["awaits"] > 100 and seen["short"] > 20, seen
    assert seen["several"] > 0, seen


class _Worker:  # (a WorkerState as _combines_of reads it: hashed by identity)
    def __init__(self, address):
        self.address = address


_KEYS = itertools.count()


def _fake(state, deps=(), who=(), on=None):
    from types import SimpleNamespace

    return SimpleNamespace(key=next(_KEYS), _state=state, state=state, dependencies=list(deps),
                           who_has={_Worker(a) for a in who} or None,
                           processing_on=None if on is None else _Worker(on))


def test_combines_of_most_held_skipped_only_where_it_is_here_s():
    """The most held is counted per worker (tasks._most_held) only where the holders
    elsewhere (n - here) could outnumber here's: over random placements of a combine's 4
    inputs (replicas on up to 3 workers, one computing), the tuples are the reference's
    wherever awaits_combine(here, here, True) holds (the way too where awaits_combine(here,
    most, True) does), and books.awaits answers the same."""
    import random
    from types import SimpleNamespace

    rng = random.Random(0)
    workers = ["a", "b", "c"]
    skipped = counted = 0
    for _ in range(3000):
        inputs = []
        for _ in range(4):
            who = rng.sample(workers, rng.choice((0, 1, 1, 1, 2, 3)))
            on = rng.choice(workers) if not who and rng.random() < 0.5 else None
            state = "memory" if who else "processing" if on else "waiting"
            inputs.append(_fake(state, [_fake("memory", who="a")], who, on))
        d = _fake("waiting", inputs)
        fake = SimpleNamespace(_combines={"a": {"d": d}})
        out = hooks.Plugin._combines_found(fake, "a", fake._combines["a"])
        # (found alike where it is kept: Plugin._combines_kept)
        kept = SimpleNamespace(_combines={"a": {"d": d}}, _views={}, _viewed={},
                               _steals_seen=lambda: True)
        kept._combines_found = partial(hooks.Plugin._combines_found, kept)
        assert hooks.Plugin._combines_kept(kept, "a", kept._combines["a"]) == out
        assert kept._views == ({"a": out} if out else {})
        ref = _reference(SimpleNamespace(_combines={"a": {"d": d}}), "a")
        assert _awaits(out) == _awaits(ref)
        if ref and awaits_combine(ref[0][0], ref[0][0], True):
            assert out[0][:2] == ref[0][:2]  # (the way: only where the most allows it)
            assert out == ref or not awaits_combine(*ref[0][:2], True)
            n = sum(len(x.who_has or ()) + (x.processing_on is not None) for x in inputs)
            here = ref[0][0]
            skipped += n - here <= here
            counted += n - here > here
    assert skipped > 100 and counted > 100, (skipped, counted)


def test_task_state_slot_is_the_state_property_s():
    """_combines_of, tasks._on_their_way, admission.py's poke paths, Placement._decide_worker
    and the add_replica hook (Placement._replicas) read TaskState._state (the property's
    slot: no Python call); the twin's cluster does too.
    A distributed whose property reads something else fails here."""
    from distributed.scheduler import TaskState

    ts = TaskState.__new__(TaskState)  # (no __init__: its signature varies by release)
    for state in ("waiting", "processing", "memory"):
        ts._state = state  # (the slot alone: the group's counts are the setter's business)
        assert ts.state == state
