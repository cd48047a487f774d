"""The floor of memory_limit (issue 10): a limit below what one task holds at once is refused
before anything runs, naming the smallest limit that would work, and that limit holds."""

import textwrap

import dask
import dask.array as da
import dask.utils
import numpy as np
import pytest
import zarr
from dask._task_spec import convert_legacy_graph

from tidegate.bridge import store_cut_bytes

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
    folder, limit, name = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    y = build(name, make_inputs(folder, 8), folder)  # two chunks of 32 MB per input
    out = {}
    with RSSSampler(0.002) as rss:
        try:
            y.compute(scheduler="tidegate", num_workers=2, memory_limit=limit)
        except ValueError as exc:
            out["refused"] = str(exc)
    out["peak"] = rss.peak_above_baseline
    store = os.path.join(folder, name + ".zarr")
    out["written"] = sorted(f for f in os.listdir(store) if not f.startswith(("zarr", ".z")))
    print(json.dumps(out))
    """
)


def run(folder, limit, name="vorticity-files"):
    return run_fresh(RUNNER, folder, limit, name, spill_dir=folder)


def smallest_named(refusal: str) -> float:
    smallest = refusal.split("smallest memory_limit that would work is ")[1]
    return dask.utils.parse_bytes(smallest.split(";")[0])


def test_a_step_fed_by_file_reads_is_refused_below_what_it_holds(tmp_path):
    """The reads have no chunk metadata: sizing only roots by it refused nothing, and a
    128 MB limit ran each step at 1.7x. The step's own chunk (32 MB, from the store it
    feeds) sizes the reads it takes; the limit named then holds."""
    r = run(tmp_path / "small", 128e6)
    assert "cannot run task" in r.get("refused", ""), r
    assert r["written"] == [] and r["peak"] < 64e6, r  # refused before reading anything
    smallest = smallest_named(r["refused"])
    # two reads, three fields, a chunk and a temporary: 224 MB
    assert 160e6 <= smallest <= 260e6, smallest
    r = run(tmp_path / "named", smallest)
    assert "refused" not in r and r["written"], r
    assert r["peak"] <= 1.1 * smallest, r


@pytest.mark.parametrize(
    "name, limit, lowest, highest",
    [
        # a[1:] + b[1:] has chunks of 3, 4, ... steps; stored into zarr chunks of 4, each
        # write cuts a target chunk, which zarr reads back and merges whole, beside the
        # store's inputs, its chunk and the chunks it encodes. Sizing roots alone named
        # 133 MiB, where a store held 248 MB (1.8x); 174 MB ran at 1.4x.
        ("slice-add", 174e6, 200e6, 300e6),  # 2 x 32 MB in, 32 out, 5 x 32 written or cut
        # stack-sum's aggregate concatenates its two 32 MB partial sums and sums them: 160 MB;
        # 133 MiB (a root's 4 x 32 MB) ran at 1.16x.
        ("stack-sum", 139e6, 150e6, 200e6),
    ],
)
def test_a_task_holding_more_than_its_chunk_is_refused_below_it(tmp_path, name, limit, lowest,
                                                                highest):  # fmt: skip
    r = run(tmp_path / "small", limit, name)
    assert "cannot run task" in r.get("refused", ""), r
    assert r["written"] == [], r
    smallest = smallest_named(r["refused"])
    assert lowest <= smallest <= highest, smallest
    r = run(tmp_path / "named", smallest, name)
    assert "refused" not in r and r["written"], r
    assert r["peak"] <= 1.1 * smallest, r


def store_tasks(x, target, **kw):
    """The converted tasks of ``da.store(x, target)`` that write."""
    graph = convert_legacy_graph(dict(da.store(x, target, compute=False, **kw).__dask_graph__()))
    return [n for n in graph.values() if store_cut_bytes(n) or "store" in str(n.key)]


@pytest.mark.parametrize(
    "chunks, cut",
    [
        ((4, 4), [0, 0]),  # aligned: zarr writes whole chunks, reads nothing back
        ((3, 5), [1 + 1.5, 2 + 1.5]),  # [0:3] cuts chunk 0; [3:8] cuts 0 and covers 1
        ((2, 2, 2, 2), [1 + 1.5, 1 + 1.5, 1 + 1.5, 1 + 1.5]),
        ((3, 4), [1 + 1.5, 2 + 3]),  # shape 7: the edge chunk [4:8) is cut by [3:7]
    ],
)
def test_store_cut_bytes_counts_target_chunks_written_and_read_back(tmp_path, chunks, cut):
    """Bytes a store chunk holds for its target: each target chunk it touches (encoded) and
    1.5 times more each it covers only in part (read back, merged into a copy), in zarr chunks
    of 4 x 10 x 8 bytes."""
    n = sum(chunks)
    z = zarr.create_array(tmp_path / "z.zarr", shape=(n, 10), chunks=(4, 10), dtype="f8")
    x = da.ones((n, 10), chunks=(chunks, 10))
    got = sorted(store_cut_bytes(n) for n in store_tasks(x, z, lock=True))
    assert got == sorted(c * 4 * 10 * 8 for c in cut)
