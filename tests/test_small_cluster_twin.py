"""bench/distributed.py's small clusters in the twin (issue 9: tidegate's wall within 1.05x
queuing's). Two misses the twin found there (bench/results/wall24-findings.txt):

- readers of two shared grids (consumers, placed by dask's non-rootish path) all went to
  the one worker free for roots and stayed there (hooks._decide_worker_non_rootish);
- a copy of one shared grid queued behind the other's into the same worker: a worker
  receiving a copy of another shared input is now the last choice for a new copy
  (broadcast.py).
"""

from __future__ import annotations

from tidegate.distributed.install import _starts_by_walk
from tidegate.sim import simulate

NET = dict(bandwidth=200e6, outgoing_bandwidth=float("inf"), latency=0.001)

# Bounds below were measured where update_graph starts a graph's roots in the order its walk
# from the requested keys reaches them, with dask.order's priorities since 2025.5.0
# (install._starts_by_walk). Before (distributed 2025.4, CI's lowest), every task went to
# "waiting" in priority order: one schedule, other runs for both policies; four tests there
# hold issue 9's targets (time within 1.05x queuing's, peak at or below) and the gains their
# rules make on that release, not the margins measured on later ones.
BY_WALK = _starts_by_walk()


# seed weighted's graph as bench/distributed.py's zarr inputs make it (two 8 MB grids, each
# loaded on its own, two tiny store handles, 12 stores reading all four), with the durations
# its tasks take on a LocalCluster (bench/results/wall24-measured.json)
USE = [0.1178, 0.1267, 0.1200, 0.1139, 0.1651, 0.1171, 0.1248, 0.0991, 0.1036, 0.1217, 0.1199,
       0.1163]
GRIDS = {"load-a": 6.8e-5, "load-b": 8.7e-5, "grid-a": 1.6e-5, "grid-b": 1.7e-5, "total": 1.6e-4}


def _two_grids():
    dsk = {"open-x": (str, "x"), "open-y": (str, "y"), "load-a": (str, "a"),
           "load-b": (str, "b"), "grid-a": (str, "load-a"), "grid-b": (str, "load-b")}
    for i in range(len(USE)):
        dsk[f"use-{i}"] = (max, "grid-a", "open-x", "grid-b", "open-y")
    dsk["total"] = (max, [f"use-{i}" for i in range(len(USE))])
    durations = {**GRIDS, **{f"use-{i}": d for i, d in enumerate(USE)}}
    sizes = {"grid-a": 8_000_000, "grid-b": 8_000_000, "load-a": 8_000_000,
             "load-b": 8_000_000, "open-x": 56, "open-y": 56}
    return dsk, durations, sizes


def test_readers_of_shared_grids_do_not_pile_onto_one_worker():
    """The readers are consumers (8 MB inputs), placed through dask's non-rootish path
    (hooks._decide_worker_non_rootish), each on the least loaded worker free for roots. The
    other worker, its count filled by the grid and handle it made, was never free: all ten
    queued readers went to one worker at a copy's landing and stealing left them there
    (their inputs all there). Now a reader finding that worker with twice its threads' work
    stays queued, as queuing keeps its rootish tasks."""
    dsk, durations, sizes = _two_grids()
    for seed in range(3):
        q, t = simulate(dsk, keys=["total"], workers=2, threads_per_worker=1,
                        policy=["queue", "tidegate"], durations=lambda k: durations.get(k, 0.0),
                        sizes=lambda k: sizes.get(k, 16), thread_lag=0.002, seed=seed,
                        processes=1, record_memory=False, **NET)  # fmt: skip
        per_worker = {}
        for s in t.trace.tasks:
            if s.key.startswith("use-"):
                per_worker[s.worker] = per_worker.get(s.worker, 0) + 1
        # before: 10 and 2 at seeds 1 and 2 (1.54x queuing's makespan), 1.19x at seed 0
        assert len(per_worker) == 2 and min(per_worker.values()) >= 5, (seed, per_worker)
        assert t.makespan <= 1.05 * q.makespan, (seed, t.makespan, q.makespan)
        assert t.bytes_transferred <= q.bytes_transferred + 1000  # (a handle's 56 bytes)


def test_a_grid_copy_does_not_queue_behind_another_into_one_worker():
    """The twin's seed weighted (two 190 MB grids read by every step): a new copy of one grid
    goes first to a worker not receiving the other (a worker's copies take turns on its
    link). Before, one copy per run waited behind the other grid's into the same worker
    (8 x 4, 100 steps: 24.72 s, now 23.77). Judged over five namings of the keys
    (_namings): tidegate's 23.77 s is the same in each, queuing's moves 22.4-24.4 s with the
    names (one naming in ten read 1.062x queuing's, past the 1.01 once judged on one), so
    the time is judged on the sum (now 1.007x; the code before 1.047x, a copy behind in
    every naming)."""
    from _namings import NAMINGS, renamed

    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import build

    w = build("weighted", 100, 190e6, store=False)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations)
    spans = {"queue": 0.0, "tidegate": 0.0}
    for salt in NAMINGS:
        q, t = simulate(renamed(model, salt), workers=8, threads_per_worker=4,
                        policy=["queue", "tidegate"], bandwidth="200MB/s", processes=1,
                        record_memory=False)  # fmt: skip
        copies: dict = {}
        for x in t.trace.transfers:
            if x.nbytes > 10**7:
                copies.setdefault(x.dest, []).append(x)
        assert sum(map(len, copies.values())) >= 14, salt  # both grids to every worker lacking one
        behind = [(a.key, b.key, dest) for dest, xs in copies.items()
                  for a, b in zip(sorted(xs, key=lambda x: x.start),
                                  sorted(xs, key=lambda x: x.start)[1:])
                  if a.key != b.key and b.start <= a.stop + 1e-9]  # fmt: skip
        assert not behind, (salt, behind)
        assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker), salt
        spans["queue"] += q.makespan
        spans["tidegate"] += t.makespan
    # (distributed 2025.4: 1.034x, issue 9's target there: BY_WALK)
    assert spans["tidegate"] <= (1.03 if BY_WALK else 1.05) * spans["queue"], spans


def _stores_of_two_grids(n: str = ""):
    """seed weighted as the plugin sees it: the 12 uses are da.store's per-chunk stores,
    which dask marks as data producers (roots, whatever their inputs), returning None into
    one final task; the two store handles are constants (DataNodes). ``n`` appended to
    every name (a naming: the twin's order of the four roots follows the names)."""
    from dask._task_spec import DataNode, Task, TaskRef

    x, y, la, lb, ga, gb = (f"{k}{n}" for k in ("open-x", "open-y", "load-a", "load-b",
                                                "grid-a", "grid-b"))
    dsk = {x: DataNode(x, "x"), y: DataNode(y, "y"), la: Task(la, str, "a"),
           lb: Task(lb, str, "b"), ga: Task(ga, str, TaskRef(la)),
           gb: Task(gb, str, TaskRef(lb))}
    for i in range(len(USE)):
        dsk[f"store-{i}{n}"] = Task(f"store-{i}{n}", max, TaskRef(ga), TaskRef(x), TaskRef(gb),
                                    TaskRef(y), _data_producer=True)
    total = f"total{n}"
    dsk[total] = Task(total, max, *(TaskRef(f"store-{i}{n}") for i in range(len(USE))))
    durations = {**{f"{k}{n}": d for k, d in GRIDS.items()},
                 **{f"store-{i}{n}": d for i, d in enumerate(USE)}}
    sizes = {ga: 8_000_000, gb: 8_000_000, la: 8_000_000, lb: 8_000_000, x: 56, y: 56}
    return dsk, durations, sizes


