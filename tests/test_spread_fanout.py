"""policy.SPREAD_FANOUT (grp50): a task with no own input that dask placed beside its one data
input read by many (a month's climatology stack, 0.52 MB, read by its ~62 day slices) goes to
the least busy other running worker when the holder has a threads' worth queued and the copy
is small beside a root's output (policy.spreads_fanout; Placement._spread_off)."""

from types import SimpleNamespace as NS

from tidegate import policy
from tidegate.distributed.placement import Placement

MB = 2**20
CHUNK = 15.6 * MB
STACK = 0.52 * MB


def test_spreads_fanout_needs_a_queue_a_less_busy_worker_and_a_small_copy():
    saved = policy.SPREAD_FANOUT
    try:
        policy.SPREAD_FANOUT = 2
        assert policy.spreads_fanout(STACK, CHUNK, 8, 4, 4, 4)  # a task a thread less busy
        assert not policy.spreads_fanout(STACK, CHUNK, 8, 4, 5, 4)  # less than that
        assert not policy.spreads_fanout(STACK, CHUNK, 7, 4, 0, 4)  # no threads' worth queued
        assert not policy.spreads_fanout(CHUNK, CHUNK, 60, 4, 0, 4)  # a chunk: no copy
        assert not policy.spreads_fanout(280, CHUNK, 60, 4, 0, 4)  # tiny: not data
        assert policy.spreads_fanout(STACK, CHUNK, 8, 4, 1, 1)  # per thread: 2 against 1
        assert not policy.spreads_fanout(STACK, CHUNK, 8, 4, 2, 1)
        assert not policy.spreads_fanout(STACK, CHUNK, 60, 1, 0, 1)  # not from one thread
        assert policy.spreads_fanout(STACK, CHUNK, 4, 2, 2, 2)
        policy.SPREAD_FANOUT = 1  # a free thread there only
        assert policy.spreads_fanout(STACK, CHUNK, 60, 4, 3, 4)
        assert not policy.spreads_fanout(STACK, CHUNK, 60, 4, 4, 4)
        policy.SPREAD_FANOUT = 0
        assert not policy.spreads_fanout(STACK, CHUNK, 60, 4, 0, 4)
    finally:
        policy.SPREAD_FANOUT = saved


class _Worker:
    def __init__(self, address):
        self.address = address

    def __repr__(self):
        return self.address


def _plugin(processing, threads=4):
    """What Placement._spread_off reads, as stand-ins: running workers of ``threads`` threads
    with the tasks ``processing`` given, roots of a chunk's size loaded."""
    ws = {a: _Worker(a) for a in processing}
    books = {a: NS(processing=n, threads=threads) for a, n in processing.items()}
    return NS(scheduler=NS(running=set(ws.values()), workers=ws),
              books=NS(workers=books, roots_max=CHUNK), _lagging={}, _paced_groups=set())


class _Task:
    def __init__(self, nbytes, who_has, readers):
        self.nbytes, self.who_has, self.dependents = nbytes, who_has, set(range(readers))


def _day_slice(plugin, stack_on, taker_on, stack_bytes=STACK):
    w = plugin.scheduler.workers
    stack = _Task(stack_bytes, {w[stack_on]}, 62)
    taker = _Task(280, {w[a] for a in taker_on}, 736)
    return NS(dependencies={stack, taker})


def test_a_months_day_slices_leave_the_busy_stack_worker():
    """Twin groupby store 2 x 4 g2 s5: dask put a month's 60 day slices (then their stores)
    on the stack's worker, 62-123 processing, while the other had 11 (on 4 threads)."""
    saved = policy.SPREAD_FANOUT
    try:
        policy.SPREAD_FANOUT = 2
        plugin = _plugin({"w0": 62, "w1": 11, "w2": 20})
        w = plugin.scheduler.workers
        ts = _day_slice(plugin, "w0", ("w0", "w1", "w2"))
        assert Placement._spread_off(plugin, ts, w["w0"]) is w["w1"]  # the least busy
        # dask chose a worker not holding the stack (busy enough beside w1): dask's
        assert Placement._spread_off(plugin, ts, w["w2"]) is None
        plugin.books.workers["w0"].processing = 7  # under a threads' worth queued
        assert Placement._spread_off(plugin, ts, w["w0"]) is None
        plugin.books.workers["w0"].processing = 62
        plugin.scheduler.running.discard(w["w1"])  # not running: the next least busy
        assert Placement._spread_off(plugin, ts, w["w0"]) is w["w2"]
        big = _day_slice(plugin, "w0", ("w0",), stack_bytes=CHUNK)  # a chunk: not copied
        assert Placement._spread_off(plugin, big, w["w0"]) is None
        policy.SPREAD_FANOUT = 0
        assert Placement._spread_off(plugin, ts, w["w0"]) is None
    finally:
        policy.SPREAD_FANOUT = saved


