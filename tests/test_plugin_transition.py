"""dask calls the plugin's ``transition`` after every transition of every task; a finished
task's move (processing -> memory) comes with the keywords of the worker's message. The
plugin names them in its signature, so that Python binds them without building a
``**kwargs`` dict (bench/results/cpu15-README.txt). A dask release that sends another
keyword still works (it lands in ``**kwargs``) but pays for the dict again: this test says
which keyword to name."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("distributed")
from tidegate.distributed import hooks  # noqa: E402
from tidegate.sim import simulate  # noqa: E402
from tidegate.sim.model import build_model  # noqa: E402
from tidegate.sim.workloads import build  # noqa: E402


def test_a_finished_tasks_keywords_are_named_in_transition(monkeypatch):
    named = set(inspect.signature(hooks.Plugin.transition).parameters)
    original = hooks.Plugin.transition
    seen: dict = {}  # (start, finish) -> keywords dask passed

    def recording(self, key, start, finish, *args, **kwargs):
        seen.setdefault((start, finish), set()).update(kwargs)
        return original(self, key, start, finish, *args, **kwargs)

    monkeypatch.setattr(hooks.Plugin, "transition", recording)
    w = build("stack-sum", 40, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    simulate(model, workers=4, threads_per_worker=2, policy="tidegate")
    finished = seen.get(("processing", "memory"), set())
    assert "worker" in finished  # the one keyword the books read
    assert not finished - named, f"name these in Plugin.transition: {finished - named}"
