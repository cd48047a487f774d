"""policy.SPREAD_REGION (sten42): where a spread root group (a stencil's blocks) loads whole
at once on eight-thread workers, its roots are cut into compact regions, one a worker, and
each goes to its region's worker under policy.region_cap."""
from __future__ import annotations

import math
import random

import pytest

from tidegate import policy
from tidegate.books import Books
from tidegate.policy import Policy, compact_regions, region_cap, regions_on, spread_cap


def _grid(rows: int, cols: int, order):
    """The neighbours (eight around) of a rows x cols block grid, blocks numbered by their
    place in ``order`` (row-major indices in priority order)."""
    rank = {b: i for i, b in enumerate(order)}
    out = [None] * len(order)
    for b, i in rank.items():
        r, c = divmod(b, cols)
        out[i] = [rank[a * cols + d] for a in range(r - 1, r + 2) for d in range(c - 1, c + 2)
                  if 0 <= a < rows and 0 <= d < cols and (a, d) != (r, c)]
    return out


@pytest.mark.parametrize("seed", range(6))
def test_a_six_by_six_grid_is_cut_into_quadrants_whatever_the_priorities(seed):
    order = list(range(36))
    random.Random(seed).shuffle(order)
    regions = compact_regions(_grid(6, 6, order), [9, 9, 9, 9])
    blocks: dict = {}
    for i, k in enumerate(regions):
        blocks.setdefault(k, set()).add(divmod(order[i], 6))
    assert sorted(blocks) == [0, 1, 2, 3]
    for cells in blocks.values():
        rows = {r for r, _ in cells}
        cols = {c for _, c in cells}
        assert len(rows) == len(cols) == 3 and len(cells) == 9, cells  # a 3 x 3 square


def test_regions_take_their_sizes_and_leave_the_rest_out():
    regions = compact_regions(_grid(4, 4, range(16)), [5, 5])
    assert regions.count(0) == regions.count(1) == 5 and regions.count(-1) == 6
    assert regions[0] == 0  # a corner, first in priority, seeds the first region
    # each region connected: every block but the seed has a neighbour in its region
    nb = _grid(4, 4, range(16))
    for i, k in enumerate(regions):
        if k >= 0 and i != regions.index(k):
            assert any(regions[j] == k for j in nb[i]), (i, regions)


def test_region_cap_is_six_of_eight_threads_and_below_the_region_s_size(monkeypatch):
    monkeypatch.setattr(policy, "SPREAD_REGION", 1)
    assert region_cap(9, 8) == 6 and spread_cap(9, 8, 3) == 6
    assert region_cap(9, 8, 9) == 6 and region_cap(9, 8, 5) == 3 and region_cap(9, 8, 2) == 1
    assert spread_cap(9, 8, 3, 4) == 2
    monkeypatch.setattr(policy, "REGION_LESS", 0)
    assert region_cap(9, 8, 5) == 6
    monkeypatch.setattr(policy, "SPREAD_REGION_SHARE", 0.875)
    assert region_cap(9, 8) == 7
    assert region_cap(5, 16) == 5  # never above the cap
    assert region_cap(2, 1) == 1
    assert spread_cap(9, 8, 2) == 9  # (SPREAD_CAP's, not on eight threads)
    assert regions_on(8, 36, 4) and regions_on(16, 8, 4) and regions_on(4, 36, 4)
    assert not regions_on(2, 36, 4)  # (fewer threads than SPREAD_REGION_THREADS)
    assert not regions_on(8, 7, 4)  # (fewer than two roots a worker)
    monkeypatch.setattr(policy, "SPREAD_REGION", 0)
    assert not regions_on(8, 36, 4)


def test_a_root_placed_by_its_region_meets_the_region_cap():
    books = Books(Policy())
    book = books.add_worker("w", 8, math.inf)
    assert book.cap == 9
    book.processing = book.roots_processing = 6
    assert books._admits(book, "w", "r", 8e6, False, None, spread=2)
    assert not books._admits(book, "w", "r", 8e6, False, None, spread=3)
    book.processing = book.roots_processing = 5
    assert books._admits(book, "w", "r", 8e6, False, None, spread=3)
    assert not books._admits(book, "w", "r", 8e6, False, None, spread=3, region=7)
    assert books._admits(book, "w", "r", 8e6, False, None, spread=3, region=8)


