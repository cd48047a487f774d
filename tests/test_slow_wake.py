"""slow45: one slow worker (issue 9), the idle worker's take in time and where it lands.
IDLE_WAKE: a worker going idle wakes the roots parked for other workers once two workers'
paces differ (the take asked then, not at the timer); IDLE_TAIL bit 8 with IDLE_NEAR: the tail
take where a reduction group's loads are slow wherever they run; PACE_STAYS: a store moved by
pace is not stolen back after its load was copied; OFF_FREE: a root leaving a clearly slower
worker goes to a faster one with a free thread; IDLE_TOP (slow48): the take up to the most
any worker holds. Twin anomaly (bench/twin_slow_worker.py), the tests' five namings summed."""

from __future__ import annotations

import pytest

from tidegate import policy
from tidegate.distributed.hooks import _uneven
from tidegate.policy import idle_takes, slower_alone
from test_slow_pace import _bench, _spans  # (the twin bench and its five namings' sums)


def _at_most_queuings(salt, tide, queue):
    assert tide["peak"] <= queue["peak"], salt
    assert tide["bytes_transferred"] <= queue["bytes_transferred"], salt


def test_idle_takes_near_reads_the_idle_workers_shortest(monkeypatch):
    nan = float("nan")
    # (4 x 1, one group's loads 4x slower, at 1.18 s: the busy worker's last a slow load;
    # the idle one ran a slow load and a fast one, 88 MB against 64)
    busy, idle = (0.644, nan), (0.161, 0.644)
    assert idle_takes(busy, idle, 64e6, 88e6, 32e6)
    assert not idle_takes(busy, idle, 64e6, 64e6 + 33e6, 32e6)  # over a load more
    assert not idle_takes(busy, idle, 64e6, 88e6, 32e6, near=False)  # (its longer: no)
    assert not idle_takes((0.2, nan), idle, 64e6, 88e6, 32e6)  # not 1.5x its shortest
    monkeypatch.setattr(policy, "IDLE_NEAR", 0.0)
    assert not idle_takes(busy, idle, 64e6, 88e6, 32e6)
    # slower_alone reads the pace test alone: another worker ran a slow one too
    monkeypatch.setattr(policy, "IDLE_NEAR", 1.0)
    assert not slower_alone((0.644, 0.644), [(0.161, 0.161), (0.644, 0.161)])


def test_idle_takes_up_to_the_top_held(monkeypatch):
    nan = float("nan")
    # (3 x 1, one group's loads 4x slower, at 0.81 s: the busy worker runs two slow loads,
    # 64 MB; the idle one holds its group's four and their partial, 144 MB; the third 176)
    busy, idle = (0.644, nan), (0.161, 0.161)
    monkeypatch.setattr(policy, "IDLE_TOP", 1)
    assert not idle_takes(busy, idle, 64e6, 144e6, 32e6)  # 3.5 loads over the busy one
    assert idle_takes(busy, idle, 64e6, 144e6, 32e6, top_held=176e6)  # as high as the third
    assert idle_takes(busy, idle, 64e6, 144e6, 32e6, top_held=175e6)  # (within IDLE_TIE)
    assert not idle_takes(busy, idle, 64e6, 144e6, 32e6, top_held=170e6)  # above it
    assert not idle_takes((0.2, nan), idle, 64e6, 144e6, 32e6, top_held=176e6)  # one pace
    monkeypatch.setattr(policy, "IDLE_TOP", 0)
    assert not idle_takes(busy, idle, 64e6, 144e6, 32e6, top_held=176e6)


