"""The plugin runs dask's check_idle_saturated without the statement that fills
idle_task_count (tidegate.distributed.trim): everything else it does (idle, saturated) is
dask's, and the copy is made only from the statement dask has (else dask's own stays)."""

from __future__ import annotations

import itertools

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
