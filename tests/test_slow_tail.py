"""slow44: exact ties in the idle take. policy.idle_tail: at a root group's tail an idle worker
takes a root from a worker slower alone (policy.slower_alone) one over its even share (bit 2:
its stores then by the soonest end; bit 4: not for a busy worker whose readers lag too);
IDLE_TIE: idle_takes' held gap (and idle_tail's seconds) within a sixteenth of a load is a
tie that goes to the idle worker. Twin anomaly 2 x 1, one worker's loads slower
(bench/twin_slow_worker.py --mode worker)."""

from __future__ import annotations

import pytest

from tidegate import policy
from tidegate.policy import idle_tail, idle_takes, reads_slower
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
    ratio = _spans(bench, slow, "worker", _peak_at_most_queuings, workers=2)
    assert ratio <= after + 0.005, ratio
    monkeypatch.setattr(policy, switch, 0.0 if switch == "IDLE_TIE" else 0)
    off = _spans(bench, slow, "worker", lambda *a: None, workers=2)
    assert abs(off - before) < 0.005, off


def test_reads_slower_one_sample_each():
    nan = float("nan")
    assert reads_slower((0.066, 0.066), (0.033, 0.033))
    assert reads_slower((0.066,), (0.033, nan))
    assert not reads_slower((0.033, 0.066), (0.033, 0.033))  # its shorter at full speed
    assert not reads_slower(None, (0.033,)) and not reads_slower((0.066,), (nan,))


@pytest.mark.parametrize("mode,workers,bits,over", [("worker", 4, 1, 0.966),
                                                    ("all", 3, 11, None)])
def test_twin_the_tails_bits(monkeypatch, mode, workers, bits, over):
    """IDLE_TAIL's bits 2 and 4. 4 x 1, loads 3x slower: the tail take put a 4th load on a
    fast worker and its stores followed (0.966x queuing's); noted as paced (bit 2), the
    stores go by the soonest end: 0.903x. 3 x 1, every task of one worker 2x slower: the
    take of its last load (the lag not found yet) put the mean beside the idle worker's 5
    loads, over queuing's peak in 4 of 5 namings (1 since IDLE_WAKE, slow45); not taken
    (bit 4, its readers 2x slower too): main's 4 / 4 / 4, at queuing's peak. Bit 4 alone
    off (11: bit 8's take kept)."""
    pytest.importorskip("distributed")
    bench = _bench()
    slow = 3.0 if mode == "worker" else 2.0
    ratio = _spans(bench, slow, mode, _peak_at_most_queuings, workers=workers)
    assert ratio <= (0.903 if mode == "worker" else 0.934) + 0.005, ratio
    monkeypatch.setattr(policy, "IDLE_TAIL", bits)
    peaks = []
    off = _spans(bench, slow, mode, lambda salt, t, q: peaks.append(t["peak"] > q["peak"]),
                 workers=workers)
    if over is not None:
        assert abs(off - over) < 0.005, off
    else:
        # (slow44: 4 of 5; with IDLE_WAKE the take comes at the idle moment, not at the
        # timer, and 4 namings end under queuing's peak, one still over: slow45)
        assert sum(peaks) == 1, peaks
