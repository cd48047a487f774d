"""poke's starts and dask's machinery (cpu37b, session 37).

Batched starts (switch admission.BATCH_STARTS until session 42): poke's starts run through
dask's ``_transitions`` each at once but share one ``send_all`` at the poke's end (a copy's
message sends the starts before it): each worker must receive the same batches at the same
(virtual) times as with one ``Scheduler.transitions`` per start (as where the plugin's apply
is not dask's own transitions: install._is_dask_transitions). admission.PARK_HELD_QUEUED: a
reader held at dask's decide_worker goes straight among the held readers at its waiting ->
queued transition.
"""

from __future__ import annotations

from dataclasses import astuple

from distributed.scheduler import Scheduler

from tidegate.distributed import admission, install
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.worker import SimWorker
from tidegate.sim.workloads import build


def _received(monkeypatch, name, steps, workers, batch: bool):
    """(every batch each worker received: (time, worker, [(op, key or keys)]), the trace,
    send_all calls) of a twin run of ``name`` with the plugin; not ``batch``: one apply a
    start, as where the apply is not dask's own transitions."""
    if not batch:
        monkeypatch.setattr(install, "_is_dask_transitions", lambda scheduler, apply: False)
    got = []
    receive = SimWorker.receive

    def recorded(self, msgs):
        got.append((self.clock.now, self.address,
                    [(m.get("op"), m.get("key", str(m.get("who_has", m.get("keys")))))
                     for m in msgs]))  # fmt: skip
        return receive(self, msgs)

    sends = [0]
    send_all = Scheduler.send_all

    def counted(self, client_msgs, worker_msgs):
        sends[0] += 1
        return send_all(self, client_msgs, worker_msgs)

    monkeypatch.setattr(SimWorker, "receive", recorded)
    monkeypatch.setattr(Scheduler, "send_all", counted)
    from tidegate.sim import cluster as sim_cluster

    monkeypatch.setattr(sim_cluster.SimScheduler, "send_all", counted)
    w = build(name, steps, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    r = simulate(model, workers=workers, threads_per_worker=4, policy="tidegate",
                 bandwidth="1GB/s", record_memory=False)  # fmt: skip
    monkeypatch.undo()
    trace = ([astuple(t) for t in r.trace.tasks], [astuple(t) for t in r.trace.transfers])
    return got, trace, sends[0]


def test_batched_starts_deliver_what_one_send_per_start_delivered(monkeypatch):
    # The anomaly: roots started by poke, readers of the mean held for copies whose
    # acquire-replicas messages are sent between poke's starts.
    flushed = [0]  # copies sent after starts in one poke: the starts sent first
    flush = admission.Admission._flush_starts

    def counted(self):
        batch = self._batch
        flushed[0] += batch is not None and bool(batch[1])
        return flush(self)

    for name, steps, workers in (("anomaly", 200, 20), ("rechunk-add", 100, 20)):
        one, one_trace, one_sends = _received(monkeypatch, name, steps, workers,
                                              batch=False)  # fmt: skip
        monkeypatch.setattr(admission.Admission, "_flush_starts", counted)
        batched, trace, sends = _received(monkeypatch, name, steps, workers,
                                          batch=True)  # fmt: skip
        assert batched == one, name
        assert trace == one_trace, name
        assert sends < one_sends, (name, sends, one_sends)  # (and the batch was used)
        if name == "anomaly":
            assert any(op == "acquire-replicas" for _, _, msgs in one for op, _ in msgs)
            assert flushed[0] > 0


def test_batch_only_over_dask_s_own_transitions():
    from tidegate.distributed.install import _is_dask_transitions

    class S(Scheduler):  # (not constructed: only the bound method is looked at)
        def __init__(self):
            pass

    s = S()
    assert _is_dask_transitions(s, s.transitions)
    assert not _is_dask_transitions(s, lambda recs, sid: None)
    assert not _is_dask_transitions(S(), s.transitions)  # another scheduler's

    class T(S):
        def transitions(self, recommendations, stimulus_id):
            return Scheduler.transitions(self, recommendations, stimulus_id)

    t = T()
    assert not _is_dask_transitions(t, t.transitions)  # overridden: each start applied


def test_a_copy_s_message_goes_after_the_starts_made_before_it():
    # (The twin runs above never start a task and then a copy to one worker in one poke,
    # so they cannot tell; here one stream gets both, in order.)
    from types import SimpleNamespace

    sent = []

    class Comm:
        def __init__(self, addr):
            self.addr = addr

        def send(self, *msgs):
            sent.extend((self.addr, m["op"]) for m in msgs)

    s = SimpleNamespace(client_comms={}, stream_comms={"a": Comm("a"), "b": Comm("b")},
                        status=None)  # fmt: skip
    s.send_all = lambda c, w: Scheduler.send_all(s, c, w)
    plugin = SimpleNamespace(scheduler=s, _batch=({}, {}), _error=None)
    flush = plugin._flush_starts = admission.Admission._flush_starts.__get__(plugin)
    end = admission.Admission._end_batch.__get__(plugin)
    plugin._batch[1].setdefault("a", []).append({"op": "compute-task"})
    plugin._batch[1].setdefault("b", []).append({"op": "compute-task"})
    flush()  # as Broadcast.restrict does before its comm.send
    s.stream_comms["a"].send({"op": "acquire-replicas"})
    plugin._batch[1].setdefault("a", []).append({"op": "compute-task"})
    end(s)
    assert sent == [("a", "compute-task"), ("b", "compute-task"), ("a", "acquire-replicas"),
                    ("a", "compute-task")]  # fmt: skip
    assert plugin._batch is None
    end(s)  # (nothing left: nothing sent)
    assert len(sent) == 4


def test_readers_held_at_decide_worker_parked_at_once(monkeypatch):
    # PARK_HELD_QUEUED: the anomaly's readers of the mean, held at dask's decide_worker,
    # go among the held readers at waiting -> queued (not in line for poke's scan to place
    # and park). A decision change in principle (the scan's window no longer counts them):
    # none in these runs (nor in the plugin fingerprints); dask's state valid throughout.
    from tidegate.distributed.hooks import Plugin

    parked = [0]
    queued = Plugin._queued

    def counted(self, ts):
        n = len(self._copies)
        queued(self, ts)
        parked[0] += len(self._copies) > n

    monkeypatch.setattr(Plugin, "_queued", counted)
    w = build("anomaly", 200, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    traces = {}
    for on in (False, True):
        monkeypatch.setattr(admission, "PARK_HELD_QUEUED", on)
        parked[0] = 0
        r = simulate(model, workers=20, threads_per_worker=4, policy="tidegate",
                     bandwidth="1GB/s", record_memory=False, validate=on)  # fmt: skip
        traces[on] = ([astuple(t) for t in r.trace.tasks],
                      [astuple(t) for t in r.trace.transfers])  # fmt: skip
        assert (parked[0] > 0) == on, (on, parked[0])
    assert traces[True] == traces[False]
