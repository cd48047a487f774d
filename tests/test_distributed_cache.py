"""The plugin keeps the structural part of its meeting walks (policy.meeting_plan) per
queued root: it must not outlive the graph it was read from. On a bare SchedulerState (the
twin's seam), graphs submitted through dask's own ``_create_taskstate_from_graph`` (which
calls the plugin's ``update_graph``) and released through dask's own key release, so the
edges change as they do on a live scheduler."""

from __future__ import annotations

import inspect
from types import MethodType

import pytest

distributed = pytest.importorskip("distributed")
from dask._task_spec import Task, TaskRef  # noqa: E402
from distributed.scheduler import Scheduler  # noqa: E402

import tidegate.distributed as td  # noqa: E402
from test_distributed import _bare_state  # noqa: E402

pytestmark = pytest.mark.timeout(60)

N = 8


def load(i):
    return i


def add(a, b):
    return a + b


class Driver:
    """A bare SchedulerState with the plugin installed (2 workers x 1 thread, one root in
    flight each) and the twin's steps: submit a graph, release keys, finish a task."""

    # Scheduler's own methods for a graph's arrival, as the twin borrows them
    BORROWED = ("_create_taskstate_from_graph", "_generate_taskstates", "_apply_annotations",
                "_set_priorities", "client_desires_keys")

    def __init__(self, threads: int = 1) -> None:
        self.threads = threads
        self.state = s = _bare_state(nworkers=2, nthreads=threads)
        for name in self.BORROWED:
            setattr(s, name, MethodType(getattr(Scheduler, name), s))
        s.generation, s._last_time, s.extensions = 0, 0, {}
        s.transitions = self.apply
        s.report_on_key = lambda **kwargs: None
        self.plugin = td.Plugin(saturation=1.0)
        self.state.plugins["tidegate"] = self.plugin
        self.ran_on: dict = {}  # key -> worker it was sent to
        self.plugin.install(self.state, apply=self.apply)
        self.ticks = 0
        self.most_roots = 0  # roots processing at once on a worker, at most


    def apply(self, recs, stimulus_id) -> None:
        client_msgs, worker_msgs = {}, {}
        self.state._transitions(recs, client_msgs, worker_msgs, stimulus_id)
        for addr, msgs in worker_msgs.items():
            for m in msgs:
                if m["op"] == "compute-task":
                    self.ran_on[m["key"]] = addr

    def submit(self, dsk: dict, keys: list, user_priority: int = 0) -> None:
        """As dask's update_graph: tasks and edges made, plugins told, then transitions."""
        s = self.state
        kwargs = {}
        if "dependencies" in inspect.signature(s._create_taskstate_from_graph).parameters:
            kwargs["dependencies"] = {k: set(v.dependencies) for k, v in dsk.items()}  # < 2025.5
        s._create_taskstate_from_graph(
            start=0.0, dsk=dsk, keys=set(keys), ordered={k: i for i, k in enumerate(dsk)},
            client="c", annotations_by_type={}, global_annotations=None,
            stimulus_id=f"graph-{len(s.tasks)}", submitting_task=None, span_metadata={},
            user_priority=user_priority, actors=None, fifo_timeout=0.0, code=(), **kwargs,
        )  # fmt: skip

    def release(self, keys) -> None:
        recs: dict = {}
        self.state._client_releases_keys(keys=keys, cs=self.state.clients["c"],
                                         recommendations=recs)  # fmt: skip
        self.apply(recs, "release")

    def run(self) -> None:
        """Poke, finish the oldest processing task, until nothing is left to run."""
        s = self.state
        while True:
            self.ticks += 1
            assert self.ticks < 40 * N
            self.plugin.poke(f"tick-{self.ticks}")
            self.most_roots = max(self.most_roots, *(
                sum(self.plugin._root(ts) for ts in ws.processing)
                for ws in s.workers.values()))  # fmt: skip
            ts = next((s.tasks[k] for k in self.ran_on
                       if k in s.tasks and s.tasks[k].state == "processing"), None)  # fmt: skip
            if ts is None:
                break
            sid = f"done-{self.ticks}"
            recs, _, _ = s._transition(
                ts.key, "memory", sid, nbytes=80, type=b"", typename="int",
                worker=ts.processing_on.address, startstops=[],
            )  # fmt: skip
            self.apply(recs, sid)
        assert self.plugin.errors == []
        self.plugin.books.validate()


