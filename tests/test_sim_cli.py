"""``tidegate simulate`` and the seed workloads built without data."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from dask.utils import key_split

from tidegate.cli import main
from tidegate.sim import simulate
from tidegate.sim.model import build_model
from tidegate.sim.workloads import WORKLOADS, build

def test_cli_writes_one_entry_per_policy(tmp_path, capsys):
    out = tmp_path / "r.json"
    argv = ["simulate", "--workload", "stack-sum", "--steps", "12", "--chunk", "8MB",
            "--workers", "3", "--threads", "2", "--json", str(out)]
    assert main(argv) == 0
    got = json.loads(out.read_text())
    assert list(got) == ["eager", "queue", "tidegate"]
    w = build("stack-sum", 12, 8e6)  # the store form, as a computed to_zarr sends it
    direct = simulate(w.model(), workers=3, threads_per_worker=2,
                      policy=["eager", "queue", "tidegate"])
    for r in direct:
        assert got[r.policy] == json.loads(json.dumps(r.summary()))
        assert len(got[r.policy]["peak_memory_per_worker"]) == 3
    printed = capsys.readouterr().out
    assert "tidegate" in printed and "makespan" in printed


def test_cli_policy_subset_and_bad_workload(tmp_path):
    out = tmp_path / "r.json"
    main(["simulate", "--workload", "anomaly", "--steps", "6", "--chunk", "1MB", "--workers",
          "2", "--threads", "1", "--policy", "queue", "--json", str(out)])
    assert list(json.loads(out.read_text())) == ["queue"]
    with pytest.raises(SystemExit):
        main(["simulate", "--workload", "nope"])



def test_cli_processes_sets_how_many_policies_run_at_once(tmp_path, monkeypatch):
    import tidegate.sim as sim

    calls = []
    real = sim.run_all

    def spy(fn, jobs, processes, labels=None):
        calls.append(processes)
        return real(fn, jobs, processes, labels=labels)

    monkeypatch.setattr(sim, "run_all", spy)
    argv = ["simulate", "--workload", "slice-add", "--steps", "10", "--chunk", "4MB",
            "--workers", "3", "--threads", "2"]
    outs = []
    for n in ("1", "2"):
        out = tmp_path / f"{n}.json"
        assert main([*argv, "--processes", n, "--json", str(out)]) == 0
        outs.append(json.loads(out.read_text()))
    assert calls == [2]  # 1: in this process, no children
    assert outs[0] == outs[1] and list(outs[0]) == ["eager", "queue", "tidegate"]
    with pytest.raises(SystemExit):
        main([*argv, "--processes", "0"])

@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_every_workload_runs_on_the_twin_with_validation(name):
    w = build(name, 10, 4e6, store=False)
    r = simulate(w.graph, keys=w.keys, sizes=w.sizes, durations=w.durations, workers=3,
                 threads_per_worker=2, policy="tidegate", validate=True)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    assert Counter(t.key for t in r.trace.tasks) == Counter(dict.fromkeys(map(str, model.dsk), 1))
    assert max(r.peak_memory_per_worker) >= 4e6 * 0.9  # at least one chunk was held


def test_the_twin_has_every_demo_workload():
    from tidegate.workloads import WORKLOADS as DEMO

    assert sorted(WORKLOADS) == sorted(DEMO)


def test_vorticity_is_the_seeds_shape():
    w = build("vorticity", 7, 1e6, store=False)
    groups = Counter(key_split(k) for k in w.graph)
    assert groups["open-u"] == groups["open-v"] == groups["vorticity-store"] == 7
    for g in ("dx", "dy", "area"):  # three shared chains: open -> transform, read by all
        assert w.graph[f"grid-{g}"][1] == f"open-{g}"
        assert sum(f"grid-{g}" in v for v in w.graph.values() if isinstance(v, tuple)) == 7
    assert w.keys == [("vorticity-store", t) for t in range(7)]


@pytest.mark.parametrize("workload, size", [
    ("stack-sum", ["--steps", "30", "--chunk", "10MB", "--workers", "4", "--threads", "2"]),
    # dask's optimisation emits rechunk-add's splits in hash order (model._canonical)
    ("rechunk-add", ["--steps", "120", "--chunk", "190MB", "--workers", "6", "--threads", "4",
                     "--policy", "queue"]),
])
def test_same_result_in_processes_with_different_hash_seeds(tmp_path, workload, size):
    """dask iterates sets of tasks and addresses in hash order; the twin gives them hashes
    that do not depend on PYTHONHASHSEED (and orders what dask leaves to id())."""
    import os
    import subprocess
    import sys

    outs = []
    for i in range(2):
        out = tmp_path / f"{i}.json"
        env = dict(os.environ, PYTHONHASHSEED=str(i + 1))
        subprocess.run(
            [sys.executable, "-m", "tidegate.cli", "simulate", "--workload", workload, *size,
             "--json", str(out)],
            check=True, env=env, capture_output=True, timeout=240,
        )
        outs.append(out.read_text())
    assert outs[0] == outs[1]
    assert json.loads(outs[0])["queue"]["bytes_transferred"] > 0  # placement mattered


@pytest.mark.parametrize("where, said", [
    ("/nonexistent/x", "no folder '/nonexistent/x'"), ("a-file", "is not a folder"),
])  # fmt: skip
def test_demo_refuses_a_tmpdir_that_is_no_folder_before_any_work(tmp_path, where, said,
                                                                   capsys, monkeypatch):
    """review21: demo --tmpdir /nonexistent/x printed its plan, then a FileNotFoundError
    traceback from tempfile.mkdtemp."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("")
    with pytest.raises(SystemExit) as info:
        main(["demo", "--tmpdir", where, "--report", ""])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --tmpdir" in err and said in err, err