def test_stores_meeting_only_in_the_final_task_do_not_wait_for_each_others_worker():
    """seed weighted's 12 stores at 2 x 2: their data meets only in the graph's final task,
    so each store's partners were the stores placed so far; once the first went to one
    worker every other waited for that worker while the other ran one store on one of its
    two threads (1.05-1.13x queuing's makespan at seeds 0-3). Now such partners rank the
    workers but make no root wait (policy.gathers_only), and the stores bind to workers as
    threads free (0.95-1.02x)."""
    dsk, durations, sizes = _stores_of_two_grids()
    for seed in (1, 2, 3):
        q, t = simulate(dsk, keys=["total"], workers=2, threads_per_worker=2,
                        policy=["queue", "tidegate"], durations=lambda k: durations.get(k, 0.0),
                        sizes=lambda k: sizes.get(k, 16), thread_lag=0.002, seed=seed,
                        processes=1, record_memory=False, **NET)  # fmt: skip
        per_worker: dict = {}
        for s in t.trace.tasks:
            if s.key.startswith("store-"):
                per_worker[s.worker] = per_worker.get(s.worker, 0) + 1
        # before: 1.058, 1.051, 1.051x queuing's makespan; 7 and 5 stores at seed 1
        assert t.makespan <= 1.0 * q.makespan, (seed, t.makespan, q.makespan)
        assert sorted(per_worker.values()) == [6, 6], (seed, per_worker)
        assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker) + 1000, seed
        assert t.bytes_transferred <= q.bytes_transferred + 1000  # (a handle's 56 bytes)


def _open_read_select(n=80):
    """bench/distributed.py's open -> read -> select (its key names: 80 unique-key opens,
    16 MB reads, 8 MB selects, combined in pairs by a 53 ms task), with the durations
    measured on a LocalCluster (bench/results/wall24-measured.json)."""
    import random

    words = "amber birch cedar dune ember fjord grove heath inlet juniper kelp larch moss".split()
    rng = random.Random(1)
    names: set = set()
    while len(names) < n:
        names.add("-".join(rng.sample(words, 4)))
    dsk: dict = {}
    ends = []
    for i, k in enumerate(sorted(names)):
        dsk["open-" + k] = (str, i)
        dsk["read-" + k] = (str, "open-" + k)
        dsk["select-" + k] = (str, "read-" + k)
        ends.append("select-" + k)
    for i in range(n // 2):
        dsk[f"combine-{i}"] = (max, ends[2 * i], ends[2 * i + 1])
    dsk["sum"] = (max, [f"combine-{i}" for i in range(n // 2)])
    took = {"open": 2e-5, "read": 2.16e-3, "select": 2.52e-3, "combine": 0.0529, "sum": 1e-4}
    size = {"open": 64, "read": 16_780_000, "select": 8_390_000, "combine": 24, "sum": 24}
    return (dsk, lambda k: took[k.split("-")[0]], lambda k: size[k.split("-")[0]])


def test_a_late_roots_reserved_partner_does_not_wait_behind_the_blocked_head():
    """dask offers a new graph's roots in an order its sets decide: a root of the last
    pairs opened a meeting on a 2-thread worker first, its partner was reserved there and
    waited behind the blocked queue head until the queue reached it in priority order; the
    opener's data and the reservation held two of the worker's three slots, so one thread
    idled through every 53 ms combine (seeds 0-2: 1.25-1.45x queuing's makespan at 10 ms
    overrun; now 0.97-0.99). Now such a partner (its opener offered by dask, its worker with an idle
    thread, the head waiting for a slot nowhere free) is asked out of line."""
    dsk, durations, sizes = _open_read_select()
    for seed in range(3):
        q, t = simulate(dsk, keys=["sum"], workers=2, threads_per_worker=2,
                        policy=["queue", "tidegate"], durations=durations, sizes=sizes,
                        thread_lag=0.01, seed=seed, processes=1, record_memory=False,
                        **NET)  # fmt: skip
        assert t.makespan <= 1.0 * q.makespan, (seed, t.makespan, q.makespan)
        assert max(t.peak_memory_per_worker) <= 0.6 * max(q.peak_memory_per_worker), seed
        assert t.bytes_transferred <= q.bytes_transferred


def test_stack_sum_2x2_pairs_opened_out_of_order_do_not_idle_a_thread():
    """bench/distributed.py's stack-sum ((stack([a, b]).sum(0) ** 2).mean(0), 6 x 6 blocks
    of 8 MB, optimised as Client.compute sends it) on 2 x 2 with its measured durations:
    the same late-opened pairs (dask's first offers), their partners reserved behind the
    blocked head (seeds 0-2: 1.09-1.17x queuing's makespan at 10 ms overrun; now
    0.89-0.90x)."""
    import dask.array as da
    from dask.utils import key_split

    from tidegate.sim.model import build_model

    rng = da.random.RandomState(0)
    a = rng.random((6000, 6000), chunks=1000)
    b = rng.random((6000, 6000), chunks=1000)
    x = (da.stack([a, b]).sum(0) ** 2).mean(axis=0)
    took = {"random_sample-stack-sum": 5.69e-3, "sum-aggregate": 5.57e-3}
    size = {"random_sample-stack-sum": 8e6, "sum": 8e6}
    model = build_model(x, finalize=True, durations=lambda k: took.get(key_split(k), 5e-5),
                        sizes=lambda k: size.get(key_split(k), 8000))  # fmt: skip
    for seed in range(3):
        q, t = simulate(model, workers=2, threads_per_worker=2, policy=["queue", "tidegate"],
                        thread_lag=0.01, seed=seed, processes=1, record_memory=False,
                        **NET)  # fmt: skip
        assert t.makespan <= 0.95 * q.makespan, (seed, t.makespan, q.makespan)
        assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker), seed
        assert t.bytes_transferred <= 0.01 * q.bytes_transferred  # (8 kB partials)


def _unique_loaders_on_4(g, threads, seed):
    """queue's and tidegate's twin runs of fidelity.unique_loaders ``g`` on 4 workers."""
    return simulate(g.dsk, keys=g.keys, sizes=g.sizes, durations=g.durations, workers=4,
                    threads_per_worker=threads, policy=["queue", "tidegate"], seed=seed,
                    processes=1, record_memory=False)  # fmt: skip


def test_a_tree_reductions_next_group_does_not_queue_behind_busy_threads():
    """Unique-key loaders reduced pairwise (sim fingerprints' f-unique) at 4 x 2: the first
    root of a group's second pair, placed by its further meeting (hooks._decide's hint), passed
    the in-flight count on the first pair's worker although both its threads were busy, and
    waited there behind its loads while other workers had a thread free and nothing to take
    (loads per worker 7/7/5/5; 1.12-1.20x queuing's makespan over 5 namings x 3 seeds). Now
    it passes there only while some thread there is not loading (policy.passes_for_group)."""
    from tidegate.sim.fidelity import unique_loaders

    g = unique_loaders(steps=24)
    for seed in range(2):
        q, t = _unique_loaders_on_4(g, 2, seed)
        loads: dict = {}
        for s in t.trace.tasks:
            if s.key.startswith("load_"):
                loads[s.worker] = loads.get(s.worker, 0) + 1
        # before: 1.197x and 1.143x queuing's makespan, loads 7/7/5/5 at seed 0
        assert t.makespan <= 1.05 * q.makespan, (seed, t.makespan, q.makespan)
        assert max(loads.values()) <= 6, (seed, loads)
        assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker)
        assert t.bytes_transferred <= q.bytes_transferred


def test_a_tree_reductions_next_group_may_queue_behind_four_loading_threads():
    """The same loaders (48) at 4 x 4: refused on the first pair's worker while its 4
    threads loaded, the group's next root went to another worker, whose own group's roots
    were then refused there in turn and waited unsent until that worker's count opened (a
    thread idle ~57 ms), then queued behind a combine: last loads 0.76 s against 0.71,
    1.097x queuing's makespan at seeds 0 and 2. On four threads or more one such root may
    queue behind the loads (policy.passes_for_group, w44): 1.027x."""
    from tidegate.sim.fidelity import unique_loaders

    g = unique_loaders(steps=48)
    for seed in (0, 2):
        q, t = _unique_loaders_on_4(g, 4, seed)
        assert t.makespan <= 1.05 * q.makespan, (seed, t.makespan, q.makespan)
        assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker)
        assert t.bytes_transferred <= q.bytes_transferred


def _unique_loader_runs(steps: int, workers: int, threads: int):
    """(naming, seed, queue's run, tidegate's run) of the unique-key loaders over 3 key
    namings x 2 seeds, as the loaders' tests below sum and bound them."""
    for n in ("", "-n1", "-n2"):
        g = _unique_loaders_named(steps, n)
        for seed in (0, 1):
            q, t = simulate(g.dsk, keys=g.keys, sizes=g.sizes, durations=g.durations,
                            workers=workers, threads_per_worker=threads,
                            policy=["queue", "tidegate"], seed=seed, processes=1,
                            record_memory=False)  # fmt: skip
            yield n, seed, q, t


def _unique_loaders_named(steps: int, n: str):
    """fidelity.unique_loaders with ``n`` appended to every key name (the naming)."""
    from tidegate.sim.fidelity import Graph, unique_loaders

    g = unique_loaders(steps=steps)

    def ren(k):
        return f"{k}{n}" if isinstance(k, str) else (f"{k[0]}{n}",) + k[1:]

    def sub(v):
        if isinstance(v, tuple):
            return ren(v) if v in g.dsk else tuple(sub(x) for x in v)
        return ren(v) if isinstance(v, str) and v in g.dsk else v

    return Graph(g.name, {ren(k): sub(v) for k, v in g.dsk.items()}, [ren(k) for k in g.keys])


def test_a_groups_root_queues_behind_loading_threads_while_the_line_feeds_the_rest():
    """Unique-key loaders reduced pairwise on 3-thread workers (3 namings x 2 seeds, summed).
    The first root of a group's second pair, refused on its first pair's worker while every
    thread there loaded (policy.passes_for_group's four-thread threshold), went to another
    worker and split the group (4 x 3 / 48 loads: 1.052x queuing's makespan; 8 x 3 / 96:
    1.037x). It now queues there while the line holds a root for every other worker's
    thread (GROUP_SUPPLY): nobody's thread waits for it. Passing with fewer left, the
    workers asked first took the last roots and the rest idled (8 x 3 / 48: 1.16x)."""
    for workers, steps, bound in ((4, 48, 1.0), (8, 96, 1.0), (8, 48, 1.03)):
        t_make = q_make = 0.0
        for _, _, q, t in _unique_loader_runs(steps, workers, 3):
            t_make, q_make = t_make + t.makespan, q_make + q.makespan
            assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker)
            assert t.bytes_transferred <= q.bytes_transferred
        assert t_make <= bound * q_make, (workers, steps, t_make / q_make)


