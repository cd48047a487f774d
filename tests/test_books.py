"""books.py: the one set of per-worker books both bodies call, and roots counted by the
data they load (open -> read -> select chains), through the books and through the core."""

from __future__ import annotations

import math

import pytest

from tidegate.books import Books, InvalidTransition
from tidegate.core import Finished, Run, Scheduler
from tidegate.policy import Policy
from tidegate.testing import drive, make_graph

NAN = math.nan


def books(saturation=1.0, threads=2, budget=math.inf, workers=("a",), **kw):
    b = Books(Policy("tidegate", saturation, **kw))
    for w in workers:
        b.add_worker(w, threads, budget)
    return b


def cut_up(b, root, pieces, *, kind="c", prefix="d", run=True):
    """Root ``root`` (group "g", 8 MB, on worker "a"; run here unless ``run`` is False)
    cut into ``pieces`` pieces of 1/BACKLOG_BURST_CUTS of it, read by tasks of group
    ``kind``; the last piece lands it (the burst clause's cut count)."""
    import tidegate.policy as policy

    cuts = policy.BACKLOG_BURST_CUTS
    if run:
        b.on_run(root, "a", True, "g", NAN)
        b.on_finished(root, 8e6, (), False, True)
    for i in range(pieces):
        b.on_run(f"{prefix}-{i}", "a", False, kind, NAN)
        b.on_finished(f"{prefix}-{i}", 8e6 / cuts, (root,), True, True,
                      read_on=lambda x, i=i: i < pieces - 1)


def ran(b, task, nbytes, inputs=(), *, root=False, group=None, single=False, feeds=True,
        pieces=NAN):
    """The two events a body sends the books for ``task`` run on worker "a": it starts
    (``group``: the task's own name unless given) and finishes with ``nbytes`` of output
    computed from ``inputs`` (``single``: a single input; ``feeds``: a consumer waits)."""
    b.on_run(task, "a", root, task if group is None else group, NAN)
    b.on_finished(task, nbytes, inputs, single, feeds, pieces=pieces)


# -- the books alone --------------------------------------------------------------------
def test_root_in_flight_until_its_chain_end_is_combined():
    """open -> read -> select, then combined with another input: the root holds its slot
    through the chain, and frees it only when select's output is combined."""
    b = books()
    a = b.workers["a"]
    b.on_run("open", "a", True, "open", NAN, 1)
    assert (a.roots_processing, a.roots_untouched, a.processing) == (1, 0, 1)
    b.on_finished("open", 100, (), False, True, 2)
    assert (a.roots_processing, a.roots_untouched) == (0, 1)
    for prev, task, nbytes in (("open", "read", 32e6), ("read", "select", 16e6)):
        ran(b, task, nbytes, [prev], single=True)
        b.on_released(prev)  # the chain's previous link is not needed any more
        assert a.roots_untouched == 1, f"slot freed at {task}"
    assert b.carriers("open") == ["select"]
    ran(b, "combine", 8, ["select", "other"])
    assert a.roots_untouched == 0 and not b.in_flight("open")
    # The estimate of the next root of the group is what its chain loaded, not the open's.
    assert b.estimate(NAN, "open") == 32e6
    b.validate()
    assert [e[1] for e in b.story("open")][-1] == "landed"


def test_a_join_of_pieces_of_one_array_holds_its_data_until_combined():
    """A rechunk: two loads split into pieces, pieces of both joined (one task group) into
    a chunk as large as its pieces: the join's output counts on its worker until the add
    combines it with other data, whatever the pieces weighed (a view reports ~nothing)."""
    b = books(threads=1)
    a = b.workers["a"]
    for r in ("load-0", "load-1"):
        ran(b, r, 100e6, root=True, group="load")
    assert a.roots_untouched == 2
    for i, r in enumerate(("load-0", "load-1")):
        ran(b, f"split-{i}", 1024, [r], group="split", single=True)  # a slice: reported tiny
    assert a.roots_untouched == 0  # a reduction by its size: the loads landed
    ran(b, "merge", 100e6, ["split-0", "split-1"], pieces=2048)
    assert a.roots_untouched == 1 and b.in_flight("merge")
    assert a.cap == 1 and not b.admits("a", "load-2", NAN, "load", False, progress=False)
    ran(b, "add", 100e6, ["merge", "other"])
    assert a.roots_untouched == 0 and not b.in_flight("merge")
    assert b.admits("a", "load-2", NAN, "load", False, progress=False)
    # Not a join that holds data: a reduction of its pieces, a tiny edge, an unused output.
    for task, nbytes, pieces, feeds in (("partial", 8, 200e6, True), ("edge", 1e3, 2e3, True),
                                        ("combine", 100e6, 400e6, True),  # 4 partials' mean
                                        ("last", 100e6, 2e3, False)):
        ran(b, task, nbytes, ["x", "y"], feeds=feeds, pieces=pieces)
        assert a.roots_untouched == 0, task
    assert b.estimate(NAN, "load") == 100e6  # a join is no root: estimates ignore it
    b.validate()


def test_a_reduction_ends_the_chain():
    b = books()
    ran(b, "load", 8e6, root=True)
    ran(b, "sum", 8, ["load"], single=True)  # single input, but 1e-6 of its bytes
    assert b.workers["a"].roots_untouched == 0
    b.validate()


def test_open_feeding_two_reads_stays_in_flight_until_both_are_used():
    b = books()
    a = b.workers["a"]
    ran(b, "open", 10, root=True)
    for r in ("read-1", "read-2"):
        ran(b, r, 32e6, ["open"], group="read", single=True)
    b.on_released("open")
    assert a.roots_untouched == 1 and sorted(b.carriers("open")) == ["read-1", "read-2"]
    b.on_finished("use-1", 8, ["read-1", "w"], False, True)
    assert a.roots_untouched == 1  # read-2's 32 MB are still unused
    b.on_finished("use-2", 8, ["read-2", "w"], False, True)
    assert a.roots_untouched == 0
    b.validate()


def test_a_load_carried_on_and_held_for_later_frees_its_slot_when_the_chain_is_used():
    """x - x.mean(): each load feeds its chunk mean (same size: a carrier) and the
    subtraction, which waits for the whole mean. The slot frees when the chunk mean is
    combined; the load, still held for the subtraction, no longer counts (counted, loads ran
    one per worker: twin anomaly 20x4, 2x queuing's time)."""
    b = books()
    a = b.workers["a"]
    ran(b, "load", 8e6, root=True)
    ran(b, "chunk-mean", 8e6, ["load"], group="mean", single=True)
    assert a.roots_untouched == 1 and b.carriers("load") == ["chunk-mean"]
    ran(b, "combine", 8e6, ["chunk-mean", "other-mean"])
    assert a.roots_untouched == 0 and not b.in_flight("load")
    b.validate()
    ran(b, "subtract", 8e6, ["load", "mean"], group="sub")  # the load's later consumer: no change
    b.on_released("load")
    assert a.roots_untouched == 0
    b.validate()


def test_a_root_does_not_extend_a_shared_handles_chain():
    """A store handle read by many loaders (roots themselves) lands at the first load."""
    b = books()
    ran(b, "store", 100, root=True)
    ran(b, "load-0", 8e6, ["store"], root=True, group="load", single=True)
    assert not b.in_flight("store") and b.in_flight("load-0")
    assert b.workers["a"].roots_untouched == 1
    b.validate()


def test_admission_probe_and_budget():
    b = books(saturation=2.0, threads=2, budget=10e6, probe=True)
    a = b.workers["a"]
    assert b.admits("a", "r0", NAN, "g", False)  # idle: always
    b.on_run("r0", "a", True, "g", NAN)
    # Nothing seen yet and a root is processing: probe with one root per busy worker.
    assert not b.admits("a", "r1", NAN, "g", False)
    b.on_finished("r0", 4e6, (), False, True)
    a.held = 4e6
    b.on_run("x", "a", False, "x", NAN)  # busy
    assert b.admits("a", "r1", NAN, "g", False)  # 4 + 4 MB <= 10 MB
    b.on_run("r1", "a", True, "g", NAN)
    assert a.estimated == 4e6
    assert not b.admits("a", "r2", NAN, "g", False)  # 4 + 4 + 4 MB > 10 MB
    assert ("r2", "withheld", "a", None) in b.story("r2")
    assert b.admits("a", "r2", 1e6, "g", False)  # a known size beats the group's largest