@pytest.mark.parametrize("argv", [
    ["simulate", "--threads", "0"], ["simulate", "--bandwidth", "0"],
    ["simulate", "--workers", "-1"],
    ["simulate", "--policy", ""], ["simulate", "--policy", "fifo"], ["simulate", "--chunk", "abc"],
    ["simulate", "--latency", "soon"], ["simulate", "--steps", "0"],
    ["simulate", "--json", "/no/such/folder/out.json"], ["demo", "--steps", "0"],
    ["demo", "--workers", "0"], ["demo", "--memory-limit", "lots"], ["demo", "--bandwidth", "fast"],
    ["report", "t.jsonl", "-o", "/no/such/folder/r.html"], ["simulate", "--latency", "-1s"],
    ["demo", "--report", "/no/such/folder/d.html"], ["simulate", "--chunk", ""],
    ["simulate", "--chunk", " "], ["demo", "--memory-limit", ""],
])  # fmt: skip
def test_bad_arguments_are_refused_before_any_work(argv, capsys):
    """review20: these raised ZeroDivisionError, IndexError, a stall, a traceback after the
    run, or (demo --workers 0) wrote its input and waited forever."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {argv[-2]}" in err or "argument -o/--output" in err, err


@pytest.mark.parametrize("argv", [["simulate", "--bandwidth", t] for t in ("", " ", "/s", " /s")]
                         + [["demo", "--bandwidth", "/s"]])  # fmt: skip
def test_a_blank_bandwidth_is_refused_not_read_as_one_byte_per_second(argv, monkeypatch, capsys):
    """review22: config.rate read '', ' ' and '/s' as 1 byte/s (parse_bytes("") is 1): the
    twin ran at 1 B/s (it did not end). Blank is free only where demo says so ('' or ' '
    given whole, not '/s'). (The run itself is replaced: were the value accepted, the test
    fails at once instead of simulating at 1 B/s.)"""
    import tidegate.cli
    from tidegate.config import rate

    monkeypatch.setattr(tidegate.cli, "simulate", lambda args: pytest.fail(f"ran {args}"))
    monkeypatch.setattr(tidegate.cli, "demo", lambda args: pytest.fail(f"ran {args}"))
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "argument --bandwidth" in capsys.readouterr().err
    with pytest.raises(ValueError, match="is not a rate"):
        rate(argv[-1])


@pytest.mark.parametrize("text, network", [("200MB/s ", 200e6), (" 1GB ", 1e9), (" ", None),
                                           ("", None)])  # fmt: skip
def test_demo_runs_its_cluster_at_the_bandwidth_the_command_line_accepted(
        text, network, tmp_path, monkeypatch, capsys):  # fmt: skip
    """review22: demo parsed --bandwidth on its own (no strip): '200MB/s ' passed the check
    and then raised ValueError; ' ' (blank: free) ran the cluster at 1 byte/s. And the
    shared check (config.rate) read '', ' ' and '/s' as 1 byte/s for simulate."""
    import tidegate.demo
    import tidegate.workloads

    class Stop(Exception):
        pass

    seen = []

    def run_cluster(build, mode, workers, threads, bandwidth):
        seen.append(bandwidth)
        raise Stop

    monkeypatch.setattr(tidegate.demo, "run_cluster", run_cluster)
    monkeypatch.setattr(tidegate.workloads, "make_inputs", lambda folder, steps: {})
    with pytest.raises(Stop):
        main(["demo", "--bandwidth", text, "--tmpdir", str(tmp_path), "--report", ""])
    assert seen == [network]
    said = capsys.readouterr().out
    assert f"network {'unlimited' if network is None else text.strip()} per worker" in said


def test_the_table_shows_whole_bytes(capsys):
    """The mean peak per worker is a mean: format_bytes printed '67.33333333333333 B'
    below a kiB (review23)."""
    assert main(["simulate", "--steps", "5", "--chunk", "1B", "--workers", "3",
                 "--policy", "queue"]) == 0
    printed = capsys.readouterr().out
    assert "333333" not in printed and " B " in printed, printed
