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
