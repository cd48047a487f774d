"""The plugin runs dask's check_idle_saturated without the statement that fills
idle_task_count (tidegate.distributed.trim): everything else it does (idle, saturated) is
dask's, and the copy is made only from the statement dask has (else dask's own stays)."""

from __future__ import annotations

import itertools
import math

from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

pytest.importorskip("distributed")
from distributed.core import Status  # noqa: E402
from distributed.scheduler import SchedulerState  # noqa: E402

from test_distributed import _bare_state, _installed_copy_then_dask_s_own  # noqa: E402
from tidegate.distributed import trim  # noqa: E402


class _Refuses(set):
    def add(self, ws):
        raise AssertionError("the copy filled idle_task_count")

    def discard(self, ws):
        raise AssertionError("the copy emptied idle_task_count")


def _after(state, check, ws, occ, p, status):
    state.idle.clear()
    state.saturated.clear()
    ws.processing = {object() for _ in range(p)}  # (dask reads only its size here)
    ws.status = status
    check(state, ws, occ)
    return sorted(state.idle), sorted(w.address for w in state.saturated)


def test_idle_and_saturated_as_dask_keeps_them_and_idle_task_count_untouched():
    state = _bare_state(nworkers=2, nthreads=2)
    ws = next(iter(state.workers.values()))
    dask = SchedulerState.check_idle_saturated
    copy = trim.without_idle_task_count(dask)
    assert copy is not None and copy.__wrapped__ is dask
    seen = set()
    for p, occ, status in itertools.product(
            range(6), (0.0, 0.3, 5.0, 40.0), (Status.running, Status.paused)):  # fmt: skip
        state.idle_task_count = set()
        expected = _after(state, dask, ws, occ, p, status)
        state.idle_task_count = _Refuses()
        assert _after(state, copy, ws, occ, p, status) == expected, (p, occ, status)
        seen.add((bool(expected[0]), bool(expected[1])))
    assert seen == {(True, False), (False, False), (False, True)}  # each branch was met


def _files_with_another_call(self, ws):
    if ws.status == Status.running and self.is_unoccupied(ws, 0.0, 0):
        self.idle_task_count.add(ws)
    else:
        self.idle_task_count.discard(ws)


def _reads_it_again(self, ws):
    if not _worker_full(ws, 1):  # noqa: F821
        self.idle_task_count.add(ws)
    else:
        self.idle_task_count.discard(ws)
    return len(self.idle_task_count)


@pytest.mark.parametrize("fn", [SchedulerState.is_unoccupied, _files_with_another_call,
                                _reads_it_again])
def test_nothing_is_copied_unless_the_statement_is_as_dask_has_it(fn):
    assert trim.without_idle_task_count(fn) is None


def test_nothing_is_copied_when_the_source_on_disk_is_not_the_code_running(tmp_path,
                                                                           monkeypatch):
    """A dask upgraded (or an editable install edited) under a running scheduler: its
    file no longer says what runs, and a copy made from it would run other code."""
    import importlib
    import inspect

    source = inspect.getsource(SchedulerState.check_idle_saturated)
    module = tmp_path / "edited_dask.py"
    module.write_text("from __future__ import annotations\n\n\n"
                      "def _worker_full(ws, n):\n    return False\n\n\nclass S:\n" + source)
    monkeypatch.syspath_prepend(str(tmp_path))
    edited = importlib.import_module("edited_dask")
    assert trim.without_idle_task_count(edited.S.check_idle_saturated) is not None
    module.write_text(module.read_text().replace("p = len(ws.processing)",
                                                 "p = len(ws.processing) + 0"))
    importlib.invalidate_caches()
    fn = edited.S.__dict__["check_idle_saturated"]
    trim._made.pop(fn, None)
    fresh = type(fn)(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__)
    assert trim.without_idle_task_count(fresh) is None


def test_installed_without_a_budget_and_dask_s_own_back_after():
    state = _installed_copy_then_dask_s_own("check_idle_saturated")
    for ws in state.workers.values():  # dask's own again: idle workers have queue slots
        state.check_idle_saturated(ws)
    assert state.idle_task_count == set(state.workers.values())


