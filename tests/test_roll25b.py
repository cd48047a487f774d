"""roll25b (issue 9): a join of pieces much smaller than a root's load (a rolling mean's
overlap sums over a ninth of a chunk) holds that share of a root slot, not a whole one
(policy.join_slot)."""

import math

import pytest

from tidegate.books import Books
from tidegate.policy import JOIN_SLOT_STEPS, Policy, join_slot

xr = pytest.importorskip("xarray")
pytest.importorskip("zarr")


def test_join_slot_is_its_share_of_a_root_load():
    assert join_slot(1.73e6, 15.55e6) == math.ceil(JOIN_SLOT_STEPS * 1.5 * 1.73e6 / 15.55e6) \
        / JOIN_SLOT_STEPS < 0.2  # fmt: skip
    assert join_slot(15.6e6, 15.55e6) == 1  # a rechunk's whole-chunk merge: a slot
    assert join_slot(1.0, 0.0) == 1  # nothing loaded yet: a slot
    assert join_slot(1.0, 1e12) == 1 / JOIN_SLOT_STEPS  # never free


def test_books_count_small_joins_by_their_share_and_return_to_zero():
    b = Books(Policy())
    b.add_worker("w", threads=2, budget=math.inf)
    b.on_run("r", "w", True, "load", 0.0)
    b.on_finished("r", 16e6, (), False, True)  # a root's 16 MB load, still read
    joins = [f"j{i}" for i in range(9)]
    for j in joins:
        b.on_run(j, "w", False, "join", 0.0)
        b.on_finished(j, 1.6e6, ["r"], False, True, pieces=1.7e6)
    # the load landed (combined into the joins); nine joins of a tenth hold 9 * 10/64 slot
    untouched = b.workers["w"].roots_untouched
    assert untouched == 9 * 10 / JOIN_SLOT_STEPS, untouched
    b.validate()
    for i, j in enumerate(joins):
        b.on_run(f"c{i}", "w", False, "use", 0.0)
        b.on_finished(f"c{i}", 8.0, [j], True, True)  # reduced: consumed
    assert b.workers["w"].roots_untouched == 0
    b.validate()