def _first_graph() -> tuple[dict, list]:
    """x_i loaded, each read by its own y_i: no meetings."""
    dsk = {}
    for i in range(N):
        dsk[f"x-{i}"] = Task(f"x-{i}", load, i)
        dsk[f"y-{i}"] = Task(f"y-{i}", load, TaskRef(f"x-{i}"))
    return dsk, [f"y-{i}" for i in range(N)]


def _second_graph() -> tuple[dict, list]:
    """z_i loaded and added to the first graph's x_i: x_i's data now meets z_i's."""
    dsk = {}
    for i in range(N):
        dsk[f"z-{i}"] = Task(f"z-{i}", load, 100 + i)
        dsk[f"w-{i}"] = Task(f"w-{i}", add, TaskRef(f"x-{i}"), TaskRef(f"z-{i}"))
    return dsk, [f"w-{i}" for i in range(N)]


def _v(i: int) -> str:
    return f"v-{(i + 1) % N}"


def _queued_with_plans(d: Driver) -> list:
    """The first graph's queued roots, each walked once as a placement walks it (its plan
    kept now)."""
    queued = sorted((ts for ts in d.state.queued), key=lambda ts: ts.key)
    assert len(queued) == N - 2 * d.threads  # one root in flight per thread
    for ts in queued:
        assert d.plugin._partners(ts, set()) == {}
    assert all(ts.key in d.plugin._plans for ts in queued)
    return queued


def test_a_second_graph_meeting_queued_roots_is_seen_by_their_placement():
    """A second computation adds a consumer w_i = x_i + v_j to each root x_i of the first,
    still queued, where v_j (j = i + 1) is held already (computed before). Placement must
    see the new meeting and put each x_i beside its v_j. With the walks kept from before
    the second graph (no meetings), x_i had no partner and went to the least loaded worker
    (taking turns, as the v's did: v_j is on the other one): every pair split, and each
    w_i moved one input."""
    d = Driver()
    held = {f"v-{i}": Task(f"v-{i}", load, 50 + i) for i in range(N)}
    d.submit(held, list(held))
    d.run()
    holder = {k: {ws.address for ws in d.state.tasks[k].who_has} for k in held}
    assert len(set.union(*holder.values())) == 2  # on both workers
    d.submit(*_first_graph())
    queued = _queued_with_plans(d)
    dsk = {f"w-{i}": Task(f"w-{i}", add, TaskRef(f"x-{i}"), TaskRef(_v(i))) for i in range(N)}
    d.submit(dsk, list(dsk))
    assert not d.plugin._plans  # dask added edges: no kept walk holds
    d.run()
    split = [ts.key for ts in queued if d.ran_on[ts.key] not in holder[_v(int(ts.key[2:]))]]
    assert split == []
    assert all(d.state.tasks[k].state == "memory" for k in dsk)


def test_forgotten_consumers_leave_no_meeting_behind():
    """The second computation is released before its tasks ran: w_i and z_i are forgotten,
    and x_i's plan (kept with the meeting w_i) must go with them: the first graph then runs
    as it does alone, decision for decision. Kept, each queued x_i still found z_i lacking
    (a forgotten task) and its worker reserved a slot for it, counted in flight: x_5, x_6
    and x_7 were withheld 11 times where a free slot was waiting for them."""
    alone = Driver(threads=2)
    alone.submit(*_first_graph())
    _queued_with_plans(alone)
    alone.run()
    d = Driver(threads=2)
    d.submit(*_first_graph())
    queued = _queued_with_plans(d)
    d.submit(*_second_graph(), user_priority=-1)  # after the first graph's roots
    for ts in queued:
        lacks: set = set()
        d.plugin._partners(ts, lacks)
        assert [r.key for r in lacks] == ["z-" + ts.key[2:]]
    d.release(_second_graph()[1])
    assert "w-0" not in d.state.tasks and "z-0" not in d.state.tasks
    d.run()
    assert [e[:3] for e in d.plugin.books.log] == [e[:3] for e in alone.plugin.books.log]
    assert d.ran_on == alone.ran_on
    assert all(d.state.tasks[k].state == "memory" for k in _first_graph()[1])


def test_plans_are_dropped_as_roots_start_and_with_the_computation():
    """Per computation, nothing kept past it (issue 9, point 5): a root's plan goes when it
    starts, every kept walk when the computation's tasks are forgotten."""
    d = Driver()
    d.submit(*_first_graph())
    _queued_with_plans(d)
    d.run()
    assert not d.plugin._plans  # every root started
    d.release(_first_graph()[1])
    assert not d.state.tasks
    assert not d.plugin._plans and not d.plugin._chains
