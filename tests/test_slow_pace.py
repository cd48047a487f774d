"""slow41: loads by pace below clearly_slower (policy.paced_slower, paced_keeps, PACE_HELD)
and the consumers after them by the soonest end (PACE_CONSUMERS, paced_move_fits), in
the twin's anomaly 2 x 1 with one worker's loads 1.75-2.2x slower
(bench/twin_slow_worker.py --mode worker / group)."""

from __future__ import annotations

import pytest

from tidegate import policy
from tidegate.policy import paced_keeps, paced_move_fits, paced_move_waits, paced_slower


def test_paced_slower_needs_both_of_the_last_two_over_the_others_longest():
    nan = float("nan")
    assert paced_slower((0.35, 0.35), (0.16, 0.16))  # 2.2x
    assert not paced_slower((0.35, 0.10), (0.16, 0.16))  # one slow load
    assert not paced_slower((0.35, nan), (0.16, 0.16))  # one sample
    assert not paced_slower((0.35, 0.35), (0.16, 0.24))  # 1.46x the other's longest
    assert not paced_slower((0.0, 0.0), (0.0, 0.0))  # tiny roots: no clock to compare by
    assert not paced_slower(None, (0.1, 0.1))


def test_paced_keeps_up_to_pace_held_loads_more(monkeypatch):
    slow, fast, est = (0.35, 0.35), (0.16, 0.16), 32e6
    monkeypatch.setattr(policy, "PACE_HELD", 3.0)
    assert paced_keeps(240e6, 144e6, est, slow, fast)  # 3 loads more: stays
    assert not paced_keeps(250e6, 144e6, est, slow, fast)  # over 3 loads more
    assert not paced_keeps(200e6, 144e6, est, fast, slow)  # least holding is the fast one
    assert not paced_keeps(200e6, 144e6, est, (0.2, 0.2), fast)  # 1.25x: not steadily
    monkeypatch.setattr(policy, "PACE_HELD", 0.0)
    assert not paced_keeps(160e6, 144e6, est, slow, fast)  # off: main's


def test_paced_move_fits_by_held_bytes():
    assert paced_move_fits(160e6, 32e6, 224e6)
    assert paced_move_fits(192e6, 32e6, 224e6)  # equal: fits
    assert not paced_move_fits(224e6, 32e6, 224e6)  # the copy raises the heavier one


def test_paced_move_waits_for_a_worker_placed_later(monkeypatch):
    # (3 x 1, 12 stores of one mean at dask's 0.5 s: the first 5-load worker's first store,
    # 4 more ahead of it, against the other 5-load worker's 5 not placed yet)
    assert paced_move_waits(2.0, 0.5, 2.5)  # as much elsewhere: that one moves its own
    assert not paced_move_waits(2.0, 0.5, 2.4)  # the last placed: it moves
    assert not paced_move_waits(0.0, 0.5, 0.0)  # nothing else left to place
    monkeypatch.setattr(policy, "PACE_LAST", 0)
    assert not paced_move_waits(2.0, 0.5, 2.5)  # off: main's


def _bench():
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parents[1] / "bench" / "twin_slow_worker.py"
    spec = importlib.util.spec_from_file_location("twin_slow_worker", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def _spans(bench, slow, mode, check, **run):
    """Summed makespans (tidegate / queuing) over the tests' five namings (``run``: the
    bench's other arguments, e.g. ``workers``)."""
    from _namings import NAMINGS, renamed

    simulate = bench.simulate
    spans = {"queue": 0.0, "tidegate": 0.0}
    try:
        for salt in NAMINGS:
            bench.simulate = lambda model, salt=salt, **kw: simulate(renamed(model, salt), **kw)
            out = bench.run(slow, mode=mode, **run)
            check(salt, out["tidegate"], out["queue"])
            spans["queue"] += out["queue"]["makespan"]
            spans["tidegate"] += out["tidegate"]["makespan"]
    finally:
        bench.simulate = simulate
    return spans["tidegate"] / spans["queue"]


@pytest.mark.parametrize("slow,mode,before,after", [
    (2.0, "worker", 1.038, 0.968), (2.2, "worker", 1.199, 1.113), (2.0, "group", 1.027, 0.991)])
def test_twin_loads_and_stores_by_pace(monkeypatch, slow, mode, before, after):
    """One worker's loads (--mode worker; group: one reduction group's loads wherever they
    run) 2-2.2x slower: neither clearly_slower (> 2.5x) nor lags (the readers at full
    speed) fires; placed by held bytes 6 / 6, the fast worker waits for the slow one's
    last loads. By pace, 7 / 5 and the stores by the soonest end: faster, the peak and
    the bytes moved at or below queuing's in every naming; off (both switches 0): main's."""
    pytest.importorskip("distributed")
    bench = _bench()

    def check(salt, tide, queue):
        assert tide["loads_per_worker"] == [7, 5], salt
        assert tide["peak"] <= queue["peak"], salt
        assert tide["bytes_transferred"] <= queue["bytes_transferred"], salt

    ratio = _spans(bench, slow, mode, check)
    assert ratio <= after + 0.005, ratio
    monkeypatch.setattr(policy, "PACE_HELD", 0.0)
    monkeypatch.setattr(policy, "PACE_CONSUMERS", 0)
    monkeypatch.setattr(policy, "IDLE_PACE", 0)  # (slow42's: it would act in their stead)
    off = _spans(bench, slow, mode, lambda *a: None)
    assert abs(off - before) < 0.005, off


@pytest.mark.parametrize("slow,mode,before,after", [(3.0, "group", 0.972, 1.027),
                                                    (4.0, "worker", 0.916, 0.968)])
def test_twin_one_store_moved_by_pace(monkeypatch, slow, mode, before, after):
    """3 x 1, loads 5 / 5 / 2 after the idle take (IDLE_TOP): a store moved by pace from
    each 5-load worker copied two loads (4 / 4 / 4 stores), over queuing's bytes in every
    naming. One moved, from the worker placed last (its mean's copy comes last): within
    1.05x queuing's time, its peak and its bytes in every naming; off: main's."""
    pytest.importorskip("distributed")
    bench = _bench()

    def check(salt, tide, queue):
        assert tide["loads_per_worker"] == [5, 5, 2], salt
        assert tide["peak"] <= queue["peak"], salt
        assert tide["bytes_transferred"] <= queue["bytes_transferred"], salt

    ratio = _spans(bench, slow, mode, check, workers=3)
    assert ratio <= after + 0.005, ratio
    monkeypatch.setattr(policy, "PACE_LAST", 0)
    over = []
    off = _spans(bench, slow, mode, lambda s, t, q: over.append(
        t["bytes_transferred"] > q["bytes_transferred"]), workers=3)
    assert abs(off - before) < 0.005 and all(over), (off, over)
