"""A root's free workers are read as far as its placement reads them, not listed whole,
where that changes no decision: the broadcast gate over an input every worker holds
(Broadcast._allowed), and Plugin._free_iter when every worker runs. The same workers, in
the same order, as the whole list gave."""

from __future__ import annotations

from types import SimpleNamespace

from sortedcontainers import SortedDict

from tidegate.distributed import hooks, walks
from tidegate.distributed.broadcast import Broadcast
from tidegate.policy import BROADCAST_MIN_BYTES, SHARED_FANOUT


class _W:  # a WorkerState: hashed by identity
    def __init__(self, address) -> None:
        self.address = address


def _cluster(n):
    workers = SortedDict((f"w{i}", _W(f"w{i}")) for i in range(n))
    comms = {a: SimpleNamespace(sent=[]) for a in workers}
    for c in comms.values():
        c.send = c.sent.append
    return SimpleNamespace(workers=workers, running=set(workers.values()), stream_comms=comms)


def _reader_of(shared):
    d = SimpleNamespace(key="grid", who_has=set(shared), nbytes=BROADCAST_MIN_BYTES,
                        dependents=[None] * SHARED_FANOUT, waiters=set())  # fmt: skip
    return SimpleNamespace(dependencies=[d, d])  # two shared inputs (weights: two grids)


def _free(order, read):
    for addr in order:
        read.append(addr)
        yield addr


ORDER = ["w3", "gone", "w1", "w5", "w0"]  # least loaded first; "gone" left the cluster


def test_free_workers_read_lazily_when_every_worker_holds_the_shared_inputs():
    s = _cluster(6)
    ts = _reader_of(s.workers.values())
    read: list = []
    partners, allowed = Broadcast().restrict(s, ts, {}, _free(ORDER, read))
    assert read == []  # main listed every free worker here, once per input
    assert next(iter(allowed)) == "w3" and read == ["w3"]
    assert list(allowed) == ["w3", "w1", "w5", "w0"] == list(allowed)  # again from the start
    # what a list of the candidates gives (a root's partners' path, the gate's)
    _, listed = Broadcast().restrict(s, ts, {}, [a for a in ORDER if a != "gone"])
    assert listed == list(allowed)


def test_a_worker_without_the_shared_input_is_left_out_as_before():
    s = _cluster(6)
    ts = _reader_of([w for a, w in s.workers.items() if a != "w1"])
    b = Broadcast()
    b.flight["grid"] = {"w1": "w0"}  # a copy on its way: w1 waits for it, allowed
    b._seen["grid"] = (5, 6)
    free = [a for a in ORDER if a != "gone"]  # (as Plugin._free_iter gives them)
    _, allowed = b.restrict(s, ts, {}, _free(free, []))
    assert list(allowed) == ["w3", "w1", "w5", "w0"]
    del b.flight["grid"]["w1"]  # no copy now: every holder could send, one starts for w1
    _, allowed = b.restrict(s, ts, {}, _free(free, []))
    assert b.copies == 1 and b.flight["grid"] == {"w1": "w0"}
    assert [m["who_has"] for m in s.stream_comms["w1"].sent] == [{"grid": ["w0"]}]


def test_free_workers_as_each_was_checked_while_every_worker_runs_or_not():
    s = _cluster(4)
    plugin = SimpleNamespace(scheduler=s, _free=[(0.0, "w2"), (0.5, "gone"), (1.0, "w0")])
    assert list(hooks.Plugin._free_iter(plugin)) == ["w2", "w0"]
    s.running.discard(s.workers["w0"])  # paused: still a worker, not running
    assert list(hooks.Plugin._free_iter(plugin)) == ["w2"]


def test_holders_addresses_follow_who_has_when_its_members_change_but_not_its_size(
        monkeypatch):
    # Broadcast.addresses keeps a grid's holders' addresses while who_has is the same
    # WorkerStates: a holder swapped for another (a replica dropped, one added) at the same
    # count must show, where a cache by size would keep the old holder.
    # (One copy per holder: the tree, policy.BROADCAST_LEARN off; its probe would let a
    # holder sending one send a second.)
    from tidegate import policy

    monkeypatch.setattr(policy, "BROADCAST_LEARN", 0)
    s = _cluster(6)
    ts = _reader_of([s.workers["w0"], s.workers["w1"]])
    d = ts.dependencies[0]
    b = Broadcast()
    assert b.addresses("grid", d.who_has) == {"w0", "w1"}
    assert b.addresses("grid", d.who_has) is b.addresses("grid", d.who_has)  # kept
    d.who_has.discard(s.workers["w1"])
    d.who_has.add(s.workers["w4"])
    assert b.addresses("grid", d.who_has) == {"w0", "w4"}
    b.flight["grid"] = {"w2": "w0", "w3": "w4"}  # every holder sending: no copy starts
    _, allowed = b.restrict(s, ts, {}, ["w1", "w4", "w0"])
    assert allowed == ["w4", "w0"] and b.flight["grid"] == {"w2": "w0", "w3": "w4"}
    b.forget("grid")
    assert "grid" not in b._holders


def test_a_final_task_reading_shared_weights_is_placed_without_a_meeting_walk(monkeypatch):
    # Twin weighted (two broadcast grids read by every output block, which nothing
    # reads): main walked each block's meetings (policy.meeting_plan) to find none.
    from tidegate.sim import simulate
    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import build

    walked = []
    plan = walks.meeting_plan
    monkeypatch.setattr(walks, "meeting_plan", lambda ts, *a, **k: walked.append(ts.key)
                        or plan(ts, *a, **k))  # fmt: skip
    w = build("weighted", 60, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    r = simulate(model, workers=8, threads_per_worker=2, policy="tidegate",
                 bandwidth="200MB/s", record_memory=False)  # fmt: skip
    assert len(r.trace.tasks) == len(model.dsk)
    finals = [k for k in walked if "store-map" in str(k)]
    assert finals == [] and len(walked) < 10  # main: 64 walks, 60 of them final blocks


def test_a_departed_holder_is_dropped_from_the_kept_holder_lists():
    # Broadcast.addresses keeps each shared input's holders (their WorkerStates) till the
    # input is forgotten: a worker that left stayed referenced for the whole computation.
    s = _cluster(4)
    p = hooks.Plugin()
    p._resync()  # (no scheduler yet: the books and sets alone)
    p.scheduler = s
    b = p._broadcast
    w = s.workers
    assert b.addresses("grid", {w["w0"], w["w1"]}) == {"w0", "w1"}
    assert b.addresses("mean", {w["w2"], w["w3"]}) == {"w2", "w3"}
    gone = w.pop("w1")
    s.running.discard(gone)
    p.remove_worker(s, "w1")
    assert p.errors == []
    assert all(gone not in kept for kept, _ in b._holders.values())
    assert "grid" not in b._holders and b._holders["mean"][1] == {"w2", "w3"}  # others kept
    assert b.addresses("grid", {w["w0"]}) == {"w0"}  # listed afresh