def test_a_groups_last_pair_does_not_queue_behind_loads_on_its_further_worker():
    """Unique-key loaders reduced pairwise, 3 x 3 with 48 loads (3 namings x 2 seeds,
    summed). The last group's roots are reserved for the worker holding their sibling group;
    passed there at 2 roots processing while its third thread ran combines, the pair's
    second root waited behind both loads (0.2 s) while another worker had run out of roots
    (loads 16/14/18 per worker; 1.053x queuing's makespan over 5 namings x 3 seeds). Now
    refused there where no thread is free, the threads not loading cannot take the pair
    and the line does not feed the other workers (policy.GROUP_BUSY): 1.004x."""
    t_make = q_make = 0.0
    for _, _, q, t in _unique_loader_runs(48, 3, 3):
        t_make, q_make = t_make + t.makespan, q_make + q.makespan
        assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker)
        assert t.bytes_transferred <= q.bytes_transferred
    assert t_make <= 1.02 * q_make, t_make / q_make


def test_a_wave_that_starts_together_spreads_over_every_worker():
    """Unique-key loaders reduced pairwise, 8 x 4 with 48 loads (3 namings x 2 seeds). The
    first 32 loads end together; the scheduler heard one worker's completions first and at
    each that worker had a thread free and its count below the cap, so it opened two pairs
    of the 16 left, then the next worker two: w0-w3 took 8 loads each, w4-w7 4 (peak 160 MB
    against queuing's 140 in 8 of 15 runs, 1.08x its makespan in the other 7). A worker
    that took its share of the wave now takes no fresh opener while the line cannot feed
    the others' threads (policy.WAVE_SHARE): 6 loads each, at or below queuing's peak and
    makespan in every run."""
    t_make = q_make = 0.0
    for n, seed, q, t in _unique_loader_runs(48, 8, 4):
        t_make, q_make = t_make + t.makespan, q_make + q.makespan
        assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker)
        assert t.makespan <= 1.02 * q.makespan, (n, seed, t.makespan / q.makespan)
    assert t_make <= q_make, t_make / q_make


def test_a_wave_of_one_root_a_worker_splits_its_pairs():
    """Unique-key loaders reduced pairwise, 8 x 2 with 24 loads (3 namings x 2 seeds). The
    first 16 loads end together and 8 roots are left (a wave's share of 1): a pair's
    opener went to the worker heard first and its partner followed it, so w0-w3 loaded a
    pair each on both threads while their first pair's data waited for its combine, and
    w4-w7 took none (100 MB against queuing's 80 in every run). The partner of a worker
    that took its share of such a wave now goes elsewhere as a fresh opener
    (policy.WAVE_SPLIT): one load beside each worker's first combine, at queuing's peak,
    within 1.02x its makespan per run and moving fewer bytes."""
    t_make = q_make = 0.0
    for n, seed, q, t in _unique_loader_runs(24, 8, 2):
        t_make, q_make = t_make + t.makespan, q_make + q.makespan
        assert max(t.peak_memory_per_worker) <= max(q.peak_memory_per_worker), (n, seed)
        assert t.makespan <= 1.02 * q.makespan, (n, seed, t.makespan / q.makespan)
        assert t.bytes_transferred <= q.bytes_transferred
    assert t_make <= 1.01 * q_make, t_make / q_make


