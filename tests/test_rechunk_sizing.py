"""An all-to-all rechunk's merges hold their pieces and their output at once (issue 10):
sized from chunk metadata and the splits' slices, a limit below that is refused before
running, naming one that holds."""

import textwrap

import dask.array as da
import numpy as np
from dask.callbacks import Callback

from tidegate import bridge

from conftest import run_fresh
from test_rss_floor import smallest_named

# topk's rechunk (bench/probes.py) at half its size: 20 chunks of 9.6 MB (100000 x 12)
# into rows of 10000, through dask's two-stage plan (intermediates of 100000 x 80, 64 MB,
# each 6 whole chunks and two slices, one 8 of 12 columns: a view holding its chunk).
# Fresh process: RSS sampled every 2 ms above its level at the start.
RUNNER = textwrap.dedent(
    """
    import json, sys
    import dask, dask.array as da, tidegate
    from tidegate.measure import RSSSampler
    dask.config.set({"array.chunk-size": "64MiB"})
    x = da.random.default_rng(0).random((240, 200, 500), chunks=(12, 200, 500))
    y = da.topk(x.reshape(240, -1).T.rechunk((10000, 240)), 3, axis=1).sum(0)
    out = {}
    with RSSSampler(0.002) as rss:
        try:
            y.compute(scheduler="tidegate", num_workers=2, memory_limit=float(sys.argv[1]))
        except ValueError as exc:
            out["refused"] = str(exc)
    out["peak"] = rss.peak_above_baseline
    print(json.dumps(out))
    """
)


def test_a_merge_of_chunks_and_slices_is_refused_below_what_it_holds(tmp_path):
    """The first-stage merge holds 6 chunks, a copied slice, the chunk a view slices and its
    64 MB output: 131 MB. Sized by its output alone, 100 MB ran at 1.31x (the full-size
    probe at 40% of threaded's peak: 1.29x); the limit named holds."""
    r = run_fresh(RUNNER, 100e6, spill_dir=tmp_path)
    assert "cannot run task ('rechunk-merge" in r.get("refused", ""), r
    smallest = smallest_named(r["refused"])
    assert 131.2e6 / 0.92 <= smallest <= 150e6, smallest
    r = run_fresh(RUNNER, smallest, spill_dir=tmp_path)
    assert "refused" not in r, r
    assert r["peak"] <= 1.1 * smallest, r


def test_split_pieces_are_the_bytes_and_views_dasks_getitem_returns(monkeypatch):
    """Each split's slice read from its task: its bytes, and a view where dask's getitem
    returns one (a slice over half its chunk), checked against the arrays the run returns."""
    seen, read = {}, bridge._split_pieces

    def spy(graph, tasks, sizes):
        seen["graph"], seen["pieces"] = graph, read(graph, tasks, sizes)
        return seen["pieces"]

    monkeypatch.setattr(bridge, "_split_pieces", spy)
    results = {}

    class Keep(Callback):
        def _posttask(self, key, result, dsk, state, worker_id):
            results[key] = result

    y = da.random.default_rng(0).random((60, 24), chunks=(12, 24)).rechunk((16, 24)).sum(0)
    with Keep():
        y.compute(scheduler="tidegate", memory_limit="1GB")
    graph, pieces = seen["graph"], seen["pieces"]
    splits = [i for i, k in enumerate(graph.keys) if k[0].startswith("rechunk-split-")]
    assert splits and not np.isnan(pieces[splits]).any()
    for i in splits:
        piece = results[graph.keys[i]]
        chunk = results[graph.keys[graph.dep_idx[graph.dep_ptr[i]]]]
        assert pieces[i, 0] == piece.nbytes
        assert pieces[i, 1] == np.shares_memory(piece, chunk)
    assert set(pieces[splits, 1]) == {0.0, 1.0}  # 4 rows of 12 copied, 8 viewed
    others = np.setdiff1d(np.arange(len(graph.keys)), splits)
    assert np.isnan(pieces[others]).all()


def test_a_rechunk_of_chunks_of_unknown_length_leaves_its_pieces_unsized():
    """Rows of unknown length (a boolean mask) have no slice to size: the splits stay
    unsized and the compute runs (sizing them raised a TypeError on the NaN extent)."""
    x = da.random.default_rng(0).random((100, 10), chunks=(25, 5))
    y = (x[x[:, 0] > 0.5] + 1).rechunk({1: (3, 4, 3)})  # merges slices of chunks of nan rows
    want = float(y.sum().compute(scheduler="sync"))
    assert float(y.sum().compute(scheduler="tidegate", memory_limit="1GB")) == want
