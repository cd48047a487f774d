"""Annotations on a real dask.distributed LocalCluster with tidegate's plugin: a named limit
is cluster-wide, priority is the order roots start in, and both survive default fusion.

Workers run in this process (``processes=False``): a worker plugin counts, across all
workers, the tasks executing that carry a ``tidegate_limit`` annotation (which also shows
the annotation reached the fused task on the worker).
"""

from __future__ import annotations

import threading
import time

import dask
import dask.array as da
import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
from distributed import Client, WorkerPlugin  # noqa: E402

import tidegate.distributed as td  # noqa: E402
from conftest import VALIDATING, local_cluster  # noqa: E402

pytestmark = pytest.mark.timeout(120)

CONFIG = VALIDATING


class CountLimited(WorkerPlugin):
    """Peak number of tasks executing at once, over all workers, per tidegate_limit name."""

    name = "count-limited"
    lock = threading.Lock()
    now: dict = {}
    peak: dict = {}
    seen: dict = {}

    def setup(self, worker):
        self.worker = worker

    def transition(self, key, start, finish, **kwargs):
        if "executing" not in (start, finish):
            return
        ts = self.worker.state.tasks.get(key)
        names = (ts.annotations or {}).get("tidegate_limit") if ts is not None else None
        if not names:
            return
        names = (names,) if isinstance(names, str) else tuple(names)
        cls = type(self)
        with cls.lock:
            for n in names:
                if finish == "executing":
                    cls.now[n] = cls.now.get(n, 0) + 1
                    cls.peak[n] = max(cls.peak.get(n, 0), cls.now[n])
                    cls.seen[n] = cls.seen.get(n, 0) + 1
                else:
                    cls.now[n] -= 1

    @classmethod
    def reset(cls):
        with cls.lock:
            cls.now, cls.peak, cls.seen = {}, {}, {}


_LIVE: dict = {}  # id -> object: tasks are pickled even in-process; they find it here


def _lookup(i):
    return _LIVE[i]


class Rendezvous:
    """Tasks wait (on a condition) until ``want`` of them run together, or fewer than
    ``want`` are left: a limit that let more through would be seen."""

    def __reduce__(self):
        return _lookup, (id(self),)

    def __init__(self, total, want):
        _LIVE[id(self)] = self
        self.cond = threading.Condition()
        self.now = self.peak = self.started = 0
        self.total, self.want = total, want

    def __call__(self, block):
        if block.size == 0:
            return block  # dask's meta inference
        with self.cond:
            self.now += 1
            self.started += 1
            self.peak = max(self.peak, self.now)
            self.cond.notify_all()
            self.cond.wait_for(
                lambda: self.now >= self.want or self.started > self.total - self.want, timeout=30
            )
            self.now -= 1
        return block


@pytest.fixture(scope="module")
def cluster():
    with local_cluster(CONFIG, n_workers=2, threads_per_worker=3) as cluster:
        yield cluster


@pytest.fixture
def client(cluster):
    with dask.config.set(CONFIG), Client(cluster) as client:
        CountLimited.reset()
        client.register_plugin(CountLimited())
        yield client
        errors = client.run_on_scheduler(
            lambda dask_scheduler: list(getattr(dask_scheduler.__dict__.get("_tidegate"),
                                                "errors", []))  # fmt: skip
        )
        td.uninstall(client)
        client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.validate_state())
        assert errors == []


def test_limit_of_3_on_100_tasks_cluster_wide(client):
    client.register_plugin(td.Plugin(limits={"s3-read": 3}))
    meet = Rendezvous(100, want=3)
    x = da.ones((100, 10), chunks=(1, 10))
    with dask.annotate(tidegate_limit="s3-read"):
        y = x.map_blocks(meet, dtype=x.dtype)
    z = (y + 1).sum()  # default fusion: ones, map_blocks and +1 become one task each
    assert z.compute() == 2000
    assert meet.started == 100
    assert meet.peak == 3  # counted by the tasks: reached, never passed
    assert CountLimited.seen == {"s3-read": 100}  # the annotation reached the fused tasks
    assert CountLimited.peak == {"s3-read": 3}  # counted by the workers, cluster-wide
    limits = client.run_on_scheduler(
        lambda dask_scheduler: dict(dask_scheduler._tidegate.limits.peak)
    )
    assert limits == {"s3-read": 3}


