"""bench/ab_twin.py and bench/trace_twin.py (tools35) on one tiny cell each: the A/B reports
both sides, says SAME when the switch's two values are one, "moved" when they differ, and
gives the switch its value back; the tracer's holdings at a worker's peak add up to it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import tidegate.policy as P

BENCH = Path(__file__).resolve().parent.parent / "bench"
CELL = ["--only", "stack-sum", "--shapes", "2x1", "--lags", "0.002", "--namings", "2",
        "--seeds", "1"]  # fmt: skip


def _script(name):
    spec = importlib.util.spec_from_file_location(f"_{name}_under_test", BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def ab():
    return _script("ab_twin")


def test_ab_twin_same_and_moved(ab, capsys, tmp_path):
    before = P.SHARED_FANOUT
    out = ab.main([*CELL, "--switch", "SHARED_FANOUT", "--old", str(before), "--new",
                   str(before), "--json", str(tmp_path / "same.json")])
    text = capsys.readouterr().out
    assert "stack-sum 2x1 lag2 SAME" in text
    assert "    old: time" in text and "    new: time" in text
    (cell,) = json.loads((tmp_path / "same.json").read_text())["cells"]
    assert cell["same"] and len(cell["runs"]) == 2
    assert cell["summary"]["old"] == cell["summary"]["new"]
    assert out["switches"] == [{"name": "tidegate.policy.SHARED_FANOUT", "old": before,
                                "new": before}]
    # One fan-out counts as shared: stack-sum's decisions move (session 35).
    out = ab.main([*CELL, "--switch", "SHARED_FANOUT", "--old", str(before), "--new", "1"])
    assert "stack-sum 2x1 lag2 moved 2/2" in capsys.readouterr().out
    (cell,) = out["cells"]
    assert {r["old"]["makespan"] != r["new"]["makespan"] for r in cell["runs"]} == {True}
    assert P.SHARED_FANOUT == before  # given back


def test_ab_twin_switch_values(ab):
    assert ab.value(True, "0") is False and ab.value(2, "inf") == float("inf")
    assert ab.value(2, "2.5") == 2.5
    (s,) = ab.settings(["tidegate.core.WIDE"], ["64"], ["8"])
    assert s[1:] == ("WIDE", 64, 64, 8)
    with pytest.raises(SystemExit):
        ab.settings(["A,B"], ["0"], ["1"])


def test_trace_twin_holdings_add_up(capsys, tmp_path):
    before = P.SHARED_FANOUT
    out = _script("trace_twin").main(["2x1", "0.002", "0", "--only", "stack-sum", "--naming",
                                      "1", "--min-mb", "0", "--set", "SHARED_FANOUT=1",
                                      "--json", str(tmp_path / "t.json")])
    text = capsys.readouterr().out
    assert text.startswith("stack-sum tidegate 2x1 lag 0.002 seed 0 n1 SHARED_FANOUT=1:")
    assert text.count("\n== tcp://") == 2 and text.count("\nHELD ") == 2
    assert P.SHARED_FANOUT == before
    keys = [t[0] for t in out["tasks"]]
    assert keys and len(set(keys)) == len(keys)  # each task once
    assert max(out["peaks"]) == max(w["peak"] for w in out["workers"].values())
    for w in out["workers"].values():  # every byte in memory at the peak, none below --min-mb
        assert sum(b for _, b, _ in w["held"]) == w["peak"]
    assert json.loads((tmp_path / "t.json").read_text())["makespan"] == out["makespan"]