def test_uneven_paces(monkeypatch):
    monkeypatch.setattr(policy, "WAKE_SAMPLES", 3)
    monkeypatch.setattr(policy, "IDLE_PACE", 1.5)
    nan = float("nan")
    assert _uneven({"a": (0.644, nan), "b": (0.161, nan)})  # (one sample each: all known)
    assert _uneven({"a": (0.644, 0.5), "b": (0.161, 0.3), "c": (0.4, 0.2)})
    assert not _uneven({"a": (0.161, 0.161), "b": (0.161, nan)})
    assert not _uneven({"a": (0.644, nan)}) and not _uneven({"a": (0.644, 0.1)})
    assert not _uneven({"a": (0.644, 0.161), "b": (0.161, 0.161)})  # a slow load, a fast one
    assert not _uneven({"a": (0.644, 0.644), "b": (0.0, nan)})  # (no pace measured)
    # a root timed at 0 s beside two workers whose paces differ: the two still judged
    assert _uneven({"a": (0.644, 0.644), "b": (0.161, 0.161), "c": (0.0, nan)})
    # jitter: +-40% durations, equal workers; every known sample of neither over 1.5x the
    # other's longer (slow45's test read the last of each: 1.33 > 1.5 x 0.65)
    assert not _uneven({"a": (1.33, 0.9), "b": (0.65, 1.1)})
    monkeypatch.setattr(policy, "WAKE_SAMPLES", 2)  # one's last over the other's longer
    assert _uneven({"a": (0.644, 0.161), "b": (0.161, 0.161)})
    assert not _uneven({"a": (1.33, 0.9), "b": (0.65, 1.1)})
    monkeypatch.setattr(policy, "WAKE_SAMPLES", 1)  # the last of each (slow45's)
    assert _uneven({"a": (1.33, 0.9), "b": (0.65, 1.1)})
    monkeypatch.setattr(policy, "IDLE_PACE", 0)
    assert not _uneven({"a": (0.644, nan), "b": (0.161, nan)})


def test_twin_uneven_is_judged_again_at_every_finish(monkeypatch):
    """2 x 1, one reduction group's loads 3x slower: the group's paces differ while a
    worker's samples are all slow loads, and even again once it ran fast ones; after every
    finish the groups IDLE_WAKE reads as uneven are those whose paces differ now (slow45's
    flag stayed set till the group was forgotten)."""
    pytest.importorskip("distributed")
    from tidegate.distributed import hooks

    seen = []
    left = hooks.Plugin._left_processing

    def checking(self, key, *args, **kwargs):
        before = set(self._uneven)
        left(self, key, *args, **kwargs)
        seen.append((before, set(self._uneven),
                     {g for g, paces in self._pace.items() if _uneven(paces)}))

    monkeypatch.setattr(hooks.Plugin, "_left_processing", checking)
    _bench().run(3.0, mode="group", workers=2)
    assert all(after == now for _, after, now in seen)
    assert any(after and not before for before, after, _ in seen)  # set,
    assert any(before and not after for before, after, _ in seen)  # and reset


def test_a_departed_workers_paces_go():
    """A worker that left judges no pace: its samples are dropped and its group's
    unevenness judged again without them (slow45 kept both)."""
    pytest.importorskip("distributed")
    from test_plugin_lazy import _cluster
    from tidegate.distributed import hooks

    nan = float("nan")
    s = _cluster(3)
    p = hooks.Plugin()
    p._resync()  # (no scheduler yet: the books and sets alone)
    p.scheduler = s
    p._pace = {"load": {"w0": (0.2, 0.2), "w1": (0.9, 0.8), "w2": (0.2, nan)},
               "read": {"w0": (0.2, 0.2), "w1": (0.9, 0.8), "w2": (0.9, nan)}}
    p._uneven = {"load", "read"}
    gone = s.workers.pop("w1")
    s.running.discard(gone)
    p.remove_worker(s, "w1")
    assert p.errors == []
    assert p._pace == {"load": {"w0": (0.2, 0.2), "w2": (0.2, nan)},
                       "read": {"w0": (0.2, 0.2), "w2": (0.9, nan)}}
    assert p._uneven == {"read"}  # (w2's one sample over 1.5x w0's: still apart)


