"""policy.CONSTANT_HANDLES and policy.PAIR_SPREAD (ra45, issue 9's "a small rechunk kept on
one worker"): the twin's rechunk-add of 4 steps (``build("rechunk-add", 4, 190e6)``: two
arrays opened by ``from_array``, each a 56 B handle, a DataNode, read by 4 loads; a rechunk
of each to 2 steps a chunk, split in halves; one add and store per merged chunk pair).

A DataNode makes its readers roots however few read it (``is_root``), but the meeting walks
took a handle of fewer than SHARED_FANOUT readers for data: a load's partners were the
handle's worker, where every load "completed" its merges, and the handle, placed first,
reserved its loads there. On main all 8 loads ran on one worker of four (2.75x queuing's
peak, 1.37x its time). Then each unit (a pair of loads of each array, met by the adds)
stayed whole on one worker while two workers idled (1.50x): PAIR_SPREAD opens the second
array's pair elsewhere there."""
from __future__ import annotations

import math

import pytest

from tidegate import policy
from tidegate.policy import meeting_partners, spreads_pair, walked_handle

# a DataNode "h" read by four loads, each pair of loads merged
_DEPS = {"h": [], "m0": ["l0", "l1"], "m1": ["l2", "l3"],
         **{f"l{i}": ["h"] for i in range(4)}}
_READERS: dict = {}
for _t, _ins in _DEPS.items():
    for _i in _ins:
        _READERS.setdefault(_i, []).append(_t)


def _partners(where):
    lacks, complete = set(), set()
    found = meeting_partners("l1", lambda t: _READERS.get(t, []), _DEPS.__getitem__, where,
                             lacks=lacks, complete=complete, constant=lambda t: t == "h",
                             nbytes=lambda t: 56.0 if t == "h" else math.nan)
    return found, lacks, complete


def test_a_constant_read_by_few_ends_the_chain_below_it(monkeypatch):
    held = {"h": ["w0"]}  # the handle ran on w0; no load placed yet

    def where(t):
        return held.get(t, [])

    monkeypatch.setattr(policy, "CONSTANT_HANDLES", 7)
    # the load's partner is the other load, still to be placed: no worker
    assert _partners(where) == ({}, {"l0"}, set())
    held["l0"] = ["w1"]  # placed: its worker is the partner, and completes the merge
    assert _partners(where) == ({"w1": 1}, set(), {"w1"})
    del held["l0"]
    monkeypatch.setattr(policy, "CONSTANT_HANDLES", 0)
    # main: the handle's worker, where the merge was taken as complete
    assert _partners(where) == ({"w0": 1}, set(), {"w0"})


def test_a_constant_known_as_data_is_still_a_partner(monkeypatch):
    monkeypatch.setattr(policy, "CONSTANT_HANDLES", 7)
    lacks = set()
    found = meeting_partners("l1", lambda t: _READERS.get(t, []), _DEPS.__getitem__,
                             lambda t: ["w0"] if t == "h" else [], lacks=lacks,
                             constant=lambda t: t == "h", nbytes=lambda t: 8e6)
    assert found == {"w0": 1} and not lacks  # (an embedded 8 MB array: data)


def test_a_grids_constant_two_steps_up_a_shared_input_stays_walked_as_data(monkeypatch):
    """Bit 4: a grid (constant g -> load og -> transform gx, read by both meetings) keeps
    main's walk: g's worker a partner, og not lacked (every step's opener would reserve it)."""
    deps = {"g": [], "og": ["g"], "gx": ["og"], "h": [], "l0": ["h"], "l1": ["h"],
            "m0": ["l0", "gx"], "m1": ["l1", "gx"]}
    readers: dict = {}
    for t, ins in deps.items():
        for i in ins:
            readers.setdefault(i, []).append(t)

    def walk():
        lacks, shared = set(), {}
        found = meeting_partners("l0", lambda t: readers.get(t, []), deps.__getitem__,
                                 lambda t: ["w0"] if t in ("g", "h") else [], lacks=lacks,
                                 shared=shared, constant=lambda t: t in ("g", "h"),
                                 nbytes=lambda t: 56.0 if t in ("g", "h") else math.nan)
        return found, lacks, shared

    monkeypatch.setattr(policy, "CONSTANT_HANDLES", 7)
    assert walk() == ({"w0": 1}, set(), {"w0": 1})
    monkeypatch.setattr(policy, "CONSTANT_HANDLES", 3)
    assert walk() == ({}, {"og"}, {})


def test_walked_handle_and_spreads_pair(monkeypatch):
    monkeypatch.setattr(policy, "CONSTANT_HANDLES", 7)
    assert walked_handle(True, 0, 4, 56)  # a DataNode read by 4: a handle
    assert walked_handle(True, 0, 4, math.nan)  # size unknown: a handle by structure
    assert not walked_handle(True, 0, 4, 8e6)  # data
    assert not walked_handle(False, 0, 4, 56)  # a computed task read by 4: its readers no roots
    assert walked_handle(False, 0, 12, 56)  # a shared handle by structure, as before
    monkeypatch.setattr(policy, "CONSTANT_HANDLES", 0)
    assert not walked_handle(True, 0, 4, 56)
    monkeypatch.setattr(policy, "PAIR_SPREAD", 1)
    # both sides 8 roots over 4 workers: a pair a worker; a pair on w, the other leaves it
    assert spreads_pair(2, 2, 8, 4)
    assert not spreads_pair(2, 2, 8, 2)  # over 2 workers: units stay whole
    assert not spreads_pair(2, 2, 24, 8)  # 12 pairs over 8 workers: some stay whole anyway
    assert not spreads_pair(0, 2, 8, 8)  # nothing there: it stays
    monkeypatch.setattr(policy, "PAIR_SPREAD", 0)
    assert not spreads_pair(2, 2, 8, 4)