def test_limit_from_the_config_where_the_scheduler_runs(client):
    # Plugin() without limits reads tidegate.limits when installed on the scheduler.
    with dask.config.set({"tidegate.limits": {"db": 1}}):
        client.register_plugin(td.Plugin())
    meet = Rendezvous(12, want=1)
    other = Rendezvous(24, want=3)  # unrelated work needs 3 at once: limited tasks
    x = da.ones((12, 4), chunks=(1, 4))  # held by the limit must not stand in its way
    with dask.annotate(tidegate_limit="db"):
        y = x.map_blocks(meet, dtype=x.dtype)
    w = da.ones((24, 4), chunks=(1, 4)).map_blocks(other, dtype=float)
    a, b = dask.compute(y.sum(), w.sum())
    assert (a, b) == (48, 96)
    assert CountLimited.peak == {"db": 1}
    assert other.peak == 3


class Tag:
    def __init__(self, log, name):
        self.log, self.name = id(log), name
        _LIVE[id(log)] = log

    def __call__(self, block):
        if block.size:
            _LIVE[self.log].append(self.name)
        return block


def _order(client, annotate=None) -> list:
    log: list = []
    arrays = {}
    for name, make in (("a", da.ones), ("b", da.zeros)):
        with dask.annotate(**({"priority": 10} if annotate == name else {})):
            arrays[name] = make((8, 4), chunks=(1, 4)).map_blocks(Tag(log, name), dtype=float)
    a, b = arrays["a"], arrays["b"]
    dask.compute(a.sum(), b.sum())
    return log


def test_priority_is_the_order_roots_start_in(cluster):
    with dask.config.set(CONFIG), distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
        scheduler_kwargs={"plugins": [td.Plugin()]},
    ) as one, Client(one) as client:  # fmt: skip
        plain = _order(client)
        assert sorted(plain) == ["a"] * 8 + ["b"] * 8
        last = plain[-1]  # the array dask's order finishes last...
        first = "a" if last == "b" else "b"
        assert plain != [last] * 8 + [first] * 8
        assert _order(client, annotate=last) == [last] * 8 + [first] * 8  # ...runs first
        assert client.run_on_scheduler(lambda dask_scheduler: dask_scheduler._tidegate.errors) == []


def _roots_by_annotation(dask_scheduler):
    plugin = dask_scheduler._tidegate
    out = {}
    for ts in dask_scheduler.tasks.values():
        if ts.run_spec is None or ts.dependencies:
            continue  # the loads: no inputs
        flag = (ts.annotations or {}).get("tidegate_root")
        out.setdefault(repr(flag), set()).add(plugin._root(ts))
    return out


def test_root_override_reaches_the_plugin(client):
    client.register_plugin(td.Plugin())
    plain = da.ones((12, 4), chunks=(1, 4))
    with dask.annotate(tidegate_root=False):
        held = da.zeros((12, 4), chunks=(1, 4)) + 1  # fused with its load
    a, b = client.persist([plain, held])
    distributed.wait([a, b])
    roots = client.run_on_scheduler(_roots_by_annotation)
    assert roots == {"None": {True}, "False": {False}}
    del a, b


def test_broadcast_weights_fetched_once_per_worker(client):
    # One 800 kB weight array used by 60 row blocks, on 2 workers: a worker that did not
    # make it receives it at most once, however the withholding spreads the products.
    client.register_plugin(td.Plugin())
    x = da.random.random((600, 100), chunks=(10, 100))
    w = da.random.random((100, 1000), chunks=(100, 1000))
    assert float((x @ w).sum().compute()) > 0

    def received(dask_worker):
        return [t["keys"] for t in dask_worker.transfer_incoming_log]

    logs = client.run(received)
    moves = {addr: sum(1 for keys in log for k in keys if w.name in str(k))
             for addr, log in logs.items()}  # fmt: skip
    assert max(moves.values()) <= 1  # at most once per worker