def test_a_worker_expecting_work_is_not_idle():
    """Readers held for a copy of a shared input (the plugin's broadcast gate) will run on
    the worker they wait on: with nothing processing there it is still not idle, so the
    progress rule starts no root past its count (twin vorticity, store form)."""
    b = books(saturation=1.0, threads=1, budget=100e6, workers=("a", "b"))
    for w in ("a", "b"):
        b.on_run(f"r{w}", w, True, "g", NAN)
        b.on_finished(f"r{w}", 4e6, (), False, True)  # loaded, untouched: count full
    assert b.workers["a"].processing == 0 and b.workers["a"].roots_untouched == 1
    b.expecting = {"a"}
    assert not b.admits("a", "r1", NAN, "g", False)  # held readers: not idle
    assert b.admits("b", "r2", NAN, "g", False)  # idle: the progress rule
    b.expecting = frozenset()
    assert b.admits("a", "r1", NAN, "g", False)


def test_completes_consumer_is_asked_only_when_it_matters():
    b = books(saturation=1.0, threads=1)  # cap 1
    b.on_run("busy", "a", False, "x", NAN)
    asked = []
    assert b.admits("a", "r", NAN, "g", lambda: asked.append(1) or False)
    assert asked == []  # under the cap: the graph walk is skipped
    ran(b, "r", 1, root=True, group="g")
    assert not b.admits("a", "s", NAN, "g", lambda: asked.append(1) or False)
    assert asked == [1]
    assert b.admits("a", "s", NAN, "g", lambda: True)  # it completes a consumer


def test_place_examines_only_what_it_needs():
    """1,000 candidate workers, no partners: one admission check (the least loaded
    candidate admits). With partners: their workers first."""
    ws = [f"w{i:04d}" for i in range(1000)]
    b = books(workers=ws)
    calls = []
    admits = b._admits  # place's admission check (admits with the estimate found once)
    b._admits = lambda book, w, *a, **k: calls.append(w) or admits(book, w, *a, **k)
    assert b.place("r", NAN, "g", {}, ws) == "w0000"
    assert calls == ["w0000"]
    calls.clear()
    assert b.place("r", NAN, "g", {"w0500": 2}, ws) == "w0500"
    assert calls == ["w0500"]


def test_a_root_opening_a_meeting_reserves_the_roots_it_lacks():
    """u-t opens step t's meeting, whose v-t is still to be placed: one slot is reserved
    for v-t, so a worker takes three such openers, not cap (5) of them. Before, every
    worker loaded five u's (their v's not yet ready: a second handle) and then their five
    v's past the count (twin slice-add 20x4: 11 chunks held against 7 in steady state)."""
    b = books(saturation=1.1, threads=4)  # cap 5
    a = b.workers["a"]
    b.on_run("busy", "a", False, "x", NAN)  # not idle: the progress rule stays out
    for t in range(3):
        assert b.place(f"u-{t}", NAN, "u", {}, ["a"], lacks={f"v-{t}"}) == "a"
        b.on_run(f"u-{t}", "a", True, "u", NAN)
        b.validate()
    assert (a.roots_in_flight, a.owed, a.slots_used) == (3, 3, 6)
    assert b.place("u-3", NAN, "u", {}, ["a"], lacks={"v-3"}) is None
    # v-0 completes its meeting (u-0 is its partner here): admitted, its reservation used.
    assert b.place("v-0", NAN, "v", {"a": 1}, ["a"], lacks=set(), complete={"a"}) == "a"
    b.on_run("v-0", "a", True, "v", NAN)
    assert (a.roots_in_flight, a.owed) == (4, 2)
    b.validate()
    # v-1 goes elsewhere (say a's partner refused): it is no longer owed on a either.
    b.add_worker("c", 4, math.inf)
    assert b.place("v-1", NAN, "v", {}, ["c"], lacks=set()) == "c"
    b.on_run("v-1", "c", True, "v", NAN)
    assert a.owed == 1
    # u-2's data lands without its partner (released, say): nothing is owed for it.
    b.on_finished("u-2", 8e6, (), False, True)
    b.on_released("u-2")
    assert a.owed == 0 and "landed" in [e[1] for e in b.story("u-2")]
    b.validate()
    # A root taken off its worker (stolen, lost) reserves nothing until placed again.
    assert b.place("u-4", NAN, "u", {}, ["a"], lacks={"v-4", "w-4"}) == "a"
    b.on_run("u-4", "a", True, "u", NAN)
    assert a.owed == 2
    b.on_stopped("u-4")
    assert a.owed == 0
    b.validate()
    # A reserved root that starts by another path than place is no longer owed.
    b.place("u-5", NAN, "u", {}, ["a"], lacks={"v-5"})
    assert a.owed == 1
    b.on_run("v-5", "c", True, "v", NAN)
    assert a.owed == 0
    b.validate()
    b.remove_worker("c")
    b.validate()


def test_a_reservation_for_a_root_does_not_count_against_that_root():
    """The meeting's last root is admitted under the count it was reserved in, even where
    it completes no consumer on that worker yet (its partner's data has landed elsewhere)."""
    b = books(saturation=1.0, threads=2)  # cap 2
    a = b.workers["a"]
    b.on_run("busy", "a", False, "x", NAN)
    assert b.place("u", NAN, "u", {}, ["a"], lacks={"v"}) == "a"
    b.on_run("u", "a", True, "u", NAN)
    assert a.slots_used == 2
    assert b.place("w", NAN, "w", {}, ["a"], lacks={"x"}) is None  # no room to open more
    assert b.place("v", NAN, "v", {}, ["a"], lacks=set()) == "a"  # its own slot
    assert a.owed == 0
    b.validate()


def test_a_root_committing_its_worker_to_a_further_meeting_opens_it_only_where_it_fits(
        monkeypatch):
    """u's merge meets v-side data again (rechunk-add: ``commits``, policy.meets_further):
    opening it obliges the worker to load its partner too, so the partner counts as in
    flight when u asks. At 4 roots in flight (cap 5) the pair does not fit and the opener
    goes to a worker with room; without ``commits`` it was admitted there and its partner
    passed the count by completing the meeting (twin rechunk-add 20x4: 9-10 roots in flight
    on a worker, 0.89x queuing's peak; with it 0.66x). (The count alone: a worker of 4
    roots loading and a task waiting for a thread takes none by policy.BACKLOG_BURST.)"""
    import tidegate.policy as policy

    monkeypatch.setattr(policy, "BACKLOG_BURST", 0)

    def four_in_flight():
        b = books(saturation=1.1, threads=4)  # cap 5
        b.add_worker("c", 4, math.inf)
        b.on_run("busy", "a", False, "x", NAN)  # not idle: the progress rule stays out
        b.on_run("busy-c", "c", False, "x", NAN)
        for t in range(4):
            b.on_run(f"r-{t}", "a", True, "r", NAN)
        return b

    b = four_in_flight()
    assert b.place("u", NAN, "u", {}, ["a", "c"], lacks={"v"}) == "a"  # 4 < 5
    b = four_in_flight()
    assert b.place("u", NAN, "u", {}, ["a"], lacks={"v"}, commits=True) is None  # 4 + 1
    assert b.place("u", NAN, "u", {}, ["a", "c"], lacks={"v"}, commits=True) == "c"
    b.on_run("u", "c", True, "u", NAN)
    assert b.workers["c"].owed == 1
    b.validate()
    # Its partner completes the meeting on c: admitted there on the slot reserved for it.
    assert b.place("v", NAN, "v", {"c": 1}, ["c"], lacks={"u"}, complete={"c"},
                   commits=True) == "c"
    # A root the opener would reserve that already runs (anywhere) is not counted, and a
    # root reserved by another opener is counted once, by that one.
    b = four_in_flight()
    b.on_run("v", "c", True, "v", NAN)
    b.on_finished("r-0", 8e6, (), False, False)
    assert b.workers["a"].roots_in_flight == 3
    assert b.place("u", NAN, "u", {}, ["a"], lacks={"v", "w"}, commits=True) == "a"  # 3 + 1
    b.on_run("u", "a", True, "u", NAN)
    assert b.workers["a"].slots_used == 5  # 4 in flight, w owed
    b.on_finished("r-1", 8e6, (), False, False)
    assert b.place("x", NAN, "x", {}, ["a"], lacks={"w"}, commits=True) == "a"  # 3 + 1 owed
    b.validate()