def _prefixed(state, ws, counts, network, cache):
    """ws's and the state's occupancy from task prefixes (durations known, unknown with an
    execution seen, unknown), as dask keeps them."""
    from distributed.scheduler import TaskPrefix

    for name, (average, max_exec) in {"known": (0.5, -1), "seen": (-1, 0.8),
                                      "unseen": (-1, -1)}.items():  # fmt: skip
        prefix = state.task_prefixes.get(name) or TaskPrefix(name)
        prefix.duration_average, prefix.max_exec_time = average, max_exec
        state.task_prefixes[name] = prefix
    ws.task_prefix_count.clear()
    ws.task_prefix_count.update(counts)
    state._task_prefix_count_global.clear()
    state._task_prefix_count_global.update({k: 3 * v + 1 for k, v in counts.items()})
    state._task_prefix_count_global["known"] = state._task_prefix_count_global.get("known", 0) + 9
    ws._network_occ, state._network_occ_global = network, 4 * network
    ws._occupancy_cache = cache


def test_quick_files_workers_as_dask_does_in_the_same_order():
    """trim.quick's restatement (helpers inlined, the total summed once, fewer tasks than
    threads answered before any occupancy is summed) leaves ``idle`` (its order too) and
    ``saturated`` as dask's own (without the idle_task_count statement) leaves them, over
    processing counts, statuses, occupancies given or summed from prefixes and the
    network, and every membership before the call."""
    state = _bare_state(nworkers=3, nthreads=2)
    quick = trim.quick(state)
    assert quick is not None and quick.__func__.__wrapped__ is SchedulerState.check_idle_saturated
    dask = SchedulerState.check_idle_saturated
    workers = list(state.workers.values())
    ws = workers[1]
    seen = set()
    cases = itertools.product(
        range(6), (Status.running, Status.paused, Status.closed), (-1.0, 0.0, 0.3, 40.0),
        ({"known": 2}, {"known": 1, "seen": 3}, {"unseen": 2, "known": 5}, {}),
        (0, 10**9), (None, 7.0), (False, True), (False, True))  # fmt: skip
    for p, status, occ, counts, network, cache, was_idle, was_saturated in cases:
        if occ == 40.0 and p > 2:  # (just over and under each threshold, in turn)
            _prefixed(state, ws, counts, network, cache)
            per_thread = state.total_occupancy / state.total_nthreads
            occ = [per_thread * 0.99, per_thread * 1.01,  # idle: occ < nc * per_thread / 2
                   1.9 * per_thread * p * 2 / (p - 2) * 0.999,  # saturated: pending >
                   1.9 * per_thread * p * 2 / (p - 2) * 1.001][p - 3 + was_idle]
        results = []
        for check in (dask, quick.__func__):
            _prefixed(state, ws, counts, network, cache)
            state.idle.clear()
            state.saturated.clear()
            state.idle[workers[0].address] = workers[0]
            if was_idle:
                state.idle[ws.address] = ws
            state.idle[workers[2].address] = workers[2]
            if was_saturated:
                state.saturated.add(ws)
            ws.processing = {object() for _ in range(p)}  # (dask reads only its size)
            ws.status = status
            state.idle_task_count = set()
            check(state, ws, occ)
            results.append((list(state.idle.items()), set(state.saturated)))
        assert results[0] == results[1], (p, status, occ, counts, network, cache)
        seen.add((ws.address in state.idle, ws in state.saturated, p < 2))
    assert {(True, False, True), (True, False, False), (False, False, False),
            (False, True, False)} <= seen  # fmt: skip


