import math, sys
sys.path.insert(0, "/work/wt/trial43/tests")
from test_books import books, NAN
import tidegate.policy as policy


def test_backlog_refusal_kept_after_held_drops_no_budget():
    b = books(saturation=1.5, threads=2, workers=("a",))
    a = b.workers["a"]
    b.on_run("r0", "a", True, "g", NAN)
    b.on_finished("r0", 8e6, (), False, True)
    a.held = policy.BACKLOG_HELD * 3 * 8e6
    for t in range(policy.BACKLOG_WIDE * 2):
        b.on_run(f"s-{t}", "a", False, "s", NAN)
    assert b.place("r1", NAN, "g", {}, ["a"]) is None
    a.held = 0  # the body measured it afresh (Admission._refresh: book.held = ws.nbytes)
    assert b.admits("a", "r1x", NAN, "g", False)
    assert b.place("r1", NAN, "g", {}, ["a"]) == "a"


def test_budget_refusal_kept_after_held_drops_main_too():
    b = books(saturation=1.5, threads=2, budget=100e6, workers=("a",))
    a = b.workers["a"]
    b.on_run("r0", "a", True, "g", NAN)
    b.on_finished("r0", 8e6, (), False, True)
    b.on_run("s-0", "a", False, "s", NAN)
    a.held = 99e6
    assert b.place("r1", NAN, "g", {}, ["a"]) is None
    a.held = 0
    assert b.admits("a", "r1x", NAN, "g", False)
    assert b.place("r1", NAN, "g", {}, ["a"]) == "a"