def test_a_one_thread_worker_with_a_backlog_of_consumers_takes_no_root(monkeypatch):
    """A worker of one thread with policy.BACKLOG tasks that are not roots processing
    (queued behind its thread) takes no new root, whatever its count says, unless idle;
    refuses_further says so too, and refusal_inputs tell the two states apart (twin
    groupby-month store 4 x 1: a month's stores queued on one worker while it loaded the
    next chunk; grp42). A two-thread worker is left to the count (BACKLOG_THREADS)."""
    import tidegate.policy as policy

    monkeypatch.setattr(policy, "BACKLOG", 3)
    b = books(saturation=2.0, threads=1, workers=("a", "b"))
    for t in range(2):
        b.on_run(f"s-{t}", "a", False, "s", NAN)
    assert b.admits("a", "r0", NAN, "g", False)  # 2 < 3: the count decides
    before = b.refusal_inputs("a")
    b.on_run("s-2", "a", False, "s", NAN)
    assert policy.backlogged(3, 0, 1)
    assert not b.admits("a", "r0", NAN, "g", False)
    assert ("r0", "withheld", "a", None) in b.story("r0")
    assert b.refuses_further("r0", "g", "a", set(), False, False)
    assert b.refusal_inputs("a") != before
    assert b.place("r0", NAN, "g", {}, ["a", "b"]) == "b"  # idle b: the progress rule
    b.on_run("r-b", "b", True, "g", NAN)
    assert not policy.backlogged(3, 1, 1)  # (roots processing are no backlog)
    monkeypatch.setattr(policy, "BACKLOG", 0)
    assert b.admits("a", "r1", NAN, "g", False)
    monkeypatch.setattr(policy, "BACKLOG", 3)
    b2 = books(saturation=2.0, threads=2, workers=("a",))
    for t in range(6):
        b2.on_run(f"s-{t}", "a", False, "s", NAN)
    assert not policy.backlogged(6, 0, 2)
    assert b2.admits("a", "r0", NAN, "g", False)  # two threads: the count decides
    b.validate()


def test_a_backlogged_two_thread_worker_takes_no_second_root(monkeypatch):
    """On a worker of more than BACKLOG_THREADS threads, BACKLOG_WIDE tasks a thread that are
    not roots processing refuse a root while BACKLOG_FLIGHT roots are in flight there and it
    holds BACKLOG_HELD times its count's worth of the largest root: the data waits behind
    them (twin groupby-month store 2 x 2: a worker with 96 tasks processing, two chunks
    untouched and 124 MB held took a third; grp43). Without a root in flight, or holding
    less, the count decides; an idle worker is always taken; BACKLOG_FLIGHT = 0 restores
    the count. The switches' defaults: fails with BACKLOG_FLIGHT off."""
    import tidegate.policy as policy

    backlog = policy.BACKLOG_WIDE * 2
    b = books(saturation=1.5, threads=2, workers=("a", "b"))
    a = b.workers["a"]
    b.on_run("r0", "a", True, "g", NAN)
    b.on_finished("r0", 8e6, (), False, True)
    assert a.roots_untouched == 1 and a.cap == 3
    full = policy.BACKLOG_HELD * 3 * 8e6  # its count's worth of the largest root
    a.held = full
    for t in range(backlog - 1):
        b.on_run(f"s-{t}", "a", False, "s", NAN)
    assert b.admits("a", "r1", NAN, "g", False)  # below the backlog: the count decides
    before = b.refusal_inputs("a")
    b.on_run("s-last", "a", False, "s", NAN)
    assert policy.backlogged(backlog, 0, 2, 1, full, 24e6)
    assert not b.admits("a", "r1", NAN, "g", False)  # 1 untouched + 1 < cap 3, refused
    assert ("r1", "withheld", "a", None) in b.story("r1")
    assert b.refuses_further("r1", "g", "a", set(), False, False)
    assert b.refusal_inputs("a") != before
    assert b.place("r1", NAN, "g", {}, ["a", "b"]) == "b"  # idle b: the progress rule
    a.held = full - a.estimated - 1e6  # holding less: the count decides
    assert b.admits("a", "r2", NAN, "g", False)
    a.held = full
    assert not policy.backlogged(backlog, 0, 2, 0, full, 24e6)  # nothing in flight
    assert policy.backlogged(backlog + 1, 1, 2, 0, full, 24e6)  # a root loading is in flight
    monkeypatch.setattr(policy, "BACKLOG_FLIGHT", 0)
    assert not policy.backlogged(backlog, 0, 2, 1, full, 24e6)
    assert b.admits("a", "r2", NAN, "g", False)
    b.validate()


def test_a_busy_worker_of_threads_loads_one_root_at_a_time_where_tasks_queue(monkeypatch):
    """On a worker of BACKLOG_BURST_THREADS+ threads a root loading refuses another while
    BACKLOG_BURST tasks wait for a thread and the worker holds BACKLOG_BURST_HELD times
    its count's worth of the largest root, though the count has room: a worker whose
    queue drained for a moment took 4-5 roots at once, their consumers then queued behind
    each other (twin groupby-month store 2 x 4; grp44). Only once a load was cut into
    BACKLOG_BURST_CUTS pieces or more while its siblings still read it (the groupby's chunk
    cut into its days; grp45: the seed workloads' loads are cut into few, and their bursts
    are no groupby's). With a thread free, no root loading, or holding less, the count
    decides; an idle worker is always taken; BACKLOG_BURST = 0 restores the count."""
    import tidegate.policy as policy

    monkeypatch.setattr(policy, "BACKLOG_BURST", 1)
    threads = max(policy.BACKLOG_BURST_THREADS, policy.BACKLOG_THREADS + 1)
    b = books(saturation=1.5, threads=threads, workers=("a", "b"))
    a = b.workers["a"]
    b.on_run("r0", "a", True, "g", NAN)
    b.on_finished("r0", 8e6, (), False, True)  # (the largest root's size known: slots)
    slots = a.cap * 8e6
    a.held = policy.BACKLOG_BURST_HELD * slots
    b.on_run("r1", "a", True, "g", NAN)  # loading
    for t in range(threads + policy.BACKLOG_BURST - 2):
        b.on_run(f"s-{t}", "a", False, "s", NAN)
    assert a.roots_processing + a.roots_untouched == 2 < a.cap
    assert b.admits("a", "r2", NAN, "g", False)  # a thread free: the count decides
    before = b.refusal_inputs("a")
    b.on_run("s-last", "a", False, "s", NAN)  # a task waits for a thread
    assert a.processing - 1 < policy.BACKLOG_WIDE * threads  # (grp43's backlog says no)
    assert b.cuts_max == 0 and b.admits("a", "r2", NAN, "g", False)  # no load cut yet
    cuts = policy.BACKLOG_BURST_CUTS
    cut_up(b, "r0", cuts - 1, prefix="c", run=False)  # its days, fewer pieces than the cuts
    assert b.cuts_max == cuts - 1 and not b.in_flight("r0")  # landed at its last piece
    assert b.admits("a", "r2", NAN, "g", False)  # fewer pieces than BACKLOG_BURST_CUTS
    cut_up(b, "r4", cuts)
    assert b.cuts_max == cuts and not b.in_flight("r4")
    assert policy.backlogged(a.processing, 1, threads, 1, a.held, slots, cuts)
    assert not policy.backlogged(a.processing, 1, threads, 1, a.held, slots, cuts - 1)
    assert not b.admits("a", "r2", NAN, "g", False)
    assert ("r2", "withheld", "a", None) in b.story("r2")
    assert b.refuses_further("r2", "g", "a", set(), False, False)
    assert b.refusal_inputs("a") != before
    assert b.place("r2", NAN, "g", {}, ["a", "b"]) == "b"  # idle b: the progress rule
    assert not policy.backlogged(a.processing - 1, 0, threads, 2, a.held, slots)  # no load
    a.held = policy.BACKLOG_BURST_HELD * slots - a.estimated - 1e6  # holding less
    assert b.admits("a", "r3", NAN, "g", False)
    a.held = policy.BACKLOG_BURST_HELD * slots
    monkeypatch.setattr(policy, "BACKLOG_BURST", 0)
    assert b.admits("a", "r3", NAN, "g", False)
    b.validate()