def test_twin_stencil_four_eight_thread_workers_within_queuings_peak(monkeypatch):
    """The 6 x 6 block stencil on 4 x 8 with a 10 ms overrun per task: partners placed two
    workers' blocks interleaved in the same columns, each interior waiting for the other
    worker's edges, over queuing's peak in most runs (bench/ab_twin.py, 60 runs: 42 over
    1.05x). With SPREAD_REGION no run's peak is over queuing's (8 halo rows allowed) over
    three namings x two seeds, some are without, and the makespan summed is no more than
    the run's without."""
    pytest.importorskip("distributed")
    from test_spread_cap import stencil_over_queuing

    span, over = stencil_over_queuing(monkeypatch, "SPREAD_REGION", 4, 8)
    assert over[1] == 0 < over[0], over
    assert span[1] <= span[0], span


def test_a_worker_replaced_by_another_is_never_a_region_s_worker(monkeypatch):
    # The kept regions were keyed by the workers' number: one worker gone and another come
    # (a nanny's restart) left a region naming the gone one, its roots waiting for it.
    from types import SimpleNamespace

    from sortedcontainers import SortedDict

    from tidegate.distributed import hooks

    def ws(address):
        return SimpleNamespace(address=address, nthreads=8, memory_limit=0)

    s = SimpleNamespace(workers=SortedDict((a, ws(a)) for a in ("w0", "w1")), tasks={},
                        task_groups={}, running=set(), stream_comms={})  # fmt: skip
    p = hooks.Plugin()
    p._resync()  # (no scheduler yet: the books and sets alone)
    p.scheduler = s
    for w in s.workers.values():
        p._book(w)
    cuts = []

    def regions_of(ts):  # every root on the first worker in the books, as they are now
        cuts.append(sorted(p.books.workers))
        return {ts.key: sorted(p.books.workers)[0]}

    monkeypatch.setattr(p, "_regions_of", regions_of)
    class Group(list):  # a TaskGroup: a name, a size
        name = "block"

    ts = SimpleNamespace(key="block-0", group=Group([None] * 4))
    assert p._region_of(ts) == "w0" and p._region_of(ts) == "w0" and len(cuts) == 1
    del s.workers["w0"]
    p.remove_worker(s, "w0")
    s.workers["w2"] = ws("w2")
    p.add_worker(s, "w2")
    assert p.errors == [] and sorted(p.books.workers) == ["w1", "w2"]
    assert p._region_of(ts) == "w1" and cuts[-1] == ["w1", "w2"]  # cut again, w0 gone


def test_a_cut_keeps_roots_already_started_in_their_regions():
    # Rows 0-1 of a 4 x 4 grid started on the second worker (region 1); cut afresh, the
    # first region (seeded at the corner, priority 0) took six of them and the second
    # worker the rest of rows 2-3: started blocks and their neighbours apart.
    nb = _grid(4, 4, range(16))
    fixed = [1] * 8 + [-1] * 8
    assert compact_regions(nb, [8, 8])[:8].count(0) == 6
    regions = compact_regions(nb, [8, 8], fixed)
    assert regions == [1] * 8 + [0] * 8
    # a region holding some started roots grows around them
    fixed = [-1] * 16
    fixed[15] = 0  # the far corner started on the first worker
    regions = compact_regions(nb, [4, 12], fixed)
    assert sorted(i for i, k in enumerate(regions) if k == 0) == [10, 11, 14, 15]


def _plugin_with_regions(monkeypatch, spread, started=None):
    """A plugin whose books hold two eight-thread workers, and the 4 x 4 grid's roots (a
    group of 16, each meeting its eight neighbours, ``spread(i)`` says whose data is
    spread; ``started``: {root: worker address}); its meeting plans faked."""
    from types import SimpleNamespace

    from sortedcontainers import SortedDict

    from tidegate.distributed import hooks

    def ws(address):
        return SimpleNamespace(address=address, nthreads=8, memory_limit=0)

    s = SimpleNamespace(workers=SortedDict((a, ws(a)) for a in ("w0", "w1")), tasks={},
                        task_groups={}, running=set(), stream_comms={})  # fmt: skip
    p = hooks.Plugin()
    p._resync()
    p.scheduler = s
    for w in s.workers.values():
        p._book(w)

    class Group(list):  # a TaskGroup: a name, a size
        name = "block"

    group = Group()
    roots = []
    for i in range(16):
        on = (started or {}).get(i)
        roots.append(SimpleNamespace(key=f"block-{i}", group=group, priority=(i,),
                                     processing_on=None if on is None else s.workers[on],
                                     who_has=set()))
        group.append(roots[-1])
    nb = _grid(4, 4, range(16))
    plans = {r.key: SimpleNamespace(spread=spread(i), inputs=[[([roots[j]],)] for j in nb[i]])
             for i, r in enumerate(roots)}
    monkeypatch.setattr(p, "_plan", lambda ts: plans[ts.key])
    return p, roots


