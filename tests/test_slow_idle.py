"""slow42: a worker with nothing processing takes a root parked for a busy worker whose last
root of the group took over 1.5x its own (policy.idle_takes, within_share; IDLE_PACE,
IDLE_HELD), in the twin's anomaly 2 x 1 with one reduction group's loads (--mode group) or
one worker's loads (--mode worker) 4-5x slower (bench/twin_slow_worker.py)."""

from __future__ import annotations

import pytest

from tidegate import policy
from tidegate.policy import idle_takes, within_share
from test_slow_pace import _bench, _spans  # (the twin bench and its five namings' sums)


def test_idle_takes_by_the_busy_ones_last_root_and_held_bytes(monkeypatch):
    nan = float("nan")
    est = 32e6
    monkeypatch.setattr(policy, "IDLE_PACE", 1.5)
    monkeypatch.setattr(policy, "IDLE_HELD", 3.0)
    assert idle_takes((0.64, nan), (0.16, 0.16), 96e6, 144e6, est)  # one slow sample is enough
    assert idle_takes((0.40, 0.40), (0.16, nan), 168e6, 224e6, est)  # 2.75 loads more after
    assert not idle_takes((0.40, 0.40), (0.16, 0.16), 160e6, 240e6, est)  # 3.5 loads more
    assert not idle_takes((0.20, 0.64), (0.16, 0.16), 96e6, 96e6, est)  # the last is 1.25x
    assert not idle_takes((0.16, 0.16), (0.16, 0.16), 96e6, 96e6, est)  # one pace: never
    assert not idle_takes((0.64, 0.64), (nan, nan), 96e6, 96e6, est)  # idle one's unknown
    assert not idle_takes((0.0, 0.0), (0.0, 0.0), 96e6, 96e6, est)  # no clock to compare by
    assert not idle_takes(None, (0.16, 0.16), 96e6, 96e6, est)
    monkeypatch.setattr(policy, "IDLE_PACE", 0)
    assert not idle_takes((0.64, 0.64), (0.16, 0.16), 96e6, 96e6, est)  # off: main's


def test_within_share_counts_the_meetings_roots_to_come():
    assert within_share(4 + 1, 12, 2)  # 4 held, the meeting's other root to come: 6 of 6
    assert not within_share(6, 12, 2)  # a 7th of 12 on 2 workers
    assert within_share(2, 12, 4)  # a 3rd of 12 on 4
    assert not within_share(2 + 1, 12, 4)  # its meeting's last root would make 4
    assert not within_share(0, 12, 0)


@pytest.mark.parametrize("slow,mode,before,after", [
    (4.0, "group", 1.058, 0.998), (5.0, "group", 1.119, 0.998), (4.0, "worker", 1.057, 0.994)])
def test_twin_an_idle_worker_takes_a_parked_root(monkeypatch, slow, mode, before, after):
    """group 4x: the fast worker ended its own group at 0.81 s and idled to 1.29 s while
    the slow group's two loads left and the next group's four waited (parked) for the
    worker running the slow loads; worker 4x: the fast worker idled 0.81-1.00 s the same
    way. Taken by the idle worker (the slow group's next load): faster, the loads' split,
    peak and bytes moved at or below queuing's in every naming; off (IDLE_PACE 0):
    main's."""
    pytest.importorskip("distributed")
    bench = _bench()

    def check(salt, tide, queue):
        assert tide["peak"] <= queue["peak"], salt
        assert tide["bytes_transferred"] <= queue["bytes_transferred"], salt

    ratio = _spans(bench, slow, mode, check)
    assert ratio <= after + 0.005, ratio
    monkeypatch.setattr(policy, "IDLE_PACE", 0)
    off = _spans(bench, slow, mode, lambda *a: None)
    assert abs(off - before) < 0.005, off