def test_two_shared_grids_load_apart_on_multi_thread_workers():
    """seed weighted's two 8 MB chunks, each read by one getitem that all 12 stores read
    beside the other's and two store handles, on 2 x 4, 3 x 2, 4 x 2 and 2 x 2 workers (10 ms
    overrun, senders at 200 MB/s; 3 namings x 2 seeds summed). Such a chunk's partners are
    all shared: copied to every worker that stores, wherever it loads. Ranked by its
    partners, the second chunk loaded beside the first (or beside the handles, counted as
    partners and as load): 24-32 MB on that worker against queuing's 16-24 (2 x 4: 32 MB
    in every run). Now it goes to the least loaded worker, fewest partners first
    (policy.by_load, SHARED_BY_LOAD), and a handle is no partner (HANDLES_NO_PARTNERS)."""
    net = dict(NET, outgoing_bandwidth=200e6)
    for workers, threads in ((2, 4), (3, 2), (4, 2), (2, 2)):
        t_peak = q_peak = t_make = q_make = 0.0
        over = 0
        for n in ("", "-n1", "-n2"):
            dsk, durations, sizes = _stores_of_two_grids(n)
            for seed in (0, 1):
                q, t = simulate(dsk, keys=[f"total{n}"], workers=workers,
                                threads_per_worker=threads, policy=["queue", "tidegate"],
                                durations=lambda k: durations.get(k, 0.0),
                                sizes=lambda k: sizes.get(k, 16), thread_lag=0.01, seed=seed,
                                processes=1, record_memory=False, **net)  # fmt: skip
                tp, qp = max(t.peak_memory_per_worker), max(q.peak_memory_per_worker)
                over += tp > qp + 1000
                t_peak, q_peak = t_peak + tp, q_peak + qp
                t_make, q_make = t_make + t.makespan, q_make + q.makespan
        shape = (workers, threads)
        assert t_peak <= q_peak + 6000, (shape, t_peak, q_peak, over)  # (handles: 56 B)
        assert over <= 1, (shape, over)
        # (distributed 2025.4, 2 x 4: 1.008x; the rules' peak gain holds there: at
        # queuing's 96 MB summed, 192 without them, over queuing's in 6 runs: BY_WALK)
        assert t_make <= (1.0 if BY_WALK else 1.05) * q_make, (shape, t_make, q_make)


def test_store_handles_take_no_slot_on_one_thread_workers():
    """seed weighted on 2 x 1 (10 ms overrun, senders at 200 MB/s; 3 namings x 5 seeds): the
    two store handles (56 B constants read by the 12 stores, each store reading data besides
    them) were roots, and all four roots were placed at once, nothing sized yet. The handles
    took the cap of 2 on one worker (refused beside the first chunk's reservations, or
    following each other to the finalize's worker), and the second chunk found only the
    first chunk's worker open: 24 MB there against queuing's 16 in 3 of 15 runs, peaks
    summed 304 against 328 MB. A handle that no root reads is no root now (policy.is_target,
    TARGETS_NO_ROOT): 16 MB in every run, 240 against 328 (makespans summed 0.998x)."""
    net = dict(NET, outgoing_bandwidth=200e6)
    t_peak = q_peak = t_make = q_make = 0.0
    over = 0
    for n in ("", "-n1", "-n2"):
        dsk, durations, sizes = _stores_of_two_grids(n)
        for seed in range(5):
            q, t = simulate(dsk, keys=[f"total{n}"], workers=2, threads_per_worker=1,
                            policy=["queue", "tidegate"], durations=lambda k: durations.get(k, 0.0),
                            sizes=lambda k: sizes.get(k, 16), thread_lag=0.01, seed=seed,
                            processes=1, record_memory=False, **net)  # fmt: skip
            tp, qp = max(t.peak_memory_per_worker), max(q.peak_memory_per_worker)
            over += tp > qp + 1000
            t_peak, q_peak = t_peak + tp, q_peak + qp
            t_make, q_make = t_make + t.makespan, q_make + q.makespan
    assert over == 0, (over, t_peak, q_peak)
    # (distributed 2025.4: queuing's own schedule holds 16 MB in every run there, as
    # tidegate does with the rule or without it; makespans summed 1.037x: BY_WALK)
    assert t_peak <= (0.8 if BY_WALK else 1.0) * q_peak, (t_peak, q_peak)
    assert t_make <= (1.02 if BY_WALK else 1.05) * q_make, (t_make, q_make)


# seed anomaly's graph (a - a.mean() stored): 12 loads of 32 MB (da.from_zarr's tasks, data
# producers reading one 56-byte handle), a chunk-mean of each, three combines of 4, the mean,
# and 12 stores each reading its load again and the mean; durations measured on a
# LocalCluster (bench/results/wall24-measured.json, "seed-anomaly")
ANOM_LOAD = [0.0700, 0.0138, 0.0140, 0.0139, 0.0140, 0.0139, 0.0144, 0.0167, 0.0134, 0.0107,
             0.0147, 0.0141]
ANOM_STORE = [0.0788, 0.0774, 0.0762, 0.0757, 0.0769, 0.0779, 0.0792, 0.0760, 0.0758, 0.0758,
              0.0752, 0.0773]
ANOM_PARTIAL = [0.0403, 0.0172, 0.0183]


def _anomaly_stores(n: str = ""):
    """(graph, final key, durations, sizes); ``n`` appended to every name (a naming)."""
    from dask._task_spec import DataNode, Task, TaskRef

    h = f"original-from-zarr{n}"
    dsk: dict = {h: DataNode(h, "a.zarr")}
    durations: dict = {}
    sizes: dict = {h: 56}
    agg = (f"mean_agg-aggregate{n}", 0, 0)
    for i in range(12):
        load, chunk, store = ((f"{g}{n}", i, 0, 0) for g in ("from-zarr", "mean_chunk",
                                                             "store-map"))
        dsk[load] = Task(load, str, TaskRef(h), _data_producer=True)
        dsk[chunk] = Task(chunk, str, TaskRef(load))
        dsk[store] = Task(store, max, TaskRef(load), TaskRef(agg))
        durations.update({load: ANOM_LOAD[i], chunk: 0.0038, store: ANOM_STORE[i]})
        sizes.update({load: 32_000_000, chunk: 8_000_000, store: 16})
    for j in range(3):
        p = (f"mean_combine-partial{n}", j, 0, 0)
        dsk[p] = Task(p, max, *(TaskRef((f"mean_chunk{n}", 4 * j + i, 0, 0)) for i in range(4)))
        durations[p], sizes[p] = ANOM_PARTIAL[j], 16_000_000
    dsk[agg] = Task(agg, max, *(TaskRef((f"mean_combine-partial{n}", j, 0, 0))
                                for j in range(3)))
    durations[agg], sizes[agg] = 0.0124, 8_000_000
    final = f"finalize{n}"
    dsk[final] = Task(final, max, *(TaskRef((f"store-map{n}", i, 0, 0)) for i in range(12)))
    durations[final] = 0.0002
    return dsk, final, durations, sizes