def test_quick_leaves_dask_s_own_where_a_helper_is_not_as_restated(monkeypatch):
    """A scheduler overriding a helper the restatement inlines, on itself or its class, or
    a dask whose helper reads other names: no restatement (the trimmed copy, else dask's)."""
    state = _bare_state(nworkers=1, nthreads=1)
    assert trim.quick(state) is not None
    state.is_unoccupied = lambda ws, occupancy, nprocessing: False
    assert trim.quick(state) is None
    del state.is_unoccupied

    class Other(type(state)):
        def _get_prefix_duration(self, prefix):
            return 1.0

    state.__class__ = Other
    assert trim.quick(state) is None
    state.__class__ = Other.__mro__[1]
    from distributed.scheduler import WorkerState

    def occupancy(self):
        return self._occupancy_cache or 0.0

    monkeypatch.setattr(WorkerState, "occupancy", property(occupancy))
    assert trim.quick(state) is None


def test_installed_restated_and_dask_s_own_back_after():
    """The plugin installs the restatement where quick makes one; uninstall puts dask's
    own back (the state's class method: nothing left on the instance)."""
    from test_distributed import _installed_on_bare_state

    state, plugin = _installed_on_bare_state(saturation=1.0)
    assert state.__dict__["check_idle_saturated"].__code__ is trim._check_idle_saturated.__code__
    plugin.uninstall()
    assert "check_idle_saturated" not in state.__dict__


_durations = st.one_of(st.just(-1), st.just(-1.0), st.integers(-3, 5),
                     st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False))


def _turns(state, ws, occ) -> tuple:
    """(dask's, the restatement's) answer: is ws idle after check_idle_saturated(ws, occ)?"""
    answers = []
    for check in (SchedulerState.check_idle_saturated, trim.quick(state).__func__):
        state.idle.clear()
        state.saturated.clear()
        state.idle_task_count = set()
        check(state, ws, occ)
        answers.append(ws.address in state.idle)
    return tuple(answers)


@settings(max_examples=500, deadline=None)
@given(prefixes=st.lists(st.tuples(_durations, _durations, st.integers(1, 10**6),
                                   st.integers(0, 5)), min_size=1, max_size=8),
       network=st.floats(0, 1e12), unknown=st.sampled_from([0.5, 2, 1e-9]))
def test_occupancy_is_dask_s_sum_to_the_bit(prefixes, network, unknown):
    """The restatement's two sums (dask's _calc_occupancy with _get_prefix_duration,
    written out in _check_idle_saturated since cpu42; trim._occupancy, a function, before)
    are dask's to the last bit: where dask's idle test turns (occ against nc x per_thread
    / 2, every factor a power of two here: exact), one ulp either side, the restatement
    answers as dask. The total: occ given at dask's threshold and one ulp below. The
    worker's: occ summed, the total made one prefix of a duration putting the threshold at
    dask's sum and one ulp above. Averages unknown (-1, -1.0), negative, zero, max_exec_time
    given or not, any counts; a prefix of the total the worker does not run."""
    import math
    import sys

    from distributed.scheduler import TaskPrefix

    state = _bare_state(nworkers=2, nthreads=2)  # (4 threads: per_thread = total / 4)
    state.validate = False  # (dask's assert would fail alike on a sum below 0)
    state.UNKNOWN_TASK_DURATION = unknown
    ws = next(iter(state.workers.values()))
    ws.processing = {object(), object()}  # (p = nc: the sums are read, never saturated)
    mine, total = {}, {}
    for i, (average, max_exec, count, more) in enumerate(prefixes):
        prefix = TaskPrefix(f"p{i}")
        prefix.duration_average, prefix.max_exec_time = average, max_exec
        state.task_prefixes[prefix.name] = prefix
        total[prefix.name] = count + more
        if i % 3 != 2:
            mine[prefix.name] = count
    ref = state.task_prefixes["ref"] = TaskPrefix("ref")
    ws.task_prefix_count.clear()
    ws.task_prefix_count.update(mine)
    ws._network_occ, ws._occupancy_cache = network / 3, None

    state._task_prefix_count_global.clear()
    state._task_prefix_count_global.update(total)
    state._network_occ_global = network
    whole = state.total_occupancy
    # (from the smallest normal up: a subnormal total's quarter rounds, the turn moves)
    if math.isfinite(whole) and whole >= 4 * sys.float_info.min:
        turn = 2 * (whole / 4) / 2
        assert _turns(state, ws, turn) == (False, False)
        assert _turns(state, ws, math.nextafter(turn, -math.inf)) == (True, True)

    occ = ws.occupancy  # (dask's property: its sum of the worker's counts)
    if math.isfinite(occ) and 0 < occ < 1e300:
        state._task_prefix_count_global.clear()
        state._task_prefix_count_global["ref"] = 1
        state._network_occ_global = 0.0
        for duration, idle in ((4 * occ, False), (4 * math.nextafter(occ, math.inf), True)):
            ref.duration_average = duration  # (the threshold: 2 x (duration / 4) / 2)
            assert _turns(state, ws, -1.0) == (idle, idle)


