"""policy.BROADCAST_LEARN: the broadcast's fan-out learnt from the copies' times (anom38).
A sender whose copies do not slow each other (the twin's ``outgoing_bandwidth=inf``, a
LocalCluster's in-process hand-over) gets a wide fan-out; one whose copies queue (the
twin's default: one NIC) keeps the tree."""

import math

import pytest

from tidegate import policy
from tidegate.policy import broadcast_per_sender, joins_group, senders_free


def test_senders_free_by_the_spread_against_one_copys_time():
    one = 8e6 / 200e6  # 40 ms at the best rate seen
    assert senders_free([0.041, 0.042], 8e6, 200e6)  # landed together
    assert not senders_free([0.041, 0.082], 8e6, 200e6)  # a transfer time apart: queued
    # Queued behind other copies, still a transfer time apart: slowed (a ratio would not
    # see it: 0.5 s against 0.54 s).
    assert not senders_free([0.5, 0.5 + one], 8e6, 200e6)
    # A link shared fairly: both late alike, against a copy measured faster before.
    assert not senders_free([2 * one, 2 * one], 8e6, 200e6)
    assert not senders_free([0.04], 8e6, 200e6)  # one copy tells nothing
    assert not senders_free([0.04, 0.04], 8e6, 0.0)


def test_broadcast_per_sender_probe_then_doubling(monkeypatch):
    monkeypatch.setattr(policy, "BROADCAST_LEARN", 1)
    assert broadcast_per_sender(None, False, 2) == 1  # one receiver: nothing to probe
    assert broadcast_per_sender(None, False, 5) == policy.BROADCAST_PROBE
    assert broadcast_per_sender(None, True, 5) == 1  # a probe is out
    assert broadcast_per_sender(0, False, 100) == policy.BROADCAST_PER_SENDER
    assert broadcast_per_sender(1, False, 100) == 2 * policy.BROADCAST_PROBE
    assert broadcast_per_sender(2, False, 100) == 4 * policy.BROADCAST_PROBE
    assert broadcast_per_sender(99, False, 100) == policy.BROADCAST_WIDE
    monkeypatch.setattr(policy, "BROADCAST_LEARN", 0)
    assert broadcast_per_sender(5, False, 100) == policy.BROADCAST_PER_SENDER


def test_joins_group_within_a_fraction_of_a_copys_time():
    assert joins_group(0.0, 8e6, 100e6)
    assert joins_group(0.005, 8e6, 100e6)  # 80 ms expected: 8 ms window
    assert not joins_group(0.02, 8e6, 100e6)
    assert not joins_group(0.001, 8e6, 0)


def _weighted_runs(outgoing, learns=(0, 1)):
    from tidegate.distributed import broadcast
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build

    made = []
    init = broadcast.Broadcast.__init__

    def record(self, *a, **k):
        init(self, *a, **k)
        made.append(self)

    model = build("weighted", 40, 190e6, store=False).model()
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(broadcast.Broadcast, "__init__", record)
        for learn in learns:
            mp.setattr(policy, "BROADCAST_LEARN", learn)
            kw = dict(workers=8, threads_per_worker=2, bandwidth="200MB/s")
            if outgoing is not None:
                kw["outgoing_bandwidth"] = outgoing
            r = simulate(model, policy="tidegate", **kw)
            out[learn] = (r, made[-1])
    return out


def test_twin_senders_free_widen_and_gain():
    runs = _weighted_runs(math.inf)
    (r0, b0), (r1, b1) = runs[0], runs[1]
    assert not b0.timed and b0.level is None  # switched off: nothing timed (the tree)
    assert b1.level and b1.level > 0 and all(v[2] for v in b1.verdicts)
    assert r1.makespan < 0.97 * r0.makespan  # 18.45 -> 17.50 s
    assert max(r1.peak_memory_per_worker) <= max(r0.peak_memory_per_worker)


def test_twin_senders_limited_keep_the_tree():
    runs = _weighted_runs(None)
    (r0, _), (r1, b1) = runs[0], runs[1]
    assert b1.level == 0 and b1.per == 1 and not any(v[2] for v in b1.verdicts)
    assert r1.makespan <= 1.005 * r0.makespan  # 19.402 -> 19.400 s
    assert r1.bytes_transferred == r0.bytes_transferred


def test_the_twin_reports_each_fetch_as_dask_s_worker_does(monkeypatch):
    """dask's Worker.gather_dep attaches a "transfer" startstop (start, stop, source) to
    a task it fetched for; the scheduler hears it with that task's task-finished. The twin
    must give the same signal (BROADCAST_LEARN = 2 reads it)."""
    from tidegate.sim import cluster as sim_cluster
    from tidegate.sim import simulate
    from tidegate.sim.workloads import build

    seen = []
    original = sim_cluster.SimScheduler.handle_task_finished

    def handle(self, *args, startstops=(), worker=None, **kwargs):
        seen.extend((worker, ss) for ss in startstops or () if ss["action"] == "transfer")
        return original(self, *args, startstops=startstops, worker=worker, **kwargs)

    monkeypatch.setattr(sim_cluster.SimScheduler, "handle_task_finished", handle)
    model = build("weighted", 8, 190e6, store=False).model()
    r = simulate(model, policy="queue", workers=4, threads_per_worker=1, bandwidth="200MB/s")
    assert r.trace.transfers and seen
    workers = set(r.trace.meta["workers"])
    for worker, ss in seen:
        assert ss["source"] in workers and ss["source"] != worker
        assert 0 <= ss["start"] <= ss["stop"] <= r.makespan


