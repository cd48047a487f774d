"""slow44: exact ties in the idle take. policy.idle_tail: at a root group's tail an idle worker
takes a root from a worker slower alone (policy.slower_alone) IDLE_TAIL over its even share
(0 by default: at 3 x 1 it goes over queuing's peak, slow44-findings.txt);
IDLE_TIE: idle_takes' held gap (and idle_tail's seconds) within a sixteenth of a load is a
tie that goes to the idle worker. Twin anomaly 2 x 1, one worker's loads slower
(bench/twin_slow_worker.py --mode worker)."""

from __future__ import annotations

import pytest

from tidegate import policy
from tidegate.policy import idle_tail, idle_takes
from test_slow_alone import _peak_at_most_queuings
from test_slow_pace import _bench, _spans  # (the twin bench and its five namings' sums)


def test_idle_tail_is_the_groups_tail_within_a_tie(monkeypatch):
    nan = float("nan")
    monkeypatch.setattr(policy, "IDLE_TAIL", 1)
    fast, slow = (0.161, 0.161), (0.403, 0.403)
    assert idle_tail(2, slow, fast)  # 2 x 0.161 s before the slow one's 0.403
    assert not idle_tail(3, slow, fast)  # 0.483 s: not the tail
    near = (0.1611, 0.1611)  # (the twin's 0.16100000000000003: 3 x it just over 0.483)
    assert idle_tail(3, (0.483, 0.483), near)  # a tie within a sixteenth of a load
    assert idle_tail(1, (0.403, nan), (0.161, nan))  # one sample each
    assert not idle_tail(0, slow, fast) and not idle_tail(2, None, fast)
    assert not idle_tail(2, slow, (nan, nan))
    monkeypatch.setattr(policy, "IDLE_TIE", 0.0)
    assert not idle_tail(3, (0.483, 0.483), near)  # the sum just over decides
    monkeypatch.setattr(policy, "IDLE_TAIL", 0)
    assert not idle_tail(2, slow, fast)  # off: slow43's


def test_idle_takes_held_gap_within_a_tie(monkeypatch):
    # (twin 2 x 1, loads 3x slower, at 1.462 s: 7 loads and two chunk-means' bytes against
    # 5 loads; 640 bytes over 3 loads' gap)
    pace, other = (0.483, 0.483), (0.161, 0.161)
    assert idle_takes(pace, other, 160000056.0, 224000696.0, 32e6)
    assert not idle_takes(pace, other, 160000056.0, 224000696.0 + 3e6, 32e6)
    monkeypatch.setattr(policy, "IDLE_TIE", 0.0)
    assert not idle_takes(pace, other, 160000056.0, 224000696.0, 32e6)


@pytest.mark.parametrize("slow,switch,before,after", [
    (2.5, "IDLE_TAIL", 1.083, 1.015), (3.0, "IDLE_TIE", 1.072, 1.057)])
def test_twin_the_idle_worker_takes_a_tie_or_the_tail(monkeypatch, slow, switch, before,
                                                      after):
    """2 x 1, loads 2.5x slower: the fast worker idled 1.30-2.73 s while the slow one ran
    the last group's three loads (6 / 6; clearly_slower's 2.5x a tie), taken at the tail
    7 / 5; 3x: the take of the last group's load refused by 640 bytes. Faster, the peak at
    or below queuing's in every naming; the switch off: main's."""
    pytest.importorskip("distributed")
    bench = _bench()
    monkeypatch.setattr(policy, "IDLE_TAIL", 1)  # (the A/B: 0 by default, policy.py says why)
    ratio = _spans(bench, slow, "worker", _peak_at_most_queuings, workers=2)
    assert ratio <= after + 0.005, ratio
    monkeypatch.setattr(policy, switch, 0.0 if switch == "IDLE_TIE" else 0)
    off = _spans(bench, slow, "worker", lambda *a: None, workers=2)
    assert abs(off - before) < 0.005, off