def _anomaly_stores_summed(namings, threads: int, workers: int = 2, net=NET):
    """Queue and tidegate on ``_anomaly_stores`` at ``workers`` x ``threads``, 10 ms
    overrun, summed over ``namings``: (loads on the busiest worker, tidegate's and queue's
    peaks, their makespans)."""
    t_make = q_make = t_peak = q_peak = busiest = 0
    for n in namings:
        dsk, final, durations, sizes = _anomaly_stores(n)
        q, t = simulate(dsk, keys=[final], workers=workers, threads_per_worker=threads,
                        policy=["queue", "tidegate"], durations=lambda k: durations.get(k, 0.0),
                        sizes=lambda k: sizes.get(k, 16), thread_lag=0.01, seed=0,
                        processes=1, record_memory=False, **net)  # fmt: skip
        loads: dict = {}
        for s in t.trace.tasks:
            if s.group.startswith("from-zarr"):
                loads[s.worker] = loads.get(s.worker, 0) + 1
        busiest += max(loads.values())
        t_make, q_make = t_make + t.makespan, q_make + q.makespan
        t_peak += max(t.peak_memory_per_worker)
        q_peak += max(q.peak_memory_per_worker)
    return busiest, t_peak, q_peak, t_make, q_make


def test_a_running_combines_inputs_do_not_weigh_on_where_the_last_group_loads():
    """seed anomaly at 2 x 2: the last reduction group's loads are placed by held bytes
    (policy.places_by_held) while one worker's combine still held its 4 chunk-means, gone
    0.4 ms later; by them that worker looked half a load heavier and two loads stayed with
    their partners: 7 loads against 5 on every naming, the stores following them (peak 1.10x
    queuing's summed over namings, 288 MB against 256-264). Now a worker's held bytes are
    counted after the reductions running there (policy.after_reduction): 6 / 6, peak 0.98x,
    makespan 1.009 -> 0.975x. Judged summed over four namings."""
    namings = ("", "-n1", "-n2", "-n3")
    busiest, t_peak, q_peak, t_make, q_make = _anomaly_stores_summed(namings, threads=2)
    # before: 7 loads on one worker in every naming, peak 1.099x, makespan 1.009x
    assert busiest <= 6 * len(namings) + 1, busiest
    assert t_peak <= q_peak, (t_peak, q_peak)
    assert t_make <= 1.0 * q_make, (t_make, q_make)


def test_a_reduction_groups_last_load_waits_for_its_reduction_not_passing_a_full_count():
    """seed anomaly at 4 x 2 (cap 3; 3 reduction groups of 4 loads on 4 workers): each
    group's 4th load was decided ~1 ms before the first chunk-mean returned and passed its
    partners' full count by completing the combine there, while the handle's worker held
    one load: 4 loads on three workers in every naming (peak 1.10x queuing's summed over
    namings). It now waits for its reduction while another worker holds a load less
    (policy.loads_before_reduced, UNKNOWN_PASS) and is placed by held bytes once known:
    3 loads a worker, peak 0.95x, makespan 0.95 -> 1.005x. Judged summed over four
    namings (fails with policy.UNKNOWN_PASS = 0)."""
    namings = ("", "-n1", "-n2", "-n3")
    busiest, t_peak, q_peak, t_make, q_make = _anomaly_stores_summed(namings, 2, workers=4)
    # before: 4 loads on the busiest worker in every naming, peak 1.100x, makespan 0.950x
    assert busiest <= 3 * len(namings) + 1, busiest
    assert t_peak <= q_peak, (t_peak, q_peak)
    assert t_make <= 1.05 * q_make, (t_make, q_make)


def test_a_reduction_groups_own_reservations_do_not_refuse_its_partners_on_one_thread():
    """seed anomaly at 4 x 1 with the handle's plan dropped (HANDLE_PLAN bit 2): a group's
    opener reserved its 3 partners on its worker, whose count (cap 2) they then filled
    themselves: the partners came only by idle workers' splits or by held bytes and groups
    split three ways (makespan 1.011x queuing's summed over namings). Its opener's other
    reservations no longer count against a reserved root that waits for its own reduction
    (policy.counts_own_group, OWN_GROUP): 0.954x, same peak. Judged summed over four
    namings (fails with policy.OWN_GROUP = 0)."""
    namings = ("", "-n1", "-n2", "-n3")
    busiest, t_peak, q_peak, t_make, q_make = _anomaly_stores_summed(namings, 1, workers=4)
    # before: makespan 1.011x, peak 0.927x
    assert t_peak <= q_peak, (t_peak, q_peak)
    assert t_make <= 0.98 * q_make, (t_make, q_make)


# seed rechunk-add's stores as bench/distributed.py's zarr inputs make them (two arrays of 12
# chunks of 32 MB, each split in two 16 MB pieces, merged by pairs of chunks into 12 chunks
# of 32 MB per array, and 12 stores each reading one merge of each array), with the
# durations its tasks take on a LocalCluster (bench/results/wall24-measured.json)
RA_STORE = [0.1399, 0.0581, 0.0581, 0.0667, 0.0589, 0.0795, 0.0755, 0.0679, 0.0563, 0.0582,
            0.0573, 0.0786]


def _rechunk_add_stores(n: str = ""):
    """(graph, final key, durations, sizes); ``n`` appended to every name (a naming)."""
    from dask._task_spec import DataNode, Task, TaskRef

    dsk: dict = {}
    durations: dict = {}
    sizes: dict = {}
    for side in "ab":
        h = f"original-from-zarr-{side}{n}"
        dsk[h] = DataNode(h, f"{side}.zarr")
        sizes[h] = 56
        for r in range(12):
            load = (f"from-zarr-{side}{n}", r, 0, 0)
            dsk[load] = Task(load, str, TaskRef(h), _data_producer=True)
            durations[load], sizes[load] = 0.0098, 32_000_000
        for i in range(6):
            for j in range(2):
                parts = []
                for r in (2 * i, 2 * i + 1):  # merge (i, j): a piece of chunks 2i and 2i + 1
                    s = (f"rechunk-split-{side}{n}", 2 * i + 2 * j + r)
                    dsk[s] = Task(s, str, TaskRef((f"from-zarr-{side}{n}", r, 0, 0)))
                    durations[s], sizes[s] = 0.002, 16_000_000
                    parts.append(TaskRef(s))
                m = (f"rechunk-merge-{side}{n}", i, j, 0)
                dsk[m] = Task(m, max, *parts)
                durations[m], sizes[m] = 0.0071, 32_000_000
    for i in range(6):
        for j in range(2):
            st = (f"store-map{n}", i, j, 0)
            dsk[st] = Task(st, max, TaskRef((f"rechunk-merge-a{n}", i, j, 0)),
                           TaskRef((f"rechunk-merge-b{n}", i, j, 0)))
            durations[st], sizes[st] = RA_STORE[2 * i + j], 16
    final = f"finalize{n}"
    dsk[final] = Task(final, max, *(TaskRef((f"store-map{n}", i, j, 0))
                                    for i in range(6) for j in range(2)))
    durations[final] = 0.0002
    return dsk, final, durations, sizes