class Combine:
    """A task with two inputs (not a root): waits for ``meet`` like the loads above."""

    def __init__(self, meet):
        self.meet = meet

    def __call__(self, a, b):
        self.meet(np.ones(1))
        return a + b


def test_limit_on_tasks_with_inputs(client):
    # Limited tasks that are not roots go through the queue too, placed by their inputs.
    from dask import delayed

    client.register_plugin(td.Plugin(limits={"db-write": 2}))
    meet = Rendezvous(20, want=2)
    loads = [delayed(np.full)(3, i) for i in range(40)]
    with dask.annotate(tidegate_limit="db-write"):
        writes = [delayed(Combine(meet))(loads[2 * i], loads[2 * i + 1]) for i in range(20)]
    total = delayed(sum)(writes)
    assert int(total.compute().sum()) == 3 * sum(range(40))
    assert meet.started == 20
    assert meet.peak == 2
    assert CountLimited.peak == {"db-write": 2}


class CopySpans(WorkerPlugin):
    """When each task's copy into this worker was on its way: from the first time its state
    is ``flight`` to the time it is ``memory`` (one clock for every worker: processes=False).
    The span holds the transfer's own (``transfer_incoming_log``), whose times carry the
    worker's ``scheduler_delay`` as it was then, an estimate each heartbeat moves (by up to
    50 ms under load: taking off its value as read later showed copies that did not
    overlap as overlapping)."""

    name = "copy-spans"

    def setup(self, worker):
        self.worker = worker
        self.spans: dict = {}  # key -> [first in flight, in memory from flight or None]

    def transition(self, key, start, finish, **kwargs):
        ts = self.worker.state.tasks.get(key)
        state = ts.state if ts is not None else None  # (a no-op flight -> fetch keeps flight)
        if state == "flight" and key not in self.spans:
            self.spans[key] = [time.time(), None]
        elif state == "memory" and key in self.spans and self.spans[key][1] is None:
            self.spans[key][1] = time.time()


def test_broadcast_copies_named_by_the_scheduler():
    # 4 workers: the weights (1.6 MB, read by 60 products) reach the 3 workers that did
    # not make them each by one copy the plugin asked for from a holder it named, one
    # holder at a time, so holders pass it on (without the plugin all 3 fetch from one).
    # dask's active memory manager off: every 2 s it drops replicas beyond the workers its
    # waiters are on (ReduceReplicas, fewer than 20 left); a run slowed past 2 s (under
    # load) then had a worker's copy dropped while a product was still queued for it, and
    # the plugin named a second copy there: 4 or 5 copies, each named (lc39: 3 of 12 runs with
    # the manager every 20 ms). The copies it names are checked here.
    with dask.config.set({**CONFIG, "distributed.scheduler.active-memory-manager.start": False}), \
            distributed.LocalCluster(
        n_workers=4, threads_per_worker=1, processes=False, dashboard_address=":0",
        scheduler_kwargs={"plugins": [td.Plugin()]},
    ) as four, Client(four) as client:  # fmt: skip
        x = da.random.random((600, 200), chunks=(10, 200))
        w = da.random.random((200, 1000), chunks=(200, 1000))
        client.register_plugin(CopySpans())
        xv, wv = dask.compute(x, w)
        got = (x @ w).sum().compute()
        assert np.isclose(got, (xv @ wv).sum())

        def received(dask_worker):
            return [(k, t["who"]) for t in dask_worker.transfer_incoming_log for k in t["keys"]]

        def spans(dask_worker):
            # Its copy of the weights (one a worker, asserted below): its sender, and when
            # it was on its way by the one clock (CopySpans).
            got = dask_worker.plugins["copy-spans"].spans
            return [(t["who"], *got[k]) for t in dask_worker.transfer_incoming_log
                    for k in t["keys"] if w.name in str(k)]  # fmt: skip

        moves = [(dest, k, who) for dest, log in client.run(received).items()
                 for k, who in log if w.name in str(k)]  # fmt: skip
        named, errors = client.run_on_scheduler(
            lambda dask_scheduler: ([(str(k), d, s) for k, d, s, _ in
                                     dask_scheduler._tidegate._broadcast.log],
                                    list(dask_scheduler._tidegate.errors))  # fmt: skip
        )
        assert errors == []
        assert len(moves) == 3 and len({d for d, _, _ in moves}) == 3  # once per worker
        assert sorted((str(k), d, who) for d, k, who in moves) == sorted(named)
        # One copy at a time per holder: copies that overlap in time come from different
        # holders (a receiver passed it on). Whether any overlap depends on the timing.
        copies = [c for log in client.run(spans).values() for c in log]
        for i, (a, start_a, stop_a) in enumerate(copies):
            for b, start_b, stop_b in copies[i + 1:]:
                if start_a < stop_b and start_b < stop_a:
                    assert a != b, copies