def _run(workers):
    from tidegate.sim import simulate
    from tidegate.sim.model import build_model
    from tidegate.sim.workloads import build

    w = build("rechunk-add", 4, 190e6, store=True)
    model = build_model(w.graph, w.keys, sizes=w.sizes, durations=w.durations, finalize=True)
    q, t = simulate(model, workers=workers, threads_per_worker=4, seed=0,
                    policy=["queue", "tidegate"], record_memory=False, processes=1)
    loads: dict = {}
    for task in t.trace.tasks:
        if str(task.key).startswith("('open-"):
            loads[task.worker] = loads.get(task.worker, 0) + 1
    return max(q.peak_memory_per_worker), max(t.peak_memory_per_worker), loads, q, t


@pytest.mark.parametrize("workers", [2, 4])
def test_a_small_rechunk_add_spreads_its_units(monkeypatch, workers):
    """Fails on main (all 8 loads on one worker, 1.69x / 2.75x queuing's peak)."""
    monkeypatch.setattr(policy, "CONSTANT_HANDLES", 7)
    monkeypatch.setattr(policy, "PAIR_SPREAD", 0)
    queue, tide, loads, q, t = _run(workers)
    assert sorted(loads.values()) == [4, 4], loads  # a unit a worker
    if workers == 2:
        assert tide <= queue and t.makespan <= q.makespan
    monkeypatch.setattr(policy, "PAIR_SPREAD", 1)
    queue, tide, loads, q, t = _run(workers)
    # on 4 workers each side's pair of a unit on its own worker: queuing's peak
    assert sorted(loads.values()) == ([4, 4] if workers == 2 else [2, 2, 2, 2]), loads
    assert tide <= queue and t.makespan <= q.makespan


def test_main_keeps_the_small_rechunk_add_on_one_worker(monkeypatch):
    monkeypatch.setattr(policy, "CONSTANT_HANDLES", 0)
    monkeypatch.setattr(policy, "PAIR_SPREAD", 0)
    queue, tide, loads, q, t = _run(4)
    assert list(loads.values()) == [8] and tide > 2 * queue  # (the case this rule is for)


def _four_loads_under_a_mean():
    """The twin's seed anomaly of four loads: a 56 B zarr handle read by four 32 MB loads,
    a chunk-mean of each, one mean of the four, a store of each load less the mean."""
    from dask._task_spec import DataNode, Task, TaskRef

    h = "original-from-zarr"
    dsk: dict = {h: DataNode(h, "a.zarr")}
    durations: dict = {}
    sizes: dict = {h: 56}
    agg = ("mean_agg-aggregate", 0, 0)
    for i in range(4):
        load, chunk, store = ((g, i, 0, 0) for g in ("from-zarr", "mean_chunk", "store-map"))
        dsk[load] = Task(load, str, TaskRef(h), _data_producer=True)
        dsk[chunk] = Task(chunk, str, TaskRef(load))
        dsk[store] = Task(store, max, TaskRef(load), TaskRef(agg))
        durations.update({load: 0.024, chunk: 0.0138, store: 0.0866})
        sizes.update({load: 32_000_000, chunk: 8_000_000, store: 16})
    dsk[agg] = Task(agg, max, *(TaskRef(("mean_chunk", i, 0, 0)) for i in range(4)))
    durations[agg], sizes[agg] = 0.0224, 8_000_000
    dsk["finalize"] = Task("finalize", max, *(TaskRef(("store-map", i, 0, 0))
                                             for i in range(4)))
    return dsk, durations, sizes


def _load_starts():
    from tidegate.sim import simulate

    dsk, durations, sizes = _four_loads_under_a_mean()
    q, t = simulate(dsk, keys=["finalize"], workers=4, threads_per_worker=1,
                    policy=["queue", "tidegate"], durations=lambda k: durations.get(k, 0.0),
                    sizes=lambda k: sizes.get(k, 16), thread_lag=0.01, seed=0, processes=1,
                    record_memory=False)  # fmt: skip
    loads = [s for s in t.trace.tasks if s.group.startswith("from-zarr")]
    return sorted(s.start for s in loads), min(s.stop for s in loads), q, t


def test_loads_woken_in_an_idle_split_start_there_at_once(monkeypatch):
    """policy.SPLIT_WOKEN (anom45): the three loads parked on the first load's worker are
    split onto the three idle workers (admission._split); the first start gave back a
    reservation on that worker (CONSTANT_HANDLES bit 2), which woke the other two into
    line, and the split passed them over: they started only at the next event, 25 ms
    later (1.12x queuing's time here)."""
    monkeypatch.setattr(policy, "CONSTANT_HANDLES", 7)
    monkeypatch.setattr(policy, "SPLIT_WOKEN", 0)
    starts, first_end, q, t = _load_starts()
    assert sum(s > first_end for s in starts) == 2, (starts, first_end)  # (the case)
    monkeypatch.setattr(policy, "SPLIT_WOKEN", 1)
    starts, first_end, q, t = _load_starts()
    assert all(s < first_end for s in starts), (starts, first_end)
    assert t.makespan <= q.makespan and max(t.peak_memory_per_worker) <= max(
        q.peak_memory_per_worker)
