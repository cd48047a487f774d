"""The three "dask's code still has the shape we restate" checks (recompile.same_shape, tools35):
trim.quick, install._drops_all_in_transitions and server._transition_shape say yes to dask's
code as it is, and no once it reads another name, or (where they record them) names a local
otherwise or holds another constant; a docstring is not looked at."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")
from distributed.scheduler import SchedulerState, WorkerState  # noqa: E402
from distributed.stealing import WorkStealing  # noqa: E402

from test_distributed import _bare_state  # noqa: E402
from tidegate.distributed import install, recompile, server, trim  # noqa: E402


def _variants(code):
    """(what changed, index or None, code) of ``code`` with one thing changed."""
    yield "name", None, code.replace(co_names=code.co_names + ("elsewhere",))
    vn = code.co_varnames
    for i in range(len(vn)):
        yield "local", i, code.replace(co_varnames=vn[:i] + (vn[i] + "_x",) + vn[i + 1:])
    cs = code.co_consts
    for i, c in enumerate(cs):
        if type(c) in (int, float):
            yield "const", i, code.replace(co_consts=cs[:i] + (c + 1,) + cs[i + 1:])
        elif type(c) is str:
            yield "string", i, code.replace(co_consts=cs[:i] + ("a docstring",) + cs[i + 1:])


def _answers(monkeypatch, fn, check):
    """check() with fn as it is, then with each of its code's _variants."""
    code = fn.__code__
    assert check()
    out = {}
    for what, i, changed in _variants(code):
        monkeypatch.setattr(fn, "__code__", changed)
        out[what, i] = check()
    monkeypatch.setattr(fn, "__code__", code)
    return out


def test_trim_quick_records_names_locals_and_constants(monkeypatch):
    state = _bare_state(nworkers=1, nthreads=1)
    for name in trim._SHAPES:
        owner = WorkerState if name in trim._WORKER else SchedulerState
        fn = owner.__dict__[name]
        fn = getattr(fn, "fget", fn)
        got = _answers(monkeypatch, fn, lambda: trim.quick(state) is not None)
        assert got and {v for (what, _), v in got.items() if what != "string"} == {False}, name
        assert {v for (what, _), v in got.items() if what == "string"} <= {True}, name


def test_drops_all_records_names_only(monkeypatch):
    state = _bare_state(nworkers=1, nthreads=1)
    monkeypatch.setattr(install, "_drops_all", {})

    def check():
        install._drops_all.clear()
        return install._drops_all_in_transitions(state)

    got = _answers(monkeypatch, SchedulerState.remove_all_replicas, check)
    assert got.pop(("name", None)) is False and set(got.values()) == {True}


def test_steal_transition_records_names_and_arguments(monkeypatch):
    steal = WorkStealing.__new__(WorkStealing)
    got = _answers(monkeypatch, WorkStealing.transition,
                   lambda: server._transition_shape(steal))
    assert got.pop(("name", None)) is False
    assert {i for (what, i), v in got.items() if what == "local" and not v} == set(range(6))
    assert {v for (what, i), v in got.items() if what != "local" or i >= 6} == {True}
    steal.transition = WorkStealing.transition  # (not a method of a stealing extension)
    assert not server._transition_shape(steal)


def test_same_shape_reads_a_property_s_getter():
    occupancy = WorkerState.__dict__["occupancy"]
    names, consts, local = trim._SHAPES["occupancy"]
    assert recompile.same_shape(occupancy, names, consts, local)
    assert recompile.same_shape(occupancy, names)
    assert not recompile.same_shape(occupancy, names, consts, local[:-1] + ("x",))
    assert not recompile.same_shape(None, ())