def test_a_worker_loading_a_cut_up_root_takes_no_other_while_it_holds_its_count(monkeypatch):
    """Once a load of group "g" was cut into BACKLOG_BURST_CUTS pieces, a root of g loading on
    a worker that holds BACKLOG_BURST_HELD times its count's worth refuses the next, though
    the count has room and its queue drained (fewer than threads + BACKLOG_BURST tasks
    processing: the burst clause alone says yes): BACKLOG_DRAINED (grp48; twin groupby store
    4 x 2, a drained worker took two chunks at once). On one thread only at 2. Holding
    less, no root loading or a root of a group not cut up: the count decides; an idle
    worker is always taken; 0 restores session 47's answers."""
    import tidegate.policy as policy

    monkeypatch.setattr(policy, "BACKLOG_BURST", 1)
    cuts = policy.BACKLOG_BURST_CUTS
    for threads, drained in ((2, 1), (2, 2), (1, 2), (1, 1)):
        monkeypatch.setattr(policy, "BACKLOG_DRAINED", drained)
        b = books(saturation=1.5, threads=threads, workers=("a", "b"))
        a = b.workers["a"]
        cut_up(b, "r0", cuts)  # r0 cut into its days while siblings read it
        assert b.burst_cuts("g") == cuts and not b.in_flight("r0")
        slots = a.cap * 8e6
        a.held = policy.BACKLOG_BURST_HELD * slots
        assert b.admits("a", "r1", NAN, "g", False)  # no root loading: the count decides
        b.on_run("r1", "a", True, "g", NAN)  # loading, nothing else processing there
        assert a.processing < threads + policy.BACKLOG_BURST
        assert a.roots_processing + a.roots_untouched < a.cap  # the count has room
        refuses = threads >= 2 or drained >= 2
        assert b.admits("a", "r2", NAN, "g", False) is not refuses
        assert b.refuses_further("r2", "g", "a", set(), False, False) is refuses
        assert b.admits("a", "p", NAN, "p", False)  # a group not cut up
        monkeypatch.setattr(policy, "BACKLOG_DRAINED", 0)
        assert b.admits("a", "r2", NAN, "g", False)  # session 47's answer
        monkeypatch.setattr(policy, "BACKLOG_DRAINED", drained)
        if refuses:
            assert b.place("r2", NAN, "g", {}, ["a", "b"]) == "b"  # idle b: progress
            a.held = policy.BACKLOG_BURST_HELD * slots - a.estimated - 1e6  # holding less
            assert b.admits("a", "r3", NAN, "g", False)
        b.validate()



def test_a_refusal_is_not_kept_past_the_held_bytes_or_worker_count_it_read(monkeypatch):
    """A refusal ``place`` remembers is valid only while what it read is unchanged: held
    bytes bump no version, so BACKLOG_DRAINED 2's one-thread held test is not kept; the
    worker count (BESIDE_WIDE_BUSY 2's ``alone``) is in no version, so a worker joining
    or leaving drops what is kept (review48: both answered None from the memo after
    the worker could take the root). With the audit on, a stale answer raises."""
    import tidegate.policy as policy

    monkeypatch.setattr(policy, "BACKLOG_BURST", 1)
    monkeypatch.setattr(policy, "BACKLOG_DRAINED", 2)
    cuts = policy.BACKLOG_BURST_CUTS
    b = books(saturation=1.5, threads=1, workers=("a", "b"))
    b.audit = True
    a = b.workers["a"]
    cut_up(b, "r0", cuts)
    a.held = policy.BACKLOG_BURST_HELD * a.cap * 8e6
    b.on_run("r1", "a", True, "g", NAN)
    assert b.place("r2", NAN, "g", {}, ["a"]) is None  # the drained held test
    a.held = 0.0  # released: the body copies its bytes, no version moves
    assert b.place("r2", NAN, "g", {}, ["a"]) == "a"

    monkeypatch.setattr(policy, "BESIDE_WIDE_BUSY", 2)
    monkeypatch.setattr(policy, "BESIDE_WIDE_ALONE", 2)  # (the guard at two roots: sten49's 3
    # lets a third in at the start; the memo's question is the same at any value)
    b = books(saturation=1.1, threads=8, workers=("a",))
    b.audit = True
    a = b.workers["a"]
    for i in range(12):
        b.on_run(f"u{i}", "a", True, "g", NAN)
        b.on_finished(f"u{i}", 8e6, (), False, True)
    for r in ("r0", "r1"):
        b.on_run(r, "a", True, "g", NAN)
    assert b.place("r2", NAN, "g", {}, ["a"], spread=2) is None  # one worker: guarded
    b.add_worker("b", 8, math.inf)
    assert b.place("r2", NAN, "g", {}, ["a"], spread=2) == "a"  # two: four at the start
    b.remove_worker("b")
    assert b.place("r3", NAN, "g", {}, ["a"], spread=2) is None
    b.validate()

