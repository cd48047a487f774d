"""policy.SLICE_BESIDE_PARTNER (grp51, off): a task with no own input whose one data input is
read by many (a month's climatology day slice) and whose one reader's other own input (the
day's data, for its store) is held on one running worker runs on that worker; at 2 only where
that worker has under 2 x threads processing (Placement._beside_partner)."""

from types import SimpleNamespace as NS

from tidegate import policy
from tidegate.distributed.placement import Placement

MB = 2**20
CHUNK = 15.6 * MB
STACK = 0.52 * MB


class _Worker:
    def __init__(self, address):
        self.address = address

    def __repr__(self):
        return self.address


class _Task:
    def __init__(self, nbytes, who_has, readers=(), deps=()):
        self.nbytes, self.who_has = nbytes, who_has
        self.dependents, self.dependencies = set(readers), set(deps)


def _plugin(processing, threads=2):
    ws = {a: _Worker(a) for a in processing}
    books = {a: NS(processing=n, threads=threads) for a, n in processing.items()}
    return NS(scheduler=NS(running=set(ws.values()), workers=ws),
              books=NS(workers=books, roots_max=CHUNK), _lagging={}, _paced_groups=set())


def _day(plugin, stack_on, data_on):
    """A day slice (reads the month's stack, 62 readers, and a 280 B taker) whose one store
    also reads the day's data (0.52 MB, read by the store alone)."""
    w = plugin.scheduler.workers
    stack = _Task(STACK, {w[stack_on]}, range(62))
    taker = _Task(280, set(w.values()), range(736))
    sl = _Task(STACK, None, deps=(stack, taker))
    data = _Task(STACK, {w[data_on]})
    store = _Task(16, None, deps=(sl, data))
    sl.dependents, data.dependents = {store}, {store}
    return sl


def test_beside_partner_needs_the_switch_and_a_partner_of_the_slices_size():
    saved = policy.SLICE_BESIDE_PARTNER
    try:
        policy.SLICE_BESIDE_PARTNER = 2
        assert policy.beside_partner(STACK, STACK, CHUNK)
        assert not policy.beside_partner(280, STACK, CHUNK)  # an indexer: no partner
        assert not policy.beside_partner(CHUNK, CHUNK, CHUNK)  # a stencil's block: copied
        policy.SLICE_BESIDE_PARTNER = 0
        assert not policy.beside_partner(STACK, STACK, CHUNK)
    finally:
        policy.SLICE_BESIDE_PARTNER = saved


def test_a_day_slice_is_made_where_its_stores_data_day_is():
    """Twin groupby store 4 x 2 g1 s2 (rescaled build): 52 + 63 day slices of two months
    were made in 3 ms on the idle w0 while their data days were on w3 and w1, and held
    there (60 MB, nothing processing) until copied to their stores: 1.12x queuing's peak."""
    saved = policy.SLICE_BESIDE_PARTNER
    try:
        plugin = _plugin({"w0": 0, "w1": 3, "w3": 3})
        w = plugin.scheduler.workers
        ts = _day(plugin, "w3", "w1")
        policy.SLICE_BESIDE_PARTNER = 0
        assert Placement._beside_partner(plugin, ts, w["w0"]) is None
        policy.SLICE_BESIDE_PARTNER = 2
        assert Placement._beside_partner(plugin, ts, w["w0"]) is w["w1"]
        plugin.books.workers["w1"].processing = 4  # 2 x threads: backlogged, rules after
        assert Placement._beside_partner(plugin, ts, w["w0"]) is None
        policy.SLICE_BESIDE_PARTNER = 1  # 1: beside it however busy
        assert Placement._beside_partner(plugin, ts, w["w0"]) is w["w1"]
        plugin.scheduler.running.discard(w["w1"])  # not running: dask's choice stands
        assert Placement._beside_partner(plugin, ts, w["w0"]) is None
    finally:
        policy.SLICE_BESIDE_PARTNER = saved