_any_durations = st.one_of(_durations, st.just(math.nan), st.just(math.inf), st.just(-math.inf))


@settings(max_examples=300, deadline=None)
@given(prefixes=st.lists(st.tuples(_any_durations, _any_durations, st.integers(1, 50),
                                   st.integers(0, 5)), min_size=1, max_size=6),
       processing=st.integers(0, 12), cached=st.one_of(st.none(), st.just(0.0),
                                                      st.floats(0, 1e4)),
       occ=st.one_of(st.just(-1.0), st.floats(0, 1e4)), was=st.sampled_from(
           ["", "idle", "saturated"]))  # fmt: skip
def test_idle_and_saturated_are_left_as_dask_leaves_them(prefixes, processing, cached, occ,
                                                         was):  # fmt: skip
    """Beside the idle turn above: every branch of the restatement (fewer tasks than
    threads, the saturated test with more, the worker's occupancy cache set, 0.0 or None,
    occ given or asked, averages NaN or infinite, the worker idle or saturated before)
    leaves state.idle and state.saturated as dask's check_idle_saturated does."""
    from distributed.scheduler import TaskPrefix

    state = _bare_state(nworkers=2, nthreads=2)
    state.validate = False
    ws = next(iter(state.workers.values()))
    ws.processing = {object() for _ in range(processing)}
    ws._occupancy_cache = cached
    state._task_prefix_count_global.clear()
    ws.task_prefix_count.clear()
    for i, (average, max_exec, count, more) in enumerate(prefixes):
        prefix = state.task_prefixes[f"p{i}"] = TaskPrefix(f"p{i}")
        prefix.duration_average, prefix.max_exec_time = average, max_exec
        ws.task_prefix_count[prefix.name] = count
        state._task_prefix_count_global[prefix.name] = count + more
    seen = []
    for check in (SchedulerState.check_idle_saturated, trim.quick(state).__func__):
        state.idle.clear()
        state.saturated.clear()
        if was == "idle":
            state.idle[ws.address] = ws
        elif was == "saturated":
            state.saturated.add(ws)
        check(state, ws, occ)
        seen.append((list(state.idle), ws in state.saturated))
    assert seen[0] == seen[1], seen


def test_the_saturated_turn_is_dask_s():
    """The saturated test's threshold (pending over 1.9 x per_thread, and 0.4), swept
    finely on each side for several counts of tasks processing: the same set as dask's."""
    from distributed.scheduler import TaskPrefix

    state = _bare_state(nworkers=2, nthreads=2)
    ws = next(iter(state.workers.values()))
    prefix = state.task_prefixes["p"] = TaskPrefix("p")
    prefix.duration_average = 1.0
    state._task_prefix_count_global.clear()
    state._task_prefix_count_global["p"] = 40  # (per_thread 10: saturated past pending 19)
    turned = 0
    for p in (3, 4, 6, 9):
        ws.processing = {object() for _ in range(p)}
        for k in range(1, 1600):
            seen = []
            for check in (SchedulerState.check_idle_saturated, trim.quick(state).__func__):
                state.idle.clear()
                state.saturated.clear()
                check(state, ws, k / 8)
                seen.append((list(state.idle), ws in state.saturated))
            assert seen[0] == seen[1], (p, k / 8, seen)
            turned += seen[0][1]
    assert 0 < turned < 4 * 1599  # (both sides of the turn were asked)