def test_rechunk_adds_second_side_waits_for_the_first_sides_workers():
    """seed rechunk-add at 4 x 1, 10 ms overrun: one array's first loads fill two idle
    workers' counts (two each, no partners yet); the other array's first loads, whose side is
    all their add lacks there, found none of those workers open for roots and opened their
    merges on the other two workers. Each store there then waited for a 32 MB merge copy
    while that worker loaded on: 256 MB against queuing's 224-288 in most namings (summed
    over four, 0.94x queuing's peak). Now they wait for the first side's workers
    (policy.waits_for_further): 0.62x. The idle-worker split (admission._split) then opens
    the last units' parked sides whole on the idle workers before splitting a placed pair
    (policy.SPLIT_OPENS): without it the makespan rose from 0.71 to 0.81x queuing's; 0.74x
    with it. Judged summed over four namings."""
    t_make = q_make = t_peak = q_peak = 0
    for n in ("", "-n1", "-n2", "-n3"):
        dsk, final, durations, sizes = _rechunk_add_stores(n)
        q, t = simulate(dsk, keys=[final], workers=4, threads_per_worker=1,
                        policy=["queue", "tidegate"], durations=lambda k: durations.get(k, 0.0),
                        sizes=lambda k: sizes.get(k, 16), thread_lag=0.01, seed=0,
                        processes=1, record_memory=False, **NET)  # fmt: skip
        t_make, q_make = t_make + t.makespan, q_make + q.makespan
        t_peak += max(t.peak_memory_per_worker)
        q_peak += max(q.peak_memory_per_worker)
    # before: peak 0.94x, makespan 0.71x; FURTHER_WAITS alone: 0.62x, 0.81x
    assert t_peak <= 0.8 * q_peak, (t_peak, q_peak)
    assert t_make <= 0.78 * q_make, (t_make, q_make)


def test_a_store_handle_reserves_none_of_its_loads_on_its_worker():
    """seed anomaly at 2 x 4: the zarr array (a root: no inputs) was placed first and its
    meeting plan walked its 12 readers to the reductions, so the books reserved all 12
    loads on its worker; that worker's in-flight count was full of reservations, the other
    took the first group and, as its fifth root, the second group's opener, whose partners
    followed it there: 8 loads against 4 in every naming (peak 1.23x queuing's, summed over
    namings; makespan 0.74x). A shared handle whose loads meet no other root's data has no
    meetings of its own (policy.handle_meets): 6 / 6, peak 0.94x, makespan 1.00x. Judged
    summed over four namings (fails with policy.HANDLE_PLAN = 0)."""
    namings = ("", "-n1", "-n2", "-n3")
    busiest, t_peak, q_peak, t_make, q_make = _anomaly_stores_summed(namings, threads=4)
    # before: 8 loads on one worker in every naming, peak 1.228x, makespan 0.737x
    assert busiest <= 6 * len(namings) + 1, busiest
    assert t_peak <= q_peak, (t_peak, q_peak)
    assert t_make <= 1.05 * q_make, (t_make, q_make)


# vorticity-files as bench/distributed.py makes it: per step two 32 MB reads (a, b), each
# opened on its own, meeting with three shared 8 MB grids in the step's vorticity, then a
# store; the durations its tasks take on a LocalCluster (bench/results/wall24-measured.json)
VORT = [0.1887, 0.1521, 0.1373, 0.1341, 0.1247, 0.1229, 0.1227, 0.1329, 0.2348, 0.1238, 0.1439,
        0.1215]


def _vorticity_files(n: str):
    dsk: dict = {}
    durations: dict = {}
    sizes: dict = {}
    for g in ("dx", "dy", "area"):
        dsk[f"open-grid-{g}{n}"] = (str, g)
        dsk[f"grid-{g}{n}"] = (str, f"open-grid-{g}{n}")
        durations[f"open-grid-{g}{n}"] = 0.004
        sizes[f"open-grid-{g}{n}"] = sizes[f"grid-{g}{n}"] = 8_000_000
    for i, took in enumerate(VORT):
        for side, d in (("a", 0.015), ("b", 0.012)):
            dsk[f"open-{side}-{i}{n}"] = (str, i)
            dsk[f"read-{side}-{i}{n}"] = (str, f"open-{side}-{i}{n}")
            durations[f"open-{side}-{i}{n}"] = d
            sizes[f"open-{side}-{i}{n}"] = sizes[f"read-{side}-{i}{n}"] = 32_000_000
        dsk[(f"vorticity{n}", i)] = (max, f"read-a-{i}{n}", f"read-b-{i}{n}", f"grid-dx{n}",
                                     f"grid-dy{n}", f"grid-area{n}")
        durations[(f"vorticity{n}", i)] = took
        dsk[(f"store{n}", i)] = (str, (f"vorticity{n}", i))
    dsk[f"total{n}"] = (max, [(f"store{n}", i) for i in range(len(VORT))])
    return dsk, f"total{n}", durations, sizes


def _vorticity_files_summed(workers: int):
    """Queue and tidegate on ``_vorticity_files`` at ``workers`` x 1, 2 ms overrun, summed over
    four namings x three seeds: (tidegate's makespan, queue's, tidegate's bytes moved)."""
    t_make = q_make = t_moved = 0
    for n in ("", "-n1", "-n2", "-n3"):
        dsk, final, durations, sizes = _vorticity_files(n)
        for seed in range(3):
            q, t = simulate(dsk, keys=[final], workers=workers, threads_per_worker=1,
                            policy=["queue", "tidegate"],
                            durations=lambda k: durations.get(k, 0.0),
                            sizes=lambda k: sizes.get(k, 16), thread_lag=0.002, seed=seed,
                            processes=1, record_memory=False, **NET)  # fmt: skip
            t_make, q_make = t_make + t.makespan, q_make + q.makespan
            t_moved += t.bytes_transferred
    return t_make, q_make, t_moved


def test_a_pairs_second_read_waits_for_its_partner_not_for_the_grids_worker():
    """vorticity-files at 2 x 1: a step's second read, refused by its partner's busy worker,
    went to the other worker, which held only copies of the shared grids (policy.place_root
    ranked every worker with partners, shared ones too, before waiting for the partner's
    worker): the step's 32 MB read was copied (160 ms at 200 MB/s) while its vorticity
    waited. Now shared partners rank only among the workers of the root's own partners
    (policy.OWN_PARTNERS_FIRST). Judged summed over four namings x three seeds: makespan
    1.049x -> 0.893x queuing's, 672 -> 288 MB moved (queuing 1,792)."""
    t_make, q_make, t_moved = _vorticity_files_summed(workers=2)
    # before: 1.049x queuing's makespan, 672 MB moved (21 of its 32 MB reads, and grids)
    # (distributed 2025.4: 0.979x, 1.142x with OWN_PARTNERS_FIRST off: BY_WALK)
    assert t_make <= (0.95 if BY_WALK else 1.0) * q_make, (t_make, q_make)
    assert t_moved <= 400e6, t_moved


def test_a_pairs_root_does_not_split_from_a_partner_still_to_be_computed():
    """vorticity-files at 4 x 1: the last step's first read went to a busy worker, queued
    behind its 160 ms vorticity; a worker idling at the end took the step's second read
    (Admission._split), so the step's vorticity waited for the first read and then for a
    32 MB copy (160 ms at 200 MB/s). A pair's root now waits for a partner still to be
    computed (policy.split_gains). Judged summed over four namings x three seeds:
    makespan 0.963x -> 0.888x queuing's, worst run 1.174x -> 1.007x, 1,088 -> 864 MB moved."""
    t_make, q_make, t_moved = _vorticity_files_summed(workers=4)
    assert t_make <= 0.93 * q_make, (t_make, q_make)
    assert t_moved <= 980e6, t_moved