def test_the_burst_clause_asks_the_cuts_of_the_refused_roots_own_group(monkeypatch):
    """Two computations at once on one worker: a groupby-like one whose loads (group "g")
    were cut into BACKLOG_BURST_CUTS pieces while siblings read them, and a plain one
    (group "p") whose loads are not cut. Where tasks wait for a thread, a root loads and
    the worker holds BACKLOG_BURST_HELD times its count's worth, the burst clause refuses
    g's next root and not p's (BACKLOG_BURST_OWN; grp46): with the most cuts over the
    groups (grp45's Books.cuts_max, BACKLOG_BURST_OWN = 0) g's cut-up loads turned it on
    for p too (review45). refuses_further's memo, kept over the roots asked in one wake,
    tells the two roots apart (the same estimate, the same worker), and forgetting g's
    group turns the clause off for its roots too."""
    import tidegate.policy as policy

    monkeypatch.setattr(policy, "BACKLOG_BURST", 1)
    monkeypatch.setattr(policy, "BACKLOG_BURST_OWN", 1)
    threads = max(policy.BACKLOG_BURST_THREADS, policy.BACKLOG_THREADS + 1)
    b = books(saturation=1.5, threads=threads, workers=("a", "b"))
    a = b.workers["a"]
    cuts = policy.BACKLOG_BURST_CUTS
    cut_up(b, "g0", cuts, kind="d")  # g0 cut into its days
    assert not b.in_flight("g0") and b.burst_cuts("g") == cuts and b.burst_cuts("p") == 0
    b.on_run("p0", "a", True, "p", NAN)  # the plain computation's load, loading
    for t in range(threads + policy.BACKLOG_BURST - 1):
        b.on_run(f"s-{t}", "a", False, "s", NAN)
    a.held = policy.BACKLOG_BURST_HELD * a.cap * 8e6
    assert a.processing >= threads + policy.BACKLOG_BURST  # tasks wait for a thread
    assert a.processing - 1 < policy.BACKLOG_WIDE * threads  # (grp43's backlog says no)
    assert a.roots_processing + a.roots_untouched < a.cap  # (the count has room)
    assert b.estimate(NAN, "p") == b.estimate(NAN, "g")  # (the memo's other inputs alike)
    assert b.admits("a", "p1", NAN, "p", False)
    assert not b.admits("a", "g1", NAN, "g", False)
    memo: dict = {}
    assert not b.refuses_further("p1", "p", "a", set(), False, False, memo)
    assert b.refuses_further("g1", "g", "a", set(), False, False, memo)
    assert not b.refuses_further("p2", "p", "a", set(), False, False, memo)
    assert b.place("p1", NAN, "p", {}, ["a"]) == "a"
    assert b.place("g1", NAN, "g", {}, ["a"]) is None
    # refusal_inputs (what a root parked on "a" stays refused by) tells apart a change
    # that refuses p's roots but not g's, which already were (grp43's backlog on)
    before = b.refusal_inputs("a")
    held, a.held = a.held, policy.BACKLOG_HELD * a.cap * 8e6
    assert b.refusal_inputs("a") == before  # (no budget: held bytes are not read)
    more = policy.BACKLOG_WIDE * threads - a.processing + 1
    for t in range(more):
        b.on_run(f"q-{t}", "a", False, "s", NAN)
    assert b.refuses_further("p2", "p", "a", set(), False, False, {})
    after = b.refusal_inputs("a")
    assert after != before and after[:-1] == before[:-1]
    for t in range(more):
        b.on_finished(f"q-{t}", 1e3, (), False, True)
    a.held = held
    assert b.refusal_inputs("a") == before
    monkeypatch.setattr(policy, "BACKLOG_BURST_OWN", 0)  # grp45's: the most over the groups
    assert b.burst_cuts("p") == cuts
    assert not b.admits("a", "p2", NAN, "p", False)  # g's cuts turn it on for p
    assert b.refuses_further("p2", "p", "a", set(), False, False, {})
    monkeypatch.setattr(policy, "BACKLOG_BURST_OWN", 1)
    b.forget_groups(lambda g: g != "g")  # g's computation gone
    assert b.cuts_max == 0 and b.burst_cuts("g") == 0
    assert b.admits("a", "g2", NAN, "g", False)
    b.validate()


def test_a_pair_opener_waits_where_the_tasks_processing_fill_the_cap(monkeypatch):
    """A root whose parts meet several pairs (the plugin's policy.pair_commits: a rechunk's
    block cut in halves) opens them only where the tasks processing, queued or running,
    do not fill the cap (policy.pair_waits, Books.place's ``pair``), on workers of more
    than two threads: there a block's halves wait for merges slower than their splits,
    and the books count the block's slot free once it was split (twin rechunk 4 x 4 at
    2 ms: 1.11x queuing's peak in 5 of 15 runs; tail35-findings.txt). With room by the
    in-flight count, the opener goes elsewhere (or waits); without ``pair`` (a further
    meeting's commits) it is admitted as before; on two threads the rule stays out. (A
    root loading where a task waits for a thread: policy.BACKLOG_BURST's, off here.)"""
    import tidegate.policy as policy

    monkeypatch.setattr(policy, "BACKLOG_BURST", 0)

    def busy(threads):
        b = books(saturation=1.1, threads=threads, workers=("a", "c"))  # cap 5 / 3
        cap = b.workers["a"].cap
        b.on_run("r-0", "a", True, "r", NAN)  # one root in flight: room by the count
        for t in range(int(cap) - 1):  # merges queued behind it: the cap filled
            b.on_run(f"m-{t}", "a", False, "m", NAN)
        b.on_run("busy-c", "c", False, "x", NAN)  # (c not idle either)
        for t in range(int(cap) - 1):
            b.on_run(f"n-{t}", "c", False, "m", NAN)
        return b

    b = busy(4)
    assert b.workers["a"].processing == b.workers["a"].cap == 5
    assert b.place("u", NAN, "u", {}, ["a"], lacks={"v"}, commits=True) == "a"  # 1 + 1 < 5
    b = busy(4)
    assert b.place("u", NAN, "u", {}, ["a", "c"], lacks={"v"}, commits=True,
                   pair=True) is None  # both full  # fmt: skip
    b.on_finished("n-0", 10.0, (), False, False)  # c: 4 processing, below its cap
    assert b.place("u", NAN, "u", {}, ["a", "c"], lacks={"v"}, commits=True, pair=True) == "c"
    b.validate()
    monkeypatch.setattr(policy, "PAIR_BUSY", 0)
    b = busy(4)
    assert b.place("u", NAN, "u", {}, ["a"], lacks={"v"}, commits=True, pair=True) == "a"
    monkeypatch.setattr(policy, "PAIR_BUSY", 1)
    b = busy(2)  # cap 3, 3 processing: a pair's two loads take both threads anyway
    assert b.place("u", NAN, "u", {}, ["a"], lacks={"v"}, commits=True, pair=True) == "a"
    assert policy.pair_waits(5, 5, 4) and not policy.pair_waits(4, 5, 4)
    assert not policy.pair_waits(3, 3, 2) and not policy.pair_waits(9, 2, 1)
    assert not policy.pair_waits(4, 5, 4, 1)  # (1: roots untouched are not tasks)
    monkeypatch.setattr(policy, "PAIR_BUSY", 2)  # (2: they count as tasks processing)
    assert policy.pair_waits(4, 5, 4, 1) and not policy.pair_waits(3, 5, 4, 1)


def test_a_pair_opener_waits_where_its_loads_would_queue_behind_loads(monkeypatch):
    """On a three-thread worker (cap 4) loading a pair (2 roots processing, nothing else),
    a pair's opener is refused there: its two loads would queue behind the two running,
    arrive with the last pair's splits and run first, and both pairs' blocks meet both
    pairs' halves (twin rechunk 3 x 3 at 2 ms: 64 MB against queuing's 56 in 5 of 15 runs;
    policy.PAIR_LOADS, tail36-findings.txt). Admitted with one load running, without
    ``pair``, with the switch off, or on four threads (2 + 2 loads fit)."""
    import tidegate.policy as policy

    def loading(threads, roots):
        b = books(saturation=1.1, threads=threads, workers=("a",))
        for r in range(roots):
            b.on_run(f"r-{r}", "a", True, "r", NAN)
        return b

    b = loading(3, 2)
    assert b.workers["a"].cap == 4 and b.workers["a"].processing == 2
    assert b.place("u", NAN, "u", {}, ["a"], lacks={"v"}, commits=True, pair=True) is None
    assert b.place("u", NAN, "u", {}, ["a"], lacks={"v"}, commits=True) == "a"
    b = loading(3, 1)
    assert b.place("u", NAN, "u", {}, ["a"], lacks={"v"}, commits=True, pair=True) == "a"
    b = loading(4, 2)
    assert b.place("u", NAN, "u", {}, ["a"], lacks={"v"}, commits=True, pair=True) == "a"
    b.validate()
    monkeypatch.setattr(policy, "PAIR_LOADS", 0)
    b = loading(3, 2)
    assert b.place("u", NAN, "u", {}, ["a"], lacks={"v"}, commits=True, pair=True) == "a"
    monkeypatch.setattr(policy, "PAIR_LOADS", 1)
    assert policy.pair_waits(2, 4, 3, 0, 2) and not policy.pair_waits(2, 4, 3, 0, 1)
    assert not policy.pair_waits(2, 3, 2, 0, 2)  # (two threads: the rule stays out)
    assert not policy.pair_waits(4, 5, 4, 1, 2)  # (four: 2 + 2 loads fit)
    monkeypatch.setattr(policy, "PAIR_LOADS", 2)  # (2: over a pair's blocks still to cut)
    assert policy.pair_waits(4, 5, 4, 1, 2) and not policy.pair_waits(3, 5, 4, 1, 2)
    assert not policy.pair_waits(3, 4, 3, 2, 0)  # (three threads: one pair's blocks)