@pytest.mark.parametrize("first", [0, 5])
def test_a_group_s_cut_is_the_same_whichever_root_asks_first(monkeypatch, first):
    # Corners' data unspread (a corner meets three, say), the rest spread: the first root
    # asked decided for the whole group (the corner: no regions; another: regions).
    corners = {0, 3, 12, 15}
    p, roots = _plugin_with_regions(monkeypatch, lambda i: i not in corners)
    assert p._region_of(roots[first]) is None and p._regions["block"][2] is None
    p, roots = _plugin_with_regions(monkeypatch, lambda i: True)
    assert p._region_of(roots[first]) == "w0"  # blocks 0 and 5 both lie in w0's half
    monkeypatch.setattr(policy, "REGION_WHOLE", 0)
    p, roots = _plugin_with_regions(monkeypatch, lambda i: i not in corners)
    assert (p._region_of(roots[first]) is None) == (first in corners)  # (main's)


def test_a_cut_made_anew_keeps_started_roots_on_their_workers(monkeypatch):
    # Rows 0-1 started on w1 before the cut (the workers changed, the group grew): their
    # not-started neighbours go to w1 too, and w0's region is the rest.
    p, roots = _plugin_with_regions(monkeypatch, lambda i: True, {i: "w1" for i in range(8)})
    assert [p._region_of(r) for r in roots] == ["w1"] * 8 + ["w0"] * 8
    assert p._regions["block"][3] == {"w0": 8, "w1": 8}
    monkeypatch.setattr(policy, "REGION_WHOLE", 0)
    p, roots = _plugin_with_regions(monkeypatch, lambda i: True, {i: "w1" for i in range(8)})
    fresh = ["w0", "w0", "w0", "w1"] * 2 + ["w0", "w0", "w1", "w1"] + ["w1"] * 4
    assert [p._region_of(r) for r in roots] == fresh  # (main's: cut afresh)


def test_place_cuts_a_grown_or_replaced_group_again(monkeypatch):
    # _place reads the kept entry itself (no _region_of call a root, cpu44): a graph added
    # to the group (its size changed) or a new group of the same name is cut again there.
    from types import SimpleNamespace

    from sortedcontainers import SortedDict

    from tidegate.distributed import hooks

    s = SimpleNamespace(workers=SortedDict(
        (a, SimpleNamespace(address=a, nthreads=8, memory_limit=0)) for a in ("w0", "w1")),
        tasks={}, task_groups={}, running=set(), stream_comms={})  # fmt: skip
    p = hooks.Plugin()
    p._resync()
    p.scheduler = s
    for w in s.workers.values():
        p._book(w)
    cuts = []

    def regions_of(ts):  # the n-th cut puts every root on the n-th worker (mod 2)
        cuts.append(len(ts.group))
        return {ts.key: f"w{(len(cuts) - 1) % 2}"}

    monkeypatch.setattr(p, "_regions_of", regions_of)
    monkeypatch.setattr(p, "_region_place", lambda ts, target, sid, size: (target, size))

    class Group(list):  # a TaskGroup: a name, a size
        name = "block"

    ts = SimpleNamespace(key="block-0", group=Group([None] * 4))
    assert p._place(ts) == ("w0", 1) and p._place(ts) == ("w0", 1) and cuts == [4]
    ts.group.append(None)  # a graph added to the group
    assert p._place(ts) == ("w1", 1) and cuts == [4, 5]
    ts.group = Group([None] * 5)  # a new group of the same name and size
    assert p._place(ts) == ("w0", 1) and cuts == [4, 5, 5]