def _months(months: int):
    """A month's stack (0.52 MB, from 4 loads of 15.6 MB) read by its 62 day slices (each
    also reading a shared 280 B indexer: no own input), each slice's 4.5 ms store; then
    one finalize (rev50m's probe of the groupby store's last stretch)."""
    from dask._task_spec import DataNode, Task, TaskRef

    h, idx = "original-open", ("taker", 0)
    dsk = {h: DataNode(h, "a.zarr"), idx: Task(idx, str, TaskRef(h))}
    size, dur = {h: 56, idx: 280}, {idx: 0.001}
    stores = []
    for m in range(months):
        loads = []
        for j in range(4):
            k = ("load", m, j)
            dsk[k] = Task(k, str, TaskRef(h), _data_producer=True)
            size[k], dur[k] = CHUNK, 0.05
            loads.append(TaskRef(k))
        st = ("stack", m)
        dsk[st] = Task(st, max, *loads)
        size[st], dur[st] = STACK, 0.01
        for d in range(62):
            sl, so = ("day", m, d), ("store", m, d)
            dsk[sl] = Task(sl, max, TaskRef(st), TaskRef(idx))
            dsk[so] = Task(so, str, TaskRef(sl))
            size[sl], dur[sl], size[so], dur[so] = 0.3 * MB, 0.0001, 16, 0.0045
            stores.append(so)
    dsk["finalize"] = Task("finalize", max, *(TaskRef(k) for k in stores))
    return dsk, size, dur


def _run(monkeypatch, months, workers, threads, on):
    import pytest

    pytest.importorskip("distributed")
    from tidegate.sim import simulate

    monkeypatch.setattr(policy, "SPREAD_FANOUT", on)
    moved = []
    original = Placement._spread_off

    def counted(self, ts, ws):
        got = original(self, ts, ws)
        moved.append(got is not None)
        return got

    monkeypatch.setattr(Placement, "_spread_off", counted)
    dsk, size, dur = _months(months)
    r = simulate(dsk, keys=["finalize"], workers=workers, threads_per_worker=threads,
                 policy="tidegate", durations=lambda k: dur.get(k, 0.0),
                 sizes=lambda k: size.get(k, 16), seed=0, record_memory=False)  # fmt: skip
    return r.makespan, sum(moved)


def test_day_slices_leave_their_busy_stacks_worker_on_a_small_cluster(monkeypatch):
    """Twin, 8 months on 2 x 4: dask puts each month's slices and stores beside its stack;
    moved, the run ends sooner (rev50m's probe: 0.586 -> 0.562 s)."""
    off, none = _run(monkeypatch, 8, 2, 4, 0)
    on, moved = _run(monkeypatch, 8, 2, 4, 2)
    assert none == 0 < moved and on < off, (on, off, moved)


def test_not_on_many_workers(monkeypatch):
    """On 100 x 4 every move copied the stack from its holder's link to a new worker:
    1.32x queuing's time (rev50m). Past SPREAD_FANOUT_WORKERS the rule is not asked."""
    assert policy.spreads_from(STACK, CHUNK, 8, 4, policy.SPREAD_FANOUT_WORKERS)
    assert not policy.spreads_from(STACK, CHUNK, 8, 4, policy.SPREAD_FANOUT_WORKERS + 1)
    off, _ = _run(monkeypatch, 12, 12, 4, 0)
    on, moved = _run(monkeypatch, 12, 12, 4, 2)
    assert (on, moved) == (off, 0)