def test_a_pair_opener_waits_beside_a_loading_pair_and_a_block_to_cut(monkeypatch):
    """On a four-thread worker (cap 5) loading a pair (2 roots processing) beside a block
    loaded but not cut (1 untouched), every thread taken: a third pair's opener is refused
    there (its loads would take the threads the loads free before that pair's splits come,
    and meet the first pair's halves still waiting for merges: twin rechunk 2 x 4 / 3 x 4
    at 2 ms, 80 MB against queuing's 72-76 in 5 / 4 of 50 runs; policy.PAIR_LOADS 3,
    rech37-findings.txt). Admitted with a thread free, with no block to cut, with one load
    running, with the switch at 1, or on six threads (three pairs fit)."""
    import tidegate.policy as policy

    def worker(threads, loads, cut, busy):
        b = books(saturation=1.1, threads=threads, workers=("a",))
        for r in range(loads):
            b.on_run(f"r-{r}", "a", True, "r", NAN)
        for r in range(cut):  # (a block loaded here, no consumer has used it yet)
            b.on_run(f"c-{r}", "a", True, "r", NAN)
            b.on_finished(f"c-{r}", 8e6, (), False, True)
        for r in range(busy):
            b.on_run(f"x-{r}", "a", False, "x", NAN)
        return b

    def opens(b):
        return b.place("u", NAN, "u", {}, ["a"], lacks={"v"}, commits=True, pair=True)

    b = worker(4, 2, 1, 2)
    book = b.workers["a"]
    assert (book.cap, book.roots_processing, book.roots_untouched, book.processing) \
        == (5, 2, 1, 4)
    assert opens(b) is None
    assert b.place("u", NAN, "u", {}, ["a"], lacks={"v"}, commits=True) == "a"
    assert opens(worker(4, 2, 1, 1)) == "a"  # (a thread free)
    assert opens(worker(4, 2, 0, 2)) == "a"  # (no block to cut)
    assert opens(worker(4, 1, 2, 2)) == "a"  # (one load: its pair's splits are there)
    assert opens(worker(6, 2, 1, 4)) == "a"  # (six threads: 2 + 1 + 2 blocks fit)
    b.validate()
    monkeypatch.setattr(policy, "PAIR_LOADS", 1)
    assert opens(worker(4, 2, 1, 2)) == "a"
    monkeypatch.setattr(policy, "PAIR_LOADS", 3)
    assert policy.pair_waits(4, 5, 4, 1, 2) and not policy.pair_waits(4, 5, 4, 2, 1)
    assert not policy.pair_waits(6, 7, 6, 1, 2) and policy.pair_waits(6, 7, 6, 3, 2)


def test_validate_catches_a_drifted_reservation():
    b = books(saturation=1.1, threads=4)
    b.on_run("busy", "a", False, "x", NAN)
    b.place("u", NAN, "u", {}, ["a"], lacks={"v"})
    b.workers["a"].owed += 1
    with pytest.raises(AssertionError):
        b.validate()


def test_group_statistics_are_forgotten():
    b = books()
    ran(b, "r", 5e6, root=True, group="load-1", feeds=False)
    assert b.estimate(NAN, "load-2") == 5e6  # another group: the largest any root loaded
    b.forget_groups(lambda g: g != "load-1")
    assert b.estimate(NAN, "load-1") == 0 and b.estimate(NAN, "load-2") == 0


def test_removed_worker_hands_surviving_data_on():
    b = books(workers=("a", "b"))
    ran(b, "r", 10, root=True, group="g")
    ran(b, "s", 10, root=True, group="g")
    b.on_run("busy", "a", False, "x", NAN)
    b.remove_worker("a", locate={"r": "b"}.get, stimulus_id="gone")
    assert "a" not in b.workers
    assert b.workers["b"].roots_untouched == 1  # r survives on b; s is lost
    b.on_finished("use", 1, ["r", "s"], False, True)  # s's consumer ran on recomputed data
    assert b.workers["b"].roots_untouched == 0
    b.on_stopped("busy")  # reported after the removal: nothing to undo
    b.validate()


def test_validate_catches_a_drifted_book():
    b = books()
    b.on_run("r", "a", True, "g", NAN)
    b.workers["a"].roots_processing += 1
    with pytest.raises(AssertionError):
        b.validate()