def _rechunk_std(n: str = "", var: bool = False):
    """bench/distributed.py's rechunk as the twin runs it: 36 loads of 8 MB (6 x 6 blocks),
    each cut in two 4 MB halves, the halves of blocks (2i, c) and (2i + 1, c) merged (and
    reduced: a merge is fused with the std's first step) into 12 x 3 merges, 3 per column
    aggregated. Durations as wall24-measured.json has them. ``n``: a naming. ``var``: each
    merge read by a single-input ``var`` step before the aggregate, as bench/wall24_twin.py's
    graph has it (then a merge's output meets no further data by the walk)."""
    from dask._task_spec import Task, TaskRef

    dsk: dict = {}
    durations: dict = {}
    sizes: dict = {}
    for r in range(6):
        for c in range(6):
            load = (f"random_sample{n}", r, c)
            dsk[load] = Task(load, str, "x")
            durations[load], sizes[load] = 0.0037, 8_000_000
            for h in range(2):
                s = (f"rechunk-split{n}", 12 * r + 2 * c + h)
                dsk[s] = Task(s, str, TaskRef(load))
                durations[s], sizes[s] = 0.0003, 4_000_000
    for i in range(3):
        for j in range(12):
            m = (f"rechunk-merge-var{n}", i, j)
            dsk[m] = Task(m, max, *(TaskRef((f"rechunk-split{n}", 12 * r + j)) for r in
                                    (2 * i, 2 * i + 1)))
            durations[m], sizes[m] = 0.0053, 10_000
            if var:
                v = (f"var{n}", i, j)
                dsk[v] = Task(v, str, TaskRef(m))
                durations[v], sizes[v] = 0.0003, 10_000
    step = f"var{n}" if var else f"rechunk-merge-var{n}"
    for j in range(12):
        agg = (f"var-aggregate{n}", j)
        dsk[agg] = Task(agg, max, *(TaskRef((step, i, j)) for i in range(3)))
        durations[agg], sizes[agg] = 0.0003, 100
    final = f"finalize{n}"
    dsk[final] = Task(final, max, *(TaskRef((f"var-aggregate{n}", j)) for j in range(12)))
    durations[final] = 0.0002
    return dsk, final, durations, sizes


def test_a_rechunks_load_stays_in_flight_until_its_second_half_is_cut():
    """rechunk at 4 x 1 and 2 x 1, 10 ms overrun, senders limited: a load's first half took
    its data on and the load counted no more; the half's merge landed it while the second
    half was still to cut, the next root (ordered before that half) came in and the load
    stayed held beside it: 40 MB against queuing's 32 on one worker in most runs (summed
    over namings 1.06-1.11x queuing's peak). Now a load counts while a sibling still has to cut
    it (policy.read_on, READ_ON_KEEPS): 0.80x, makespans equal. Judged summed over four
    namings (fails with policy.READ_ON_KEEPS = 0)."""
    net = dict(NET, outgoing_bandwidth=200e6)
    for workers in (4, 2):
        t_make = q_make = t_peak = q_peak = moved = 0
        for n in ("", "-n1", "-n2", "-n3"):
            dsk, final, durations, sizes = _rechunk_std(n)
            q, t = simulate(dsk, keys=[final], workers=workers, threads_per_worker=1,
                            policy=["queue", "tidegate"],
                            durations=lambda k: durations.get(k, 0.0),
                            sizes=lambda k: sizes.get(k, 16), thread_lag=0.01, seed=0,
                            processes=1, record_memory=False, **net)  # fmt: skip
            t_make, q_make = t_make + t.makespan, q_make + q.makespan
            t_peak += max(t.peak_memory_per_worker)
            q_peak += max(q.peak_memory_per_worker)
            moved += t.bytes_transferred
        # before: peak 1.058x (4 workers) / 1.114x (2), makespan 0.964x; now 0.80x
        assert t_peak <= 0.9 * q_peak, (workers, t_peak, q_peak)
        assert t_make <= 1.0 * q_make, (workers, t_make, q_make)


def test_a_first_waves_reduction_groups_spread_over_more_workers_than_groups():
    """seed anomaly at 4 x 4 (cap 5; 3 reduction groups of 4 loads on 4 workers): at the
    first wave, before any load returned, each group fit its opener's worker whole, and
    the store handle's worker took none: 4 loads on three workers in every naming (peak
    1.15x queuing's summed over namings). A load waiting for its own reduction now waits
    for it once its partners' worker holds its share of the group (3 of 12 on 4 workers)
    and a free worker holds less (policy.over_first_share, FIRST_SHARE); the reduction
    known to reduce, it goes by held bytes (places_by_held): 3 loads a worker, peak 0.95x,
    makespan 0.87 -> 1.01x (free senders; 0.68 -> 0.77x with senders limited). Judged
    summed over four namings (fails with policy.FIRST_SHARE = 0)."""
    namings = ("", "-n1", "-n2", "-n3")
    busiest, t_peak, q_peak, t_make, q_make = _anomaly_stores_summed(namings, 4, workers=4)
    # before: 4 loads on the busiest worker in every naming, peak 1.150x, makespan 0.870x
    assert busiest <= 3 * len(namings) + 1, busiest
    assert t_peak <= q_peak, (t_peak, q_peak)
    assert t_make <= 1.05 * q_make, (t_make, q_make)


def test_an_idle_workers_split_asks_again_whether_a_root_parked_early_splits():
    """seed anomaly at 6 x 2 (cap 3; 3 reduction groups of 4 loads on 6 workers), senders
    limited: a group's load parked on its partners' worker ~1 ms before the first chunk-mean's
    size was known was not counted among the roots that may split by held bytes (asked only
    when parked); when a worker holding two loads went idle, the idle-worker split
    (admission._split) started it there without asking whether that worker held more than
    another (_heavier): 3 loads on one worker in every naming, peak 1.27x queuing's summed
    over namings. The split now asks again (SPLIT_KEPT_ANEW): 2 loads a worker, peak 1.00x,
    makespan 0.83 -> 0.88x. Judged summed over four namings (fails with
    policy.SPLIT_KEPT_ANEW = 0)."""
    namings = ("", "-n1", "-n2", "-n3")
    net = dict(NET, outgoing_bandwidth=200e6)
    busiest, t_peak, q_peak, t_make, q_make = _anomaly_stores_summed(namings, 2, workers=6,
                                                                     net=net)
    # before: 3 loads on the busiest worker in every naming, peak 1.267x, makespan 0.831x
    assert busiest <= 2 * len(namings) + 1, busiest
    assert t_peak <= q_peak, (t_peak, q_peak)
    assert t_make <= 1.0 * q_make, (t_make, q_make)


def test_a_reductions_combine_goes_where_it_adds_least_not_beside_its_groups_loads():
    """seed anomaly at 5 x 2 (cap 3; 3 reduction groups of 4 loads, FIRST_SHARE's share of
    3 loads a worker), senders limited: each group's 3 loads went to one worker and its 4th
    elsewhere, and each group's partial (4 chunk-means in) went where 3 of its inputs were,
    beside the 3 loads kept for the mean: 144-152 MB against queuing's 120, summed over
    namings 1.056x queuing's peak. Such a combine now goes to the worker whose held,
    estimated and incoming bytes plus the inputs it would copy are least
    (policy.combine_elsewhere, COMBINE_BY_HELD): 0.833x, makespan 0.759 -> 0.827x. Judged
    summed over four namings (fails with policy.COMBINE_BY_HELD = 0)."""
    namings = ("", "-n1", "-n2", "-n3")
    net = dict(NET, outgoing_bandwidth=200e6)
    _, t_peak, q_peak, t_make, q_make = _anomaly_stores_summed(namings, 2, workers=5, net=net)
    # before: peak 1.056x, makespan 0.759x; now 0.833x / 0.827x
    assert t_peak <= 0.95 * q_peak, (t_peak, q_peak)
    assert t_make <= 0.9 * q_make, (t_make, q_make)


