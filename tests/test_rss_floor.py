"""The floor of memory_limit (issue 10): a limit below what one task holds at once is refused
before anything runs, naming the smallest limit that would work, and that limit holds."""

import textwrap

import dask.utils

from conftest import run_fresh

# vorticity-files: per time step two file reads (delayed, no chunk metadata) and three
# shared grid fields feed one step; the step holds them all, its output and temporaries
# (218 MB measured). Fresh process: RSS sampled every 2 ms above its level at the start.
RUNNER = textwrap.dedent(
    """
    import json, os, sys
    import dask, tidegate
    from tidegate.measure import RSSSampler
    from tidegate.workloads import build, make_inputs
    folder, limit = sys.argv[1], float(sys.argv[2])
    y = build("vorticity-files", make_inputs(folder, 8), folder)  # two steps of 32 MB
    out = {}
    with RSSSampler(0.002) as rss:
        try:
            y.compute(scheduler="tidegate", num_workers=2, memory_limit=limit)
        except ValueError as exc:
            out["refused"] = str(exc)
    out["peak"] = rss.peak_above_baseline
    store = os.path.join(folder, "vorticity-files.zarr")
    out["written"] = sorted(f for f in os.listdir(store) if not f.startswith(("zarr", ".z")))
    print(json.dumps(out))
    """
)


def run(folder, limit):
    return run_fresh(RUNNER, folder, limit, spill_dir=folder)


def test_a_step_fed_by_file_reads_is_refused_below_what_it_holds(tmp_path):
    """The reads have no chunk metadata: sizing only roots by it refused nothing, and a
    128 MB limit ran each step at 1.7x. The step's own chunk (32 MB, from the store it
    feeds) sizes the reads it takes; the limit named then holds."""
    r = run(tmp_path / "small", 128e6)
    assert "cannot run task" in r.get("refused", ""), r
    assert r["written"] == [] and r["peak"] < 64e6, r  # refused before reading anything
    smallest = r["refused"].split("smallest memory_limit that would work is ")[1]
    smallest = dask.utils.parse_bytes(smallest.split(";")[0])
    assert 160e6 <= smallest <= 260e6, smallest  # two reads, three fields, a chunk and a temporary: 224 MB
    r = run(tmp_path / "named", smallest)
    assert "refused" not in r and r["written"], r
    assert r["peak"] <= 1.1 * smallest, r
