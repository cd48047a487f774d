import math, sys
sys.path.insert(0, "/work/wt/trial43/tests")
from test_books import books, NAN
import tidegate.policy as policy


def test_kept_refusal_goes_stale_when_roots_max_grows():
    b = books(saturation=1.5, threads=2, workers=("a", "b", "c"))
    a = b.workers["a"]
    b.on_run("r0", "a", True, "g", NAN)
    b.on_finished("r0", 8e6, (), False, True)
    full = policy.BACKLOG_HELD * 3 * 8e6
    a.held = full
    for t in range(policy.BACKLOG_WIDE * 2):
        b.on_run(f"s-{t}", "a", False, "s", NAN)
    assert b.place("r1", NAN, "g", {}, ["a"]) is None  # backlogged: refused, kept
    # another group's root, larger, lands on b: the largest root grows, a's book unchanged
    b.on_run("h0", "b", True, "h", NAN)
    b.on_finished("h0", 100e6, (), False, True)
    assert not policy.backlogged(a.processing, a.roots_processing, a.threads,
                                 a.roots_untouched, a.held + a.estimated,
                                 a.cap * b._roots_max)
    b.audit = False
    assert b.admits("a", "r1x", NAN, "g", False)  # a fresh root of g is admitted on a
    assert b.place("r1", NAN, "g", {}, ["a"]) == "a"  # ...the kept refusal says no


def test_audit_catches_it():
    b = books(saturation=1.5, threads=2, workers=("a", "b", "c"))
    b.audit = True
    a = b.workers["a"]
    b.on_run("r0", "a", True, "g", NAN)
    b.on_finished("r0", 8e6, (), False, True)
    a.held = policy.BACKLOG_HELD * 3 * 8e6
    for t in range(policy.BACKLOG_WIDE * 2):
        b.on_run(f"s-{t}", "a", False, "s", NAN)
    assert b.place("r1", NAN, "g", {}, ["a"]) is None
    b.on_run("h0", "b", True, "h", NAN)
    b.on_finished("h0", 100e6, (), False, True)
    b.place("r1", NAN, "g", {}, ["a"])
