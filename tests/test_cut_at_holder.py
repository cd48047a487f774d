"""policy.CUT_AT_HOLDER (grp48b): a task with no own input whose one data input is read by
many (a zarr chunk read by its ~30 day slices and by the shuffle-split that cuts it by month)
beside tiny roots (the shuffle-taker) runs where that input is held, when the holder has a
free thread or (one thread) is at most one task busier than dask's choice
(policy.cut_at_holder; Placement._cut_holder)."""

from types import SimpleNamespace as NS

from tidegate import policy
from tidegate.distributed.placement import Placement

MB = 2**20
CHUNK = 15.6 * MB


def test_cut_at_holder_needs_one_data_input_and_a_holder_not_much_busier():
    saved = policy.CUT_AT_HOLDER
    try:
        policy.CUT_AT_HOLDER = 3
        assert policy.cut_at_holder(1, CHUNK, CHUNK, 0, 1, 5)  # a free thread
        assert policy.cut_at_holder(1, CHUNK, CHUNK, 6, 1, 5)  # one thread's worth busier
        assert not policy.cut_at_holder(1, CHUNK, CHUNK, 7, 1, 5)  # more: dask's choice
        assert not policy.cut_at_holder(2, CHUNK, CHUNK, 0, 1, 5)  # other data beside it
        assert not policy.cut_at_holder(1, 280, CHUNK, 0, 1, 5)  # tiny itself
        assert policy.cut_at_holder(1, CHUNK, CHUNK, 7, 2, 5)  # two threads: a thread's worth
        policy.CUT_AT_HOLDER = 5  # the default: the slack (one task) on one thread only
        assert policy.cut_at_holder(1, CHUNK, CHUNK, 6, 1, 5)
        assert not policy.cut_at_holder(1, CHUNK, CHUNK, 7, 1, 5)
        assert policy.cut_at_holder(1, CHUNK, CHUNK, 1, 2, 5)  # two threads: a free one
        assert not policy.cut_at_holder(1, CHUNK, CHUNK, 2, 2, 0)
        policy.CUT_AT_HOLDER = 1  # a free thread only
        assert policy.cut_at_holder(1, CHUNK, CHUNK, 1, 2, 5)
        assert not policy.cut_at_holder(1, CHUNK, CHUNK, 2, 2, 5)
        assert not policy.cut_at_holder(1, CHUNK, CHUNK, 1, 1, 5)
        policy.CUT_AT_HOLDER = 0
        assert not policy.cut_at_holder(1, CHUNK, CHUNK, 0, 1, 5)
    finally:
        policy.CUT_AT_HOLDER = saved


class _Worker:
    def __init__(self, address):
        self.address = address

    def __repr__(self):
        return self.address


def _plugin(processing):
    """What Placement._cut_holder reads, as stand-ins: running one-thread workers with the
    tasks ``processing`` given, roots of a chunk's size loaded."""
    ws = {a: _Worker(a) for a in processing}
    books = {a: NS(processing=n, threads=1) for a, n in processing.items()}
    return NS(scheduler=NS(running=set(ws.values()), workers=ws),
              books=NS(workers=books, roots_max=CHUNK), _lagging={}, _paced_groups=set())


class _Task:
    def __init__(self, nbytes, who_has, readers):
        self.nbytes, self.who_has, self.dependents = nbytes, who_has, set(range(readers))


def _split(plugin, chunk_on, taker_on, chunk_bytes=CHUNK):
    w = plugin.scheduler.workers
    chunk = _Task(chunk_bytes, {w[chunk_on]}, 33)
    taker = _Task(280, {w[taker_on]}, 3)
    return NS(dependencies={chunk, taker})


def test_a_chunks_split_goes_to_the_chunks_worker_not_the_indexers():
    """Twin groupby store 4 x 1 g4 s2: dask sent the splits of chunks held on busier
    workers to the taker's (w1), copying two whole chunks there: 1.27x queuing's peak."""
    saved = policy.CUT_AT_HOLDER
    try:
        policy.CUT_AT_HOLDER = 5
        plugin = _plugin({"w0": 4, "w1": 3})
        w = plugin.scheduler.workers
        ts = _split(plugin, "w0", "w1")
        assert Placement._cut_holder(plugin, ts, w["w1"]) is w["w0"]
        plugin.books.workers["w0"].processing = 5  # over a thread's worth busier: dask's
        assert Placement._cut_holder(plugin, ts, w["w1"]) is None
        plugin.books.workers["w0"].processing = 4
        assert Placement._cut_holder(plugin, ts, w["w0"]) is None  # dask chose the holder
        tiny = _split(plugin, "w0", "w1", chunk_bytes=300)  # no data input: dask's
        assert Placement._cut_holder(plugin, tiny, w["w1"]) is None
        policy.CUT_AT_HOLDER = 1  # a free thread only: w0 has none
        assert Placement._cut_holder(plugin, ts, w["w1"]) is None
    finally:
        policy.CUT_AT_HOLDER = saved