def test_limit_on_tasks_with_resource_restrictions():
    # dask never queues a task with resource restrictions; a full limit holds it in
    # no-worker instead. The workers' resources alone would let 6 run at once.
    with dask.config.set(CONFIG), distributed.LocalCluster(
        n_workers=2, threads_per_worker=3, processes=False, dashboard_address=":0",
        resources={"ROOT": 3},
    ) as cluster, Client(cluster) as client:  # fmt: skip
        CountLimited.reset()
        client.register_plugin(CountLimited())
        client.register_plugin(td.Plugin(limits={"s3-read": 2}))
        meet = Rendezvous(30, want=2)
        x = da.ones((30, 10), chunks=(1, 10))
        with dask.annotate(tidegate_limit="s3-read", resources={"ROOT": 1}):
            y = x.map_blocks(meet, dtype=x.dtype)
        z = client.persist(y + 1)  # default fusion
        distributed.wait(z)
        assert meet.started == 30
        assert meet.peak == 2
        assert CountLimited.peak == {"s3-read": 2}

        def check(dask_scheduler):
            plugin = dask_scheduler._tidegate
            restricted = [ts.key for ts in dask_scheduler.tasks.values()
                          if ts.resource_restrictions == {"ROOT": 1}]  # fmt: skip
            return len(restricted), dict(plugin.limits.peak), list(plugin.errors)

        n, peak, errors = client.run_on_scheduler(check)
        assert errors == [] and peak == {"s3-read": 2}
        assert n == 30  # the fused tasks kept their resources
        assert float(z.sum().compute()) == 600


def test_broadcast_gate_never_refuses_the_last_readers():
    # Plain stand-ins for dask's state: 5 holders, one reader left, placed by its input on
    # a sixth worker. It must get a copy (else it would wait forever), from a holder.
    from types import SimpleNamespace as NS

    from tidegate.distributed.broadcast import Broadcast

    sent = []

    class Comm:
        def __init__(self, addr):
            self.addr = addr

        def send(self, msg):
            sent.append((self.addr, msg))

    class Worker:  # hashable by identity, as dask's WorkerState
        def __init__(self, address):
            self.address = address

    workers = {f"w{i}": Worker(f"w{i}") for i in range(6)}
    d = NS(key="w-weights", nbytes=8_000_000, who_has={workers[f"w{i}"] for i in range(5)},
           dependents=set(range(20)), waiters={"last"})  # fmt: skip
    ts = NS(key="last", dependencies=[d], resource_restrictions=None,
            worker_restrictions=None, host_restrictions=None, actor=False)  # fmt: skip
    s = NS(workers=workers, stream_comms={a: Comm(a) for a in workers})
    b = Broadcast()
    assert b.shared(ts)
    assert b.gate(s, ts, workers["w3"])  # a holder: no copy
    assert sent == []
    assert b.gate(s, ts, workers["w5"])
    ((dest, msg),) = sent
    assert dest == "w5" and msg["op"] == "acquire-replicas"
    assert msg["who_has"] == {"w-weights": ["w0"]} and msg["nbytes"] == {"w-weights": 8_000_000}
    assert b.gate(s, ts, workers["w5"]) and len(sent) == 1  # on its way: not asked twice
    d.who_has.add(workers["w5"])  # arrived (add-keys)
    b.restrict(s, ts, {}, list(workers))
    assert b.flight == {"w-weights": {}}
    b.forget("w-weights")
    assert b.flight == {}


