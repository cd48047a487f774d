"""`tidegate demo`, the README's main command, end to end at a small size: a real
LocalCluster under three policies, two one-process runs, the twin, a report."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("distributed")
pytest.importorskip("bokeh")


def test_demo_runs_every_part_and_cleans_up(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    report = tmp_path / "demo.html"
    proc = subprocess.run(
        [sys.executable, "-m", "tidegate.cli", "demo", "--steps", "8", "--threads", "1",
         "--twin-steps", "40", "--twin-workers", "4", "--report", str(report),
         "--tmpdir", str(data)],
        capture_output=True, text=True, timeout=600, env={**os.environ, "COLUMNS": "160"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    rows = [line for line in out.splitlines() if line.startswith("│")]
    where = [r.split("│")[1].strip() for r in rows]
    assert where == ["cluster"] * 3 + ["one process"] * 2 + ["twin"] * 3, out
    for name in ("dask eager", "dask queuing", "tidegate plugin", "dask threaded"):
        assert name in out
    # both reports written and self-contained (bokeh inlined: no CDN)
    for path in (report, tmp_path / "demo-twin.html"):
        html = path.read_text()
        assert "Bokeh" in html and "cdn.bokeh.org" not in html
    assert "temporary input removed: True" in out
    assert os.listdir(data) == []  # the zarr input is gone


def test_the_twin_runs_the_workload_asked_for():
    """`tidegate demo --workload anomaly` ran the twin's vorticity under a table titled
    "anomaly" (review23): the twin rows were the same for every workload. Each workload of
    the demo has its twin; the per-file vorticity's is the twin's vorticity."""
    from tidegate.demo import twin_runs
    from tidegate.workloads import NAMES

    groups = {}
    for name in ("anomaly", "vorticity-files"):
        results = twin_runs(name, steps=8, workers=2)
        assert [r.policy for r in results] == ["eager", "queue", "tidegate"]
        groups[name] = {t.group for t in results[0].trace.tasks}
    assert "mean_chunk" in groups["anomaly"] and "open-v" not in groups["anomaly"]
    assert "open-v" in groups["vorticity-files"] and "mean_chunk" not in groups["vorticity-files"]
    from tidegate.demo import TWIN_WORKLOAD
    from tidegate.sim.workloads import WORKLOADS

    assert all(TWIN_WORKLOAD.get(n, n) in WORKLOADS for n in NAMES)