# -- through the core ---------------------------------------------------------------------
def chains(n, link_sizes, combine=True):
    """n roots (opens), each through a chain of single-input tasks, then combined in pairs
    (or reduced by a single-input sum when ``combine`` is False)."""
    deps = {}
    ends = []
    for i in range(n):
        prev = ("open", i)
        deps[prev] = []
        for j in range(len(link_sizes)):
            deps[(f"link{j}", i)] = [prev]
            prev = (f"link{j}", i)
        ends.append(prev)
    if combine:
        outs = [("pair", k) for k in range(n // 2)]
        for k in range(n // 2):
            deps[("pair", k)] = [ends[2 * k], ends[2 * k + 1]]
    else:
        outs = [("sum", i) for i in range(n)]
        for i in range(n):
            deps[("sum", i)] = [ends[i]]
    return make_graph(deps, outs)


def loaded_alive(core, g, sizes):
    """Chain ends (and links) holding >= 1 MB, in memory: what the chains loaded."""
    return sum(
        1 for i in range(len(g)) if core.state[i] in (3, 6) and sizes(i) >= 1e6
    )


@pytest.mark.parametrize("threads", [2, 4])
def test_core_bounds_data_loaded_through_chains(threads):
    """A tiny open, then a 32 MB read and a 16 MB select: with roots counted by the data
    they load, the loaded outputs alive stay within the cap plus one pair's inputs; counted
    by their first task only (chain_keep=inf), the opens run ahead of the reads."""
    g = chains(40, ["read", "select"])
    size = {0: 100, 1: 32e6, 2: 16e6}
    links = {"open": 0, "link0": 1, "link1": 2}

    def sizes(i):
        k = g.keys[i][0]
        return size[links[k]] if k in links else 8

    def peak(policy):
        core = Scheduler(g, [(threads, math.inf)], policy, validate=True)
        seen = []
        drive(core, seed=1, size=sizes, on_event=lambda c: seen.append(loaded_alive(c, g, sizes)))
        return max(seen)

    cap = math.ceil(1.0 * threads)
    by_data = peak(Policy("tidegate", 1.0))
    by_first_task = peak(Policy("tidegate", 1.0, chain_keep=math.inf))
    assert by_data <= cap + 2, by_data
    assert by_first_task > by_data


def test_core_reduction_frees_the_slot():
    """Each chain ends in a single-input sum (a reduction): the slot frees at the sum, so
    the next open starts while the previous sum's output is still held."""
    g = chains(6, ["read"], combine=False)

    def sizes(i):
        return {"open": 100, "link0": 32e6}.get(g.keys[i][0], 8)

    core = Scheduler(g, [(1, math.inf)], Policy("tidegate", 1.0), validate=True)
    runs, _ = drive(core, size=sizes)
    assert len(runs) == len(g)
    assert not core.books._live and core.workers[0].roots_untouched == 0


def test_core_story_and_invalid_transition():
    g = chains(2, ["read"])
    core = Scheduler(g, [(1, math.inf)], Policy("tidegate", 1.0), validate=True)
    (run,) = core.start()
    assert run == Run(g.keys.index(("open", 0)), 0)
    core.handle(Finished(run.task, 100))
    story = core.story(("open", 0))
    assert [(a, b) for _, a, b in story[:3]] == [
        ("waiting", "ready"), ("ready", "processing"), ("processing", "memory")
    ]
    with pytest.raises(InvalidTransition, match="memory -> memory"):
        core.handle(Finished(run.task, 100))


def test_an_edge_split_leaves_its_load_in_flight_for_the_halves_still_to_cut():
    """A rechunk splits each load into two halves and a tiny edge piece. The edge split
    takes no time and runs first: it reduced the load while both halves still had to read
    it (policy.read_on, asked from two readers on; main asked only above MEETING_SPREAD),
    so the load stays in flight until the halves carry it on and are merged."""
    from tidegate.policy import read_on

    readers = {"u": ["edge", "half0", "half1"]}
    pending = {"half0", "half1"}
    b = books(threads=4)
    ran(b, "u", 100.0, root=True)

    def on(x):
        return read_on(readers[x], "edge", lambda r: True, pending.__contains__)

    b.on_run("edge", "a", False, "split", NAN)
    b.on_finished("edge", 0.02, ["u"], True, True, read_on=on)
    assert b.workers["a"].roots_untouched == 1  # main: 0, the halves still to cut
    for half in ("half0", "half1"):
        b.on_run(half, "a", False, "split", NAN)
        pending.discard(half)
        b.on_finished(half, 50.0, ["u"], True, True, read_on=on)
        assert b.workers["a"].roots_untouched == 1
    b.validate()
    ran(b, "merge", 50.0, ["half0"])  # (a join's other piece aside)
    ran(b, "merge1", 50.0, ["half1"], group="merge")
    assert b.workers["a"].roots_untouched == 0  # both halves used: landed
    b.validate()
    # one reader: nothing else to read it on; the only reader of a stencil-size fan-out too
    assert not read_on(["edge"], "edge", lambda r: True, lambda r: True)
    assert read_on(["edge", "half0"], "edge", lambda r: True, lambda r: True)
    assert not read_on(["edge", "half0"], "edge", lambda r: True, lambda r: False)


def test_a_load_cut_in_halves_stays_in_flight_until_its_second_half_is_cut_and_used():
    """A rechunk cuts each load into two halves (each keeps half its bytes: the data goes
    on). The first half took the load's data on and the load itself counted no more, so
    the first half's merge, starting beside the other load's half, landed the load while
    its second half was still to cut: the next root came in, ordered before that half,
    and the load stayed held beside it (twin rechunk 4 x 1: 40 MB against queuing's 32).
    Now the load stays in flight while a sibling single-input task still has to read it
    (policy.read_on, READ_ON_KEEPS), and lands when both halves are used."""
    from tidegate import policy
    from tidegate.policy import read_on

    readers = {"u": ["h0", "h1"], "v": ["g0", "g1"]}
    pending = {"h0", "h1", "g0", "g1"}
    b = books(threads=1)
    a = b.workers["a"]
    ran(b, "u", 100.0, root=True)
    ran(b, "v", 100.0, root=True)

    def on(task):
        return lambda x: read_on(readers[x], task, lambda r: True, pending.__contains__)

    for half, load in (("h0", "u"), ("g0", "v")):
        b.on_run(half, "a", False, "split", NAN)
        pending.discard(half)
        b.on_finished(half, 50.0, [load], True, True, read_on=on(half))
    assert a.roots_untouched == 2
    b.on_run("m0", "a", False, "merge", NAN)
    b.on_consuming("m0", ["h0", "g0"], "s1")  # a merge-and-reduce: no pieces kept
    assert a.roots_untouched == 2  # before: 1, u landed with h1 still to cut from it
    policy.READ_ON_KEEPS = 0
    try:
        c = books(threads=1)
        ran(c, "u", 100.0, root=True)
        c.on_run("h0", "a", False, "split", NAN)
        c.on_finished("h0", 50.0, ["u"], True, True, read_on=on("h0"))
        c.on_run("m0", "a", False, "merge", NAN)
        c.on_consuming("m0", ["h0", "x"], "s1")
        c.on_finished("m0", 0.1, ["h0", "x"], False, True)
        assert c.workers["a"].roots_untouched == 0  # (main's: landed, u still to cut)
    finally:
        policy.READ_ON_KEEPS = 1
    b.on_finished("m0", 0.1, ["h0", "g0"], False, True)
    for half, load in (("h1", "u"), ("g1", "v")):
        b.on_run(half, "a", False, "split", NAN)
        pending.discard(half)
        b.on_finished(half, 50.0, [load], True, True, read_on=on(half))
        b.on_released(load)
    assert a.roots_untouched == 2
    b.validate()
    ran(b, "m1", 0.1, ["h1", "g1"], group="merge")
    assert a.roots_untouched == 0  # both halves used: landed
    b.validate()


def test_a_join_starting_frees_none_of_its_pieces_slots():
    """A task joining pieces of one array (a rechunk's merge: ``pieces`` given, and a task
    of its group joined before) uses none of its inputs' data up when it starts, unlike a
    consumer that combines data: its output carries the data on (books._joined). Freed at
    its start, a merge of two loads' halves landed a load whose other half was still to
    merge. A group never seen joining (a tree reduction's combine of pieces of one group,
    which reduces them) frees them as any consumer does."""
    b = books(threads=4)
    for r in ("u0", "u1", "u2", "u3"):
        ran(b, r, 100.0, root=True, group="u")
    b.on_run("m0", "a", False, "merge", NAN)
    b.on_consuming("m0", ["u0", "u1"], "s1", pieces=200.0)  # merge: not known to join yet
    assert b.workers["a"].roots_untouched == 3
    b.on_finished("m0", 200.0, ["u0", "u1"], False, True, pieces=200.0)
    assert b.workers["a"].roots_untouched == 3  # u2, u3 and the join's output
    assert [e[1] for e in b.story("m0")] == ["joined"]
    b.validate()
    b.on_run("m1", "a", False, "merge", NAN)
    b.on_consuming("m1", ["u2", "u3"], "s2", pieces=200.0)  # a merge joins: none freed
    assert b.workers["a"].roots_untouched == 3
    b.validate()
    b.on_run("add", "a", False, "add", NAN)
    b.on_consuming("add", ["m0", "u2"], "s3")  # combining data: one slot kept
    assert b.workers["a"].roots_untouched == 2
    b.validate()


def test_a_root_completing_a_further_meeting_passes_only_where_no_root_processes():
    """books.place(further=True): ``complete`` are the workers of a further meeting whose
    other side is all found (rechunk-add's v loads of a step pair whose u loads are
    there). There the root passes the in-flight count only where no root processes
    (policy.passes_for_further): the pair's two sides load one after the other."""
    from tidegate.policy import passes_for_further

    assert passes_for_further(0) and not passes_for_further(1)
    b = books(threads=4, saturation=1.1)  # cap 5
    for r in ("m0", "m1", "m2", "m3"):  # four chunks in flight
        ran(b, r, 100.0, root=True, group="u")
    b.on_run("u0", "a", True, "u", NAN)  # a load processing: count 5 = cap - 0
    b.on_run("x", "a", False, "x", NAN)
    assert b.place("v0", NAN, "u", {"a": 1}, [], complete={"a"}) == "a"  # main's pass
    b.on_stopped("v0")
    assert b.place("v1", NAN, "u", {"a": 1}, [], complete={"a"}, further=True) is None
    b.on_finished("u0", 100.0, (), False, True)  # no root processing now
    assert b.place("v1", NAN, "u", {"a": 1}, [], complete={"a"}, further=True) == "a"
    b.validate()


def test_a_worker_awaiting_a_combine_opens_no_new_meeting_even_idle():
    """policy.awaits_combine: the worker holding most of a tree reduction's next combine's
    done inputs, the others all on their way (books.combines, the body's view), opens no
    new group of roots, idle or not; a root opening nothing (its meeting's reserved
    roots), a worker holding fewer of the inputs, or inputs not all on their way yet
    (roots of them still to be admitted: the worker would idle for them) are not held."""
    b = books(saturation=1.1, threads=4)
    view = {"a": [(2, 2, True)]}
    b.combines = lambda w: view.get(w, [])
    b.noted = view
    lacks = {"r-1", "r-2", "r-3"}
    assert b.place("r-0", NAN, "g", {}, ["a"], lacks=set(lacks), commits=True) is None
    assert b.log[-1][:3] == ("r-0", "withheld", "a")
    assert b.place("s-0", NAN, "g", {}, ["a"]) == "a"  # opens nothing: the count decides
    for other in ([(2, 3, True)], [(1, 1, True)], [(2, 2, False)], []):
        view["a"] = other
        assert b.place("r-0", NAN, "g", {}, ["a"], lacks=set(lacks), commits=True) == "a"
    from tidegate.policy import awaits_combine
    assert awaits_combine(2, 2, True) and awaits_combine(3, 1, True)
    assert not awaits_combine(1, 1, True) and not awaits_combine(2, 3, True)
    assert not awaits_combine(3, 3, False)


def _early_taker(b, taker="take", chunk="chunk", chunk_bytes=8e6):
    """A tiny root (a groupby's shuffle-taker, 280 B) finishes before any chunk: beside
    nothing larger it counts as data (policy.holds_data); then a chunk finishes."""
    for task, nbytes in ((taker, 280.0), (chunk, chunk_bytes)):
        b.on_run(task, "a", True, task, NAN)
        feeds = b.root_holds_data(task, task, nbytes, True, lambda t: False)
        b.on_finished(task, nbytes, (), False, feeds)


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_a_root_result_judged_data_beside_nothing_is_judged_again(threads):
    """policy.judged_again in the books (grp29, both bodies): a handle-sized root result
    that counted as data only for want of a larger one is judged again when a larger one
    finishes; tiny beside it, its slot frees (on workers of 2+ threads:
    policy.rejudged_on), unless the body says it leads on to data (books.leads_on); a body
    with no such view (leads_on None) judges nothing again."""
    from tidegate.policy import rejudged_on

    def left(leads_on):
        b = books(threads=threads)
        b.leads_on = leads_on
        _early_taker(b)
        b.validate()
        return b.in_flight("take"), b.workers["a"].roots_untouched

    freed = rejudged_on(threads)
    assert left(lambda t: False) == ((False, 1) if freed else (True, 2))
    assert left(lambda t: True) == (True, 2)  # a reader about to run, or a root
    assert left(None) == (True, 2)


def test_a_root_result_judged_again_only_if_it_counted_for_want_of_a_larger():
    """Results that never counted as data, chained ones (a handle a single-input task
    reads) and results of HANDLE_MAX_BYTES or more are not judged again."""
    from tidegate.policy import HANDLE_MAX_BYTES

    asked = []

    def leads_on(t):
        asked.append(t)
        return False

    b = books(threads=2)
    b.leads_on = leads_on
    b.on_run("open", "a", True, "open", NAN)
    assert b.root_holds_data("open", "open", 100.0, True, lambda t: True)  # chained
    b.on_finished("open", 100.0, (), False, True)
    _early_taker(b, taker=("big", 0), chunk="c0", chunk_bytes=4e6)
    b.on_run("big", "a", True, "big", NAN)
    b.root_holds_data(("big", 1), "big", float(HANDLE_MAX_BYTES), True, lambda t: False)
    _early_taker(b, taker="t2", chunk="c1", chunk_bytes=16e9)  # tiny beside 4 MB: no data
    assert "open" not in asked and ("big", 1) not in asked and "t2" not in asked
    assert asked == [("big", 0)]  # 280 B beside 4 MB
    assert b.in_flight("open")


def test_core_judges_an_early_tiny_root_again_as_the_plugin_does():
    """The core asks books.root_holds_data, so the judged-again step is the plugin's
    (grp29) and the core has its view of readers (books.leads_on: core._leads_on). Four
    tiny takers run first (priority), each read by a cut with a chunk loaded later, so
    each counts as data beside nothing; once the first chunk finishes, the takers whose
    chunk is not loaded or running yet are tiny beside it and their slots free (2
    threads); take0, whose cut is about to run (chunk0 loaded), keeps its slot."""
    n = 4
    deps = {**{f"take{i}": [] for i in range(n)}, **{f"chunk{i}": [] for i in range(n)},
            **{f"cut{i}": [f"chunk{i}", f"take{i}"] for i in range(n)},
            "sum": [f"cut{i}" for i in range(n)]}  # fmt: skip
    g = make_graph(deps, ["sum"])
    first = {**{f"take{i}": i for i in range(n)}, **{f"chunk{i}": n + i for i in range(n)}}
    g.priority[:] = [first.get(k, 2 * n + i) for i, k in enumerate(g.keys)]

    def size(i):
        k = g.keys[i]
        return 280.0 if k.startswith("take") else 8e6 if k.startswith("chunk") else 1e6

    for seed in range(5):
        core = Scheduler(g, [(2, math.inf)], Policy("tidegate", 1.0), validate=True)
        drive(core, seed=seed, size=size)
        rejudged = {g.keys[e[0]] for e in core.books.log
                    if e[1] == "landed" and e[4] == "tidegate-rejudged"}  # fmt: skip
        assert rejudged and "take0" not in rejudged, (seed, rejudged)


def test_a_body_naming_its_root_by_key_has_it_judged_again_by_key():
    """The plugin passes its TaskState as root_holds_data's ``task`` (what its ``chained``
    reads) and the books' name as ``key``: the result is noted and judged again by key
    (noted under the TaskState, it was never found in flight: tests/test_probe25.py's
    early takers stayed)."""
    from types import SimpleNamespace

    b = books(threads=2)
    asked = []
    b.leads_on = lambda k: asked.append(k) or False
    ts = SimpleNamespace(key="take")
    b.on_run("take", "a", True, "take", NAN)
    assert b.root_holds_data(ts, "take", 280.0, True, lambda t: t is not ts, key="take")
    b.on_finished("take", 280.0, (), False, True)
    _early_taker(b, taker="t1", chunk="chunk")
    assert "take" in asked and not b.in_flight("take")


@pytest.mark.parametrize("change", ["largest root grows", "held drops"])
def test_a_wide_backlog_refusal_is_not_kept_past_what_it_read(change):
    """A root refused by the wider backlog (BACKLOG_FLIGHT: held bytes against the largest
    root) is admitted by place as soon as either changes, though the worker's book version
    did not move (neither bumps it): place keeps no such refusal (review43 found the kept
    one still refusing; audit's assertion fired)."""
    import tidegate.policy as policy

    b = books(saturation=1.5, threads=2, workers=("a", "b", "c"))
    b.audit = True
    a = b.workers["a"]
    b.on_run("r0", "a", True, "g", NAN)
    b.on_finished("r0", 8e6, (), False, True)
    a.held = policy.BACKLOG_HELD * 3 * 8e6
    for t in range(policy.BACKLOG_WIDE * 2):
        b.on_run(f"s-{t}", "a", False, "s", NAN)
    assert b.place("r1", NAN, "g", {}, ["a"]) is None  # backlogged: refused
    version = a.version
    if change == "largest root grows":  # another group's larger root lands elsewhere
        b.on_run("h0", "b", True, "h", NAN)
        b.on_finished("h0", 100e6, (), False, True)
    else:
        a.held = 0.0
    assert a.version == version
    assert b.place("r1", NAN, "g", {}, ["a"]) == "a"
    b.validate()


def test_a_budget_refusal_is_not_kept_past_the_held_bytes():
    """With a budget, a root refused because the worker's held bytes fill it is admitted by
    place once the body measures them lower (Admission._refresh: no version bump); main
    kept the refusal until the worker's next task event (review43)."""
    b = books(saturation=1.5, threads=2, budget=100e6, workers=("a",))
    b.audit = True
    a = b.workers["a"]
    b.on_run("r0", "a", True, "g", NAN)
    b.on_finished("r0", 8e6, (), False, True)
    b.on_run("s-0", "a", False, "s", NAN)
    a.held = 99e6
    assert b.place("r1", NAN, "g", {}, ["a"]) is None
    a.held = 0.0
    assert b.place("r1", NAN, "g", {}, ["a"]) == "a"
    b.validate()