def test_a_rechunks_pair_opener_counts_the_partner_it_reserves():
    """rechunk at 2 x 2 (cap 3), each merge read by a var step (bench/wall24_twin.py's
    graph), senders limited: a pair's opener came with one slot left and its partner past
    the count by completing the merge (a pass), and a first-wave orphan's halves waited for
    their partner beside the next pairs: 4 blocks on a worker, summed over namings 1.08x
    (2 ms overrun) / 0.92x (10 ms) queuing's peak, single runs up to 1.17x. A root whose
    data meets several pairs (its two halves) now counts the partners it would reserve
    (policy.pair_commits, PAIR_COMMITS): 0.62x / 0.68x, makespan 0.59 -> 0.64x / 0.90 ->
    0.89x. Judged summed over four namings (fails with policy.PAIR_COMMITS = 0)."""
    net = dict(NET, outgoing_bandwidth=200e6)
    for lag in (0.002, 0.01):
        t_make = q_make = t_peak = q_peak = 0
        for n in ("", "-n1", "-n2", "-n3"):
            dsk, final, durations, sizes = _rechunk_std(n, var=True)
            q, t = simulate(dsk, keys=[final], workers=2, threads_per_worker=2,
                            policy=["queue", "tidegate"],
                            durations=lambda k: durations.get(k, 0.0),
                            sizes=lambda k: sizes.get(k, 16), thread_lag=lag, seed=0,
                            processes=1, record_memory=False, **net)  # fmt: skip
            t_make, q_make = t_make + t.makespan, q_make + q.makespan
            t_peak += max(t.peak_memory_per_worker)
            q_peak += max(q.peak_memory_per_worker)
        # before: peak 1.077x (2 ms) / 0.915x (10 ms); now 0.617x / 0.682x
        assert t_peak <= 0.8 * q_peak, (lag, t_peak, q_peak)
        assert t_make <= 1.0 * q_make, (lag, t_make, q_make)


def _wall24_rechunk():
    """bench/wall24_twin.py's rechunk model (the small twin table's graph, its tasks' own
    measured durations and sizes from bench/results/wall24-measured.json)."""
    import importlib.util
    import pathlib

    bench = pathlib.Path(__file__).parents[1] / "bench"
    # (wall24_twin loads the bench scripts it needs by path; bench/ stays off sys.path)
    spec = importlib.util.spec_from_file_location("wall24_twin", bench / "wall24_twin.py")
    w24 = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(w24)
    bd = w24._bench()
    bd._INPUTS["steps"] = 48
    return w24.model_of(bd, "rechunk", 48, 3, bench / "results" / "wall24-measured.json")


def test_a_rechunks_pair_waits_where_the_tasks_processing_fill_the_cap():
    """The small twin table's rechunk on four-thread workers (4 x 4, 2 x 4) at 2 ms, senders
    limited: a worker with 7-10 tasks processing (merges sent behind its loads, each ~3x a
    split's time) opened one more pair, and its blocks and their halves met the halves
    still waiting for merges: 80 MB against queuing's 72 (1.11x) in 2-3 of 5 seeds a
    shape, summed 1.04x. A pair's opener (policy.pair_commits) now opens no pair on a
    worker of 3+ threads whose tasks processing fill the cap (policy.pair_waits,
    PAIR_BUSY): summed 0.86x (4 x 4) / 0.95x (2 x 4), makespan 0.36 -> 0.41x / 0.53 ->
    0.60x queuing's. Judged summed over seeds (fails with policy.PAIR_BUSY = 0)."""
    model = _wall24_rechunk()
    net = dict(NET, outgoing_bandwidth=200e6)
    for w in (4, 2):
        t_make = q_make = t_peak = q_peak = 0
        for seed in range(5):
            q, t = simulate(model, workers=w, threads_per_worker=4,
                            policy=["queue", "tidegate"], thread_lag=0.002, seed=seed,
                            processes=1, record_memory=False, **net)  # fmt: skip
            t_make, q_make = t_make + t.makespan, q_make + q.makespan
            t_peak += max(t.peak_memory_per_worker)
            q_peak += max(q.peak_memory_per_worker)
        # before: peak 1.044x (4 x 4) / 1.045x (2 x 4); now 0.859x / 0.945x
        assert t_peak <= 0.96 * q_peak, (w, t_peak, q_peak)
        assert t_make <= 0.7 * q_make, (w, t_make, q_make)


def test_a_rechunks_pair_waits_where_its_loads_would_queue_behind_loads():
    """The small twin table's rechunk on three-thread workers (4 x 3, 2 x 3) at 2 ms,
    senders limited: a worker opened a pair while the last pair still loaded; its loads
    came in dask's next batch with the last pair's splits and took the threads first, and
    both pairs' blocks met both pairs' halves: 64 MB against queuing's 56 (up to 1.14x) in
    1-2 of 5 seeds a shape. A pair's opener now waits where the worker's roots processing
    and its two loads exceed the threads (policy.pair_waits, PAIR_LOADS): every run at or
    below 0.86x queuing's peak, makespan summed 0.46x / 0.71x queuing's (0.45x / 0.70x
    before). Fails with policy.PAIR_LOADS = 0."""
    # before: 4 x 3 seeds 1 / 4 at 1.065x / 1.142x, 2 x 3 seed 2 at 1.067x
    _rechunk_under_queues_peak(threads=3, makespan_bound={4: 0.8, 2: 0.8})


def test_a_rechunks_third_pair_waits_beside_a_loading_pair():
    """The small twin table's rechunk on four-thread workers (2 x 4, 3 x 4) at 2 ms,
    senders limited: a worker loading its second pair, a block still to cut and every
    thread taken opened a third; its loads took the threads the second pair's loads freed
    before that pair's splits came (a batch later), beside the first pair's halves still
    waiting for their merges: 80 MB against queuing's 72 / 76 (2 x 4 seed 0, 3 x 4 seed
    4). A pair's opener now waits there (policy.pair_waits, PAIR_LOADS 3): every run at or
    below queuing's peak; makespan summed <= 0.7x / 0.5x queuing's. Fails with
    policy.PAIR_LOADS = 1."""
    _rechunk_under_queues_peak(threads=4, makespan_bound={2: 0.7, 3: 0.5})


def _rechunk_under_queues_peak(threads: int, makespan_bound: dict) -> None:
    """The rechunk at 2 ms, senders limited, five seeds on each worker count: every run at
    or below queuing's peak, the makespans summed within the bound times queuing's."""
    model = _wall24_rechunk()
    net = dict(NET, outgoing_bandwidth=200e6)
    for w, bound in makespan_bound.items():
        t_make = q_make = 0
        for seed in range(5):
            q, t = simulate(model, workers=w, threads_per_worker=threads,
                            policy=["queue", "tidegate"], thread_lag=0.002, seed=seed,
                            processes=1, record_memory=False, **net)  # fmt: skip
            t_make, q_make = t_make + t.makespan, q_make + q.makespan
            t_peak, q_peak = max(t.peak_memory_per_worker), max(q.peak_memory_per_worker)
            assert t_peak <= q_peak, (w, seed, t_peak, q_peak)
        assert t_make <= bound * q_make, (w, t_make, q_make)
