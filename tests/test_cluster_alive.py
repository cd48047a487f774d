"""Loaded outputs alive per worker on a real LocalCluster, one graph per failure class of
issue 9 that had no such test yet: shifted slices, a stencil, a rechunk (merges of pieces of
two loads), broadcast weights, an anomaly (every load used twice, around a mean).

(Unique-key loaders: test_distributed.test_unique_key_loaders_withheld; open -> read ->
select: test_distributed.test_roots_count_until_their_chain_end_is_used; vorticity:
test_placement.test_cluster_reads_meet_their_partner_and_are_not_moved.)

Each graph loads its blocks with unique-key tasks (files opened one by one: dask sees no
root group, dask/distributed#8133), so dask's queuing sends every load to the workers at
once; consumers are slower than loads. Each test runs the graph under dask's queuing and
under the plugin on one cluster, measures loads' worth of managed bytes on the busiest
worker, and asserts a bound on tidegate's that dask's queuing breaks (shifted slices,
weights), or that holds and stays at or below queuing's where dask.order's priorities on
the workers already limit queuing (stencil, rechunk), or, for the anomaly (every policy
holds every load until the mean), that tidegate holds no more per worker than queuing.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import pytest
from dask import delayed

distributed = pytest.importorskip("distributed")

import tidegate.distributed as td  # noqa: E402
from conftest import local_client  # noqa: E402
from test_distributed import CountLive, _unique_names  # noqa: E402

pytestmark = pytest.mark.timeout(120)

THREADS = 2
SATURATION = 1.1
STEPS = 64
SIZE = 100_000  # 800 kB per load


@pytest.fixture(scope="module")
def client():
    with local_client(n_workers=2, threads_per_worker=THREADS) as client:
        yield client


def _alive(client, build, plugin):
    """Peak loads alive on the busiest worker with ``build()`` run to completion under dask's
    queuing (``plugin=False``) or tidegate's plugin; the result checked against dask's."""
    if plugin:
        client.register_plugin(td.Plugin(saturation=SATURATION))
    try:
        count = _peaks(client, build)
        if plugin:
            errors = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler._tidegate.errors)
            assert errors == []
    finally:
        if plugin:
            td.uninstall(client)
    return count


def _peaks(client, build):
    """Loads' worth of managed bytes on the busiest worker at its peak (the loads, and the
    pieces and merges a rechunk cut from them)."""
    client.register_plugin(CountLive("load-"), name="count-live")
    try:
        assert build().compute() == pytest.approx(build().compute(scheduler="sync"))
        nbytes = client.run(lambda dask_worker: dask_worker.plugins["count-live"].nbytes)
    finally:
        client.unregister_worker_plugin("count-live")
    return max(nbytes.values()) / (SIZE * 8)


def _compare(client, build):
    queue, tidegate = _alive(client, build, False), _alive(client, build, True)
    print(f"{build.__name__}: loads alive per worker {tidegate:.1f} tidegate, {queue:.1f} queue")
    return queue, tidegate


# -- the graphs: unique-key loads, consumers 10 ms each ---------------------------------
def load(name, size=SIZE):
    return np.full(size, float(len(name)))


def _loads(array, steps=STEPS):
    """One load per step of ``array``, each key its own task group (dask's key_split keeps
    the whole name), as files opened one by one."""
    names = [n.replace("load-", f"load-{array}-") for n in _unique_names(steps, seed=array)]
    return [delayed(load)(name, dask_key_name=name) for name in names]


def slow(f):
    def consumer(*xs):
        time.sleep(0.03)
        return float(f(*xs))

    consumer.__name__ = f.__name__
    return consumer


@slow
def shifted(a0, a1, b0, b1):  # a[1:] - b[:-1] on blocks: each output reads two of each
    return (np.concatenate([a0[1:], a1[:1]]) - np.concatenate([b0, b1[:0]])).sum()


@slow
def laplace(left, mid, right):  # a three-point stencil with one-cell halos
    return (left[-1] + right[0] - 2 * mid).sum()


def piece(x, lo, hi):
    return x[lo:hi].copy()  # a rechunk's split: one input, one piece


def merge(*pieces):
    return np.concatenate(pieces)  # a rechunk's merge: pieces of two loads


@slow
def add(x, y):
    return (x + y).sum()


@slow
def weigh(x, y, w1, w2):
    return (w1 * x + w2 * y).sum()


def partial(x):
    return x.sum()


def mean(*sums):
    return sum(sums) / (len(sums) * SIZE)


@slow
def departure(x, m):
    return (x - m).std()


def tree(xs):
    """Sum adjacent results pairwise, as dask's array reductions do: dask.order then walks
    the steps in neighbourhoods (over one flat sum it jumps across the whole series, and a
    stencil's loads wait long for their neighbours under any policy that follows it)."""
    while len(xs) > 1:
        xs = [delayed(sum)(xs[i:i + 2]) for i in range(0, len(xs), 2)]
    return xs[0]


def shifted_slices():
    a, b = _loads("a"), _loads("b")
    return tree([delayed(shifted)(a[t], a[t + 1], b[t], b[t + 1])
                         for t in range(STEPS - 1)])  # fmt: skip


def stencil():
    x = _loads("s")
    return tree([delayed(laplace)(x[t - 1], x[t], x[t + 1]) for t in range(1, STEPS - 1)])


def rechunk():
    """Both arrays rechunked by half a block, then added: each merge joins the second half
    of one load and the first half of the next (seed rechunk-add's shape)."""
    half = SIZE // 2

    def shifted_by_half(loads):
        return [delayed(merge)(delayed(piece)(loads[t], half, SIZE),
                               delayed(piece)(loads[t + 1], 0, half))
                for t in range(len(loads) - 1)]  # fmt: skip

    a, b = shifted_by_half(_loads("r")), shifted_by_half(_loads("q"))
    return tree([delayed(add)(x, y) for x, y in zip(a, b)])


def weighted():
    """Two weights read by every step (broadcast), each step's two loads weighed by them."""
    w1, w2 = (delayed(load)(f"w{k}", dask_key_name=f"weight-{k}") for k in (1, 2))
    a, b = _loads("u"), _loads("v")
    return tree([delayed(weigh)(x, y, w1, w2) for x, y in zip(a, b)])


def anomaly():
    """Departures from the time mean: each load is used by its partial sum and, after the
    mean, by its departure; without recomputation every policy holds every load."""
    x = _loads("m")
    m = delayed(mean)(*[delayed(partial)(t) for t in x])
    return tree([delayed(departure)(t, m) for t in x])


# -- the tests --------------------------------------------------------------------------
# Loads' worth held per worker, of STEPS (two arrays: 2 x STEPS) loads in all. A consumer
# waits for its neighbours' loads, so admitted roots (the cap, passed by one completing a
# meeting) hold more than the cap: seen with tidegate (2 workers x 2 threads, 64 steps,
# load 17) shifted slices 11-14, stencil 9-14, rechunk 15.5-17.5 (20 at 96 steps),
# weights 8-9; dask's queuing 30-68, 17-40, 20-38, 35-71.
BOUND = 22


@pytest.mark.parametrize("build", [shifted_slices, weighted], ids=lambda f: f.__name__)
def test_loads_alive_per_worker_stay_bounded_where_dask_starts_them_all(client, build):
    queue, tidegate = _compare(client, build)
    assert tidegate <= BOUND
    assert queue > BOUND + 4  # dask's queuing overproduces here: the test can tell


@pytest.mark.parametrize("build", [stencil, rechunk], ids=lambda f: f.__name__)
def test_loads_alive_per_worker_stay_bounded_where_dask_order_limits_them(client, build):
    """dask's workers run ready tasks in dask.order's priority, which here walks the steps
    in neighbourhoods, so consumers run between loads and queuing holds less than every
    load (and varies more); tidegate stays within the bound and below it."""
    queue, tidegate = _compare(client, build)
    # rechunk: 15.5-19.5 in 7 runs here (session 20, on this code and d93480b alike), 23
    # once in CI: the bound that tells bounded from dask's 20-38 is queue's own, below.
    assert tidegate <= BOUND + 3
    assert tidegate <= queue + 1


@pytest.mark.timeout(400)  # three runs of each: 200 s at load 27
def test_anomaly_holds_no_more_loads_per_worker_than_dask(client):
    """Every load stays until the mean; what a policy chooses is where. Roots joined their
    partial-mean partners on one worker past its threads while another idled (session 6's
    1.08-1.20x peak at 2 and 4 workers): one worker then holds most loads.

    Where the loads go also follows which worker frees a slot first, so a worker starved
    of CPU by a loaded machine takes fewer under any policy: at load 16-26 (session 25)
    queuing's busiest held 32-50 of 64 in 9 single runs and tidegate's 32-33; one run at
    load 15+ (session 25) saw tidegate 39 against a bound of 34. The pile-up this guards
    against shows in every run, a starved worker in one: each policy runs three times,
    interleaved, and the medians compare."""
    runs = [_compare(client, anomaly) for _ in range(3)]
    queue = statistics.median(q for q, _ in runs)
    tidegate = statistics.median(t for _, t in runs)
    # Each holds every load until the mean, so the busiest worker holds at least half: in 9
    # runs here (session 21) tidegate 32-35, queue 32-35, and 35 vs 33 once in CI. Two
    # spreads of 3 each: the comparison allows one spread; the share bound is the guard.
    assert tidegate <= queue + 3, runs
    assert tidegate <= STEPS // 2 + 4, runs  # no worker holds much more than its share
