"""(cpu37b, session 37) timeit of poke's start path, each start's own send (before) against
one send per poke (admission.BATCH_STARTS), on the starts the twin's runs really make.

    PYTHONPATH=src python bench/results/cpu37b-tools/batch_timeit.py [WORKLOAD] [WORKERS]

1. Runs the twin (WORKLOAD, default anomaly, scale 0.5 as plugin_ops.py; WORKERS x 4)
   with the plugin and records each poke's starts: the worker of each, in order.
2. Replays them through dask's own Scheduler.transitions / SchedulerState._transitions /
   Scheduler.send_all on a stand-in scheduler whose ``_transition`` returns the start's one
   compute-task message at once (the same cost in both ways, so the difference is the
   path's own), into real ``distributed.batched.BatchedSend`` objects (not started: send
   appends to the buffer, as a live one mostly does), and the plugin's own
   steps of ``Placement._start`` and ``_poke``'s end (Admission._end_batch):
   before: per start ``transitions({key: "processing"}, sid)`` (``_apply``);
   after:  per start ``_transitions`` into the poke's dicts (made at its first start),
           per poke the ``finally``'s test and, after starts, ``_end_batch``'s send_all.
Prints µs per poke and per start, best of 7 repeats (timeit)."""
import sys
import timeit

from distributed.batched import BatchedSend
from distributed.core import Status
from distributed.scheduler import Scheduler, SchedulerState

from tidegate.distributed import admission
from tidegate.distributed.hooks import Plugin
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import build

name = sys.argv[1] if len(sys.argv) > 1 else "anomaly"
nworkers = int(sys.argv[2]) if len(sys.argv) > 2 else 100
STEPS = {"stack-sum": 1000, "slice-add": 1000, "anomaly": 500, "rechunk-add": 500}

pokes = []  # per poke: [worker address of each start, in order]
orig_poke, orig_start = Plugin._poke, Plugin._start


def rec_poke(self, s, sid):
    pokes.append([])
    return orig_poke(self, s, sid)


def rec_start(self, ts, ws, sid):
    if pokes:
        pokes[-1].append(ws.address)
    return orig_start(self, ts, ws, sid)


Plugin._poke, Plugin._start = rec_poke, rec_start
w = build(name, STEPS[name], 190e6, store=False)
model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
r = simulate(model, workers=nworkers, threads_per_worker=4, policy="tidegate",
             bandwidth="1GB/s", record_memory=False)
Plugin._poke, Plugin._start = orig_poke, orig_start
tasks = len(r.trace.tasks)
starts = sum(map(len, pokes))
multi = sum(len(p) - len(set(p)) for p in pokes)
print(f"{name} {nworkers}x4: {tasks} tasks, {len(pokes)} pokes, {starts} starts "
      f"({starts / tasks:.2f} a task), {multi} starts to a worker already sent to in "
      f"that poke")

MSG = {"op": "compute-task", "key": "x", "stimulus_id": "s"}


class Stand:
    """The attributes dask's transitions / _transitions / send_all read."""
    validate = False
    status = Status.running
    transitions = Scheduler.transitions
    _transitions = SchedulerState._transitions
    send_all = Scheduler.send_all

    def __init__(self, addrs):
        self.client_comms = {}
        self.stream_comms = {a: BatchedSend(interval="5ms") for a in addrs}

    def _transition(self, key, finish, stimulus_id):
        return {}, {}, {key: [MSG]}  # (key = the worker's address here)


class StandPlugin:
    """Placement._start's two ways and _poke's end, as the plugin runs them."""
    _end_batch = admission.Admission._end_batch
    _batchable = True

    def __init__(self, s, starts):
        self.scheduler = s
        self._batch = None
        self._starts = starts
        self._apply = s.transitions

    def poke_before(self, s, sid):
        for addr in self._starts:
            batch = self._batch
            if batch is None:
                if not (False and self._batchable):
                    self._apply({addr: "processing"}, sid)
                    continue

    def poke_after(self, s, sid):
        try:
            for addr in self._starts:
                batch = self._batch
                if batch is None:
                    if not (admission.BATCH_STARTS and self._batchable):
                        continue
                    batch = self._batch = ({}, {})
                self.scheduler._transitions({addr: "processing"}, batch[0], batch[1], sid)
        finally:
            if self._batch is not None:
                self._end_batch(s)


addrs = sorted({a for p in pokes for a in p})
s = Stand(addrs)


def clear():
    for c in s.stream_comms.values():
        c.buffer.clear()


plugins = [StandPlugin(s, p) for p in pokes]


def before():
    for pl in plugins:
        pl.poke_before(s, "sid")
    clear()


def after():
    for pl in plugins:
        pl.poke_after(s, "sid")
    clear()


for label, fn in (("before", before), ("after", after), ("before", before), ("after", after)):
    best = min(timeit.repeat(fn, number=1, repeat=7))
    print(f"{label:7s} {best * 1e3:8.2f} ms a run  {best / len(pokes) * 1e6:6.2f} us a poke  "
          f"{best / max(starts, 1) * 1e6:6.2f} us a start  {best / tasks * 1e6:6.2f} us a task")