def test_a_departed_worker_leaves_the_lag_books():
    """A worker that left is no lag's reference and lags no more: its reader paces, its
    roots' windows and its lag go (review46: a departed fastest reader kept policy.lags at
    0 for its group until some worker beat its time, and a departed lagging worker kept
    IDLE_COMBINE off)."""
    pytest.importorskip("distributed")
    from test_plugin_lazy import _cluster
    from tidegate.distributed import hooks

    s = _cluster(3)
    p = hooks.Plugin()
    p._resync()
    p.scheduler = s
    p._readers = {"read": ("load", {"w0": [0.2, 0.2], "w1": [0.1, 0.1], "w2": [0.6, 0.5]})}
    p._lag_roots = {"load": {"w0": [0.2], "w1": [0.1], "w2": [0.6]}}
    p._lag_ref = {"read": ("w1", 0.1)}
    p._lagging = {"w1": 2.0, "w2": 3.0}
    gone = s.workers.pop("w1")
    s.running.discard(gone)
    p.remove_worker(s, "w1")
    assert p.errors == []
    assert p._readers == {"read": ("load", {"w0": [0.2, 0.2], "w2": [0.6, 0.5]})}
    assert p._lag_roots == {"load": {"w0": [0.2], "w2": [0.6]}}
    assert p._lag_ref == {} and p._lagging == {"w2": 3.0}
    gone = s.workers.pop("w2")  # (a reference that stays: another worker's)
    s.running.discard(gone)
    p._lag_ref = {"read": ("w0", 0.2)}
    p.remove_worker(s, "w2")
    assert p._lag_ref == {"read": ("w0", 0.2)} and p._lagging == {}


@pytest.mark.parametrize("mode,slow,workers,switch,off_value,before,after", [
    # 4 x 1, loads 2x slower: the fast workers idled until the timer while the slow one's
    # parked roots waited (3 / 3 / 3 / 3), taken at once 4 / 3 / 3 / 2
    ("worker", 2.0, 4, "IDLE_WAKE", 0, 0.979, 0.883),
    # 4 x 1, one group's loads 4x slower: the next group's last loads waited for a worker
    # running a slow load while two workers idled (3 / 3 / 3 / 3); the tail take and the
    # near take, 4 / 3 / 3 / 2 (bit 8 without IDLE_NEAR: 5 / 3 / 2 / 2, over queuing's peak)
    ("group", 4.0, 4, "IDLE_TAIL", 7, 1.145, 1.071),
    ("group", 4.0, 4, "IDLE_NEAR", 0.0, 1.242, 1.071),
    # 4 x 1, loads 5x slower: a store placed by pace on the slow worker (its mean there)
    # copied its load in, then dask's stealing took it back to the fast worker, which ran 4
    # stores while the slow one idled 1 s
    ("worker", 5.0, 4, "PACE_STAYS", 0, 1.051, 0.951),
    # 3 x 1, one group's loads 4x slower: the group's last load waited for the worker
    # running two slow loads while one that had ended its group idled (refused as 3.5 loads
    # over the busy one, though no higher than the third worker); taken, 5 / 5 / 2 (one
    # store moved by pace, PACE_LAST: two, 0.967x, copied more than queuing's bytes at 3x)
    ("group", 4.0, 3, "IDLE_TOP", 0, 1.197, 1.019),
])
def test_twin_the_idle_worker_in_time(monkeypatch, mode, slow, workers, switch, off_value,
                                      before, after):
    """Faster, the peak and bytes moved at or below queuing's in every naming; the switch
    off: as before it."""
    pytest.importorskip("distributed")
    bench = _bench()
    ratio = _spans(bench, slow, mode, _at_most_queuings, workers=workers)
    assert ratio <= after + 0.005, ratio
    monkeypatch.setattr(policy, switch, off_value)
    off = _spans(bench, slow, mode, lambda *a: None, workers=workers)
    assert abs(off - before) < 0.005, off


def test_twin_a_root_off_a_slower_worker_goes_to_a_free_one(monkeypatch):
    """3 x 1, one group's loads 3x slower, the take not asked at once (IDLE_WAKE 0): once the
    slow worker was found clearly slower, both its parked roots went to the first faster
    worker, the second queued behind the first while another worker idled (6 / 4 / 2,
    1.283x queuing's time, 1.077x its peak); to the free one, 5 / 5 / 2, within its peak."""
    pytest.importorskip("distributed")
    bench = _bench()
    monkeypatch.setattr(policy, "IDLE_WAKE", 0)
    peaks = []
    ratio = _spans(bench, 3.0, "group", lambda s, t, q: peaks.append(t["peak"] <= q["peak"]),
                   workers=3)
    assert ratio <= 1.083 + 0.005 and all(peaks), (ratio, peaks)
    monkeypatch.setattr(policy, "OFF_FREE", 0)
    peaks.clear()
    off = _spans(bench, 3.0, "group", lambda s, t, q: peaks.append(t["peak"] > q["peak"]),
                 workers=3)
    assert abs(off - 1.283) < 0.005 and any(peaks), (off, peaks)