def test_broadcast_growth_widens_faster_per_free_verdict(monkeypatch):
    monkeypatch.setattr(policy, "BROADCAST_LEARN", 1)
    monkeypatch.setattr(policy, "BROADCAST_GROWTH", 2)
    assert broadcast_per_sender(None, False, 5) == policy.BROADCAST_PROBE  # probe alike
    assert broadcast_per_sender(0, False, 100) == policy.BROADCAST_PER_SENDER  # tree alike
    assert broadcast_per_sender(1, False, 100) == 4 * policy.BROADCAST_PROBE
    assert broadcast_per_sender(2, False, 100) == 16 * policy.BROADCAST_PROBE
    assert broadcast_per_sender(3, False, 100) == policy.BROADCAST_WIDE


def test_a_free_verdict_holds_only_on_the_hosts_it_was_made_on(monkeypatch):
    from types import SimpleNamespace

    from tidegate.distributed.broadcast import Broadcast
    from tidegate.policy import kept_level

    assert kept_level(2, frozenset("ab"), frozenset("a")) == 2  # fewer hosts: kept
    assert kept_level(2, frozenset("ab"), frozenset("abc")) is None  # a new host: probe
    assert kept_level(0, frozenset("a"), frozenset("abc")) == 0  # "slowed" kept (the tree)
    assert kept_level(None, frozenset(), frozenset("a")) is None
    monkeypatch.setattr(policy, "BROADCAST_KEEP", 0)
    assert kept_level(2, frozenset("ab"), frozenset("abc")) == 2  # anom38's
    monkeypatch.setattr(policy, "BROADCAST_KEEP", 1)
    monkeypatch.setattr(policy, "BROADCAST_LEARN", 1)

    def scheduler(*hosts):
        return SimpleNamespace(workers={f"tcp://{h}:{i}": SimpleNamespace(host=h)
                                        for i, h in enumerate(hosts)})

    b = Broadcast()
    b.level, b._hosts, b._nw = 1, frozenset("ab"), -1
    assert b._reper(scheduler("a", "b", "b")) == 2 * policy.BROADCAST_PROBE  # kept
    assert b._reper(scheduler("a", "b", "c")) == policy.BROADCAST_PROBE and b.level is None
    # A resync's new Broadcast keeps what the old one learnt of the senders, not its copies.
    old = Broadcast()
    old.level, old.best_rate, old._hosts = 3, 2e8, frozenset("a")
    old.flight["x"] = {"tcp://a:1": "tcp://a:0"}
    new = Broadcast()
    new.keep(old)
    assert (new.level, new.best_rate, new._hosts) == (3, 2e8, frozenset("a"))
    assert not new.flight
    monkeypatch.setattr(policy, "BROADCAST_KEEP", 0)
    fresh = Broadcast()
    fresh.keep(old)
    assert fresh.level is None


def test_receivers_of_another_input_are_those_still_awaiting_a_copy():
    """Broadcast._receiving (policy.BROADCAST_FRESH): an input whose last copies landed
    after anyone last looked at it keeps them in its flight; they are not receivers."""
    from types import SimpleNamespace

    from tidegate.distributed.broadcast import Broadcast

    class W:  # hashable by identity, as dask's WorkerState
        def __init__(self, address):
            self.address = address

    ws = {a: W(a) for a in ("w0", "w1", "w2", "w3")}
    grid = SimpleNamespace(key="grid", who_has={ws["w0"], ws["w1"]})
    other = SimpleNamespace(key="other", who_has=None)  # released
    s = SimpleNamespace(workers=ws, tasks={"grid": grid, "other": other})
    b = Broadcast()
    b.flight = {"grid": {"w1": "w0", "w2": "w0"}, "other": {"w3": "w1"}, "agg": {}}
    b._seen = {"grid": (1, 4)}  # looked at when w0 alone held it
    assert b._receiving(s, "agg") == {"w2"}  # w1 landed; other's copies: no sender left
    assert b.flight["grid"] == {"w2": "w0"} and not b.flight["other"]


def test_one_copys_time_at_no_slower_than_dask_s_estimate(monkeypatch):
    """policy.BROADCAST_RATE_FLOOR: on a busy real cluster a copy's measured time is mostly
    the messages' round trip; judged against the best rate seen alone, a sender whose
    copies queue (8 MB at 200 MB/s: 40 ms apart) passed for free (LocalCluster 4 x 1,
    load 25: copies 0.215 and 0.262 s, best rate 37 MB/s; learn40)."""
    from tidegate.policy import copy_rate

    queued, best, dask_bw = [0.215, 0.262], 37e6, 100e6
    monkeypatch.setattr(policy, "BROADCAST_RATE_FLOOR", 0)
    assert copy_rate(best, dask_bw) == best
    assert senders_free(queued, 8e6, copy_rate(best, dask_bw))  # the wrong verdict
    monkeypatch.setattr(policy, "BROADCAST_RATE_FLOOR", 1)
    assert copy_rate(best, dask_bw) == dask_bw
    assert not senders_free(queued, 8e6, copy_rate(best, dask_bw))
    # Copies that reach dask's estimate are judged as before (the twin: SAME).
    assert copy_rate(190e6, dask_bw) == 190e6
    assert senders_free([0.041, 0.042], 8e6, copy_rate(200e6, dask_bw))
    assert copy_rate(37e6, 0) == 37e6  # no estimate: the best rate seen
