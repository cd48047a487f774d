"""tidegate.Progress: drawn live in a terminal, silent elsewhere, reading dask's state or
tidegate's live object."""

from __future__ import annotations

import io
import os
import threading
import time
from types import SimpleNamespace

import dask
import pytest
from rich.console import Console

import tidegate
from tidegate.progress import Snapshot, snapshot

N = 12  # tasks in _graph()


def _graph(last=lambda xs: sum(xs)):
    parts = [dask.delayed(lambda i: i, pure=True)(i, dask_key_name=f"part-{i}")
             for i in range(N - 1)]
    return dask.delayed(last)(parts, dask_key_name="last")


def _terminal():
    out = io.StringIO()
    return out, Console(file=out, force_terminal=True, width=120, color_system=None)


@pytest.mark.parametrize("scheduler", ["threads", "sync", tidegate.get],
                         ids=["threads", "sync", "tidegate"])
def test_final_line_counts_every_task(scheduler):
    out, console = _terminal()
    with tidegate.Progress(console=console) as p:
        assert _graph().compute(scheduler=scheduler) == sum(range(N - 1))
    assert p.last.done == p.last.total == N
    assert f"{N}/{N}" in out.getvalue()
    assert p._thread is None and "tidegate-progress" not in {t.name for t in threading.enumerate()}


def test_bar_moves_while_the_run_is_going():
    """The last task waits until the bar has drawn every other task done."""
    out, console = _terminal()
    p = tidegate.Progress(console=console, interval=0.01)

    def last(xs):
        deadline = time.monotonic() + 30
        while not (p.last and p.last.done == N - 1):  # an event: the bar drew it
            assert time.monotonic() < deadline, "progress never showed the finished tasks"
            time.sleep(0.005)
        return sum(xs)

    with p:
        _graph(last).compute(scheduler="threads", num_workers=2)
    assert f"{N - 1}/{N}" in out.getvalue() and f"{N}/{N}" in out.getvalue()


def test_silent_when_output_is_not_interactive():
    out = io.StringIO()
    with tidegate.Progress(console=Console(file=out)) as p:
        _graph().compute(scheduler="threads")
    assert not p.enabled and p.last is None and out.getvalue() == ""


def test_reads_tidegates_live_object_when_present():
    live = SimpleNamespace(tasks=100, finished=40, memory_limit=4 * 2**30,
                           held_bytes=2**30, bytes_spilled=3 * 2**20)
    state = {"tidegate": live, "finished": set()}
    assert snapshot(state) == Snapshot(40, 100, 2**30, 4 * 2**30, 3 * 2**20)
    out, console = _terminal()
    p = tidegate.Progress(console=console)
    p._start_state({}, state)
    live.finished = 100
    p._finish({}, state, False)
    line = [ln for ln in out.getvalue().splitlines() if "100/100" in ln][-1]
    assert "memory 1.00 GiB / 4.00 GiB" in line and "spilled 3.00 MiB" in line


def test_thread_runtime_shows_memory_against_its_limit():
    out, console = _terminal()
    with tidegate.Progress(console=console) as p:
        _graph().compute(scheduler=tidegate.get, memory_limit="1GiB")
    assert p.last.done == p.last.total == N and p.last.memory_limit == 2**30
    assert p.last.held_bytes is not None and p.last.bytes_spilled == 0
    assert "/ 1.00 GiB" in out.getvalue()


def test_memory_without_a_limit_and_nothing_spilled():
    assert Snapshot(1, 2, 5 * 2**20, None, 0).memory_text() == "memory 5.00 MiB"
    assert Snapshot(1, 2).memory_text() == ""


def test_drawn_in_a_real_notebook_kernel():
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("ipykernel")
    pytest.importorskip("ipywidgets")
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(
        "import tidegate, test_progress\n"
        "p = tidegate.Progress()\n"
        "with p:\n"
        "    print(test_progress._graph().compute(scheduler='threads'))\n"
        "print(p.enabled, p.last.done)"))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")]))
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            store_widget_state=True).execute(env=env)
    out = nb.cells[0].outputs
    stdout = [o["text"] for o in out if o["output_type"] == "stream" and o["name"] == "stdout"]
    assert "".join(stdout) == f"{sum(range(N - 1))}\nTrue {N}\n"
    widgets = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    drawn = [o["data"]["text/plain"] for w in widgets.values() if w["model_name"] == "OutputModel"
             for o in w["state"]["outputs"]]
    assert any(f"{N}/{N}" in text for text in drawn), drawn


def test_memory_against_the_limit_is_the_process_memory_when_known():
    text = Snapshot(1, 2, 5 * 2**20, 4 * 2**30, 0, 3 * 2**30).memory_text()
    assert text == "memory 3.00 GiB / 4.00 GiB  held 5.00 MiB"


def test_a_limited_run_shows_its_process_memory():
    import dask
    import dask.array as da
    from dask.callbacks import Callback

    import tidegate

    seen = []

    class Look(Callback):
        def _posttask(self, key, result, dsk, state, id):
            seen.append(state["tidegate"].memory_used)

    x = da.ones((2000, 1000), chunks=(250, 1000))  # 2 MB chunks
    with Look():
        (x + 1).sum().compute(scheduler=tidegate.get, memory_limit="200MB")
        dask.compute((x + 1).sum(), scheduler=tidegate.get, memory_limit="none")
    assert seen and all(isinstance(m, int) and m >= 0 for m in seen)