def test_the_fusion_patch_goes_with_the_last_plugin():
    """review21: the process-wide _materialize_graph wrapper stayed after the plugin was
    removed, carrying annotations through fusion for schedulers without tidegate."""
    import distributed.scheduler as ds

    def patched():
        return getattr(ds._materialize_graph, "_tidegate", False)

    assert not patched()
    original = ds._materialize_graph
    kw = dict(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0")
    with dask.config.set(CONFIG), distributed.LocalCluster(**kw) as a, Client(a) as ca, \
            distributed.LocalCluster(**kw) as b, Client(b) as cb:  # fmt: skip
        ca.register_plugin(td.Plugin(limits={"s3-read": 1}))
        cb.register_plugin(td.Plugin())
        assert patched()
        ca.unregister_scheduler_plugin(td.NAME)
        assert not td.installed(ca) and patched()  # b's plugin still needs it
        assert td.uninstall(cb)
        assert not patched() and ds._materialize_graph is original
        ca.register_plugin(td.Plugin(limits={"s3-read": 1}))  # and back
        assert patched()
        with dask.annotate(tidegate_limit="s3-read"):
            y = da.ones((8, 4), chunks=(1, 4)).map_blocks(lambda x: x + 1)
        assert float((y + 1).sum().compute(scheduler=ca)) == 96  # fused, annotation carried
        assert ca.run_on_scheduler(lambda dask_scheduler: dict(
            dask_scheduler._tidegate.limits.peak)) == {"s3-read": 1}
        ca.unregister_scheduler_plugin(td.NAME)
        assert not patched()
    assert ds._materialize_graph is original


def _plus_one(block):
    return block + 1


def test_the_fusion_patch_keeps_the_shape_of_dasks_result(monkeypatch):
    """dist24: distributed 2025.4.x's _materialize_graph returns (dsk, dependencies,
    annotations), 2025.5 on (dsk, annotations); the patch unpacked two, so on 2025.4.x every
    graph submission failed once the plugin was installed. Whatever dask returns goes back
    in its own shape, the carried annotations in its last item."""
    import distributed.scheduler as ds
    from dask._expr import FinalizeCompute
    from dask.base import collections_to_expr

    from tidegate.distributed.server import patch_materialize, unpatch_materialize

    dask_own = ds._materialize_graph
    if getattr(dask_own, "_tidegate", False):
        dask_own = dask_own.__wrapped__

    def three(expr, validate):  # as 2025.4.x
        out = dask_own(expr=expr, validate=validate)
        dsk = out[0]
        return dsk, {k: set(v.dependencies) for k, v in dsk.items()}, out[-1]

    x = da.ones((20, 10), chunks=(1, 10))
    with dask.annotate(tidegate_limit="s3-read"):
        y = x.map_blocks(_plus_one, dtype=x.dtype)
    expr = FinalizeCompute(collections_to_expr([(y * 2).sum()], True)).optimize()
    for shape, original in (("2025.4", three), ("installed", dask_own)):
        expected = len(original(expr=expr, validate=False))
        monkeypatch.setattr(ds, "_materialize_graph", original)
        patch_materialize()
        try:
            assert ds._materialize_graph is not original  # wrapped
            out = ds._materialize_graph(expr=expr, validate=False)
        finally:
            unpatch_materialize()
        assert ds._materialize_graph is original
        assert len(out) == expected, shape
        limits = out[-1].get("tidegate_limit", {})
        fused = [k for k in out[0] if k in limits]
        assert len(fused) == 20 and {limits[k] for k in fused} == {("s3-read",)}, shape
